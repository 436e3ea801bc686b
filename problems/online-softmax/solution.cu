// Online softmax for rows of up to 2^24 floats: three launches, two reads of
// X and one write of Y (12MN bytes; one read cannot hold a 64 MB row on chip).
//
// A row is cut into chunks of CHUNK = THREADS * VPT = 16384 elements, one
// block per chunk, so even 16 rows make thousands of blocks.
//   1. chunk_stats: each thread loads its VPT values into registers and
//      computes its own normaliser state (m, l) = (max, sum of exp(x - max));
//      the block combines the states with the merge
//        (m1, l1) + (m2, l2) = (M, l1 e^(m1-M) + l2 e^(m2-M)),  M = max(m1, m2)
//      (warp shuffles, then the 16 warps through shared memory) and writes
//      the chunk's (m, l) to `part`.
//   2. row_stats: one warp per row merges the row's chunk states (each lane
//      a strided subset, then a butterfly) into stats[row] = (m, 1 / l).
//   3. normalize: reads X again and writes y = exp(x - m) * (1 / l). Its
//      blocks run in reverse chunk order, so the first ones re-read the
//      chunks that launch 1 read last, some of which are still in L2.
// The merge is commutative and associative (up to rounding), so the order in
// which states meet does not matter. The empty state is (-inf, 0): elements
// past the end of a row load as -inf, and merge() leaves two empty states
// empty instead of computing exp(-inf - -inf) = NaN.
// With N a multiple of 4 every row and chunk starts 16-byte aligned and the
// values move as float4; otherwise element k*THREADS + t of a chunk goes to
// thread t (still coalesced).
//
// @const THREADS=512
// @const VPT=32
// @const CHUNK=16384
// @let CHUNKS = M * cdiv(N, CHUNK)
// @scratch part fp32[2*CHUNKS]
// @scratch stats fp32[2*M]
// @launch chunk_stats grid=(CHUNKS) block=(THREADS) args=(X, part, M, N)
// @launch row_stats grid=(cdiv(M, 8)) block=(256) args=(part, stats, M, N)
// @launch normalize grid=(CHUNKS) block=(THREADS) args=(X, Y, stats, M, N)

static_assert(CHUNK == THREADS * VPT, "a chunk is VPT values for each thread");
static_assert(VPT % 4 == 0, "the float4 path moves VPT / 4 vectors per thread");

__device__ __forceinline__ float neg_inf()
{
    return __int_as_float(0xff800000);
}

/* (m, l) += (m2, l2). */
__device__ __forceinline__ void merge(float& m, float& l, float m2, float l2)
{
    const float mx = fmaxf(m, m2);
    if (mx == neg_inf())
        return; /* both empty */
    l = l * expf(m - mx) + l2 * expf(m2 - mx);
    m = mx;
}

/* Loads this thread's VPT values of chunk `c` of row `row`; -inf past the end. */
__device__ __forceinline__ void load_chunk(const float* __restrict__ x, long long row, long long c,
                                           long long n, float (&v)[VPT])
{
    const long long start = c * CHUNK;
    const int len = (int)min((long long)CHUNK, n - start);
    const float* src = x + row * n + start;
    if ((n & 3) == 0) {
#pragma unroll
        for (int k = 0; k < VPT / 4; k++) {
            const int i = (k * THREADS + (int)threadIdx.x) * 4;
            float4 q = make_float4(neg_inf(), neg_inf(), neg_inf(), neg_inf());
            if (i < len) /* len is a multiple of 4 here */
                q = *reinterpret_cast<const float4*>(src + i);
            v[4 * k] = q.x;
            v[4 * k + 1] = q.y;
            v[4 * k + 2] = q.z;
            v[4 * k + 3] = q.w;
        }
    } else {
#pragma unroll
        for (int k = 0; k < VPT; k++) {
            const int i = k * THREADS + (int)threadIdx.x;
            v[k] = i < len ? src[i] : neg_inf();
        }
    }
}

extern "C" __global__ void __launch_bounds__(THREADS)
chunk_stats(const float* __restrict__ x, float* __restrict__ part, long long m, long long n)
{
    __shared__ float wm[THREADS / 32], wl[THREADS / 32];
    const long long chunks = (n + CHUNK - 1) / CHUNK;
    const long long row = blockIdx.x / chunks, c = blockIdx.x % chunks;
    float v[VPT];
    load_chunk(x, row, c, n, v);

    float mx = neg_inf();
#pragma unroll
    for (int k = 0; k < VPT; k++)
        mx = fmaxf(mx, v[k]);
    float l = 0.0f;
    if (mx != neg_inf()) {
#pragma unroll
        for (int k = 0; k < VPT; k++)
            l += expf(v[k] - mx);
    }
#pragma unroll
    for (int o = 16; o > 0; o >>= 1) {
        const float m2 = __shfl_xor_sync(0xffffffffu, mx, o);
        const float l2 = __shfl_xor_sync(0xffffffffu, l, o);
        merge(mx, l, m2, l2);
    }
    const int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
    if (lane == 0) {
        wm[warp] = mx;
        wl[warp] = l;
    }
    __syncthreads();
    if (threadIdx.x == 0) {
        for (int w = 1; w < THREADS / 32; w++)
            merge(mx, l, wm[w], wl[w]);
        part[2 * blockIdx.x] = mx;
        part[2 * blockIdx.x + 1] = l;
    }
}

extern "C" __global__ void row_stats(const float* __restrict__ part, float* __restrict__ stats,
                                     long long m, long long n)
{
    const long long row = (long long)blockIdx.x * 8 + threadIdx.x / 32;
    const int lane = threadIdx.x % 32;
    if (row >= m)
        return;
    const long long chunks = (n + CHUNK - 1) / CHUNK;
    float mx = neg_inf(), l = 0.0f;
    for (long long c = lane; c < chunks; c += 32)
        merge(mx, l, part[2 * (row * chunks + c)], part[2 * (row * chunks + c) + 1]);
#pragma unroll
    for (int o = 16; o > 0; o >>= 1) {
        const float m2 = __shfl_xor_sync(0xffffffffu, mx, o);
        const float l2 = __shfl_xor_sync(0xffffffffu, l, o);
        merge(mx, l, m2, l2);
    }
    if (lane == 0) {
        stats[2 * row] = mx;
        stats[2 * row + 1] = 1.0f / l;
    }
}

extern "C" __global__ void __launch_bounds__(THREADS)
normalize(const float* __restrict__ x, float* __restrict__ y, const float* __restrict__ stats,
          long long m, long long n)
{
    const long long chunks = (n + CHUNK - 1) / CHUNK;
    const long long b = gridDim.x - 1 - blockIdx.x; /* reverse order: see above */
    const long long row = b / chunks, c = b % chunks;
    const float mx = stats[2 * row], inv = stats[2 * row + 1];
    float v[VPT];
    load_chunk(x, row, c, n, v);
    const long long start = c * CHUNK;
    const int len = (int)min((long long)CHUNK, n - start);
    float* dst = y + row * n + start;
    if ((n & 3) == 0) {
#pragma unroll
        for (int k = 0; k < VPT / 4; k++) {
            const int i = (k * THREADS + (int)threadIdx.x) * 4;
            if (i < len)
                *reinterpret_cast<float4*>(dst + i) =
                    make_float4(expf(v[4 * k] - mx) * inv, expf(v[4 * k + 1] - mx) * inv,
                                expf(v[4 * k + 2] - mx) * inv, expf(v[4 * k + 3] - mx) * inv);
        }
    } else {
#pragma unroll
        for (int k = 0; k < VPT; k++) {
            const int i = k * THREADS + (int)threadIdx.x;
            if (i < len)
                dst[i] = expf(v[k] - mx) * inv;
        }
    }
}
