// L2 vector norm in one pass and one launch: read x once (4N bytes), write out.
//
// The vector-sum kernel with squares: each block owns a contiguous chunk of
// CHUNK = 4*BLOCK*UNROLL*ITERS floats (128 KB), read as float4 (x is 256-byte
// aligned, and a chunk wholly inside x is read without bounds checks); each
// thread accumulates v*v with fmaf into UNROLL independent fp32 sums. The
// block combines its threads with warp shuffles and one exchange through
// shared memory; thread 0 writes the block's sum of squares to scratch.
//
// Cross-block combine, "last block done": thread 0 makes its partial
// visible (__threadfence) and takes a ticket from an atomic counter (scratch
// is zeroed before every run); the block with the last ticket adds all
// partials in block order and writes out[0] = sqrtf(total): the square root
// is taken once, of the whole sum. The N % 4 floats after the last whole
// float4 are added by the first threads of block 0.
//
// Accuracy: every term is positive, so the relative error of the sum of
// squares is below (depth of additions) * 2^-24 ~ 104 * 6e-8 = 6.2e-6, and
// half of that after the square root: under the 1e-5 allowed for any data.
// |x| <= 1e4 in the tests, so x^2 sums stay far below FLT_MAX.
//
// @const BLOCK=256
// @const UNROLL=8
// @const ITERS=4
// @const CHUNK=32768
// @let CHUNKS = cdiv(N, CHUNK)
// @scratch partial fp32[CHUNKS]
// @scratch ticket uint32[1]
// @launch l2_norm grid=(CHUNKS) block=(BLOCK) args=(x, out, partial, ticket, N)

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

// Adds the squares of this thread's share of the block's chunk into acc.
// Checked = false for a chunk wholly inside x: unconditional loads, which the
// compiler can issue back to back (a load under a branch cannot be hoisted).
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
        for (int u = 0; u < UNROLL; u++) {
            acc[u] = fmaf(v[u].x, v[u].x, acc[u]);
            acc[u] = fmaf(v[u].y, v[u].y, acc[u]);
            acc[u] = fmaf(v[u].z, v[u].z, acc[u]);
            acc[u] = fmaf(v[u].w, v[u].w, acc[u]);
        }
    }
}

extern "C" __global__ void __launch_bounds__(BLOCK)
l2_norm(const float* __restrict__ x, float* __restrict__ out, float* partial, unsigned int* ticket,
        long long n)
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
    if (blockIdx.x == 0 && threadIdx.x < (n & 3)) {
        const float v = x[(n4 << 2) + threadIdx.x];
        acc[0] = fmaf(v, v, acc[0]);
    }

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
        out[0] = sqrtf(total);
}
