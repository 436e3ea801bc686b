/*
 * runner_proto_profile.c - the runner codec's profile request and reply
 * (runner_proto.h), and the one table of the metrics a profile reads.
 */
#include "runner_proto.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "runner_proto_fields.h"
#include "common/error.h"
#include "common/util.h"
#include "common/banned.h"

_Static_assert(PM_COUNT <= BW_PROFILE_MAX_METRICS,
               "the metric table outgrew BW_PROFILE_MAX_METRICS");

/*
 * The metric set, in enum profile_metric's order. Names are Nsight Compute's (its "Metrics
 * Reference" and the sections SpeedOfLight, ComputeWorkloadAnalysis, MemoryWorkloadAnalysis,
 * Occupancy and WarpStateStats use them), which CUPTI's profiler host API evaluates the same
 * way. Every CUPTI name here was checked against CUDA 13.0's own host library for the H200's
 * chip, GH100 (cuptiProfilerHostGetMetricProperties needs no GPU: tests/cpu/cupti-host.sh does
 * it on every run where the toolkit's libcupti is installed, and fails on a name GH100 does not
 * know); none has yet been read on the H200 by this code (tests/gpu/profile.sh prints which
 * names the GPU knew). Where a unit has gone by two names, both are listed: the runner asks
 * CUPTI for the first the chip knows (cuptiProfilerHostGetMetricProperties) and reports which,
 * and a metric neither name of which it knows is null, never a failed profile.
 *
 * Not everything Nsight Compute shows is a counter the range profiler can read: its launch__*
 * figures, and sm__maximum_warps_per_active_cycle_pct (its "Theoretical Occupancy", which it
 * computes from launch__occupancy_limit_*), are ncu's own arithmetic on the launch, unknown to
 * CUPTI (CUPTI_ERROR_INVALID_METRIC_NAME on GH100). The theoretical occupancy is therefore the
 * one row the runner computes with the driver instead (.driver: cuOccupancy...).
 *
 * Rollups: ".sum" totals over the GPU's units; ".avg.pct_of_peak_sustained_elapsed" is the
 * unit's average throughput over the kernel's whole duration as a % of what it could sustain
 * (the speed-of-light figures); "..._active" divides by the cycles the unit was active instead
 * (ncu's choice for L1 and the pipes). The stall ratios are "warps stalled for this reason per
 * instruction issued", averaged over the SM sub-partitions: their relative sizes say where the
 * warps' time went (the summary turns them into shares).
 *
 * What the set costs: 13 passes on GH100 (CUDA 13.0's host library, no counter availability
 * image), of which sm__throughput alone needs 8 (it is the maximum over many sub-metrics);
 * without it the rest needs 6. tests/cpu/cupti-host.sh prints the figure.
 */
const struct profile_metric_info profile_metric_table[PM_COUNT] = {
    /* duration_ms: GPU time of the launch, ns (one replay: each pass measures it again) */
    [PM_DURATION] = {{"gpu__time_duration.sum"}},
    /* dram_pct: DRAM bandwidth used, % of peak; the memory-bound test. ncu's SpeedOfLight on
     * Hopper shows gpu__dram_throughput; dram__throughput is the unit's own metric */
    [PM_DRAM_PCT] = {{"dram__throughput.avg.pct_of_peak_sustained_elapsed",
                      "gpu__dram_throughput.avg.pct_of_peak_sustained_elapsed"}},
    /* l2_pct: L2 (LTS) throughput, % of peak */
    [PM_L2_PCT] = {{"lts__throughput.avg.pct_of_peak_sustained_elapsed"}},
    /* l1_pct: L1/TEX (and shared memory) throughput, % of peak while active */
    [PM_L1_PCT] = {{"l1tex__throughput.avg.pct_of_peak_sustained_active"}},
    /* sm_pct: SM throughput, the busiest of the SM's pipes and issue, % of peak: compute */
    [PM_SM_PCT] = {{"sm__throughput.avg.pct_of_peak_sustained_elapsed"}},
    /* raw only: ncu's "Memory Throughput", the busiest memory unit */
    [PM_MEMORY_PCT] = {{"gpu__compute_memory_throughput.avg.pct_of_peak_sustained_elapsed"}},
    /* fma_pct: the FMA pipe (FP32 FFMA/FADD/FMUL, IMAD), % of peak while active */
    [PM_FMA_PCT] = {{"sm__pipe_fma_cycles_active.avg.pct_of_peak_sustained_active"}},
    /* tensor_pct: the tensor pipe of mma.sync (HMMA; the generic name first), % of peak */
    [PM_TENSOR_PCT] = {{"sm__pipe_tensor_cycles_active.avg.pct_of_peak_sustained_active",
                        "sm__pipe_tensor_op_hmma_cycles_active.avg.pct_of_peak_sustained_active"}},
    /* tensor_pct too: the tensor pipe with Hopper's warpgroup MMA (wgmma's HGMMA/QGMMA, beside
     * HMMA) named in the metric itself, so that a wgmma kernel's tensor figure does not rest on
     * what the generic sm__pipe_tensor_cycles_active counts. No chip has a wgmma-only pipe
     * metric (sm__pipe_tensor_op_gmma_cycles_active is unknown to every chip CUPTI 13.0 lists);
     * this is GH100's (GH100 also has ..._type_hmma_hgmma_qgmma_imma_igmma_bmma_bgmma_..., 106
     * characters: over BW_PROFILE_METRIC_BYTES). Unknown before Hopper and on Blackwell: null
     * there, and the row above stands alone */
    [PM_GMMA_PCT] = {{"sm__pipe_tensor_op_hmma_type_hmma_hgmma_qgmma_cycles_active"
                      ".avg.pct_of_peak_sustained_active"}},
    /* occupancy_achieved_pct: warps resident per cycle, % of the SM's maximum */
    [PM_WARPS_ACTIVE_PCT] = {{"sm__warps_active.avg.pct_of_peak_sustained_active"}},
    /* raw only: the driver's theoretical occupancy, beside the judge's calculator's: warps per
     * SM of cuOccupancyMaxActiveBlocksPerMultiprocessor's blocks, % of the SM's maximum. Not a
     * CUPTI metric (ncu's sm__maximum_warps_per_active_cycle_pct is unknown to CUPTI) */
    [PM_THEORETICAL_PCT] = {{"driver__occupancy_theoretical_pct"}, NULL, true},
    /* dram_bytes: read + write, against the problem's bytes model */
    [PM_DRAM_READ] = {{"dram__bytes_read.sum"}},
    [PM_DRAM_WRITE] = {{"dram__bytes_write.sum"}},
    /* l2_hit_pct, l1_hit_pct */
    [PM_L2_HIT_PCT] = {{"lts__t_sector_hit_rate.pct"}},
    [PM_L1_HIT_PCT] = {{"l1tex__t_sector_hit_rate.pct"}},
    /* stalls: the top three shares; the reason as the learner reads it */
    [PM_STALL_LONG_SCOREBOARD] =
        {{"smsp__average_warps_issue_stalled_long_scoreboard_per_issue_active.ratio"},
         "long scoreboard (waiting on global or local memory)"},
    [PM_STALL_SHORT_SCOREBOARD] =
        {{"smsp__average_warps_issue_stalled_short_scoreboard_per_issue_active.ratio"},
         "short scoreboard (waiting on shared memory or special math)"},
    [PM_STALL_MIO_THROTTLE] =
        {{"smsp__average_warps_issue_stalled_mio_throttle_per_issue_active.ratio"},
         "MIO throttle (the shared-memory and special-math queue is full)"},
    [PM_STALL_LG_THROTTLE] =
        {{"smsp__average_warps_issue_stalled_lg_throttle_per_issue_active.ratio"},
         "LG throttle (the global-memory queue is full: many narrow accesses)"},
    [PM_STALL_MATH_PIPE_THROTTLE] =
        {{"smsp__average_warps_issue_stalled_math_pipe_throttle_per_issue_active.ratio"},
         "math pipe throttle (the arithmetic pipe is busy)"},
    [PM_STALL_WAIT] = {{"smsp__average_warps_issue_stalled_wait_per_issue_active.ratio"},
                       "wait (a fixed-latency dependency)"},
    [PM_STALL_BARRIER] = {{"smsp__average_warps_issue_stalled_barrier_per_issue_active.ratio"},
                          "barrier (waiting at __syncthreads)"},
    [PM_STALL_MEMBAR] = {{"smsp__average_warps_issue_stalled_membar_per_issue_active.ratio"},
                         "membar (waiting on a memory fence)"},
    [PM_STALL_NOT_SELECTED] =
        {{"smsp__average_warps_issue_stalled_not_selected_per_issue_active.ratio"},
         "not selected (another warp issued: warps to spare)"},
    [PM_STALL_NO_INSTRUCTION] =
        {{"smsp__average_warps_issue_stalled_no_instruction_per_issue_active.ratio"},
         "no instruction (instruction cache miss or a branch)"},
    [PM_STALL_DISPATCH] =
        {{"smsp__average_warps_issue_stalled_dispatch_stall_per_issue_active.ratio"},
         "dispatch stall"},
    [PM_STALL_TEX_THROTTLE] =
        {{"smsp__average_warps_issue_stalled_tex_throttle_per_issue_active.ratio"},
         "TEX throttle (the texture/L1 queue is full)"},
};

/* --- request -------------------------------------------------------------------------------- */

json_t *profile_request_to_json(const struct profile_request *r)
{
    json_t *o = json_object();
    bool ok = o != NULL;

    if (!o)
        return NULL;
    rp_put(o, "type", json_string("profile"), &ok);
    rp_put_plan(o, &r->plan, &ok);
    return rp_finish(o, ok);
}

int profile_request_from_json(const json_t *j, struct profile_request *r, char **cause)
{
    int rc;

    memset(r, 0, sizeof(*r));
    if ((rc = rp_get_plan(j, "profile", &r->plan, cause)))
        return rc;
    if (r->plan.n_gather > 0)
        return bw_fail(cause, BW_ERR_INVALID, "profile.gather: a profile gathers nothing");
    for (int b = 0; b < r->plan.n_buffers; b++)
        if (r->plan.buffers[b].role == RUN_ROLE_DATA)
            return bw_fail(cause, BW_ERR_INVALID,
                           "profile.buffers[%d]: a data buffer needs a gather run, not a profile",
                           b);
    return BW_OK;
}

/* --- reply ---------------------------------------------------------------------------------- */

static json_t *dims_json(const uint32_t v[3])
{
    return json_pack("[I, I, I]", (json_int_t)v[0], (json_int_t)v[1], (json_int_t)v[2]);
}

/* A value or null (NaN: unknown). */
static json_t *value_json(double v)
{
    return isnan(v) ? json_null() : rp_double(v);
}

static const struct {
    const char *key;
    size_t offset;
} device_fields[] = {
#define DEVICE_FIELD(f)                                                                            \
    {                                                                                              \
#f, offsetof(struct profile_device, f)                                                     \
    }
    DEVICE_FIELD(cc_major),
    DEVICE_FIELD(cc_minor),
    DEVICE_FIELD(sm_count),
    DEVICE_FIELD(warp_size),
    DEVICE_FIELD(max_threads_per_block),
    DEVICE_FIELD(max_threads_per_sm),
    DEVICE_FIELD(max_blocks_per_sm),
    DEVICE_FIELD(regs_per_sm),
    DEVICE_FIELD(regs_per_block),
    DEVICE_FIELD(smem_per_sm),
    DEVICE_FIELD(smem_per_block),
    DEVICE_FIELD(smem_per_block_optin),
    DEVICE_FIELD(reserved_smem_per_block),
#undef DEVICE_FIELD
};

static json_t *device_json(const struct profile_device *d)
{
    json_t *o = json_object();
    bool ok = o != NULL;

    for (size_t i = 0; ok && i < sizeof(device_fields) / sizeof(device_fields[0]); i++)
        rp_put(o, device_fields[i].key,
               json_integer(*(const int *)((const char *)d + device_fields[i].offset)), &ok);
    return rp_finish(o, ok);
}

static json_t *range_json(const struct profile_range *g)
{
    json_t *o = json_object(), *values = json_array();
    bool ok = o && values;

    if (!ok) {
        json_decref(o);
        json_decref(values);
        return NULL;
    }
    rp_put(o, "launch", json_integer(g->launch), &ok);
    rp_put(o, "kernel", json_string(g->kernel), &ok);
    rp_put(o, "grid", dims_json(g->grid), &ok);
    rp_put(o, "block", dims_json(g->block), &ok);
    rp_put(o, "smem", json_integer(g->smem), &ok);
    rp_put(o, "regs", json_integer(g->regs), &ok);
    rp_put(o, "static_smem", json_integer(g->static_smem), &ok);
    rp_put(o, "values", values, &ok);
    for (int m = 0; ok && m < PM_COUNT; m++)
        rp_push(values, value_json(g->values[m]), &ok);
    return rp_finish(o, ok);
}

json_t *profile_reply_to_json(const struct profile_reply *r)
{
    json_t *o = json_object(), *prof, *names, *ranges;
    bool ok = o != NULL;

    if (!o)
        return NULL;
    rp_put(o, "type", json_string("profile_result"), &ok);
    rp_put_failure(o, &r->fail, &ok);
    rp_put(o, "ms", rp_double(r->ms), &ok);
    prof = json_object();
    rp_put(o, "profiler", prof, &ok);
    if (!ok)
        return rp_finish(o, false);
    rp_put(prof, "available", json_boolean(r->available), &ok);
    if (!r->available) {
        rp_put(prof, "why", json_string(r->why), &ok);
        return rp_finish(o, ok);
    }
    rp_put(prof, "version", json_string(r->version), &ok);
    rp_put(prof, "chip", json_string(r->chip), &ok);
    rp_put(prof, "passes", json_integer(r->passes), &ok);
    names = json_array();
    rp_put(prof, "metrics", names, &ok);
    for (int m = 0; ok && m < PM_COUNT; m++)
        rp_push(names, r->metrics[m][0] ? json_string(r->metrics[m]) : json_null(), &ok);
    rp_put(o, "device", device_json(&r->device), &ok);
    ranges = json_array();
    rp_put(o, "ranges", ranges, &ok);
    for (int i = 0; ok && i < r->n_ranges; i++)
        rp_push(ranges, range_json(&r->ranges[i]), &ok);
    return rp_finish(o, ok);
}

static int get_dims(const json_t *o, const char *key, const char *path, uint32_t v[3], char **cause)
{
    json_t *a = json_object_get(o, key);

    if (!json_is_array(a) || json_array_size(a) != 3)
        return bw_fail(cause, BW_ERR_INVALID, "%s.%s: expected [x, y, z]", path, key);
    for (size_t i = 0; i < 3; i++) {
        json_t *e = json_array_get(a, i);
        if (!json_is_integer(e) || json_integer_value(e) < 0 ||
            json_integer_value(e) > (json_int_t)UINT32_MAX)
            return bw_fail(cause, BW_ERR_INVALID, "%s.%s[%zu]: expected an integer in [0, 2^32)",
                           path, key, i);
        v[i] = (uint32_t)json_integer_value(e);
    }
    return BW_OK;
}

static int get_int(const json_t *o, const char *key, const char *path, int64_t hi, int *out,
                   char **cause)
{
    int64_t v = 0;
    int rc = rp_get_i64(o, key, path, true, 0, hi, &v, cause);

    *out = (int)v;
    return rc;
}

static int get_range(const json_t *j, size_t i, struct profile_range *g, char **cause)
{
    char path[48];
    json_t *values;
    size_t n;
    int rc;

    snprintf(path, sizeof(path), "profile_result.ranges[%zu]", i);
    if (!json_is_object(j))
        return bw_fail(cause, BW_ERR_INVALID, "%s: expected an object", path);
    if ((rc = get_int(j, "launch", path, BW_MAX_LAUNCHES - 1, &g->launch, cause)) ||
        (rc = rp_get_str(j, "kernel", path, true, g->kernel, sizeof(g->kernel), cause)) ||
        (rc = get_dims(j, "grid", path, g->grid, cause)) ||
        (rc = get_dims(j, "block", path, g->block, cause)) ||
        (rc = rp_get_u32(j, "smem", path, true, UINT32_MAX, &g->smem, cause)) ||
        (rc = get_int(j, "regs", path, 1 << 16, &g->regs, cause)) ||
        (rc = get_int(j, "static_smem", path, INT32_MAX, &g->static_smem, cause)) ||
        (rc = rp_get_array(j, "values", path, true, PM_COUNT, &values, &n, cause)))
        return rc;
    if (n != PM_COUNT)
        return bw_fail(cause, BW_ERR_INVALID, "%s.values: %zu values for %d metrics", path, n,
                       PM_COUNT);
    for (size_t m = 0; m < n; m++) {
        json_t *v = json_array_get(values, m);
        g->values[m] = NAN;
        if (!json_is_null(v) && rp_value_f64(v, &g->values[m]))
            return bw_fail(cause, BW_ERR_INVALID, "%s.values[%zu]: expected a number or null", path,
                           m);
    }
    return BW_OK;
}

static int get_profiler(const json_t *prof, struct profile_reply *r, char **cause)
{
    const char *path = "profile_result.profiler";
    json_t *names;
    size_t n;
    int64_t passes = 0;
    int rc;

    if (!json_is_object(prof))
        return bw_fail(cause, BW_ERR_INVALID, "%s: expected an object", path);
    if ((rc = rp_get_bool(prof, "available", path, &r->available, cause)))
        return rc;
    if (!r->available)
        return rp_get_str(prof, "why", path, true, r->why, sizeof(r->why), cause);
    if ((rc = rp_get_str(prof, "version", path, true, r->version, sizeof(r->version), cause)) ||
        (rc = rp_get_str(prof, "chip", path, true, r->chip, sizeof(r->chip), cause)) ||
        (rc = rp_get_i64(prof, "passes", path, true, 1, BW_PROFILE_MAX_PASSES, &passes, cause)) ||
        (rc = rp_get_array(prof, "metrics", path, true, PM_COUNT, &names, &n, cause)))
        return rc;
    r->passes = (int)passes;
    if (n != PM_COUNT)
        return bw_fail(cause, BW_ERR_INVALID, "%s.metrics: %zu names for %d metrics", path, n,
                       PM_COUNT);
    for (size_t m = 0; m < n; m++) {
        json_t *v = json_array_get(names, m);
        bool known = false;
        if (json_is_null(v))
            continue;
        /* Only a name of the metric's own row: the judge reads values by row. */
        for (int k = 0; k < 3 && json_is_string(v) && profile_metric_table[m].names[k]; k++)
            known |= strcmp(json_string_value(v), profile_metric_table[m].names[k]) == 0;
        if (!known)
            return bw_fail(cause, BW_ERR_INVALID, "%s.metrics[%zu]: not a name of metric %zu", path,
                           m, m);
        snprintf(r->metrics[m], sizeof(r->metrics[m]), "%s", json_string_value(v));
    }
    return BW_OK;
}

static int get_device(const json_t *d, struct profile_device *dev, char **cause)
{
    if (!json_is_object(d))
        return bw_fail(cause, BW_ERR_INVALID, "profile_result.device: expected an object");
    for (size_t i = 0; i < sizeof(device_fields) / sizeof(device_fields[0]); i++) {
        int rc = get_int(d, device_fields[i].key, "profile_result.device", INT32_MAX,
                         (int *)((char *)dev + device_fields[i].offset), cause);
        if (rc)
            return rc;
    }
    return BW_OK;
}

int profile_reply_from_json(const json_t *j, struct profile_reply *r, char **cause)
{
    json_t *prof, *ranges;
    size_t n;
    int rc;

    memset(r, 0, sizeof(*r));
    rc = rp_get_failure(j, "profile_result", &r->fail, cause);
    if (rc)
        return rc;
    if ((rc = rp_get_finite(j, "ms", "profile_result", false, 0, 1e12, &r->ms, cause)))
        return rc;
    prof = json_object_get(j, "profiler");
    if (!prof) {
        /* a reply that only says the request failed (error_reply_to_json) */
        if (r->fail.status == RUN_OK)
            return bw_fail(cause, BW_ERR_INVALID, "profile_result.profiler: missing");
        return BW_OK;
    }
    if ((rc = get_profiler(prof, r, cause)) || !r->available)
        return rc;
    if ((rc = get_device(json_object_get(j, "device"), &r->device, cause)) ||
        (rc = rp_get_array(j, "ranges", "profile_result", true, BW_MAX_LAUNCHES, &ranges, &n,
                           cause)))
        return rc;
    for (size_t i = 0; i < n; i++)
        if ((rc = get_range(json_array_get(ranges, i), i, &r->ranges[i], cause)))
            return rc;
    r->n_ranges = (int)n;
    return BW_OK;
}
