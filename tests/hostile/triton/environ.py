# expect: ok
# log-has: ENV: [('HOME', '/tmp/home'), ('TMPDIR', '/tmp'), ('TRITON_CACHE_DIR', '/tmp/triton-cache')]
# log-lacks: BW_TRITON_SECRET_CANARY
# log-lacks: 'PATH'
import os
import triton
import triton.language as tl

print("ENV:", sorted((k, v) for k, v in os.environ.items() if k not in ("LC_CTYPE",)))


@triton.jit
def k(x_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    tl.store(x_ptr + offs, tl.load(x_ptr + offs, mask=offs < n) + 1.0, mask=offs < n)
