// Block-pointer (strided) matmul: C = A B over strided views, on the tensor
// cores (mma.sync m16n8k16, fp32 accumulation).
//
// What Triton's tl.make_block_ptr(base, shape, strides, offsets, block_shape,
// order) describes, spelled out: every BM x BK tile of A and BK x BN tile of B
// is fetched as 16-byte chunks of 8 elements running along the operand's
// contiguous dimension (the one whose stride is 1), into a shared-memory tile
// kept in that same orientation, and the fragments are read with ldmatrix
// with or without .trans to suit it:
//   A k-contiguous (row-major): tile [BM][BK], ldmatrix       -> A fragment
//   A m-contiguous (col-major): tile [BK][BM], ldmatrix.trans -> A fragment
//   B n-contiguous (row-major): tile [BK][BN], ldmatrix.trans -> B fragment
//   B k-contiguous (col-major): tile [BN][BK], ldmatrix       -> B fragment
// The four combinations are four instantiations of one template; the kernel
// picks one from the strides (uniform across the grid). Tiles with 64-byte
// rows ([.][BK]) store chunk c of row r at c ^ ((r >> 1) & 3), tiles with
// 256-byte rows ([BK][.]) at c ^ (r & 7): the eight rows of an ldmatrix phase
// hit distinct banks.
//
// A chunk is copied with cp.async when it lies wholly inside the view and its
// address is 16-byte aligned, which holds for every chunk when the offset and
// the other stride are multiples of 8 (the benchmark layouts); a chunk past
// the view's edge is zero-filled by cp.async; anything else (the ragged edge,
// unaligned offsets or leading dimensions, views with no unit stride) is
// gathered element by element, "boundary_check" style. C is written element
// by element through its strides (pairs as __half2 when that is aligned), so
// the elements of C's buffer outside the view are never touched.
//
// Tiles: 128 x 128 x 32, 4 warps of 64 x 64, 4 stages; one block per tile on
// a 2-D grid. Any sizes >= 1, strides >= 0 (no two elements of C's view at one
// address); 64-bit indices.
//
// @const BM=128
// @const BN=128
// @const BK=32
// @const STAGES=4
// @launch matmul grid=(cdiv(N, BN), cdiv(M, BM)) block=(128) smem=(STAGES * (BM + BN) * BK * 2) \
//     args=(A, B, C, M, N, K, offA, sAm, sAk, offB, sBk, sBn, offC, sCm, sCn)

#include <cuda_fp16.h>

#define THREADS 128
#define WM      64 /* warp tile */
#define WN      64
#define MI      (WM / 16)
#define NI      (WN / 8)
#define A_STAGE (BM * BK) /* halves per A tile */
#define B_STAGE (BK * BN)

static_assert(BM == 128 && BN == 128 && BK == 32, "the swizzles and copy counts assume these");

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

// Offsets (halves) of chunk c of row r: in a tile of 64-byte rows (32 halves)
// and in a tile of 256-byte rows (128 halves).
__device__ __forceinline__ int narrow_off(int r, int c)
{
    return r * 32 + ((c ^ ((r >> 1) & 3)) << 3);
}

__device__ __forceinline__ int wide_off(int r, int c)
{
    return r * 128 + ((c ^ (r & 7)) << 3);
}

// One operand as a view: element (p, q) at X[off + p * sp + q * sq], where q
// is the dimension that runs along the 16-byte chunks (the contiguous one if
// there is one) and p the other; P x Q in all.
struct view {
    const __half *x;
    long long off, sp, sq, P, Q;
    bool vec; /* sq == 1 and every chunk start 16-byte aligned */
};

__device__ __forceinline__ view make_view(const __half *x, long long off, long long sp,
                                          long long sq, long long P, long long Q)
{
    view v = {x, off, sp, sq, P, Q, false};
    v.vec = sq == 1 && off % 8 == 0 && (sp % 8 == 0 || P == 1);
    return v;
}

// The slow path of load_chunk, kept out of line: gathers the chunk element
// by element (zeros past the view's edge) and stores it with one 16-byte store.
__device__ __noinline__ void gather_chunk(__half *dst, const __half *row, long long sq, long long n)
{
    __align__(16) __half h[8];
#pragma unroll
    for (int e = 0; e < 8; e++)
        h[e] = e < n ? row[e * sq] : __float2half_rn(0.0f);
    *reinterpret_cast<uint4 *>(dst) = *reinterpret_cast<const uint4 *>(h);
}

// Copies the chunk of 8 elements (p, q0 .. q0 + 7) of a view into dst.
__device__ __forceinline__ void load_chunk(__half *dst, const view &v, long long p, long long q0)
{
    if (p >= v.P || q0 >= v.Q)
        cp_async_16(dst, v.x, 0); /* outside the view: zeros */
    else if (v.vec && q0 + 8 <= v.Q)
        cp_async_16(dst, v.x + v.off + p * v.sp + q0, 16);
    else
        gather_chunk(dst, v.x + v.off + p * v.sp + q0 * v.sq, v.sq, v.Q - q0);
}

// The tile kernel for one orientation of A (A_K: k contiguous) and of B (B_N:
// n contiguous). av/bv are the views with q along the chunks.
template <bool A_K, bool B_N>
__device__ __forceinline__ void matmul_tiles(const view &av, const view &bv, __half *C, long long M,
                                             long long N, long long K, long long offC,
                                             long long sCm, long long sCn, __half *As, __half *Bs)
{
    const int tid = threadIdx.x, lane = tid & 31, warp = tid >> 5;
    const int wm0 = (warp >> 1) * WM, wn0 = (warp & 1) * WN;
    const long long m0 = (long long)blockIdx.y * BM, n0 = (long long)blockIdx.x * BN;

    // 512 chunks per tile, 4 per thread. A narrow tile [128][32] has 4 chunks
    // a row, a wide tile [32][128] has 16.
    auto load_slab = [&](int s, long long kt) {
        const long long k0 = kt * BK;
        __half *as = As + s * A_STAGE;
        __half *bs = Bs + s * B_STAGE;
#pragma unroll
        for (int i = 0; i < 4; i++) {
            const int q = tid + i * THREADS;
            if (A_K) /* rows m, chunks along k */
                load_chunk(as + narrow_off(q >> 2, q & 3), av, m0 + (q >> 2), k0 + (q & 3) * 8);
            else /* rows k, chunks along m */
                load_chunk(as + wide_off(q >> 4, q & 15), av, k0 + (q >> 4), m0 + (q & 15) * 8);
            if (B_N) /* rows k, chunks along n */
                load_chunk(bs + wide_off(q >> 4, q & 15), bv, k0 + (q >> 4), n0 + (q & 15) * 8);
            else /* rows n, chunks along k */
                load_chunk(bs + narrow_off(q >> 2, q & 3), bv, n0 + (q >> 2), k0 + (q & 3) * 8);
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

    const long long k_tiles = (K + BK - 1) / BK;
#pragma unroll
    for (int s = 0; s < STAGES - 1; s++) {
        if (s < k_tiles)
            load_slab(s, s);
        cp_async_commit();
    }

    for (long long kt = 0; kt < k_tiles; kt++) {
        cp_async_wait<STAGES - 2>(); // this thread's copies of slab kt have landed
        __syncthreads();             // everyone's have (and their plain stores); slab kt-1 is free
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
                // matrices (m 0-7, k 0-7), (m 8-15, k 0-7), (m 0-7, k 8-15), (m 8-15, k 8-15)
                if (A_K)
                    ldsm_x4(af[i],
                            as + narrow_off(wm0 + i * 16 + (lane & 15), (kk >> 3) + (lane >> 4)));
                else
                    ldsm_x4_t(af[i], as + wide_off(kk + (lane & 7) + ((lane >> 4) << 3),
                                                   ((wm0 + i * 16) >> 3) + ((lane >> 3) & 1)));
            }
#pragma unroll
            for (int j = 0; j < NI; j += 2) {
                // matrices (k 0-7, n 0-7), (k 8-15, n 0-7), (k 0-7, n 8-15), (k 8-15, n 8-15)
                unsigned r4[4];
                if (B_N)
                    ldsm_x4_t(r4, bs + wide_off(kk + (lane & 7) + ((lane >> 3) & 1) * 8,
                                                ((wn0 + j * 8) >> 3) + (lane >> 4)));
                else
                    ldsm_x4(r4, bs + narrow_off(wn0 + j * 8 + (lane & 7) + ((lane >> 4) << 3),
                                                (kk >> 3) + ((lane >> 3) & 1)));
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
    const bool pairs = sCn == 1 && offC % 2 == 0 && sCm % 2 == 0;
#pragma unroll
    for (int i = 0; i < MI; i++)
#pragma unroll
        for (int j = 0; j < NI; j++) {
            const long long col = n0 + wn0 + j * 8 + 2 * t;
#pragma unroll
            for (int h = 0; h < 2; h++) {
                const long long row = m0 + wm0 + i * 16 + g + 8 * h;
                if (row >= M || col >= N)
                    continue;
                __half *dst = C + offC + row * sCm + col * sCn;
                const float lo = acc[i][j][2 * h], hi = acc[i][j][2 * h + 1];
                if (pairs && col + 1 < N) {
                    *reinterpret_cast<__half2 *>(dst) = __floats2half2_rn(lo, hi);
                } else {
                    dst[0] = __float2half_rn(lo);
                    if (col + 1 < N)
                        dst[sCn] = __float2half_rn(hi);
                }
            }
        }
}

extern "C" __global__ void __launch_bounds__(THREADS)
    matmul(const __half *__restrict__ A, const __half *__restrict__ B, __half *__restrict__ C,
           long long M, long long N, long long K, long long offA, long long sAm, long long sAk,
           long long offB, long long sBk, long long sBn, long long offC, long long sCm,
           long long sCn)
{
    extern __shared__ __align__(128) unsigned char smem[];
    __half *As = reinterpret_cast<__half *>(smem);
    __half *Bs = As + STAGES * A_STAGE;

    // A is stored m-contiguous only when its m stride is 1 and its k stride
    // is not; B k-contiguous likewise. Otherwise the chunks run along k (A)
    // and n (B), gathered element by element if that stride is not 1.
    const bool a_k = !(sAm == 1 && sAk != 1);
    const bool b_n = !(sBk == 1 && sBn != 1);
    const view av = a_k ? make_view(A, offA, sAm, sAk, M, K) : make_view(A, offA, sAk, sAm, K, M);
    const view bv = b_n ? make_view(B, offB, sBk, sBn, K, N) : make_view(B, offB, sBn, sBk, N, K);
    if (a_k && b_n)
        matmul_tiles<true, true>(av, bv, C, M, N, K, offC, sCm, sCn, As, Bs);
    else if (a_k)
        matmul_tiles<true, false>(av, bv, C, M, N, K, offC, sCm, sCn, As, Bs);
    else if (b_n)
        matmul_tiles<false, true>(av, bv, C, M, N, K, offC, sCm, sCn, As, Bs);
    else
        matmul_tiles<false, false>(av, bv, C, M, N, K, offC, sCm, sCn, As, Bs);
}
