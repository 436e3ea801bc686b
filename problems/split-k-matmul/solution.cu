// Split-K matmul: C = A B with fp16 inputs, fp32 accumulation and an fp32
// output, for shapes with few output tiles and a long K.
//
// With 128 x 128 tiles, (256, 256, 524288) has 4 tiles: one block per tile
// would keep 4 of 132 SMs busy, each streaming 0.5 GB / 4 alone. Split-K
// gives each tile SPLIT_K blocks (grid z), block z taking the K range
// [z * chunk, min(K, (z + 1) * chunk)), chunk = cdiv(K, SPLIT_K) rounded up
// to the 32-wide slab (so the ranges are unequal when SPLIT_K does not
// divide K, and trailing ones may be empty). Each block writes its fp32
// partial tile to the scratch buffer `partial` (SPLIT_K slices of M x N; an
// empty range writes zeros); a second launch adds the slices in a fixed
// order, 4 floats per thread, so the result is deterministic.
//
// The tile kernel is problem 21's (mma.sync m16n8k16 with fp32 accumulators,
// ldmatrix from XOR-swizzled shared memory, a 4-stage cp.async pipeline)
// with BN = 128 (2 x 2 warps) and BM = 64 or 128. @tune picks, per shape,
// the split count and BM: (64, 4096, 65536) has 32 tiles of 64 x 128 and
// wants 8 splits; (128, 128, 2^20) has one 128 x 128 tile and wants 256.
// N and K are multiples of 8; M is arbitrary.
//
// @tune SPLIT_K=(7, 16, 64, 256)
// @tune BM=(64, 128)
// @const BN=128
// @const BK=32
// @const STAGES=4
// @scratch partial fp32[SPLIT_K * M * N]
// @launch matmul_split grid=(cdiv(N, BN), cdiv(M, BM), SPLIT_K) block=(BN) smem=(STAGES * (BM + BN) * BK * 2) args=(A, B, partial, M, N, K)
// @launch reduce_splits grid=(cdiv(M * N / 4, 256)) block=(256) args=(partial, C, M, N)

#include <cuda_fp16.h>

#define WARPS_N  (BN / 64)
#define THREADS  (64 * WARPS_N) /* 2 x WARPS_N warps: equals BN */
#define WM       (BM / 2)       /* warp tile rows */
#define WN       64             /* warp tile columns */
#define MI       (WM / 16)      /* m16 tiles per warp */
#define NI       (WN / 8)       /* n8 tiles per warp */
#define A_STAGE  (BM * BK)      /* halves per A slab */
#define B_STAGE  (BK * BN)      /* halves per B slab */
#define A_COPIES (BM * BK / 8 / THREADS)
#define B_COPIES (BK * BN / 8 / THREADS)

static_assert(BK == 32, "the A swizzle assumes 64-byte rows");
static_assert(BN % 64 == 0 && BN >= 64, "BN must be a multiple of 64");
static_assert(BM % 32 == 0, "BM must be a multiple of 32");
static_assert(A_COPIES * THREADS * 8 == BM * BK && A_COPIES >= 1, "A slab copies");
static_assert(B_COPIES * THREADS * 8 == BK * BN && B_COPIES >= 1, "B slab copies");

// ---- PTX wrappers: cp.async, ldmatrix, mma.sync (tests/cuemu emulates this section) ----
__device__ __forceinline__ unsigned smem_u32(const void *p)
{
    return (unsigned)__cvta_generic_to_shared(p);
}

// 16 bytes global -> shared; only src_bytes are read, the rest is zero-filled.
__device__ __forceinline__ void cp_async_16(void *smem, const void *gmem, int src_bytes)
{
    asm volatile("cp.async.cg.shared.global [%0], [%1], 16, %2;\n" ::"r"(smem_u32(smem)), "l"(gmem),
                 "r"(src_bytes)
                 : "memory");
}

__device__ __forceinline__ void cp_async_commit()
{
    asm volatile("cp.async.commit_group;\n" ::: "memory");
}

// Waits until at most N of this thread's committed groups are in flight.
template <int N> __device__ __forceinline__ void cp_async_wait()
{
    asm volatile("cp.async.wait_group %0;\n" ::"n"(N) : "memory");
}

__device__ __forceinline__ void ldsm_x4(unsigned r[4], const void *row)
{
    asm volatile("ldmatrix.sync.aligned.m8n8.x4.shared.b16 {%0, %1, %2, %3}, [%4];\n"
                 : "=r"(r[0]), "=r"(r[1]), "=r"(r[2]), "=r"(r[3])
                 : "r"(smem_u32(row)));
}

__device__ __forceinline__ void ldsm_x4_t(unsigned r[4], const void *row)
{
    asm volatile("ldmatrix.sync.aligned.m8n8.x4.trans.shared.b16 {%0, %1, %2, %3}, [%4];\n"
                 : "=r"(r[0]), "=r"(r[1]), "=r"(r[2]), "=r"(r[3])
                 : "r"(smem_u32(row)));
}

// c += a b for one 16 x 8 x 16 tile: a is 16 x 16 (row), b 16 x 8 (col).
__device__ __forceinline__ void mma_16816(float c[4], const unsigned a[4], const unsigned b[2])
{
    asm volatile("mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 "
                 "{%0, %1, %2, %3}, {%4, %5, %6, %7}, {%8, %9}, {%0, %1, %2, %3};\n"
                 : "+f"(c[0]), "+f"(c[1]), "+f"(c[2]), "+f"(c[3])
                 : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b[0]), "r"(b[1]));
}
// ---- end of PTX wrappers ----

// Offsets (in halves) of chunk c of row r in an A slab and of row k in a B slab.
__device__ __forceinline__ int a_off(int r, int c)
{
    return r * BK + ((c ^ ((r >> 1) & 3)) << 3);
}

__device__ __forceinline__ int b_off(int k, int c)
{
    return k * BN + ((c ^ (k & 7)) << 3);
}

extern "C" __global__ void __launch_bounds__(THREADS)
    matmul_split(const __half *__restrict__ A, const __half *__restrict__ B,
                 float *__restrict__ partial, long long M, long long N, long long K)
{
    extern __shared__ __align__(128) unsigned char smem[];
    __half *As = reinterpret_cast<__half *>(smem);
    __half *Bs = As + STAGES * A_STAGE;

    const long long m0 = (long long)blockIdx.y * BM, n0 = (long long)blockIdx.x * BN;
    // This block's K range: chunk is a whole number of slabs.
    const long long chunk = ((K + SPLIT_K - 1) / SPLIT_K + BK - 1) / BK * BK;
    const long long k_begin = min((long long)blockIdx.z * chunk, K);
    const long long k_end = min(k_begin + chunk, K);
    float *__restrict__ out = partial + (long long)blockIdx.z * M * N;

    const int tid = threadIdx.x, lane = tid & 31, warp = tid >> 5;
    const int wm0 = (warp / WARPS_N) * WM, wn0 = (warp % WARPS_N) * WN;

    // Each thread copies the same chunks of every slab: A row r, chunk c
    // (8 halves along k) and B row k, chunk c (8 halves along n). Their
    // sources advance by one slab per step; rows past M and columns past N
    // stay zero, and so do k >= k_end (whole chunks, since K % 8 == 0).
    const __half *a_src[A_COPIES];
    const __half *b_src[B_COPIES];
    int a_dst[A_COPIES], b_dst[B_COPIES], a_k[A_COPIES], b_k[B_COPIES];
    bool a_ok[A_COPIES], b_ok[B_COPIES];
#pragma unroll
    for (int i = 0; i < A_COPIES; i++) {
        const int q = tid + i * THREADS, r = q >> 2, c = q & 3;
        a_ok[i] = m0 + r < M;
        a_k[i] = c * 8;
        a_src[i] = A + (a_ok[i] ? (m0 + r) * K + c * 8 : 0);
        a_dst[i] = a_off(r, c);
    }
#pragma unroll
    for (int i = 0; i < B_COPIES; i++) {
        const int q = tid + i * THREADS, k = q / (BN / 8), c = q % (BN / 8);
        b_ok[i] = n0 + c * 8 < N;
        b_k[i] = k;
        b_src[i] = B + (b_ok[i] ? k * N + n0 + c * 8 : 0);
        b_dst[i] = b_off(k, c);
    }

    // Issues the copies of slab kt of this block's range into stage s.
    auto load_slab = [&](int s, long long kt) {
        const long long k0 = k_begin + kt * BK;
        __half *as = As + s * A_STAGE;
        __half *bs = Bs + s * B_STAGE;
#pragma unroll
        for (int i = 0; i < A_COPIES; i++) {
            const bool ok = a_ok[i] && k0 + a_k[i] < k_end;
            cp_async_16(as + a_dst[i], ok ? a_src[i] + k0 : A, ok ? 16 : 0);
        }
#pragma unroll
        for (int i = 0; i < B_COPIES; i++) {
            const bool ok = b_ok[i] && k0 + b_k[i] < k_end;
            cp_async_16(bs + b_dst[i], ok ? b_src[i] + k0 * N : B, ok ? 16 : 0);
        }
    };

    float acc[MI][NI][4];
#pragma unroll
    for (int i = 0; i < MI; i++)
#pragma unroll
        for (int j = 0; j < NI; j++)
#pragma unroll
            for (int e = 0; e < 4; e++)
                acc[i][j][e] = 0.0f;

    const long long k_tiles = (k_end - k_begin + BK - 1) / BK; /* 0 for an empty range */
    // Prologue: slabs 0 .. STAGES-2 in flight, one commit group each (empty
    // groups past the end keep the count uniform).
#pragma unroll
    for (int s = 0; s < STAGES - 1; s++) {
        if (s < k_tiles)
            load_slab(s, s);
        cp_async_commit();
    }

    for (long long kt = 0; kt < k_tiles; kt++) {
        cp_async_wait<STAGES - 2>(); // this thread's copies of slab kt have landed
        __syncthreads();             // everyone's have; and slab kt-1 is no longer read
        const long long next = kt + STAGES - 1;
        if (next < k_tiles)
            load_slab((int)(next % STAGES), next);
        cp_async_commit();

        const __half *as = As + (int)(kt % STAGES) * A_STAGE;
        const __half *bs = Bs + (int)(kt % STAGES) * B_STAGE;
#pragma unroll
        for (int kk = 0; kk < BK; kk += 16) {
            unsigned af[MI][4], bf[NI][2];
#pragma unroll
            for (int i = 0; i < MI; i++) {
                // lanes 0-15: rows 0-15 at k chunk kk/8; lanes 16-31: the next chunk
                const int r = wm0 + i * 16 + (lane & 15);
                ldsm_x4(af[i], as + a_off(r, (kk >> 3) + (lane >> 4)));
            }
#pragma unroll
            for (int j = 0; j < NI; j += 2) {
                // matrices: (k 0-7, n 0-7), (k 8-15, n 0-7), (k 0-7, n 8-15), (k 8-15, n 8-15)
                const int k = kk + (lane & 7) + ((lane >> 3) & 1) * 8;
                unsigned r4[4];
                ldsm_x4_t(r4, bs + b_off(k, ((wn0 + j * 8) >> 3) + (lane >> 4)));
                bf[j][0] = r4[0];
                bf[j][1] = r4[1];
                bf[j + 1][0] = r4[2];
                bf[j + 1][1] = r4[3];
            }
#pragma unroll
            for (int i = 0; i < MI; i++)
#pragma unroll
                for (int j = 0; j < NI; j++)
                    mma_16816(acc[i][j], af[i], bf[j]);
        }
    }
    cp_async_wait<0>();

    // Accumulator (i, j): rows g and g + 8, columns 2t and 2t + 1 of its 16 x 8 tile.
    const int g = lane >> 2, t = lane & 3;
#pragma unroll
    for (int i = 0; i < MI; i++)
#pragma unroll
        for (int j = 0; j < NI; j++) {
            const long long col = n0 + wn0 + j * 8 + 2 * t;
#pragma unroll
            for (int h = 0; h < 2; h++) {
                const long long row = m0 + wm0 + i * 16 + g + 8 * h;
                if (row < M && col < N)
                    *reinterpret_cast<float2 *>(out + row * N + col) =
                        make_float2(acc[i][j][2 * h], acc[i][j][2 * h + 1]);
            }
        }
}

// C = the sum of the SPLIT_K partial slices, in slice order; M * N is a
// multiple of 4 (N % 8 == 0), so each thread adds float4s.
extern "C" __global__ void __launch_bounds__(256)
    reduce_splits(const float *__restrict__ partial, float *__restrict__ C, long long M,
                  long long N)
{
    const long long n4 = M * N / 4;
    const long long i = (long long)blockIdx.x * 256 + threadIdx.x;
    if (i >= n4)
        return;
    const float4 *p = reinterpret_cast<const float4 *>(partial) + i;
    float4 s = p[0];
    for (int z = 1; z < SPLIT_K; z++) {
        const float4 v = p[(long long)z * n4];
        s.x += v.x;
        s.y += v.y;
        s.z += v.z;
        s.w += v.w;
    }
    reinterpret_cast<float4 *>(C)[i] = s;
}
