#include "checks.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "reference.h"
#include "runner_client.h"
#include "session.h"
#include "tests.h"
#include "common/error.h"
#include "common/limits.h"
#include "common/log.h"
#include "plan/run_plan.h"
#include "common/banned.h"

void checks_release(struct checks *k)
{
    free(k->indices);
    free(k->ref_values);
    free(k->ref_scales);
    free(k->ref_ints);
    memset(k, 0, sizeof(*k));
}

uint64_t checks_pick(uint64_t *state)
{
    uint64_t z = (*state += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}

static int cmp_i64(const void *a, const void *b)
{
    int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
    return (x > y) - (x < y);
}

/* Sorts v[0..n) and drops repeats; returns how many remain. */
static uint64_t sort_unique(int64_t *v, uint64_t n)
{
    uint64_t u = 0;

    qsort(v, (size_t)n, sizeof(*v), cmp_i64);
    for (uint64_t j = 0; j < n; j++)
        if (u == 0 || v[u - 1] != v[j])
            v[u++] = v[j];
    return u;
}

/* CHECKS_PICK_TIMED's elements of an output of `count`: all of them when few,
 * else the first, the last and random others. */
static void pick_timed(int64_t count, uint64_t *pick, int64_t *out, uint64_t n)
{
    if ((uint64_t)count <= n) {
        for (uint64_t j = 0; j < n; j++)
            out[j] = (int64_t)j;
        return;
    }
    out[0] = 0;
    out[1] = count - 1;
    for (uint64_t j = 2; j < n; j++)
        out[j] = (int64_t)(checks_pick(pick) % (uint64_t)count);
}

/* The elements between which 32-bit offsets wrap: every 2^31 bytes of an
 * output of `esize`-byte elements (2^31 elements is a multiple of it). */
static uint64_t wrap_step(size_t esize)
{
    return (1ull << 31) / (esize ? esize : 1);
}

uint64_t checks_test_positions_max(int64_t count, size_t esize)
{
    uint64_t windows = count > 0 ? ((uint64_t)count - 1) / wrap_step(esize) : 0;
    return BW_SAMPLED_HEAD + BW_SAMPLED_TAIL + BW_CHECK_SAMPLES + windows * 2 * BW_SAMPLED_WINDOW;
}

int checks_test_positions(int64_t count, size_t esize, uint64_t *pick, int64_t **out, uint64_t *n,
                          char **cause)
{
    uint64_t max = checks_test_positions_max(count, esize), m = 0, step = wrap_step(esize);
    uint64_t all = count > 0 ? (uint64_t)count : 0;
    int64_t *v;

    *out = NULL;
    *n = 0;
    v = malloc((all <= max ? (all ? all : 1) : max) * sizeof(*v));
    if (!v)
        return bw_fail(cause, BW_ERR_NOMEM, "out of memory for the checked elements");
    if (all <= max) {
        for (uint64_t j = 0; j < all; j++)
            v[j] = (int64_t)j;
        *out = v;
        *n = all;
        return BW_OK;
    }
    for (uint64_t j = 0; j < BW_SAMPLED_HEAD; j++)
        v[m++] = (int64_t)j;
    for (uint64_t j = all - BW_SAMPLED_TAIL; j < all; j++)
        v[m++] = (int64_t)j;
    for (uint64_t b = step; b < all; b += step) /* b - W .. b + W - 1, inside the output */
        for (uint64_t j = b - BW_SAMPLED_WINDOW; j < b + BW_SAMPLED_WINDOW && j < all; j++)
            v[m++] = (int64_t)j;
    for (uint64_t j = 0; j < BW_CHECK_SAMPLES; j++)
        v[m++] = (int64_t)(checks_pick(pick) % all);
    *out = v;
    *n = sort_unique(v, m);
    return BW_OK;
}

int checks_choose(const struct problem *p, const struct plan *ref_pl, uint32_t sets,
                  enum checks_pick how, uint64_t *pick, struct checks *k, char **cause)
{
    int64_t *chosen[PLAN_MAX_BUFFERS] = {0}; /* CHECKS_PICK_TEST: each output's, set 0 */
    int rc = BW_OK;

    memset(k, 0, sizeof(*k));
    k->sets = sets;
    k->test = how == CHECKS_PICK_TEST;
    for (size_t b = 0; b < ref_pl->n_buffers && rc == BW_OK; b++) {
        const struct plan_buffer *pb = &ref_pl->buffers[b];
        if (pb->tensor < 0 || pb->is_scale || (pb->role != PLAN_OUT && pb->role != PLAN_INOUT))
            continue;
        k->tensor[k->n] = pb->tensor;
        k->sub_buf[k->n] = -1;
        k->ref_buf[k->n] = (int)b;
        k->scale_buf[k->n] = reference_buffer(ref_pl, pb->tensor, true);
        if (how == CHECKS_PICK_TEST)
            rc = checks_test_positions(pb->count, dtype_size(p->tensors[pb->tensor].dtype), pick,
                                       &chosen[k->n], &k->count[k->n], cause);
        else
            k->count[k->n] =
                (uint64_t)pb->count < BW_CHECK_SAMPLES ? (uint64_t)pb->count : BW_CHECK_SAMPLES;
        k->offset[k->n] = k->span;
        k->span += k->count[k->n];
        k->n++;
    }
    if (rc == BW_OK) {
        size_t total = (size_t)sets * (size_t)k->span + 1;
        k->indices = calloc(total, sizeof(*k->indices));
        k->ref_values = calloc(total, sizeof(*k->ref_values));
        k->ref_scales = calloc(total, sizeof(*k->ref_scales));
        k->ref_ints = calloc(total, sizeof(*k->ref_ints));
        if (!k->indices || !k->ref_values || !k->ref_scales || !k->ref_ints)
            rc = bw_fail(cause, BW_ERR_NOMEM, "out of memory for the checked elements");
    }
    for (uint32_t r = 0; rc == BW_OK && r < sets; r++)
        for (int o = 0; o < k->n; o++) {
            int64_t *at = k->indices + r * k->span + k->offset[o];
            if (how == CHECKS_PICK_TEST)
                memcpy(at, chosen[o], k->count[o] * sizeof(*at));
            else
                pick_timed(ref_pl->buffers[k->ref_buf[o]].count, pick, at, k->count[o]);
        }
    for (int o = 0; o < PLAN_MAX_BUFFERS; o++)
        free(chosen[o]);
    return rc;
}

int checks_bind(struct checks *k, const struct plan *sub_pl, const struct plan *ref_pl,
                const char *case_name, char **cause)
{
    int outputs = 0;
    bool bound;

    for (int o = 0; o < k->n; o++)
        k->sub_buf[o] = -1;
    for (size_t b = 0; b < sub_pl->n_buffers; b++) {
        const struct plan_buffer *pb = &sub_pl->buffers[b];
        if (pb->tensor < 0 || pb->role == PLAN_IN || pb->role == PLAN_SCRATCH)
            continue;
        outputs++;
        for (int o = 0; o < k->n; o++)
            if (k->tensor[o] == pb->tensor && ref_pl->buffers[k->ref_buf[o]].count == pb->count)
                k->sub_buf[o] = (int)b;
    }
    bound = outputs == k->n;
    for (int o = 0; o < k->n; o++)
        bound &= k->sub_buf[o] >= 0;
    if (bound)
        return BW_OK;
    return bw_fail(cause, BW_ERR_INTERNAL,
                   "%s %s: the submission's outputs are not the reference's",
                   k->test ? "test" : "benchmark", case_name);
}

/* Copies input set r's gathered reference values (and scales) out of a reply. */
static int take_reference(const struct session *s, struct checks *k, uint32_t r,
                          const struct run_result *res, char **cause)
{
    size_t pos = 0;

    for (int o = 0; o < k->n; o++) {
        size_t bytes = k->count[o] * 8;
        uint64_t at = r * k->span + k->offset[o];
        if (pos + bytes > res->data_len)
            return bw_fail(cause, BW_ERR_PROTOCOL,
                           "reference runner returned too few gathered values");
        if (dtype_is_float(s->p->tensors[k->tensor[o]].dtype))
            memcpy(k->ref_values + at, res->data + pos, bytes);
        else
            memcpy(k->ref_ints + at, res->data + pos, bytes);
        pos += bytes;
        if (k->scale_buf[o] >= 0) {
            if (pos + bytes > res->data_len)
                return bw_fail(cause, BW_ERR_PROTOCOL,
                               "reference runner returned too few gathered scales");
            memcpy(k->ref_scales + at, res->data + pos, bytes);
            pos += bytes;
        }
    }
    return BW_OK;
}

/* The rows of @rows that hold the checked elements of input set r: row i of
 * an output of E elements is its elements i*E/R .. (i+1)*E/R - 1. Sorted,
 * each once, into *rows (new); *n of them. */
static int checks_rows(const struct checks *k, const struct plan *ref_pl, uint32_t r,
                       int64_t row_count, const char *case_name, int64_t **rows, size_t *n,
                       char **cause)
{
    int64_t *out = malloc((k->span ? k->span : 1) * sizeof(*out));
    uint64_t m = 0;

    *rows = NULL;
    *n = 0;
    if (!out)
        return bw_fail(cause, BW_ERR_NOMEM, "out of memory for the reference's rows");
    for (int o = 0; o < k->n; o++) {
        const struct plan_buffer *pb = &ref_pl->buffers[k->ref_buf[o]];
        const int64_t *idx = k->indices + r * k->span + k->offset[o];
        if (pb->count % row_count != 0) {
            free(out);
            return bw_fail(cause, BW_ERR_INTERNAL,
                           "reference.cu @rows: output %s of %lld elements does not split into "
                           "rows=%lld rows on %s %s",
                           pb->name, (long long)pb->count, (long long)row_count,
                           k->test ? "test" : "benchmark", case_name);
        }
        for (uint64_t j = 0; j < k->count[o]; j++)
            out[m++] = idx[j] / (pb->count / row_count);
    }
    *rows = out;
    *n = (size_t)sort_unique(out, m);
    return BW_OK;
}

/* The reference's gathered values of input set r into *res: from the full
 * reference, or (rows != NULL) from the @rows kernel on those rows only. */
static int reference_gather(struct session *s, struct runner *runner, const struct problem_case *c,
                            const struct plan *pl, uint32_t ci, const struct checks *k, uint32_t r,
                            const int64_t *rows, size_t n_rows, struct run_result *res,
                            char **cause)
{
    const char *what = k->test ? "test" : "benchmark";
    struct run_request rq = {.ret = RUN_RETURN_GATHER};
    int64_t *indices = NULL;
    int rc;

    run_plan_from_plan(pl, s->seed, ci, &rq.plan);
    for (int o = 0; o < k->n; o++) {
        rq.plan.gather[rq.plan.n_gather++] =
            (struct run_gather){k->ref_buf[o], k->offset[o], k->count[o]};
        if (k->scale_buf[o] >= 0)
            rq.plan.gather[rq.plan.n_gather++] =
                (struct run_gather){k->scale_buf[o], k->offset[o], k->count[o]};
    }
    rq.indices = k->indices + r * k->span;
    rq.n_indices = k->span;
    if (rows) { /* the rows travel after the gather indices (the runner's data buffer) */
        indices = malloc((k->span + n_rows) * sizeof(*indices));
        if (!indices)
            return bw_fail(cause, BW_ERR_NOMEM, "out of memory for the reference's rows");
        memcpy(indices, rq.indices, k->span * sizeof(*indices));
        memcpy(indices + k->span, rows, n_rows * sizeof(*indices));
        rq.indices = indices;
        rq.n_indices = k->span + n_rows;
    }
    rc = runner_run(runner, &rq, res,
                    s->p->run_ms * BW_REFERENCE_TIME_FACTOR + BW_REFERENCE_BENCH_SLACK_MS +
                        (int)tests_harness_allowance_ms(&rq),
                    cause);
    free(indices);
    if (rc)
        return bw_wrap(cause, BW_ERR_INTERNAL, "reference.cu%s on %s %s", rows ? " (@rows)" : "",
                       what, c->name);
    if (res->reply.fail.status != RUN_OK)
        return bw_fail(cause, BW_ERR_INTERNAL, "reference.cu%s failed on %s %s: %s %s",
                       rows ? " (@rows)" : "", what, c->name, res->reply.fail.error,
                       res->reply.fail.message);
    return BW_OK;
}

/* BLOCKWISE_CHECK_ROWS=1 (problem authors, tests/gpu): the @rows kernel's
 * values must be the full reference's within 1e-12 relative, else Judge Error. */
static int rows_agree(const struct run_result *rows, const struct run_result *full,
                      const char *case_name, char **cause)
{
    size_t n = full->data_len / 8;

    if (rows->data_len < full->data_len)
        return bw_fail(cause, BW_ERR_INTERNAL, "@rows returned fewer gathered values");
    for (size_t j = 0; j < n; j++) {
        double a, b;
        memcpy(&a, rows->data + 8 * j, 8);
        memcpy(&b, full->data + 8 * j, 8);
        if (a == b || (a != a && b != b))
            continue;
        if (!(fabs(a - b) <= 1e-12 * fmax(1.0, fabs(b))))
            return bw_fail(cause, BW_ERR_INTERNAL,
                           "reference.cu @rows disagrees with the full reference on %s: "
                           "gathered value %zu is %.17g, the full reference's %.17g",
                           case_name, j, a, b);
    }
    return BW_OK;
}

int checks_reference(struct session *s, struct runner *runner, const atomic_bool *stop,
                     const struct problem_case *c, const struct plan *ref_pl, uint32_t base,
                     struct checks *k, char **cause)
{
    const char *check = getenv("BLOCKWISE_CHECK_ROWS");
    bool verify = check && strcmp(check, "1") == 0;

    for (uint32_t r = 0; r < k->sets; r++) {
        struct run_result res = {0}, full = {0};
        int64_t *rows = NULL, row_count = 0;
        size_t n_rows = 0;
        struct plan rows_pl;
        int rc = BW_OK;

        if (stop && atomic_load(stop))
            return bw_fail(cause, BW_ERR_CANCELLED, "the timing is not needed");
        session_gate_enter(s, false);
        if (s->ref.dirs.rows) {
            rc = plan_rows_count(s->p, &s->ref.dirs, c, &row_count, cause);
            if (!rc)
                rc = checks_rows(k, ref_pl, r, row_count, c->name, &rows, &n_rows, cause);
            if (!rc)
                rc = plan_build_rows(s->p, &s->ref.dirs, c, (int64_t)n_rows, &rows_pl, &row_count,
                                     cause);
            if (rc)
                rc = bw_wrap(cause, BW_ERR_INTERNAL, "reference.cu @rows");
            if (!rc) {
                rc = reference_gather(s, runner, c, &rows_pl, base + r, k, r, rows, n_rows, &res,
                                      cause);
                log_debug("%s: %s %s set %u: @rows: %zu of %lld rows", s->job,
                          k->test ? "test" : "benchmark", c->name, r, n_rows, (long long)row_count);
            }
            if (!rc && verify) {
                rc = reference_gather(s, runner, c, ref_pl, base + r, k, r, NULL, 0, &full, cause);
                if (!rc)
                    rc = rows_agree(&res, &full, c->name, cause);
                run_result_release(&full);
            }
            free(rows);
        } else {
            rc = reference_gather(s, runner, c, ref_pl, base + r, k, r, NULL, 0, &res, cause);
        }
        session_gate_leave(s, false);
        if (!rc)
            rc = take_reference(s, k, r, &res, cause);
        run_result_release(&res);
        if (rc)
            return rc;
    }
    return BW_OK;
}

int checks_compare(const struct session *s, const struct problem_case *c, const struct checks *k,
                   int o, uint32_t set, int64_t elements, const unsigned char *got,
                   struct compare_report *rep, char **cause)
{
    size_t esize = dtype_size(s->p->tensors[k->tensor[o]].dtype);
    struct compare_sample *samples = calloc(k->count[o] ? k->count[o] : 1, sizeof(*samples));
    struct compare_spec spec;
    int64_t dims[BW_MAX_DIMS];
    int rc;

    if (!samples)
        return bw_fail(cause, BW_ERR_NOMEM, "out of memory");
    for (uint64_t j = 0; j < k->count[o]; j++) {
        uint64_t at = set * k->span + k->offset[o] + j;
        samples[j].index = k->indices[at];
        memcpy(samples[j].got, got + j * esize, esize);
        samples[j].ref = k->ref_values[at];
        samples[j].ref_i = k->ref_ints[at];
        samples[j].scale = k->ref_scales[at];
    }
    rc = tests_compare_spec(s->p, (size_t)k->tensor[o], c, dims, &spec, cause);
    if (rc == BW_OK)
        rc = compare_samples(&spec, samples, k->count[o], elements, rep, cause);
    free(samples);
    return rc;
}
