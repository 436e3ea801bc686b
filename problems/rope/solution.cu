// RoPE (rotate-half) with one block per token and vector accesses.
//
// All Hq + Hk heads of a token use the same row of the cos/sin tables, so a
// token is one block: its THREADS threads walk the (head, chunk) work items,
// where a chunk is VEC adjacent channel pairs i .. i+VEC-1. A work item loads
// VEC bf16 values from each half of the head (x[i..], x[i + D/2 ..]) and VEC
// cos and sin values, rotates them in fp32 and stores VEC bf16 values to each
// half of the output: for D a multiple of 8, VEC = 4 (8-byte bf16 loads and
// stores, 16-byte float4 table loads); a multiple of 4, VEC = 2; else 1. The
// alignment follows from D: a head's row starts at a multiple of D elements,
// and D/2 and i are multiples of VEC. The table row (D/2 floats) stays in L1
// for the token's heads; q, k and the outputs are each touched once.
//
// @const THREADS=128
// @launch rope grid=(T) block=(THREADS) args=(q, k, positions, cos_table, sin_table, q_out, k_out, T, Hq, Hk, D, P)

#include <cuda_bf16.h>

template <int VEC>
__device__ __forceinline__ void load_bf16(const __nv_bfloat16* p, float (&v)[VEC])
{
    if constexpr (VEC == 4) {
        const uint2 u = *reinterpret_cast<const uint2*>(p);
        const __nv_bfloat162 a = *reinterpret_cast<const __nv_bfloat162*>(&u.x);
        const __nv_bfloat162 b = *reinterpret_cast<const __nv_bfloat162*>(&u.y);
        v[0] = __low2float(a);
        v[1] = __high2float(a);
        v[2] = __low2float(b);
        v[3] = __high2float(b);
    } else if constexpr (VEC == 2) {
        const __nv_bfloat162 a = *reinterpret_cast<const __nv_bfloat162*>(p);
        v[0] = __low2float(a);
        v[1] = __high2float(a);
    } else {
        v[0] = __bfloat162float(*p);
    }
}

template <int VEC>
__device__ __forceinline__ void load_f32(const float* p, float (&v)[VEC])
{
    if constexpr (VEC == 4) {
        const float4 f = *reinterpret_cast<const float4*>(p);
        v[0] = f.x;
        v[1] = f.y;
        v[2] = f.z;
        v[3] = f.w;
    } else if constexpr (VEC == 2) {
        const float2 f = *reinterpret_cast<const float2*>(p);
        v[0] = f.x;
        v[1] = f.y;
    } else {
        v[0] = *p;
    }
}

template <int VEC>
__device__ __forceinline__ void store_bf16(__nv_bfloat16* p, const float (&v)[VEC])
{
    if constexpr (VEC == 4) {
        __nv_bfloat162 h[2] = {__floats2bfloat162_rn(v[0], v[1]), __floats2bfloat162_rn(v[2], v[3])};
        *reinterpret_cast<uint2*>(p) = *reinterpret_cast<const uint2*>(h);
    } else if constexpr (VEC == 2) {
        *reinterpret_cast<__nv_bfloat162*>(p) = __floats2bfloat162_rn(v[0], v[1]);
    } else {
        *p = __float2bfloat16(v[0]);
    }
}

template <int VEC>
__device__ __forceinline__ void rope_token(const __nv_bfloat16* __restrict__ q,
                                           const __nv_bfloat16* __restrict__ k,
                                           const float* __restrict__ cos_row,
                                           const float* __restrict__ sin_row,
                                           __nv_bfloat16* __restrict__ q_out,
                                           __nv_bfloat16* __restrict__ k_out, long long t,
                                           int Hq, int Hk, int D)
{
    const int half = D / 2;
    const int chunks = half / VEC; /* work items per head */
    const int work = (Hq + Hk) * chunks;
#pragma unroll 2
    for (int w = threadIdx.x; w < work; w += THREADS) {
        const int h = w / chunks;
        const int i = (w - h * chunks) * VEC;
        const long long row = h < Hq ? (t * Hq + h) * D : (t * Hk + (h - Hq)) * D;
        const __nv_bfloat16* x = (h < Hq ? q : k) + row;
        __nv_bfloat16* o = (h < Hq ? q_out : k_out) + row;
        float x1[VEC], x2[VEC], c[VEC], s[VEC], o1[VEC], o2[VEC];
        load_bf16<VEC>(x + i, x1);
        load_bf16<VEC>(x + i + half, x2);
        load_f32<VEC>(cos_row + i, c);
        load_f32<VEC>(sin_row + i, s);
#pragma unroll
        for (int u = 0; u < VEC; u++) {
            o1[u] = x1[u] * c[u] - x2[u] * s[u];
            o2[u] = x2[u] * c[u] + x1[u] * s[u];
        }
        store_bf16<VEC>(o + i, o1);
        store_bf16<VEC>(o + i + half, o2);
    }
}

extern "C" __global__ void __launch_bounds__(THREADS)
rope(const __nv_bfloat16* __restrict__ q, const __nv_bfloat16* __restrict__ k,
     const int* __restrict__ positions, const float* __restrict__ cos_table,
     const float* __restrict__ sin_table, __nv_bfloat16* __restrict__ q_out,
     __nv_bfloat16* __restrict__ k_out, long long T, long long Hq, long long Hk, long long D,
     long long P)
{
    const long long t = blockIdx.x;
    const long long half = D / 2;
    const long long p = positions[t];
    const float* cos_row = cos_table + p * half;
    const float* sin_row = sin_table + p * half;
    if ((D & 7) == 0)
        rope_token<4>(q, k, cos_row, sin_row, q_out, k_out, t, (int)Hq, (int)Hk, (int)D);
    else if ((D & 3) == 0)
        rope_token<2>(q, k, cos_row, sin_row, q_out, k_out, t, (int)Hq, (int)Hk, (int)D);
    else
        rope_token<1>(q, k, cos_row, sin_row, q_out, k_out, t, (int)Hq, (int)Hk, (int)D);
}
