# WRONG (Wrong Answer): solution.py assuming contiguous row-major matrices
# (strides (K, 1), (N, 1), (N, 1), no offsets) instead of the views it is
# given: it passes the three "dense" tests and fails the first padded one.
import triton
import triton.language as tl

BK = 64
GROUP_M = 8


@triton.autotune(configs=[triton.Config({"BM": bm, "BN": bn}, num_warps=max(4, bm * bn // 4096),
                                        num_stages=3)
                          for bm in (64, 128) for bn in (128, 256)],
                 key=["M", "N", "K"])
@triton.jit
def matmul(A, B, C, M, N, K, offA, sAm, sAk, offB, sBk, sBn, offC, sCm, sCn,
           BM: tl.constexpr, BN: tl.constexpr, BK: tl.constexpr, GROUP_M: tl.constexpr):
    pid = tl.program_id(0)
    num_m = tl.cdiv(M, BM)
    num_n = tl.cdiv(N, BN)
    in_group = pid % (GROUP_M * num_n)
    first_m = (pid // (GROUP_M * num_n)) * GROUP_M
    rows = tl.minimum(num_m - first_m, GROUP_M)
    pid_m = first_m + in_group % rows
    pid_n = in_group // rows

    a_blk = tl.make_block_ptr(A, shape=(M, K), strides=(K, 1),
                              offsets=(pid_m * BM, 0), block_shape=(BM, BK), order=(1, 0))
    b_blk = tl.make_block_ptr(B, shape=(K, N), strides=(N, 1),
                              offsets=(0, pid_n * BN), block_shape=(BK, BN), order=(1, 0))
    acc = tl.zeros((BM, BN), dtype=tl.float32)
    for _ in range(0, tl.cdiv(K, BK)):
        a = tl.load(a_blk, boundary_check=(0, 1), padding_option="zero")
        b = tl.load(b_blk, boundary_check=(0, 1), padding_option="zero")
        acc = tl.dot(a, b, acc)
        a_blk = tl.advance(a_blk, (0, BK))
        b_blk = tl.advance(b_blk, (BK, 0))
    c_blk = tl.make_block_ptr(C, shape=(M, N), strides=(N, 1),
                              offsets=(pid_m * BM, pid_n * BN), block_shape=(BM, BN), order=(1, 0))
    tl.store(c_blk, acc.to(tl.float16), boundary_check=(0, 1))


def solve(A, B, C, offA, sAm, sAk, offB, sBk, sBn, offC, sCm, sCn, M, N, K, LA, LB, LC):
    grid = lambda meta: (triton.cdiv(M, meta["BM"]) * triton.cdiv(N, meta["BN"]),)
    matmul[grid](A, B, C, M, N, K, offA, sAm, sAk, offB, sBk, sBn, offC, sCm, sCn,
                 BK=BK, GROUP_M=GROUP_M)
