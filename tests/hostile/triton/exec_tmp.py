# expect: ok
# log-has: exec blocked: PermissionError
# log-lacks: ran-copy
# control-log-has: ran-copy
import os
import shutil
import subprocess
import sys
import tempfile
import triton
import triton.language as tl

copy = os.path.join(tempfile.gettempdir(), "py-copy")
shutil.copy(sys.executable, copy)
os.chmod(copy, 0o755)
try:
    subprocess.run([copy, "-c", "print('ran-copy')"])
except OSError as e:
    print("exec blocked:", type(e).__name__, e)


@triton.jit
def k(x_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    tl.store(x_ptr + offs, tl.load(x_ptr + offs, mask=offs < n) + 1.0, mask=offs < n)
