# Dropout with inverted scaling in Triton: one pass, no mask tensor (8 bytes
# moved per element).
#
# u_i is tl.rand(seed, i): word 0 of Philox4x32-10 with counter (i, 0, 0, 0)
# and key (seed low, seed high 32 bits), turned into a float in [0, 1) by
# Triton's uint_to_uniform_float. The problem defines its random numbers as
# exactly that, so the judge's mask and this kernel's agree bit for bit. The
# counter is the element index as a 32-bit unsigned integer (N < 2^32), so
# the int64 offsets go to tl.rand as uint32: 32-bit offsets select the
# 4x32 generator in every Triton version (an int64 offset gives the same
# numbers from Triton 3.4 on, which splits it into c0 and c1, but a
# 64-bit-wide Philox before that).
#
# One program per BLOCK = 1024 elements, 4 warps: 8 elements per thread, so 8
# independent Philox chains interleave and hide each other's multiply
# latency, and x is loaded first (16-byte loads when N is a multiple of 16),
# so the loads are in flight while the rounds run. The kernel is bound by the
# integer multiplies about as much as by memory: expect it below the plain
# elementwise problems (the CUDA solution measured ~61% of copy bandwidth).
#
# s = 1 / (1 - p) is one IEEE division per program (tl.math.div_rn; Triton's
# `/` is the 2-ulp div.full.f32), and y = x * s, as the statement defines it.
#
# The judge calls solve(x, y, p, seed, N) for every test and benchmark shape,
# with the problem's tensors and values, and runs what it launches
# (docs/submission-format.md).
import triton
import triton.language as tl

BLOCK = 1024


@triton.jit
def dropout(x, y, p, seed, N, BLOCK: tl.constexpr):
    pid = tl.program_id(0)
    offs = pid.to(tl.int64) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < N
    v = tl.load(x + offs, mask=mask)
    u = tl.rand(seed, offs.to(tl.uint32))
    s = tl.math.div_rn(1.0, 1.0 - p)
    tl.store(y + offs, tl.where(u > p, v * s, 0.0), mask=mask)


def solve(x, y, p, seed, N):
    dropout[(triton.cdiv(N, BLOCK),)](x, y, p, seed, N, BLOCK=BLOCK, num_warps=4)
