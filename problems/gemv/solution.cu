// GEMV, y = A x in fp32, shaped to the matrix: long rows are split across
// warps, tiny rows share a warp, and every load is a coalesced float4.
//
// A persistent grid of BLOCKS x 256 threads (4 blocks per SM on a 132-SM
// H200) walks the work in a grid-stride loop. The work unit is a "unit" of
// the row: a float4 when K is a multiple of 4 (every row is then 16-byte
// aligned), else a single float.
//
// Tiny rows (at most 16 units, e.g. K = 64): a row gets G = 16, 8, 4, 2 or 1
// lanes (the power of two >= its units), so a warp covers 32 / G rows with
// one load per lane, fully coalesced; each lane keeps its slice of x in a
// register for the whole kernel. A warp loads SUBU such row groups before
// reducing them with log2(G) shuffles, so each lane has SUBU loads in
// flight.
//
// Longer rows: a warp task is RB = 4 rows times one segment of their units.
// Lanes stride over the segment 32 units apart, UNROLL = 2 steps at a time
// (8 float4 of A and 2 of x in flight per lane); x is loaded once for the 4
// rows. When there are few rows (fewer than TASKS row groups), each row
// group is split into S segments so that about TASKS tasks keep every warp
// busy (256 rows of 2^20: 64 segments of 16384 floats). With S = 1 a warp
// writes y directly; with S > 1 the partial sums are added atomically into
// the zeroed scratch `acc`, and the second launch copies acc to y (y itself
// is poisoned with NaN before the run, so it cannot be accumulated into).
// S > 1 only happens for M < RB * TASKS = 16384 rows, which bounds acc and
// the copy's grid.
//
// @const THREADS=256
// @const BLOCKS=528
// @const RB=4
// @const UNROLL=2
// @const SUBU=4
// @const TASKS=4096
// @const MIN_SEG=1024
// @const SPLIT_MAX_M=16384
// @let ACC_ROWS = min(M, SPLIT_MAX_M)
// @scratch acc fp32[ACC_ROWS]
// @launch gemv grid=(max(1, min(BLOCKS, cdiv(M * K, 4096)))) block=(THREADS) args=(A, x, y, acc, M, K)
// @launch gemv_finish grid=(cdiv(ACC_ROWS, THREADS)) block=(THREADS) args=(acc, y, M, K)

static_assert(RB * TASKS <= SPLIT_MAX_M, "rows that may be split must fit the scratch");

// Segments per row group: 1 unless there are too few row groups to give
// every warp a task, and never segments shorter than MIN_SEG units.
__device__ __forceinline__ long long splits(long long M, long long K)
{
    const long long units = (K & 3) == 0 ? K >> 2 : K;
    if (units <= 16)
        return 1;
    const long long groups = (M + RB - 1) / RB;
    long long s = (units + MIN_SEG - 1) / MIN_SEG;
    const long long want = (TASKS + groups - 1) / groups;
    if (want < s)
        s = want;
    return s < 1 ? 1 : s;
}

template <bool VEC> __device__ __forceinline__ float4 load_unit(const float* p, long long u)
{
    if (VEC)
        return __ldg(reinterpret_cast<const float4*>(p) + u);
    return make_float4(__ldg(p + u), 0.0f, 0.0f, 0.0f);
}

__device__ __forceinline__ float dot4(float4 a, float4 b, float acc)
{
    acc = fmaf(a.x, b.x, acc);
    acc = fmaf(a.y, b.y, acc);
    acc = fmaf(a.z, b.z, acc);
    return fmaf(a.w, b.w, acc);
}

// Rows of at most 16 units: G lanes per row, 32 / G rows per warp.
template <bool VEC>
__device__ __forceinline__ void tiny_rows(const float* __restrict__ A, const float* __restrict__ x,
                                          float* __restrict__ y, long long M, long long K)
{
    const long long units = VEC ? K >> 2 : K;
    int G = 1;
    while (G < units)
        G <<= 1;
    const int lane = threadIdx.x & 31, gl = lane & (G - 1), grp = lane / G, rpw = 32 / G;
    const long long warp = ((long long)blockIdx.x * blockDim.x + threadIdx.x) >> 5;
    const long long nwarps = ((long long)gridDim.x * blockDim.x) >> 5;
    const bool active = gl < units;
    const float4 xv = active ? load_unit<VEC>(x, gl) : make_float4(0.0f, 0.0f, 0.0f, 0.0f);
    const long long per_iter = (long long)rpw * SUBU;

    for (long long base = warp * per_iter; base < M; base += nwarps * per_iter) {
        float s[SUBU];
#pragma unroll
        for (int u = 0; u < SUBU; u++) {
            const long long row = base + u * rpw + grp;
            float4 av = make_float4(0.0f, 0.0f, 0.0f, 0.0f);
            if (active && row < M)
                av = load_unit<VEC>(A + row * K, gl);
            s[u] = dot4(av, xv, 0.0f);
        }
        for (int off = G >> 1; off > 0; off >>= 1)
#pragma unroll
            for (int u = 0; u < SUBU; u++)
                s[u] += __shfl_xor_sync(0xffffffffu, s[u], off);
        if (gl == 0) {
#pragma unroll
            for (int u = 0; u < SUBU; u++) {
                const long long row = base + u * rpw + grp;
                if (row < M)
                    y[row] = s[u];
            }
        }
    }
}

// Rows of more than 16 units: tasks of RB rows x one of S segments.
template <bool VEC>
__device__ __forceinline__ void long_rows(const float* __restrict__ A, const float* __restrict__ x,
                                          float* __restrict__ y, float* __restrict__ acc, long long M,
                                          long long K, long long S)
{
    const long long units = VEC ? K >> 2 : K;
    const long long seg = (units + S - 1) / S;
    const long long groups = (M + RB - 1) / RB;
    const int lane = threadIdx.x & 31;
    const long long warp = ((long long)blockIdx.x * blockDim.x + threadIdx.x) >> 5;
    const long long nwarps = ((long long)gridDim.x * blockDim.x) >> 5;

    for (long long task = warp; task < groups * S; task += nwarps) {
        const long long g = task / S, s = task % S;
        const long long r0 = g * RB;
        const long long u0 = s * seg, u1 = min(units, u0 + seg);
        const float* rows[RB];
#pragma unroll
        for (int r = 0; r < RB; r++)
            rows[r] = A + min(r0 + r, M - 1) * K; /* rows past M repeat row M-1; never written */
        float sum[RB];
#pragma unroll
        for (int r = 0; r < RB; r++)
            sum[r] = 0.0f;

        for (long long u = u0 + lane; u < u1; u += 32 * UNROLL) {
            float4 xv[UNROLL], av[UNROLL][RB];
#pragma unroll
            for (int k = 0; k < UNROLL; k++) {
                const long long uu = u + 32 * k;
                const bool in = uu < u1;
                xv[k] = in ? load_unit<VEC>(x, uu) : make_float4(0.0f, 0.0f, 0.0f, 0.0f);
#pragma unroll
                for (int r = 0; r < RB; r++)
                    av[k][r] = in ? load_unit<VEC>(rows[r], uu) : make_float4(0.0f, 0.0f, 0.0f, 0.0f);
            }
#pragma unroll
            for (int k = 0; k < UNROLL; k++)
#pragma unroll
                for (int r = 0; r < RB; r++)
                    sum[r] = dot4(av[k][r], xv[k], sum[r]);
        }
#pragma unroll
        for (int r = 0; r < RB; r++)
#pragma unroll
            for (int off = 16; off > 0; off >>= 1)
                sum[r] += __shfl_xor_sync(0xffffffffu, sum[r], off);
        if (lane == 0) {
#pragma unroll
            for (int r = 0; r < RB; r++) {
                if (r0 + r >= M)
                    break;
                if (S == 1)
                    y[r0 + r] = sum[r];
                else
                    atomicAdd(&acc[r0 + r], sum[r]);
            }
        }
    }
}

extern "C" __global__ void __launch_bounds__(THREADS, 4)
gemv(const float* __restrict__ A, const float* __restrict__ x, float* __restrict__ y,
     float* __restrict__ acc, long long M, long long K)
{
    const bool vec = (K & 3) == 0;
    const long long units = vec ? K >> 2 : K;
    if (units <= 16) {
        if (vec)
            tiny_rows<true>(A, x, y, M, K);
        else
            tiny_rows<false>(A, x, y, M, K);
        return;
    }
    const long long S = splits(M, K);
    if (vec)
        long_rows<true>(A, x, y, acc, M, K, S);
    else
        long_rows<false>(A, x, y, acc, M, K, S);
}

// With split rows, y[i] = acc[i]; otherwise y is already written.
extern "C" __global__ void gemv_finish(const float* __restrict__ acc, float* __restrict__ y, long long M,
                                       long long K)
{
    if (splits(M, K) == 1)
        return;
    const long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x;
    if (i < M)
        y[i] = acc[i];
}
