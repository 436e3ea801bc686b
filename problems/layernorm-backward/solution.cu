// LayerNorm backward in two launches: one pass over X and dY computes dX row
// by row and the per-column partial sums of dgamma and dbeta; a tiny second
// launch copies the column sums to the outputs.
//
// lnb_rows: a row is handled by a team of T = 32 * cdiv(N, 32 * VPT) threads
// (at most 1024; 16, half a warp, when N <= 256), each holding VPT = 16 of its
// elements in registers (as the packed fp16 they were loaded as; xhat =
// (x - mean) * rstd and dy are formed in fp32 where used). When N is a
// multiple of 8 (every benchmark shape) a thread's elements are two 16-byte
// chunks of 8 halves (chunk t + k*T: coalesced); other rows take two strided
// passes over global memory (tests only). Short rows share a
// block (T x R threads, R = 256 / T rows). Per row the team reduces
// sum(g * xhat) and sum(g), g = dy * gamma, together (warp shuffles, then one
// exchange through shared memory; two slot sets alternating between rows, so
// one barrier per row), and writes dX = rstd * (g - xhat * c1 - c2) rounded
// once to fp16.
//
// The column sums: the blocks form a persistent grid (1024 threads per SM)
// that walks the rows, and every thread owns its columns, so it adds
// dy * xhat and dy into per-team accumulators in shared memory (no races:
// one owner per column and team). At the end each block adds its R teams'
// accumulators and adds the result into the zeroed scratch `acc` with one
// atomicAdd per column and output (a few hundred blocks: a few thousand
// atomics per column at most). dgamma and dbeta are outputs poisoned with NaN,
// so lnb_finish copies acc into them rather than accumulating there.
// gamma is staged once per block in shared memory too. Shared memory per
// block: 8 R N bytes of accumulators (32 KiB for N <= 4096, 128 KiB at
// N = 16384) + 2N bytes of gamma.
//
// Every team of a block runs the same number of row iterations (rows past M
// are "dead": they add nothing and store nothing), so barriers are uniform.
// N is at most 16384 in this problem.
//
// @const VPT=16
// @const ROW_THREADS=256
// @const SM_THREADS=135168
// @scratch acc fp32[2 * N]
// @let TEAM = 32 * cdiv(N, 32 * VPT) - (N <= 256 ? 16 : 0)
// @let ROWS = max(1, ROW_THREADS / TEAM)
// @let BLOCKS = min(cdiv(M, ROWS), SM_THREADS / max(ROW_THREADS, TEAM))
// @launch lnb_rows grid=(BLOCKS) block=(TEAM, ROWS) smem=(8 * N * ROWS + 2 * N + 16) \
//     args=(dY, X, gamma, mean, rstd, dX, acc, M, N)
// @launch lnb_finish grid=(cdiv(N, 256)) block=(256) args=(acc, dgamma, dbeta, N)

#include <cuda_fp16.h>

#define MAX_WARPS 32                 /* warps of one team (1024 threads) */
#define MAX_TEAMS (ROW_THREADS / 16) /* teams of one block (16-thread teams) */

static_assert(VPT == 16, "a thread holds two 16-byte chunks");

// Sums (a, b) over the team of this thread; every thread of the team gets
// the result. `slots` is this team's current slot set. A team of 16 is half a
// warp: its shuffles stay within the half, and both halves run them together.
__device__ __forceinline__ float2 team_sum2(float a, float b, float2* slots)
{
    for (int o = blockDim.x >= 32 ? 16 : (int)blockDim.x / 2; o > 0; o >>= 1) {
        a += __shfl_xor_sync(0xffffffffu, a, o);
        b += __shfl_xor_sync(0xffffffffu, b, o);
    }
    const int warps = blockDim.x >> 5;
    if (warps <= 1)
        return make_float2(a, b);
    if ((threadIdx.x & 31) == 0)
        slots[threadIdx.x >> 5] = make_float2(a, b);
    __syncthreads();
    float2 r = make_float2(0.0f, 0.0f);
    for (int w = 0; w < warps; w++) {
        r.x += slots[w].x;
        r.y += slots[w].y;
    }
    return r;
}

// Rows with N % 8 == 0: a thread keeps its two 16-byte chunks of X and of dY
// packed (8 registers each) and converts them to fp32 where they are used.
__device__ __forceinline__ void rows_vec(const __half* __restrict__ dY, const __half* __restrict__ X,
                                         const float* __restrict__ mean, const float* __restrict__ rstd,
                                         __half* __restrict__ dX, long long M, int N, float (*slots)[MAX_WARPS * 2],
                                         float* acc_g, float* acc_b, const __half* gs)
{
    const int t = threadIdx.x, T = blockDim.x;
    const int chunks = N >> 3;
    const float inv_n = 1.0f / (float)N;
    int parity = 0;

    for (long long base = (long long)blockIdx.x * blockDim.y; base < M; base += (long long)gridDim.x * blockDim.y) {
        const long long row = base + threadIdx.y;
        const bool live = row < M;
        const long long off = (live ? row : 0) * (long long)N;
        const float mu = live ? mean[row] : 0.0f, rs = live ? rstd[row] : 0.0f;
        uint4 qx[VPT / 8], qd[VPT / 8];
#pragma unroll
        for (int k = 0; k < VPT / 8; k++) {
            const int c = t + k * T;
            qx[k] = make_uint4(0, 0, 0, 0);
            qd[k] = make_uint4(0, 0, 0, 0);
            if (live && c < chunks) {
                qx[k] = __ldcs(reinterpret_cast<const uint4*>(X + off) + c);
                qd[k] = __ldcs(reinterpret_cast<const uint4*>(dY + off) + c);
            }
        }

        // Column sums and the row sums (dead rows hold zeros: they add 0).
        float a = 0.0f, b = 0.0f;
#pragma unroll
        for (int k = 0; k < VPT / 8; k++) {
            const int c = t + k * T;
            if (c < chunks) {
                const __half2* hx = reinterpret_cast<const __half2*>(&qx[k]);
                const __half2* hd = reinterpret_cast<const __half2*>(&qd[k]);
                const __half2* hg = reinterpret_cast<const __half2*>(gs + c * 8);
#pragma unroll
                for (int e = 0; e < 4; e++) {
                    const int j = c * 8 + 2 * e;
                    const float2 fx = __half22float2(hx[e]), fd = __half22float2(hd[e]), fg = __half22float2(hg[e]);
                    const float x0 = (fx.x - mu) * rs, x1 = (fx.y - mu) * rs;
                    acc_g[j] = fmaf(fd.x, x0, acc_g[j]);
                    acc_g[j + 1] = fmaf(fd.y, x1, acc_g[j + 1]);
                    acc_b[j] += fd.x;
                    acc_b[j + 1] += fd.y;
                    const float g0 = fd.x * fg.x, g1 = fd.y * fg.y;
                    a = fmaf(g0, x0, a);
                    a = fmaf(g1, x1, a);
                    b += g0;
                    b += g1;
                }
            }
        }
        const float2 cs = team_sum2(a, b, reinterpret_cast<float2*>(slots[2 * threadIdx.y + parity]));
        parity ^= 1;
        if (!live)
            continue; /* the barrier of this iteration is behind us */
        const float c1 = cs.x * inv_n, c2 = cs.y * inv_n;

#pragma unroll
        for (int k = 0; k < VPT / 8; k++) {
            const int c = t + k * T;
            if (c < chunks) {
                const __half2* hx = reinterpret_cast<const __half2*>(&qx[k]);
                const __half2* hd = reinterpret_cast<const __half2*>(&qd[k]);
                const __half2* hg = reinterpret_cast<const __half2*>(gs + c * 8);
                uint4 q;
                __half2* h = reinterpret_cast<__half2*>(&q);
#pragma unroll
                for (int e = 0; e < 4; e++) {
                    const float2 fx = __half22float2(hx[e]), fd = __half22float2(hd[e]), fg = __half22float2(hg[e]);
                    const float x0 = (fx.x - mu) * rs, x1 = (fx.y - mu) * rs;
                    h[e] = __floats2half2_rn(rs * (fd.x * fg.x - x0 * c1 - c2), rs * (fd.y * fg.y - x1 * c1 - c2));
                }
                __stcs(reinterpret_cast<uint4*>(dX + off) + c, q);
            }
        }
    }
}

// Rows with N % 8 != 0 (tests only): two strided passes over global memory.
__device__ __forceinline__ void rows_scalar(const __half* __restrict__ dY, const __half* __restrict__ X,
                                            const float* __restrict__ mean, const float* __restrict__ rstd,
                                            __half* __restrict__ dX, long long M, int N,
                                            float (*slots)[MAX_WARPS * 2], float* acc_g, float* acc_b,
                                            const __half* gs)
{
    const int t = threadIdx.x, T = blockDim.x;
    const float inv_n = 1.0f / (float)N;
    int parity = 0;
    for (long long base = (long long)blockIdx.x * blockDim.y; base < M; base += (long long)gridDim.x * blockDim.y) {
        const long long row = base + threadIdx.y;
        const bool live = row < M;
        const long long off = (live ? row : 0) * (long long)N;
        const int n = live ? N : 0; /* dead rows read nothing */
        const float mu = live ? mean[row] : 0.0f, rs = live ? rstd[row] : 0.0f;
        float a = 0.0f, b = 0.0f;
        for (int j = t; j < n; j += T) {
            const float xh = (__half2float(X[off + j]) - mu) * rs, dy = __half2float(dY[off + j]);
            acc_g[j] = fmaf(dy, xh, acc_g[j]);
            acc_b[j] += dy;
            const float g = dy * __half2float(gs[j]);
            a = fmaf(g, xh, a);
            b += g;
        }
        const float2 cs = team_sum2(a, b, reinterpret_cast<float2*>(slots[2 * threadIdx.y + parity]));
        parity ^= 1;
        const float c1 = cs.x * inv_n, c2 = cs.y * inv_n;
        for (int j = t; j < n; j += T) {
            const float xh = (__half2float(X[off + j]) - mu) * rs;
            const float g = __half2float(dY[off + j]) * __half2float(gs[j]);
            dX[off + j] = __float2half(rs * (g - xh * c1 - c2));
        }
    }
}

extern "C" __global__ void __launch_bounds__(1024, 1)
lnb_rows(const __half* __restrict__ dY, const __half* __restrict__ X, const __half* __restrict__ gamma,
         const float* __restrict__ mean, const float* __restrict__ rstd, __half* __restrict__ dX,
         float* __restrict__ acc, long long M, long long N)
{
    __shared__ __align__(16) float slots[2 * MAX_TEAMS][MAX_WARPS * 2];
    extern __shared__ __align__(16) unsigned char smem[];
    const int n = (int)N, R = blockDim.y, T = blockDim.x;
    const int tid = threadIdx.y * T + threadIdx.x, threads = T * R;
    // Layout: R accumulators of dgamma [R][N], R of dbeta [R][N], then gamma [N] (halves).
    float* acc_g_all = reinterpret_cast<float*>(smem);
    float* acc_b_all = acc_g_all + (long long)R * n;
    __half* gs = reinterpret_cast<__half*>(acc_b_all + (long long)R * n);
    for (int i = tid; i < R * n; i += threads) {
        acc_g_all[i] = 0.0f;
        acc_b_all[i] = 0.0f;
    }
    for (int j = tid; j < n; j += threads)
        gs[j] = gamma[j];
    __syncthreads();

    float* acc_g = acc_g_all + threadIdx.y * n;
    float* acc_b = acc_b_all + threadIdx.y * n;
    if ((n & 7) == 0)
        rows_vec(dY, X, mean, rstd, dX, M, n, slots, acc_g, acc_b, gs);
    else
        rows_scalar(dY, X, mean, rstd, dX, M, n, slots, acc_g, acc_b, gs);

    __syncthreads();
    for (int j = tid; j < n; j += threads) {
        float sg = 0.0f, sb = 0.0f;
        for (int r = 0; r < R; r++) {
            sg += acc_g_all[r * n + j];
            sb += acc_b_all[r * n + j];
        }
        atomicAdd(&acc[j], sg);
        atomicAdd(&acc[n + j], sb);
    }
}

extern "C" __global__ void lnb_finish(const float* __restrict__ acc, float* __restrict__ dgamma,
                                      float* __restrict__ dbeta, long long N)
{
    const long long j = (long long)blockIdx.x * blockDim.x + threadIdx.x;
    if (j < N) {
        dgamma[j] = acc[j];
        dbeta[j] = acc[N + j];
    }
}
