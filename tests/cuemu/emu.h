/*
 * emu.h - a CPU emulator of the CUDA that the step-7 problems' kernels use.
 *
 * A development aid for machines without a GPU (tests/cuemu/run.py drives it):
 * a problem's .cu file is compiled as C++20 with this header in front, after
 * run.py has cut out its "PTX wrappers" section (the inline-asm helpers for
 * cp.async, ldmatrix and mma.sync), whose functions this header provides with
 * the same names and signatures, emulated as the PTX ISA defines them.
 *
 * Every CUDA thread of a block is a fiber (its own stack, switched with
 * _setjmp/_longjmp on one OS thread), so __syncthreads(), __syncwarp() and the
 * warp-collective instructions are real rendezvous: a fiber that reaches one
 * waits until every live thread of its block or warp has. Blocks run one after
 * another. __shared__ variables become function statics (one copy, shared by
 * the block that runs). Threads that return drop out of block barriers, as on
 * the GPU; a warp collective with an exited lane is reported (undefined
 * behaviour for .aligned instructions), as is a deadlock.
 *
 * cp.async copies are queued per thread and performed only when the thread
 * waits for their group (cp_async_wait), so a stage read before its wait sees
 * stale shared memory, as it could on the GPU.
 *
 * mma.sync m16n8k16 follows the Hopper datapath as modelled by MMA-Sim
 * (products exact, aligned to the largest exponent and truncated to 25
 * fractional bits, summed exactly, then truncated to fp32, or rounded to
 * nearest even for fp16 accumulators).
 *
 * What it proves: indexing, masks, tails, pipelines, fragment layouts as the
 * PTX ISA documents them, and the arithmetic. What it does not: timing, bank
 * conflicts, the memory model beyond barriers.
 */
#ifndef BW_CUEMU_H
#define BW_CUEMU_H

#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <setjmp.h>
#include <type_traits>
#include <ucontext.h>
#include <utility>
#include <vector>

#define __global__
#define __device__
#define __host__
#define __forceinline__ inline
#define __noinline__
#define __launch_bounds__(...)
#define __shared__   static
#define __align__(n) __attribute__((aligned(n)))
#define __restrict__ __restrict

/* ---- vector types ------------------------------------------------------ */

struct dim3 {
    unsigned x = 1, y = 1, z = 1;
};
struct uint3 {
    unsigned x, y, z;
};
struct alignas(16) float4 {
    float x, y, z, w;
};
struct alignas(8) float2 {
    float x, y;
};
struct alignas(16) uint4 {
    unsigned x, y, z, w;
};
struct alignas(8) uint2 {
    unsigned x, y;
};
inline float4 make_float4(float x, float y, float z, float w)
{
    return float4{x, y, z, w};
}
inline float2 make_float2(float x, float y)
{
    return float2{x, y};
}
inline uint4 make_uint4(unsigned x, unsigned y, unsigned z, unsigned w)
{
    return uint4{x, y, z, w};
}

/* ---- fibers ------------------------------------------------------------ */

struct emu_copy {
    unsigned char *dst;
    const unsigned char *src;
    int bytes, src_bytes;
};

struct emu_fiber {
    ucontext_t uc;
    jmp_buf jb;
    uint3 tid;
    unsigned lin;
    bool started = false, done = false;
    std::vector<char> stack;
    std::vector<emu_copy> pending;             /* cp.async not yet committed */
    std::vector<std::vector<emu_copy>> groups; /* committed, oldest first */
};

struct emu_barrier {
    int expected = 0, arrived = 0;
    unsigned long generation = 0;
};

/* One warp's rendezvous: each lane writes its inputs, the last lane to
 * arrive computes every lane's outputs, then all read theirs. Inputs and
 * outputs are separate, so a lane that runs ahead into the next collective
 * cannot overwrite results a slower lane has yet to read. */
struct emu_warp_slots {
    emu_barrier bar;
    const void *ptr[32];
    unsigned in_u[32][8];
    float in_f[32][4];
    unsigned long long in_ull[32];
    unsigned in_src[32];
    unsigned out_u[32][4];
    float out_f[32][4];
    unsigned long long out_ull[32];
};

struct emu_state_t {
    std::vector<emu_fiber> fibers;
    emu_fiber *cur = nullptr;
    jmp_buf sched;
    ucontext_t sched_uc;
    emu_barrier block_bar;
    std::vector<emu_warp_slots> warps;
    const std::function<void()> *kernel = nullptr;
    bool progress = false;
    const char *error = nullptr;
    std::vector<unsigned char> dyn_smem;
};
inline emu_state_t emu_state;

inline uint3 blockIdx;
inline dim3 blockDim, gridDim;
#define threadIdx (emu_state.cur->tid)
inline unsigned char *emu_dyn_smem()
{
    return emu_state.dyn_smem.data();
}

[[noreturn]] inline void emu_die(const char *what)
{
    std::printf("RE: %s (block %u,%u,%u thread %u)\n", what, blockIdx.x, blockIdx.y, blockIdx.z,
                emu_state.cur ? emu_state.cur->lin : 0u);
    std::fflush(stdout);
    std::exit(3);
}

inline void emu_yield()
{
    if (!_setjmp(emu_state.cur->jb))
        _longjmp(emu_state.sched, 1);
}

/* Waits at b until `expected` threads have arrived. */
inline void emu_arrive_wait(emu_barrier &b)
{
    unsigned long g = b.generation;
    emu_state.progress = true;
    if (++b.arrived >= b.expected) {
        b.arrived = 0;
        b.generation++;
        return;
    }
    while (b.generation == g)
        emu_yield();
}

/* A thread that exits no longer holds back barriers. */
inline void emu_drop(emu_barrier &b)
{
    b.expected--;
    if (b.arrived > 0 && b.arrived >= b.expected) {
        b.arrived = 0;
        b.generation++;
    }
}

inline unsigned emu_lane()
{
    return emu_state.cur->lin & 31u;
}
inline emu_warp_slots &emu_warp()
{
    return emu_state.warps[emu_state.cur->lin / 32];
}
/* Warp collectives (.aligned) need all 32 lanes. */
inline emu_warp_slots &emu_full_warp(const char *what)
{
    emu_warp_slots &w = emu_warp();
    if (w.bar.expected != 32)
        emu_die(what);
    return w;
}

/* Arrives at the warp's rendezvous; the last lane to arrive runs all()
 * (computing every lane's outputs from every lane's inputs) before the
 * others are released. */
template <class F> inline void emu_collective(emu_warp_slots &w, F &&all)
{
    emu_barrier &b = w.bar;
    unsigned long g = b.generation;
    emu_state.progress = true;
    if (++b.arrived >= b.expected) {
        all();
        b.arrived = 0;
        b.generation++;
        return;
    }
    while (b.generation == g)
        emu_yield();
}

inline void emu_fiber_main()
{
    emu_fiber *f = emu_state.cur;
    (*emu_state.kernel)();
    /* perform what the thread still has in flight */
    for (auto &g : f->groups)
        for (auto &c : g) {
            if (c.src_bytes)
                std::memcpy(c.dst, c.src, (size_t)c.src_bytes);
            std::memset(c.dst + c.src_bytes, 0, (size_t)(c.bytes - c.src_bytes));
        }
    f->groups.clear();
    f->done = true;
    emu_drop(emu_state.block_bar);
    if (emu_state.warps[f->lin / 32].bar.arrived > 0)
        emu_die("a lane exited while the rest of its warp waits at a warp-wide instruction");
    emu_drop(emu_state.warps[f->lin / 32].bar);
    _longjmp(emu_state.sched, 1);
}

inline void __syncthreads()
{
    emu_arrive_wait(emu_state.block_bar);
}
inline void __syncwarp(unsigned = 0xffffffffu)
{
    emu_arrive_wait(emu_warp().bar);
}
inline void __threadfence()
{
}
inline void __threadfence_block()
{
}

/* Runs `kernel` over the grid, one block after another. `smem` bytes of
 * dynamic shared memory (filled with 0xCD garbage before each block). */
inline void emu_launch(dim3 grid, dim3 block, size_t smem, const std::function<void()> &kernel)
{
    const unsigned threads = block.x * block.y * block.z;
    const unsigned warps = (threads + 31) / 32;
    const size_t stack_bytes = 256 * 1024;
    gridDim = grid;
    blockDim = block;
    emu_state.kernel = &kernel;
    emu_state.fibers = std::vector<emu_fiber>(threads);
    emu_state.dyn_smem.assign(smem + 16, 0);
    for (unsigned t = 0; t < threads; t++) {
        emu_fiber &f = emu_state.fibers[t];
        f.lin = t;
        f.tid = uint3{t % block.x, (t / block.x) % block.y, t / (block.x * block.y)};
        f.stack.resize(stack_bytes);
    }
    for (unsigned bz = 0; bz < grid.z; bz++)
        for (unsigned by = 0; by < grid.y; by++)
            for (unsigned bx = 0; bx < grid.x; bx++) {
                blockIdx = uint3{bx, by, bz};
                std::memset(emu_state.dyn_smem.data(), 0xCD, emu_state.dyn_smem.size());
                emu_state.block_bar = emu_barrier{(int)threads, 0, 0};
                emu_state.warps.assign(warps, emu_warp_slots{});
                for (unsigned w = 0; w < warps; w++)
                    emu_state.warps[w].bar.expected = (int)std::min(32u, threads - 32 * w);
                for (auto &f : emu_state.fibers) {
                    f.started = f.done = false;
                    f.pending.clear();
                    f.groups.clear();
                }
                volatile unsigned live = threads;
                while (live > 0) {
                    emu_state.progress = false;
                    for (auto &f : emu_state.fibers) {
                        if (f.done)
                            continue;
                        emu_state.cur = &f;
                        if (!_setjmp(emu_state.sched)) {
                            if (!f.started) {
                                f.started = true;
                                emu_state.progress = true;
                                getcontext(&f.uc);
                                f.uc.uc_stack.ss_sp = f.stack.data();
                                f.uc.uc_stack.ss_size = f.stack.size();
                                f.uc.uc_link = nullptr;
                                makecontext(&f.uc, emu_fiber_main, 0);
                                setcontext(&f.uc);
                            } else {
                                _longjmp(f.jb, 1);
                            }
                        }
                        if (f.done) {
                            live--;
                            emu_state.progress = true;
                        }
                    }
                    if (live > 0 && !emu_state.progress) {
                        emu_state.cur = nullptr;
                        emu_die(
                            "deadlock: every live thread waits at a barrier that cannot complete");
                    }
                }
            }
    emu_state.cur = nullptr;
}

/* ---- warp shuffles, atomics --------------------------------------------- */

template <class T> inline T emu_shfl(T v, unsigned src_lane)
{
    static_assert(sizeof(T) <= 8, "shuffle of at most 8 bytes");
    emu_warp_slots &w = emu_full_warp("warp shuffle with exited lanes");
    const unsigned l = emu_lane();
    unsigned long long bits = 0;
    std::memcpy(&bits, &v, sizeof(T));
    w.in_ull[l] = bits;
    w.in_src[l] = src_lane & 31u;
    emu_collective(w, [&] {
        for (unsigned q = 0; q < 32; q++)
            w.out_ull[q] = w.in_ull[w.in_src[q]];
    });
    bits = w.out_ull[l];
    T r;
    std::memcpy(&r, &bits, sizeof(T));
    return r;
}
template <class T> inline T __shfl_xor_sync(unsigned, T v, int mask)
{
    return emu_shfl(v, emu_lane() ^ (unsigned)mask);
}
template <class T> inline T __shfl_sync(unsigned, T v, int src)
{
    return emu_shfl(v, (unsigned)src);
}
template <class T> inline T __shfl_down_sync(unsigned, T v, unsigned d)
{
    unsigned s = emu_lane() + d;
    return emu_shfl(v, s < 32 ? s : emu_lane());
}

/* One fiber runs at a time, so read-modify-write is atomic. */
template <class T> inline T atomicAdd(T *p, T v)
{
    T old = *p;
    *p = old + v;
    return old;
}

inline float __int_as_float(int i)
{
    float f;
    std::memcpy(&f, &i, 4);
    return f;
}
inline int __float_as_int(float f)
{
    int i;
    std::memcpy(&i, &f, 4);
    return i;
}
inline double __longlong_as_double(long long i)
{
    double d;
    std::memcpy(&d, &i, 8);
    return d;
}
template <class A, class B> inline std::common_type_t<A, B> min(A a, B b)
{
    return b < a ? (std::common_type_t<A, B>)b : (std::common_type_t<A, B>)a;
}
template <class A, class B> inline std::common_type_t<A, B> max(A a, B b)
{
    return a < b ? (std::common_type_t<A, B>)b : (std::common_type_t<A, B>)a;
}
template <class T> inline T __ldg(const T *p)
{
    return *p;
}

/* ---- fp16 ------------------------------------------------------------- */

struct __half {
    unsigned short x;
};
struct alignas(4) __half2 {
    __half x, y;
};

/* Round-to-nearest-even of a double to binary16 bits (subnormals kept). */
inline unsigned short emu_double_to_half_bits(double v)
{
    uint64_t b;
    std::memcpy(&b, &v, 8);
    unsigned short sign = (unsigned short)((b >> 48) & 0x8000u);
    double a = std::fabs(v);
    if (std::isnan(v))
        return (unsigned short)(sign | 0x7fff);
    if (a >= 65520.0) /* rounds to inf */
        return (unsigned short)(sign | 0x7c00);
    if (a < std::ldexp(1.0, -14)) {
        /* subnormal: units of 2^-24, nearest even */
        double q = a * std::ldexp(1.0, 24);
        double r = std::nearbyint(q); /* default rounding mode: nearest even */
        return (unsigned short)(sign | (unsigned short)r);
    }
    int e;
    double m = std::frexp(a, &e);          /* a = m * 2^e, m in [0.5, 1) */
    double q = std::nearbyint(m * 2048.0); /* 11 significant bits */
    if (q >= 2048.0) {
        q /= 2;
        e++;
    }
    int exp_field = e - 1 + 15;
    if (exp_field >= 31)
        return (unsigned short)(sign | 0x7c00);
    return (unsigned short)(sign | (exp_field << 10) | ((unsigned)q & 0x3ffu));
}

inline double emu_half_bits_to_double(unsigned short h)
{
    int sign = h & 0x8000 ? -1 : 1;
    int e = (h >> 10) & 31, m = h & 0x3ff;
    if (e == 31)
        return m ? std::nan("") : sign * INFINITY;
    if (e == 0)
        return sign * std::ldexp((double)m, -24);
    return sign * std::ldexp((double)(m | 0x400), e - 25);
}

inline float __half2float(__half h)
{
    return (float)emu_half_bits_to_double(h.x);
}
inline __half __double2half(double d)
{
    return __half{emu_double_to_half_bits(d)};
}
/* float -> half: exact in double first, so one rounding. */
inline __half __float2half(float f)
{
    return __double2half((double)f);
}
inline __half __float2half_rn(float f)
{
    return __double2half((double)f);
}
inline __half2 __floats2half2_rn(float a, float b)
{
    return __half2{__float2half_rn(a), __float2half_rn(b)};
}
inline __half2 __float22half2_rn(float2 v)
{
    return __floats2half2_rn(v.x, v.y);
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
    return h.x;
}
inline __half __ushort_as_half(unsigned short u)
{
    return __half{u};
}
inline __half2 __halves2half2(__half a, __half b)
{
    return __half2{a, b};
}
/* fp16 add and fma are correctly rounded; the exact result of a binary16
 * add or fma fits a double, so one rounding from double is exact RN. */
inline __half __hadd(__half a, __half b)
{
    return __double2half(emu_half_bits_to_double(a.x) + emu_half_bits_to_double(b.x));
}
inline __half2 __hadd2(__half2 a, __half2 b)
{
    return __half2{__hadd(a.x, b.x), __hadd(a.y, b.y)};
}
inline __half __hmul(__half a, __half b)
{
    return __double2half(emu_half_bits_to_double(a.x) * emu_half_bits_to_double(b.x));
}
inline __half __hfma(__half a, __half b, __half c)
{
    return __double2half(emu_half_bits_to_double(a.x) * emu_half_bits_to_double(b.x) +
                         emu_half_bits_to_double(c.x));
}

/* ---- PTX wrappers (replacing the .cu file's own section) --------------- */

/* cp.async.cg.shared.global 16 bytes, src_bytes of them read, the rest zeroed. */
inline void cp_async_16(void *smem, const void *gmem, int src_bytes)
{
    if (src_bytes < 0 || src_bytes > 16)
        emu_die("cp.async src-size outside 0..16");
    if (((uintptr_t)smem & 15) || (src_bytes && ((uintptr_t)gmem & 15)))
        emu_die("cp.async address not 16-byte aligned");
    emu_state.cur->pending.push_back(
        emu_copy{(unsigned char *)smem, (const unsigned char *)gmem, 16, src_bytes});
}
inline void cp_async_commit()
{
    emu_fiber *f = emu_state.cur;
    f->groups.push_back(std::move(f->pending));
    f->pending.clear();
}
/* Completes all but the n most recent committed groups of this thread. */
inline void emu_cp_async_wait(int n)
{
    emu_fiber *f = emu_state.cur;
    while ((int)f->groups.size() > n) {
        for (auto &c : f->groups.front()) {
            if (c.src_bytes)
                std::memcpy(c.dst, c.src, (size_t)c.src_bytes);
            std::memset(c.dst + c.src_bytes, 0, (size_t)(c.bytes - c.src_bytes));
        }
        f->groups.erase(f->groups.begin());
    }
}
template <int N> inline void cp_async_wait()
{
    emu_cp_async_wait(N);
}

/* ldmatrix .m8n8 .b16: lanes 8j..8j+7 give the row addresses of matrix j;
 * lane l gets, of each matrix, row l/4, columns 2(l%4) and 2(l%4)+1 (low
 * half first), or with .trans rows 2(l%4), 2(l%4)+1 of column l/4. */
inline void emu_ldsm(unsigned *r, int count, const void *row, bool trans)
{
    emu_warp_slots &w = emu_full_warp("ldmatrix with exited lanes");
    const unsigned l = emu_lane();
    if ((uintptr_t)row & 15)
        emu_die("ldmatrix row address not 16-byte aligned");
    w.ptr[l] = row;
    emu_collective(w, [&] {
        for (unsigned q = 0; q < 32; q++)
            for (int j = 0; j < count; j++) {
                unsigned short h[2];
                for (int e = 0; e < 2; e++) {
                    const unsigned short *p;
                    if (!trans)
                        p = (const unsigned short *)w.ptr[8 * j + q / 4] + 2 * (q % 4) + e;
                    else
                        p = (const unsigned short *)w.ptr[8 * j + 2 * (q % 4) + e] + q / 4;
                    h[e] = *p;
                }
                w.out_u[q][j] = (unsigned)h[0] | ((unsigned)h[1] << 16);
            }
    });
    for (int j = 0; j < count; j++)
        r[j] = w.out_u[l][j];
}
inline void ldsm_x4(unsigned r[4], const void *row)
{
    emu_ldsm(r, 4, row, false);
}
inline void ldsm_x4_t(unsigned r[4], const void *row)
{
    emu_ldsm(r, 4, row, true);
}
inline void ldsm_x2(unsigned r[2], const void *row)
{
    emu_ldsm(r, 2, row, false);
}
inline void ldsm_x2_t(unsigned r[2], const void *row)
{
    emu_ldsm(r, 2, row, true);
}

/* Hopper's fused dot-add: c + sum(a_i b_i), every term aligned to the
 * largest exponent and truncated to 25 fractional bits, summed exactly;
 * returned exactly (the caller rounds to the accumulator type). NaN/inf
 * follow the exact sum. */
inline double emu_fused_dot_add(const double *a, const double *b, int n, double c)
{
    double exact = c;
    for (int i = 0; i < n; i++)
        exact += a[i] * b[i];
    if (!std::isfinite(exact))
        return exact;
    double terms[17];
    int e_max = -100000, m = 0;
    terms[m++] = c;
    for (int i = 0; i < n; i++)
        terms[m++] = a[i] * b[i]; /* exact: 11 x 11 significant bits */
    for (int i = 0; i < m; i++) {
        if (terms[i] == 0)
            continue;
        int e;
        std::frexp(terms[i], &e);
        if (e > e_max)
            e_max = e;
    }
    if (e_max == -100000)
        return 0.0;
    /* significands in [1, 2): unit of the 25th fractional bit is 2^(e_max-1-25) */
    double unit = std::ldexp(1.0, e_max - 1 - 25);
    double s = 0; /* integers times unit: exact in double up to 2^53 */
    for (int i = 0; i < m; i++)
        s += std::trunc(terms[i] / unit);
    return s * unit;
}

/* Truncation (round toward zero) of an exact sum to fp32, as the f32 datapath. */
inline float emu_to_f32_rz(double v)
{
    if (!std::isfinite(v) || v == 0)
        return (float)v;
    float f = (float)v; /* nearest */
    if (std::fabs((double)f) > std::fabs(v))
        f = std::nextafter(f, 0.0f);
    return f;
}

/* mma.sync.aligned.m16n8k16.row.col, A 16x16 row, B 16x8 col, per lane
 * (g = lane/4, t = lane%4): a[0] = A[g][2t..2t+1], a[1] = A[g+8][2t..],
 * a[2] = A[g][2t+8..], a[3] = A[g+8][2t+8..]; b[0] = B[2t..2t+1][g],
 * b[1] = B[2t+8..2t+9][g]; c[0..1] = C[g][2t..2t+1], c[2..3] = C[g+8][2t..].
 * Gathers every lane's fragments (in_u[lane][0..5]) into A and B. */
inline void emu_mma_operands(const emu_warp_slots &w, double A[16][16], double B[16][8])
{
    auto half_of = [](unsigned reg, int e) {
        return emu_half_bits_to_double((unsigned short)(e ? reg >> 16 : reg & 0xffffu));
    };
    for (unsigned q = 0; q < 32; q++) {
        unsigned g = q / 4, t = q % 4;
        for (int e = 0; e < 2; e++) {
            A[g][2 * t + e] = half_of(w.in_u[q][0], e);
            A[g + 8][2 * t + e] = half_of(w.in_u[q][1], e);
            A[g][2 * t + 8 + e] = half_of(w.in_u[q][2], e);
            A[g + 8][2 * t + 8 + e] = half_of(w.in_u[q][3], e);
            B[2 * t + e][g] = half_of(w.in_u[q][4], e);
            B[2 * t + 8 + e][g] = half_of(w.in_u[q][5], e);
        }
    }
}

inline void mma_16816(float c[4], const unsigned a[4], const unsigned b[2])
{
    emu_warp_slots &w = emu_full_warp("mma.sync with exited lanes");
    const unsigned l = emu_lane();
    for (int i = 0; i < 4; i++) {
        w.in_u[l][i] = a[i];
        w.in_f[l][i] = c[i];
    }
    w.in_u[l][4] = b[0];
    w.in_u[l][5] = b[1];
    emu_collective(w, [&] {
        double A[16][16], B[16][8];
        emu_mma_operands(w, A, B);
        for (unsigned q = 0; q < 32; q++)
            for (int i = 0; i < 4; i++) {
                unsigned row = q / 4 + 8 * (i / 2), col = 2 * (q % 4) + (i % 2);
                double col_b[16];
                for (int k = 0; k < 16; k++)
                    col_b[k] = B[k][col];
                w.out_f[q][i] =
                    emu_to_f32_rz(emu_fused_dot_add(A[row], col_b, 16, (double)w.in_f[q][i]));
            }
    });
    for (int i = 0; i < 4; i++)
        c[i] = w.out_f[l][i];
}

/* The fp16-accumulator form (.f16.f16.f16.f16): c[0] = C[g][2t..2t+1] and
 * c[1] = C[g+8][2t..], packed halves, rounded to nearest even per mma. */
inline void mma_16816_f16acc(unsigned c[2], const unsigned a[4], const unsigned b[2])
{
    emu_warp_slots &w = emu_full_warp("mma.sync with exited lanes");
    const unsigned l = emu_lane();
    for (int i = 0; i < 4; i++)
        w.in_u[l][i] = a[i];
    w.in_u[l][4] = b[0];
    w.in_u[l][5] = b[1];
    w.in_u[l][6] = c[0];
    w.in_u[l][7] = c[1];
    emu_collective(w, [&] {
        double A[16][16], B[16][8];
        emu_mma_operands(w, A, B);
        for (unsigned q = 0; q < 32; q++)
            for (int i = 0; i < 2; i++) {
                unsigned short out[2];
                for (int e = 0; e < 2; e++) {
                    unsigned row = q / 4 + 8 * i, col = 2 * (q % 4) + e;
                    double col_b[16];
                    for (int k = 0; k < 16; k++)
                        col_b[k] = B[k][col];
                    unsigned reg = w.in_u[q][6 + i];
                    double cin =
                        emu_half_bits_to_double((unsigned short)(e ? reg >> 16 : reg & 0xffffu));
                    out[e] = emu_double_to_half_bits(emu_fused_dot_add(A[row], col_b, 16, cin));
                }
                w.out_u[q][i] = (unsigned)out[0] | ((unsigned)out[1] << 16);
            }
    });
    c[0] = w.out_u[l][0];
    c[1] = w.out_u[l][1];
}

/* ---- calling kernels with run-time arguments ---------------------------- */

struct emu_arg {
    void *ptr = nullptr;
    long long i = 0;
    double f = 0;
};

template <class T> inline T emu_arg_as(const emu_arg &a)
{
    if constexpr (std::is_pointer_v<T>)
        return (T)a.ptr;
    else if constexpr (std::is_floating_point_v<T>)
        return (T)a.f;
    else
        return (T)a.i;
}

template <class... P, size_t... I>
inline void emu_call_impl(void (*fn)(P...), const std::vector<emu_arg> &a,
                          std::index_sequence<I...>)
{
    fn(emu_arg_as<P>(a[I])...);
}

template <class... P> inline int emu_arity(void (*)(P...))
{
    return (int)sizeof...(P);
}

template <class... P> inline void emu_call(void (*fn)(P...), const std::vector<emu_arg> &a)
{
    emu_call_impl(fn, a, std::index_sequence_for<P...>{});
}

#endif
