// Reference for the L2 vector norm: out = sqrt(sum x_i^2) in fp64 (each
// square of an fp32 value is exact in fp64). Two launches: 1024 blocks of
// 256 threads each sum the squares of a grid-strided share of x and write one
// partial per block to scratch; one block adds the partials and takes the
// square root. 64-bit indices.
//
// @scratch part fp64[1024]
// @launch sumsq_partials grid=(1024) block=(256) args=(x, part, N)
// @launch norm_final grid=(1) block=(1024) args=(part, out)

extern "C" __global__ void sumsq_partials(const float* x, double* part, long long n)
{
    __shared__ double s[256];
    const int t = threadIdx.x;
    double sum = 0.0;
    for (long long i = (long long)blockIdx.x * 256 + t; i < n; i += 1024 * 256) {
        const double v = (double)x[i];
        sum += v * v;
    }
    s[t] = sum;
    __syncthreads();
    for (int k = 128; k > 0; k >>= 1) {
        if (t < k)
            s[t] += s[t + k];
        __syncthreads();
    }
    if (t == 0)
        part[blockIdx.x] = s[0];
}

extern "C" __global__ void norm_final(const double* part, double* out)
{
    __shared__ double s[1024];
    const int t = threadIdx.x;
    s[t] = part[t];
    __syncthreads();
    for (int k = 512; k > 0; k >>= 1) {
        if (t < k)
            s[t] += s[t + k];
        __syncthreads();
    }
    if (t == 0)
        out[0] = sqrt(s[0]);
}
