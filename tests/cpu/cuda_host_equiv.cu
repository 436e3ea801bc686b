/*
 * cuda_host_equiv.cu - checks our software conversions and Philox against
 * CUDA's own code, compiled for the host (no GPU needed).
 *
 * cuda_fp16.h and cuda_bf16.h have host implementations of __float2half_rn,
 * __double2half, __float2bfloat16_rn, __double2bfloat16 and the reverse; these
 * are what a kernel's conversions compute, so common/dtype.c must agree bit
 * for bit (NaN: both NaN). cuRAND's Philox4_32_10 functions are device-only by
 * their QUALIFIERS macro; defining it as __host__ __device__ first lets
 * curand_init/curand run here, and their stream must equal the mapping that
 * tests/unit/test_philox.c documents. Prints one ok/FAIL line per check and the
 * usual summary line.
 */
#define QUALIFIERS static __forceinline__ __host__ __device__
#include <curand_kernel.h>
#include <cuda_bf16.h>
#include <cuda_fp16.h>

#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstring>

extern "C" {
#include "common/dtype.h"
#include "common/philox.h"
}

static int passed, failed;

static void report(const char *name, long bad, long n)
{
    if (bad == 0) {
        printf("ok   %s (%ld values)\n", name, n);
        passed++;
    } else {
        printf("FAIL %s: %ld of %ld differ\n", name, bad, n);
        failed++;
    }
}

static uint64_t rng = 0x243F6A8885A308D3ull;

static uint64_t next64()
{
    rng ^= rng << 13;
    rng ^= rng >> 7;
    rng ^= rng << 17;
    return rng;
}

static uint16_t bits16(__half h)
{
    uint16_t u;
    memcpy(&u, &h, 2);
    return u;
}

static uint16_t bits16(__nv_bfloat16 b)
{
    uint16_t u;
    memcpy(&u, &b, 2);
    return u;
}

static bool nan16(uint16_t h, int mbits)
{
    uint16_t exp = (uint16_t)(0x7FFF & ~((1u << mbits) - 1));
    return (h & exp) == exp && (h & ((1u << mbits) - 1)) != 0;
}

/* Same bits, or both NaN (payloads may differ in the quiet bit). */
static bool same16(uint16_t a, uint16_t b, int mbits)
{
    return a == b || (nan16(a, mbits) && nan16(b, mbits));
}

static void check_from_float()
{
    long bad_h = 0, bad_b = 0, n = 0;
    for (uint64_t u = 0; u < (1ull << 32); u += 61) {
        uint32_t w = (uint32_t)u;
        float f;
        memcpy(&f, &w, 4);
        n++;
        if (!same16(float_to_fp16(f), bits16(__float2half_rn(f)), 10) && bad_h++ < 3)
            printf("  float %a: fp16 %04x, cuda %04x\n", f, float_to_fp16(f),
                   bits16(__float2half_rn(f)));
        if (!same16(float_to_bf16(f), bits16(__float2bfloat16_rn(f)), 7) && bad_b++ < 3)
            printf("  float %a: bf16 %04x, cuda %04x\n", f, float_to_bf16(f),
                   bits16(__float2bfloat16_rn(f)));
    }
    report("float_to_fp16 == __float2half_rn (every 61st float)", bad_h, n);
    report("float_to_bf16 == __float2bfloat16_rn (every 61st float)", bad_b, n);
}

static void check_from_double()
{
    long bad_h = 0, bad_b = 0, n = 0;
    for (long i = 0; i < 4000000; i++) {
        uint64_t r = next64();
        double d;
        memcpy(&d, &r, 8);
        if (i & 1) /* half of them near the narrow formats' ranges */
            d = ldexp(1.0 + (double)(r >> 11) * 0x1p-53, (int)(next64() % 300) - 150);
        if (i % 4 == 2) /* and some just off a tie of fp16 or bf16 */
            d = ldexp(1.0 + (double)(next64() % 2048) * 0x1p-11 + ((r & 2) ? 0x1p-40 : -0x1p-40),
                      (int)(next64() % 40) - 20);
        uint16_t h = 0, b = 0;
        dtype_store(DTYPE_FP16, &h, d);
        dtype_store(DTYPE_BF16, &b, d);
        n++;
        if (!same16(h, bits16(__double2half(d)), 10) && bad_h++ < 3)
            printf("  double %a: fp16 %04x, cuda %04x\n", d, h, bits16(__double2half(d)));
        if (!same16(b, bits16(__double2bfloat16(d)), 7) && bad_b++ < 3)
            printf("  double %a: bf16 %04x, cuda %04x\n", d, b, bits16(__double2bfloat16(d)));
    }
    report("dtype_store(fp16) == __double2half", bad_h, n);
    report("dtype_store(bf16) == __double2bfloat16", bad_b, n);
}

static void check_to_float()
{
    long bad = 0;
    for (uint32_t i = 0; i < 65536; i++) {
        uint16_t u = (uint16_t)i;
        __half_raw hr;
        __nv_bfloat16_raw br;
        hr.x = u;
        br.x = u;
        __half h = hr;
        __nv_bfloat16 b = br;
        float ours_h = fp16_to_float(u), cuda_h = __half2float(h);
        float ours_b = bf16_to_float(u), cuda_b = __bfloat162float(b);
        bool ok_h = (std::isnan(ours_h) && std::isnan(cuda_h)) || memcmp(&ours_h, &cuda_h, 4) == 0;
        bool ok_b = (std::isnan(ours_b) && std::isnan(cuda_b)) || memcmp(&ours_b, &cuda_b, 4) == 0;
        bad += !ok_h + !ok_b;
    }
    report("fp16_to_float / bf16_to_float == __half2float / __bfloat162float", bad, 2 * 65536);
}

static uint32_t curand_equivalent(uint64_t seed, uint64_t subsequence, uint64_t offset, uint64_t k)
{
    uint64_t pos = offset % 4 + k;
    uint64_t lo_in = offset / 4;
    uint64_t lo = lo_in + pos / 4;
    uint64_t hi = subsequence + (lo < lo_in ? 1 : 0);
    struct philox4x32 c = {
        {(uint32_t)lo, (uint32_t)(lo >> 32), (uint32_t)hi, (uint32_t)(hi >> 32)}};
    return philox4x32_10(c, (uint32_t)seed, (uint32_t)(seed >> 32)).v[pos % 4];
}

static void check_curand()
{
    long bad = 0, n = 0;
    for (int i = 0; i < 20000; i++) {
        uint64_t seed = next64(), sub = next64(), off = next64();
        if (i % 3 == 1) { /* small values, as the judge uses */
            sub %= 1024;
            off %= 1u << 20;
        }
        curandStatePhilox4_32_10_t st;
        curand_init(seed, sub, off, &st);
        for (uint64_t k = 0; k < 9; k++) {
            uint32_t want = curand(&st);
            n++;
            if (curand_equivalent(seed, sub, off, k) != want && bad++ < 3)
                printf("  seed %llx sub %llx off %llx k %llu: %08x, curand %08x\n",
                       (unsigned long long)seed, (unsigned long long)sub, (unsigned long long)off,
                       (unsigned long long)k, curand_equivalent(seed, sub, off, k), want);
        }
    }
    report("philox4x32_10 mapping == curand_init + curand (Philox4_32_10)", bad, n);
}

int main()
{
    check_to_float();
    check_from_float();
    check_from_double();
    check_curand();
    printf("%d passed, %d failed, 0 skipped\n", passed, failed);
    return failed != 0;
}
