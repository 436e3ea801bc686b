// Negative control: a correct, stable logsumexp (one warp per row, maximum
// subtracted) that forgets the all -inf row: there m = -inf and
// x - m = -inf - (-inf) = NaN, so lse = NaN where torch.logsumexp gives
// -inf. Every other test passes; only the "-inf rows" edge tests catch it.
// Expected verdict: Wrong Answer.
//
// @launch logsumexp grid=(M) block=(32) args=(X, lse, M, N)

extern "C" __global__ void logsumexp(const float* x, float* lse, long long m, long long n)
{
    const long long row = blockIdx.x;
    const float* xr = x + row * n;
    const int lane = threadIdx.x;

    float mx = __int_as_float(0xff800000);
    for (long long j = lane; j < n; j += 32)
        mx = fmaxf(mx, xr[j]);
    for (int o = 16; o > 0; o >>= 1)
        mx = fmaxf(mx, __shfl_xor_sync(0xffffffffu, mx, o));

    float sum = 0.0f;
    for (long long j = lane; j < n; j += 32)
        sum += expf(xr[j] - mx);
    for (int o = 16; o > 0; o >>= 1)
        sum += __shfl_xor_sync(0xffffffffu, sum, o);

    if (lane == 0)
        lse[row] = mx + logf(sum);
}
