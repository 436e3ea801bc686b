// Negative control: one warp per row whose sum of squares only takes whole
// chunks of 32 elements, so the last N % 32 squares are missing (for N < 32
// the sum is 0 and rstd is 1/sqrt(eps)). The output loop is correct.
// Expected verdict: Wrong Answer.
//
// @launch rmsnorm_fwd grid=(M) block=(32) args=(X, w, Y, rstd, eps, M, N)

#include <cuda_bf16.h>

extern "C" __global__ void rmsnorm_fwd(const __nv_bfloat16* X, const __nv_bfloat16* w, __nv_bfloat16* Y,
                                       float* rstd, float eps, long long M, long long N)
{
    const long long row = blockIdx.x;
    const __nv_bfloat16* x = X + row * N;
    const int lane = threadIdx.x;
    float q = 0.0f;
    for (long long base = 0; base + 32 <= N; base += 32) { /* BUG: drops the last N % 32 */
        const float v = __bfloat162float(x[base + lane]);
        q += v * v;
    }
    for (int o = 16; o > 0; o >>= 1)
        q += __shfl_xor_sync(0xffffffffu, q, o);
    const float rs = rsqrtf(q / (float)N + eps);
    for (long long j = lane; j < N; j += 32)
        Y[row * N + j] = __float2bfloat16(__bfloat162float(x[j]) * rs * __bfloat162float(w[j]));
    if (lane == 0)
        rstd[row] = rs;
}
