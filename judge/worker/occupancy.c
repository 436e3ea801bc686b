#include "occupancy.h"

#include <limits.h>
#include <string.h>

#include "common/error.h"
#include "common/banned.h"

#define REG_ALLOC_UNIT      256 /* registers per warp are allocated in these (cc 3.0 to 12.x) */
#define SUB_PARTITIONS      4   /* per SM from cc 7.0 on */
#define MAX_REGS_PER_THREAD 256

static const char *const limiter_names[] = {
    [OCC_NONE] = "none",
    [OCC_REGISTERS] = "registers",
    [OCC_SHARED_MEMORY] = "shared memory",
    [OCC_THREADS_PER_BLOCK] = "threads per block",
    [OCC_BLOCKS_PER_SM] = "blocks per SM",
    [OCC_BARRIERS] = "barriers",
};

const char *occupancy_limiter_name(enum occupancy_limiter l)
{
    return (unsigned)l <= OCC_BARRIERS ? limiter_names[l] : "?";
}

static long round_up(long x, long unit)
{
    return (x + unit - 1) / unit * unit;
}

static int min_int(int a, int b)
{
    return a < b ? a : b;
}

static int by_registers(const struct profile_device *d, const struct occupancy_kernel *k,
                        int warps_per_block)
{
    long per_warp = round_up((long)k->regs * d->warp_size, REG_ALLOC_UNIT);
    long per_block = per_warp * warps_per_block;
    /* The hardware's check assumes a block's warps spread over every sub-partition. */
    long assumed = per_warp * round_up(warps_per_block, SUB_PARTITIONS);

    if (d->regs_per_block < assumed || d->regs_per_block < per_block ||
        k->regs > MAX_REGS_PER_THREAD)
        return 0;
    if (per_warp == 0)
        return INT_MAX;
    return (int)((d->regs_per_sm / SUB_PARTITIONS / per_warp) * SUB_PARTITIONS / warps_per_block);
}

static int by_shared(const struct profile_device *d, const struct occupancy_kernel *k)
{
    long unit = d->cc_major >= 8 ? 128 : 256;
    long stat = (long)k->static_smem + d->reserved_smem_per_block;
    long alloc = round_up(stat + k->dynamic_smem, unit);
    /* over 48 KiB a block must opt in (the runner raises the kernel's limit when it does) */
    long limit =
        (k->static_smem + (long)k->dynamic_smem > d->smem_per_block ? d->smem_per_block_optin
                                                                    : d->smem_per_block) +
        (d->cc_major >= 8 ? d->reserved_smem_per_block : 0);

    if (alloc > limit)
        return 0;
    return alloc > 0 ? (int)(d->smem_per_sm / alloc) : INT_MAX;
}

/* The SM's named barriers, per cuda_occupancy.h's cudaOccMaxBlocksPerSMBlockBarrierLimit. */
static int by_barriers(const struct profile_device *d, const struct occupancy_kernel *k,
                       int by_blocks)
{
    int per_block_slots = 2;

    if (d->cc_major < 9 || k->barriers <= 0)
        return INT_MAX;
    if ((d->cc_major == 10 && d->cc_minor == 1) || (d->cc_major == 11 && d->cc_minor == 0) ||
        d->cc_major == 12)
        per_block_slots = 1;
    return by_blocks * per_block_slots / k->barriers;
}

int occupancy_compute(const struct profile_device *d, const struct occupancy_kernel *k,
                      struct occupancy *out, char **cause)
{
    int warps_per_block, blocks;
    struct {
        enum occupancy_limiter l;
        int by;
    } order[5];

    memset(out, 0, sizeof(*out));
    if (d->warp_size <= 0 || d->max_threads_per_sm <= 0 || d->max_blocks_per_sm <= 0 ||
        d->regs_per_sm <= 0 || d->regs_per_block <= 0 || d->smem_per_sm <= 0 ||
        d->smem_per_block <= 0 || d->max_threads_per_block <= 0)
        return bw_fail(cause, BW_ERR_INVALID,
                       "the device's limits are incomplete (warp size %d, %d threads, %d blocks, "
                       "%d registers, %d bytes of shared memory per SM)",
                       d->warp_size, d->max_threads_per_sm, d->max_blocks_per_sm, d->regs_per_sm,
                       d->smem_per_sm);
    if (d->cc_major < 7)
        return bw_fail(cause, BW_ERR_INVALID,
                       "occupancy rules for compute capability %d.%d are not known here (7.0 or "
                       "later)",
                       d->cc_major, d->cc_minor);
    if (k->threads <= 0 || k->regs < 0 || k->static_smem < 0 || k->dynamic_smem < 0)
        return bw_fail(cause, BW_ERR_INVALID, "a block of %d threads cannot run", k->threads);
    warps_per_block = (k->threads + d->warp_size - 1) / d->warp_size;
    out->max_warps_per_sm = d->max_threads_per_sm / d->warp_size;
    out->by_warps =
        k->threads > d->max_threads_per_block ? 0 : out->max_warps_per_sm / warps_per_block;
    out->by_regs = by_registers(d, k, warps_per_block);
    out->by_smem = by_shared(d, k);
    out->by_blocks = d->max_blocks_per_sm;
    out->by_barriers = by_barriers(d, k, out->by_blocks);
    order[0].l = OCC_REGISTERS, order[0].by = out->by_regs;
    order[1].l = OCC_SHARED_MEMORY, order[1].by = out->by_smem;
    order[2].l = OCC_THREADS_PER_BLOCK, order[2].by = out->by_warps;
    order[3].l = OCC_BLOCKS_PER_SM, order[3].by = out->by_blocks;
    order[4].l = OCC_BARRIERS, order[4].by = out->by_barriers;
    blocks = INT_MAX;
    for (int i = 0; i < 5; i++)
        blocks = min_int(blocks, order[i].by);
    if (blocks <= 0)
        return bw_fail(cause, BW_ERR_INVALID,
                       "a block of %d threads with %d registers each and %d bytes of shared "
                       "memory does not fit an SM",
                       k->threads, k->regs, k->static_smem + k->dynamic_smem);
    out->blocks_per_sm = blocks;
    out->warps_per_sm = blocks * warps_per_block;
    out->pct = 100.0 * out->warps_per_sm / out->max_warps_per_sm;
    out->limiter = OCC_NONE;
    if (out->warps_per_sm < out->max_warps_per_sm)
        for (int i = 0; i < 5 && out->limiter == OCC_NONE; i++)
            if (order[i].by == blocks)
                out->limiter = order[i].l;
    return BW_OK;
}
