// Reference for Vector Max: out = max_i x_i, exact (the maximum of fp32
// values is one of them). Two launches: 1024 blocks of 256 threads each take
// the maximum of a grid-strided share of x, starting from -inf, and write one
// partial per block to scratch; one block takes the maximum of the partials.
// Computed in double (every fp32 value is exact in fp64). 64-bit indices.
//
// @scratch part fp64[1024]
// @launch max_partials grid=(1024) block=(256) args=(x, part, N)
// @launch max_final grid=(1) block=(1024) args=(part, out)

extern "C" __global__ void max_partials(const float* x, double* part, long long n)
{
    __shared__ double s[256];
    const int t = threadIdx.x;
    double m = -__longlong_as_double(0x7ff0000000000000ll); /* -inf */
    for (long long i = (long long)blockIdx.x * 256 + t; i < n; i += 1024 * 256)
        m = fmax(m, (double)x[i]);
    s[t] = m;
    __syncthreads();
    for (int k = 128; k > 0; k >>= 1) {
        if (t < k)
            s[t] = fmax(s[t], s[t + k]);
        __syncthreads();
    }
    if (t == 0)
        part[blockIdx.x] = s[0];
}

extern "C" __global__ void max_final(const double* part, double* out)
{
    __shared__ double s[1024];
    const int t = threadIdx.x;
    s[t] = part[t];
    __syncthreads();
    for (int k = 512; k > 0; k >>= 1) {
        if (t < k)
            s[t] = fmax(s[t], s[t + k]);
        __syncthreads();
    }
    if (t == 0)
        out[0] = s[0];
}
