// Autotuning: 3 x 2 = 6 combinations, each compiled with -DBLOCK_M=.. -DBLOCK_N=..
// @tune BLOCK_M=(64, 128, 256)
// @tune BLOCK_N=(64, 128)
// @const WARPS=4
// @launch matmul grid=(cdiv(N, BLOCK_N), cdiv(M, BLOCK_M)) block=(32 * WARPS) smem=((BLOCK_M + BLOCK_N) * 64 * 2) args=(A, B, C, M, N, K)
