// harness.cu - the runner's trusted device code: input generation, input
// hashing, guard bands, output poison scans, gathers, the SM clock, and the
// calibration kernels. Compiled ahead of time into a fatbin embedded in
// blockwise-runner (see the Makefile); launched by judge/runner/runner_exec.c through
// the driver API with the exact parameter lists written here.
//
// Every kernel is extern "C" (unmangled names for cuModuleGetFunction), uses a
// grid-stride loop where it walks a buffer (any grid size is correct), and
// keeps to plain, obviously correct code: speed matters little outside timing.
// Reductions accumulate per thread, then per warp, then one atomicAdd per warp.
#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <stdint.h>

#include "gen_value.h"

typedef unsigned long long u64;

// SplitMix64's finalizer: a bijective 64-bit mix.
static __device__ __forceinline__ u64 bw_mix64(u64 x)
{
    x ^= x >> 30;
    x *= 0xBF58476D1CE4E5B9ull;
    x ^= x >> 27;
    x *= 0x94D049BB133111EBull;
    x ^= x >> 31;
    return x;
}

static __device__ __forceinline__ u64 bw_thread_index()
{
    return (u64)blockIdx.x * blockDim.x + threadIdx.x;
}

static __device__ __forceinline__ u64 bw_thread_count()
{
    return (u64)gridDim.x * blockDim.x;
}

// Adds v into *out once per warp. Every lane of the warp must call it.
static __device__ __forceinline__ void bw_warp_add(u64 v, u64 *out)
{
    for (int d = 16; d > 0; d >>= 1)
        v += __shfl_down_sync(0xffffffffu, v, d);
    if ((threadIdx.x & 31) == 0 && v != 0)
        atomicAdd(out, v);
}

// ---------------------------------------------------------------------------
// Input generation: out[i] = gen_value_at(spec, seed, case, i) rounded once to
// spec.dtype (round to nearest even). n elements of dtype_size(spec.dtype).
extern "C" __global__ void bw_generate(void *out, u64 n, struct gen_spec spec, u64 seed,
                                       unsigned int case_index)
{
    for (u64 i = bw_thread_index(); i < n; i += bw_thread_count()) {
        struct gen_value v = gen_value_at(&spec, seed, case_index, i);
        switch (spec.dtype) {
        case DTYPE_FP64: ((double *)out)[i] = v.f; break;
        case DTYPE_FP32: ((float *)out)[i] = __double2float_rn(v.f); break;
        case DTYPE_FP16: ((__half *)out)[i] = __double2half(v.f); break;
        case DTYPE_BF16: ((__nv_bfloat16 *)out)[i] = __double2bfloat16(v.f); break;
        case DTYPE_INT8:
        case DTYPE_UINT8: ((uint8_t *)out)[i] = (uint8_t)gen_int_bits(v, spec.dtype); break;
        case DTYPE_INT32:
        case DTYPE_UINT32: ((uint32_t *)out)[i] = (uint32_t)gen_int_bits(v, spec.dtype); break;
        case DTYPE_INT64:
        case DTYPE_UINT64: ((u64 *)out)[i] = gen_int_bits(v, spec.dtype); break;
        default: break; // refused by the host before launching
        }
    }
}

// ---------------------------------------------------------------------------
// Order-independent hash of nbytes at p (8-byte aligned): the sum mod 2^64 of
// mix(word index, word) over the 8-byte words, the tail zero-padded. *out must
// be zero before the launch. Any change of a word changes its term.
static __device__ __forceinline__ u64 bw_hash_term(u64 index, u64 word)
{
    return bw_mix64(word ^ bw_mix64(index + 0x9E3779B97F4A7C15ull));
}

extern "C" __global__ void bw_hash(const unsigned char *p, u64 nbytes, u64 *out)
{
    const u64 *w = (const u64 *)p;
    u64 nwords = nbytes / 8, sum = 0;

    for (u64 i = bw_thread_index(); i < nwords; i += bw_thread_count())
        sum += bw_hash_term(i, w[i]);
    if (bw_thread_index() == 0 && (nbytes & 7)) {
        u64 tail = 0;
        for (u64 b = 0; b < (nbytes & 7); b++)
            tail |= (u64)p[nwords * 8 + b] << (8 * b);
        sum += bw_hash_term(nwords, tail);
    }
    bw_warp_add(sum, out);
}

// ---------------------------------------------------------------------------
// Guard bands: `bytes` bytes just before a buffer's data (band 0) and just
// after its last byte (band 1), each byte a hash of (salt, band, position) so
// that no constant and no copy of another band matches; the host mixes the
// buffer's address into the salt, so no copy of another buffer's band does.
static __device__ __forceinline__ unsigned char bw_guard_byte(unsigned int salt, unsigned int band,
                                                              unsigned int k)
{
    return (unsigned char)(bw_mix64(((u64)salt << 32) | ((u64)band << 24) | k) >> 56);
}

extern "C" __global__ void bw_guard_fill(unsigned char *before, unsigned char *after,
                                         unsigned int bytes, unsigned int salt)
{
    for (u64 j = bw_thread_index(); j < 2ull * bytes; j += bw_thread_count()) {
        unsigned int band = j >= bytes, k = (unsigned int)(j - (u64)band * bytes);
        (band ? after : before)[k] = bw_guard_byte(salt, band, k);
    }
}

// Finds the written guard byte nearest the data: *first_bad (set to ~0 before
// the launch) becomes min over bad bytes of a code: k for byte k of the band
// after (0 = the byte right after the data), bytes + (bytes - 1 - k) for byte
// k of the band before (so bytes = the byte right before the data). A tail
// overrun, the common bug, wins over a write before the data.
extern "C" __global__ void bw_guard_check(const unsigned char *before, const unsigned char *after,
                                          unsigned int bytes, unsigned int salt, u64 *first_bad)
{
    for (u64 j = bw_thread_index(); j < 2ull * bytes; j += bw_thread_count()) {
        unsigned int band = j >= bytes, k = (unsigned int)(j - (u64)band * bytes);
        if ((band ? after : before)[k] != bw_guard_byte(salt, band, k))
            atomicMin(first_bad, band ? (u64)k : (u64)bytes + (bytes - 1 - k));
    }
}

// ---------------------------------------------------------------------------
// Counts the elements of n * elem_size bytes at p whose every byte is 0xFF
// (the poison written before each run), into *count (zero before the launch).
// elem_size is 1, 2, 4 or 8 and p is aligned to it.
extern "C" __global__ void bw_poison_count(const void *p, u64 n, unsigned int elem_size,
                                           u64 *count)
{
    u64 c = 0;

    for (u64 i = bw_thread_index(); i < n; i += bw_thread_count()) {
        switch (elem_size) {
        case 1: c += ((const uint8_t *)p)[i] == 0xFFu; break;
        case 2: c += ((const uint16_t *)p)[i] == 0xFFFFu; break;
        case 4: c += ((const uint32_t *)p)[i] == 0xFFFFFFFFu; break;
        default: c += ((const u64 *)p)[i] == ~0ull; break;
        }
    }
    bw_warp_add(c, count);
}

// ---------------------------------------------------------------------------
// dst[j] = src[idx[j]] for n elements of elem_size bytes, byte by byte (dst
// may sit at any byte offset of the gather area). The host has checked every
// index against the source's `count` elements, but the indices live in device
// memory a learner's kernel can write: an index out of range gives 0xFF bytes
// (poison) instead of a fault.
extern "C" __global__ void bw_gather(const unsigned char *src, unsigned int elem_size,
                                     const long long *idx, u64 n, unsigned char *dst, u64 count)
{
    for (u64 j = bw_thread_index(); j < n; j += bw_thread_count()) {
        u64 k = (u64)idx[j];
        unsigned char *d = dst + j * elem_size;
        for (unsigned int b = 0; b < elem_size; b++)
            d[b] = k < count ? src[k * elem_size + b] : 0xFF;
    }
}

// ---------------------------------------------------------------------------
// The SM clock without NVML: one thread counts SM cycles (clock64) while the
// global nanosecond timer advances by `ns`; out = {cycles, nanoseconds}.
// MHz = 1000 * cycles / nanoseconds. Launch with one thread.
extern "C" __global__ void bw_clock(u64 *out, u64 ns)
{
    u64 t0, t1, c0, c1;

    asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t0));
    c0 = clock64();
    do {
        asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t1));
    } while (t1 - t0 < ns);
    c1 = clock64();
    out[0] = c1 - c0;
    out[1] = t1 - t0;
}

// ---------------------------------------------------------------------------
// Copy bandwidth: one 16-byte load and store per thread, coalesced, n16
// vectors. Measured with a kernel rather than cuMemcpyDtoDAsync so the figure
// is what a learner's kernel can reach with the same instructions.
extern "C" __global__ void bw_copy(const uint4 *__restrict__ src, uint4 *__restrict__ dst, u64 n16)
{
    u64 i = (u64)blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n16)
        dst[i] = src[i];
}

// ---------------------------------------------------------------------------
// Calibration. Each thread runs BW_CHAINS independent dependency chains so the
// pipes never wait on a result; the loop is unrolled so that almost every
// issued instruction is the one measured; the result is stored so nothing is
// optimised away. FLOPs = 2 * chains * iters per thread (FFMA) or 4096 per
// mma per warp (m16n8k16: 2 * 16 * 8 * 16).
#define BW_CHAINS 8

// Launch 256 threads per block, 8 blocks per SM (2048 threads: full occupancy).
extern "C" __global__ void __launch_bounds__(256, 8)
    bw_ffma(float *out, float a, float b, int iters)
{
    float x[BW_CHAINS];

#pragma unroll
    for (int k = 0; k < BW_CHAINS; k++)
        x[k] = (float)(threadIdx.x + k) * 1e-3f;
#pragma unroll 16
    for (int i = 0; i < iters; i++) {
#pragma unroll
        for (int k = 0; k < BW_CHAINS; k++)
            x[k] = fmaf(x[k], a, b);
    }
    float s = 0.0f;
#pragma unroll
    for (int k = 0; k < BW_CHAINS; k++)
        s += x[k];
    out[bw_thread_index()] = s;
}

#define BW_MMA_ACC 4 // independent accumulators per warp

// One warp-wide mma.sync m16n8k16 with fp32 accumulate; F16 picks fp16 or bf16 inputs.
template <bool F16>
static __device__ __forceinline__ void bw_mma(float c[4], const unsigned a[4], const unsigned b[2])
{
    if (F16)
        asm volatile("mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 "
                     "{%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9}, {%0,%1,%2,%3};\n"
                     : "+f"(c[0]), "+f"(c[1]), "+f"(c[2]), "+f"(c[3])
                     : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b[0]), "r"(b[1]));
    else
        asm volatile("mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32 "
                     "{%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9}, {%0,%1,%2,%3};\n"
                     : "+f"(c[0]), "+f"(c[1]), "+f"(c[2]), "+f"(c[3])
                     : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b[0]), "r"(b[1]));
}

// Register-only tensor-core loop: the mma.sync ceiling (below wgmma's on Hopper).
template <bool F16> static __device__ void bw_mma_loop(float *out, int iters)
{
    // Operands near 1 with varied low bits (fp16 0x3C00 / bf16 0x3F80 is 1.0),
    // so the tensor cores see data that toggles rather than constant zeros.
    unsigned base = F16 ? 0x3C00u : 0x3F80u;
    unsigned t = threadIdx.x;
    unsigned a[4], b[2];
    float c[BW_MMA_ACC][4];

#pragma unroll
    for (int k = 0; k < 4; k++) {
        unsigned lo = base | ((t * 7u + k) & 0x3Fu), hi = base | ((t * 13u + k) & 0x3Fu);
        a[k] = lo | (hi << 16);
    }
    b[0] = (base | (t & 0x3Fu)) | ((base | ((t >> 1) & 0x3Fu)) << 16);
    b[1] = (base | ((t >> 2) & 0x3Fu)) | ((base | ((t >> 3) & 0x3Fu)) << 16);
#pragma unroll
    for (int k = 0; k < BW_MMA_ACC; k++)
        c[k][0] = c[k][1] = c[k][2] = c[k][3] = 0.0f;
#pragma unroll 4
    for (int i = 0; i < iters; i++) {
#pragma unroll
        for (int k = 0; k < BW_MMA_ACC; k++)
            bw_mma<F16>(c[k], a, b);
    }
    float s = 0.0f;
#pragma unroll
    for (int k = 0; k < BW_MMA_ACC; k++)
        s += c[k][0] + c[k][1] + c[k][2] + c[k][3];
    out[bw_thread_index()] = s;
}

// Launch 256 threads per block, 4 blocks per SM.
extern "C" __global__ void __launch_bounds__(256, 4) bw_mma_f16(float *out, int iters)
{
    bw_mma_loop<true>(out, iters);
}

extern "C" __global__ void __launch_bounds__(256, 4) bw_mma_bf16(float *out, int iters)
{
    bw_mma_loop<false>(out, iters);
}
