// Naive but correct: one block of 256 threads per row, two passes over the
// row in global memory (maximum, then sum of exp(x - max)) with shared-memory
// trees. An all -inf row has maximum -inf: it is shifted by 0 instead, so the
// sum is 0 and log(0) = -inf, the right answer, with no -inf - (-inf) = NaN.
// Control: must be Accepted.
//
// @const BLOCK=256
// @launch logsumexp grid=(M) block=(BLOCK) args=(X, lse, M, N)

extern "C" __global__ void logsumexp(const float* x, float* lse, long long m, long long n)
{
    __shared__ float red[BLOCK];
    const long long row = blockIdx.x;
    const float* xr = x + row * n;
    const int t = threadIdx.x;
    const float neg_inf = __int_as_float(0xff800000);

    float mx = neg_inf;
    for (long long j = t; j < n; j += BLOCK)
        mx = fmaxf(mx, xr[j]);
    red[t] = mx;
    __syncthreads();
    for (int s = BLOCK / 2; s > 0; s >>= 1) {
        if (t < s)
            red[t] = fmaxf(red[t], red[t + s]);
        __syncthreads();
    }
    mx = red[0] == neg_inf ? 0.0f : red[0];
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
