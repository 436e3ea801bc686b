/*
 * score.c - bandwidth, throughput, speed of light, physical floor, geometric mean.
 */
#include "score.h"

#include <math.h>

#include "common/error.h"
#include "common/banned.h"

static const char *peak_name(enum peak_kind k)
{
    switch (k) {
    case PEAK_NONE:
        return "none";
    case PEAK_FP32:
        return "fp32";
    case PEAK_FP16_TENSOR:
        return "fp16_tensor";
    case PEAK_BF16_TENSOR:
        return "bf16_tensor";
    }
    return "unknown";
}

double roofline_peak(const struct roofline *r, enum peak_kind k)
{
    switch (k) {
    case PEAK_NONE:
        return 0;
    case PEAK_FP32:
        return r->fp32_tflops;
    case PEAK_FP16_TENSOR:
        return r->fp16_tflops;
    case PEAK_BF16_TENSOR:
        return r->bf16_tflops;
    }
    return 0;
}

double score_gbps(double bytes, double ms)
{
    return bytes / (ms * 1e-3) / 1e9;
}

double score_tflops(double flops, double ms)
{
    return flops / (ms * 1e-3) / 1e12;
}

static bool usable_count(double v)
{
    return isfinite(v) && v >= 0;
}

static bool usable_limit(double v)
{
    return isfinite(v) && v > 0;
}

int score_floor_ms(const struct roofline *r, enum peak_kind k, double bytes, double flops,
                   double *floor_ms, char **cause)
{
    if (!usable_count(bytes) || !usable_count(flops))
        return bw_fail(cause, BW_ERR_INVALID,
                       "score: bytes %g and flops %g (expected finite, >= 0)", bytes, flops);
    if (!usable_limit(r->bw_gbps))
        return bw_fail(cause, BW_ERR_INVALID, "score: memory bandwidth %g GB/s is unknown",
                       r->bw_gbps);
    double t = bytes / (r->bw_gbps * 1e9);
    if (k != PEAK_NONE) {
        double peak = roofline_peak(r, k);
        if (!usable_limit(peak))
            return bw_fail(cause, BW_ERR_INVALID, "score: %s peak %g TFLOP/s is unknown",
                           peak_name(k), peak);
        t = fmax(t, flops / (peak * 1e12));
    }
    *floor_ms = t * 1e3;
    return BW_OK;
}

bool score_below_floor(double time_ms, double floor_ms)
{
    return time_ms < BW_FLOOR_MARGIN * floor_ms;
}

int score_shape(const struct roofline *r, enum peak_kind k, double bytes, double flops,
                double time_ms, struct shape_score *out, char **cause)
{
    if (!usable_limit(time_ms))
        return bw_fail(cause, BW_ERR_INVALID, "score: time %g ms (expected finite, > 0)", time_ms);
    double floor_ms;
    int rc = score_floor_ms(r, k, bytes, flops, &floor_ms, cause);
    if (rc)
        return rc;
    out->gbps = score_gbps(bytes, time_ms);
    out->tflops = score_tflops(flops, time_ms);
    out->floor_ms = floor_ms;
    out->sol_pct = 100 * floor_ms / time_ms;
    out->impossible = score_below_floor(time_ms, floor_ms);
    return BW_OK;
}

double score_problem(const double *sol_pct, size_t n)
{
    if (n == 0)
        return 0;
    double sum = 0;
    for (size_t i = 0; i < n; i++) {
        if (!usable_limit(sol_pct[i]))
            return 0;
        sum += log(sol_pct[i]);
    }
    return exp(sum / (double)n);
}
