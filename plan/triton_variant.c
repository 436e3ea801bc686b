/*
 * triton_variant.c - Triton's JIT specialisation as the judge reproduces it
 * (triton_variant.h).
 */
#include "triton_variant.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/error.h"
#include "common/banned.h"

/* ---- the type and specialisation of one argument ------------------------------ */

bool plan_arg_is_integer(const struct plan_arg *a)
{
    return a->kind != PLAN_ARG_BUF && a->kind != PLAN_ARG_F32 && a->kind != PLAN_ARG_F64;
}

void plan_arg_triton_type(const struct plan *pl, const struct plan_arg *a, char *out, size_t cap)
{
    if (a->kind == PLAN_ARG_BUF && a->buf >= 0 && (size_t)a->buf < pl->n_buffers)
        snprintf(out, cap, "*%s", dtype_triton_name(pl->buffers[a->buf].dtype));
    else if (a->kind == PLAN_ARG_F32 || a->kind == PLAN_ARG_F64)
        snprintf(out, cap, "fp32");
    else if (a->kind == PLAN_ARG_U64 && (uint64_t)a->i > (uint64_t)INT64_MAX)
        snprintf(out, cap, "u64");
    else
        snprintf(out, cap, "%s", a->i >= INT32_MIN && a->i <= INT32_MAX ? "i32" : "i64");
}

/* ---- the variant of one launch of one case ------------------------------------ */

void triton_constexpr_literal(const struct triton_constexpr *c, char *out, size_t cap)
{
    struct plan_constexpr p = {c->name, c->value, c->kind, c->f, c->s};

    plan_constexpr_literal(&p, out, cap);
}

/* A pointer to buffer `b` at element `offset`: 16-byte aligned (tt.divisibility=16)? The
 * runner's buffers start 256-byte aligned, so only the offset's bytes decide. */
static bool pointer_div16(const struct plan *pl, const struct plan_arg *a)
{
    size_t size =
        a->buf >= 0 && (size_t)a->buf < pl->n_buffers ? dtype_size(pl->buffers[a->buf].dtype) : 1;

    return ((uint64_t)a->offset * size) % 16 == 0;
}

void triton_variant_of(const struct plan *pl, size_t l, struct triton_variant *v)
{
    const struct plan_launch *L = &pl->launches[l];

    memset(v, 0, sizeof(*v));
    v->launch = l;
    v->kernel = L->kernel;
    v->line = L->line;
    v->n_args = L->n_args;
    for (size_t k = 0; k < L->n_args; k++) {
        const struct plan_arg *a = &L->args[k];
        plan_arg_triton_type(pl, a, v->types[k], sizeof(v->types[k]));
        v->args[k].type = v->types[k];
        if (a->kind == PLAN_ARG_BUF) {
            v->args[k].div16 = pointer_div16(pl, a);
        } else if (plan_arg_is_integer(a)) {
            v->args[k].is1 = a->i == 1;
            if (pl->benchmark) {
                v->args[k].div16 = a->i % 16 == 0;
                v->args[k].equal1 = a->i == 1;
            }
        }
    }
    v->tests = !pl->benchmark;
    v->n_constexprs = L->n_constexprs;
    for (size_t k = 0; k < L->n_constexprs; k++) {
        const struct plan_constexpr *c = &L->constexprs[k];
        v->constexprs[k] = (struct triton_constexpr){c->name, c->value, c->kind, c->f, c->s};
    }
    v->num_warps = L->num_warps;
    v->num_stages = L->num_stages;
    v->maxnreg = L->maxnreg;
}

static bool constexpr_same(const struct triton_constexpr *a, const struct triton_constexpr *b)
{
    struct plan_constexpr x = {a->name, a->value, a->kind, a->f, a->s};
    struct plan_constexpr y = {b->name, b->value, b->kind, b->f, b->s};

    return strcmp(a->name, b->name) == 0 && plan_constexpr_same(&x, &y);
}

/* triton_variant_same, but for a's folded integers when ignore_folds. */
static bool variant_same(const struct triton_variant *a, const struct triton_variant *b,
                         bool ignore_folds)
{
    if (strcmp(a->kernel ? a->kernel : "", b->kernel ? b->kernel : "") != 0 ||
        a->n_args != b->n_args || a->n_constexprs != b->n_constexprs ||
        a->num_warps != b->num_warps || a->num_stages != b->num_stages || a->maxnreg != b->maxnreg)
        return false;
    for (size_t k = 0; k < a->n_args; k++)
        if (strcmp(a->types[k], b->types[k]) != 0 || a->args[k].div16 != b->args[k].div16 ||
            (!ignore_folds && a->args[k].equal1 != b->args[k].equal1))
            return false;
    for (size_t k = 0; k < a->n_constexprs; k++)
        if (!constexpr_same(&a->constexprs[k], &b->constexprs[k]))
            return false;
    return true;
}

bool triton_variant_same(const struct triton_variant *a, const struct triton_variant *b)
{
    return variant_same(a, b, false);
}

/* True when test build b and test case variant v (whose integers are never folded) are the
 * same build but for b's folds. */
static bool same_unfolded(const struct triton_variant *b, const struct triton_variant *v)
{
    return b->tests && v->tests && variant_same(b, v, true);
}

bool triton_variant_serves_test(const struct triton_variant *b, const struct triton_variant *v)
{
    for (size_t k = 0; k < b->n_args && k < v->n_args; k++)
        if (b->args[k].equal1 && !v->args[k].is1)
            return false;
    return same_unfolded(b, v);
}

/* Appends formatted text at *used; false once it does not fit. */
static bool key_add(char *out, size_t cap, size_t *used, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
static bool key_add(char *out, size_t cap, size_t *used, const char *fmt, ...)
{
    va_list ap;
    int n;

    if (*used >= cap)
        return false;
    va_start(ap, fmt);
    n = vsnprintf(out + *used, cap - *used, fmt, ap);
    va_end(ap);
    if (n < 0 || (size_t)n >= cap - *used)
        return false;
    *used += (size_t)n;
    return true;
}

bool triton_variant_key(const struct triton_variant *v, char *out, size_t cap)
{
    size_t used = 0;
    bool ok = key_add(out, cap, &used, "%s(", v->kernel ? v->kernel : "?");

    for (size_t k = 0; ok && k < v->n_args; k++)
        ok = key_add(out, cap, &used, "%s%s:%s", k ? "," : "", v->args[k].type,
                     v->args[k].equal1  ? "1"
                     : v->args[k].div16 ? "D"
                                        : "-");
    ok = ok && key_add(out, cap, &used, ")[");
    for (size_t k = 0; ok && k < v->n_constexprs; k++) {
        char lit[96];
        triton_constexpr_literal(&v->constexprs[k], lit, sizeof(lit));
        ok = key_add(out, cap, &used, "%s%s=%s", k ? "," : "", v->constexprs[k].name, lit);
    }
    return ok && key_add(out, cap, &used, "]{%d,%d,%d}", v->num_warps, v->num_stages, v->maxnreg);
}

/* ---- the variants of a source over a problem's cases ---------------------------- */

/* The index of the build of tc that v's launch runs on, or -1: for a test
 * case, the test build that serves it; for a benchmark shape, the build of
 * the same key. */
static int find_variant(const struct triton_config *tc, const struct triton_variant *v)
{
    for (size_t i = 0; i < tc->n_variants; i++)
        if (v->tests ? triton_variant_serves_test(&tc->variants[i], v)
                     : triton_variant_same(&tc->variants[i], v))
            return (int)i;
    return -1;
}

/* The index of tc's test build that test case variant v joins (the same build but for
 * its folds), or -1. */
static int find_test_build(const struct triton_config *tc, const struct triton_variant *v)
{
    for (size_t i = 0; i < tc->n_variants; i++)
        if (same_unfolded(&tc->variants[i], v))
            return (int)i;
    return -1;
}

int triton_config_add_plan(struct triton_config *tc, const struct plan *pl, char **cause)
{
    for (size_t l = 0; l < pl->n_launches; l++) {
        struct triton_variant v;
        int i;

        triton_variant_of(pl, l, &v);
        if (v.tests) { /* joins its test build, which keeps folded only the 1s it passes too */
            if ((i = find_test_build(tc, &v)) >= 0) {
                for (size_t k = 0; k < v.n_args; k++)
                    tc->variants[i].args[k].equal1 &= v.args[k].is1;
                continue;
            }
            for (size_t k = 0; k < v.n_args; k++) /* a new test build: its 1s folded, for now */
                v.args[k].equal1 = v.args[k].is1;
        } else if (find_variant(tc, &v) >= 0) {
            continue;
        }
        if (tc->n_variants == BW_TRITON_MAX_VARIANTS)
            return bw_fail(cause, BW_ERR_LIMIT,
                           "line %d: kernel %s needs more than %d builds over this problem's "
                           "cases (BW_TRITON_MAX_VARIANTS): one per distinct set of constexpr "
                           "values and argument types; keep constexpr values from following "
                           "every size (say, BLOCK=next_pow2(N) over many sizes of N)",
                           pl->launches[l].line, pl->launches[l].kernel, BW_TRITON_MAX_VARIANTS);
        tc->variants[tc->n_variants] = v;
        for (size_t k = 0; k < v.n_args; k++) /* its types point into its own storage */
            tc->variants[tc->n_variants].args[k].type = tc->variants[tc->n_variants].types[k];
        tc->n_variants++;
    }
    return BW_OK;
}

/* Adds the variants configuration tune_values needs over p's tests (and its benchmark shapes
 * when with_benchmarks) to tc. */
static int plan_config(struct triton_config *tc, const struct problem *p,
                       const struct directives *d, const int64_t *tune_values, bool with_benchmarks,
                       struct plan *pl, char **cause)
{
    char *first_why = NULL; /* owned: why the first case that cannot be planned cannot */
    size_t n_benchmarks = with_benchmarks ? p->n_benchmarks : 0;
    int rc = BW_OK;

    for (size_t i = 0; i < p->n_tests + n_benchmarks && rc == BW_OK; i++) {
        const struct problem_case *c =
            i < p->n_tests ? &p->tests[i] : &p->benchmarks[i - p->n_tests];
        char *why = NULL;

        if (plan_build(p, d, tune_values, c, PLAN_SUBMISSION, pl, &why)) {
            if (!first_why)
                first_why = why;
            else
                free(why);
            continue;
        }
        rc = triton_config_add_plan(tc, pl, cause);
    }
    if (rc == BW_OK && tc->n_variants == 0) /* nothing to compile: say why */
        rc = bw_fail(cause, BW_ERR_LIMIT, "no case of this problem can be launched: %s",
                     first_why ? first_why : "the problem has no cases");
    free(first_why);
    return rc;
}

int triton_variants_init(struct triton_variants *tv, size_t n_configs, char **cause)
{
    memset(tv, 0, sizeof(*tv));
    tv->configs = calloc(n_configs ? n_configs : 1, sizeof(*tv->configs));
    if (!tv->configs)
        return bw_fail(cause, BW_ERR_NOMEM, "out of memory");
    tv->n_configs = n_configs;
    for (size_t c = 0; c < n_configs; c++)
        if (!(tv->configs[c].variants =
                  calloc(BW_TRITON_MAX_VARIANTS, sizeof(struct triton_variant))))
            return bw_fail(cause, BW_ERR_NOMEM, "out of memory");
    return BW_OK;
}

int triton_variants_plan(struct triton_variants *tv, const struct problem *p,
                         const struct directives *d,
                         const int64_t (*tune_values)[BW_MAX_TUNE_PARAMS], size_t n_configs,
                         bool with_benchmarks, char **cause)
{
    struct plan *pl = malloc(sizeof(*pl));
    int rc = triton_variants_init(tv, n_configs, cause);

    if (!pl)
        rc = rc ? rc : bw_fail(cause, BW_ERR_NOMEM, "out of memory");
    for (size_t c = 0; c < n_configs && rc == BW_OK; c++) {
        struct triton_config *tc = &tv->configs[c];
        rc = plan_config(tc, p, d, tune_values ? tune_values[c] : NULL, with_benchmarks, pl, cause);
        tc->first = tv->n_builds;
        tv->n_builds += tc->n_variants;
        if (rc == BW_OK && tv->n_builds > BW_TRITON_MAX_KERNELS)
            rc = bw_fail(cause, BW_ERR_LIMIT,
                         "the @tune configurations need %zu or more builds over this problem's "
                         "cases, more than %d (BW_TRITON_MAX_KERNELS): fewer configurations, or "
                         "constexpr values that do not follow every size",
                         tv->n_builds, BW_TRITON_MAX_KERNELS);
    }
    free(pl);
    return rc;
}

int triton_variants_find(const struct triton_variants *tv, size_t config, const struct plan *pl,
                         size_t launch)
{
    const struct triton_config *tc = &tv->configs[config];
    struct triton_variant v;
    int i;

    triton_variant_of(pl, launch, &v);
    i = find_variant(tc, &v);
    return i < 0 ? -1 : (int)(tc->first + (size_t)i);
}

void triton_variants_release(struct triton_variants *tv)
{
    for (size_t c = 0; tv->configs && c < tv->n_configs; c++)
        free(tv->configs[c].variants);
    free(tv->configs);
    memset(tv, 0, sizeof(*tv));
}
