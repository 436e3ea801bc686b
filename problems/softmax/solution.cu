// Fused row-wise softmax: one read of X, one write of Y.
//
// A row (N <= 16384 floats, at most 64 KB) is split over T = 32*cdiv(N, 32*VPT)
// threads, and each thread keeps its VPT = 32 elements in registers, so X is
// read from memory exactly once: load the row, reduce its maximum, replace
// each element by exp(x - max) and reduce their sum, then write them times
// 1/sum. Reductions are warp shuffles, then (when a row spans several warps)
// one exchange through shared memory. Short rows (T < ROW_THREADS) share a
// block: the block is T x R threads for R = ROW_THREADS / T rows, so short
// rows still make blocks of ROW_THREADS threads.
//
// When N is a multiple of 4 every row starts 16-byte aligned and the row is
// moved as float4; otherwise element t + k*T goes to thread t (still
// coalesced). Elements past the end of the row are -inf in registers: they
// change neither the maximum nor the sum (exp(-inf) = 0), and are not stored.
// Every row has a finite maximum, so x - max is never inf - inf.
//
// @const VPT=32
// @const ROW_THREADS=128
// @let TEAM = 32*cdiv(N, 32*VPT)
// @let ROWS = max(1, ROW_THREADS / TEAM)
// @launch softmax_rows grid=(cdiv(M, ROWS)) block=(TEAM, ROWS) args=(X, Y, M, N)

#define MAX_ROW_WARPS 16                 /* 16384 / (32 * VPT) */
#define MAX_BLOCK_ROWS (ROW_THREADS / 32) /* rows of one block */

static_assert(VPT % 4 == 0, "VPT must be a multiple of 4 for the float4 path");
static_assert(32 * VPT * MAX_ROW_WARPS >= 16384, "a row of 16384 must fit in registers");

__device__ __forceinline__ float neg_inf()
{
    return __int_as_float(0xff800000);
}

// Reduces v over the blockDim.x threads of this row (op: max or sum). Every
// thread of the row gets the same result. `slots` is this row's shared array.
template <bool IsMax>
__device__ __forceinline__ float row_reduce(float v, float* slots)
{
#pragma unroll
    for (int offset = 16; offset > 0; offset >>= 1) {
        const float o = __shfl_xor_sync(0xffffffffu, v, offset);
        v = IsMax ? fmaxf(v, o) : v + o;
    }
    const int warps = blockDim.x >> 5;
    if (warps == 1)
        return v;
    if ((threadIdx.x & 31) == 0)
        slots[threadIdx.x >> 5] = v;
    __syncthreads();
    float r = slots[0];
    for (int w = 1; w < warps; w++)
        r = IsMax ? fmaxf(r, slots[w]) : r + slots[w];
    return r;
}

extern "C" __global__ void __launch_bounds__(512, 2)
softmax_rows(const float* __restrict__ x, float* __restrict__ y, long long m, long long n)
{
    __shared__ float max_slots[MAX_BLOCK_ROWS][MAX_ROW_WARPS];
    __shared__ float sum_slots[MAX_BLOCK_ROWS][MAX_ROW_WARPS];

    const long long row = (long long)blockIdx.x * blockDim.y + threadIdx.y;
    const bool live = row < m;
    const int t = threadIdx.x, threads = blockDim.x;
    const float* __restrict__ xr = x + (live ? row : 0) * n;
    float* __restrict__ yr = y + (live ? row : 0) * n;
    const bool vec = (n & 3) == 0;

    float v[VPT];
    if (vec) {
        const int n4 = (int)(n >> 2);
#pragma unroll
        for (int k = 0; k < VPT / 4; k++) {
            const int i = t + k * threads;
            float4 q = make_float4(neg_inf(), neg_inf(), neg_inf(), neg_inf());
            if (live && i < n4)
                q = reinterpret_cast<const float4*>(xr)[i];
            v[4 * k] = q.x;
            v[4 * k + 1] = q.y;
            v[4 * k + 2] = q.z;
            v[4 * k + 3] = q.w;
        }
    } else {
#pragma unroll
        for (int k = 0; k < VPT; k++) {
            const int j = t + k * threads;
            v[k] = (live && j < n) ? xr[j] : neg_inf();
        }
    }

    float mx = neg_inf();
#pragma unroll
    for (int k = 0; k < VPT; k++)
        mx = fmaxf(mx, v[k]);
    mx = row_reduce<true>(mx, max_slots[threadIdx.y]);

    float sum = 0.0f;
#pragma unroll
    for (int k = 0; k < VPT; k++) {
        v[k] = expf(v[k] - mx);
        sum += v[k];
    }
    sum = row_reduce<false>(sum, sum_slots[threadIdx.y]);
    const float inv = 1.0f / sum;

    if (!live)
        return;
    if (vec) {
        const int n4 = (int)(n >> 2);
#pragma unroll
        for (int k = 0; k < VPT / 4; k++) {
            const int i = t + k * threads;
            if (i < n4)
                reinterpret_cast<float4*>(yr)[i] =
                    make_float4(v[4 * k] * inv, v[4 * k + 1] * inv, v[4 * k + 2] * inv,
                                v[4 * k + 3] * inv);
        }
    } else {
#pragma unroll
        for (int k = 0; k < VPT; k++) {
            const int j = t + k * threads;
            if (j < n)
                yr[j] = v[k] * inv;
        }
    }
}
