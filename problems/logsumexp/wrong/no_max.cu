// Negative control: the textbook formula log(sum exp(x)) without
// subtracting the row maximum. Mathematically equal, but expf overflows fp32
// for x > 88.7: rows shifted by +1000 (or +1e4, or U(-100, 100)) give
// log(inf) = inf. Expected verdict: Wrong Answer.
//
// @const BLOCK=256
// @launch logsumexp grid=(M) block=(BLOCK) args=(X, lse, M, N)

extern "C" __global__ void logsumexp(const float* x, float* lse, long long m, long long n)
{
    __shared__ float red[BLOCK];
    const long long row = blockIdx.x;
    const float* xr = x + row * n;
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
    if (t == 0)
        lse[row] = logf(red[0]);
}
