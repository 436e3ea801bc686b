// Negative control: the wrong neutral value for the maximum. naive.cu, but
// the row maximum starts at 0 instead of -inf. Softmax does not depend on the
// shift, so this is right for every row whose maximum is above about -87:
// exp(x - 0) stays a normal float. A row lying entirely below -104 has
// exp(x - 0) = 0 for every element in fp32, the sum is 0, and the result is
// 0 / 0 = NaN. Only the "below" tests (rows offset into [-1000, -200]) have
// such rows; every other test accepts this kernel.
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
    sum = red[0];

    for (long long j = t; j < n; j += BLOCK)
        yr[j] = expf(xr[j] - mx) / sum;
}
