// Unfused, for calibration: the solution's tensor-core GEMM writes the fp32
// pre-activation X W^T to a scratch buffer (4MN bytes), and a second kernel
// reads it back, adds the bias, applies the ReLU and rounds to fp16. The
// result is as correct as the fused kernel (the intermediate stays fp32, so
// there is still one rounding to fp16), but it moves 4MN + 4MN + 2MN bytes
// for the output instead of 2MN: on 16384 x 16384 x 256, about 2.5 GB instead
// of 0.5 GB. It brackets the fusion goal of this problem (docs/problem-catalogue.md
// §4: the small-K shape's speed of light) from below, with solution.cu above it.
// Control: must be Accepted.
//
// @const BM=128
// @const BN=128
// @const BK=32
// @const STAGES=4
// @const GROUP_M=8
// @scratch pre fp32[M * N]
// @launch matmul_bias_relu grid=(cdiv(M, BM) * cdiv(N, BN)) block=(128) smem=(STAGES * (BM + BN) * BK * 2) args=(X, W, b, pre, M, N, K)
// @launch bias_relu grid=(cdiv(M * N / 4, 256)) block=(256) args=(pre, b, Y, M, N)

#include <cuda_fp16.h>

#define THREADS 128
#define WM 64                             /* rows of Y per warp */
#define WN 64                             /* columns of Y per warp */
#define MT (WM / 16)                      /* mma tiles along M per warp */
#define NT (WN / 8)                       /* mma tiles along N per warp */
#define CHUNKS (BK / 8)                   /* 16-byte chunks per stage row */
#define A_LOADS (BM * CHUNKS / THREADS)   /* cp.async of X per thread per stage */
#define B_LOADS (BN * CHUNKS / THREADS)   /* cp.async of W per thread per stage */
#define STAGE_A_BYTES (BM * BK * 2)
#define STAGE_BYTES ((BM + BN) * BK * 2)

static_assert(BM == 2 * WM && BN == 2 * WN, "4 warps in a 2 x 2 grid");
static_assert(BK == 32, "the swizzle assumes 4 chunks per stage row");
static_assert(A_LOADS * THREADS == BM * CHUNKS && B_LOADS * THREADS == BN * CHUNKS,
              "every thread loads the same number of chunks");

// Byte offset of 16-byte chunk c of row r in a stage region (rows of 64 bytes).
__device__ __forceinline__ unsigned swz(int r, int c)
{
    return (unsigned)(r * (BK * 2) + ((c ^ ((r >> 1) & 3)) << 4));
}

__device__ __forceinline__ void cp_async16(unsigned dst, const void* src, int src_bytes)
{
    asm volatile("cp.async.cg.shared.global [%0], [%1], 16, %2;\n" ::"r"(dst), "l"(src), "r"(src_bytes));
}

__device__ __forceinline__ void cp_async_commit()
{
    asm volatile("cp.async.commit_group;\n" ::);
}

template <int N> __device__ __forceinline__ void cp_async_wait()
{
    asm volatile("cp.async.wait_group %0;\n" ::"n"(N));
}

__device__ __forceinline__ void ldmatrix_x4(unsigned (&r)[4], unsigned addr)
{
    asm volatile("ldmatrix.sync.aligned.m8n8.x4.shared.b16 {%0, %1, %2, %3}, [%4];\n"
                 : "=r"(r[0]), "=r"(r[1]), "=r"(r[2]), "=r"(r[3])
                 : "r"(addr));
}

__device__ __forceinline__ void mma_16816(float (&d)[4], const unsigned (&a)[4], unsigned b0, unsigned b1)
{
    asm volatile("mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 {%0, %1, %2, %3}, "
                 "{%4, %5, %6, %7}, {%8, %9}, {%0, %1, %2, %3};\n"
                 : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3])
                 : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b0), "r"(b1));
}

extern "C" __global__ void __launch_bounds__(THREADS, 2)
matmul_bias_relu(const __half* __restrict__ X, const __half* __restrict__ W, const __half* __restrict__ bias,
                 float* __restrict__ pre, long long M, long long N, long long K)
{
    extern __shared__ __align__(128) unsigned char smem[];

    const int tid = threadIdx.x, lane = tid & 31, warp = tid >> 5;
    const int wm = warp >> 1, wn = warp & 1;

    // Grouped tile order: GROUP_M tile rows at a time, walked along N.
    const long long tiles_m = (M + BM - 1) / BM, tiles_n = (N + BN - 1) / BN;
    const long long pid = blockIdx.x;
    const long long per_group = (long long)GROUP_M * tiles_n;
    const long long first_m = (pid / per_group) * GROUP_M;
    const long long group_rows = min(tiles_m - first_m, (long long)GROUP_M);
    const long long tm = first_m + (pid % per_group) % group_rows;
    const long long tn = (pid % per_group) / group_rows;
    const long long m0 = tm * BM, n0 = tn * BN;

    const unsigned sbase = (unsigned)__cvta_generic_to_shared(smem);

    // This thread's chunks of every stage: rows tid / CHUNKS + i * (THREADS / CHUNKS),
    // chunk tid % CHUNKS. Invalid rows (past M or N) load nothing.
    const int lc = tid % CHUNKS;
    const __half* a_src[A_LOADS];
    const __half* b_src[B_LOADS];
    bool a_ok[A_LOADS], b_ok[B_LOADS];
    unsigned a_dst[A_LOADS], b_dst[B_LOADS];
#pragma unroll
    for (int i = 0; i < A_LOADS; i++) {
        const int r = tid / CHUNKS + i * (THREADS / CHUNKS);
        a_ok[i] = m0 + r < M;
        a_src[i] = X + (a_ok[i] ? m0 + r : 0) * K + lc * 8;
        a_dst[i] = swz(r, lc);
    }
#pragma unroll
    for (int i = 0; i < B_LOADS; i++) {
        const int r = tid / CHUNKS + i * (THREADS / CHUNKS);
        b_ok[i] = n0 + r < N;
        b_src[i] = W + (b_ok[i] ? n0 + r : 0) * K + lc * 8;
        b_dst[i] = STAGE_A_BYTES + swz(r, lc);
    }

    // Issues the cp.async of K slab kt into stage s (nothing past K).
    auto load_slab = [&](long long kt, int s) {
        const long long k0 = kt * BK;
        const bool k_ok = k0 + lc * 8 < K;
        const unsigned st = sbase + (unsigned)s * STAGE_BYTES;
#pragma unroll
        for (int i = 0; i < A_LOADS; i++) {
            const bool ok = a_ok[i] && k_ok;
            cp_async16(st + a_dst[i], ok ? (const void*)(a_src[i] + k0) : (const void*)X, ok ? 16 : 0);
        }
#pragma unroll
        for (int i = 0; i < B_LOADS; i++) {
            const bool ok = b_ok[i] && k_ok;
            cp_async16(st + b_dst[i], ok ? (const void*)(b_src[i] + k0) : (const void*)W, ok ? 16 : 0);
        }
    };

    // ldmatrix row addresses (within a stage) for k step 0; k step 1 flips chunk bit 1.
    // A: lane l gives row l % 16 of the 16 x 16 block, chunk l / 16.
    // B: lane l gives n (l % 8) + 8 (l / 16), chunk (l / 8) % 2.
    const int a_row = wm * WM + (lane & 15), a_chunk = lane >> 4;
    const int b_row = wn * WN + (lane & 7) + ((lane >> 4) << 3), b_chunk = (lane >> 3) & 1;

    float acc[MT][NT][4];
#pragma unroll
    for (int i = 0; i < MT; i++)
#pragma unroll
        for (int j = 0; j < NT; j++)
#pragma unroll
            for (int e = 0; e < 4; e++)
                acc[i][j][e] = 0.0f;

    const long long KT = (K + BK - 1) / BK;
#pragma unroll
    for (int s = 0; s < STAGES - 1; s++) {
        if (s < KT)
            load_slab(s, s);
        cp_async_commit();
    }

    for (long long kt = 0; kt < KT; kt++) {
        cp_async_wait<STAGES - 2>(); /* slab kt has landed (for this thread) */
        __syncthreads();             /* ... for every thread; and slab kt-1 is consumed */
        {
            const long long next = kt + STAGES - 1;
            if (next < KT)
                load_slab(next, (int)(next % STAGES));
            cp_async_commit();
        }
        const unsigned st = sbase + (unsigned)(kt % STAGES) * STAGE_BYTES;
#pragma unroll
        for (int ks = 0; ks < BK / 16; ks++) {
            unsigned af[MT][4], bf[NT][2];
#pragma unroll
            for (int i = 0; i < MT; i++)
                ldmatrix_x4(af[i], st + swz(a_row + i * 16, ks * 2 + a_chunk));
#pragma unroll
            for (int j = 0; j < NT / 2; j++) {
                unsigned r[4];
                ldmatrix_x4(r, st + STAGE_A_BYTES + swz(b_row + j * 16, ks * 2 + b_chunk));
                bf[2 * j][0] = r[0];
                bf[2 * j][1] = r[1];
                bf[2 * j + 1][0] = r[2];
                bf[2 * j + 1][1] = r[3];
            }
#pragma unroll
            for (int i = 0; i < MT; i++)
#pragma unroll
                for (int j = 0; j < NT; j++)
                    mma_16816(acc[i][j], af[i], bf[j][0], bf[j][1]);
        }
    }
    // Epilogue: the fp32 accumulators as they are; thread (g, t) holds rows g and
    // g + 8, columns 2t and 2t + 1 of each 16 x 8 tile.
    const int g = lane >> 2, t = lane & 3;
#pragma unroll
    for (int j = 0; j < NT; j++) {
        const long long col = n0 + wn * WN + j * 8 + 2 * t;
        if (col >= N)
            continue;
#pragma unroll
        for (int i = 0; i < MT; i++) {
            const long long row = m0 + wm * WM + i * 16 + g;
            if (row < M)
                *reinterpret_cast<float2*>(pre + row * N + col) = make_float2(acc[i][j][0], acc[i][j][1]);
            if (row + 8 < M)
                *reinterpret_cast<float2*>(pre + (row + 8) * N + col) = make_float2(acc[i][j][2], acc[i][j][3]);
        }
    }
}

// Y = fp16(ReLU(pre + b)), four elements per thread (N % 8 == 0 keeps rows aligned).
extern "C" __global__ void bias_relu(const float* __restrict__ pre, const __half* __restrict__ bias,
                                     __half* __restrict__ Y, long long M, long long N)
{
    const long long q = (long long)blockIdx.x * blockDim.x + threadIdx.x; /* float4 index */
    if (q >= M * N / 4)
        return;
    const float4 v = reinterpret_cast<const float4*>(pre)[q];
    const long long col = (q * 4) % N;
    const float b0 = __half2float(bias[col]), b1 = __half2float(bias[col + 1]);
    const float b2 = __half2float(bias[col + 2]), b3 = __half2float(bias[col + 3]);
    __half2* y = reinterpret_cast<__half2*>(Y + q * 4);
    y[0] = __floats2half2_rn(fmaxf(v.x + b0, 0.0f), fmaxf(v.y + b1, 0.0f));
    y[1] = __floats2half2_rn(fmaxf(v.z + b2, 0.0f), fmaxf(v.w + b3, 0.0f));
}
