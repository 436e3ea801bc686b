// Reference for RMSNorm forward: one block of 256 threads per row, fp64.
// rstd = 1 / sqrt(sum(x^2) / N + eps) with eps as given (fp32, widened
// exactly), Y = x * rstd * w, in double from the exact bf16 inputs. The sum is
// a plain shared-memory tree. Any M, N >= 1; 64-bit indices.
//
// @launch rmsnorm_ref grid=(M) block=(256) args=(X, w, Y, rstd, eps, M, N)

#include <cuda_bf16.h>

#define THREADS 256

extern "C" __global__ void rmsnorm_ref(const __nv_bfloat16* X, const __nv_bfloat16* w, double* Y, double* rstd,
                                       float eps, long long M, long long N)
{
    __shared__ double red[THREADS];
    const long long row = blockIdx.x;
    const __nv_bfloat16* x = X + row * N;
    const int t = threadIdx.x;

    double q = 0.0;
    for (long long j = t; j < N; j += THREADS) {
        const double v = (double)__bfloat162float(x[j]);
        q += v * v;
    }
    red[t] = q;
    __syncthreads();
    for (int s = THREADS / 2; s > 0; s >>= 1) {
        if (t < s)
            red[t] += red[t + s];
        __syncthreads();
    }
    const double rs = 1.0 / sqrt(red[0] / (double)N + (double)eps);

    for (long long j = t; j < N; j += THREADS)
        Y[row * N + j] = (double)__bfloat162float(x[j]) * rs * (double)__bfloat162float(w[j]);
    if (t == 0)
        rstd[row] = rs;
}
