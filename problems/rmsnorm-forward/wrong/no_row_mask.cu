// Negative control: one warp per row, eight rows per block, launched with
// cdiv(M, 8) blocks but without the row check. The warps of the last block
// with row >= M read past the end of X (harmless here) and write Y and rstd
// past their ends, into the judge's guard bands, whenever M is not a
// multiple of 8. Expected verdict: Memory Violation.
//
// @launch rmsnorm_fwd grid=(cdiv(M, 8)) block=(32, 8) args=(X, w, Y, rstd, eps, M, N)

#include <cuda_bf16.h>

extern "C" __global__ void rmsnorm_fwd(const __nv_bfloat16* X, const __nv_bfloat16* w, __nv_bfloat16* Y,
                                       float* rstd, float eps, long long M, long long N)
{
    const long long row = (long long)blockIdx.x * 8 + threadIdx.y; /* BUG: no row < M check */
    const __nv_bfloat16* x = X + row * N;
    const int lane = threadIdx.x;
    float q = 0.0f;
    for (long long j = lane; j < N; j += 32) {
        const float v = __bfloat162float(x[j]);
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
