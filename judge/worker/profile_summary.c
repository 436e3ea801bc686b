#include "profile_summary.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/banned.h"

/* What helps when warps stall most for each reason (the latency-bound reading). */
static const char *const stall_advice[PM_COUNT] = {
    [PM_STALL_LONG_SCOREBOARD] = "keep more independent loads in flight (more warps, or more "
                                 "elements per thread)",
    [PM_STALL_SHORT_SCOREBOARD] = "fewer dependent shared-memory loads or special-math results",
    [PM_STALL_MIO_THROTTLE] = "fewer, wider shared-memory accesses",
    [PM_STALL_LG_THROTTLE] = "fewer, wider global accesses (vectorise: float4)",
    [PM_STALL_MATH_PIPE_THROTTLE] = "spread the arithmetic over other pipes or fewer operations",
    [PM_STALL_WAIT] = "more independent arithmetic per thread (instruction-level parallelism)",
    [PM_STALL_BARRIER] = "less work imbalance between __syncthreads, or fewer of them",
    [PM_STALL_MEMBAR] = "fewer memory fences",
    [PM_STALL_NOT_SELECTED] = "warps are ready: the issue rate is the limit",
    [PM_STALL_NO_INSTRUCTION] = "smaller, less branchy code",
    [PM_STALL_DISPATCH] = "fewer instructions per result",
    [PM_STALL_TEX_THROTTLE] = "fewer texture/L1 requests",
};

static const char *const limiter_names[] = {
    [PROFILE_LIMITER_UNKNOWN] = NULL,
    [PROFILE_MEMORY] = "memory",
    [PROFILE_COMPUTE] = "compute",
    [PROFILE_LATENCY] = "latency",
};

const char *profile_limiter_name(enum profile_limiter l)
{
    return (unsigned)l <= PROFILE_LATENCY ? limiter_names[l] : NULL;
}

/* The larger of a and b, NaN only when both are. */
static double max_known(double a, double b)
{
    if (isnan(a))
        return b;
    if (isnan(b))
        return a;
    return a > b ? a : b;
}

/* The reason's short name: its table text before " (". */
static void stall_name(int m, char *out, size_t cap)
{
    const char *s = profile_metric_table[m].stall ? profile_metric_table[m].stall : "?";
    const char *paren = strstr(s, " (");

    snprintf(out, cap, "%.*s", paren ? (int)(paren - s) : (int)strlen(s), s);
}

static void top_stalls(const struct profile_range *g, struct profile_kernel *k)
{
    double total = 0;
    bool used[PM_COUNT] = {false};

    for (int m = PM_STALL_FIRST; m <= PM_STALL_LAST; m++)
        if (!isnan(g->values[m]) && g->values[m] > 0)
            total += g->values[m];
    k->n_stalls = 0;
    if (total <= 0)
        return;
    while (k->n_stalls < PROFILE_TOP_STALLS) {
        int best = -1;
        for (int m = PM_STALL_FIRST; m <= PM_STALL_LAST; m++)
            if (!used[m] && !isnan(g->values[m]) && g->values[m] > 0 &&
                (best < 0 || g->values[m] > g->values[best]))
                best = m;
        if (best < 0)
            break;
        used[best] = true;
        k->stall_metric[k->n_stalls] = best;
        k->stall_pct[k->n_stalls++] = 100.0 * g->values[best] / total;
    }
}

static void occupancy_of(const struct profile_range *g, const struct profile_device *d,
                         int barriers, struct profile_kernel *k)
{
    struct occupancy_kernel in = {
        .threads = (int)(g->block[0] * g->block[1] * g->block[2]),
        .regs = g->regs,
        .static_smem = g->static_smem,
        .dynamic_smem = (int)g->smem,
        .barriers = barriers,
    };
    struct occupancy o;

    k->occupancy_theoretical_pct = NAN;
    k->occupancy_limiter = OCC_NONE;
    k->occupancy_known = occupancy_compute(d, &in, &o, NULL) == 0;
    if (k->occupancy_known) {
        k->occupancy_theoretical_pct = o.pct;
        k->occupancy_limiter = o.limiter;
    }
}

/* ", moving 2.3x the bytes the problem needs" or "" (cap bytes). */
static void bytes_note(const struct profile_kernel *k, char *out, size_t cap)
{
    double ratio = k->dram_bytes / k->model_bytes;

    out[0] = '\0';
    if (isnan(k->dram_bytes) || !(k->model_bytes > 0))
        return;
    if (ratio >= 1.5)
        snprintf(out, cap, ", moving %.1fx the bytes the problem needs", ratio);
    else if (ratio >= 0.85)
        snprintf(out, cap, ", moving about the bytes the problem needs");
}

static void memory_reading(const struct profile_kernel *k, char *out, size_t cap)
{
    char note[96];
    double ratio = k->dram_bytes / k->model_bytes;

    bytes_note(k, note, sizeof(note));
    if (!isnan(k->dram_pct) &&
        k->dram_pct + BW_PROFILE_LEVEL_SLACK_PCT >= max_known(k->l2_pct, k->l1_pct)) {
        if (note[0] && ratio < 1.5)
            snprintf(out, cap,
                     "memory-bound at %.0f%% of DRAM bandwidth%s: near the limit; only fusing "
                     "or fewer bytes would go faster",
                     k->dram_pct, note);
        else
            snprintf(out, cap,
                     "memory-bound at %.0f%% of DRAM bandwidth%s: fuse or move fewer "
                     "bytes",
                     k->dram_pct, note);
    } else if (!isnan(k->l2_pct) && k->l2_pct >= max_known(k->dram_pct, k->l1_pct)) {
        snprintf(out, cap,
                 "memory-bound at %.0f%% of L2 bandwidth (DRAM %.0f%%): reuse data through "
                 "shared memory or registers so fewer requests reach L2",
                 k->l2_pct, isnan(k->dram_pct) ? 0 : k->dram_pct);
    } else {
        snprintf(out, cap,
                 "memory-bound at %.0f%% of L1/shared-memory bandwidth (DRAM %.0f%%): fewer, "
                 "wider accesses (vectorise, no bank conflicts), reused values kept in registers",
                 k->l1_pct, isnan(k->dram_pct) ? 0 : k->dram_pct);
    }
}

static void compute_reading(const struct profile_kernel *k, char *out, size_t cap)
{
    if (!isnan(k->tensor_pct) && k->tensor_pct >= max_known(k->fma_pct, k->sm_pct))
        snprintf(out, cap,
                 "compute-bound at %.0f%% of the tensor pipe: the matrix units are the limit; "
                 "keep them fed (asynchronous copies, larger tiles)",
                 k->tensor_pct);
    else if (!isnan(k->fma_pct) && k->fma_pct >= max_known(k->tensor_pct, k->sm_pct) - 5)
        snprintf(out, cap,
                 "compute-bound at %.0f%% of the FMA pipe: fewer instructions per result "
                 "(register tiling), or tensor cores where the problem allows",
                 k->fma_pct);
    else
        snprintf(out, cap,
                 "compute-bound at %.0f%% of SM throughput (FMA pipe %.0f%%): instruction issue "
                 "is the limit; fewer instructions per result (index math, conversions)",
                 k->sm_pct, isnan(k->fma_pct) ? 0 : k->fma_pct);
}

static void latency_reading(const struct profile_kernel *k, const struct profile_range *g,
                            const struct profile_device *d, char *out, size_t cap)
{
    char stall[96] = "", occ[128] = "", grid[96] = "";
    double mem = max_known(k->dram_pct, max_known(k->l2_pct, k->l1_pct));
    double compute = max_known(k->sm_pct, max_known(k->fma_pct, k->tensor_pct));
    uint64_t blocks = (uint64_t)g->grid[0] * g->grid[1] * g->grid[2];

    if (k->n_stalls > 0) {
        char name[48];
        stall_name(k->stall_metric[0], name, sizeof(name));
        snprintf(stall, sizeof(stall), "; warps mostly wait on %s", name);
    }
    if (k->occupancy_known && k->occupancy_theoretical_pct < 50)
        snprintf(occ, sizeof(occ), "; occupancy at most %.0f%% (limited by %s)",
                 k->occupancy_theoretical_pct, occupancy_limiter_name(k->occupancy_limiter));
    else if (!isnan(k->occupancy_achieved_pct) && k->occupancy_achieved_pct < 40)
        snprintf(occ, sizeof(occ), "; %.0f%% of the SMs' warps active", k->occupancy_achieved_pct);
    if (d->sm_count > 0 && blocks < (uint64_t)d->sm_count)
        snprintf(grid, sizeof(grid), "; %llu blocks for %d SMs", (unsigned long long)blocks,
                 d->sm_count);
    snprintf(out, cap, "latency-bound: memory at %.0f%% and compute at %.0f%% of peak%s%s%s: %s",
             isnan(mem) ? 0 : mem, isnan(compute) ? 0 : compute, stall, occ, grid,
             grid[0]           ? "more blocks, each doing less"
             : k->n_stalls > 0 ? stall_advice[k->stall_metric[0]]
             : occ[0]          ? "more warps per SM"
                               : "more independent work in flight");
}

void profile_summarize(const struct profile_range *g, const struct profile_device *d,
                       const struct profile_launch_info *info, double model_bytes,
                       struct profile_kernel *k)
{
    const double *v = g->values;
    double mem, compute;

    memset(k, 0, sizeof(*k));
    snprintf(k->kernel, sizeof(k->kernel), "%s", info && info->kernel ? info->kernel : g->kernel);
    k->launch = g->launch;
    memcpy(k->grid, g->grid, sizeof(k->grid));
    memcpy(k->block, g->block, sizeof(k->block));
    k->duration_ms = v[PM_DURATION] / 1e6;
    k->dram_pct = v[PM_DRAM_PCT];
    k->l2_pct = v[PM_L2_PCT];
    k->l1_pct = v[PM_L1_PCT];
    k->sm_pct = v[PM_SM_PCT];
    k->fma_pct = v[PM_FMA_PCT];
    k->tensor_pct = max_known(v[PM_TENSOR_PCT], v[PM_GMMA_PCT]);
    k->occupancy_achieved_pct = v[PM_WARPS_ACTIVE_PCT];
    occupancy_of(g, d, info ? info->barriers : 0, k);
    top_stalls(g, k);
    k->l1_hit_pct = v[PM_L1_HIT_PCT];
    k->l2_hit_pct = v[PM_L2_HIT_PCT];
    k->dram_bytes = v[PM_DRAM_READ] + v[PM_DRAM_WRITE]; /* NaN when either is */
    k->model_bytes = model_bytes > 0 ? model_bytes : NAN;

    mem = max_known(k->dram_pct, max_known(k->l2_pct, k->l1_pct));
    compute = max_known(k->sm_pct, max_known(k->fma_pct, k->tensor_pct));
    if (isnan(mem) && isnan(compute)) {
        k->limiter = PROFILE_LIMITER_UNKNOWN;
        snprintf(k->reading, sizeof(k->reading),
                 "the profiler gave no throughput figure for this kernel");
        return;
    }
    if (max_known(mem, compute) < BW_PROFILE_BUSY_PCT)
        k->limiter = PROFILE_LATENCY;
    else if (isnan(compute) || (!isnan(mem) && mem >= compute))
        k->limiter = PROFILE_MEMORY;
    else
        k->limiter = PROFILE_COMPUTE;
    if (k->limiter == PROFILE_MEMORY)
        memory_reading(k, k->reading, sizeof(k->reading));
    else if (k->limiter == PROFILE_COMPUTE)
        compute_reading(k, k->reading, sizeof(k->reading));
    else
        latency_reading(k, g, d, k->reading, sizeof(k->reading));
}

void profile_plan_reading(const struct profile_kernel *k, int n, char *out, size_t cap)
{
    double total_ms = 0, bytes = 0, model = NAN;
    int top = 0;

    if (n <= 0) {
        snprintf(out, cap, "the plan launched no kernel");
        return;
    }
    for (int i = 0; i < n; i++) {
        if (!isnan(k[i].duration_ms))
            total_ms += k[i].duration_ms;
        if (!isnan(k[i].duration_ms) &&
            (isnan(k[top].duration_ms) || k[i].duration_ms > k[top].duration_ms))
            top = i;
        bytes += k[i].dram_bytes;
        model = k[i].model_bytes;
    }
    if (n == 1) {
        snprintf(out, cap, "%s", k[0].reading);
        return;
    }
    {
        char share[48] = "", moved[80] = "";
        if (total_ms > 0 && !isnan(k[top].duration_ms))
            snprintf(share, sizeof(share), ", %.0f%% of the plan's GPU time",
                     100.0 * k[top].duration_ms / total_ms);
        if (!isnan(bytes) && model > 0 && bytes / model >= 1.5)
            snprintf(moved, sizeof(moved),
                     " (the %d launches move %.1fx the bytes the problem "
                     "needs)",
                     n, bytes / model);
        snprintf(out, cap, "%s (launch %d%s): %s%s", k[top].kernel, k[top].launch, share,
                 k[top].reading, moved);
    }
}

/* A figure rounded for people: 4 significant digits; null when unknown. */
static json_t *num(double v)
{
    char s[32];

    if (!isfinite(v))
        return json_null();
    snprintf(s, sizeof(s), "%.4g", v);
    return json_real(strtod(s, NULL));
}

/* A percentage to 0.1; null when unknown. */
static json_t *pct(double v)
{
    return isfinite(v) ? json_real(round(v * 10) / 10) : json_null();
}

/* A byte count; null when unknown. */
static json_t *bytes_json(double v)
{
    return isfinite(v) && v >= 0 ? json_integer((json_int_t)llround(v)) : json_null();
}

json_t *profile_kernel_json(const struct profile_kernel *k)
{
    json_t *stalls = json_array(), *o;
    const char *limiter = profile_limiter_name(k->limiter);

    for (int i = 0; stalls && i < k->n_stalls; i++)
        json_array_append_new(stalls, json_pack("{s:s, s:o}", "reason",
                                                profile_metric_table[k->stall_metric[i]].stall,
                                                "pct", pct(k->stall_pct[i])));
    o = json_pack("{s:s, s:i, s:[I,I,I], s:[I,I,I], s:o, s:o, s:o, s:o, s:o, s:o, s:o}", "kernel",
                  k->kernel, "launch", k->launch, "grid", (json_int_t)k->grid[0],
                  (json_int_t)k->grid[1], (json_int_t)k->grid[2], "block", (json_int_t)k->block[0],
                  (json_int_t)k->block[1], (json_int_t)k->block[2], "duration_ms",
                  num(k->duration_ms), "dram_pct", pct(k->dram_pct), "l2_pct", pct(k->l2_pct),
                  "l1_pct", pct(k->l1_pct), "sm_pct", pct(k->sm_pct), "fma_pct", pct(k->fma_pct),
                  "tensor_pct", pct(k->tensor_pct));
    if (!o) {
        json_decref(stalls);
        return NULL;
    }
    json_object_set_new(o, "occupancy_achieved_pct", pct(k->occupancy_achieved_pct));
    json_object_set_new(o, "occupancy_theoretical_pct", pct(k->occupancy_theoretical_pct));
    /* The contract's five words: named barriers cap the blocks an SM holds, so they are
     * "blocks per SM" there (the reading names barriers). */
    json_object_set_new(o, "occupancy_limiter",
                        !k->occupancy_known ? json_null()
                        : k->occupancy_limiter == OCC_BARRIERS
                            ? json_string(occupancy_limiter_name(OCC_BLOCKS_PER_SM))
                            : json_string(occupancy_limiter_name(k->occupancy_limiter)));
    json_object_set_new(o, "stalls", stalls ? stalls : json_array());
    json_object_set_new(o, "l1_hit_pct", pct(k->l1_hit_pct));
    json_object_set_new(o, "l2_hit_pct", pct(k->l2_hit_pct));
    json_object_set_new(o, "dram_bytes", bytes_json(k->dram_bytes));
    json_object_set_new(o, "model_bytes", bytes_json(k->model_bytes));
    json_object_set_new(o, "limiter", limiter ? json_string(limiter) : json_null());
    json_object_set_new(o, "reading", json_string(k->reading));
    return o;
}

json_t *profile_raw_json(const struct profile_reply *r, const struct profile_kernel *k, int n)
{
    json_t *raw = json_object();

    for (int i = 0; raw && i < n && i < r->n_ranges; i++) {
        json_t *one = json_object();
        char key[BW_MAX_NAME + 16];

        for (int m = 0; one && m < PM_COUNT; m++)
            if (r->metrics[m][0])
                json_object_set_new(one, r->metrics[m],
                                    isfinite(r->ranges[i].values[m])
                                        ? json_real(r->ranges[i].values[m])
                                        : json_null());
        snprintf(key, sizeof(key), "%s#%d", k[i].kernel, k[i].launch);
        json_object_set_new(raw, key, one ? one : json_object());
    }
    return raw;
}

void profile_profiler_text(const struct profile_reply *r, char *out, size_t cap)
{
    snprintf(out, cap, "CUPTI %s range profiler (%s), kernel replay, %d pass%s", r->version,
             r->chip, r->passes, r->passes == 1 ? "" : "es");
}
