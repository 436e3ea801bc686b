/*
 * score.h - scores of a timed benchmark shape and of a problem (docs/problem-format.md §4,
 * docs/problem-catalogue.md §1.1).
 *
 * A shape moves `bytes` (compulsory traffic: inputs read once, outputs
 * written once) and performs `flops`; its time is the median in ms. Against
 * the GPU's limits - memory bandwidth in GB/s (1e9 bytes/s, read + written)
 * and the compute peak in TFLOP/s of the problem's peak kind - the shape's
 * physical floor is
 *   floor_ms = max(bytes / BW, flops / PEAK)      (PEAK_NONE: bytes only)
 * and its speed of light is 100 * floor_ms / time_ms. A time below BW_FLOOR_MARGIN
 * (limits.h) times floor_ms cannot be real (a kernel that skipped work, or a broken timer)
 * and is rejected. The problem score is the geometric mean of the shapes'
 * speed-of-light percentages.
 */
#ifndef BW_SCORE_H
#define BW_SCORE_H

#include <stdbool.h>
#include <stddef.h>

#include "common/limits.h"
#include "problem/problem.h"

/* What the GPU can do, as measured by the worker (struct gpu_info's figures). */
struct roofline {
    double bw_gbps;     /* memory bandwidth, bytes read + written, GB/s */
    double fp32_tflops; /* FFMA peak */
    double fp16_tflops; /* tensor-core fp16 peak */
    double bf16_tflops; /* tensor-core bf16 peak */
};

struct shape_score {
    double gbps;     /* bytes / time, GB/s */
    double tflops;   /* flops / time, TFLOP/s */
    double floor_ms; /* the physical floor */
    double sol_pct;  /* 100 * floor_ms / time_ms */
    bool impossible; /* time_ms < BW_FLOOR_MARGIN * floor_ms */
};

/* The compute peak of a kind in TFLOP/s; 0 for PEAK_NONE. */
double roofline_peak(const struct roofline *r, enum peak_kind k);

double score_gbps(double bytes, double ms);
double score_tflops(double flops, double ms);

/*
 * The physical floor of a shape in ms: max(bytes / BW, flops / PEAK), the
 * flops term only when peak is not PEAK_NONE. BW_ERR_INVALID when bytes or
 * flops are negative or not finite, or when a needed limit is not positive
 * (an uncalibrated GPU): the cause names it.
 */
int score_floor_ms(const struct roofline *r, enum peak_kind k, double bytes, double flops,
                   double *floor_ms, char **cause);

/* True when time_ms is below BW_FLOOR_MARGIN times the floor. */
bool score_below_floor(double time_ms, double floor_ms);

/* Every figure of one shape timed at time_ms (> 0 and finite). */
int score_shape(const struct roofline *r, enum peak_kind k, double bytes, double flops,
                double time_ms, struct shape_score *out, char **cause);

/*
 * The problem score: the geometric mean of n speed-of-light percentages,
 * computed through logarithms. 0 when n is 0 or any value is not finite and
 * positive (a shape with no score leaves the problem without one).
 */
double score_problem(const double *sol_pct, size_t n);

#endif
