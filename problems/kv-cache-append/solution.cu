// KV cache append as a set of contiguous copies.
//
// For one (b, h) the T new rows are contiguous in k_new ([B][H][T][D]: rows
// (b*H + h)*T .. +T-1) and land on contiguous rows of the cache ([B][H][S][D]:
// rows (b*H + h)*S + L_b .. +T-1), so the whole append is B*H copies of T*D
// elements each, with no per-element index arithmetic. Block (bh, y) copies
// rows y*ROWS .. y*ROWS + ROWS-1 of head bh for both K and V.
//
// With D a multiple of 8 (the statement promises it; head sizes are) every
// row is a whole number of 16-byte chunks and both ends are 16-byte aligned,
// so the copy moves uint4 chunks; each thread loads UNROLL chunks of K and of
// V before storing any, to keep enough bytes in flight. Any other D takes a
// scalar path. cache_seqlens[b] is read once per block; bf16 values are
// copied as bits.
//
// @const THREADS=256
// @const ROWS=64
// @const UNROLL=4
// @launch kv_append grid=(B*H, cdiv(T, ROWS)) block=(THREADS) args=(k_cache, v_cache, k_new, v_new, cache_seqlens, B, H, S, T, D)

#include <cuda_bf16.h>

extern "C" __global__ void __launch_bounds__(THREADS)
kv_append(__nv_bfloat16* __restrict__ k_cache, __nv_bfloat16* __restrict__ v_cache,
          const __nv_bfloat16* __restrict__ k_new, const __nv_bfloat16* __restrict__ v_new,
          const int* __restrict__ cache_seqlens, long long B, long long H, long long S,
          long long T, long long D)
{
    const long long bh = blockIdx.x; /* b * H + h */
    const long long t0 = (long long)blockIdx.y * ROWS;
    const long long rows = min((long long)ROWS, T - t0);
    const long long L = cache_seqlens[bh / H];
    const long long src = (bh * T + t0) * D;     /* first element read */
    const long long dst = (bh * S + L + t0) * D; /* first element written */
    const long long n = rows * D;                /* elements copied per tensor */

    if ((D & 7) == 0) {
        const uint4* ks = reinterpret_cast<const uint4*>(k_new + src);
        const uint4* vs = reinterpret_cast<const uint4*>(v_new + src);
        uint4* kd = reinterpret_cast<uint4*>(k_cache + dst);
        uint4* vd = reinterpret_cast<uint4*>(v_cache + dst);
        const int chunks = (int)(n >> 3);
        for (int j0 = 0; j0 < chunks; j0 += UNROLL * THREADS) {
            uint4 kv[UNROLL], vv[UNROLL];
#pragma unroll
            for (int u = 0; u < UNROLL; u++) {
                const int j = j0 + u * THREADS + (int)threadIdx.x;
                if (j < chunks) {
                    kv[u] = ks[j];
                    vv[u] = vs[j];
                }
            }
#pragma unroll
            for (int u = 0; u < UNROLL; u++) {
                const int j = j0 + u * THREADS + (int)threadIdx.x;
                if (j < chunks) {
                    kd[j] = kv[u];
                    vd[j] = vv[u];
                }
            }
        }
    } else {
        for (long long j = threadIdx.x; j < n; j += THREADS) {
            k_cache[dst + j] = k_new[src + j];
            v_cache[dst + j] = v_new[src + j];
        }
    }
}
