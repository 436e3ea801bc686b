// Negative control: one warp per row, launched with cdiv(M, 8) blocks of 8
// warps but without the row check. The warps of the last block with
// i >= M read past the end of A (harmless here) and write y[i] past the end
// of y, into the judge's guard band, whenever M is not a multiple of 8.
// Expected verdict: Memory Violation.
//
// @const WARPS=8
// @launch gemv grid=(cdiv(M, WARPS)) block=(32, WARPS) args=(A, x, y, M, K)

extern "C" __global__ void gemv(const float* a, const float* x, float* y, long long M, long long K)
{
    const long long i = (long long)blockIdx.x * WARPS + threadIdx.y; /* BUG: no i < M check */
    const float* row = a + i * K;
    float acc = 0.0f;
    for (long long k = threadIdx.x; k < K; k += 32)
        acc = fmaf(row[k], x[k], acc);
    for (int o = 16; o > 0; o >>= 1)
        acc += __shfl_xor_sync(0xffffffffu, acc, o);
    if (threadIdx.x == 0)
        y[i] = acc;
}
