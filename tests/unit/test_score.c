/* Tests of judge/score: GB/s, TFLOP/s, speed of light, the physical floor, the geometric mean. */
#include "tests/test.h"

#include <math.h>
#include <stdlib.h>

#include "common/error.h"
#include "judge/worker/score.h"
#include "common/banned.h"

static bool near(double a, double b, double rel)
{
    return fabs(a - b) <= rel * fabs(b);
}

static const struct roofline h200 = {
    .bw_gbps = 4800, .fp32_tflops = 67, .fp16_tflops = 989, .bf16_tflops = 989};

TEST(score_memory_bound_shape)
{
    /* vector add of 2^28 fp32: 12 bytes per element */
    double bytes = 12.0 * (1 << 28), flops = (double)(1 << 28);
    struct shape_score s;
    CHECK_INT_EQ(score_shape(&h200, PEAK_FP32, bytes, flops, 0.8, &s, NULL), BW_OK);
    CHECK(near(s.floor_ms, bytes / 4800e9 * 1e3, 1e-12)); /* 0.671 ms; flops need 0.004 */
    CHECK(near(s.gbps, bytes / 0.8e-3 / 1e9, 1e-12));     /* 4026.5 GB/s */
    CHECK(near(s.tflops, flops / 0.8e-3 / 1e12, 1e-12));
    CHECK(near(s.sol_pct, 100 * s.floor_ms / 0.8, 1e-12));
    CHECK(s.sol_pct > 83.8 && s.sol_pct < 83.9);
    CHECK(!s.impossible);
    CHECK(score_gbps(1e9, 1) == 1000);
    CHECK(score_tflops(1e12, 1000) == 1);
}

TEST(score_compute_bound_shape)
{
    double n = 4096, flops = 2 * n * n * n, bytes = 3 * 4 * n * n;
    struct shape_score s;
    CHECK_INT_EQ(score_shape(&h200, PEAK_FP32, bytes, flops, 4.1, &s, NULL), BW_OK);
    CHECK(near(s.floor_ms, flops / 67e12 * 1e3, 1e-12)); /* 2.05 ms, bytes need 0.04 */
    CHECK(near(s.sol_pct, 100 * 2.0513 / 4.1, 1e-4));
    CHECK(near(s.tflops, flops / 4.1e-3 / 1e12, 1e-12));
    /* the tensor-core peaks are picked by kind */
    CHECK_INT_EQ(score_shape(&h200, PEAK_FP16_TENSOR, bytes, flops, 0.5, &s, NULL), BW_OK);
    CHECK(near(s.floor_ms, flops / 989e12 * 1e3, 1e-12));
    struct roofline r = h200;
    r.bf16_tflops = 500;
    CHECK_INT_EQ(score_shape(&r, PEAK_BF16_TENSOR, bytes, flops, 0.5, &s, NULL), BW_OK);
    CHECK(near(s.floor_ms, flops / 500e12 * 1e3, 1e-12));
    CHECK(roofline_peak(&h200, PEAK_NONE) == 0);
    CHECK(roofline_peak(&h200, PEAK_FP32) == 67);
}

TEST(score_peak_none_counts_only_bytes)
{
    struct shape_score s;
    /* a huge flop count is ignored without a compute peak */
    CHECK_INT_EQ(score_shape(&h200, PEAK_NONE, 4.8e9, 1e18, 2, &s, NULL), BW_OK);
    CHECK(near(s.floor_ms, 1, 1e-12));
    CHECK(near(s.sol_pct, 50, 1e-12));
    /* and an unknown compute peak does not matter then */
    struct roofline r = {.bw_gbps = 4800};
    CHECK_INT_EQ(score_shape(&r, PEAK_NONE, 4.8e9, 1e18, 2, &s, NULL), BW_OK);
}

TEST(score_physical_floor)
{
    double floor_ms = 0;
    CHECK_INT_EQ(score_floor_ms(&h200, PEAK_NONE, 4.8e9, 0, &floor_ms, NULL), BW_OK);
    CHECK(near(floor_ms, 1, 1e-12));
    CHECK(score_below_floor(0.899, 1));
    CHECK(!score_below_floor(0.9, 1));
    CHECK(!score_below_floor(1.5, 1));
    struct shape_score s;
    CHECK_INT_EQ(score_shape(&h200, PEAK_NONE, 4.8e9, 0, 0.5, &s, NULL), BW_OK);
    CHECK(s.impossible);
    CHECK(near(s.sol_pct, 200, 1e-12));
    CHECK_INT_EQ(score_shape(&h200, PEAK_NONE, 4.8e9, 0, 0.95, &s, NULL), BW_OK);
    CHECK(!s.impossible); /* faster than the measured copy, but within the margin */
}

TEST(score_rejects_bad_inputs)
{
    struct shape_score s;
    char *cause = NULL;
    struct roofline none = {0};
    CHECK_INT_EQ(score_shape(&none, PEAK_NONE, 1, 1, 1, &s, &cause), BW_ERR_INVALID);
    CHECK_CONTAINS(cause, "bandwidth");
    free(cause);
    cause = NULL;
    struct roofline r = {.bw_gbps = 4800};
    CHECK_INT_EQ(score_shape(&r, PEAK_FP16_TENSOR, 1, 1, 1, &s, &cause), BW_ERR_INVALID);
    CHECK_CONTAINS(cause, "fp16_tensor peak");
    free(cause);
    CHECK_INT_EQ(score_shape(&h200, PEAK_FP32, -1, 1, 1, &s, NULL), BW_ERR_INVALID);
    CHECK_INT_EQ(score_shape(&h200, PEAK_FP32, 1, NAN, 1, &s, NULL), BW_ERR_INVALID);
    CHECK_INT_EQ(score_shape(&h200, PEAK_FP32, 1, 1, 0, &s, NULL), BW_ERR_INVALID);
    CHECK_INT_EQ(score_shape(&h200, PEAK_FP32, 1, 1, INFINITY, &s, NULL), BW_ERR_INVALID);
    CHECK_INT_EQ(score_shape(&h200, PEAK_FP32, 0, 0, 1, &s, NULL), BW_OK);
    CHECK(s.sol_pct == 0 && !s.impossible);
}

TEST(score_problem_geometric_mean)
{
    double a[2] = {25, 100};
    CHECK(near(score_problem(a, 2), 50, 1e-12));
    double b[3] = {1, 10, 100};
    CHECK(near(score_problem(b, 3), 10, 1e-12));
    double c[1] = {73.5};
    CHECK(near(score_problem(c, 1), 73.5, 1e-12));
    CHECK(score_problem(c, 0) == 0);
    double d[3] = {50, 0, 50};
    CHECK(score_problem(d, 3) == 0);
    double e[2] = {50, NAN};
    CHECK(score_problem(e, 2) == 0);
    /* many shapes: no overflow of a running product */
    double f[64];
    for (int i = 0; i < 64; i++)
        f[i] = 1e10;
    CHECK(near(score_problem(f, 64), 1e10, 1e-9));
    /* below the arithmetic mean unless all equal */
    double g[2] = {10, 90};
    CHECK(near(score_problem(g, 2), 30, 1e-12));
}
