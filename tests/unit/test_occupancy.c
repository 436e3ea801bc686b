/*
 * test_occupancy.c - judge/worker/occupancy.h: hand-worked cases on an
 * H100/H200 (cc 9.0) and an A100 (cc 8.0), and the module against the CUDA
 * toolkit's own occupancy calculator (cuda_occupancy.h, compiled here) over
 * many launches.
 */
#include <cuda_occupancy.h>
#include <limits.h>
#include <stdlib.h>

#include "../test.h"
#include "judge/worker/occupancy.h"

/* An H100 / H200 SXM (compute capability 9.0): cudaGetDeviceProperties' figures. */
static const struct profile_device hopper = {
    .cc_major = 9,
    .cc_minor = 0,
    .sm_count = 132,
    .warp_size = 32,
    .max_threads_per_block = 1024,
    .max_threads_per_sm = 2048,
    .max_blocks_per_sm = 32,
    .regs_per_sm = 65536,
    .regs_per_block = 65536,
    .smem_per_sm = 233472,
    .smem_per_block = 49152,
    .smem_per_block_optin = 232448,
    .reserved_smem_per_block = 1024,
};

/* An A100 (8.0): 164 KiB of shared memory per SM, 163 KiB a block. */
static const struct profile_device ampere = {
    .cc_major = 8,
    .cc_minor = 0,
    .sm_count = 108,
    .warp_size = 32,
    .max_threads_per_block = 1024,
    .max_threads_per_sm = 2048,
    .max_blocks_per_sm = 32,
    .regs_per_sm = 65536,
    .regs_per_block = 65536,
    .smem_per_sm = 167936,
    .smem_per_block = 49152,
    .smem_per_block_optin = 166912,
    .reserved_smem_per_block = 1024,
};

static struct occupancy occ(const struct profile_device *d, int threads, int regs, int smem,
                            int dyn)
{
    struct occupancy o;
    struct occupancy_kernel k = {threads, regs, smem, dyn, 0};
    char *cause = NULL;

    if (occupancy_compute(d, &k, &o, &cause) != 0)
        memset(&o, 0, sizeof(o));
    free(cause);
    return o;
}

TEST(occupancy_full_with_small_kernels)
{
    struct occupancy o = occ(&hopper, 256, 32, 0, 0); /* 8 blocks of 8 warps: 64 of 64 */

    CHECK_INT_EQ(o.blocks_per_sm, 8);
    CHECK_INT_EQ(o.warps_per_sm, 64);
    CHECK(o.pct == 100.0);
    CHECK_STR_EQ(occupancy_limiter_name(o.limiter), "none");
}

TEST(occupancy_registers)
{
    /* 64 registers: 2048 a warp, 8 warps a sub-partition, 32 an SM: 4 blocks of 256 */
    struct occupancy o = occ(&hopper, 256, 64, 0, 0);

    CHECK_INT_EQ(o.blocks_per_sm, 4);
    CHECK(o.pct == 50.0);
    CHECK_STR_EQ(occupancy_limiter_name(o.limiter), "registers");
    /* 40 registers round to 1280 a warp: 12 warps a sub-partition, 48 an SM, 6 blocks of 8 */
    o = occ(&hopper, 256, 40, 0, 0);
    CHECK_INT_EQ(o.blocks_per_sm, 6);
    CHECK(o.pct == 75.0);
    CHECK_INT_EQ(o.limiter, OCC_REGISTERS);
    /* 255 registers: 8192 a warp, 2 warps a sub-partition: one block of 256 threads */
    o = occ(&hopper, 256, 255, 0, 0);
    CHECK_INT_EQ(o.blocks_per_sm, 1);
    CHECK(o.pct == 12.5);
}

TEST(occupancy_shared_memory)
{
    /* 48 KiB static + 1 KiB reserved = 50176 B: 4 blocks in 228 KiB; 4 warps each: 25% */
    struct occupancy o = occ(&hopper, 128, 32, 49152, 0);

    CHECK_INT_EQ(o.blocks_per_sm, 4);
    CHECK(o.pct == 25.0);
    CHECK_STR_EQ(occupancy_limiter_name(o.limiter), "shared memory");
    /* 100 KiB dynamic (an opt-in block) + 1 KiB: 2 blocks of 256 threads */
    o = occ(&hopper, 256, 32, 0, 102400);
    CHECK_INT_EQ(o.blocks_per_sm, 2);
    CHECK_INT_EQ(o.limiter, OCC_SHARED_MEMORY);
    /* the same on an A100's 164 KiB: 1 block */
    o = occ(&ampere, 256, 32, 0, 102400);
    CHECK_INT_EQ(o.blocks_per_sm, 1);
}

TEST(occupancy_block_shape)
{
    /* 768 threads = 24 warps: 2 blocks, 48 of 64 warps (16 registers would allow 5) */
    struct occupancy o = occ(&hopper, 768, 16, 0, 0);

    CHECK_INT_EQ(o.blocks_per_sm, 2);
    CHECK(o.pct == 75.0);
    CHECK_STR_EQ(occupancy_limiter_name(o.limiter), "threads per block");
    /* 32-thread blocks: 32 blocks an SM hold 32 of 64 warps */
    o = occ(&hopper, 32, 16, 0, 0);
    CHECK_INT_EQ(o.blocks_per_sm, 32);
    CHECK(o.pct == 50.0);
    CHECK_STR_EQ(occupancy_limiter_name(o.limiter), "blocks per SM");
    /* 1024 threads: 2 blocks, full */
    o = occ(&hopper, 1024, 32, 0, 0);
    CHECK_INT_EQ(o.blocks_per_sm, 2);
    CHECK_INT_EQ(o.limiter, OCC_NONE);
    /* 768 threads with 40 registers: registers allow 2 blocks too; a tie names registers */
    o = occ(&hopper, 768, 40, 0, 0);
    CHECK_INT_EQ(o.blocks_per_sm, 2);
    CHECK_INT_EQ(o.by_warps, 2);
    CHECK_INT_EQ(o.by_regs, 2);
    CHECK_INT_EQ(o.limiter, OCC_REGISTERS);
}

TEST(occupancy_refuses_what_cannot_run)
{
    struct occupancy o;
    struct occupancy_kernel k = {1025, 32, 0, 0, 0};
    struct profile_device none = {0};
    char *cause = NULL;

    CHECK(occupancy_compute(&hopper, &k, &o, &cause) != 0);
    CHECK_CONTAINS(cause, "does not fit an SM");
    free(cause);
    cause = NULL;
    k.threads = 256;
    CHECK(occupancy_compute(&none, &k, &o, &cause) != 0);
    CHECK_CONTAINS(cause, "the device's limits are incomplete");
    free(cause);
}

/* The toolkit's calculator on the same launch: blocks per SM, -1 when it refuses. */
static int toolkit_blocks(const struct profile_device *d, int threads, int regs, int smem, int dyn,
                          int barriers)
{
    cudaOccDeviceProp p;
    cudaOccFuncAttributes a;
    cudaOccDeviceState s;
    cudaOccResult r;

    memset(&p, 0, sizeof(p));
    memset(&a, 0, sizeof(a));
    memset(&s, 0, sizeof(s));
    memset(&r, 0, sizeof(r));
    p.computeMajor = d->cc_major;
    p.computeMinor = d->cc_minor;
    p.maxThreadsPerBlock = d->max_threads_per_block;
    p.maxThreadsPerMultiprocessor = d->max_threads_per_sm;
    p.regsPerBlock = d->regs_per_block;
    p.regsPerMultiprocessor = d->regs_per_sm;
    p.warpSize = d->warp_size;
    p.sharedMemPerBlock = (size_t)d->smem_per_block;
    p.sharedMemPerMultiprocessor = (size_t)d->smem_per_sm;
    p.numSms = d->sm_count;
    p.sharedMemPerBlockOptin = (size_t)d->smem_per_block_optin;
    p.reservedSharedMemPerBlock = (size_t)d->reserved_smem_per_block;
    a.maxThreadsPerBlock = 1024;
    a.numRegs = regs;
    a.sharedSizeBytes = (size_t)smem;
    a.partitionedGCConfig = PARTITIONED_GC_OFF;
    a.shmemLimitConfig = FUNC_SHMEM_LIMIT_OPTIN; /* the runner opts in above 48 KiB */
    a.maxDynamicSharedSizeBytes = (size_t)d->smem_per_block_optin - (size_t)smem;
    a.numBlockBarriers = barriers;
    s.cacheConfig = CACHE_PREFER_NONE;
    s.carveoutConfig = SHAREDMEM_CARVEOUT_DEFAULT;
    if (cudaOccMaxActiveBlocksPerMultiprocessor(&r, &p, &a, &s, threads, (size_t)dyn) !=
        CUDA_OCC_SUCCESS)
        return -1;
    return r.activeBlocksPerMultiprocessor;
}

TEST(occupancy_matches_the_toolkit_calculator)
{
    static const int threads[] = {32, 64, 96, 128, 160, 192, 256, 288, 384, 512, 640, 768, 1024};
    static const int regs[] = {0, 8, 16, 24, 32, 40, 48, 56, 64, 72, 80, 96, 128, 168, 200, 255};
    static const int smem[] = {0, 1000, 4096, 16384, 40000, 49152};
    static const int dyn[] = {0, 2048, 20000, 65536, 100000, 150000};
    const struct profile_device *devs[] = {&hopper, &ampere};
    int compared = 0, mismatches = 0;

    for (size_t d = 0; d < 2; d++)
        for (size_t t = 0; t < sizeof(threads) / sizeof(threads[0]); t++)
            for (size_t r = 0; r < sizeof(regs) / sizeof(regs[0]); r++)
                for (size_t s = 0; s < sizeof(smem) / sizeof(smem[0]); s++)
                    for (size_t y = 0; y < sizeof(dyn) / sizeof(dyn[0]); y++)
                        for (int bar = 0; bar <= 3; bar += 3) {
                            struct occupancy_kernel k = {threads[t], regs[r], smem[s], dyn[y], bar};
                            struct occupancy o;
                            char *cause = NULL;
                            int want =
                                toolkit_blocks(devs[d], threads[t], regs[r], smem[s], dyn[y], bar);
                            int rc = occupancy_compute(devs[d], &k, &o, &cause);
                            int got = rc == 0 ? o.blocks_per_sm : 0;
                            free(cause);
                            if (want < 0)
                                continue; /* an input the toolkit refuses: not compared */
                            compared++;
                            if (got != want && mismatches++ < 5)
                                CHECK_MSG(got == want,
                                          "cc %d.%d, %d threads, %d regs, %d+%d smem, %d "
                                          "barriers: %d blocks, the toolkit says %d",
                                          devs[d]->cc_major, devs[d]->cc_minor, threads[t], regs[r],
                                          smem[s], dyn[y], bar, got, want);
                        }
    CHECK_INT_EQ(mismatches, 0);
    CHECK(compared > 10000);
}
