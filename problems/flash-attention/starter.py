# Attention forward with the log-sum-exp of every row, without storing the
# score matrix (this problem allows no scratch memory):
#
#   s_ij = scale * sum_d Q[i][d] K[j][d]     (j > i is masked out when causal != 0)
#   O[i][d] = sum_j softmax_j(s_ij) V[j][d],   LSE[i] = log sum_j exp(s_ij)
#
# for every (b, h): Q and O are [B][H][Sq][D], K and V [B][H][Skv][D] (fp16,
# row-major), LSE is [B][H][Sq] (fp32). D is 64 or 128, passed as the
# constexpr HEAD_D. The judge calls solve(...) below for every test and
# benchmark shape, with the problem's tensors, and runs what it launches:
# every program gets BLOCK_M query rows of one (b, h), tl.program_id(1) =
# b * H + h. causal is an i32 (0 or 1).
import triton
import triton.language as tl

BLOCK_M = 64
BLOCK_N = 64


@triton.jit
def flash_attn(Q, K, V, O, LSE, scale, causal, Sq, Skv,
               HEAD_D: tl.constexpr, BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr):
    bh = tl.program_id(1).to(tl.int64)
    offs_m = tl.program_id(0) * BLOCK_M + tl.arange(0, BLOCK_M)  # this program's query rows
    offs_d = tl.arange(0, HEAD_D)
    # TODO: load the BLOCK_M x HEAD_D tile of Q (rows (bh * Sq + offs_m) of
    # HEAD_D halves, masked to offs_m < Sq). Walk the keys in tiles of BLOCK_N:
    # scores = tl.dot(q, tl.trans(k)) * scale in fp32 (-inf where a key is past
    # Skv, or after the row when causal), and keep per row a running maximum
    # m, a running sum l and an fp32 accumulator acc (online softmax: when m
    # grows, rescale l and acc by exp(m_old - m_new)). At the end store
    # (acc / l).to(tl.float16) into O and m + log(l) into LSE, masked to the
    # rows that exist.


def solve(Q, K, V, O, LSE, scale, causal, B, H, Sq, Skv, D):
    grid = (triton.cdiv(Sq, BLOCK_M), B * H)
    flash_attn[grid](Q, K, V, O, LSE, scale, causal, Sq, Skv,
                     HEAD_D=D, BLOCK_M=BLOCK_M, BLOCK_N=BLOCK_N, num_warps=4)
