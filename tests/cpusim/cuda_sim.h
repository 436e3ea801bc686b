/*
 * cuda_sim.h - just enough CUDA to run the problems' kernels on a CPU.
 *
 * A development aid for machines without a GPU (tests/cpusim/run.py drives
 * it). run.py wraps each .cu file in a C++ namespace with this header in
 * front and links it with harness.cpp, which judges it with the judge's own
 * loader, directive parser, plan builder, input generator and comparator;
 * only the execution is simulated here.
 *
 * Execution model: a launch runs its grid one block at a time; each CUDA
 * thread of the block is an OS thread, so __syncthreads() and the warp-wide
 * operations (shuffles, mma.sync, ldmatrix) are real barriers among the
 * threads that take part. __shared__ variables become function statics (one
 * copy, used by the block that is running); dynamic shared memory is one
 * buffer, filled with 0xCD bytes before every block so that a kernel that
 * reads shared memory it never wrote gets garbage, as on a GPU.
 *
 * Tensor-core and copy instructions are modelled from the PTX ISA's fragment
 * layouts: mma.sync.m16n8k16 (f16 inputs, f32 accumulate; products exact,
 * the sum in double then rounded to float), ldmatrix .x4 (plain and .trans)
 * and cp.async (a synchronous copy with zero fill, so a missing wait_group
 * is NOT detected). The kernels declare these as small wrapper functions
 * around inline asm; run.py drops every top-level definition that contains
 * asm, and the wrappers below take their place (same names and signatures).
 *
 * Not modelled: timing, memory coalescing, the memory model beyond barriers
 * and atomics, occupancy, register limits.
 */
#ifndef BW_CUDA_SIM_H
#define BW_CUDA_SIM_H

#include <algorithm>
#include <atomic>
#include <barrier>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <math.h>
#include <memory>
#include <thread>
#include <vector>

extern "C" {
float fp16_to_float(uint16_t h);
uint16_t float_to_fp16(float f);
float bf16_to_float(uint16_t b);
uint16_t float_to_bf16(float f);
}

#define __global__
#define __device__
#define __host__
#define __forceinline__ inline
#define __noinline__
#define __launch_bounds__(...)
#define __shared__   static
#define __constant__ static
#define __align__(n) alignas(n)
#define __restrict__ __restrict

/* ---- vector types ---------------------------------------------------------- */

struct dim3 {
    unsigned x = 1, y = 1, z = 1;
};
struct uint3 {
    unsigned x, y, z;
};
struct alignas(8) float2 {
    float x, y;
};
struct alignas(16) float4 {
    float x, y, z, w;
};
struct alignas(8) int2 {
    int x, y;
};
struct alignas(16) int4 {
    int x, y, z, w;
};
struct alignas(8) uint2 {
    unsigned x, y;
};
struct alignas(16) uint4 {
    unsigned x, y, z, w;
};
struct alignas(16) double2 {
    double x, y;
};
inline float2 make_float2(float x, float y)
{
    return float2{x, y};
}
inline float4 make_float4(float x, float y, float z, float w)
{
    return float4{x, y, z, w};
}
inline int4 make_int4(int x, int y, int z, int w)
{
    return int4{x, y, z, w};
}
inline uint2 make_uint2(unsigned x, unsigned y)
{
    return uint2{x, y};
}
inline uint4 make_uint4(unsigned x, unsigned y, unsigned z, unsigned w)
{
    return uint4{x, y, z, w};
}

/* ---- fp16 and bf16 ------------------------------------------------------------ */

struct alignas(2) __half {
    unsigned short __x;
    __half() = default;
    __half(float f) : __x(float_to_fp16(f))
    {
    }
    operator float() const
    {
        return fp16_to_float(__x);
    }
};
struct alignas(4) __half2 {
    __half x, y;
};
struct alignas(2) __nv_bfloat16 {
    unsigned short __x;
    __nv_bfloat16() = default;
    __nv_bfloat16(float f) : __x(float_to_bf16(f))
    {
    }
    operator float() const
    {
        return bf16_to_float(__x);
    }
};
struct alignas(4) __nv_bfloat162 {
    __nv_bfloat16 x, y;
};

inline __half __float2half(float f)
{
    return __half(f);
}
inline __half __float2half_rn(float f)
{
    return __half(f);
}
inline float __half2float(__half h)
{
    return fp16_to_float(h.__x);
}
inline __half2 __floats2half2_rn(float a, float b)
{
    return __half2{__half(a), __half(b)};
}
inline __half2 __float22half2_rn(float2 f)
{
    return __half2{__half(f.x), __half(f.y)};
}
inline __half2 __halves2half2(__half a, __half b)
{
    return __half2{a, b};
}
inline float2 __half22float2(__half2 h)
{
    return float2{__half2float(h.x), __half2float(h.y)};
}
inline float __low2float(__half2 h)
{
    return __half2float(h.x);
}
inline float __high2float(__half2 h)
{
    return __half2float(h.y);
}
inline unsigned short __half_as_ushort(__half h)
{
    return h.__x;
}
inline __half __ushort_as_half(unsigned short u)
{
    __half h;
    h.__x = u;
    return h;
}
inline __nv_bfloat16 __float2bfloat16(float f)
{
    return __nv_bfloat16(f);
}
inline __nv_bfloat16 __float2bfloat16_rn(float f)
{
    return __nv_bfloat16(f);
}
inline float __bfloat162float(__nv_bfloat16 h)
{
    return bf16_to_float(h.__x);
}
inline __nv_bfloat162 __floats2bfloat162_rn(float a, float b)
{
    return __nv_bfloat162{__nv_bfloat16(a), __nv_bfloat16(b)};
}
inline __nv_bfloat162 __float22bfloat162_rn(float2 f)
{
    return __nv_bfloat162{__nv_bfloat16(f.x), __nv_bfloat16(f.y)};
}
inline float2 __bfloat1622float2(__nv_bfloat162 h)
{
    return float2{__bfloat162float(h.x), __bfloat162float(h.y)};
}
inline float __low2float(__nv_bfloat162 h)
{
    return __bfloat162float(h.x);
}
inline float __high2float(__nv_bfloat162 h)
{
    return __bfloat162float(h.y);
}
inline unsigned short __bfloat16_as_ushort(__nv_bfloat16 h)
{
    return h.__x;
}
inline __nv_bfloat16 __ushort_as_bfloat16(unsigned short u)
{
    __nv_bfloat16 h;
    h.__x = u;
    return h;
}

/* 16-bit arithmetic: the exact result rounded once to the type (products of
 * two 16-bit values are exact in float, sums of two nearly so: ties aside,
 * float then one rounding is the hardware's single rounding). */
#define SIM_HALF_OPS(T)                                                                            \
    inline T __hadd(T a, T b)                                                                      \
    {                                                                                              \
        return T((float)((double)(float)a + (double)(float)b));                                    \
    }                                                                                              \
    inline T __hsub(T a, T b)                                                                      \
    {                                                                                              \
        return T((float)((double)(float)a - (double)(float)b));                                    \
    }                                                                                              \
    inline T __hmul(T a, T b)                                                                      \
    {                                                                                              \
        return T((float)((double)(float)a * (double)(float)b));                                    \
    }                                                                                              \
    inline T __hfma(T a, T b, T c)                                                                 \
    {                                                                                              \
        return T((float)((double)(float)a * (double)(float)b + (double)(float)c));                 \
    }
SIM_HALF_OPS(__half)
SIM_HALF_OPS(__nv_bfloat16)

/* ---- bit casts and math -------------------------------------------------------- */

template <class To, class From> inline To sim_bits(From f)
{
    static_assert(sizeof(To) == sizeof(From), "bit cast of unequal sizes");
    To t;
    std::memcpy(&t, &f, sizeof(t));
    return t;
}
inline float __int_as_float(int i)
{
    return sim_bits<float>(i);
}
inline int __float_as_int(float f)
{
    return sim_bits<int>(f);
}
inline float __uint_as_float(unsigned i)
{
    return sim_bits<float>(i);
}
inline unsigned __float_as_uint(float f)
{
    return sim_bits<unsigned>(f);
}
inline double __longlong_as_double(long long i)
{
    return sim_bits<double>(i);
}
inline long long __double_as_longlong(double d)
{
    return sim_bits<long long>(d);
}

/* CUDA's fast intrinsics: the accurate functions are within their error
 * bounds, which is what the tolerances are built on. */
inline float __expf(float x)
{
    return expf(x);
}
inline float __logf(float x)
{
    return logf(x);
}
inline float __fdividef(float a, float b)
{
    return a / b;
}
inline float __frcp_rn(float a)
{
    return 1.0f / a;
}
inline float __fmul_rn(float a, float b)
{
    return a * b;
}
inline float __fadd_rn(float a, float b)
{
    return a + b;
}
inline float __saturatef(float x)
{
    return x < 0.0f ? 0.0f : (x > 1.0f ? 1.0f : x);
}
inline float rsqrtf(float x)
{
    return 1.0f / sqrtf(x);
}
template <class T> inline T __ldg(const T *p)
{
    return *p;
}
/* Cache-hinted loads and stores: only the hint differs from a plain access. */
template <class T> inline T __ldcs(const T *p)
{
    return *p;
}
template <class T> inline T __ldcg(const T *p)
{
    return *p;
}
template <class T> inline void __stcs(T *p, T v)
{
    *p = v;
}
template <class T> inline T min(T a, T b)
{
    return b < a ? b : a;
}
template <class T> inline T max(T a, T b)
{
    return a < b ? b : a;
}
inline long long min(long long a, int b)
{
    return b < a ? b : a;
}
inline long long min(int a, long long b)
{
    return b < a ? b : a;
}
inline long long max(long long a, int b)
{
    return a < b ? b : a;
}
inline long long max(int a, long long b)
{
    return a < b ? b : a;
}

/* ---- atomics ------------------------------------------------------------------- */

template <class T> inline T atomicAdd(T *p, T v)
{
    return std::atomic_ref<T>(*p).fetch_add(v);
}
template <class T> inline T atomicMax(T *p, T v)
{
    std::atomic_ref<T> a(*p);
    T old = a.load();
    while (old < v && !a.compare_exchange_weak(old, v)) {
    }
    return old;
}
template <class T> inline T atomicMin(T *p, T v)
{
    std::atomic_ref<T> a(*p);
    T old = a.load();
    while (v < old && !a.compare_exchange_weak(old, v)) {
    }
    return old;
}
template <class T> inline T atomicExch(T *p, T v)
{
    return std::atomic_ref<T>(*p).exchange(v);
}
template <class T> inline T atomicCAS(T *p, T cmp, T v)
{
    std::atomic_ref<T>(*p).compare_exchange_strong(cmp, v);
    return cmp;
}
inline void __threadfence()
{
    std::atomic_thread_fence(std::memory_order_seq_cst);
}

/* ---- threads, blocks and barriers ---------------------------------------------- */

inline thread_local uint3 threadIdx;
inline uint3 blockIdx;
inline dim3 blockDim, gridDim;
constexpr int warpSize = 32;

struct sim_warp {
    std::unique_ptr<std::barrier<>> bar;
    uint64_t slot[32][10]; /* per-lane exchange area of the warp-wide operations */
};

struct sim_block_state {
    std::unique_ptr<std::barrier<>> block;
    std::vector<sim_warp> warps;
};
inline sim_block_state sim_state;

alignas(128) inline unsigned char sim_dyn_smem_buf[232448];
inline size_t sim_dyn_smem_bytes;

inline unsigned sim_linear_tid()
{
    return threadIdx.x + blockDim.x * (threadIdx.y + blockDim.y * threadIdx.z);
}
inline sim_warp &sim_my_warp()
{
    return sim_state.warps[sim_linear_tid() / 32];
}
inline unsigned sim_lane()
{
    return sim_linear_tid() % 32;
}

inline void __syncthreads()
{
    sim_state.block->arrive_and_wait();
}
inline void __syncwarp(unsigned = 0xffffffffu)
{
    sim_my_warp().bar->arrive_and_wait();
}

/* A shuffle: every lane publishes v, then reads lane src(lane)'s value. */
template <class T, class F> inline T sim_shfl(T v, F src_of)
{
    static_assert(sizeof(T) <= 8, "shuffle of more than 8 bytes");
    sim_warp &w = sim_my_warp();
    const unsigned lane = sim_lane();
    std::memcpy(&w.slot[lane][0], &v, sizeof(T));
    w.bar->arrive_and_wait();
    T r;
    std::memcpy(&r, &w.slot[src_of(lane) & 31u][0], sizeof(T));
    w.bar->arrive_and_wait();
    return r;
}
template <class T> inline T __shfl_xor_sync(unsigned, T v, int mask, int width = 32)
{
    return sim_shfl(v, [&](unsigned l) {
        unsigned s = l ^ (unsigned)mask;
        return (s / width == l / width) ? s : l;
    });
}
template <class T> inline T __shfl_sync(unsigned, T v, int src, int width = 32)
{
    return sim_shfl(v, [&](unsigned l) { return (l / width) * width + ((unsigned)src % width); });
}
template <class T> inline T __shfl_down_sync(unsigned, T v, unsigned d, int width = 32)
{
    return sim_shfl(v, [&](unsigned l) { return (l % width) + d < (unsigned)width ? l + d : l; });
}
template <class T> inline T __shfl_up_sync(unsigned, T v, unsigned d, int width = 32)
{
    return sim_shfl(v, [&](unsigned l) { return (l % width) >= d ? l - d : l; });
}

/* ---- the PTX wrappers the kernels declare ------------------------------------------ */

/* 2^x by ex2.approx.ftz.f32 (cross-entropy's solution): exp2f, with results
 * below 2^-126 flushed to zero as .ftz does. */
inline float exp2_fast(float x)
{
    const float y = exp2f(x);
    return y < 0x1p-126f ? 0.0f : y;
}

/* d += a * b for one m16n8k16 tile (row.col, f16 inputs, f32 accumulate). */
inline void mma_m16n8k16(float (&d)[4], const unsigned (&a)[4], const unsigned (&b)[2])
{
    sim_warp &w = sim_my_warp();
    const unsigned lane = sim_lane();
    for (int k = 0; k < 4; k++)
        w.slot[lane][k] = a[k];
    w.slot[lane][4] = b[0];
    w.slot[lane][5] = b[1];
    w.bar->arrive_and_wait();
    auto half_at = [&](unsigned l, int reg, int hi) {
        uint32_t word = (uint32_t)w.slot[l][reg];
        return (double)fp16_to_float((uint16_t)(hi ? word >> 16 : word & 0xFFFFu));
    };
    /* A(r, k): lane (r % 8) * 4 + (k % 8) / 2, register (r >= 8) + 2 * (k >= 8), half k % 2.
     * B(k, n): lane n * 4 + (k % 8) / 2, register 4 + (k >= 8), half k % 2. */
    auto A = [&](int r, int k) {
        return half_at((unsigned)((r % 8) * 4 + (k % 8) / 2), (r >= 8) + 2 * (k >= 8), k % 2);
    };
    auto B = [&](int k, int n) {
        return half_at((unsigned)(n * 4 + (k % 8) / 2), 4 + (k >= 8), k % 2);
    };
    const int g = (int)lane / 4, t = (int)lane % 4;
    const int rows[4] = {g, g, g + 8, g + 8}, cols[4] = {2 * t, 2 * t + 1, 2 * t, 2 * t + 1};
    float out[4];
    for (int e = 0; e < 4; e++) {
        double s = d[e];
        for (int k = 0; k < 16; k++)
            s += A(rows[e], k) * B(k, cols[e]);
        out[e] = (float)s;
    }
    w.bar->arrive_and_wait();
    for (int e = 0; e < 4; e++)
        d[e] = out[e];
}

/* ldmatrix.sync.aligned.m8n8.x4(.trans).shared.b16: lane l gives the address
 * of row l % 8 of matrix l / 8; register m of lane i receives matrix m's
 * elements (row i / 4, cols 2(i % 4), +1), or with .trans (rows 2(i % 4), +1;
 * col i / 4). */
inline void sim_ldmatrix(unsigned (&r)[4], const void *p, bool trans)
{
    sim_warp &w = sim_my_warp();
    const unsigned lane = sim_lane();
    w.slot[lane][0] = (uint64_t)(uintptr_t)p;
    w.bar->arrive_and_wait();
    for (int m = 0; m < 4; m++) {
        uint16_t lo, hi;
        if (!trans) {
            const unsigned char *row =
                (const unsigned char *)(uintptr_t)w.slot[8 * m + lane / 4][0];
            std::memcpy(&lo, row + 4 * (lane % 4), 2);
            std::memcpy(&hi, row + 4 * (lane % 4) + 2, 2);
        } else {
            const unsigned char *r0 =
                (const unsigned char *)(uintptr_t)w.slot[8 * m + 2 * (lane % 4)][0];
            const unsigned char *r1 =
                (const unsigned char *)(uintptr_t)w.slot[8 * m + 2 * (lane % 4) + 1][0];
            std::memcpy(&lo, r0 + 2 * (lane / 4), 2);
            std::memcpy(&hi, r1 + 2 * (lane / 4), 2);
        }
        r[m] = (unsigned)lo | ((unsigned)hi << 16);
    }
    w.bar->arrive_and_wait();
}
inline void ldmatrix_x4(unsigned (&r)[4], const void *p)
{
    sim_ldmatrix(r, p, false);
}
inline void ldmatrix_x4_trans(unsigned (&r)[4], const void *p)
{
    sim_ldmatrix(r, p, true);
}

/* cp.async.cg 16 bytes with zero fill past src_bytes. */
inline void cp_async_16(void *dst, const void *src, int src_bytes)
{
    std::memset(dst, 0, 16);
    if (src_bytes > 0)
        std::memcpy(dst, src, (size_t)src_bytes);
}
inline void cp_async_commit()
{
}
template <int N> inline void cp_async_wait()
{
}

/* ---- launching ------------------------------------------------------------------- */

/* Runs `kernel` over the grid, block after block, on a pool of one OS thread
 * per CUDA thread of a block. A thread that returns drops out of its block's
 * and its warp's barriers, as an exited CUDA thread no longer holds back
 * __syncthreads(). */
inline void sim_launch(dim3 grid, dim3 block, size_t smem, const std::function<void()> &kernel)
{
    const unsigned threads = block.x * block.y * block.z;
    const unsigned warps = (threads + 31) / 32;
    gridDim = grid;
    blockDim = block;
    sim_dyn_smem_bytes = smem;
    std::barrier<> start(threads + 1), done(threads + 1);
    bool quit = false;
    std::vector<std::thread> pool;
    pool.reserve(threads);
    for (unsigned t = 0; t < threads; t++)
        pool.emplace_back([&, t] {
            threadIdx = uint3{t % block.x, (t / block.x) % block.y, t / (block.x * block.y)};
            for (;;) {
                start.arrive_and_wait();
                if (quit)
                    return;
                kernel();
                sim_state.warps[t / 32].bar->arrive_and_drop();
                sim_state.block->arrive_and_drop();
                done.arrive_and_wait();
            }
        });
    for (unsigned bz = 0; bz < grid.z; bz++)
        for (unsigned by = 0; by < grid.y; by++)
            for (unsigned bx = 0; bx < grid.x; bx++) {
                blockIdx = uint3{bx, by, bz};
                sim_state.block = std::make_unique<std::barrier<>>(threads);
                sim_state.warps.clear();
                sim_state.warps.resize(warps);
                for (unsigned w = 0; w < warps; w++)
                    sim_state.warps[w].bar =
                        std::make_unique<std::barrier<>>(std::min(32u, threads - 32 * w));
                std::memset(sim_dyn_smem_buf, 0xCD, sizeof(sim_dyn_smem_buf));
                start.arrive_and_wait();
                done.arrive_and_wait();
            }
    quit = true;
    start.arrive_and_wait();
    for (auto &th : pool)
        th.join();
}

/* One kernel argument of a plan: converts to whatever the kernel's parameter is. */
struct sim_arg {
    void *p = nullptr;
    long long i = 0;
    double f = 0;
    template <class T> operator T *() const
    {
        return static_cast<T *>(p);
    }
    operator long long() const
    {
        return i;
    }
    operator long() const
    {
        return (long)i;
    }
    operator int() const
    {
        return (int)i;
    }
    operator unsigned() const
    {
        return (unsigned)i;
    }
    operator unsigned long long() const
    {
        return (unsigned long long)i;
    }
    operator unsigned long() const
    {
        return (unsigned long)i;
    }
    operator float() const
    {
        return (float)f;
    }
    operator double() const
    {
        return f;
    }
};

#endif
