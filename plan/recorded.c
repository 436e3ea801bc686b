/*
 * recorded.c - a Triton launcher's recording and its translation into struct
 * plan (recorded.h).
 */
#include "recorded.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/error.h"
#include "common/util.h"
#include "common/banned.h"

/* The launch limits plan.c applies to a Triton @launch (every CUDA GPU's). */
#define GRID_X_MAX     2147483647LL
#define GRID_YZ_MAX    65535LL
#define NUM_STAGES_MAX 16 /* what the compile request takes (triton_compile.c) */
#define NUM_WARPS_MAX  32

int recording_init(struct recording *r, size_t n_configs, size_t n_cases, char **cause)
{
    memset(r, 0, sizeof(*r));
    if (n_configs == 0 || n_configs > BW_MAX_TUNE_CONFIGS)
        return bw_fail(cause, BW_ERR_LIMIT, "%zu configurations: 1 to %d (BW_MAX_TUNE_CONFIGS)",
                       n_configs, BW_MAX_TUNE_CONFIGS);
    if (n_cases == 0 || n_cases > BW_MAX_CASES + BW_MAX_BENCHMARKS)
        return bw_fail(cause, BW_ERR_LIMIT, "%zu cases", n_cases);
    r->n_configs = n_configs;
    r->n_cases = n_cases;
    r->plans = calloc(n_configs * n_cases, sizeof(*r->plans));
    r->config_names = calloc(n_configs, sizeof(*r->config_names));
    if (!r->plans || !r->config_names)
        return bw_fail(cause, BW_ERR_NOMEM, "out of memory");
    return BW_OK;
}

struct recorded_plan *recording_plan(struct recording *r, size_t config, size_t c)
{
    if (!r->plans || config >= r->n_configs || c >= r->n_cases)
        return NULL;
    return &r->plans[config * r->n_cases + c];
}

const char *recording_string(struct recording *r, const char *s, size_t len)
{
    for (size_t i = 0; i < r->n_strings; i++)
        if (strlen(r->strings[i]) == len && memcmp(r->strings[i], s, len) == 0)
            return r->strings[i];
    if (r->n_strings == BW_LAUNCHER_MAX_STRINGS)
        return NULL;
    if (r->n_strings == r->cap_strings) {
        size_t cap = r->cap_strings ? 2 * r->cap_strings : 32;
        char **grown = realloc(r->strings, cap * sizeof(*grown));
        if (!grown)
            return NULL;
        r->strings = grown;
        r->cap_strings = cap;
    }
    if (!(r->strings[r->n_strings] = strndup(s, len)))
        return NULL;
    return r->strings[r->n_strings++];
}

void recording_release(struct recording *r)
{
    for (size_t i = 0; r->plans && i < r->n_configs * r->n_cases; i++) {
        struct recorded_plan *rp = &r->plans[i];
        for (size_t l = 0; rp->launches && l < rp->n_launches; l++) {
            free(rp->launches[l].args);
            free(rp->launches[l].constexprs);
        }
        free(rp->launches);
    }
    free(r->plans);
    for (size_t i = 0; r->config_names && i < r->n_configs; i++)
        free(r->config_names[i]);
    free(r->config_names);
    for (size_t i = 0; i < r->n_strings; i++)
        free(r->strings[i]);
    free(r->strings);
    memset(r, 0, sizeof(*r));
}

/* ---- one plan --------------------------------------------------------------------- */

/* The plan buffer named `name`, or -1. */
static int buffer_named(const struct plan *pl, const char *name)
{
    for (size_t b = 0; b < pl->n_buffers; b++)
        if (pl->buffers[b].name && strcmp(pl->buffers[b].name, name) == 0)
            return (int)b;
    return -1;
}

static int add_scratch(const struct recorded_scratch *s, int64_t cap, int64_t *total,
                       const struct problem_case *c, struct plan *out, char **cause)
{
    int64_t bytes;

    if (!s->name || !is_identifier(s->name) || strlen(s->name) > BW_MAX_NAME)
        return bw_fail(cause, BW_ERR_INVALID, "line %d: a buffer solve made has a bad name",
                       s->line);
    if (buffer_named(out, s->name) >= 0)
        return bw_fail(cause, BW_ERR_INVALID,
                       "line %d: the buffer %s that solve made has the name of another buffer",
                       s->line, s->name);
    if (dtype_size(s->dtype) == 0 || s->count < 1)
        return bw_fail(cause, BW_ERR_INVALID,
                       "line %d: the buffer %s that solve made has no dtype or no elements",
                       s->line, s->name);
    if (!i64_mul(s->count, (int64_t)dtype_size(s->dtype), &bytes) ||
        !i64_add(*total, bytes, total) || *total > cap)
        return bw_fail(cause, BW_ERR_LIMIT,
                       "line %d: the buffers solve allocates need more than this problem's cap "
                       "of %lld bytes for case %s",
                       s->line, (long long)cap, c->name);
    if (out->n_buffers == PLAN_MAX_BUFFERS)
        return bw_fail(cause, BW_ERR_LIMIT, "line %d: too many buffers (max %d)", s->line,
                       PLAN_MAX_BUFFERS);
    out->buffers[out->n_buffers++] = (struct plan_buffer){
        .name = s->name, .dtype = s->dtype, .role = PLAN_SCRATCH, .count = s->count, .tensor = -1};
    return BW_OK;
}

static int build_arg(const struct recorded_launch *rl, size_t a, const struct problem_case *c,
                     const struct plan *out, struct plan_arg *pa, char **cause)
{
    const struct recorded_arg *ra = &rl->args[a];

    memset(pa, 0, sizeof(*pa));
    switch (ra->kind) {
    case RECORDED_BUF: {
        int b = ra->buf ? buffer_named(out, ra->buf) : -1;
        const struct plan_buffer *pb;
        int64_t end;
        if (b < 0)
            return bw_fail(cause, BW_ERR_INVALID,
                           "line %d: argument %zu of %s is a view of \"%.64s\", which is neither "
                           "a tensor of the problem nor a buffer solve made (case %s)",
                           rl->line, a + 1, rl->kernel, ra->buf ? ra->buf : "?", c->name);
        pb = &out->buffers[b];
        if (ra->offset < 0 || ra->span < 0 || !i64_add(ra->offset, ra->span, &end) ||
            end > pb->count || ra->offset > pb->count)
            return bw_fail(cause, BW_ERR_INVALID,
                           "line %d: argument %zu of %s is a view of %s reaching elements %lld to "
                           "%lld, outside its %lld elements (case %s)",
                           rl->line, a + 1, rl->kernel, pb->name, (long long)ra->offset,
                           (long long)ra->offset + (long long)ra->span - 1, (long long)pb->count,
                           c->name);
        pa->kind = PLAN_ARG_BUF;
        pa->buf = b;
        pa->offset = ra->offset;
        pa->name = pb->name;
        return BW_OK;
    }
    case RECORDED_INT:
        pa->kind = ra->u64 ? PLAN_ARG_U64 : PLAN_ARG_I64;
        pa->i = ra->i;
        return BW_OK;
    case RECORDED_FLOAT:
        pa->kind = PLAN_ARG_F32;
        pa->f = ra->f;
        return BW_OK;
    }
    return bw_fail(cause, BW_ERR_INVALID, "line %d: argument %zu of %s has no kind", rl->line,
                   a + 1, rl->kernel);
}

static bool str_safe(const char *s)
{
    size_t n = s ? strlen(s) : 0;

    if (!s || n > BW_LAUNCHER_STR_BYTES)
        return false;
    for (size_t i = 0; i < n; i++)
        if (!((s[i] >= 'a' && s[i] <= 'z') || (s[i] >= 'A' && s[i] <= 'Z') ||
              (s[i] >= '0' && s[i] <= '9') || strchr("_ .:+-/", s[i])))
            return false;
    return true;
}

static int build_launch(const struct recorded_launch *rl, const struct problem_case *c,
                        struct plan *out, char **cause)
{
    static const int64_t gmax[3] = {GRID_X_MAX, GRID_YZ_MAX, GRID_YZ_MAX};
    struct plan_launch *pl = &out->launches[out->n_launches];
    int rc;

    memset(pl, 0, sizeof(*pl));
    if (!rl->kernel || !is_identifier(rl->kernel) || strlen(rl->kernel) > BW_MAX_NAME)
        return bw_fail(cause, BW_ERR_INVALID, "line %d: a launch names no kernel", rl->line);
    pl->kernel = rl->kernel;
    pl->line = rl->line;
    for (int k = 0; k < 3; k++) {
        if (rl->grid[k] < 1 || rl->grid[k] > gmax[k])
            return bw_fail(cause, BW_ERR_INVALID,
                           "line %d: the grid (%u, %u, %u) of %s is outside the GPU's limits "
                           "(1 to %lld, 65535, 65535) for case %s",
                           rl->line, rl->grid[0], rl->grid[1], rl->grid[2], rl->kernel, GRID_X_MAX,
                           c->name);
        pl->grid[k] = rl->grid[k];
    }
    if (rl->num_warps < 1 || rl->num_warps > NUM_WARPS_MAX || (rl->num_warps & (rl->num_warps - 1)))
        return bw_fail(cause, BW_ERR_INVALID,
                       "line %d: num_warps=%d: Triton takes 1, 2, 4, 8, 16 or 32 warps", rl->line,
                       rl->num_warps);
    if (rl->num_stages < 1 || rl->num_stages > NUM_STAGES_MAX)
        return bw_fail(cause, BW_ERR_INVALID, "line %d: num_stages=%d (1 to %d)", rl->line,
                       rl->num_stages, NUM_STAGES_MAX);
    if (rl->maxnreg != 0 &&
        (rl->maxnreg < BW_TRITON_MAXNREG_MIN || rl->maxnreg > BW_TRITON_MAXNREG_MAX))
        return bw_fail(cause, BW_ERR_INVALID,
                       "line %d: maxnreg=%d: %d to %d registers per thread (BW_TRITON_MAXNREG_MIN, "
                       "BW_TRITON_MAXNREG_MAX)",
                       rl->line, rl->maxnreg, BW_TRITON_MAXNREG_MIN, BW_TRITON_MAXNREG_MAX);
    pl->num_warps = rl->num_warps;
    pl->num_stages = rl->num_stages;
    pl->maxnreg = rl->maxnreg;
    pl->block[0] = (uint32_t)(32 * rl->num_warps);
    pl->block[1] = pl->block[2] = 1;
    if (rl->n_args > BW_MAX_LAUNCH_ARGS || rl->n_constexprs > BW_MAX_LAUNCH_ARGS)
        return bw_fail(cause, BW_ERR_LIMIT,
                       "line %d: %s takes more than %d arguments (BW_MAX_LAUNCH_ARGS)", rl->line,
                       rl->kernel, BW_MAX_LAUNCH_ARGS);
    for (size_t a = 0; a < rl->n_args; a++)
        if ((rc = build_arg(rl, a, c, out, &pl->args[a], cause)))
            return rc;
    pl->n_args = rl->n_args;
    for (size_t k = 0; k < rl->n_constexprs; k++) {
        const struct plan_constexpr *cx = &rl->constexprs[k];
        if (!cx->name || !is_identifier(cx->name) || strlen(cx->name) > BW_MAX_NAME ||
            (cx->kind == CONSTEXPR_STR && !str_safe(cx->s)) || cx->kind > CONSTEXPR_STR)
            return bw_fail(cause, BW_ERR_INVALID, "line %d: constexpr %zu of %s is malformed",
                           rl->line, k + 1, rl->kernel);
        for (size_t j = 0; j < k; j++)
            if (strcmp(rl->constexprs[j].name, cx->name) == 0)
                return bw_fail(cause, BW_ERR_INVALID, "line %d: constexpr %s of %s is given twice",
                               rl->line, cx->name, rl->kernel);
        pl->constexprs[k] = *cx;
    }
    pl->n_constexprs = rl->n_constexprs;
    out->n_launches++;
    return BW_OK;
}

int recorded_plan_build(const struct problem *p, const struct recorded_plan *rp,
                        const struct problem_case *c, struct plan *out, char **cause)
{
    int64_t cap, total = 0;
    int rc;

    if (!rp || !rp->present)
        return bw_fail(cause, BW_ERR_INVALID, "solve was not recorded for case %s", c->name);
    if ((rc = plan_build_tensors(p, c, PLAN_SUBMISSION, out, &cap, cause)))
        return rc;
    if (rp->n_scratch > BW_MAX_SCRATCH)
        return bw_fail(cause, BW_ERR_LIMIT,
                       "solve allocates more than %d buffers for case %s (BW_MAX_SCRATCH)",
                       BW_MAX_SCRATCH, c->name);
    for (size_t s = 0; s < rp->n_scratch; s++)
        if ((rc = add_scratch(&rp->scratch[s], cap, &total, c, out, cause)))
            return rc;
    if (rp->n_launches == 0)
        return bw_fail(cause, BW_ERR_INVALID, "solve launched no kernel for case %s", c->name);
    if (rp->n_launches > BW_MAX_LAUNCHES)
        return bw_fail(cause, BW_ERR_LIMIT,
                       "solve launches more than %d kernels for case %s (BW_MAX_LAUNCHES)",
                       BW_MAX_LAUNCHES, c->name);
    for (size_t l = 0; l < rp->n_launches; l++)
        if ((rc = build_launch(&rp->launches[l], c, out, cause)))
            return rc;
    return BW_OK;
}
