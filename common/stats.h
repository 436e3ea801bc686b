/*
 * stats.h - timing statistics of benchmark samples, and the adaptive stop rule.
 *
 * Samples are kernel times in milliseconds (one per timed run). The headline
 * figure is the median: GPU timings are skewed by rare slow runs (clock
 * changes, preemption), which move the mean but barely the median. Quantiles
 * interpolate linearly between order statistics (R's type 7, numpy's
 * default), so the median of an even count is the mean of the middle two.
 *
 * The median's relative standard error is estimated robustly, from the IQR
 * instead of the standard deviation: for normally distributed samples
 * SE(median) = sqrt(pi/2) * sigma / sqrt(n) and sigma = IQR / 1.349, so
 *   rse_median = 1.2533 * (IQR / 1.349) / sqrt(n) / median.
 * One outlier changes it by little; the mean's RSE (stddev / sqrt(n) / mean)
 * is reported beside it for reference.
 */
#ifndef BW_STATS_H
#define BW_STATS_H

#include <stdbool.h>

struct stats_summary {
    int n;
    double median, min, max, mean, stddev; /* stddev: sample (n - 1); 0 for one sample */
    double q1, q3, iqr;                    /* quartiles, IQR = q3 - q1 */
    double p10, p90;                       /* the robust spread shown beside the median */
    double rse_mean;                       /* stddev / sqrt(n) / mean */
    double rse_median;                     /* the robust estimate above */
};

/*
 * Summarizes n >= 1 samples (left unchanged). Every sample must be finite and
 * >= 0 (BW_ERR_INVALID naming the first that is not); BW_ERR_NOMEM if the
 * sorted copy cannot be allocated. A zero spread gives an RSE of 0, a zero
 * median with a spread an RSE of +inf.
 */
int stats_summarize(const double *samples, int n, struct stats_summary *out, char **cause);

/* The q-quantile (0 <= q <= 1) of n >= 1 samples sorted ascending. */
double stats_quantile_sorted(const double *sorted, int n, double q);

/*
 * The adaptive stop rule, a pure function of the samples so far (n of them),
 * checked after each timed run. Stops, setting *reason (static text):
 *   "rse"    when n >= min_samples and the median's RSE is <= target_rse;
 *   "max"    when n >= max_samples;
 *   "budget" when elapsed_ms >= budget_ms (the wall time spent sampling).
 * The first that holds, in that order, names the reason. Never stops before
 * the first sample. Samples that stats_summarize() refuses never satisfy
 * "rse". *reason is left alone when it returns false; reason may be NULL.
 */
bool stats_should_stop(const double *samples, int n, int min_samples, int max_samples,
                       double target_rse, double elapsed_ms, double budget_ms, const char **reason);

#endif
