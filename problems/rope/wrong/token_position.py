# WRONG (Wrong Answer): solution.py using the token index t as its position
# instead of positions[t] (no gather): right only where positions[t] == t.
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


@triton.autotune(configs=[triton.Config({"BLOCK_H": 4}, num_warps=4),
                          triton.Config({"BLOCK_H": 8}, num_warps=4),
                          triton.Config({"BLOCK_H": 16}, num_warps=4)],
                 key=["Hq", "Hk", "D"])
@triton.jit
def rope(q, k, positions, cos_table, sin_table, q_out, k_out, Hq, Hk, D, half,
         BLOCK_H: tl.constexpr, HALF: tl.constexpr):
    nq = tl.cdiv(Hq, BLOCK_H)
    per_token = nq + tl.cdiv(Hk, BLOCK_H)
    pid = tl.program_id(0)
    t = (pid // per_token).to(tl.int64)
    tile = pid % per_token
    p = t
    i = tl.arange(0, HALF)
    c = tl.load(cos_table + p * half + i, mask=i < half, other=0.0)
    s = tl.load(sin_table + p * half + i, mask=i < half, other=0.0)
    if tile < nq:
        rotate_heads(q, q_out, t, tile * BLOCK_H, Hq, D, half, c, s, BLOCK_H, HALF)
    else:
        rotate_heads(k, k_out, t, (tile - nq) * BLOCK_H, Hk, D, half, c, s, BLOCK_H, HALF)


def solve(q, k, positions, cos_table, sin_table, q_out, k_out, T, Hq, Hk, D, P):
    half = D // 2
    HALF = max(16, triton.next_power_of_2(half))

    def grid(meta):  # per token: the tiles of q's heads, then those of k's
        return (T * (triton.cdiv(Hq, meta["BLOCK_H"]) + triton.cdiv(Hk, meta["BLOCK_H"])),)

    rope[grid](q, k, positions, cos_table, sin_table, q_out, k_out, Hq, Hk, D, half, HALF=HALF)
