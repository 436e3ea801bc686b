/*
 * simt.h - a CPU emulation of the CUDA device surface the problems' kernels use.
 *
 * A development aid for machines without a GPU (tests/simt/simt.py drives it).
 * A problem's .cu file, lightly rewritten by simt.py (extern __shared__ arrays
 * become pointers into an emulated arena, inline PTX becomes calls to
 * simt_ptx()), is compiled as C++20 after this header. Every CUDA thread of a
 * block is a fiber on one OS thread; __syncthreads(), warp shuffles, votes,
 * ldmatrix and mma.sync are real barriers among the fibers, so the emulator
 * proves indexing, masking, synchronisation and arithmetic (fp32 is IEEE fp32,
 * fp16/bf16 are rounded to nearest even in software). Blocks run one at a
 * time, so it proves nothing about races between blocks, timing or coalescing.
 *
 * Checked at run time, as errors a GPU would not always report: a warp
 * collective whose mask names an exited lane, lanes of one collective that
 * disagree on its kind, and barriers that can never be passed (deadlock).
 */
#ifndef SIMT_H
#define SIMT_H

#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <initializer_list>
#include <tuple>
#include <type_traits>

#define __global__
#define __device__
#define __host__
#define __forceinline__ inline
#define __noinline__
#define __launch_bounds__(...)
#define __shared__   static
#define __constant__ static
#define __align__(n) __attribute__((aligned(n)))
#define __restrict__ __restrict
#define __CUDA_ARCH__  900
#define __CUDACC_RTC__ 1

/* ---- vector types ------------------------------------------------------- */
struct dim3 {
    unsigned x = 1, y = 1, z = 1;
};
struct uint3 {
    unsigned x, y, z;
};
#define SIMT_VEC2(T, N, A)                                                                         \
    struct __attribute__((aligned(A))) N {                                                         \
        T x, y;                                                                                    \
    };                                                                                             \
    inline N make_##N(T x, T y)                                                                    \
    {                                                                                              \
        return N{x, y};                                                                            \
    }
#define SIMT_VEC4(T, N, A)                                                                         \
    struct __attribute__((aligned(A))) N {                                                         \
        T x, y, z, w;                                                                              \
    };                                                                                             \
    inline N make_##N(T x, T y, T z, T w)                                                          \
    {                                                                                              \
        return N{x, y, z, w};                                                                      \
    }
SIMT_VEC2(float, float2, 8)
SIMT_VEC4(float, float4, 16)
SIMT_VEC2(int, int2, 8)
SIMT_VEC4(int, int4, 16)
SIMT_VEC2(unsigned, uint2, 8)
SIMT_VEC4(unsigned, uint4, 16)
SIMT_VEC2(double, double2, 16)
SIMT_VEC2(short, short2, 4)
SIMT_VEC2(unsigned short, ushort2, 4)
SIMT_VEC4(unsigned short, ushort4, 8)
SIMT_VEC2(long long, longlong2, 16)

/* ---- threads, blocks, fibers ------------------------------------------- */
struct simt_warp_op;

struct simt_fiber {
    void *sp = nullptr;
    uint3 tid{0, 0, 0};
    unsigned linear = 0;
    int state = 0; /* SIMT_RUNNABLE, ... */
    simt_warp_op *op = nullptr;
};

enum { SIMT_RUNNABLE = 0, SIMT_WAIT_BAR = 1, SIMT_WAIT_WARP = 2, SIMT_DONE = 3 };

extern simt_fiber *simt_cur;
extern uint3 blockIdx;
extern dim3 blockDim, gridDim;
#define threadIdx (simt_cur->tid)
constexpr int warpSize = 32;

[[noreturn]] void simt_fail(const char *verdict, const char *fmt, ...);
void simt_yield();

inline void __syncthreads()
{
    simt_cur->state = SIMT_WAIT_BAR;
    simt_yield();
}

/* One request of a warp collective, on the waiting fiber's stack. */
enum simt_op_kind {
    SIMT_OP_SYNC,
    SIMT_OP_SHFL_IDX,
    SIMT_OP_SHFL_XOR,
    SIMT_OP_SHFL_DOWN,
    SIMT_OP_SHFL_UP,
    SIMT_OP_BALLOT,
    SIMT_OP_PTX
};
struct simt_warp_op {
    int kind;
    unsigned mask;
    uint64_t value;  /* this lane's operand (raw bits) */
    int arg;         /* source lane, xor mask or delta */
    int width;       /* shuffle segment width */
    uint64_t result; /* written by the resolver */
    const void *ptx; /* SIMT_OP_PTX: the parsed instruction */
    void **outs;     /* SIMT_OP_PTX: output operand addresses */
    const uint64_t *ins;
};

void simt_warp_collective(simt_warp_op *op);

inline unsigned simt_lane()
{
    return simt_cur->linear & 31u;
}

inline void __syncwarp(unsigned mask = 0xffffffffu)
{
    simt_warp_op op{};
    op.kind = SIMT_OP_SYNC;
    op.mask = mask;
    simt_warp_collective(&op);
}

template <class T> inline uint64_t simt_bits(T v)
{
    static_assert(sizeof(T) <= 8, "shuffles move at most 8 bytes");
    uint64_t b = 0;
    std::memcpy(&b, &v, sizeof(T));
    return b;
}
template <class T> inline T simt_from_bits(uint64_t b)
{
    T v;
    std::memcpy(&v, &b, sizeof(T));
    return v;
}

template <class T> inline T simt_shfl(int kind, unsigned mask, T v, int arg, int width)
{
    simt_warp_op op{};
    op.kind = kind;
    op.mask = mask;
    op.value = simt_bits(v);
    op.arg = arg;
    op.width = width;
    simt_warp_collective(&op);
    return simt_from_bits<T>(op.result);
}
template <class T> inline T __shfl_sync(unsigned mask, T v, int src, int width = 32)
{
    return simt_shfl(SIMT_OP_SHFL_IDX, mask, v, src, width);
}
template <class T> inline T __shfl_xor_sync(unsigned mask, T v, int lm, int width = 32)
{
    return simt_shfl(SIMT_OP_SHFL_XOR, mask, v, lm, width);
}
template <class T> inline T __shfl_down_sync(unsigned mask, T v, unsigned d, int width = 32)
{
    return simt_shfl(SIMT_OP_SHFL_DOWN, mask, v, (int)d, width);
}
template <class T> inline T __shfl_up_sync(unsigned mask, T v, unsigned d, int width = 32)
{
    return simt_shfl(SIMT_OP_SHFL_UP, mask, v, (int)d, width);
}
inline unsigned __ballot_sync(unsigned mask, int pred)
{
    simt_warp_op op{};
    op.kind = SIMT_OP_BALLOT;
    op.mask = mask;
    op.value = pred != 0;
    simt_warp_collective(&op);
    return (unsigned)op.result;
}
inline int __any_sync(unsigned mask, int pred)
{
    return __ballot_sync(mask, pred) != 0;
}
inline int __all_sync(unsigned mask, int pred)
{
    return __ballot_sync(mask, pred) == mask;
}

/* ---- atomics (one OS thread: plain read-modify-write) ------------------ */
template <class T> inline T atomicAdd(T *p, T v)
{
    T old = *p;
    *p = old + v;
    return old;
}
template <class T> inline T atomicMax(T *p, T v)
{
    T old = *p;
    *p = old < v ? v : old;
    return old;
}
template <class T> inline T atomicMin(T *p, T v)
{
    T old = *p;
    *p = v < old ? v : old;
    return old;
}
template <class T> inline T atomicExch(T *p, T v)
{
    T old = *p;
    *p = v;
    return old;
}
template <class T> inline T atomicCAS(T *p, T cmp, T v)
{
    T old = *p;
    if (old == cmp)
        *p = v;
    return old;
}
inline unsigned atomicInc(unsigned *p, unsigned lim)
{
    unsigned old = *p;
    *p = old >= lim ? 0 : old + 1;
    return old;
}
inline void __threadfence()
{
}
inline void __threadfence_block()
{
}

/* ---- bit casts and integer intrinsics ---------------------------------- */
inline float __int_as_float(int i)
{
    return simt_from_bits<float>((uint32_t)i);
}
inline float __uint_as_float(unsigned i)
{
    return simt_from_bits<float>(i);
}
inline int __float_as_int(float f)
{
    return (int)(uint32_t)simt_bits(f);
}
inline unsigned __float_as_uint(float f)
{
    return (uint32_t)simt_bits(f);
}
inline double __longlong_as_double(long long i)
{
    return simt_from_bits<double>((uint64_t)i);
}
inline long long __double_as_longlong(double d)
{
    return (long long)simt_bits(d);
}
inline int __popc(unsigned x)
{
    return __builtin_popcount(x);
}
inline int __clz(int x)
{
    return x ? __builtin_clz((unsigned)x) : 32;
}
inline int __ffs(int x)
{
    return __builtin_ffs(x);
}
inline int __clzll(long long x)
{
    return x ? __builtin_clzll((unsigned long long)x) : 64;
}

template <class T> inline T __ldg(const T *p)
{
    return *p;
}
template <class T> inline T __ldcs(const T *p)
{
    return *p;
}
template <class T> inline T __ldlu(const T *p)
{
    return *p;
}
template <class T> inline void __stcs(T *p, T v)
{
    *p = v;
}
template <class T> inline void __stwt(T *p, T v)
{
    *p = v;
}

/* min / max as CUDA overloads them (mixed int widths promote) */
template <class A, class B> inline auto min(A a, B b) -> std::common_type_t<A, B>
{
    using T = std::common_type_t<A, B>;
    return (T)b < (T)a ? (T)b : (T)a;
}
template <class A, class B> inline auto max(A a, B b) -> std::common_type_t<A, B>
{
    using T = std::common_type_t<A, B>;
    return (T)a < (T)b ? (T)b : (T)a;
}

/* ---- float math --------------------------------------------------------- */
using std::fabs;
inline float rsqrtf(float x)
{
    return 1.0f / sqrtf(x);
}
inline double rsqrt(double x)
{
    return 1.0 / sqrt(x);
}
inline float __expf(float x)
{
    return expf(x);
}
inline float __logf(float x)
{
    return logf(x);
}
inline float __log2f(float x)
{
    return log2f(x);
}
inline float __exp10f(float x)
{
    return exp10f(x);
}
inline float __fdividef(float a, float b)
{
    return a / b;
}
inline float __frcp_rn(float x)
{
    return 1.0f / x;
}
inline float __fsqrt_rn(float x)
{
    return sqrtf(x);
}
inline float __fmaf_rn(float a, float b, float c)
{
    return fmaf(a, b, c);
}
inline float __fmul_rn(float a, float b)
{
    return a * b;
}
inline float __fadd_rn(float a, float b)
{
    return a + b;
}
inline float __fsub_rn(float a, float b)
{
    return a - b;
}
inline float __fdiv_rn(float a, float b)
{
    return a / b;
}
inline double __dadd_rn(double a, double b)
{
    return a + b;
}
inline double __dmul_rn(double a, double b)
{
    return a * b;
}
inline float __saturatef(float x)
{
    return x < 0 ? 0.0f : (x > 1 ? 1.0f : x);
}

/* ---- fp16 and bf16 ----------------------------------------------------- */
uint16_t simt_f2h(float f); /* round to nearest even */
float simt_h2f(uint16_t h);
uint16_t simt_f2bf(float f); /* round to nearest even */
inline float simt_bf2f(uint16_t b)
{
    return __uint_as_float((uint32_t)b << 16);
}

struct __half {
    uint16_t __x;
    __half() = default;
    __half(float f) : __x(simt_f2h(f))
    {
    }
    __half(double f) : __x(simt_f2h((float)f))
    {
    }
    __half(int f) : __x(simt_f2h((float)f))
    {
    }
    operator float() const
    {
        return simt_h2f(__x);
    }
};
struct __attribute__((aligned(4))) __half2 {
    __half x, y;
};
typedef __half half;
typedef __half2 half2;
struct __half_raw {
    uint16_t x;
};

struct __nv_bfloat16 {
    uint16_t __x;
    __nv_bfloat16() = default;
    __nv_bfloat16(float f) : __x(simt_f2bf(f))
    {
    }
    __nv_bfloat16(double f) : __x(simt_f2bf((float)f))
    {
    }
    __nv_bfloat16(int f) : __x(simt_f2bf((float)f))
    {
    }
    operator float() const
    {
        return simt_bf2f(__x);
    }
};
struct __attribute__((aligned(4))) __nv_bfloat162 {
    __nv_bfloat16 x, y;
};
typedef __nv_bfloat16 nv_bfloat16;
typedef __nv_bfloat162 nv_bfloat162;

inline __half simt_mkh(uint16_t b)
{
    __half h;
    h.__x = b;
    return h;
}
inline __nv_bfloat16 simt_mkbf(uint16_t b)
{
    __nv_bfloat16 h;
    h.__x = b;
    return h;
}

inline __half __float2half(float f)
{
    return simt_mkh(simt_f2h(f));
}
inline __half __float2half_rn(float f)
{
    return simt_mkh(simt_f2h(f));
}
inline float __half2float(__half h)
{
    return simt_h2f(h.__x);
}
inline __half2 __floats2half2_rn(float a, float b)
{
    return __half2{__float2half(a), __float2half(b)};
}
inline __half2 __float22half2_rn(float2 f)
{
    return __floats2half2_rn(f.x, f.y);
}
inline __half2 __float2half2_rn(float f)
{
    return __floats2half2_rn(f, f);
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
inline __half __low2half(__half2 h)
{
    return h.x;
}
inline __half __high2half(__half2 h)
{
    return h.y;
}
inline __half2 __halves2half2(__half a, __half b)
{
    return __half2{a, b};
}
inline __half2 __half2half2(__half a)
{
    return __half2{a, a};
}
inline unsigned short __half_as_ushort(__half h)
{
    return h.__x;
}
inline __half __ushort_as_half(unsigned short u)
{
    return simt_mkh(u);
}
inline short __half_as_short(__half h)
{
    return (short)h.__x;
}
inline __half __short_as_half(short u)
{
    return simt_mkh((uint16_t)u);
}
/* fp16 arithmetic: exact in double, then one rounding (as the hardware does) */
inline __half simt_h_round(double v)
{
    return simt_mkh(simt_f2h((float)v));
}
uint16_t simt_d2h(double d);
inline __half __hadd(__half a, __half b)
{
    return simt_mkh(simt_d2h((double)(float)a + (float)b));
}
inline __half __hsub(__half a, __half b)
{
    return simt_mkh(simt_d2h((double)(float)a - (float)b));
}
inline __half __hmul(__half a, __half b)
{
    return simt_mkh(simt_d2h((double)(float)a * (float)b));
}
inline __half __hfma(__half a, __half b, __half c)
{
    return simt_mkh(simt_d2h((double)(float)a * (double)(float)b + (double)(float)c));
}
inline __half __hmax(__half a, __half b)
{
    return (float)a < (float)b ? b : a;
}
inline __half __hmin(__half a, __half b)
{
    return (float)b < (float)a ? b : a;
}
inline __half2 __hadd2(__half2 a, __half2 b)
{
    return __half2{__hadd(a.x, b.x), __hadd(a.y, b.y)};
}
inline __half2 __hmul2(__half2 a, __half2 b)
{
    return __half2{__hmul(a.x, b.x), __hmul(a.y, b.y)};
}
inline __half2 __hfma2(__half2 a, __half2 b, __half2 c)
{
    return __half2{__hfma(a.x, b.x, c.x), __hfma(a.y, b.y, c.y)};
}

inline __nv_bfloat16 __float2bfloat16(float f)
{
    return simt_mkbf(simt_f2bf(f));
}
inline __nv_bfloat16 __float2bfloat16_rn(float f)
{
    return simt_mkbf(simt_f2bf(f));
}
inline float __bfloat162float(__nv_bfloat16 h)
{
    return simt_bf2f(h.__x);
}
inline __nv_bfloat162 __floats2bfloat162_rn(float a, float b)
{
    return __nv_bfloat162{__float2bfloat16(a), __float2bfloat16(b)};
}
inline __nv_bfloat162 __float22bfloat162_rn(float2 f)
{
    return __floats2bfloat162_rn(f.x, f.y);
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
inline __nv_bfloat162 __halves2bfloat162(__nv_bfloat16 a, __nv_bfloat16 b)
{
    return __nv_bfloat162{a, b};
}
inline unsigned short __bfloat16_as_ushort(__nv_bfloat16 h)
{
    return h.__x;
}
inline __nv_bfloat16 __ushort_as_bfloat16(unsigned short u)
{
    return simt_mkbf(u);
}
uint16_t simt_d2bf(double d);
inline __nv_bfloat16 __hadd(__nv_bfloat16 a, __nv_bfloat16 b)
{
    return simt_mkbf(simt_d2bf((double)(float)a + (float)b));
}
inline __nv_bfloat16 __hmul(__nv_bfloat16 a, __nv_bfloat16 b)
{
    return simt_mkbf(simt_d2bf((double)(float)a * (float)b));
}
inline __nv_bfloat16 __hfma(__nv_bfloat16 a, __nv_bfloat16 b, __nv_bfloat16 c)
{
    return simt_mkbf(simt_d2bf((double)(float)a * (double)(float)b + (double)(float)c));
}

/* ---- shared memory and inline PTX -------------------------------------- */
void *simt_dyn_smem(); /* the current launch's dynamic shared memory */
extern char simt_smem_anchor[];
inline unsigned simt_cvta_shared(const void *p)
{
    return (unsigned)((uintptr_t)p - (uintptr_t)simt_smem_anchor);
}
inline void *simt_shared_ptr(unsigned a)
{
    return simt_smem_anchor + (int32_t)a;
}
inline size_t __cvta_generic_to_shared(const void *p)
{
    return simt_cvta_shared(p);
}

/* An operand of a rewritten asm statement. */
struct simt_out {
    void *p;
    int size;
};
template <class T> inline simt_out simt_o(T &v)
{
    return simt_out{(void *)&v, (int)sizeof(T)};
}
template <class T> inline uint64_t simt_i(const T &v)
{
    if constexpr (std::is_pointer_v<T>)
        return (uint64_t)(uintptr_t)v;
    else
        return simt_bits(v);
}
void simt_ptx(const char *text, std::initializer_list<simt_out> outs,
              std::initializer_list<uint64_t> ins);

/* ---- vector pointers: alignment checked on access -------------------- */
/* simt.py rewrites reinterpret_cast<V*>(p) for vector types V into
 * simt_vcast<V>(p): the GPU faults ("misaligned address") on a vector access
 * that is not aligned to the vector's size, x86 does not. */
template <class T> struct simt_vptr {
    T *p;
    static void check(const void *q)
    {
        if ((uintptr_t)q % alignof(T))
            simt_fail("RE", "misaligned address: %zu-byte vector access at %p", sizeof(T), q);
    }
    T &operator[](long long i) const
    {
        check(p + i);
        return p[i];
    }
    T &operator*() const
    {
        check(p);
        return *p;
    }
    T *operator->() const
    {
        check(p);
        return p;
    }
    simt_vptr operator+(long long i) const
    {
        return simt_vptr{p + i};
    }
    simt_vptr operator-(long long i) const
    {
        return simt_vptr{p - i};
    }
    operator T *() const
    {
        return p;
    }
};
template <class T, class P> inline simt_vptr<T> simt_vcast(P *p)
{
    return simt_vptr<T>{reinterpret_cast<T *>(p)};
}
template <class T> inline T __ldg(simt_vptr<T> p)
{
    return *p;
}
template <class T> inline T __ldcs(simt_vptr<T> p)
{
    return *p;
}
template <class T> inline T __ldlu(simt_vptr<T> p)
{
    return *p;
}
template <class T, class V> inline void __stcs(simt_vptr<T> p, V v)
{
    *p = v;
}
template <class T, class V> inline void __stwt(simt_vptr<T> p, V v)
{
    *p = v;
}

/* ---- launching ---------------------------------------------------------- */
struct simt_arg {
    void *ptr;
    long long i;
    unsigned long long u;
    double f;
};
struct simt_launch {
    dim3 grid, block;
    size_t smem;
    int nargs;
    simt_arg args[32];
};
void simt_run_grid(const simt_launch &l, void (*body)(void *), void *ctx);

template <class T> inline T simt_arg_as(const simt_arg &a)
{
    if constexpr (std::is_pointer_v<T>)
        return (T)a.ptr;
    else if constexpr (std::is_floating_point_v<T>)
        return (T)a.f;
    else if constexpr (std::is_unsigned_v<T>)
        return (T)a.u;
    else
        return (T)a.i;
}

template <class... P> void simt_call(void (*k)(P...), const simt_launch &l)
{
    if ((int)sizeof...(P) != l.nargs)
        simt_fail("CE", "kernel takes %d arguments, the launch passes %d", (int)sizeof...(P),
                  l.nargs);
    int i = 0;
    std::tuple<std::decay_t<P>...> args{simt_arg_as<std::decay_t<P>>(l.args[i++])...};
    struct ctx_t {
        void (*k)(P...);
        std::tuple<std::decay_t<P>...> *args;
    } ctx{k, &args};
    simt_run_grid(
        l,
        [](void *c) {
            ctx_t *x = (ctx_t *)c;
            std::apply(x->k, *x->args);
        },
        &ctx);
}

struct simt_kernel {
    const char *name;
    void (*run)(const simt_launch &);
};

#endif
