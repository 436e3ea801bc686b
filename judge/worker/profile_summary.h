/*
 * profile_summary.h - a profile's raw counters (the runner's profile_reply)
 * turned into what a learner reads: per kernel launch the figures of the
 * Profile contract (docs/profile.md), what limits the kernel, the top stall
 * reasons, its bytes against the problem's model, and a one-line reading;
 * one line for the whole plan; and the raw values for download.
 *
 * Pure: no I/O, no runner, no clock; tests/unit/test_profile_summary.c
 * feeds it recorded values.
 *
 * The limiter (of one kernel launch):
 *   memory   the busiest of DRAM, L2 and L1 is at BW_PROFILE_BUSY_PCT of
 *            its peak or more, and at least as busy as compute;
 *   compute  the busiest of the SM (issue), the FMA pipe and the tensor
 *            pipes is, and busier than memory;
 *   latency  neither is: the units wait (on memory latency, dependencies,
 *            barriers: the stall reasons say which), the kind of kernel
 *            more parallelism, more work in flight or fewer dependent steps
 *            helps;
 *   null     the profiler gave no throughput figure at all.
 * The same rule Nsight Compute's speed-of-light section applies, with one
 * threshold (its own guidance calls a unit above ~60% busy the limit).
 */
#ifndef BW_PROFILE_SUMMARY_H
#define BW_PROFILE_SUMMARY_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <jansson.h>

#include "occupancy.h"
#include "common/limits.h"
#include "wire/runner_proto.h"

enum profile_limiter { PROFILE_LIMITER_UNKNOWN, PROFILE_MEMORY, PROFILE_COMPUTE, PROFILE_LATENCY };

/* "memory", "compute", "latency"; NULL for PROFILE_LIMITER_UNKNOWN (null in the JSON). */
const char *profile_limiter_name(enum profile_limiter l);

#define PROFILE_TOP_STALLS    3
#define PROFILE_READING_BYTES 320

/* One kernel launch summarised. Doubles are NaN where the GPU gave nothing (null). */
struct profile_kernel {
    char kernel[BW_MAX_NAME + 1]; /* as the learner wrote it */
    int launch;
    uint32_t grid[3], block[3];
    double duration_ms;
    double dram_pct, l2_pct, l1_pct, sm_pct, fma_pct, tensor_pct;
    double occupancy_achieved_pct, occupancy_theoretical_pct;
    bool occupancy_known; /* the calculator could work it out */
    enum occupancy_limiter occupancy_limiter;
    int n_stalls;                         /* 0..PROFILE_TOP_STALLS */
    int stall_metric[PROFILE_TOP_STALLS]; /* enum profile_metric of each, largest first */
    double stall_pct[PROFILE_TOP_STALLS]; /* its share of every stall reason read, in % */
    double l1_hit_pct, l2_hit_pct;
    double dram_bytes;  /* read + written */
    double model_bytes; /* the problem's bytes for the case (the whole plan's) */
    enum profile_limiter limiter;
    char reading[PROFILE_READING_BYTES];
};

/* What summarising one launch needs besides the runner's range. */
struct profile_launch_info {
    const char *kernel; /* the learner's name for it (borrowed) */
    int barriers;       /* named barriers per block, from the compile report; 0: none known */
};

/*
 * Summarises range g (one launch) on device d into *out, with the
 * problem's bytes for the case (`model_bytes`, <= 0: unknown). Never fails:
 * a figure the GPU did not give, or an occupancy the calculator cannot work
 * out, is null.
 */
void profile_summarize(const struct profile_range *g, const struct profile_device *d,
                       const struct profile_launch_info *info, double model_bytes,
                       struct profile_kernel *out);

/* The plan's one line into out (cap bytes): the reading of the launch that took the most GPU
 * time, named when there are several, and the plan's bytes against the model. */
void profile_plan_reading(const struct profile_kernel *k, int n, char *out, size_t cap);

/* One launch as the contract's "kernels" entry (a *new* object); what wire/worker_proto.h's
 * decoder accepts (tests/unit/test_profile_summary.c reads it so). */
json_t *profile_kernel_json(const struct profile_kernel *k);

/* The contract's "raw": {"<kernel>#<launch>": {"<metric name>": value or null}}, every metric
 * the GPU knew, under the name it was read (a *new* object). */
json_t *profile_raw_json(const struct profile_reply *r, const struct profile_kernel *k, int n);

/* "CUPTI 13.0 range profiler (GH100), kernel replay, 9 passes" into out. */
void profile_profiler_text(const struct profile_reply *r, char *out, size_t cap);

#endif
