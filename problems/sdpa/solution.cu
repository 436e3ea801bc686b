// Scaled dot-product attention, fused: the FlashAttention-2 structure of
// problem 30 (tensor cores through mma.sync m16n8k16 with fp32 accumulation,
// online softmax in registers, no score matrix in memory), for D = 16, 32,
// 64 or 128. Materialising S in scratch is allowed here, but a fused kernel
// moves only Q, K, V and O.
//
// A block of 4 warps owns BM = 64 query rows of one (b, h), 16 per warp, and
// walks the keys in tiles of BN = 64:
//   S = Q K^T   16 x 64 per warp: 8 n-tiles x D/16 k-steps of mma; Q's
//               fragments stay in registers for the whole block;
//   softmax     each thread holds two rows (g and g + 8 of its warp's 16)
//               and 16 scores of each; row maxima take two shuffles across
//               the quad of lanes that share a row; scores are kept in log2
//               units (s * scale * log2 e); when a row's maximum grows, its
//               O accumulators and partial sum are rescaled by
//               exp2(m_old - m_new);
//   O += P V    the accumulator layout of two adjacent n8 score tiles is the
//               A-operand layout of an m16n8k16 mma, so P is packed to fp16
//               pairs in registers; V comes through ldmatrix.trans.
// K and V tiles are double buffered in shared memory with cp.async, stored
// with 16-byte chunks XOR-swizzled by row so that ldmatrix reads 8 rows
// without bank conflicts. Rows and keys past Sq / Skv are zero-filled; keys
// past Skv and (causal) keys j > i get score -inf. With causal masking a
// block stops at its last row's diagonal, and blocks run from the last query
// tile to the first. Shared memory: 640 * D bytes.
//
// @const BM=64
// @const BN=64
// @launch sdpa grid=(cdiv(Sq, BM), B*H) block=(128) smem=(640*D) args=(Q, K, V, O, scale, causal, B, H, Sq, Skv, D)

#include <cuda_fp16.h>

#define WARPS 4
#define THREADS (32 * WARPS)

static_assert(BM == 16 * WARPS, "each warp owns 16 query rows");
static_assert(BN % 16 == 0, "keys are consumed 16 at a time");

// ---- PTX wrappers -----------------------------------------------------------

/* d += a * b: one warp-wide m16n8k16 product, fp16 inputs, fp32 accumulators. */
__device__ __forceinline__ void mma_m16n8k16(float (&d)[4], const unsigned (&a)[4],
                                             const unsigned (&b)[2])
{
    asm("mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 {%0,%1,%2,%3}, {%4,%5,%6,%7}, "
        "{%8,%9}, {%0,%1,%2,%3};\n"
        : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3])
        : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b[0]), "r"(b[1]));
}

/* Four 8x8 fp16 matrices from shared memory; lane l gives row l % 8 of matrix l / 8. */
__device__ __forceinline__ void ldmatrix_x4(unsigned (&r)[4], const void* p)
{
    const unsigned a = (unsigned)__cvta_generic_to_shared(p);
    asm volatile("ldmatrix.sync.aligned.m8n8.x4.shared.b16 {%0,%1,%2,%3}, [%4];\n"
                 : "=r"(r[0]), "=r"(r[1]), "=r"(r[2]), "=r"(r[3])
                 : "r"(a));
}

/* The same, each matrix transposed. */
__device__ __forceinline__ void ldmatrix_x4_trans(unsigned (&r)[4], const void* p)
{
    const unsigned a = (unsigned)__cvta_generic_to_shared(p);
    asm volatile("ldmatrix.sync.aligned.m8n8.x4.trans.shared.b16 {%0,%1,%2,%3}, [%4];\n"
                 : "=r"(r[0]), "=r"(r[1]), "=r"(r[2]), "=r"(r[3])
                 : "r"(a));
}

/* Copies 16 bytes global -> shared without the registers; bytes past
 * src_bytes (0 or 16) are zero-filled. */
__device__ __forceinline__ void cp_async_16(void* dst, const void* src, int src_bytes)
{
    const unsigned d = (unsigned)__cvta_generic_to_shared(dst);
    asm volatile("cp.async.cg.shared.global [%0], [%1], 16, %2;\n" ::"r"(d), "l"(src),
                 "r"(src_bytes));
}

__device__ __forceinline__ void cp_async_commit()
{
    asm volatile("cp.async.commit_group;\n" ::);
}

/* Waits until at most N of this thread's committed groups are still in flight. */
template <int N> __device__ __forceinline__ void cp_async_wait()
{
    asm volatile("cp.async.wait_group %0;\n" ::"n"(N));
}

// ---- tiles ------------------------------------------------------------------

/* Byte offset of 16-byte chunk c of row r in a tile of D fp16 per row. The
 * chunk index is XORed with bits of the row so that the 8 rows an ldmatrix
 * reads at one logical chunk sit in 8 different 16-byte bank groups: rows of
 * 128 bytes or more use row % 8; shorter rows (D = 16, 32), of which 128 / (2D)
 * share a 128-byte line, use the line index within 8 rows. */
template <int D> __device__ __forceinline__ int swizzle(int r, int c)
{
    constexpr int CPR = D / 8;                   /* chunks per row */
    constexpr int PER_LINE = CPR >= 8 ? 1 : 8 / CPR; /* rows per 128-byte line */
    constexpr int MASK = (CPR >= 8 ? 8 : CPR) - 1;
    return r * (D * 2) + ((c ^ ((r / PER_LINE) & MASK)) << 4);
}

/* Starts copying rows row0 .. row0 + ROWS - 1 of a [rows][D] fp16 matrix into
 * a tile; rows at or past `rows` are zero-filled. */
template <int D, int ROWS>
__device__ __forceinline__ void load_tile(unsigned char* tile, const __half* src, long long row0,
                                          long long rows)
{
    constexpr int CPR = D / 8; /* 16-byte chunks per row */
#pragma unroll
    for (int k = 0; k < ROWS * CPR / THREADS; k++) {
        const int idx = k * THREADS + (int)threadIdx.x;
        const int r = idx / CPR, c = idx % CPR;
        const bool ok = row0 + r < rows;
        const __half* g = ok ? src + (row0 + r) * D + c * 8 : src;
        cp_async_16(tile + swizzle<D>(r, c), g, ok ? 16 : 0);
    }
}

__device__ __forceinline__ unsigned pack_half2(float lo, float hi)
{
    __half2 h = __floats2half2_rn(lo, hi);
    return *reinterpret_cast<unsigned*>(&h);
}

// ---- the block --------------------------------------------------------------

template <int D>
__device__ __forceinline__ void attention_block(const __half* __restrict__ Q,
                                                const __half* __restrict__ K,
                                                const __half* __restrict__ V,
                                                __half* __restrict__ O, float scale, int causal, long long Sq,
                                                long long Skv, unsigned char* smem)
{
    constexpr int KSTEPS = D / 16; /* k-steps of Q K^T */
    constexpr int DT = D / 8;      /* n8 tiles of O */
    constexpr int NT = BN / 8;     /* n8 tiles of S */
    constexpr int TILE = BN * D * 2;
    static_assert(BM * (D / 8) % THREADS == 0 && BN * (D / 8) % THREADS == 0,
                  "tiles split evenly over the threads");
    const float neg_inf = __int_as_float(0xff800000);

    unsigned char* sQ = smem;
    unsigned char* sK = smem + BM * D * 2; /* stage s at sK + s * TILE */
    unsigned char* sV = sK + 2 * TILE;
    const int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
    const int g = lane / 4, t4 = lane % 4;

    const long long bh = blockIdx.y;
    const long long m0 = (long long)(gridDim.x - 1 - blockIdx.x) * BM;
    const __half* Qh = Q + bh * Sq * D;
    const __half* Kh = K + bh * Skv * D;
    const __half* Vh = V + bh * Skv * D;
    const float sl2 = scale * 1.4426950408889634f; /* scores in log2 units */
    const long long kv_end = causal ? min(Skv, m0 + BM) : Skv;
    const int n_tiles = (int)((kv_end + BN - 1) / BN);
    const long long rows[2] = {m0 + warp * 16 + g, m0 + warp * 16 + g + 8};

    load_tile<D, BM>(sQ, Qh, m0, Sq);
    load_tile<D, BN>(sK, Kh, 0, Skv);
    load_tile<D, BN>(sV, Vh, 0, Skv);
    cp_async_commit();

    unsigned qf[KSTEPS][4];
    float o[DT][4];
#pragma unroll
    for (int dt = 0; dt < DT; dt++)
        o[dt][0] = o[dt][1] = o[dt][2] = o[dt][3] = 0.0f;
    float m_run[2] = {neg_inf, neg_inf}, l_run[2] = {0.0f, 0.0f};

    for (int j = 0; j < n_tiles; j++) {
        const int st = j & 1;
        if (j + 1 < n_tiles) {
            load_tile<D, BN>(sK + (st ^ 1) * TILE, Kh, (long long)(j + 1) * BN, Skv);
            load_tile<D, BN>(sV + (st ^ 1) * TILE, Vh, (long long)(j + 1) * BN, Skv);
        }
        cp_async_commit(); /* possibly empty: keeps the group count uniform */
        cp_async_wait<1>(); /* this thread's copies of tile j (and Q) are done */
        __syncthreads();    /* ... and everyone else's */
        if (j == 0) {
#pragma unroll
            for (int kk = 0; kk < KSTEPS; kk++)
                ldmatrix_x4(qf[kk], sQ + swizzle<D>(warp * 16 + lane % 16, 2 * kk + lane / 16));
        }

        /* S = Q K^T for this warp's 16 rows and the tile's 64 keys. */
        const unsigned char* kt = sK + st * TILE;
        float s[NT][4];
#pragma unroll
        for (int nt = 0; nt < NT; nt++)
            s[nt][0] = s[nt][1] = s[nt][2] = s[nt][3] = 0.0f;
#pragma unroll
        for (int kk = 0; kk < KSTEPS; kk++) {
#pragma unroll
            for (int p = 0; p < NT / 2; p++) {
                unsigned kb[4];
                ldmatrix_x4(kb, kt + swizzle<D>(16 * p + lane % 8 + 8 * (lane / 16),
                                                2 * kk + (lane / 8) % 2));
                const unsigned b0[2] = {kb[0], kb[1]}, b1[2] = {kb[2], kb[3]};
                mma_m16n8k16(s[2 * p], qf[kk], b0);
                mma_m16n8k16(s[2 * p + 1], qf[kk], b1);
            }
        }

        /* Masks: keys past Skv, and keys after the query when causal. */
        const long long n0 = (long long)j * BN;
        if (n0 + BN > Skv || (causal && n0 + BN - 1 > m0)) {
#pragma unroll
            for (int nt = 0; nt < NT; nt++)
#pragma unroll
                for (int e = 0; e < 4; e++) {
                    const long long key = n0 + nt * 8 + 2 * t4 + (e & 1);
                    if (key >= Skv || (causal && key > rows[e >> 1]))
                        s[nt][e] = neg_inf;
                }
        }

        /* Online softmax, rows g (e = 0, 1) and g + 8 (e = 2, 3). */
#pragma unroll
        for (int r = 0; r < 2; r++) {
            float mx = neg_inf;
#pragma unroll
            for (int nt = 0; nt < NT; nt++)
                mx = fmaxf(mx, fmaxf(s[nt][2 * r], s[nt][2 * r + 1]));
            mx = fmaxf(mx, __shfl_xor_sync(0xffffffffu, mx, 1));
            mx = fmaxf(mx, __shfl_xor_sync(0xffffffffu, mx, 2));
            const float m_new = fmaxf(m_run[r], mx * sl2);
            const float m_use = m_new == neg_inf ? 0.0f : m_new; /* no -inf - -inf */
            const float alpha = exp2f(m_run[r] - m_use);
            m_run[r] = m_new;
            l_run[r] *= alpha;
#pragma unroll
            for (int dt = 0; dt < DT; dt++) {
                o[dt][2 * r] *= alpha;
                o[dt][2 * r + 1] *= alpha;
            }
#pragma unroll
            for (int nt = 0; nt < NT; nt++) {
                s[nt][2 * r] = exp2f(fmaf(s[nt][2 * r], sl2, -m_use));
                s[nt][2 * r + 1] = exp2f(fmaf(s[nt][2 * r + 1], sl2, -m_use));
                l_run[r] += s[nt][2 * r] + s[nt][2 * r + 1];
            }
        }

        /* O += P V, P straight from the score registers. */
        const unsigned char* vt = sV + st * TILE;
#pragma unroll
        for (int kk = 0; kk < BN / 16; kk++) {
            const unsigned pa[4] = {pack_half2(s[2 * kk][0], s[2 * kk][1]),
                                    pack_half2(s[2 * kk][2], s[2 * kk][3]),
                                    pack_half2(s[2 * kk + 1][0], s[2 * kk + 1][1]),
                                    pack_half2(s[2 * kk + 1][2], s[2 * kk + 1][3])};
#pragma unroll
            for (int dp = 0; dp < DT / 2; dp++) {
                unsigned vb[4];
                ldmatrix_x4_trans(vb, vt + swizzle<D>(16 * kk + lane % 8 + 8 * ((lane / 8) % 2),
                                                      2 * dp + lane / 16));
                const unsigned b0[2] = {vb[0], vb[1]}, b1[2] = {vb[2], vb[3]};
                mma_m16n8k16(o[2 * dp], pa, b0);
                mma_m16n8k16(o[2 * dp + 1], pa, b1);
            }
        }
        __syncthreads(); /* stage st is overwritten by the next iteration's loads */
    }

    /* O = acc / l, for the valid rows. */
#pragma unroll
    for (int r = 0; r < 2; r++) {
        float l = l_run[r];
        l += __shfl_xor_sync(0xffffffffu, l, 1);
        l += __shfl_xor_sync(0xffffffffu, l, 2);
        if (rows[r] >= Sq)
            continue;
        const float inv = 1.0f / l;
        __half* orow = O + (bh * Sq + rows[r]) * D;
#pragma unroll
        for (int dt = 0; dt < DT; dt++)
            *reinterpret_cast<__half2*>(orow + dt * 8 + 2 * t4) =
                __floats2half2_rn(o[dt][2 * r] * inv, o[dt][2 * r + 1] * inv);
    }
}

extern "C" __global__ void __launch_bounds__(THREADS, 2)
sdpa(const __half* __restrict__ Q, const __half* __restrict__ K, const __half* __restrict__ V,
     __half* __restrict__ O, float scale, int causal, long long B, long long H, long long Sq,
     long long Skv, long long D)
{
    extern __shared__ __align__(128) unsigned char smem[];
    if (D == 16)
        attention_block<16>(Q, K, V, O, scale, causal, Sq, Skv, smem);
    else if (D == 32)
        attention_block<32>(Q, K, V, O, scale, causal, Sq, Skv, smem);
    else if (D == 64)
        attention_block<64>(Q, K, V, O, scale, causal, Sq, Skv, smem);
    else
        attention_block<128>(Q, K, V, O, scale, causal, Sq, Skv, smem);
}
