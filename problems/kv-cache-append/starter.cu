// KV cache append: copy this step's keys and values into the caches, after
// the tokens each sequence already has.
//
//   k_cache[b][h][L + t][d] = k_new[b][h][t][d]   with L = cache_seqlens[b]
//   v_cache[b][h][L + t][d] = v_new[b][h][t][d]
//
// for every b < B, h < H, t < T, d < D. The caches are [B][H][S][D] and the
// new tokens [B][H][T][D], all bf16 and row-major; every other element of the
// caches must stay exactly as it is. The launch below runs one thread per
// element of k_new.
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

    // TODO: if i is an element of k_new, find its (b, h, t, d), read
    // L = cache_seqlens[b], and copy k_new[i] and v_new[i] to slot L + t of
    // head h of sequence b in k_cache and v_cache.
}
