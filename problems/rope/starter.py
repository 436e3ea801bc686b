# Rotary position embedding (rotate-half convention) of q and k.
#
# q is [T][Hq][D], k is [T][Hk][D] (bf16, row-major); token t sits at position
# p = positions[t]; cos_table and sin_table are [P][D/2] (fp32). For every
# head of q and of k, and every channel pair i < D/2:
#
#   c = cos_table[p][i], s = sin_table[p][i]
#   out[i]       = x[i] * c - x[i + D/2] * s
#   out[i + D/2] = x[i + D/2] * c + x[i] * s
#
# computed in fp32 and rounded once to bf16, into q_out and k_out. The judge
# calls solve(...) below for every test and benchmark shape, with the
# problem's tensors, and runs what it launches: one program per (token,
# head), the Hq heads of q first, then the Hk heads of k, each with
# HALF >= D/2 lanes (tl.arange needs a power of two).
import triton
import triton.language as tl


@triton.jit
def rope(q, k, positions, cos_table, sin_table, q_out, k_out, Hq, Hk, D, HALF: tl.constexpr):
    t = tl.program_id(0).to(tl.int64)
    h = tl.program_id(1)  # a head of q when h < Hq, else head h - Hq of k
    i = tl.arange(0, HALF)
    mask = i < D // 2
    # TODO: p = positions[t]; c and s = the D/2 entries of row p of the
    # tables; x1 = x[i], x2 = x[i + D/2] of this head (row (t*Hq + h)*D of q,
    # or (t*Hk + h - Hq)*D of k), converted .to(tl.float32); store both
    # rotated halves .to(tl.bfloat16) into q_out or k_out.


def solve(q, k, positions, cos_table, sin_table, q_out, k_out, T, Hq, Hk, D, P):
    HALF = triton.next_power_of_2(D // 2)
    rope[(T, Hq + Hk)](q, k, positions, cos_table, sin_table, q_out, k_out, Hq, Hk, D,
                       HALF=HALF, num_warps=1)
