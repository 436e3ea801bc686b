// Reference for row-wise LogSumExp: one block of 256 threads per row, fp64.
// lse = m + log(sum_j exp(x_j - m)) with m the row maximum; a row whose
// entries are all -inf gives -inf (torch.logsumexp's value), without forming
// -inf - (-inf). Reductions are a plain shared-memory tree. Any M, N >= 1;
// 64-bit indices.
//
// @launch lse_ref grid=(M) block=(256) args=(X, lse, M, N)

#define THREADS 256

extern "C" __global__ void lse_ref(const float* x, double* lse, long long m, long long n)
{
    __shared__ double red[THREADS];
    const long long row = blockIdx.x;
    const float* xr = x + row * n;
    const int t = threadIdx.x;
    const double neg_inf = -__longlong_as_double(0x7ff0000000000000ll);

    double mx = neg_inf;
    for (long long j = t; j < n; j += THREADS)
        mx = fmax(mx, (double)xr[j]);
    red[t] = mx;
    __syncthreads();
    for (int s = THREADS / 2; s > 0; s >>= 1) {
        if (t < s)
            red[t] = fmax(red[t], red[t + s]);
        __syncthreads();
    }
    mx = red[0];
    __syncthreads();
    if (mx == neg_inf) {
        if (t == 0)
            lse[row] = neg_inf;
        return;
    }

    double sum = 0.0;
    for (long long j = t; j < n; j += THREADS)
        sum += exp((double)xr[j] - mx);
    red[t] = sum;
    __syncthreads();
    for (int s = THREADS / 2; s > 0; s >>= 1) {
        if (t < s)
            red[t] += red[t + s];
        __syncthreads();
    }
    if (t == 0)
        lse[row] = mx + log(red[0]);
}
