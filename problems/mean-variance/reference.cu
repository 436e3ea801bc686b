// Reference for Single-Pass Mean and Variance, in fp64, two passes (the
// reference may read x twice; submissions should not):
//   out[0] = mu = (1/N) sum x_i,  out[1] = var = (1/N) sum (x_i - mu)^2.
// The tolerance is acc * out_scale with acc = 1e-5 (atol = rtol = 0):
//   out_scale[0] = sqrt(mean(x^2))             -> |mu error|  <= 1e-5 rms(x)
//   out_scale[1] = 10 var + 1e-5 mean(x^2)     -> |var error| <= 1e-4 var + 1e-10 mean(x^2)
// Launches: per-block fp64 partials of sum x and sum x^2 (1024 blocks of 256
// threads, grid-strided), then one block for mu and mean(x^2), then
// per-block partials of sum (x - mu)^2, then one block for var and the
// outputs. 64-bit indices.
//
// @scratch part_s fp64[1024]
// @scratch part_q fp64[1024]
// @scratch part_v fp64[1024]
// @scratch moments fp64[2]
// @launch moment_partials grid=(1024) block=(256) args=(x, part_s, part_q, N)
// @launch moment_final grid=(1) block=(1024) args=(part_s, part_q, moments, N)
// @launch var_partials grid=(1024) block=(256) args=(x, moments, part_v, N)
// @launch var_final grid=(1) block=(1024) args=(part_v, moments, out, out_scale, N)

extern "C" __global__ void moment_partials(const float* x, double* part_s, double* part_q,
                                           long long n)
{
    __shared__ double s[256], q[256];
    const int t = threadIdx.x;
    double a = 0.0, b = 0.0;
    for (long long i = (long long)blockIdx.x * 256 + t; i < n; i += 1024 * 256) {
        const double v = (double)x[i];
        a += v;
        b += v * v;
    }
    s[t] = a;
    q[t] = b;
    __syncthreads();
    for (int k = 128; k > 0; k >>= 1) {
        if (t < k) {
            s[t] += s[t + k];
            q[t] += q[t + k];
        }
        __syncthreads();
    }
    if (t == 0) {
        part_s[blockIdx.x] = s[0];
        part_q[blockIdx.x] = q[0];
    }
}

extern "C" __global__ void moment_final(const double* part_s, const double* part_q,
                                        double* moments, long long n)
{
    __shared__ double s[1024], q[1024];
    const int t = threadIdx.x;
    s[t] = part_s[t];
    q[t] = part_q[t];
    __syncthreads();
    for (int k = 512; k > 0; k >>= 1) {
        if (t < k) {
            s[t] += s[t + k];
            q[t] += q[t + k];
        }
        __syncthreads();
    }
    if (t == 0) {
        moments[0] = s[0] / (double)n; /* mu */
        moments[1] = q[0] / (double)n; /* mean(x^2) */
    }
}

extern "C" __global__ void var_partials(const float* x, const double* moments, double* part_v,
                                        long long n)
{
    __shared__ double s[256];
    const int t = threadIdx.x;
    const double mu = moments[0];
    double a = 0.0;
    for (long long i = (long long)blockIdx.x * 256 + t; i < n; i += 1024 * 256) {
        const double d = (double)x[i] - mu;
        a += d * d;
    }
    s[t] = a;
    __syncthreads();
    for (int k = 128; k > 0; k >>= 1) {
        if (t < k)
            s[t] += s[t + k];
        __syncthreads();
    }
    if (t == 0)
        part_v[blockIdx.x] = s[0];
}

extern "C" __global__ void var_final(const double* part_v, const double* moments, double* out,
                                     double* out_scale, long long n)
{
    __shared__ double s[1024];
    const int t = threadIdx.x;
    s[t] = part_v[t];
    __syncthreads();
    for (int k = 512; k > 0; k >>= 1) {
        if (t < k)
            s[t] += s[t + k];
        __syncthreads();
    }
    if (t == 0) {
        const double var = s[0] / (double)n;
        out[0] = moments[0];
        out[1] = var;
        out_scale[0] = sqrt(moments[1]);
        out_scale[1] = 10.0 * var + 1e-5 * moments[1];
    }
}
