// Reference for KV cache append: one thread per element of k_new / v_new.
// The caches are inout tensors: the judge fills the reference's fp64 copies
// with the same initial values as the submission's, so the reference only
// writes the appended slots, exactly as the submission must, and every other
// element keeps its initial value:
//   k_cache[b][h][L_b + t][d] = k_new[b][h][t][d], L_b = cache_seqlens[b]
// (likewise v). A bf16 value is exact in fp64. Preconditions (guaranteed by
// the inputs): 0 <= L_b and L_b + T <= S. 64-bit indices.
//
// @launch kv_append_ref grid=(cdiv(B*H*T*D, 256)) block=(256) args=(k_cache, v_cache, k_new, v_new, cache_seqlens, B, H, S, T, D)

#include <cuda_bf16.h>

extern "C" __global__ void kv_append_ref(double* k_cache, double* v_cache,
                                         const __nv_bfloat16* k_new, const __nv_bfloat16* v_new,
                                         const int* cache_seqlens, long long B, long long H,
                                         long long S, long long T, long long D)
{
    const long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= B * H * T * D)
        return;
    const long long d = i % D;
    const long long t = (i / D) % T;
    const long long h = (i / (D * T)) % H;
    const long long b = i / (D * T * H);
    const long long slot = (long long)cache_seqlens[b] + t;
    const long long dst = ((b * H + h) * S + slot) * D + d;
    k_cache[dst] = (double)__bfloat162float(k_new[i]);
    v_cache[dst] = (double)__bfloat162float(v_new[i]);
}
