// Naive but correct: one block of 256 threads per row, three passes over X in
// global memory (max, sum, write) with shared-memory tree reductions. Reads
// X three times, so it moves about 16MN bytes instead of 8MN.
// Control: must be Accepted.
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

    float mx = __int_as_float(0xff800000); /* -inf */
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
