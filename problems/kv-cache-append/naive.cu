// Naive but correct: one thread per element, 2-byte copies. Each thread
// recomputes (b, h, t, d) with 64-bit divisions and reads cache_seqlens[b].
// Control: must be Accepted.
//
// @const BLOCK=256
// @launch kv_append grid=(cdiv(B*H*T*D, BLOCK)) block=(BLOCK) args=(k_cache, v_cache, k_new, v_new, cache_seqlens, B, H, S, T, D)

#include <cuda_bf16.h>

extern "C" __global__ void kv_append(__nv_bfloat16* k_cache, __nv_bfloat16* v_cache,
                                     const __nv_bfloat16* k_new, const __nv_bfloat16* v_new,
                                     const int* cache_seqlens, long long B, long long H,
                                     long long S, long long T, long long D)
{
    const long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= B * H * T * D)
        return;
    const long long d = i % D;
    const long long t = (i / D) % T;
    const long long bh = i / (D * T); /* b * H + h */
    const long long b = bh / H;
    const long long dst = (bh * S + cache_seqlens[b] + t) * D + d;
    k_cache[dst] = k_new[i];
    v_cache[dst] = v_new[i];
}
