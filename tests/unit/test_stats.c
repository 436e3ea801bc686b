/* Tests of judge/stats: summaries of synthetic samples and the stop rule. */
#include "tests/test.h"

#include <math.h>
#include <stdlib.h>

#include "common/error.h"
#include "common/philox.h"
#include "common/stats.h"
#include "common/banned.h"

static bool near(double a, double b)
{
    return fabs(a - b) <= 1e-12 * fmax(1, fabs(b));
}

TEST(stats_even_count)
{
    double s[4] = {4, 1, 3, 2};
    struct stats_summary r;
    CHECK_INT_EQ(stats_summarize(s, 4, &r, NULL), BW_OK);
    CHECK_INT_EQ(r.n, 4);
    CHECK(r.median == 2.5);
    CHECK(r.min == 1 && r.max == 4);
    CHECK(r.mean == 2.5);
    CHECK(near(r.stddev, sqrt(5.0 / 3.0)));
    /* numpy.percentile([1,2,3,4], [25, 75, 10, 90]) = 1.75, 3.25, 1.3, 3.7 */
    CHECK(near(r.q1, 1.75) && near(r.q3, 3.25) && near(r.iqr, 1.5));
    CHECK(near(r.p10, 1.3) && near(r.p90, 3.7));
    CHECK(near(r.rse_mean, sqrt(5.0 / 3.0) / 2 / 2.5));
    CHECK(near(r.rse_median, 1.2533141373155002 * (1.5 / 1.3489795003921634) / 2 / 2.5));
    CHECK(s[0] == 4 && s[1] == 1); /* the input is not sorted in place */
}

TEST(stats_odd_count_and_single)
{
    double s[5] = {10, 30, 20, 50, 40};
    struct stats_summary r;
    CHECK_INT_EQ(stats_summarize(s, 5, &r, NULL), BW_OK);
    CHECK(r.median == 30);
    CHECK(r.q1 == 20 && r.q3 == 40);
    CHECK(near(r.p10, 14) && near(r.p90, 46));
    double one = 0.25;
    CHECK_INT_EQ(stats_summarize(&one, 1, &r, NULL), BW_OK);
    CHECK(r.median == 0.25 && r.min == 0.25 && r.max == 0.25 && r.p10 == 0.25);
    CHECK(r.stddev == 0 && r.rse_mean == 0 && r.rse_median == 0);
}

TEST(stats_constant_samples)
{
    double s[50];
    for (int i = 0; i < 50; i++)
        s[i] = 0.1; /* not exactly representable: Welford must not invent a spread */
    struct stats_summary r;
    CHECK_INT_EQ(stats_summarize(s, 50, &r, NULL), BW_OK);
    CHECK(r.median == 0.1 && r.iqr == 0);
    CHECK(r.stddev < 1e-16);
    CHECK(r.rse_median == 0);
    const char *why = NULL;
    CHECK(stats_should_stop(s, 10, 10, 500, 0.005, 1, 1500, &why));
    CHECK_STR_EQ(why, "rse");
    CHECK(!stats_should_stop(s, 9, 10, 500, 0.005, 1, 1500, &why)); /* below min_samples */
}

TEST(stats_one_outlier)
{
    double s[21];
    for (int i = 0; i < 21; i++)
        s[i] = 1.0 + 0.001 * (i % 7); /* 1.000 .. 1.006 */
    s[13] = 100;                      /* one run 100x slower */
    struct stats_summary r;
    CHECK_INT_EQ(stats_summarize(s, 21, &r, NULL), BW_OK);
    CHECK(r.max == 100);
    CHECK(r.mean > 5.7); /* the mean is dragged far away */
    CHECK(r.median >= 1.0 && r.median <= 1.006);
    CHECK(r.p90 <= 1.006);
    CHECK(r.rse_mean > 0.5);
    CHECK(r.rse_median < 0.002); /* the robust estimate is not */
    const char *why = NULL;
    CHECK(stats_should_stop(s, 21, 10, 500, 0.005, 10, 1500, &why));
    CHECK_STR_EQ(why, "rse");
}

TEST(stats_rejects_bad_samples)
{
    struct stats_summary r;
    char *cause = NULL;
    double s[3] = {1, NAN, 2};
    CHECK_INT_EQ(stats_summarize(s, 3, &r, &cause), BW_ERR_INVALID);
    CHECK_CONTAINS(cause, "sample 1");
    free(cause);
    double neg = -1;
    CHECK_INT_EQ(stats_summarize(&neg, 1, &r, NULL), BW_ERR_INVALID);
    CHECK_INT_EQ(stats_summarize(s, 0, &r, NULL), BW_ERR_INVALID);
    /* a zero median with a spread: infinite RSE, no "rse" stop */
    double z[4] = {0, 0, 0, 1};
    CHECK_INT_EQ(stats_summarize(z, 4, &r, NULL), BW_OK);
    CHECK(r.median == 0 && isinf(r.rse_median));
    CHECK(!stats_should_stop(s, 3, 1, 500, 1, 0, 1500, NULL));
}

/*
 * A sequence whose stop point follows by hand: five samples of 1 and five of 2,
 * then 1.5 repeated. With k samples of 1.5 (n = 10 + k), q1 and q3 are both
 * 1.5 from k = 11 on (q1 at h = (n-1)/4 = 5, q3 at h = 15, indices 5..15 hold
 * 1.5), so the IQR and the RSE become 0 at n = 21; at n = 20 the IQR is 0.25.
 */
TEST(stats_stop_rule_exact_point)
{
    double s[40];
    for (int i = 0; i < 10; i++)
        s[i] = i % 2 ? 2 : 1;
    for (int i = 10; i < 40; i++)
        s[i] = 1.5;
    int stop = -1;
    const char *why = NULL;
    for (int n = 1; n <= 40 && stop < 0; n++)
        if (stats_should_stop(s, n, 10, 500, 0.005, n, 1500, &why))
            stop = n;
    CHECK_INT_EQ(stop, 21);
    CHECK_STR_EQ(why, "rse");
    struct stats_summary r;
    CHECK_INT_EQ(stats_summarize(s, 20, &r, NULL), BW_OK);
    CHECK(near(r.iqr, 0.25));
}

/* A normal variate from Philox (Box-Muller), for reproducible noise. */
static double noise(uint32_t i, uint32_t seed)
{
    struct philox4x32 c = {{i, 0, 0, 0}};
    struct philox4x32 r = philox4x32_10(c, seed, 0x5eed);
    double u1 = (r.v[0] + 1.0) / 4294967296.0, u2 = r.v[1] / 4294967296.0;
    return sqrt(-2 * log(u1)) * cos(6.283185307179586 * u2);
}

/* An independent computation of the robust RSE of the first n samples. */
static double reference_rse(const double *s, int n)
{
    double *t = malloc(sizeof(double) * (size_t)n);
    if (!t)
        return INFINITY;
    for (int i = 0; i < n; i++) { /* insertion sort */
        int j = i;
        while (j > 0 && t[j - 1] > s[i]) {
            t[j] = t[j - 1];
            j--;
        }
        t[j] = s[i];
    }
    double q[3];
    for (int k = 0; k < 3; k++) {
        double h = (n - 1) * (0.25 * (k + 1));
        int lo = (int)h;
        q[k] = lo + 1 < n ? t[lo] + (h - lo) * (t[lo + 1] - t[lo]) : t[lo];
    }
    free(t);
    return sqrt(acos(-1) / 2) * ((q[2] - q[0]) / 1.3489795003921634) / sqrt(n) / q[1];
}

TEST(stats_stop_rule_noisy_sequence)
{
    enum { MAX = 500 };
    double s[MAX];
    for (int i = 0; i < MAX; i++)
        s[i] = 1.0 + 0.02 * noise((uint32_t)i, 42); /* 2% noise: stops near n = 25 */
    int stop = -1, expect = -1;
    const char *why = NULL;
    for (int n = 1; n <= MAX && stop < 0; n++)
        if (stats_should_stop(s, n, 10, MAX, 0.005, n * 0.5, 1500, &why))
            stop = n;
    for (int n = 10; n <= MAX && expect < 0; n++)
        if (reference_rse(s, n) <= 0.005)
            expect = n;
    CHECK_MSG(stop == expect, "stopped at %d, independently expected %d", stop, expect);
    CHECK_STR_EQ(why, "rse");
    CHECK(stop >= 12 && stop <= 60);
    /* 50% noise cannot reach 0.5%: the count limit stops it */
    for (int i = 0; i < MAX; i++)
        s[i] = 10.0 + 5 * fabs(noise((uint32_t)i, 7));
    stop = -1;
    for (int n = 1; n <= MAX && stop < 0; n++)
        if (stats_should_stop(s, n, 10, 100, 0.005, n, 1500, &why))
            stop = n;
    CHECK_INT_EQ(stop, 100);
    CHECK_STR_EQ(why, "max");
    /* and the wall budget stops it first when runs are slow */
    stop = -1;
    for (int n = 1; n <= MAX && stop < 0; n++)
        if (stats_should_stop(s, n, 10, 100, 0.005, n * 40.0, 1500, &why))
            stop = n;
    CHECK_INT_EQ(stop, 38); /* 38 * 40 ms >= 1500 ms */
    CHECK_STR_EQ(why, "budget");
    /* a single run over the budget stops after it, never before the first */
    CHECK(!stats_should_stop(s, 0, 10, 100, 0.005, 5000, 1500, &why));
    CHECK(stats_should_stop(s, 1, 10, 100, 0.005, 5000, 1500, &why));
    CHECK_STR_EQ(why, "budget");
}
