// RMSNorm forward, one read of X and one write of Y: the row stays in
// registers between the reduction (sum of squares) and the scaling.
//
// A row is handled by a team of T = 32 * cdiv(N, 32 * VPT) threads (at most
// 1024; 16, half a warp, when N <= 256), each holding VPT = 16 of its
// elements in registers; short rows share a block (T x R threads, R = 256 / T
// rows). When N is a multiple of 8 (every benchmark shape), every row is
// 16-byte aligned and a thread moves its elements as two 16-byte chunks of 8
// bf16 values (chunk t + k*T: coalesced). The blocks form a persistent grid
// (1024 threads per SM) that walks the rows; each block copies w once into
// shared memory (2N bytes) for all the rows it handles.
//
// fp32 throughout: sum of squares from the registers, reduced by warp
// shuffles and, when the team has several warps, one exchange through shared
// memory; rstd = rsqrt(sum / N + eps); Y = x * rstd * w rounded once to bf16.
// Every team of a block runs the same number of iterations (rows past M are
// "dead" and store nothing), so the barriers are uniform; two slot arrays,
// alternating between iterations, make one barrier per row enough.
//
// Rows whose length is not a multiple of 8, or longer than T * VPT = 16384
// (the tests go up to 65536), take a simple path: two strided passes over the
// row in global memory. No benchmark shape uses it.
//
// @const VPT=16
// @const ROW_THREADS=256
// @const SM_THREADS=135168
// @let TEAM = min(1024, 32 * cdiv(N, 32 * VPT) - (N <= 256 ? 16 : 0))
// @let ROWS = max(1, ROW_THREADS / TEAM)
// @let BLOCKS = min(cdiv(M, ROWS), SM_THREADS / max(ROW_THREADS, TEAM))
// @launch rmsnorm_fwd grid=(BLOCKS) block=(TEAM, ROWS) smem=(2 * min(N, 1024 * VPT)) args=(X, w, Y, rstd, eps, M, N)

#include <cuda_bf16.h>

#define MAX_WARPS 32                 /* warps of one team (1024 threads) */
#define MAX_TEAMS (ROW_THREADS / 16) /* teams of one block (16-thread teams) */

static_assert(VPT == 16, "a thread holds two 16-byte chunks");

// Sum of v over the team of this thread (blockDim.x threads, row threadIdx.y);
// every thread of the team gets the result. `slots` is this team's array. A
// team of 16 is half a warp: its shuffles stay within the half (offsets < 16),
// and both halves of the warp run them together.
__device__ __forceinline__ float team_sum(float v, float* slots)
{
    for (int o = blockDim.x >= 32 ? 16 : (int)blockDim.x / 2; o > 0; o >>= 1)
        v += __shfl_xor_sync(0xffffffffu, v, o);
    const int warps = blockDim.x >> 5;
    if (warps <= 1)
        return v;
    if ((threadIdx.x & 31) == 0)
        slots[threadIdx.x >> 5] = v;
    __syncthreads();
    float r = 0.0f;
    for (int w = 0; w < warps; w++)
        r += slots[w];
    return r;
}

__device__ __forceinline__ void unpack8(uint4 q, float* v)
{
    const __nv_bfloat162* h = reinterpret_cast<const __nv_bfloat162*>(&q);
#pragma unroll
    for (int e = 0; e < 4; e++) {
        const float2 f = __bfloat1622float2(h[e]);
        v[2 * e] = f.x;
        v[2 * e + 1] = f.y;
    }
}

__device__ __forceinline__ uint4 pack8(const float* v)
{
    uint4 q;
    __nv_bfloat162* h = reinterpret_cast<__nv_bfloat162*>(&q);
#pragma unroll
    for (int e = 0; e < 4; e++)
        h[e] = __floats2bfloat162_rn(v[2 * e], v[2 * e + 1]);
    return q;
}

// Rows of N <= T * VPT, N % 8 == 0: the row in registers, 16-byte accesses,
// w from shared memory.
__device__ __forceinline__ void rows_in_registers(const __nv_bfloat16* __restrict__ X,
                                                  const __nv_bfloat16* __restrict__ w, __nv_bfloat16* __restrict__ Y,
                                                  float* __restrict__ rstd, float eps, long long M, long long N,
                                                  float (*slots)[MAX_WARPS], unsigned char* w_smem)
{
    const int t = threadIdx.x, T = blockDim.x;
    const int chunks = (int)(N >> 3); /* 16-byte chunks per row */
    uint4* ws = reinterpret_cast<uint4*>(w_smem);
    for (int c = threadIdx.y * T + t; c < chunks; c += T * blockDim.y)
        ws[c] = reinterpret_cast<const uint4*>(w)[c];
    __syncthreads();
    const float inv_n = 1.0f / (float)N;
    int parity = 0;

    for (long long base = (long long)blockIdx.x * blockDim.y; base < M; base += (long long)gridDim.x * blockDim.y) {
        const long long row = base + threadIdx.y;
        const bool live = row < M;
        const uint4* x = reinterpret_cast<const uint4*>(X + (live ? row : 0) * N);
        float v[VPT];
#pragma unroll
        for (int k = 0; k < VPT / 8; k++) {
            const int c = t + k * T;
            uint4 q = make_uint4(0, 0, 0, 0);
            if (live && c < chunks)
                q = __ldcs(x + c);
            unpack8(q, v + 8 * k);
        }
        float q = 0.0f;
#pragma unroll
        for (int e = 0; e < VPT; e++)
            q = fmaf(v[e], v[e], q);
        const float rs = rsqrtf(team_sum(q, slots[2 * threadIdx.y + parity]) * inv_n + eps);
        parity ^= 1;

        if (!live)
            continue; /* the barrier of this iteration is behind us */
        uint4* y = reinterpret_cast<uint4*>(Y + row * N);
#pragma unroll
        for (int k = 0; k < VPT / 8; k++) {
            const int c = t + k * T;
            if (c < chunks) {
                const uint4 wq = ws[c];
                const __nv_bfloat162* wh = reinterpret_cast<const __nv_bfloat162*>(&wq);
#pragma unroll
                for (int e = 0; e < 4; e++) {
                    const float2 wf = __bfloat1622float2(wh[e]);
                    v[8 * k + 2 * e] = v[8 * k + 2 * e] * rs * wf.x;
                    v[8 * k + 2 * e + 1] = v[8 * k + 2 * e + 1] * rs * wf.y;
                }
                __stcs(y + c, pack8(v + 8 * k));
            }
        }
        if (t == 0)
            rstd[row] = rs;
    }
}

// Any other row: two strided passes over global memory, same teams and the
// same uniform iteration count as above.
__device__ __forceinline__ void rows_from_memory(const __nv_bfloat16* __restrict__ X,
                                                 const __nv_bfloat16* __restrict__ w, __nv_bfloat16* __restrict__ Y,
                                                 float* __restrict__ rstd, float eps, long long M, long long N,
                                                 float (*slots)[MAX_WARPS])
{
    const int t = threadIdx.x, T = blockDim.x;
    int parity = 0;
    for (long long base = (long long)blockIdx.x * blockDim.y; base < M; base += (long long)gridDim.x * blockDim.y) {
        const long long row = base + threadIdx.y;
        const bool live = row < M;
        const __nv_bfloat16* x = X + (live ? row : 0) * N;
        const long long n = live ? N : 0; /* dead rows read nothing */
        float q = 0.0f;
        for (long long j = t; j < n; j += T) {
            const float v = __bfloat162float(x[j]);
            q = fmaf(v, v, q);
        }
        const float rs = rsqrtf(team_sum(q, slots[2 * threadIdx.y + parity]) / (float)N + eps);
        parity ^= 1;
        if (!live)
            continue;
        __nv_bfloat16* y = Y + row * N;
        for (long long j = t; j < N; j += T)
            y[j] = __float2bfloat16(__bfloat162float(x[j]) * rs * __bfloat162float(w[j]));
        if (t == 0)
            rstd[row] = rs;
    }
}

extern "C" __global__ void __launch_bounds__(1024, 1)
rmsnorm_fwd(const __nv_bfloat16* __restrict__ X, const __nv_bfloat16* __restrict__ w, __nv_bfloat16* __restrict__ Y,
            float* __restrict__ rstd, float eps, long long M, long long N)
{
    __shared__ float slots[2 * MAX_TEAMS][MAX_WARPS];
    extern __shared__ __align__(16) unsigned char w_smem[];
    if ((N & 7) == 0 && N <= (long long)blockDim.x * VPT)
        rows_in_registers(X, w, Y, rstd, eps, M, N, slots, w_smem);
    else
        rows_from_memory(X, w, Y, rstd, eps, M, N, slots);
}
