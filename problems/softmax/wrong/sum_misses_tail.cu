// Negative control: one warp per row whose sum loop only takes whole chunks
// of 32 elements, so the last N % 32 terms are missing from the denominator
// (N = 1: the sum is 0 and y = inf). Max and stores are correct.
// Expected verdict: Wrong Answer.
//
// @launch softmax_rows grid=(M) block=(32) args=(X, Y, M, N)

extern "C" __global__ void softmax_rows(const float* x, float* y, long long m, long long n)
{
    const long long row = blockIdx.x;
    const float* xr = x + row * n;
    float* yr = y + row * n;
    const int lane = threadIdx.x;

    float mx = __int_as_float(0xff800000); /* -inf */
    for (long long j = lane; j < n; j += 32)
        mx = fmaxf(mx, xr[j]);
    for (int o = 16; o > 0; o >>= 1)
        mx = fmaxf(mx, __shfl_xor_sync(0xffffffffu, mx, o));

    float sum = 0.0f;
    for (long long base = 0; base + 32 <= n; base += 32)
        sum += expf(xr[base + lane] - mx);
    for (int o = 16; o > 0; o >>= 1)
        sum += __shfl_xor_sync(0xffffffffu, sum, o);

    for (long long j = lane; j < n; j += 32)
        yr[j] = expf(xr[j] - mx) / sum;
}
