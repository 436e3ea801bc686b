# Triton directives with @let, a tuple @tune and continuation lines.
# @tune (BM, BN, W)=((64, 128, 4), (128, 128, 8))
# @let KP = cdiv(K, 32) * 32
# @let PACK = N % 16 != 0 || K % 16 != 0
# @launch matmul grid=(cdiv(M, BM) * cdiv(N, BN)) \
#     num_warps=W num_stages=(W / 2 + 1) \
#     args=(A, B, C, M, N, K, KP, \
#           BM=BM, BN=BN, PACK=PACK)
import triton
import triton.language as tl


@triton.jit
def matmul(a, b, c, M, N, K, KP, BM: tl.constexpr, BN: tl.constexpr, PACK: tl.constexpr,
           W: tl.constexpr, KP2: tl.constexpr = 0):
    pass
