// Vector Sum in one pass and one launch: read x once (4N bytes), write out.
//
// Each block owns a contiguous chunk of CHUNK = 4*BLOCK*UNROLL*ITERS floats
// (128 KB) and reads it as float4 (x is 256-byte aligned): in each of ITERS
// steps, thread t loads the UNROLL float4s t + u*BLOCK of the step's slice
// (coalesced, 128 bytes in flight per thread) before adding them into UNROLL
// independent fp32 accumulators. The block then combines its threads with
// warp shuffles and one exchange through shared memory, and thread 0 writes
// the block's partial sum to scratch.
//
// Cross-block combine, "last block done": after writing its partial, thread
// 0 makes it visible device-wide (__threadfence) and takes a ticket from an
// atomic counter (scratch is zeroed before every run). The block that draws
// the last ticket knows every other partial is written; it adds them in
// block order (deterministic) and writes out[0]. The N % 4 floats after the
// last whole float4 are added by the first threads of block 0.
//
// Accuracy: a float goes through at most 14 fp32 additions in its thread
// (a 4-term tree, ITERS steps, UNROLL accumulators), 8 in the block's tree,
// and at most 64 + 8 in the last block (N <= 2^29): the worst-case error is
// below 94 * 2^-24 * sum|x| = 5.6e-6 sum|x|, under the 1e-5 sum|x| allowed
// for any data; typically it is ~1e-8 sum|x| (problems/NOTES.md).
//
// @const BLOCK=256
// @const UNROLL=8
// @const ITERS=4
// @const CHUNK=32768
// @let CHUNKS = cdiv(N, CHUNK)
// @scratch partial fp32[CHUNKS]
// @scratch ticket uint32[1]
// @launch vector_sum grid=(CHUNKS) block=(BLOCK) args=(x, out, partial, ticket, N)

static_assert(CHUNK == 4 * BLOCK * UNROLL * ITERS, "CHUNK must match the loop shape");

// Sum of v over the block; the result is valid in thread 0.
__device__ __forceinline__ float block_sum(float v)
{
    __shared__ float warp_sums[BLOCK / 32];
#pragma unroll
    for (int o = 16; o > 0; o >>= 1)
        v += __shfl_xor_sync(0xffffffffu, v, o);
    if ((threadIdx.x & 31) == 0)
        warp_sums[threadIdx.x >> 5] = v;
    __syncthreads();
    if (threadIdx.x < 32) {
        v = threadIdx.x < BLOCK / 32 ? warp_sums[threadIdx.x] : 0.0f;
#pragma unroll
        for (int o = 16; o > 0; o >>= 1)
            v += __shfl_xor_sync(0xffffffffu, v, o);
    }
    return v;
}

// Adds this thread's share of the block's chunk into acc. Checked = false
// for a chunk wholly inside x: unconditional loads, which the compiler can
// issue back to back (a load under a branch cannot be hoisted above it).
template <bool Checked>
__device__ __forceinline__ void add_chunk(const float4* __restrict__ x4, long long first, long long n4,
                                          float (&acc)[UNROLL])
{
#pragma unroll 1
    for (int it = 0; it < ITERS; it++) {
        float4 v[UNROLL];
#pragma unroll
        for (int u = 0; u < UNROLL; u++) {
            const long long i = first + (long long)(it * UNROLL + u) * BLOCK;
            if (Checked)
                v[u] = i < n4 ? x4[i] : make_float4(0.0f, 0.0f, 0.0f, 0.0f);
            else
                v[u] = x4[i];
        }
#pragma unroll
        for (int u = 0; u < UNROLL; u++)
            acc[u] += (v[u].x + v[u].y) + (v[u].z + v[u].w);
    }
}

extern "C" __global__ void __launch_bounds__(BLOCK)
vector_sum(const float* __restrict__ x, float* __restrict__ out, float* partial,
           unsigned int* ticket, long long n)
{
    __shared__ bool last;
    const long long n4 = n >> 2;
    const float4* __restrict__ x4 = reinterpret_cast<const float4*>(x);
    const long long first = (long long)blockIdx.x * (CHUNK / 4) + threadIdx.x;

    float acc[UNROLL];
#pragma unroll
    for (int u = 0; u < UNROLL; u++)
        acc[u] = 0.0f;
    if ((long long)(blockIdx.x + 1) * (CHUNK / 4) <= n4)
        add_chunk<false>(x4, first, n4, acc);
    else
        add_chunk<true>(x4, first, n4, acc);
    if (blockIdx.x == 0 && threadIdx.x < (n & 3))
        acc[0] += x[(n4 << 2) + threadIdx.x];

    float sum = 0.0f;
#pragma unroll
    for (int u = 0; u < UNROLL; u++)
        sum += acc[u];
    sum = block_sum(sum);

    if (threadIdx.x == 0) {
        partial[blockIdx.x] = sum;
        __threadfence();
        last = atomicAdd(ticket, 1u) == gridDim.x - 1;
    }
    __syncthreads();
    if (!last)
        return;

    __threadfence();
    float total = 0.0f;
    for (unsigned int b = threadIdx.x; b < gridDim.x; b += BLOCK)
        total += __ldcg(partial + b);
    __syncthreads(); /* warp_sums is reused */
    total = block_sum(total);
    if (threadIdx.x == 0)
        out[0] = total;
}
