/*
 * stats.c - summaries of timing samples and the stop rule.
 */
#include "stats.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "error.h"
#include "banned.h"

/* sqrt(pi/2): the median's standard error over the mean's, normal samples. */
#define MEDIAN_SE_FACTOR 1.2533141373155002
/* IQR of the standard normal distribution: sigma = IQR / 1.349. */
#define NORMAL_IQR 1.3489795003921634

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

double stats_quantile_sorted(const double *sorted, int n, double q)
{
    if (n <= 0)
        return NAN;
    if (q <= 0)
        return sorted[0];
    if (q >= 1)
        return sorted[n - 1];
    double h = (n - 1) * q;
    int lo = (int)floor(h);
    if (lo >= n - 1)
        return sorted[n - 1];
    return sorted[lo] + (h - lo) * (sorted[lo + 1] - sorted[lo]);
}

static double relative(double spread, double center)
{
    if (spread == 0)
        return 0;
    return center > 0 ? spread / center : INFINITY;
}

int stats_summarize(const double *samples, int n, struct stats_summary *out, char **cause)
{
    if (n < 1)
        return bw_fail(cause, BW_ERR_INVALID, "stats: %d samples (need at least 1)", n);
    for (int i = 0; i < n; i++)
        if (!isfinite(samples[i]) || samples[i] < 0)
            return bw_fail(cause, BW_ERR_INVALID, "stats: sample %d is %g ms", i, samples[i]);
    double *s = malloc(sizeof(*s) * (size_t)n);
    if (!s)
        return bw_fail(cause, BW_ERR_NOMEM, "stats: out of memory sorting %d samples", n);
    memcpy(s, samples, sizeof(*s) * (size_t)n);
    qsort(s, (size_t)n, sizeof(*s), cmp_double);

    /* Welford's running mean and variance: no cancellation for close samples. */
    double mean = 0, m2 = 0;
    for (int i = 0; i < n; i++) {
        double d = s[i] - mean;
        mean += d / (i + 1);
        m2 += d * (s[i] - mean);
    }
    memset(out, 0, sizeof(*out));
    out->n = n;
    out->min = s[0];
    out->max = s[n - 1];
    out->mean = mean;
    out->stddev = n > 1 ? sqrt(m2 / (n - 1)) : 0;
    out->median = stats_quantile_sorted(s, n, 0.5);
    out->q1 = stats_quantile_sorted(s, n, 0.25);
    out->q3 = stats_quantile_sorted(s, n, 0.75);
    out->iqr = out->q3 - out->q1;
    out->p10 = stats_quantile_sorted(s, n, 0.10);
    out->p90 = stats_quantile_sorted(s, n, 0.90);
    out->rse_mean = relative(out->stddev / sqrt(n), out->mean);
    out->rse_median = relative(MEDIAN_SE_FACTOR * (out->iqr / NORMAL_IQR) / sqrt(n), out->median);
    free(s);
    return BW_OK;
}

bool stats_should_stop(const double *samples, int n, int min_samples, int max_samples,
                       double target_rse, double elapsed_ms, double budget_ms, const char **reason)
{
    const char *why = NULL;
    if (n < 1)
        return false;
    if (n >= min_samples) {
        struct stats_summary sum;
        if (stats_summarize(samples, n, &sum, NULL) == BW_OK && sum.rse_median <= target_rse)
            why = "rse";
    }
    if (!why && n >= max_samples)
        why = "max";
    if (!why && elapsed_ms >= budget_ms)
        why = "budget";
    if (!why)
        return false;
    if (reason)
        *reason = why;
    return true;
}
