# Rotary Position Embedding (rotate-half) in Triton, for q and k in one launch.
#
# One program rotates BLOCK_H heads of one token: a 2-D tile of BLOCK_H rows
# (heads) by HALF columns (channel pairs i < D/2, padded to a power of two).
# It gathers the token's table row once (cos_table[p], sin_table[p] with
# p = positions[t]) and applies it to every head of the tile, with the two
# halves x[i] and x[i + D/2] of each head loaded as two tiles:
#   out[i]       = x[i] * c[i] - x[i + D/2] * s[i]
#   out[i + D/2] = x[i + D/2] * c[i] + x[i] * s[i]
# in fp32, rounded once to bf16.
#
# The 1-D grid walks, for each token, first the head tiles of q (Hq heads)
# then those of k (Hk heads; grouped-query attention has fewer): consecutive
# programs share the token's table row, which stays in L2.
#
# Vector width: D/2 is passed as its own argument `half`; when it is a
# multiple of 16 (both benchmark shapes) the judge marks it so, as Triton's
# JIT does, and every row start (t*H + h)*D, every second half (+ half) and
# every table row (p * half) is known to be 16-element aligned: 16-byte
# accesses. Other D (2, 6, 80, 92, 130, ...) work the same with narrower ones.
#
# @tune BLOCK_H=(4, 8, 16)
# @launch rope grid=(T * (cdiv(Hq, BLOCK_H) + cdiv(Hk, BLOCK_H))) num_warps=4 args=(q, k, positions, cos_table, sin_table, q_out, k_out, Hq, Hk, D, D / 2, BLOCK_H=BLOCK_H, HALF=max(16, next_pow2(D / 2)))
import triton
import triton.language as tl


@triton.jit
def rotate_heads(x, out, t, h0, H, D, half, c, s, BLOCK_H: tl.constexpr, HALF: tl.constexpr):
    h = h0 + tl.arange(0, BLOCK_H)
    i = tl.arange(0, HALF)
    mask = (h[:, None] < H) & (i[None, :] < half)
    first = (t * H + h) * D  # int64 (t is): T*H*D can pass 2^31
    lo = first[:, None] + i[None, :]
    x1 = tl.load(x + lo, mask=mask, other=0.0).to(tl.float32)
    x2 = tl.load(x + lo + half, mask=mask, other=0.0).to(tl.float32)
    o1 = x1 * c[None, :] - x2 * s[None, :]
    o2 = x2 * c[None, :] + x1 * s[None, :]
    tl.store(out + lo, o1.to(tl.bfloat16), mask=mask)
    tl.store(out + lo + half, o2.to(tl.bfloat16), mask=mask)


@triton.jit
def rope(q, k, positions, cos_table, sin_table, q_out, k_out, Hq, Hk, D, half,
         BLOCK_H: tl.constexpr, HALF: tl.constexpr):
    nq = tl.cdiv(Hq, BLOCK_H)
    per_token = nq + tl.cdiv(Hk, BLOCK_H)
    pid = tl.program_id(0)
    t = (pid // per_token).to(tl.int64)
    tile = pid % per_token
    p = tl.load(positions + t).to(tl.int64)
    i = tl.arange(0, HALF)
    c = tl.load(cos_table + p * half + i, mask=i < half, other=0.0)
    s = tl.load(sin_table + p * half + i, mask=i < half, other=0.0)
    if tile < nq:
        rotate_heads(q, q_out, t, tile * BLOCK_H, Hq, D, half, c, s, BLOCK_H, HALF)
    else:
        rotate_heads(k, k_out, t, (tile - nq) * BLOCK_H, Hk, D, half, c, s, BLOCK_H, HALF)
