# expect: ok
# log-has: blocked: FileNotFoundError
# control-log-has: bw-triton-canary-7c2e91
# A Gluon submission runs in the same sandboxed compile as a Triton one: the
# host's files are as far out of its reach.
from triton.experimental import gluon
from triton.experimental.gluon import language as gl

try:
    print("canary:", open("/tmp/bw-triton-secret-canary.txt").read())
except OSError as e:
    print("blocked:", type(e).__name__, e)


@gluon.jit
def k(x_ptr, n, BLOCK: gl.constexpr):
    layout: gl.constexpr = gl.BlockedLayout([1], [32], [4], [0])
    offs = gl.program_id(0) * BLOCK + gl.arange(0, BLOCK, layout)
    gl.store(x_ptr + offs, gl.load(x_ptr + offs, mask=offs < n) + 1.0, mask=offs < n)
