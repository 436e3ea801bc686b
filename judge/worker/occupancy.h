/*
 * occupancy.h - theoretical occupancy of a kernel launch, and what limits
 * it, computed from the device's limits and the kernel's resources.
 *
 * The rules are NVIDIA's occupancy calculator's as the CUDA toolkit's
 * cuda_occupancy.h states them (cudaOccMaxActiveBlocksPerMultiprocessor,
 * CUDA 13.0), for compute capability 7.0 and later, the default shared
 * memory carveout (all of the SM's shared memory may be used) and no
 * partitioned global caching:
 *   warps:     a block of T threads takes ceil(T / warp size) warps; an SM
 *              holds max_threads_per_sm / warp size of them;
 *   registers: a warp's registers are rounded up to 256; each of the SM's 4
 *              sub-partitions holds regs_per_sm / 4 of them, so as many
 *              warps as fit there, times 4; a block whose warps (rounded up
 *              to 4) do not fit regs_per_block cannot run;
 *   shared:    static + dynamic + the driver's reserved bytes per block,
 *              rounded up to 128 bytes (256 before compute capability 8);
 *              as many blocks as fit smem_per_sm;
 *   blocks:    max_blocks_per_sm;
 *   barriers:  from compute capability 9.0, a block's named barriers share
 *              the SM's (max_blocks_per_sm x 2 on 9.0) when it uses any.
 * The blocks per SM are the least of these; the occupancy is the warps they
 * hold over the SM's maximum. (cuda_occupancy.h's virtual-resource limit of
 * compute capability 10 to 12 needs a count the driver does not report; it
 * is not applied.) tests/unit/test_occupancy.c checks this module against
 * cuda_occupancy.h itself on many launches, and on hand-worked cases.
 */
#ifndef BW_OCCUPANCY_H
#define BW_OCCUPANCY_H

#include "wire/runner_proto.h"

/* What limits the occupancy; OCC_NONE when it is the SM's maximum. */
enum occupancy_limiter {
    OCC_NONE,
    OCC_REGISTERS,
    OCC_SHARED_MEMORY,
    OCC_THREADS_PER_BLOCK, /* the block's warps do not divide the SM's */
    OCC_BLOCKS_PER_SM,     /* blocks too small to fill the SM's warps */
    OCC_BARRIERS,
};

/* "none", "registers", "shared memory", "threads per block", "blocks per SM", "barriers". */
const char *occupancy_limiter_name(enum occupancy_limiter l);

struct occupancy_kernel {
    int threads;      /* per block */
    int regs;         /* per thread */
    int static_smem;  /* bytes */
    int dynamic_smem; /* bytes */
    int barriers;     /* named barriers per block; 0: none or unknown */
};

struct occupancy {
    int blocks_per_sm; /* resident at once */
    int warps_per_sm;
    int max_warps_per_sm;
    double pct; /* theoretical occupancy: warps_per_sm / max_warps_per_sm, in % */
    enum occupancy_limiter limiter;
    /* the blocks per SM each resource allows (INT_MAX: unlimited by it) */
    int by_warps, by_regs, by_smem, by_blocks, by_barriers;
};

/*
 * Computes *out. When several resources allow the same, least, number of
 * blocks, the limiter is the first of registers, shared memory, threads per
 * block, blocks per SM, barriers. BW_ERR_INVALID with the cause when the
 * device's limits are missing (zero) or the launch cannot run at all.
 */
int occupancy_compute(const struct profile_device *d, const struct occupancy_kernel *k,
                      struct occupancy *out, char **cause);

#endif
