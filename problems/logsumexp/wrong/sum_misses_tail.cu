// Negative control: one warp per row whose sum loop only takes whole chunks
// of 32 elements, so the last N % 32 terms are missing from the sum (N < 32:
// the sum is 0 and lse = -inf). The maximum is right.
// Expected verdict: Wrong Answer.
//
// @launch logsumexp grid=(M) block=(32) args=(X, lse, M, N)

extern "C" __global__ void logsumexp(const float* x, float* lse, long long m, long long n)
{
    const long long row = blockIdx.x;
    const float* xr = x + row * n;
    const int lane = threadIdx.x;
    const float neg_inf = __int_as_float(0xff800000);

    float mx = neg_inf;
    for (long long j = lane; j < n; j += 32)
        mx = fmaxf(mx, xr[j]);
    for (int o = 16; o > 0; o >>= 1)
        mx = fmaxf(mx, __shfl_xor_sync(0xffffffffu, mx, o));
    const float shift = mx == neg_inf ? 0.0f : mx;

    float sum = 0.0f;
    for (long long base = 0; base + 32 <= n; base += 32)
        sum += expf(xr[base + lane] - shift);
    for (int o = 16; o > 0; o >>= 1)
        sum += __shfl_xor_sync(0xffffffffu, sum, o);

    if (lane == 0)
        lse[row] = shift + logf(sum);
}
