# expect: ok
# log-has: blocked: FileNotFoundError
# log-has: os.system: 32512
# log-lacks: pwned-42
# control-log-has: pwned-42
import os
import subprocess
import triton
import triton.language as tl

try:
    print(subprocess.run(["/bin/sh", "-c", "echo pwned-$((6*7))"], capture_output=True, text=True).stdout)
except OSError as e:
    print("blocked:", type(e).__name__, e)
print("os.system:", os.system("echo pwned-$((6*7))"))


@triton.jit
def k(x_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    tl.store(x_ptr + offs, tl.load(x_ptr + offs, mask=offs < n) + 1.0, mask=offs < n)
