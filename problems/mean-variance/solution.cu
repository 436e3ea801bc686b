// Single-pass mean and variance: x is read once (4N bytes), in one launch.
//
// Every thread keeps a running summary (n, mean, M2 = sum of squared
// deviations from mean) and merges summaries with Chan et al.'s rule
//   n = na + nb, d = mean_b - mean_a, mean = mean_a + d * nb / n,
//   M2 = M2a + M2b + d^2 * na * nb / n,
// which never forms sum x^2, so a large common offset (x = 1e4 + N(0, 1))
// costs no accuracy: only deviations are squared.
//
// Each block owns a contiguous chunk of CHUNK = 4*BLOCK*UNROLL*ITERS floats
// (128 KB), read as float4 (x is 256-byte aligned; a chunk wholly inside x
// is read without bounds checks). In each of ITERS steps a thread loads
// UNROLL float4s (coalesced, 128 bytes in flight), computes their batch mean
// and batch M2 in registers (two passes over registers, not memory), and
// merges the batch into its summary: one division per 32 elements. Threads
// merge through warp shuffles, then warps through shared memory; thread 0
// writes the block's summary to scratch.
//
// Cross-block combine, "last block done": thread 0 makes the summary
// visible (__threadfence) and takes a ticket from an atomic counter (scratch
// is zeroed before every run); the block with the last ticket merges all
// summaries in block order and writes out[0] = mean, out[1] = M2 / N (the
// population variance). The N % 4 floats after the last whole float4 are
// merged by the first threads of block 0.
//
// @const BLOCK=256
// @const UNROLL=8
// @const ITERS=4
// @const CHUNK=32768
// @let CHUNKS = cdiv(N, CHUNK)
// @scratch part_n uint32[CHUNKS]
// @scratch part_mean fp32[CHUNKS]
// @scratch part_m2 fp32[CHUNKS]
// @scratch ticket uint32[1]
// @launch mean_var grid=(CHUNKS) block=(BLOCK) args=(x, out, part_n, part_mean, part_m2, ticket, N)

static_assert(CHUNK == 4 * BLOCK * UNROLL * ITERS, "CHUNK must match the loop shape");

struct stats {
    unsigned int n;
    float mean, m2;
};

// a <- a merged with (nb, mb, qb); either side may be empty.
__device__ __forceinline__ void merge(stats& a, unsigned int nb, float mb, float qb)
{
    if (nb == 0)
        return;
    if (a.n == 0) {
        a.n = nb;
        a.mean = mb;
        a.m2 = qb;
        return;
    }
    const unsigned int n = a.n + nb;
    const float w = (float)nb / (float)n;
    const float d = mb - a.mean;
    a.mean = fmaf(d, w, a.mean);
    a.m2 = a.m2 + qb + d * d * ((float)a.n * w);
    a.n = n;
}

// Merges the summaries of the block; the result is valid in thread 0.
__device__ __forceinline__ stats block_merge(stats s)
{
    __shared__ unsigned int sn[BLOCK / 32];
    __shared__ float smean[BLOCK / 32], sm2[BLOCK / 32];
#pragma unroll
    for (int o = 16; o > 0; o >>= 1) {
        const unsigned int nb = __shfl_down_sync(0xffffffffu, s.n, o);
        const float mb = __shfl_down_sync(0xffffffffu, s.mean, o);
        const float qb = __shfl_down_sync(0xffffffffu, s.m2, o);
        if ((threadIdx.x & 31) + o < 32)
            merge(s, nb, mb, qb);
    }
    if ((threadIdx.x & 31) == 0) {
        sn[threadIdx.x >> 5] = s.n;
        smean[threadIdx.x >> 5] = s.mean;
        sm2[threadIdx.x >> 5] = s.m2;
    }
    __syncthreads();
    if (threadIdx.x < 32) {
        const bool have = threadIdx.x < BLOCK / 32;
        s.n = have ? sn[threadIdx.x] : 0u;
        s.mean = have ? smean[threadIdx.x] : 0.0f;
        s.m2 = have ? sm2[threadIdx.x] : 0.0f;
#pragma unroll
        for (int o = 16; o > 0; o >>= 1) {
            const unsigned int nb = __shfl_down_sync(0xffffffffu, s.n, o);
            const float mb = __shfl_down_sync(0xffffffffu, s.mean, o);
            const float qb = __shfl_down_sync(0xffffffffu, s.m2, o);
            if (threadIdx.x + o < 32)
                merge(s, nb, mb, qb);
        }
    }
    return s;
}

// Merges this thread's share of the block's chunk into st, a batch of up to
// 4*UNROLL elements at a time. Checked = false for a chunk wholly inside x.
template <bool Checked>
__device__ __forceinline__ void chunk_stats(const float4* __restrict__ x4, long long first,
                                            long long n4, stats& st)
{
#pragma unroll 1
    for (int it = 0; it < ITERS; it++) {
        float4 v[UNROLL];
        bool ok[UNROLL];
        unsigned int cnt = 0;
#pragma unroll
        for (int u = 0; u < UNROLL; u++) {
            const long long i = first + (long long)(it * UNROLL + u) * BLOCK;
            ok[u] = !Checked || i < n4;
            v[u] = ok[u] ? x4[i] : make_float4(0.0f, 0.0f, 0.0f, 0.0f);
            cnt += ok[u] ? 4u : 0u;
        }
        if (cnt == 0)
            break; /* later steps are further past the end */
        float s = 0.0f;
#pragma unroll
        for (int u = 0; u < UNROLL; u++)
            s += (v[u].x + v[u].y) + (v[u].z + v[u].w);
        const float mb = Checked ? s / (float)cnt : s * (1.0f / (4 * UNROLL));
        float q = 0.0f;
#pragma unroll
        for (int u = 0; u < UNROLL; u++) {
            if (!ok[u])
                continue;
            const float dx = v[u].x - mb, dy = v[u].y - mb, dz = v[u].z - mb, dw = v[u].w - mb;
            q = fmaf(dx, dx, q);
            q = fmaf(dy, dy, q);
            q = fmaf(dz, dz, q);
            q = fmaf(dw, dw, q);
        }
        merge(st, cnt, mb, q);
    }
}

extern "C" __global__ void __launch_bounds__(BLOCK)
mean_var(const float* __restrict__ x, float* __restrict__ out, unsigned int* part_n,
         float* part_mean, float* part_m2, unsigned int* ticket, long long n)
{
    __shared__ bool last;
    const long long n4 = n >> 2;
    const float4* __restrict__ x4 = reinterpret_cast<const float4*>(x);
    const long long first = (long long)blockIdx.x * (CHUNK / 4) + threadIdx.x;

    stats st = {0u, 0.0f, 0.0f};
    if ((long long)(blockIdx.x + 1) * (CHUNK / 4) <= n4)
        chunk_stats<false>(x4, first, n4, st);
    else
        chunk_stats<true>(x4, first, n4, st);
    if (blockIdx.x == 0 && threadIdx.x < (n & 3))
        merge(st, 1u, x[(n4 << 2) + threadIdx.x], 0.0f);

    st = block_merge(st);
    if (threadIdx.x == 0) {
        part_n[blockIdx.x] = st.n;
        part_mean[blockIdx.x] = st.mean;
        part_m2[blockIdx.x] = st.m2;
        __threadfence();
        last = atomicAdd(ticket, 1u) == gridDim.x - 1;
    }
    __syncthreads();
    if (!last)
        return;

    __threadfence();
    stats total = {0u, 0.0f, 0.0f};
    for (unsigned int b = threadIdx.x; b < gridDim.x; b += BLOCK)
        merge(total, __ldcg(part_n + b), __ldcg(part_mean + b), __ldcg(part_m2 + b));
    __syncthreads(); /* the block_merge shared arrays are reused */
    total = block_merge(total);
    if (threadIdx.x == 0) {
        out[0] = total.mean;
        out[1] = total.m2 / (float)total.n;
    }
}
