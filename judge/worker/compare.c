/*
 * compare.c - element rules, the mismatch report, its text and JSON forms.
 */
#include "compare.h"

#include <inttypes.h>
#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "common/error.h"
#include "common/banned.h"

static const char *const reason_texts[] = {
    [CMP_OK] = "ok",
    [CMP_EXPECTED_NAN] = "expected NaN",
    [CMP_EXPECTED_INF] = "expected +inf",
    [CMP_EXPECTED_NEG_INF] = "expected -inf",
    [CMP_GOT_NAN] = "got NaN",
    [CMP_GOT_INF] = "got +inf",
    [CMP_GOT_NEG_INF] = "got -inf",
    [CMP_TOLERANCE] = "outside tolerance",
    [CMP_NOT_EQUAL] = "not equal",
    [CMP_POISON] = "not written (poison)",
};

const char *compare_reason_text(enum compare_reason r)
{
    if ((int)r < 0 || (size_t)r >= sizeof(reason_texts) / sizeof(reason_texts[0]))
        return "unknown";
    return reason_texts[r];
}

static bool usable_term(double v)
{
    return isfinite(v) && v >= 0;
}

static int check_spec(const struct compare_spec *s, int64_t count, char **cause)
{
    if (dtype_size(s->dtype) == 0)
        return bw_fail(cause, BW_ERR_INVALID, "compare: invalid output dtype");
    if (s->ref_dtype != DTYPE_FP64 && s->ref_dtype != DTYPE_INT64)
        return bw_fail(cause, BW_ERR_INVALID,
                       "compare: reference dtype %s (expected fp64 or int64)",
                       dtype_name(s->ref_dtype));
    if (!usable_term(s->atol) || !usable_term(s->rtol) || !usable_term(s->acc))
        return bw_fail(cause, BW_ERR_INVALID,
                       "compare: tolerance atol %g rtol %g acc %g (expected finite values >= 0)",
                       s->atol, s->rtol, s->acc);
    if (count < 0)
        return bw_fail(cause, BW_ERR_INVALID, "compare: element count %" PRId64, count);
    if (s->ndim < 0 || s->ndim > BW_MAX_DIMS || (s->ndim > 0 && !s->dims))
        return bw_fail(cause, BW_ERR_INVALID, "compare: %d dimensions (at most %d)", s->ndim,
                       BW_MAX_DIMS);
    int64_t product = 1;
    for (int d = 0; d < s->ndim; d++) {
        if (s->dims[d] < 1)
            return bw_fail(cause, BW_ERR_INVALID, "compare: dimension %d is %" PRId64, d,
                           s->dims[d]);
        if (__builtin_mul_overflow(product, s->dims[d], &product))
            return bw_fail(cause, BW_ERR_INVALID, "compare: shape overflows int64");
    }
    if (s->ndim > 0 && product != count)
        return bw_fail(cause, BW_ERR_INVALID,
                       "compare: shape has %" PRId64 " elements but the count is %" PRId64, product,
                       count);
    return BW_OK;
}

int compare_begin(const struct compare_spec *s, int64_t count, struct compare_report *r,
                  char **cause)
{
    int rc = check_spec(s, count, cause);
    if (rc)
        return rc;
    memset(r, 0, sizeof(*r));
    r->dtype = s->dtype;
    r->exact = s->exact || !dtype_is_float(s->dtype);
    r->atol = s->atol;
    r->rtol = s->rtol;
    r->acc = s->acc;
    r->ndim = s->ndim;
    for (int d = 0; d < s->ndim; d++)
        r->dims[d] = s->dims[d];
    r->count = count;
    r->max_abs_at = -1;
    r->max_rel_at = -1;
    return BW_OK;
}

/* Row-major multi-index of `flat`; a flat tensor gives [flat]. */
static int unflatten(const struct compare_report *r, int64_t flat, int64_t *index)
{
    if (r->ndim == 0) {
        index[0] = flat;
        return 1;
    }
    for (int d = r->ndim - 1; d >= 0; d--) {
        index[d] = flat % r->dims[d];
        flat /= r->dims[d];
    }
    return r->ndim;
}

static bool all_ff(const unsigned char *p, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if (p[i] != 0xFF)
            return false;
    return true;
}

static struct compare_value float_value(double f)
{
    struct compare_value v = {.kind = CMP_VALUE_FLOAT, .f = f};
    return v;
}

/* Loads an integer element exactly. */
static struct compare_value int_value(enum dtype t, const void *p)
{
    struct compare_value v = {.kind = CMP_VALUE_INT};
    if (t == DTYPE_UINT64) {
        memcpy(&v.u, p, sizeof(v.u));
        v.kind = CMP_VALUE_UINT;
        v.f = (double)v.u;
    } else if (t == DTYPE_INT64) {
        memcpy(&v.i, p, sizeof(v.i));
        v.f = (double)v.i;
    } else {
        v.f = dtype_load(t, p); /* exact for 8- and 32-bit integers */
        v.i = (int64_t)v.f;
    }
    return v;
}

/* One element: the reference is ref_f (fp64) or ref_i (int64) per the spec. */
struct element {
    int64_t flat;
    const unsigned char *got;
    double ref_f;
    int64_t ref_i;
    double scale;
};

static enum compare_reason check_integer(const struct compare_spec *s, const struct element *e,
                                         struct compare_value *got, struct compare_value *want)
{
    *got = int_value(s->dtype, e->got);
    bool equal;
    if (s->ref_dtype == DTYPE_INT64) {
        if (s->dtype == DTYPE_UINT64) {
            want->kind = CMP_VALUE_UINT;
            want->u = (uint64_t)e->ref_i;
            want->f = (double)want->u;
            equal = got->u == want->u;
        } else {
            want->kind = CMP_VALUE_INT;
            want->i = e->ref_i;
            want->f = (double)e->ref_i;
            equal = got->i == e->ref_i;
        }
    } else {
        *want = float_value(e->ref_f);
        equal = got->f == e->ref_f;
    }
    return equal ? CMP_OK : CMP_NOT_EQUAL;
}

static enum compare_reason inf_reason(double v, enum compare_reason pos, enum compare_reason neg)
{
    return v > 0 ? pos : neg;
}

/* The tolerance rule for a finite reference; the one place it is written,
 * so the fast path below cannot drift from it. */
static bool within_tolerance(const struct compare_spec *s, double g, double ref, double scale)
{
    double bound = s->atol + s->rtol * fabs(ref) + (s->acc > 0 ? s->acc * scale : 0);
    return fabs(g - ref) <= bound;
}

static enum compare_reason check_float(const struct compare_spec *s, const struct element *e,
                                       double g, double ref, double want, bool poison)
{
    /* The poison (every byte 0xFF) is itself a NaN, so where a NaN is
     * expected an unwritten element would otherwise pass. The GPU never
     * makes that bit pattern by arithmetic (its canonical NaN is 0x7FFF...,
     * positive) nor by copying a generated input (NaN inputs are positive);
     * only negating a NaN does, and that is reported as unwritten too: a
     * false Wrong Answer that names its cause beats accepting a kernel that
     * never stored its output. */
    if (isnan(want))
        return poison ? CMP_POISON : isnan(g) ? CMP_OK : CMP_EXPECTED_NAN;
    if (isinf(want)) {
        if (g == want)
            return CMP_OK;
        return poison ? CMP_POISON : inf_reason(want, CMP_EXPECTED_INF, CMP_EXPECTED_NEG_INF);
    }
    if (poison)
        return CMP_POISON;
    if (isnan(g))
        return CMP_GOT_NAN;
    if (isinf(g))
        return inf_reason(g, CMP_GOT_INF, CMP_GOT_NEG_INF);
    if (s->exact)
        return g == want ? CMP_OK : CMP_NOT_EQUAL;
    return within_tolerance(s, g, ref, e->scale) ? CMP_OK : CMP_TOLERANCE;
}

/* |got - want|, from the exact integers when both are integers of one kind
 * (as doubles, 2^64 - 1 and 2^64 - 2 would be one value apart by zero). */
static double integer_distance(const struct compare_value *got, const struct compare_value *want)
{
    if (got->kind == CMP_VALUE_INT && want->kind == CMP_VALUE_INT) {
        uint64_t a = (uint64_t)got->i, b = (uint64_t)want->i;
        return (double)(got->i > want->i ? a - b : b - a);
    }
    if (got->kind == CMP_VALUE_UINT && want->kind == CMP_VALUE_UINT)
        return (double)(got->u > want->u ? got->u - want->u : want->u - got->u);
    return fabs(got->f - want->f);
}

static double rel_error(double abs_err, double ref)
{
    if (ref != 0)
        return abs_err / fabs(ref);
    if (isnan(abs_err))
        return NAN;
    return abs_err == 0 ? 0 : INFINITY;
}

static int check_element(const struct compare_spec *s, const struct element *e,
                         struct compare_report *r, char **cause)
{
    struct compare_value got, want;
    double rounded = 0;
    enum compare_reason reason;

    if (!dtype_is_float(s->dtype)) {
        reason = check_integer(s, e, &got, &want);
    } else {
        double ref = s->ref_dtype == DTYPE_INT64 ? (double)e->ref_i : e->ref_f;
        if (s->acc > 0 && isfinite(ref) && !usable_term(e->scale))
            return bw_fail(cause, BW_ERR_INVALID,
                           "compare: scale of element %" PRId64 " is %g (expected a finite value "
                           ">= 0)",
                           e->flat, e->scale);
        got = float_value(dtype_load(s->dtype, e->got));
        want = float_value(ref);
        rounded = s->exact ? dtype_round(s->dtype, ref) : ref;
        bool poison = all_ff(e->got, dtype_size(s->dtype));
        reason = check_float(s, e, got.f, ref, rounded, poison);
    }

    double abs_err = integer_distance(&got, &want);
    double rel_err = rel_error(abs_err, want.f);
    r->checked++;
    if (isfinite(got.f) && isfinite(want.f)) {
        if (r->max_abs_at < 0 || abs_err > r->max_abs_err) {
            r->max_abs_err = abs_err;
            r->max_abs_at = e->flat;
        }
        if (want.f != 0 && (r->max_rel_at < 0 || rel_err > r->max_rel_err)) {
            r->max_rel_err = rel_err;
            r->max_rel_at = e->flat;
        }
    }
    if (reason == CMP_OK)
        return BW_OK;
    r->mismatches++;
    r->unwritten += reason == CMP_POISON;
    if (r->n_shown < BW_MISMATCHES_SHOWN) {
        struct compare_mismatch *m = &r->first[r->n_shown++];
        m->flat = e->flat;
        m->ndim = unflatten(r, e->flat, m->index);
        m->expected = want;
        m->got = got;
        m->rounded = rounded;
        m->abs_err = abs_err;
        m->rel_err = rel_err;
        m->reason = reason;
    }
    return BW_OK;
}

static int check_one(const struct compare_spec *s, int64_t first, int64_t k, const void *got,
                     const void *ref, const double *scale, struct compare_report *r, char **cause)
{
    size_t size = dtype_size(s->dtype);
    const unsigned char *g = got, *rf = ref;
    struct element e = {.flat = first + k, .got = g + (size_t)k * size};
    if (s->ref_dtype == DTYPE_INT64)
        memcpy(&e.ref_i, rf + (size_t)k * 8, 8);
    else
        memcpy(&e.ref_f, rf + (size_t)k * 8, 8);
    e.scale = s->acc > 0 && scale ? scale[k] : 0;
    return check_element(s, &e, r, cause);
}

/* dtype_round, with the two common cases inline (the same arithmetic). */
static inline double round_to(enum dtype t, double v)
{
    if (t == DTYPE_FP32)
        return (double)(float)v;
    if (t == DTYPE_FP64)
        return v;
    return dtype_round(t, v);
}

/* Outputs converted to double FAST_BLOCK at a time by the fast path. */
#define FAST_BLOCK 1024

/*
 * The common case, apart for speed (P1's tests alone compare 63 million
 * elements; check_element costs 12-23 ns each on the development machine,
 * this loop ~4 for fp32): a float output against an fp64 reference. An
 * element that is finite, has a finite reference (and a usable scale) and
 * is within tolerance - or, for an exact output, equal to the reference
 * rounded to its dtype - passes here with exactly check_element's arithmetic
 * and maxima; every other one (a miss, a NaN or infinity, the poison, which
 * is a NaN, a bad scale) goes through check_element, which reports it.
 */
static int compare_float_fast(const struct compare_spec *s, int64_t first, int64_t n,
                              const void *got, const void *ref, const double *scale,
                              struct compare_report *r, char **cause)
{
    const unsigned char *g = got, *rf = ref;
    size_t size = dtype_size(s->dtype);
    double v[FAST_BLOCK];

    for (int64_t base = 0; base < n; base += FAST_BLOCK) {
        int64_t m = n - base < FAST_BLOCK ? n - base : FAST_BLOCK;
        const unsigned char *gb = g + (size_t)base * size;
        if (s->dtype == DTYPE_FP32) {
            for (int64_t k = 0; k < m; k++) {
                float f;
                memcpy(&f, gb + (size_t)k * 4, 4);
                v[k] = f;
            }
        } else if (s->dtype == DTYPE_FP64) {
            memcpy(v, gb, (size_t)m * 8);
        } else {
            for (int64_t k = 0; k < m; k++)
                v[k] = dtype_load(s->dtype, gb + (size_t)k * size);
        }
        for (int64_t k = 0; k < m; k++) {
            int64_t at = base + k;
            double want, sc = s->acc > 0 ? scale[at] : 0;
            memcpy(&want, rf + (size_t)at * 8, 8);
            bool pass = isfinite(v[k]) && isfinite(want) && !(s->acc > 0 && !usable_term(sc));
            if (pass)
                pass = s->exact ? v[k] == round_to(s->dtype, want)
                                : within_tolerance(s, v[k], want, sc);
            if (!pass) {
                int rc = check_one(s, first, at, got, ref, scale, r, cause);
                if (rc)
                    return rc;
                continue;
            }
            double abs_err = fabs(v[k] - want);
            r->checked++;
            if (r->max_abs_at < 0 || abs_err > r->max_abs_err) {
                r->max_abs_err = abs_err;
                r->max_abs_at = first + at;
            }
            if (want != 0) {
                double rel_err = abs_err / fabs(want);
                if (r->max_rel_at < 0 || rel_err > r->max_rel_err) {
                    r->max_rel_err = rel_err;
                    r->max_rel_at = first + at;
                }
            }
        }
    }
    return BW_OK;
}

int compare_chunk(const struct compare_spec *s, int64_t first, int64_t n, const void *got,
                  const void *ref, const double *scale, struct compare_report *r, char **cause)
{
    if (first < 0 || n < 0 || first > r->count || n > r->count - first)
        return bw_fail(cause, BW_ERR_INVALID,
                       "compare: elements %" PRId64 "+%" PRId64 " outside a tensor of %" PRId64,
                       first, n, r->count);
    if (s->acc > 0 && !scale && dtype_is_float(s->dtype))
        return bw_fail(cause, BW_ERR_INVALID, "compare: acc %g without a scale tensor", s->acc);
    if (dtype_is_float(s->dtype) && s->ref_dtype == DTYPE_FP64)
        return compare_float_fast(s, first, n, got, ref, scale, r, cause);
    for (int64_t k = 0; k < n; k++) {
        int rc = check_one(s, first, k, got, ref, scale, r, cause);
        if (rc)
            return rc;
    }
    return BW_OK;
}

/* One part of a parallel comparison: its own report, merged in order after. */
struct compare_part {
    const struct compare_spec *s;
    int64_t first, n;
    const void *got, *ref;
    const double *scale;
    struct compare_report r;
    char *cause;
    int rc;
};

static void *compare_part_run(void *arg)
{
    struct compare_part *pt = arg;
    size_t size = dtype_size(pt->s->dtype);
    pt->rc = compare_chunk(pt->s, pt->first, pt->n,
                           (const unsigned char *)pt->got + (size_t)pt->first * size,
                           (const unsigned char *)pt->ref + (size_t)pt->first * 8,
                           pt->scale ? pt->scale + pt->first : NULL, &pt->r, &pt->cause);
    return NULL;
}

/* Adds a later part's report to *dst as if its elements had followed. */
static void merge_report(struct compare_report *dst, const struct compare_report *src)
{
    dst->checked += src->checked;
    dst->mismatches += src->mismatches;
    dst->unwritten += src->unwritten;
    for (int i = 0; i < src->n_shown && dst->n_shown < BW_MISMATCHES_SHOWN; i++)
        dst->first[dst->n_shown++] = src->first[i];
    if (src->max_abs_at >= 0 && (dst->max_abs_at < 0 || src->max_abs_err > dst->max_abs_err)) {
        dst->max_abs_err = src->max_abs_err;
        dst->max_abs_at = src->max_abs_at;
    }
    if (src->max_rel_at >= 0 && (dst->max_rel_at < 0 || src->max_rel_err > dst->max_rel_err)) {
        dst->max_rel_err = src->max_rel_err;
        dst->max_rel_at = src->max_rel_at;
    }
}

int compare_output_threads(const struct compare_spec *s, const void *got, const void *ref,
                           const double *scale, int64_t count, int threads,
                           struct compare_report *out, char **cause)
{
    struct compare_part parts[COMPARE_MAX_THREADS];
    pthread_t tid[COMPARE_MAX_THREADS];
    bool started[COMPARE_MAX_THREADS] = {false};
    int rc = compare_begin(s, count, out, cause);

    if (rc)
        return rc;
    if (threads > COMPARE_MAX_THREADS)
        threads = COMPARE_MAX_THREADS;
    if (threads <= 1 || count < threads)
        return compare_chunk(s, 0, count, got, ref, scale, out, cause);
    for (int t = 0; t < threads; t++) {
        struct compare_part *pt = &parts[t];
        /* each part starts from the empty report compare_begin just made */
        *pt = (struct compare_part){.s = s, .got = got, .ref = ref, .scale = scale, .r = *out};
        pt->first = count / threads * t;
        pt->n = t == threads - 1 ? count - pt->first : count / threads;
        /* part 0 runs here; a thread that cannot start runs here too */
        if (t > 0)
            started[t] = pthread_create(&tid[t], NULL, compare_part_run, pt) == 0;
    }
    compare_part_run(&parts[0]);
    for (int t = 1; t < threads; t++) {
        if (started[t])
            pthread_join(tid[t], NULL);
        else
            compare_part_run(&parts[t]);
    }
    for (int t = 0; t < threads; t++) {
        if (parts[t].rc && !rc) {
            rc = parts[t].rc;
            if (cause) {
                *cause = parts[t].cause;
                parts[t].cause = NULL;
            }
        }
        free(parts[t].cause);
        if (!rc)
            merge_report(out, &parts[t].r);
    }
    return rc;
}

static int online_cpus(void)
{
    long n = sysconf(_SC_NPROCESSORS_ONLN);
    return n < 1 ? 1 : n > COMPARE_MAX_THREADS ? COMPARE_MAX_THREADS : (int)n;
}

int compare_output(const struct compare_spec *s, const void *got, const void *ref,
                   const double *scale, int64_t count, struct compare_report *out, char **cause)
{
    int threads = count < COMPARE_PARALLEL_MIN ? 1 : online_cpus();
    return compare_output_threads(s, got, ref, scale, count, threads, out, cause);
}

int compare_samples(const struct compare_spec *s, const struct compare_sample *samples, size_t n,
                    int64_t count, struct compare_report *out, char **cause)
{
    int rc = compare_begin(s, count, out, cause);
    if (rc)
        return rc;
    for (size_t k = 0; k < n; k++) {
        const struct compare_sample *sm = &samples[k];
        if (sm->index < 0 || sm->index >= count)
            return bw_fail(cause, BW_ERR_INVALID,
                           "compare: sample index %" PRId64 " outside a tensor of %" PRId64,
                           sm->index, count);
        struct element e = {.flat = sm->index,
                            .got = sm->got,
                            .ref_f = sm->ref,
                            .ref_i = sm->ref_i,
                            .scale = sm->scale};
        rc = check_element(s, &e, out, cause);
        if (rc)
            return rc;
    }
    return BW_OK;
}

bool compare_passed(const struct compare_report *r)
{
    return r->mismatches == 0;
}

/* ---- text ------------------------------------------------------------------ */

/* The shortest %g form of v that reads back as the same value of dtype t
 * (fp64 for the reference): an fp32 0.1f prints as "0.1", not 0.100000001490116. */
static void format_double(char *out, size_t size, double v, enum dtype t)
{
    if (isnan(v)) {
        snprintf(out, size, "nan");
        return;
    }
    if (isinf(v)) {
        snprintf(out, size, v > 0 ? "inf" : "-inf");
        return;
    }
    for (int digits = 1; digits <= 17; digits++) {
        snprintf(out, size, "%.*g", digits, v);
        if (dtype_round(t, strtod(out, NULL)) == v)
            return;
    }
}

static void format_value(char *out, size_t size, const struct compare_value *v, enum dtype t)
{
    if (v->kind == CMP_VALUE_INT)
        snprintf(out, size, "%" PRId64, v->i);
    else if (v->kind == CMP_VALUE_UINT)
        snprintf(out, size, "%" PRIu64, v->u);
    else
        format_double(out, size, v->f, t);
}

static void format_error(char *out, size_t size, double v)
{
    if (!isfinite(v))
        format_double(out, size, v, DTYPE_FP64);
    else
        snprintf(out, size, "%.3g", v);
}

static int add_index(struct buf *out, const int64_t *index, int ndim)
{
    int rc = buf_putc(out, '[');
    for (int d = 0; d < ndim && !rc; d++)
        rc = buf_addf(out, "%s%" PRId64, d ? ", " : "", index[d]);
    return rc ? rc : buf_putc(out, ']');
}

static int add_tolerance(struct buf *out, const struct compare_report *r)
{
    if (r->exact)
        return buf_addf(out, "%s, exact", dtype_name(r->dtype));
    int rc = buf_addf(out, "%s, atol %g rtol %g", dtype_name(r->dtype), r->atol, r->rtol);
    if (!rc && r->acc > 0)
        rc = buf_addf(out, " acc %g", r->acc);
    return rc;
}

static int add_max(struct buf *out, const struct compare_report *r, const char *what, double err,
                   int64_t at)
{
    char v[32];
    int64_t index[BW_MAX_DIMS];
    if (at < 0)
        return buf_addf(out, "%s -", what);
    format_error(v, sizeof(v), err);
    int rc = buf_addf(out, "%s %s at ", what, v);
    return rc ? rc : add_index(out, index, unflatten(r, at, index));
}

int compare_report_format(const struct compare_report *r, const char *name, struct buf *out)
{
    int rc = buf_addf(out, "%s: ", name ? name : "output");
    bool sampled = r->checked != r->count;
    if (!rc && r->mismatches == 0)
        rc = buf_addf(out, "all %" PRId64 " %selements match (", r->checked,
                      sampled ? "sampled " : "");
    else if (!rc)
        rc = buf_addf(out, "%" PRId64 " of %" PRId64 " %selements differ (", r->mismatches,
                      r->checked, sampled ? "sampled " : "");
    if (!rc && sampled)
        rc = buf_addf(out, "of %" PRId64 "; ", r->count);
    if (!rc)
        rc = add_tolerance(out, r);
    if (!rc)
        rc = buf_puts(out, ")\n");
    if (!rc && r->n_shown > 0)
        rc = buf_addf(out, "  %-16s %-24s %-24s %-10s %-10s %s\n", "index", "expected", "got",
                      "abs err", "rel err", "reason");
    for (int k = 0; k < r->n_shown && !rc; k++) {
        const struct compare_mismatch *m = &r->first[k];
        struct buf idx;
        char e[48], g[48], ae[32], re[32];
        buf_init(&idx, 256);
        rc = add_index(&idx, m->index, m->ndim);
        format_value(e, sizeof(e), &m->expected, DTYPE_FP64);
        format_value(g, sizeof(g), &m->got, r->dtype);
        format_error(ae, sizeof(ae), m->abs_err);
        format_error(re, sizeof(re), m->rel_err);
        if (!rc)
            rc = buf_addf(out, "  %-16s %-24s %-24s %-10s %-10s %s", idx.data, e, g, ae, re,
                          compare_reason_text(m->reason));
        buf_release(&idx);
        if (!rc && r->exact && dtype_is_float(r->dtype) && m->rounded != m->expected.f) {
            format_double(e, sizeof(e), m->rounded, r->dtype);
            rc = buf_addf(out, " (expected %s after rounding to %s)", e, dtype_name(r->dtype));
        }
        if (!rc)
            rc = buf_putc(out, '\n');
    }
    if (!rc)
        rc = buf_puts(out, "  ");
    if (!rc)
        rc = add_max(out, r, "max abs err", r->max_abs_err, r->max_abs_at);
    if (!rc)
        rc = buf_puts(out, ", ");
    if (!rc)
        rc = add_max(out, r, "max rel err", r->max_rel_err, r->max_rel_at);
    return rc ? rc : buf_putc(out, '\n');
}

/* ---- JSON ------------------------------------------------------------------ */

/* Sets obj[key] to a new value, stealing it; false if either allocation failed. */
static bool set_new(json_t *obj, const char *key, json_t *v)
{
    return v && json_object_set_new(obj, key, v) == 0;
}

static json_t *json_double(double v)
{
    if (isnan(v))
        return json_string("nan");
    if (isinf(v))
        return json_string(v > 0 ? "inf" : "-inf");
    return json_real(v);
}

static json_t *json_value(const struct compare_value *v)
{
    if (v->kind == CMP_VALUE_INT)
        return json_integer(v->i);
    if (v->kind == CMP_VALUE_UINT) {
        if (v->u <= (uint64_t)INT64_MAX)
            return json_integer((json_int_t)v->u);
        char digits[24];
        snprintf(digits, sizeof(digits), "%" PRIu64, v->u);
        return json_string(digits);
    }
    return json_double(v->f);
}

static json_t *json_index(const int64_t *index, int ndim)
{
    json_t *a = json_array();
    for (int d = 0; a && d < ndim; d++) {
        if (json_array_append_new(a, json_integer(index[d])) != 0) {
            json_decref(a);
            return NULL;
        }
    }
    return a;
}

static json_t *json_at(const struct compare_report *r, int64_t at)
{
    int64_t index[BW_MAX_DIMS];
    if (at < 0)
        return json_null();
    json_t *o = json_object();
    if (!o || !set_new(o, "index", json_index(index, unflatten(r, at, index))) ||
        !set_new(o, "flat", json_integer(at))) {
        json_decref(o);
        return NULL;
    }
    return o;
}

static json_t *json_mismatch(const struct compare_report *r, const struct compare_mismatch *m)
{
    json_t *o = json_object();
    bool ok = o && set_new(o, "index", json_index(m->index, m->ndim)) &&
              set_new(o, "flat", json_integer(m->flat)) &&
              set_new(o, "expected", json_value(&m->expected)) &&
              set_new(o, "got", json_value(&m->got)) &&
              set_new(o, "abs_err", json_double(m->abs_err)) &&
              set_new(o, "rel_err", json_double(m->rel_err)) &&
              set_new(o, "reason", json_string(compare_reason_text(m->reason)));
    if (ok && r->exact && dtype_is_float(r->dtype))
        ok = set_new(o, "rounded", json_double(m->rounded));
    if (!ok) {
        json_decref(o);
        return NULL;
    }
    return o;
}

static json_t *json_tolerance(const struct compare_report *r)
{
    if (r->exact)
        return json_pack("{s:b}", "exact", 1);
    return json_pack("{s:f, s:f, s:f}", "atol", r->atol, "rtol", r->rtol, "acc", r->acc);
}

json_t *compare_report_json(const struct compare_report *r, const char *name)
{
    json_t *o = json_object();
    json_t *first = json_array();
    bool ok = o && first;
    if (ok && name)
        ok = set_new(o, "name", json_string(name));
    ok = ok && set_new(o, "dtype", json_string(dtype_name(r->dtype))) &&
         set_new(o, "count", json_integer(r->count)) &&
         set_new(o, "checked", json_integer(r->checked)) &&
         set_new(o, "mismatches", json_integer(r->mismatches)) &&
         set_new(o, "unwritten", json_integer(r->unwritten)) &&
         set_new(o, "tolerance", json_tolerance(r)) &&
         set_new(o, "max_abs_err", json_double(r->max_abs_err)) &&
         set_new(o, "max_rel_err", json_double(r->max_rel_err)) &&
         set_new(o, "max_abs_at", json_at(r, r->max_abs_at)) &&
         set_new(o, "max_rel_at", json_at(r, r->max_rel_at));
    for (int k = 0; ok && k < r->n_shown; k++)
        ok = json_array_append_new(first, json_mismatch(r, &r->first[k])) == 0;
    if (ok) {
        ok = json_object_set_new(o, "first", first) == 0;
        first = NULL;
    }
    if (!ok) {
        json_decref(first);
        json_decref(o);
        return NULL;
    }
    return o;
}
