// Naive but correct: one thread per row, three sequential passes over the row.
// Slow (few threads, uncoalesced loads) but numerically fine: the fp32 sum of
// N <= 16384 positive terms run in order stays within the tolerance (see
// problems/NOTES.md). Control: must be Accepted.
//
// @launch softmax_rows grid=(cdiv(M, 128)) block=(128) args=(X, Y, M, N)

extern "C" __global__ void softmax_rows(const float* x, float* y, long long m, long long n)
{
    const long long row = (long long)blockIdx.x * blockDim.x + threadIdx.x;
    if (row >= m)
        return;
    const float* xr = x + row * n;
    float* yr = y + row * n;

    float mx = xr[0];
    for (long long j = 1; j < n; j++)
        mx = fmaxf(mx, xr[j]);
    float sum = 0.0f;
    for (long long j = 0; j < n; j++)
        sum += expf(xr[j] - mx);
    for (long long j = 0; j < n; j++)
        yr[j] = expf(xr[j] - mx) / sum;
}
