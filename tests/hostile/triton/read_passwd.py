# expect: ok
# log-has: blocked: FileNotFoundError
# log-lacks: root:
# control-log-has: root:
import triton
import triton.language as tl

try:
    print("passwd:", open("/etc/passwd").read())
except OSError as e:
    print("blocked:", type(e).__name__, e)


@triton.jit
def k(x_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    tl.store(x_ptr + offs, tl.load(x_ptr + offs, mask=offs < n) + 1.0, mask=offs < n)
