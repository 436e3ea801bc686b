// Simple and correct: one warp per row. Lanes take k = lane, lane + 32, ...
// (coalesced), then a warp-shuffle tree adds the 32 partial sums. Good for
// square matrices; with 4 M rows of 64 it leaves half of every warp idle and
// spends more time reducing than loading, and 256 long rows keep only 256
// warps busy. Control: must be Accepted.
//
// @const WARPS=8
// @launch gemv grid=(cdiv(M, WARPS)) block=(32, WARPS) args=(A, x, y, M, K)

extern "C" __global__ void gemv(const float* a, const float* x, float* y, long long M, long long K)
{
    const long long i = (long long)blockIdx.x * WARPS + threadIdx.y;
    if (i >= M)
        return;
    const float* row = a + i * K;
    float acc = 0.0f;
    for (long long k = threadIdx.x; k < K; k += 32)
        acc = fmaf(row[k], x[k], acc);
    for (int o = 16; o > 0; o >>= 1)
        acc += __shfl_xor_sync(0xffffffffu, acc, o);
    if (threadIdx.x == 0)
        y[i] = acc;
}
