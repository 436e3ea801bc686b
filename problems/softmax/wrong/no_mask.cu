// Negative control: one warp per row that walks the row in chunks of 32
// without masking the last chunk. Lanes past the end read the next row (or
// the guard band after X) and write past the end of their row; on the last
// row that is up to 31 floats past the end of Y, inside the judge's guard
// band, whenever N is not a multiple of 32.
// Expected verdict: Memory Violation.
//
// @launch softmax_rows grid=(M) block=(32) args=(X, Y, M, N)

extern "C" __global__ void softmax_rows(const float* x, float* y, long long m, long long n)
{
    const long long row = blockIdx.x;
    const float* xr = x + row * n;
    float* yr = y + row * n;
    const int lane = threadIdx.x;

    float mx = __int_as_float(0xff800000); /* -inf */
    for (long long base = 0; base < n; base += 32)
        mx = fmaxf(mx, xr[base + lane]);
    for (int o = 16; o > 0; o >>= 1)
        mx = fmaxf(mx, __shfl_xor_sync(0xffffffffu, mx, o));

    float sum = 0.0f;
    for (long long base = 0; base < n; base += 32)
        sum += expf(xr[base + lane] - mx);
    for (int o = 16; o > 0; o >>= 1)
        sum += __shfl_xor_sync(0xffffffffu, sum, o);

    for (long long base = 0; base < n; base += 32)
        yr[base + lane] = expf(xr[base + lane] - mx) / sum;
}
