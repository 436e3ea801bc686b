// Negative control: appends correctly, then "tidies up" by zeroing the
// slots after the new tokens (L + T .. S-1). Those slots are not the kernel's
// to touch: an in-place update must leave every other element bit for bit
// as it was. Expected verdict: Wrong Answer.
//
// @const BLOCK=256
// @launch kv_append grid=(cdiv(B*H*S*D, BLOCK)) block=(BLOCK) args=(k_cache, v_cache, k_new, v_new, cache_seqlens, B, H, S, T, D)

#include <cuda_bf16.h>

extern "C" __global__ void kv_append(__nv_bfloat16* k_cache, __nv_bfloat16* v_cache,
                                     const __nv_bfloat16* k_new, const __nv_bfloat16* v_new,
                                     const int* cache_seqlens, long long B, long long H,
                                     long long S, long long T, long long D)
{
    const long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x; /* a cache element */
    if (i >= B * H * S * D)
        return;
    const long long d = i % D;
    const long long s = (i / D) % S;
    const long long bh = i / (D * S);
    const long long L = cache_seqlens[bh / H];
    if (s >= L && s < L + T) {
        k_cache[i] = k_new[(bh * T + s - L) * D + d];
        v_cache[i] = v_new[(bh * T + s - L) * D + d];
    } else if (s >= L + T) {
        k_cache[i] = __float2bfloat16(0.0f);
        v_cache[i] = __float2bfloat16(0.0f);
    }
}
