// Negative control: writes token t at slot L + t + 1, as if cache_seqlens
// held the index of the last cached token rather than the number of cached
// tokens. Every appended row lands one slot late, and when the cache is full
// (L + T = S) the last one lands in the next head, or past the end of the
// last head's cache into the judge's guard band. Expected verdict: Memory
// Violation (the first test has S = T = 1).
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
    const long long bh = i / (D * T);
    const long long dst = (bh * S + cache_seqlens[bh / H] + t + 1) * D + d;
    k_cache[dst] = k_new[i];
    v_cache[dst] = v_new[i];
}
