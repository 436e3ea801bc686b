# Correct but not on the fly: the mask as a tensor. The first launch draws
# u = tl.rand(seed, i) (i as uint32) for every element and writes keep[i] =
# (u > p) into a uint8 buffer of N bytes, which solve allocates with
# torch.empty (the judge zeroes it before every run, outside the timed
# region); the second reads x and keep and writes y. Same results as the
# solution, but the random numbers are drawn in a launch that moves no data,
# and the mask costs N bytes written and N read: 10N bytes instead of 8N,
# after all the integer work. It brackets the "on-the-fly" bandwidth goal
# from below (expected well under its 45%).
# Control: must be Accepted.
import torch
import triton
import triton.language as tl

BLOCK = 1024


@triton.jit
def make_mask(keep, p, seed, N, BLOCK: tl.constexpr):
    offs = tl.program_id(0).to(tl.int64) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < N
    u = tl.rand(seed, offs.to(tl.uint32))
    tl.store(keep + offs, (u > p).to(tl.uint8), mask=mask)


@triton.jit
def apply_mask(x, keep, y, p, N, BLOCK: tl.constexpr):
    offs = tl.program_id(0).to(tl.int64) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < N
    v = tl.load(x + offs, mask=mask)
    k = tl.load(keep + offs, mask=mask, other=0)
    s = tl.math.div_rn(1.0, 1.0 - p)
    tl.store(y + offs, tl.where(k != 0, v * s, 0.0), mask=mask)


def solve(x, y, p, seed, N):
    keep = torch.empty(N, dtype=torch.uint8, device=x.device)
    grid = (triton.cdiv(N, BLOCK),)
    make_mask[grid](keep, p, seed, N, BLOCK=BLOCK, num_warps=4)
    apply_mask[grid](x, keep, y, p, N, BLOCK=BLOCK, num_warps=4)
