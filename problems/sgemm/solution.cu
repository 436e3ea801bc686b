// SGEMM, C = A B in exact fp32 (FFMA, no tensor cores): a register-blocked
// kernel in the style of the classic CUDA SGEMM tutorials.
//
// Each block computes a BM x BN = 128 x 64 tile of C with (BM/TM)*(BN/TN) =
// 128 threads; each thread accumulates a TM x TN = 8 x 8 sub-tile in
// registers, as 2 x 2 groups of 4 x 4 spread half a tile apart (rows
// ty*4 + {0..3} and ty*4 + BM/2 + {0..3}, likewise columns), so that every
// shared-memory read is a float4 and a warp's reads hit distinct banks or
// broadcast. The K dimension is walked in slabs of BK: A's BM x BK slab is
// stored transposed (As[k][m], rows padded by APAD so the transposing stores
// do not conflict) and B's BK x BN slab as is, so each of the BK steps reads
// 8 values of A and 8 of B and does 64 FFMAs. Shared memory is double
// buffered: the next slab's global loads are issued before the current
// slab's math and stored into the other buffer after it, with one
// __syncthreads per slab.
//
// Registers: 64 accumulators, the fragments of two steps and the next
// slab's 12 values come to about 155 per thread, so MIN_BLOCKS = 3 blocks
// (12 warps) share an SM without spilling; 128 x 128 tiles of 256 threads
// would need the same per thread and fit only one block per SM.
//
// Ragged shapes: global loads are float4 when the rows are 16-byte aligned
// (K % 4 == 0 for A, N % 4 == 0 for B) and scalar otherwise; anything past
// M, N or K is loaded as 0 (exact: 0*0 adds nothing), and stores are masked.
// Indices are 64-bit.
//
// @const BM=128
// @const BN=64
// @const BK=8
// @const TM=8
// @const TN=8
// @const MIN_BLOCKS=3
// @launch sgemm grid=(cdiv(N, BN), cdiv(M, BM)) block=((BM/TM)*(BN/TN)) args=(A, B, C, M, N, K)

#define THREADS ((BM / TM) * (BN / TN))
#define A_LOADS (BM * BK / 4 / THREADS) /* float4 chunks of the A slab per thread */
#define B_LOADS (BK * BN / 4 / THREADS) /* float4 chunks of the B slab per thread */
#define APAD 4                          /* keeps the transposed stores conflict-free */

static_assert(TM == 8 && TN == 8, "a thread tile is 2 x 2 groups of 4 x 4");
static_assert(BK % 4 == 0, "slabs are loaded in float4 chunks along K and N");
static_assert((BM * BK / 4) % THREADS == 0 && (BK * BN / 4) % THREADS == 0,
              "every thread loads the same number of chunks");
static_assert(A_LOADS >= 1 && B_LOADS >= 1, "too many threads for the slab");

extern "C" __global__ void __launch_bounds__(THREADS, MIN_BLOCKS)
sgemm(const float* __restrict__ A, const float* __restrict__ B, float* __restrict__ C,
      long long M, long long N, long long K)
{
    __shared__ __align__(16) float As[2][BK][BM + APAD];
    __shared__ __align__(16) float Bs[2][BK][BN];

    const int tid = threadIdx.x;
    const int tx = tid % (BN / TN), ty = tid / (BN / TN);
    const long long row0 = (long long)blockIdx.y * BM;
    const long long col0 = (long long)blockIdx.x * BN;
    const bool a_vec = (K & 3) == 0;
    const bool b_vec = (N & 3) == 0;

    // Each thread loads the same chunks of every slab: set up their source
    // pointers and masks once, then advance the pointers by one slab per step.
    const float* a_src[A_LOADS];
    const float* b_src[B_LOADS];
    bool a_row_ok[A_LOADS];
    int a_k[A_LOADS], b_k[B_LOADS], b_cols[B_LOADS];
#pragma unroll
    for (int i = 0; i < A_LOADS; i++) {
        const int chunk = tid + i * THREADS;
        const long long r = row0 + chunk / (BK / 4);
        a_k[i] = (chunk % (BK / 4)) * 4;
        a_row_ok[i] = r < M;
        a_src[i] = A + (a_row_ok[i] ? r : 0) * K + a_k[i];
    }
#pragma unroll
    for (int i = 0; i < B_LOADS; i++) {
        const int chunk = tid + i * THREADS;
        const long long c = col0 + (chunk % (BN / 4)) * 4;
        b_k[i] = chunk / (BN / 4);
        b_cols[i] = (int)max(0ll, min(4ll, N - c)); /* columns of this chunk inside C */
        b_src[i] = B + (long long)b_k[i] * N + (b_cols[i] > 0 ? c : 0);
    }
    const long long b_step = (long long)BK * N;

    float a_ld[A_LOADS][4], b_ld[B_LOADS][4];

    // Global -> registers: the next slab; k_left = K - (its first k).
    auto load_slab = [&](long long k_left) {
#pragma unroll
        for (int i = 0; i < A_LOADS; i++) {
            if (a_vec && a_row_ok[i] && a_k[i] < k_left) {
                const float4 q = *reinterpret_cast<const float4*>(a_src[i]);
                a_ld[i][0] = q.x;
                a_ld[i][1] = q.y;
                a_ld[i][2] = q.z;
                a_ld[i][3] = q.w;
            } else {
#pragma unroll
                for (int e = 0; e < 4; e++)
                    a_ld[i][e] = (a_row_ok[i] && a_k[i] + e < k_left) ? a_src[i][e] : 0.0f;
            }
            a_src[i] += BK;
        }
#pragma unroll
        for (int i = 0; i < B_LOADS; i++) {
            if (b_vec && b_k[i] < k_left && b_cols[i] == 4) {
                const float4 q = *reinterpret_cast<const float4*>(b_src[i]);
                b_ld[i][0] = q.x;
                b_ld[i][1] = q.y;
                b_ld[i][2] = q.z;
                b_ld[i][3] = q.w;
            } else {
#pragma unroll
                for (int e = 0; e < 4; e++)
                    b_ld[i][e] = (b_k[i] < k_left && e < b_cols[i]) ? b_src[i][e] : 0.0f;
            }
            b_src[i] += b_step;
        }
    };

    // Registers -> shared buffer s (A transposed).
    auto store_slab = [&](int s) {
#pragma unroll
        for (int i = 0; i < A_LOADS; i++) {
            const int chunk = tid + i * THREADS;
            const int m = chunk / (BK / 4), k = (chunk % (BK / 4)) * 4;
#pragma unroll
            for (int e = 0; e < 4; e++)
                As[s][k + e][m] = a_ld[i][e];
        }
#pragma unroll
        for (int i = 0; i < B_LOADS; i++) {
            const int chunk = tid + i * THREADS;
            const int k = chunk / (BN / 4), n = (chunk % (BN / 4)) * 4;
            *reinterpret_cast<float4*>(&Bs[s][k][n]) =
                make_float4(b_ld[i][0], b_ld[i][1], b_ld[i][2], b_ld[i][3]);
        }
    };

    float acc[TM][TN];
#pragma unroll
    for (int i = 0; i < TM; i++)
#pragma unroll
        for (int j = 0; j < TN; j++)
            acc[i][j] = 0.0f;

    load_slab(K);
    store_slab(0);
    __syncthreads();

    int s = 0;
    for (long long k0 = 0; k0 < K; k0 += BK) {
        const bool more = k0 + BK < K;
        if (more)
            load_slab(K - k0 - BK);
#pragma unroll
        for (int kk = 0; kk < BK; kk++) {
            float a[TM], b[TN];
            const float4 a0 = *reinterpret_cast<const float4*>(&As[s][kk][ty * 4]);
            const float4 a1 = *reinterpret_cast<const float4*>(&As[s][kk][ty * 4 + BM / 2]);
            const float4 b0 = *reinterpret_cast<const float4*>(&Bs[s][kk][tx * 4]);
            const float4 b1 = *reinterpret_cast<const float4*>(&Bs[s][kk][tx * 4 + BN / 2]);
            a[0] = a0.x, a[1] = a0.y, a[2] = a0.z, a[3] = a0.w;
            a[4] = a1.x, a[5] = a1.y, a[6] = a1.z, a[7] = a1.w;
            b[0] = b0.x, b[1] = b0.y, b[2] = b0.z, b[3] = b0.w;
            b[4] = b1.x, b[5] = b1.y, b[6] = b1.z, b[7] = b1.w;
#pragma unroll
            for (int i = 0; i < TM; i++)
#pragma unroll
                for (int j = 0; j < TN; j++)
                    acc[i][j] = fmaf(a[i], b[j], acc[i][j]);
        }
        if (more)
            store_slab(s ^ 1);
        __syncthreads();
        s ^= 1;
    }

#pragma unroll
    for (int i = 0; i < TM; i++) {
        const long long r = row0 + ty * 4 + (i & 3) + (i >> 2) * (BM / 2);
        if (r >= M)
            continue;
#pragma unroll
        for (int h = 0; h < 2; h++) {
            const long long c = col0 + tx * 4 + h * (BN / 2);
            float* dst = C + r * N + c;
            const float* v = &acc[i][h * 4];
            if (b_vec && c < N) {
                *reinterpret_cast<float4*>(dst) = make_float4(v[0], v[1], v[2], v[3]);
            } else {
#pragma unroll
                for (int e = 0; e < 4; e++)
                    if (c + e < N)
                        dst[e] = v[e];
            }
        }
    }
}
