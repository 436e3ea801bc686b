// Negative control: copies nothing, so the appended slots keep their old
// values. Expected verdict: Wrong Answer.
//
// @launch kv_append grid=(1) block=(32) args=(k_cache, v_cache, k_new, v_new, cache_seqlens, B, H, S, T, D)

#include <cuda_bf16.h>

extern "C" __global__ void kv_append(__nv_bfloat16* k_cache, __nv_bfloat16* v_cache,
                                     const __nv_bfloat16* k_new, const __nv_bfloat16* v_new,
                                     const int* cache_seqlens, long long B, long long H,
                                     long long S, long long T, long long D)
{
}
