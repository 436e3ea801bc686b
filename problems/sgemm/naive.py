# Naive but correct: no tl.dot and no tiles in shared memory. Each program owns
# a 32 x 32 block of C and, for every k, loads a column of A and a row of B
# straight from global memory and adds their outer product: each loaded value
# feeds only a few multiply-adds (the Triton twin of naive.cu, one thread per
# output). Control: must be Accepted; it is the baseline that tiling beats by a
# large factor, far below the "tiled" goal.
import triton
import triton.language as tl

BM, BN = 32, 32


@triton.jit
def sgemm(A, B, C, M, N, K, BM: tl.constexpr, BN: tl.constexpr):
    rm = tl.program_id(0) * BM + tl.arange(0, BM)
    rn = tl.program_id(1) * BN + tl.arange(0, BN)
    m_ok = rm < M
    n_ok = rn < N
    a_col = A + rm.to(tl.int64) * K
    acc = tl.zeros((BM, BN), dtype=tl.float32)
    for k in range(0, K):
        a = tl.load(a_col + k, mask=m_ok, other=0.0)
        b = tl.load(B + k.to(tl.int64) * N + rn, mask=n_ok, other=0.0)
        acc += a[:, None] * b[None, :]
    tl.store(C + rm.to(tl.int64)[:, None] * N + rn[None, :], acc, mask=m_ok[:, None] & n_ok[None, :])


def solve(A, B, C, M, N, K):
    grid = (triton.cdiv(M, BM), triton.cdiv(N, BN))
    sgemm[grid](A, B, C, M, N, K, BM=BM, BN=BN, num_warps=4)
