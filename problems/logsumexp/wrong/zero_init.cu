// Negative control: the wrong neutral value for the maximum. naive.cu, but
// the row maximum starts at 0 instead of -inf (which also makes the -inf
// guard unnecessary: an all -inf row has m = 0, sum 0 and lse = -inf, right).
// lse = m + log(sum exp(x - m)) holds for any shift m, so this is right for
// every row whose maximum is above about -87. A row lying entirely below
// -104 has exp(x - 0) = 0 for every element in fp32, and lse = log(0) = -inf
// instead of about max(x). The "offset1e4" tests (rows offset by U(-1e4,
// 1e4), about half of them far below zero) already reject it, and the
// "below" tests (every row offset into [-1000, -200]) on every row.
// Expected verdict: Wrong Answer.
//
// @const BLOCK=256
// @launch logsumexp grid=(M) block=(BLOCK) args=(X, lse, M, N)

extern "C" __global__ void logsumexp(const float* x, float* lse, long long m, long long n)
{
    __shared__ float red[BLOCK];
    const long long row = blockIdx.x;
    const float* xr = x + row * n;
    const int t = threadIdx.x;

    float mx = 0.0f; /* should be -inf */
    for (long long j = t; j < n; j += BLOCK)
        mx = fmaxf(mx, xr[j]);
    red[t] = mx;
    __syncthreads();
    for (int s = BLOCK / 2; s > 0; s >>= 1) {
        if (t < s)
            red[t] = fmaxf(red[t], red[t + s]);
        __syncthreads();
    }
    mx = red[0];
    __syncthreads();

    float sum = 0.0f;
    for (long long j = t; j < n; j += BLOCK)
        sum += expf(xr[j] - mx);
    red[t] = sum;
    __syncthreads();
    for (int s = BLOCK / 2; s > 0; s >>= 1) {
        if (t < s)
            red[t] += red[t + s];
        __syncthreads();
    }
    if (t == 0)
        lse[row] = mx + logf(red[0]);
}
