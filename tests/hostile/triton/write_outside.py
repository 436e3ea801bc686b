# expect: ok
# log-has: write blocked: Read-only file system
# log-has: package blocked: Read-only file system
import triton
import triton.language as tl

try:
    open("/usr/evil", "w").write("x")
except OSError as e:
    print("write blocked:", e.strerror)
try:
    open(triton.__file__, "ab").write(b"x")
except OSError as e:
    print("package blocked:", e.strerror)


@triton.jit
def k(x_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    tl.store(x_ptr + offs, tl.load(x_ptr + offs, mask=offs < n) + 1.0, mask=offs < n)
