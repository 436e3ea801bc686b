/*
 * compare.h - the dtype-aware comparator of outputs against the reference
 * (docs/problem-format.md §5, docs/problem-catalogue.md §1.5).
 *
 * An output tensor of `dtype` is compared element by element with an fp64
 * reference (DTYPE_FP64: double per element) or, for integer outputs, with a
 * long long reference (DTYPE_INT64), as reference.cu writes them. Rules, per
 * element with reference r, output g and scale S:
 *   - r NaN: g must be NaN (any payload; an unwritten, poisoned element whose
 *     reference is NaN cannot be told from a written NaN);
 *   - r +-inf: g must be the same infinity;
 *   - r finite: g must be finite and |g - r| <= atol + rtol*|r| + acc*S;
 *   - exact float: g must equal dtype_round(dtype, r) as a value (+0 == -0,
 *     and a NaN or infinity after rounding follows the rules above);
 *   - integer dtypes: always exact, compared as integers (a uint64 output
 *     against the long long reference's bits; against an fp64 reference, as
 *     doubles, so exact below 2^53).
 * A float element whose bytes are all 0xFF (the judge's poison) is reported
 * as "not written (poison)" unless the reference is NaN.
 *
 * The report counts every mismatch, keeps the first BW_MISMATCHES_SHOWN (by
 * flat index in a full compare, in sample order in a sampled one) with their
 * row-major multi-dimensional index, and the largest absolute and relative
 * errors over the elements where both values are finite (the relative one
 * also skips r == 0). Errors are always measured against the fp64 reference.
 *
 * A bad spec or reference (tolerances negative or not finite, a NaN scale for
 * a finite reference, an index out of range) is BW_ERR_INVALID: that is the
 * judge's or the problem's fault, never the learner's.
 */
#ifndef BW_COMPARE_H
#define BW_COMPARE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <jansson.h>

#include "common/buf.h"
#include "common/dtype.h"
#include "common/limits.h"

struct compare_spec {
    enum dtype dtype;     /* the output's element type */
    enum dtype ref_dtype; /* DTYPE_FP64 or DTYPE_INT64 (long long, for integer outputs) */
    bool exact;           /* floats: bitwise after rounding the reference; integers always are */
    double atol, rtol;    /* tolerance terms; ignored when exact or integer */
    double acc;           /* coefficient of the per-element scale S; 0: no scale */
    const int64_t *dims;  /* borrowed: the shape, row-major; NULL with ndim 0: flat */
    int ndim;             /* 0..BW_MAX_DIMS */
};

enum compare_reason {
    CMP_OK = 0,
    CMP_EXPECTED_NAN,     /* "expected NaN" */
    CMP_EXPECTED_INF,     /* "expected +inf" */
    CMP_EXPECTED_NEG_INF, /* "expected -inf" */
    CMP_GOT_NAN,          /* "got NaN" */
    CMP_GOT_INF,          /* "got +inf" */
    CMP_GOT_NEG_INF,      /* "got -inf" */
    CMP_TOLERANCE,        /* "outside tolerance" */
    CMP_NOT_EQUAL,        /* "not equal" (exact floats, integers) */
    CMP_POISON,           /* "not written (poison)" */
};

/* The reason's text as shown to learners; never NULL. */
const char *compare_reason_text(enum compare_reason r);

/* A value as shown: integers exactly, floats as doubles. `f` is always set. */
struct compare_value {
    enum { CMP_VALUE_FLOAT, CMP_VALUE_INT, CMP_VALUE_UINT } kind;
    double f;
    int64_t i;  /* CMP_VALUE_INT */
    uint64_t u; /* CMP_VALUE_UINT */
};

struct compare_mismatch {
    int64_t flat;                  /* flat (row-major) element index */
    int64_t index[BW_MAX_DIMS];    /* the same as a multi-dimensional index */
    int ndim;                      /* entries of index; 1 when the spec had no shape */
    struct compare_value expected; /* the reference */
    struct compare_value got;
    double rounded; /* exact floats: the reference rounded to the dtype */
    double abs_err; /* |got - expected|; NaN or inf when either is not finite */
    double rel_err; /* abs_err / |expected|; inf when expected is 0 and got is not */
    enum compare_reason reason;
};

struct compare_report {
    enum dtype dtype;
    bool exact;
    double atol, rtol, acc;
    int64_t dims[BW_MAX_DIMS];
    int ndim;
    int64_t count;      /* elements in the tensor */
    int64_t checked;    /* elements compared (all of them, or the samples) */
    int64_t mismatches; /* elements that failed */
    int64_t unwritten;  /* of them, elements still holding the judge's poison (CMP_POISON) */
    int n_shown;        /* entries of first[] */
    struct compare_mismatch first[BW_MISMATCHES_SHOWN];
    double max_abs_err, max_rel_err; /* 0 when no element qualified */
    int64_t max_abs_at, max_rel_at;  /* flat index of each maximum; -1: none */
};

/*
 * Starts a report for a tensor of `count` elements: checks the spec (dtype,
 * ref_dtype, tolerances finite and >= 0, shape entries >= 1 whose product is
 * `count`) and leaves *r empty. Then compare_chunk() may be called any number
 * of times, e.g. once per slice of a large tensor copied from the GPU.
 */
int compare_begin(const struct compare_spec *s, int64_t count, struct compare_report *r,
                  char **cause);

/*
 * Compares elements first..first+n-1: `got` points at element `first` of the
 * output (dtype elements, any alignment), `ref` at element `first` of the
 * reference (ref_dtype elements), `scale` at element `first` of S (NULL
 * unless acc > 0). Adds to *r.
 */
int compare_chunk(const struct compare_spec *s, int64_t first, int64_t n, const void *got,
                  const void *ref, const double *scale, struct compare_report *r, char **cause);

/*
 * compare_begin + compare_chunk over the whole tensor. A large tensor (at
 * least COMPARE_PARALLEL_MIN elements) is split across up to
 * COMPARE_MAX_THREADS threads, as many as there are CPUs online; the parts'
 * reports are merged in order, so the report is the one a single pass makes,
 * bit for bit (first mismatches, maxima at their first index).
 */
int compare_output(const struct compare_spec *s, const void *got, const void *ref,
                   const double *scale, int64_t count, struct compare_report *out, char **cause);

#define COMPARE_PARALLEL_MIN (1 << 20)
#define COMPARE_MAX_THREADS  8

/* compare_output with `threads` parts (1: a single pass); for tests and benchmarks. */
int compare_output_threads(const struct compare_spec *s, const void *got, const void *ref,
                           const double *scale, int64_t count, int threads,
                           struct compare_report *out, char **cause);

/* One sampled element: its flat index, raw output bytes and reference. */
struct compare_sample {
    int64_t index;
    unsigned char got[8]; /* dtype_size(dtype) bytes of the output element */
    double ref;           /* the reference when ref_dtype is DTYPE_FP64 */
    int64_t ref_i;        /* the reference when ref_dtype is DTYPE_INT64 */
    double scale;         /* S, read only when acc > 0 */
};

/*
 * Sampled check (the timed runs of large shapes): compares `n` samples of a
 * tensor of `count` elements with the same rules; each index must lie in
 * [0, count). checked = n; mismatches are listed in sample order.
 */
int compare_samples(const struct compare_spec *s, const struct compare_sample *samples, size_t n,
                    int64_t count, struct compare_report *out, char **cause);

/* True when nothing failed. */
bool compare_passed(const struct compare_report *r);

/*
 * Appends the report as text to `out`: a summary line naming `name` (may be
 * NULL), then for failures a small table of the first mismatches:
 *
 *   out: 2 of 1000 elements differ (fp32, atol 1e-05 rtol 1.3e-06)
 *     index       expected     got          abs err    rel err    reason
 *     [0, 3]      1.5          nan          nan        nan        got NaN
 *   max abs err 0.5 at [0, 7], max rel err 0.25 at [0, 7]
 *
 * A sampled check says "2 of 4096 sampled elements differ (of 1000000; ...".
 * Values are printed with the fewest digits that read back as the same value
 * of their dtype (the reference as fp64).
 */
int compare_report_format(const struct compare_report *r, const char *name, struct buf *out);

/*
 * The report as a *new* JSON object (what the web page shows): {"name",
 * "dtype", "count", "checked", "mismatches", "unwritten", "tolerance": {"exact"} or
 * {"atol", "rtol", "acc"}, "max_abs_err", "max_rel_err", "max_abs_at",
 * "max_rel_at" ({"index": [...], "flat"} or null), "first": [{"index": [...],
 * "flat", "expected", "got", "abs_err", "rel_err", "reason"} + "rounded" for
 * exact floats]}. Numbers that are NaN or infinite are the strings "nan",
 * "inf", "-inf"; integers are JSON integers (a uint64 above 2^63 - 1, a
 * decimal string). "name" is left out when `name` is NULL. NULL if out of
 * memory.
 */
json_t *compare_report_json(const struct compare_report *r, const char *name);

#endif
