// Reference for Vector Sum, in fp64: out = sum x_i and out_scale = sum |x_i|
// (the tolerance allows 1e-5 |out| + 1e-5 out_scale).
// Two launches: 1024 blocks of 256 threads each sum a grid-strided share of x
// (and of |x|) in double and write one partial per block to a scratch buffer;
// then one block adds the 1024 partials. Every addition is in fp64, so the
// reference's own error (~N * 2^-53 relative) is negligible. 64-bit indices.
//
// @scratch part fp64[1024]
// @scratch part_abs fp64[1024]
// @launch sum_partials grid=(1024) block=(256) args=(x, part, part_abs, N)
// @launch sum_final grid=(1) block=(1024) args=(part, part_abs, out, out_scale)

extern "C" __global__ void sum_partials(const float* x, double* part, double* part_abs, long long n)
{
    __shared__ double s[256], a[256];
    const int t = threadIdx.x;
    double sum = 0.0, abs_sum = 0.0;
    for (long long i = (long long)blockIdx.x * 256 + t; i < n; i += 1024 * 256) {
        sum += (double)x[i];
        abs_sum += fabs((double)x[i]);
    }
    s[t] = sum;
    a[t] = abs_sum;
    __syncthreads();
    for (int k = 128; k > 0; k >>= 1) {
        if (t < k) {
            s[t] += s[t + k];
            a[t] += a[t + k];
        }
        __syncthreads();
    }
    if (t == 0) {
        part[blockIdx.x] = s[0];
        part_abs[blockIdx.x] = a[0];
    }
}

extern "C" __global__ void sum_final(const double* part, const double* part_abs, double* out,
                                     double* out_scale)
{
    __shared__ double s[1024], a[1024];
    const int t = threadIdx.x;
    s[t] = part[t];
    a[t] = part_abs[t];
    __syncthreads();
    for (int k = 512; k > 0; k >>= 1) {
        if (t < k) {
            s[t] += s[t + k];
            a[t] += a[t + k];
        }
        __syncthreads();
    }
    if (t == 0) {
        out[0] = s[0];
        out_scale[0] = a[0];
    }
}
