# expect: ok
# log-has: ETC: ['ld.so.cache']
# log-has: DEV: ['full', 'null', 'random', 'urandom', 'zero']
# log-has: 'tmp'
# log-lacks: 'proc'
# log-lacks: 'home'
# log-lacks: 'var'
# log-lacks: 'boot'
import os
import triton
import triton.language as tl

print("ROOT:", sorted(os.listdir("/")))
print("ETC:", sorted(os.listdir("/etc")))
print("DEV:", sorted(os.listdir("/dev")))


@triton.jit
def k(x_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    tl.store(x_ptr + offs, tl.load(x_ptr + offs, mask=offs < n) + 1.0, mask=offs < n)
