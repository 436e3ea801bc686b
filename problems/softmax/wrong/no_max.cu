// Negative control: the textbook formula exp(x) / sum exp(x) without
// subtracting the row maximum. Mathematically equal, but exp overflows fp32
// for x > 88.7: rows + 1000 (and U(-100, 100)) give inf / inf = NaN.
// Expected verdict: Wrong Answer.
//
// @const BLOCK=256
// @launch softmax_rows grid=(M) block=(BLOCK) args=(X, Y, M, N)

extern "C" __global__ void softmax_rows(const float* x, float* y, long long m, long long n)
{
    __shared__ float red[BLOCK];
    const long long row = blockIdx.x;
    const float* xr = x + row * n;
    float* yr = y + row * n;
    const int t = threadIdx.x;

    float sum = 0.0f;
    for (long long j = t; j < n; j += BLOCK)
        sum += expf(xr[j]);
    red[t] = sum;
    __syncthreads();
    for (int s = BLOCK / 2; s > 0; s >>= 1) {
        if (t < s)
            red[t] += red[t + s];
        __syncthreads();
    }
    sum = red[0];

    for (long long j = t; j < n; j += BLOCK)
        yr[j] = expf(xr[j]) / sum;
}
