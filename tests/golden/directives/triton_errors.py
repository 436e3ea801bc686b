# @launch matmul grid=(1) block=(32) args=(A, B, C, M, N, K)
# @launch matmul grid=(1) \
// args=(A)
# @let W = W + 1
# @launch matmul grid=(1) num_warps=4 args=(A, B=1, C)
# @flags --use_fast_math
