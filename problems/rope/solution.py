# Rotary Position Embedding (rotate-half) in Triton, for q and k in one launch.
#
# Token t has Hq + Hk heads to rotate: its Hq heads of q, then its Hk heads of
# k, numbered h = 0 .. Hq + Hk - 1 as in the CUDA solution. One program
# rotates BLOCK_H of them: a 2-D tile of BLOCK_H rows (heads) by HALF columns
# (channel pairs i < D/2, padded to a power of two). It gathers the token's
# table row once (cos_table[p], sin_table[p] with p = positions[t]) and
# applies it to every head of the tile, with the two halves x[i] and
# x[i + D/2] of each head loaded as two tiles:
#   out[i]       = x[i] * c[i] - x[i + D/2] * s[i]
#   out[i + D/2] = x[i + D/2] * c[i] + x[i] * s[i]
# in fp32, rounded once to bf16. Each row of the tile picks its source (q or
# k) and destination (q_out or k_out) with tl.where on pointers.
#
# Why q and k share one head list (against separate q and k tiles, the
# D = 64 shape, Hq = Hk = 16, reached 88.4% of copy bandwidth on the H200;
# this kernel 99.0%):
# - Work per program. A tile of q alone or of k alone holds at most 16 heads
#   there: 2 KB read, half of what a D = 128 program reads, and 262144
#   programs. With q and k in one head list, BLOCK_H = 32 is the whole token:
#   4 KB read (q and k), 131072 programs, one table row per program.
# - Vector width. Triton gives each thread min(16 bytes, tile / threads)
#   elements: [16, 32] over 128 threads is 4 bf16 (8-byte accesses);
#   [32, 32] over 128 threads, or [16, 32] over 64, is 8 (16-byte accesses,
#   as the D = 128 shape already had). The table row is a HALF-element
#   vector: fewer elements than threads, so Triton loads it directly in the
#   layout of the tile's columns (no shuffle), 16 bytes at a time, once per
#   thread for all its heads.
# - Order of the loads. The x loads come first and depend on nothing
#   loaded; then p, then the table rows (which wait for p). Before, the
#   table loads stood ahead of the x loads, behind the q-or-k branch, so a
#   program had none of its bytes in flight during the first memory latency.
#   There is no branch now: every load of the program is in one block.
# The grid walks the tokens in order, a token's tiles next to each other, so
# the table row of a token with two tiles (D = 128: 40 heads) is read from
# DRAM once and then hits L2.
#
# Vector width: D/2 is passed as its own argument `half`; when it is a
# multiple of 16 (both benchmark shapes) the judge marks it so, as Triton's
# JIT does, and every row start (t*H + h)*D, every second half (+ half) and
# every table row (p * half) is known to be 16-element aligned: 16-byte
# accesses. Other D (2, 6, 80, 92, 130, ...) work the same with narrower ones.
#
# BLOCK_H (16 or 32 heads) and num_warps (2 or 4) are autotuned: the judge
# compiles, checks and times the four configs and keeps the fastest per
# benchmark shape. The judge calls solve(...) for every test and benchmark
# shape, with the problem's tensors, and runs what it launches
# (docs/submission-format.md).
import triton
import triton.language as tl


@triton.autotune(configs=[triton.Config({"BLOCK_H": 16}, num_warps=2),
                          triton.Config({"BLOCK_H": 16}, num_warps=4),
                          triton.Config({"BLOCK_H": 32}, num_warps=2),
                          triton.Config({"BLOCK_H": 32}, num_warps=4)],
                 key=["Hq", "Hk", "D"])
@triton.jit
def rope(q, k, positions, cos_table, sin_table, q_out, k_out, Hq, Hk, D, half,
         BLOCK_H: tl.constexpr, HALF: tl.constexpr):
    tiles = tl.cdiv(Hq + Hk, BLOCK_H)
    pid = tl.program_id(0)
    t = (pid // tiles).to(tl.int64)  # int64: T*H*D can pass 2^31
    h = (pid % tiles) * BLOCK_H + tl.arange(0, BLOCK_H)
    is_q = h < Hq  # q's head h, else k's head h - Hq
    first_q = (t * Hq + h) * D
    first_k = (t * Hk + (h - Hq)) * D
    src = tl.where(is_q, q + first_q, k + first_k)
    dst = tl.where(is_q, q_out + first_q, k_out + first_k)

    i = tl.arange(0, HALF)
    mask = (h[:, None] < Hq + Hk) & (i[None, :] < half)
    lo = src[:, None] + i[None, :]
    x1 = tl.load(lo, mask=mask, other=0.0).to(tl.float32)
    x2 = tl.load(lo + half, mask=mask, other=0.0).to(tl.float32)

    p = tl.load(positions + t).to(tl.int64)
    c = tl.load(cos_table + p * half + i, mask=i < half, other=0.0)
    s = tl.load(sin_table + p * half + i, mask=i < half, other=0.0)

    o1 = x1 * c[None, :] - x2 * s[None, :]
    o2 = x2 * c[None, :] + x1 * s[None, :]
    out = dst[:, None] + i[None, :]
    tl.store(out, o1.to(tl.bfloat16), mask=mask)
    tl.store(out + half, o2.to(tl.bfloat16), mask=mask)


def solve(q, k, positions, cos_table, sin_table, q_out, k_out, T, Hq, Hk, D, P):
    half = D // 2
    HALF = max(16, triton.next_power_of_2(half))  # lanes of a head's half (a power of two)
    # one program per (token, tile of BLOCK_H of its Hq + Hk heads), a token's tiles adjacent
    grid = lambda meta: (T * triton.cdiv(Hq + Hk, meta["BLOCK_H"]),)
    rope[grid](q, k, positions, cos_table, sin_table, q_out, k_out, Hq, Hk, D, half, HALF=HALF)
