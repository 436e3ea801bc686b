// Vector Max in one pass and one launch: read x once (4N bytes), write out.
//
// Each block owns a contiguous chunk of CHUNK = 4*BLOCK*UNROLL*ITERS floats
// (128 KB) and reads it as float4 (x is 256-byte aligned): in each of ITERS
// steps, thread t loads the UNROLL float4s t + u*BLOCK of the step's slice
// (coalesced; a chunk wholly inside x is read without bounds checks) into
// UNROLL running maxima. Every running maximum starts at -inf, the identity
// of max, and so does every lane past the end of x: starting from 0 would
// be wrong whenever every x_i is negative. The block combines its threads
// with warp shuffles and one exchange through shared memory, and thread 0
// writes the block's maximum to scratch.
//
// Cross-block combine, "last block done": thread 0 makes its partial
// visible device-wide (__threadfence) and takes a ticket from an atomic
// counter (scratch is zeroed before every run); the block with the last
// ticket reduces all partials and writes out[0]. The N % 4 floats after the
// last whole float4 are folded in by the first threads of block 0. Max is
// exact and order-independent, so the result is the reference's bit for bit.
//
// @const BLOCK=256
// @const UNROLL=8
// @const ITERS=4
// @const CHUNK=32768
// @let CHUNKS = cdiv(N, CHUNK)
// @scratch partial fp32[CHUNKS]
// @scratch ticket uint32[1]
// @launch vector_max grid=(CHUNKS) block=(BLOCK) args=(x, out, partial, ticket, N)

static_assert(CHUNK == 4 * BLOCK * UNROLL * ITERS, "CHUNK must match the loop shape");

__device__ __forceinline__ float neg_inf()
{
    return __int_as_float(0xff800000);
}

// Maximum of v over the block; the result is valid in thread 0.
__device__ __forceinline__ float block_max(float v)
{
    __shared__ float warp_max[BLOCK / 32];
#pragma unroll
    for (int o = 16; o > 0; o >>= 1)
        v = fmaxf(v, __shfl_xor_sync(0xffffffffu, v, o));
    if ((threadIdx.x & 31) == 0)
        warp_max[threadIdx.x >> 5] = v;
    __syncthreads();
    if (threadIdx.x < 32) {
        v = threadIdx.x < BLOCK / 32 ? warp_max[threadIdx.x] : neg_inf();
#pragma unroll
        for (int o = 16; o > 0; o >>= 1)
            v = fmaxf(v, __shfl_xor_sync(0xffffffffu, v, o));
    }
    return v;
}

// Folds this thread's share of the block's chunk into m. Checked = false for
// a chunk wholly inside x: unconditional loads, issued back to back.
template <bool Checked>
__device__ __forceinline__ void max_chunk(const float4* __restrict__ x4, long long first, long long n4,
                                          float (&m)[UNROLL])
{
#pragma unroll 1
    for (int it = 0; it < ITERS; it++) {
        float4 v[UNROLL];
#pragma unroll
        for (int u = 0; u < UNROLL; u++) {
            const long long i = first + (long long)(it * UNROLL + u) * BLOCK;
            if (Checked)
                v[u] = i < n4 ? x4[i] : make_float4(neg_inf(), neg_inf(), neg_inf(), neg_inf());
            else
                v[u] = x4[i];
        }
#pragma unroll
        for (int u = 0; u < UNROLL; u++)
            m[u] = fmaxf(m[u], fmaxf(fmaxf(v[u].x, v[u].y), fmaxf(v[u].z, v[u].w)));
    }
}

extern "C" __global__ void __launch_bounds__(BLOCK)
vector_max(const float* __restrict__ x, float* __restrict__ out, float* partial,
           unsigned int* ticket, long long n)
{
    __shared__ bool last;
    const long long n4 = n >> 2;
    const float4* __restrict__ x4 = reinterpret_cast<const float4*>(x);
    const long long first = (long long)blockIdx.x * (CHUNK / 4) + threadIdx.x;

    float m[UNROLL];
#pragma unroll
    for (int u = 0; u < UNROLL; u++)
        m[u] = neg_inf();
    if ((long long)(blockIdx.x + 1) * (CHUNK / 4) <= n4)
        max_chunk<false>(x4, first, n4, m);
    else
        max_chunk<true>(x4, first, n4, m);
    if (blockIdx.x == 0 && threadIdx.x < (n & 3))
        m[0] = fmaxf(m[0], x[(n4 << 2) + threadIdx.x]);

    float mx = m[0];
#pragma unroll
    for (int u = 1; u < UNROLL; u++)
        mx = fmaxf(mx, m[u]);
    mx = block_max(mx);

    if (threadIdx.x == 0) {
        partial[blockIdx.x] = mx;
        __threadfence();
        last = atomicAdd(ticket, 1u) == gridDim.x - 1;
    }
    __syncthreads();
    if (!last)
        return;

    __threadfence();
    float total = neg_inf();
    for (unsigned int b = threadIdx.x; b < gridDim.x; b += BLOCK)
        total = fmaxf(total, __ldcg(partial + b));
    __syncthreads(); /* warp_max is reused */
    total = block_max(total);
    if (threadIdx.x == 0)
        out[0] = total;
}
