// Fused Y = ReLU(X W^T + b) on tensor cores: mma.sync m16n8k16 (fp16 in,
// fp32 accumulate), fed by ldmatrix from a 4-stage cp.async pipeline, with the
// bias and the ReLU applied to the fp32 accumulators before the single
// rounding to fp16.
//
// Tiles: a block of 4 warps computes a BM x BN = 128 x 128 tile of Y; each
// warp a 64 x 64 quarter, i.e. 4 x 8 mma tiles of 16 x 8 (128 fp32
// accumulators per thread). The K dimension is walked in slabs of BK = 32:
// each stage holds the 128 x 32 slab of X and the 128 x 32 slab of W (both
// K-contiguous, so both are loaded the same way, 16 bytes = 8 halves per
// cp.async). A stage row is 64 bytes; the 16-byte chunk c of row r is stored
// at chunk c ^ ((r >> 1) & 3), which makes every ldmatrix phase (8 rows, one
// chunk each) hit 32 different banks. STAGES - 1 slabs are in flight while
// one is computed; one __syncthreads per slab.
//
// Fragments (PTX ISA, mma.m16n8k16 with .f16 A/B): ldmatrix.x4 of a 16 x 16
// block of X gives a0..a3 = (rows 0-7, k 0-7), (rows 8-15, k 0-7),
// (rows 0-7, k 8-15), (rows 8-15, k 8-15); W is stored as [n][k], which is
// exactly the "col" layout of B, so ldmatrix.x4 of 16 n x 16 k gives b0, b1
// of two n8 tiles.
//
// Ragged shapes: rows past M (and, in general, any 16-byte chunk past N or K;
// N and K are multiples of 8) are zero-filled by cp.async with a source size
// of 0, so they add nothing. The epilogue adds float(b[j]), applies ReLU,
// rounds to fp16 and stages the 128 x 128 tile in shared memory (rows padded
// by 8 halves against bank conflicts), then writes it with 16-byte stores,
// masked by M and N (whole chunks, as N % 8 == 0).
//
// Tile order: blocks are numbered along N within groups of GROUP_M tile rows
// (the grouped ordering of the Triton matmul tutorial), so the blocks that
// run together share rows of X and columns of W in L2.
//
// Registers: ~200 per thread (128 accumulators, 32 fragment registers), so
// 2 blocks (8 warps) per SM with 2 x 64 KiB of shared memory.
//
// @const BM=128
// @const BN=128
// @const BK=32
// @const STAGES=4
// @const GROUP_M=8
// @launch matmul_bias_relu grid=(cdiv(M, BM) * cdiv(N, BN)) block=(128) smem=(STAGES * (BM + BN) * BK * 2) args=(X, W, b, Y, M, N, K)

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
#define CPAD 8                            /* halves of padding per row of the output tile */

static_assert(BM == 2 * WM && BN == 2 * WN, "4 warps in a 2 x 2 grid");
static_assert(BK == 32, "the swizzle assumes 4 chunks per stage row");
static_assert(A_LOADS * THREADS == BM * CHUNKS && B_LOADS * THREADS == BN * CHUNKS,
              "every thread loads the same number of chunks");
static_assert(BM * (BN + CPAD) * 2 <= STAGES * STAGE_BYTES, "the output tile reuses the stages");

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
                 __half* __restrict__ Y, long long M, long long N, long long K)
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
    cp_async_wait<0>();
    __syncthreads(); /* every warp is done with the stages: reuse them for the output */

    // Epilogue: bias, ReLU, one rounding; thread (g, t) = (lane / 4, lane % 4) holds
    // rows g and g + 8, columns 2t and 2t + 1 of each 16 x 8 tile.
    __half* ctile = reinterpret_cast<__half*>(smem);
    const int g = lane >> 2, t = lane & 3;
#pragma unroll
    for (int j = 0; j < NT; j++) {
        const int col = wn * WN + j * 8 + 2 * t;
        float b0 = 0.0f, b1 = 0.0f;
        if (n0 + col < N) {
            const __half2 bb = *reinterpret_cast<const __half2*>(bias + n0 + col);
            b0 = __low2float(bb);
            b1 = __high2float(bb);
        }
#pragma unroll
        for (int i = 0; i < MT; i++) {
            const int row = wm * WM + i * 16 + g;
            *reinterpret_cast<__half2*>(ctile + row * (BN + CPAD) + col) =
                __floats2half2_rn(fmaxf(acc[i][j][0] + b0, 0.0f), fmaxf(acc[i][j][1] + b1, 0.0f));
            *reinterpret_cast<__half2*>(ctile + (row + 8) * (BN + CPAD) + col) =
                __floats2half2_rn(fmaxf(acc[i][j][2] + b0, 0.0f), fmaxf(acc[i][j][3] + b1, 0.0f));
        }
    }
    __syncthreads();
#pragma unroll
    for (int i = 0; i < BM * (BN / 8) / THREADS; i++) {
        const int id = tid + i * THREADS;
        const int row = id / (BN / 8), c = id % (BN / 8);
        const long long gr = m0 + row, gc = n0 + c * 8;
        if (gr < M && gc < N)
            *reinterpret_cast<uint4*>(Y + gr * N + gc) =
                *reinterpret_cast<const uint4*>(ctile + row * (BN + CPAD) + c * 8);
    }
}
