// Correct in the Hugging Face Llama order: normalise in fp32, round x * rstd
// to bf16, then multiply by w in bf16 (a second rounding). It differs from the
// single-rounding reference by up to about 1.5 bf16 ulp, which the 2^-6
// relative tolerance accepts on purpose. Otherwise like naive.cu.
// Control: must be Accepted.
//
// @const BLOCK=256
// @launch rmsnorm_fwd grid=(M) block=(BLOCK) args=(X, w, Y, rstd, eps, M, N)

#include <cuda_bf16.h>

extern "C" __global__ void rmsnorm_fwd(const __nv_bfloat16* X, const __nv_bfloat16* w, __nv_bfloat16* Y,
                                       float* rstd, float eps, long long M, long long N)
{
    __shared__ float red[BLOCK];
    const long long row = blockIdx.x;
    const __nv_bfloat16* x = X + row * N;
    __nv_bfloat16* y = Y + row * N;
    const int t = threadIdx.x;

    float q = 0.0f;
    for (long long j = t; j < N; j += BLOCK) {
        const float v = __bfloat162float(x[j]);
        q += v * v;
    }
    red[t] = q;
    __syncthreads();
    for (int s = BLOCK / 2; s > 0; s >>= 1) {
        if (t < s)
            red[t] += red[t + s];
        __syncthreads();
    }
    const float rs = rsqrtf(red[0] / (float)N + eps);

    for (long long j = t; j < N; j += BLOCK)
        y[j] = __hmul(__float2bfloat16(__bfloat162float(x[j]) * rs), w[j]); /* two roundings */
    if (t == 0)
        rstd[row] = rs;
}
