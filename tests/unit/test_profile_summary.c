/*
 * test_profile_summary.c - judge/worker/profile_summary.h on metric values of
 * the kinds of kernel a Profile meets: a bandwidth-bound vector add, a tiled
 * and a naive sgemm, a latency-bound kernel short of occupancy, a GPU that
 * gave nothing, a kernel that moves more than the model's bytes, a plan of
 * two kernels. The figures are of the size Nsight Compute reports for such
 * kernels on an H100 (illustrative, chosen by hand); the H200's own come
 * from tests/gpu/profile.sh, which prints them.
 */
#include <math.h>
#include <stdlib.h>

#include "../test.h"
#include "common/error.h"
#include "common/json_reader.h"
#include "judge/worker/profile_summary.h"
#include "wire/worker_proto.h"

static const struct profile_device h200 = {9,     0,     132,    32,    1024,   2048, 32,
                                           65536, 65536, 233472, 49152, 232448, 1024};

/* A range with every value unknown, for a launch of grid x block threads. */
static struct profile_range range(unsigned grid, unsigned block, int regs)
{
    struct profile_range g;

    memset(&g, 0, sizeof(g));
    snprintf(g.kernel, sizeof(g.kernel), "k");
    g.grid[0] = grid;
    g.grid[1] = g.grid[2] = 1;
    g.block[0] = block;
    g.block[1] = g.block[2] = 1;
    g.regs = regs;
    for (int m = 0; m < PM_COUNT; m++)
        g.values[m] = NAN;
    return g;
}

static void throughputs(struct profile_range *g, double ns, double dram, double l2, double l1,
                        double sm, double fma, double tensor)
{
    g->values[PM_DURATION] = ns;
    g->values[PM_DRAM_PCT] = dram;
    g->values[PM_L2_PCT] = l2;
    g->values[PM_L1_PCT] = l1;
    g->values[PM_SM_PCT] = sm;
    g->values[PM_FMA_PCT] = fma;
    g->values[PM_TENSOR_PCT] = tensor;
}

static struct profile_kernel summarize(const struct profile_range *g, const char *name,
                                       double model)
{
    struct profile_launch_info info = {name, 0};
    struct profile_kernel k;

    profile_summarize(g, &h200, &info, model, &k);
    return k;
}

/* The H200's own figures (tests/gpu/profile.sh, 2026-12-05): every DRAM byte
 * also passes L2, so a streaming kernel's L2 throughput sits a little above
 * its DRAM throughput; the reading names DRAM, not reuse through L2. */
TEST(summary_streaming_kernel_names_dram_over_a_slightly_busier_l2)
{
    struct profile_range g = range(1048576, 256, 16);
    struct profile_kernel k;

    throughputs(&g, 0.74e6, 90.0, 92.0, 22.0, 30.0, 1.6, 0);
    g.values[PM_DRAM_READ] = 2147483648.0;
    g.values[PM_DRAM_WRITE] = 1073741824.0;
    k = summarize(&g, "vector_add", 3221225472.0);
    CHECK_INT_EQ(k.limiter, PROFILE_MEMORY);
    CHECK_CONTAINS(k.reading, "memory-bound at 90% of DRAM bandwidth");
    CHECK_CONTAINS(k.reading, "near the limit");

    /* softmax's solution: DRAM 88%, L2 91% */
    throughputs(&g, 0.25e6, 87.6, 91.0, 29.5, 40.0, 20.9, 0);
    k = summarize(&g, "softmax_rows", 3221225472.0);
    CHECK_CONTAINS(k.reading, "of DRAM bandwidth");

    /* L2 busier than DRAM by more than the slack: data re-read through L2 */
    throughputs(&g, 0.25e6, 70.0, 95.0, 29.5, 40.0, 20.9, 0);
    k = summarize(&g, "k", 3221225472.0);
    CHECK_CONTAINS(k.reading, "memory-bound at 95% of L2 bandwidth (DRAM 70%)");
}

TEST(summary_vector_add_is_memory_bound_on_dram)
{
    struct profile_range g = range(1048576, 256, 16);
    struct profile_kernel k;
    json_t *j;

    throughputs(&g, 0.79e6, 91.8, 40.1, 22.0, 30.2, 12.0, 0);
    g.values[PM_WARPS_ACTIVE_PCT] = 78.0;
    g.values[PM_DRAM_READ] = 2147483648.0;
    g.values[PM_DRAM_WRITE] = 1073741824.0;
    g.values[PM_L2_HIT_PCT] = 33.0;
    g.values[PM_L1_HIT_PCT] = 0;
    g.values[PM_STALL_LONG_SCOREBOARD] = 18.0;
    g.values[PM_STALL_LG_THROTTLE] = 6.0;
    g.values[PM_STALL_WAIT] = 1.0;
    g.values[PM_STALL_NOT_SELECTED] = 0.5;
    k = summarize(&g, "vector_add", 3221225472.0);
    CHECK_INT_EQ(k.limiter, PROFILE_MEMORY);
    CHECK_CONTAINS(k.reading, "memory-bound at 92% of DRAM bandwidth");
    CHECK_CONTAINS(k.reading, "moving about the bytes the problem needs");
    CHECK(fabs(k.duration_ms - 0.79) < 1e-9);
    CHECK(k.occupancy_known && k.occupancy_theoretical_pct == 100.0);
    CHECK_INT_EQ(k.n_stalls, 3);
    CHECK_INT_EQ(k.stall_metric[0], PM_STALL_LONG_SCOREBOARD);
    CHECK(fabs(k.stall_pct[0] - 100.0 * 18 / 25.5) < 1e-9);
    CHECK_INT_EQ(k.stall_metric[1], PM_STALL_LG_THROTTLE);
    CHECK_INT_EQ(k.stall_metric[2], PM_STALL_WAIT);

    /* the contract's fields, each of its kind */
    j = profile_kernel_json(&k);
    CHECK_STR_EQ(json_string_value(json_object_get(j, "kernel")), "vector_add");
    CHECK_INT_EQ(json_integer_value(json_object_get(j, "launch")), 0);
    CHECK_INT_EQ(json_integer_value(json_array_get(json_object_get(j, "grid"), 0)), 1048576);
    CHECK_INT_EQ(json_integer_value(json_array_get(json_object_get(j, "block"), 0)), 256);
    CHECK(json_real_value(json_object_get(j, "dram_pct")) == 91.8);
    CHECK(json_real_value(json_object_get(j, "duration_ms")) == 0.79);
    CHECK(json_real_value(json_object_get(j, "occupancy_theoretical_pct")) == 100.0);
    CHECK_STR_EQ(json_string_value(json_object_get(j, "occupancy_limiter")), "none");
    CHECK_STR_EQ(json_string_value(json_object_get(j, "limiter")), "memory");
    CHECK_INT_EQ(json_integer_value(json_object_get(j, "dram_bytes")), 3221225472LL);
    CHECK_INT_EQ(json_integer_value(json_object_get(j, "model_bytes")), 3221225472LL);
    CHECK_STR_EQ(json_string_value(
                     json_object_get(json_array_get(json_object_get(j, "stalls"), 0), "reason")),
                 "long scoreboard (waiting on global or local memory)");
    CHECK(json_real_value(
              json_object_get(json_array_get(json_object_get(j, "stalls"), 0), "pct")) == 70.6);
    static const char *const keys[] = {"kernel",
                                       "launch",
                                       "grid",
                                       "block",
                                       "duration_ms",
                                       "dram_pct",
                                       "l2_pct",
                                       "l1_pct",
                                       "sm_pct",
                                       "fma_pct",
                                       "tensor_pct",
                                       "occupancy_achieved_pct",
                                       "occupancy_theoretical_pct",
                                       "occupancy_limiter",
                                       "stalls",
                                       "l1_hit_pct",
                                       "l2_hit_pct",
                                       "dram_bytes",
                                       "model_bytes",
                                       "limiter",
                                       "reading"};
    for (size_t i = 0; i < sizeof(keys) / sizeof(keys[0]); i++)
        CHECK_MSG(json_object_get(j, keys[i]) != NULL, "no \"%s\" in a kernel", keys[i]);
    CHECK_INT_EQ(json_object_size(j), sizeof(keys) / sizeof(keys[0]));
    json_decref(j);
}

TEST(summary_tiled_sgemm_is_compute_bound_on_fma)
{
    struct profile_range g = range(4096, 256, 128); /* 128 registers: 2 blocks of 8 warps */
    struct profile_kernel k;

    throughputs(&g, 32.1e6, 14.5, 31.0, 56.2, 79.4, 77.8, 0);
    g.values[PM_WARPS_ACTIVE_PCT] = 24.6;
    g.values[PM_STALL_MATH_PIPE_THROTTLE] = 0.4;
    g.values[PM_STALL_NOT_SELECTED] = 0.9;
    g.values[PM_STALL_SHORT_SCOREBOARD] = 0.3;
    k = summarize(&g, "sgemm", 805306368.0);
    CHECK_INT_EQ(k.limiter, PROFILE_COMPUTE);
    CHECK_CONTAINS(k.reading, "compute-bound at 78% of the FMA pipe");
    CHECK(k.occupancy_theoretical_pct == 25.0);
    CHECK_INT_EQ(k.occupancy_limiter, OCC_REGISTERS);
}

TEST(summary_naive_sgemm_differs_from_the_tiled_one)
{
    struct profile_range g = range(262144, 256, 40);
    struct profile_kernel k;

    /* one thread per output from global memory: L1 serves the repeated loads */
    throughputs(&g, 405e6, 6.1, 34.8, 93.7, 46.0, 19.5, 0);
    g.values[PM_L1_HIT_PCT] = 95.2;
    g.values[PM_WARPS_ACTIVE_PCT] = 70.3;
    g.values[PM_STALL_LG_THROTTLE] = 9.0;
    g.values[PM_STALL_LONG_SCOREBOARD] = 7.5;
    g.values[PM_STALL_MIO_THROTTLE] = 1.0;
    k = summarize(&g, "sgemm", 805306368.0);
    CHECK_INT_EQ(k.limiter, PROFILE_MEMORY);
    CHECK_CONTAINS(k.reading, "L1/shared-memory bandwidth");
    CHECK(k.occupancy_theoretical_pct == 75.0); /* 40 registers: 6 blocks of 8 warps */
}

TEST(summary_latency_bound_names_its_stall_and_occupancy)
{
    struct profile_range g = range(2048, 256, 168);
    struct profile_kernel k;

    throughputs(&g, 1.2e6, 21.0, 18.0, 25.0, 14.0, 6.0, 0);
    g.values[PM_WARPS_ACTIVE_PCT] = 11.8;
    g.values[PM_STALL_LONG_SCOREBOARD] = 22.0;
    g.values[PM_STALL_BARRIER] = 2.0;
    k = summarize(&g, "softmax", 0);
    CHECK_INT_EQ(k.limiter, PROFILE_LATENCY);
    CHECK_CONTAINS(k.reading, "latency-bound: memory at 25% and compute at 14% of peak");
    CHECK_CONTAINS(k.reading, "warps mostly wait on long scoreboard");
    CHECK_CONTAINS(k.reading, "occupancy at most 12% (limited by registers)");
    CHECK_CONTAINS(k.reading, "keep more independent loads in flight");
    CHECK(isnan(k.model_bytes));
}

TEST(summary_small_grid_is_said)
{
    struct profile_range g = range(16, 1024, 32);
    struct profile_kernel k;

    throughputs(&g, 0.5e6, 3.0, 4.0, 5.0, 2.0, 1.0, 0);
    k = summarize(&g, "reduce", 4096);
    CHECK_INT_EQ(k.limiter, PROFILE_LATENCY);
    CHECK_CONTAINS(k.reading, "16 blocks for 132 SMs");
    CHECK_CONTAINS(k.reading, "more blocks, each doing less");
}

TEST(summary_extra_bytes_are_named)
{
    struct profile_range g = range(65536, 256, 32);
    struct profile_kernel k;

    throughputs(&g, 2e6, 88.0, 60.0, 30.0, 20.0, 10.0, 0);
    g.values[PM_DRAM_READ] = 1.9e9;
    g.values[PM_DRAM_WRITE] = 0.4e9;
    k = summarize(&g, "transpose", 1e9);
    CHECK_INT_EQ(k.limiter, PROFILE_MEMORY);
    CHECK_CONTAINS(k.reading, "moving 2.3x the bytes the problem needs: fuse or move fewer bytes");
}

TEST(summary_tolerates_a_gpu_that_gave_nothing)
{
    struct profile_range g = range(256, 256, 32);
    struct profile_kernel k = summarize(&g, "k", 1000);
    json_t *j = profile_kernel_json(&k);

    CHECK_INT_EQ(k.limiter, PROFILE_LIMITER_UNKNOWN);
    CHECK(json_is_null(json_object_get(j, "limiter")));
    CHECK(json_is_null(json_object_get(j, "dram_pct")));
    CHECK(json_is_null(json_object_get(j, "duration_ms")));
    CHECK(json_is_null(json_object_get(j, "dram_bytes")));
    CHECK_INT_EQ(json_array_size(json_object_get(j, "stalls")), 0);
    CHECK(json_real_value(json_object_get(j, "occupancy_theoretical_pct")) == 100.0);
    CHECK_CONTAINS(json_string_value(json_object_get(j, "reading")), "no throughput figure");
    json_decref(j);
    /* a device without its limits: the occupancy is null, the rest is read */
    struct profile_device none = {0};
    struct profile_launch_info info = {"k", 0};
    throughputs(&g, 1e6, 70, 10, 10, 10, 10, 0);
    profile_summarize(&g, &none, &info, 1000, &k);
    j = profile_kernel_json(&k);
    CHECK(json_is_null(json_object_get(j, "occupancy_theoretical_pct")));
    CHECK(json_is_null(json_object_get(j, "occupancy_limiter")));
    CHECK_STR_EQ(json_string_value(json_object_get(j, "limiter")), "memory");
    json_decref(j);
}

TEST(summary_plan_reading_names_the_slowest_launch)
{
    struct profile_range a = range(8192, 256, 32), b = range(64, 256, 32);
    struct profile_kernel k[2];
    char line[PROFILE_READING_BYTES + 160];

    throughputs(&a, 3e6, 90.0, 50.0, 20.0, 20.0, 10.0, 0);
    a.values[PM_DRAM_READ] = 2e9;
    a.values[PM_DRAM_WRITE] = 1e9;
    throughputs(&b, 1e6, 5.0, 5.0, 5.0, 5.0, 1.0, 0);
    b.launch = 1;
    b.values[PM_DRAM_READ] = 1e6;
    b.values[PM_DRAM_WRITE] = 1e6;
    k[0] = summarize(&a, "partial_sums", 1e9);
    k[1] = summarize(&b, "finish", 1e9);
    profile_plan_reading(k, 2, line, sizeof(line));
    CHECK_CONTAINS(line, "partial_sums (launch 0, 75% of the plan's GPU time): memory-bound");
    CHECK_CONTAINS(line, "(the 2 launches move 3.0x the bytes the problem needs)");
    profile_plan_reading(k, 1, line, sizeof(line));
    CHECK_STR_EQ(line, k[0].reading);
}

TEST(summary_raw_and_profiler_text)
{
    struct profile_reply r;
    struct profile_kernel k;
    char text[160];
    json_t *raw;

    memset(&r, 0, sizeof(r));
    snprintf(r.version, sizeof(r.version), "13.0");
    snprintf(r.chip, sizeof(r.chip), "GH100");
    r.passes = 9;
    snprintf(r.metrics[PM_DURATION], sizeof(r.metrics[PM_DURATION]), "gpu__time_duration.sum");
    snprintf(r.metrics[PM_DRAM_PCT], sizeof(r.metrics[PM_DRAM_PCT]), "%s",
             profile_metric_table[PM_DRAM_PCT].names[0]);
    r.n_ranges = 1;
    r.ranges[0] = range(1, 32, 8);
    r.ranges[0].values[PM_DURATION] = 1234.0;
    k = summarize(&r.ranges[0], "vector_add", 0);
    raw = profile_raw_json(&r, &k, 1);
    CHECK(json_real_value(json_object_get(json_object_get(raw, "vector_add#0"),
                                          "gpu__time_duration.sum")) == 1234.0);
    CHECK(json_is_null(json_object_get(json_object_get(raw, "vector_add#0"),
                                       profile_metric_table[PM_DRAM_PCT].names[0])));
    CHECK_INT_EQ(json_object_size(json_object_get(raw, "vector_add#0")), 2);
    json_decref(raw);
    profile_profiler_text(&r, text, sizeof(text));
    CHECK_STR_EQ(text, "CUPTI 13.0 range profiler (GH100), kernel replay, 9 passes");
}

/* A result around the summary's profile, as the server reads it (wire/worker_proto.h). */
static int server_reads(json_t *profile, struct json_reader *r)
{
    struct wp_result *out = calloc(1, sizeof(*out));
    json_t *j = wp_result_encode(json_pack("{s:s, s:s, s:b, s:[], s:o}", "verdict", "AC", "mode",
                                           "profile", "executed", 1, "tests", "profile", profile));
    char *text = json_dumps(j, JSON_COMPACT);
    json_t *back = text ? json_loads(text, 0, NULL) : NULL;
    int rc;

    json_reader_init(r, JSON_READER_NULL_IS_ABSENT); /* as the server reads */
    rc = out && back ? wp_result_decode(back, out, r) : BW_ERR_NOMEM;
    if (rc)
        printf("  server: %s: %s\n", r->path, r->message);
    free(out);
    free(text);
    json_decref(back);
    json_decref(j);
    return rc;
}

TEST(summary_is_what_the_server_reads)
{
    struct profile_reply rep;
    struct profile_kernel k[3];
    char reading[PROFILE_READING_BYTES + 160], profiler[160];
    struct json_reader r;
    json_t *kernels = json_array();

    memset(&rep, 0, sizeof(rep));
    snprintf(rep.version, sizeof(rep.version), "13.0");
    snprintf(rep.chip, sizeof(rep.chip), "GH100");
    rep.passes = 9;
    for (int m = 0; m < PM_COUNT; m++)
        snprintf(rep.metrics[m], sizeof(rep.metrics[m]), "%s", profile_metric_table[m].names[0]);
    rep.n_ranges = 3;
    rep.ranges[0] = range(1048576, 256, 16);
    throughputs(&rep.ranges[0], 0.79e6, 91.8, 40.1, 22.0, 30.2, 12.0, 0);
    rep.ranges[0].values[PM_STALL_LONG_SCOREBOARD] = 18;
    rep.ranges[0].values[PM_DRAM_READ] = 2e9;
    rep.ranges[0].values[PM_DRAM_WRITE] = 1e9;
    rep.ranges[1] = range(256, 256, 32); /* the GPU gave nothing */
    rep.ranges[1].launch = 1;
    rep.ranges[2] = range(64, 1024, 32); /* a latency-bound tail with named barriers */
    rep.ranges[2].launch = 2;
    throughputs(&rep.ranges[2], 1e5, 2, 2, 2, 2, 1, 0);
    for (int i = 0; i < 3; i++) {
        struct profile_launch_info info = {i == 0 ? "vector_add" : "tail", i == 2 ? 40 : 0};
        profile_summarize(&rep.ranges[i], &h200, &info, 3e9, &k[i]);
        json_array_append_new(kernels, profile_kernel_json(&k[i]));
    }
    CHECK_INT_EQ(k[2].occupancy_limiter, OCC_BARRIERS);
    CHECK_STR_EQ(
        json_string_value(json_object_get(json_array_get(kernels, 2), "occupancy_limiter")),
        "blocks per SM");
    profile_plan_reading(k, 3, reading, sizeof(reading));
    profile_profiler_text(&rep, profiler, sizeof(profiler));
    CHECK_INT_EQ(
        server_reads(json_pack("{s:b, s:s, s:s, s:f, s:o, s:s, s:o}", "available", 1, "case",
                               "N=2^28", "profiler", profiler, "wall_ms", 812.4, "kernels", kernels,
                               "reading", reading, "raw", profile_raw_json(&rep, k, 3)),
                     &r),
        BW_OK);
    CHECK_INT_EQ(server_reads(json_pack("{s:b, s:s, s:n, s:f}", "available", 0, "why",
                                        "no CUPTI library on this worker", "case", "wall_ms", 1.5),
                              &r),
                 BW_OK);
}
