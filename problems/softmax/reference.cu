// Reference for row-wise softmax: one block of 256 threads per row, fp64.
// Three passes over the row: the maximum, the sum of exp(x - max), and the
// output exp(x - max) / sum, all in double. Reductions are a plain
// shared-memory tree. Any M, N >= 1; 64-bit indices.
//
// @launch softmax_ref grid=(M) block=(256) args=(X, Y, M, N)

#define THREADS 256

extern "C" __global__ void softmax_ref(const float* x, double* y, long long m, long long n)
{
    __shared__ double red[THREADS];
    const long long row = blockIdx.x;
    const float* xr = x + row * n;
    double* yr = y + row * n;
    const int t = threadIdx.x;

    double mx = -__longlong_as_double(0x7ff0000000000000ll); /* -inf */
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
    sum = red[0];

    for (long long j = t; j < n; j += THREADS)
        yr[j] = exp((double)xr[j] - mx) / sum;
}
