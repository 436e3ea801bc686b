# WRONG (Memory Violation): solution.py rotating k with q's head count Hq.
# The tests with Hq = Hk pass; on (T, Hq, Hk) = (7, 3, 1) the rows of k are
# addressed as (t*3 + h)*D, and k_out's are written up to 3x past its end,
# into the guard band.
#
# This control stays in the directive form (docs/submission-format.md,
# "Directives in Python"), which the judge still takes: the other Triton
# controls of this problem launch from solve(...). The kernel's constexprs
# BLOCK_H and HALF are passed by name (a @tune and a @let of those names).
#
# @tune BLOCK_H=(4, 8, 16)
# @let HALF = max(16, next_pow2(D / 2))
# @launch rope grid=(T * (cdiv(Hq, BLOCK_H) + cdiv(Hk, BLOCK_H))) num_warps=4 \
#     args=(q, k, positions, cos_table, sin_table, q_out, k_out, Hq, Hk, D, D / 2)
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
        rotate_heads(k, k_out, t, (tile - nq) * BLOCK_H, Hq, D, half, c, s, BLOCK_H, HALF)
