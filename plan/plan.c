/*
 * plan.c - a source's directives evaluated for one case (plan.h: plan_build,
 * plan_build_rows, plan_rows_count, plan_check_int_arg) and a plan's JSON
 * form. Expressions are evaluated in the case's scope: its sizes, then the
 * @const values, then the configuration's @tune values; a value outside what
 * a GPU can launch is the case's error, naming the line and the case.
 */
#include "plan.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "resolve.h"
#include "triton_variant.h"
#include "common/buf.h"
#include "common/error.h"
#include "common/util.h"
#include "common/banned.h"

/* Launch limits of every CUDA GPU since compute capability 3.0; the device's
 * own smem limit is checked by the runner when it launches. */
#define GRID_X_MAX        2147483647LL
#define GRID_YZ_MAX       65535LL
#define BLOCK_XY_MAX      1024LL
#define BLOCK_Z_MAX       64LL
#define BLOCK_THREADS_MAX 1024LL
#define SMEM_MAX          (256LL * 1024)

/* Triton's launch options: its own defaults (triton.Config) and ranges. */
#define TRITON_NUM_WARPS_DEFAULT  4
#define TRITON_NUM_WARPS_MAX      32 /* 1024 threads */
#define TRITON_NUM_STAGES_DEFAULT 3
#define TRITON_NUM_STAGES_MAX     8

uint64_t plan_buffer_bytes(const struct plan_buffer *b)
{
    return (uint64_t)b->count * dtype_size(b->dtype);
}

/* The scope of one case: sizes, then @const, then @tune values, then the
 * @let values, each evaluated in the scope of the ones before it. */
struct case_scope {
    struct expr_binding vars[BW_MAX_SIZES + BW_MAX_CONSTS + BW_MAX_TUNE_PARAMS + BW_MAX_LETS];
    struct expr_scope scope;
    const struct directives *d; /* borrowed: the @let lines, for messages */
};

/* An expression's text for a message: whole up to 60 bytes, else cut with
 * "...": a message names a long expression's @let, it does not echo it. */
static const char *short_text(const struct expr *e, char *out, size_t cap)
{
    const char *t = expr_text(e);

    if (strlen(t) <= 60)
        return t;
    snprintf(out, cap, "%.57s...", t);
    return out;
}

struct lets_used {
    const struct case_scope *cs;
    struct buf *b;
    int n;
};

static void add_let_used(const char *name, void *arg)
{
    struct lets_used *lu = arg;
    const struct directives *d = lu->cs->d;

    for (size_t k = 0; k < d->n_lets; k++) {
        if (strcmp(d->lets[k].name, name) != 0)
            continue;
        for (size_t i = 0; i < lu->cs->scope.n; i++)
            if (strcmp(lu->cs->vars[i].name, name) == 0) {
                buf_addf(lu->b, "%s%s = %lld (line %d)", lu->n++ ? ", " : ", with ", name,
                         (long long)lu->cs->vars[i].value, d->lets[k].line);
                break;
            }
    }
}

/* Appends ", with Kp = 0 (line 3), ...": the values of the @let names e uses. */
static void add_lets_used(const struct case_scope *cs, const struct expr *e, struct buf *b)
{
    struct lets_used lu = {cs, b, 0};
    expr_each_name(e, add_let_used, &lu);
}

/* The @let that e is, when it is a @let's name alone; NULL otherwise. */
static const struct let *let_alone(const struct case_scope *cs, const struct expr *e)
{
    for (size_t k = 0; k < cs->d->n_lets; k++)
        if (strcmp(expr_text(e), cs->d->lets[k].name) == 0)
            return &cs->d->lets[k];
    return NULL;
}

static int case_scope_init(struct case_scope *cs, const struct problem *p,
                           const struct directives *d, const int64_t *tune_values,
                           const struct problem_case *c, char **cause)
{
    size_t n = 0;

    cs->d = d;
    cs->scope.vars = cs->vars;
    for (size_t s = 0; s < p->n_sizes; s++)
        cs->vars[n++] = (struct expr_binding){p->size_names[s], c->sizes[s]};
    for (size_t k = 0; k < d->n_consts && n < sizeof(cs->vars) / sizeof(cs->vars[0]); k++)
        cs->vars[n++] = (struct expr_binding){d->consts[k].name, d->consts[k].value};
    for (size_t k = 0; k < d->n_tunes && n < sizeof(cs->vars) / sizeof(cs->vars[0]); k++)
        cs->vars[n++] = (struct expr_binding){d->tunes[k].name,
                                              tune_values ? tune_values[k] : d->tunes[k].values[0]};
    for (size_t k = 0; k < d->n_lets && n < sizeof(cs->vars) / sizeof(cs->vars[0]); k++) {
        const struct let *lt = &d->lets[k];
        char *why = NULL, text[64];
        int64_t v;

        cs->scope.n = n; /* the @let lines above this one */
        if (expr_eval_int(lt->value, &cs->scope, &v, &why)) {
            struct buf b;
            buf_init(&b, 2048);
            buf_addf(&b, "line %d: %s = %s fails for case %s: %s", lt->line, lt->name,
                     short_text(lt->value, text, sizeof(text)), c->name,
                     why ? why : "evaluation failed");
            add_lets_used(cs, lt->value, &b);
            free(why);
            free(*cause);
            *cause = buf_detach(&b);
            return BW_ERR_INVALID;
        }
        cs->vars[n++] = (struct expr_binding){lt->name, v};
    }
    cs->scope.n = n;
    return BW_OK;
}

/* Evaluates an optional expression (NULL means `dflt`) into [lo, hi]. A
 * failure names the @let values the expression used, and a value out of
 * range that is a @let alone is that @let's error ("line 3: Kp = cdiv(K, 32)
 * * 32 is 0 for case K=0, and grid.x on line 7 must be 1..2147483647"). */
static int eval_dim(const struct expr *e, int64_t dflt, int64_t lo, int64_t hi,
                    const struct case_scope *cs, const char *what, int line, const char *case_name,
                    int64_t *out, char **cause)
{
    char *why = NULL, text[64];
    int64_t v = dflt;
    const struct let *lt;
    struct buf b;

    if (e && expr_eval_int(e, &cs->scope, &v, &why)) {
        buf_init(&b, 2048);
        buf_addf(&b, "line %d: %s%s for case %s: %s", line, what, short_text(e, text, sizeof(text)),
                 case_name, why ? why : "evaluation failed");
        add_lets_used(cs, e, &b);
        free(why);
        free(*cause);
        *cause = buf_detach(&b);
        return BW_ERR_INVALID;
    }
    if (v >= lo && v <= hi) {
        *out = v;
        return BW_OK;
    }
    buf_init(&b, 2048);
    if (e && (lt = let_alone(cs, e)) != NULL) {
        int key = (int)strlen(what);
        while (key > 0 && (what[key - 1] == ' ' || what[key - 1] == '='))
            key--;
        buf_addf(&b, "line %d: %s = %s is %lld for case %s, and %.*s on line %d must be %lld..%lld",
                 lt->line, lt->name, short_text(lt->value, text, sizeof(text)), (long long)v,
                 case_name, key, what, line, (long long)lo, (long long)hi);
    } else {
        buf_addf(&b, "line %d: %s%s is %lld for case %s (allowed %lld..%lld)", line, what,
                 e ? short_text(e, text, sizeof(text)) : "", (long long)v, case_name, (long long)lo,
                 (long long)hi);
        if (e)
            add_lets_used(cs, e, &b);
    }
    free(*cause);
    *cause = buf_detach(&b);
    return BW_ERR_INVALID;
}

static int add_buffer(struct plan *pl, struct plan_buffer b, char **cause)
{
    if (pl->n_buffers == PLAN_MAX_BUFFERS)
        return bw_fail(cause, BW_ERR_LIMIT, "too many buffers (max %d)", PLAN_MAX_BUFFERS);
    pl->buffers[pl->n_buffers++] = b;
    return BW_OK;
}

/* The problem's tensors (and the reference's scale buffers) into pl, and the scratch cap. */
static int tensor_buffers(const struct problem *p, const struct expr_scope *scope,
                          const struct problem_case *c, enum plan_side side, struct plan *pl,
                          int64_t *scratch_cap, char **cause)
{
    int rc;

    *scratch_cap = (int64_t)BW_MAX_SCRATCH_BYTES;
    for (size_t t = 0; t < p->n_tensors; t++) {
        const struct tensor_spec *ts = &p->tensors[t];
        struct plan_buffer b = {.name = ts->name, .dtype = ts->dtype, .tensor = (int)t};

        rc = problem_tensor_count(p, t, c, &b.count, cause);
        if (rc)
            return rc;
        switch (ts->role) {
        case ROLE_IN:
            b.role = PLAN_IN;
            break;
        case ROLE_INOUT:
            b.role = PLAN_INOUT;
            break;
        case ROLE_OUT:
            b.role = PLAN_OUT;
            break;
        }
        if (b.role != PLAN_OUT) {
            rc = problem_gen_spec(p, t, c, &b.gen, cause);
            if (rc)
                return rc;
        }
        if (side == PLAN_REFERENCE && b.role != PLAN_IN)
            b.dtype = dtype_is_float(ts->dtype) ? DTYPE_FP64 : DTYPE_INT64;
        rc = add_buffer(pl, b, cause);
        if (rc)
            return rc;
    }
    if (side == PLAN_REFERENCE) {
        for (size_t t = 0; t < p->n_tensors; t++) {
            const struct tensor_spec *ts = &p->tensors[t];
            struct plan_buffer b = {
                .dtype = DTYPE_FP64, .role = PLAN_OUT, .tensor = (int)t, .is_scale = true};
            if (ts->role == ROLE_IN || ts->tol.acc <= 0)
                continue;
            snprintf(pl->scale_names[t], sizeof(pl->scale_names[t]), "%s_scale", ts->name);
            b.name = pl->scale_names[t];
            b.count = pl->buffers[t].count;
            rc = add_buffer(pl, b, cause);
            if (rc)
                return rc;
        }
    }
    if (p->scratch_bytes) {
        char *why = NULL;
        if (expr_eval_int(p->scratch_bytes, scope, scratch_cap, &why)) {
            rc = bw_fail(cause, BW_ERR_INTERNAL, "problem limits.scratch_bytes for case %s: %s",
                         c->name, why ? why : "evaluation failed");
            free(why);
            return rc;
        }
    }
    return BW_OK;
}

/* *out zeroed for a plan of case c of p (which says whether c is a benchmark shape). */
static void plan_start(struct plan *out, const struct problem *p, const struct problem_case *c)
{
    size_t k = problem_case_index(p, c);

    memset(out, 0, sizeof(*out));
    out->benchmark = k >= p->n_tests && k < p->n_tests + p->n_benchmarks;
}

int plan_build_tensors(const struct problem *p, const struct problem_case *c, enum plan_side side,
                       struct plan *out, int64_t *scratch_cap, char **cause)
{
    struct expr_binding vars[BW_MAX_SIZES];
    struct expr_scope scope = {vars, p->n_sizes};

    plan_start(out, p, c);
    for (size_t s = 0; s < p->n_sizes; s++)
        vars[s] = (struct expr_binding){p->size_names[s], c->sizes[s]};
    return tensor_buffers(p, &scope, c, side, out, scratch_cap, cause);
}

static int build_buffers(const struct problem *p, const struct directives *d,
                         const struct case_scope *cs, const struct problem_case *c,
                         enum plan_side side, struct plan *pl, char **cause)
{
    int64_t scratch_cap, scratch_total = 0;
    int rc = tensor_buffers(p, &cs->scope, c, side, pl, &scratch_cap, cause);

    if (rc)
        return rc;
    for (size_t k = 0; k < d->n_scratches; k++) {
        const struct scratch *s = &d->scratches[k];
        struct plan_buffer b = {
            .name = s->name, .dtype = s->dtype, .role = PLAN_SCRATCH, .tensor = -1};
        int64_t bytes;

        rc = eval_dim(s->count, 1, 1, INT64_MAX, cs, "@scratch size ", s->line, c->name, &b.count,
                      cause);
        if (rc)
            return rc;
        if (!i64_mul(b.count, (int64_t)dtype_size(s->dtype), &bytes) ||
            !i64_add(scratch_total, bytes, &scratch_total) || scratch_total > scratch_cap)
            return bw_fail(cause, BW_ERR_LIMIT,
                           "line %d: @scratch buffers need more than this problem's cap of %lld "
                           "bytes for case %s",
                           s->line, (long long)scratch_cap, c->name);
        rc = add_buffer(pl, b, cause);
        if (rc)
            return rc;
    }
    return BW_OK;
}

/* Index of the plan buffer for a name of kind tensor, scale or scratch, or -1. */
static int buffer_of(const struct plan *pl, struct name_ref r)
{
    size_t scratch_seen = 0;

    for (size_t b = 0; b < pl->n_buffers; b++) {
        const struct plan_buffer *pb = &pl->buffers[b];
        if (r.kind == NAME_TENSOR && pb->tensor == r.index && !pb->is_scale)
            return (int)b;
        if (r.kind == NAME_SCALE && pb->tensor == r.index && pb->is_scale)
            return (int)b;
        if (r.kind == NAME_SCRATCH && pb->role == PLAN_SCRATCH && scratch_seen++ == (size_t)r.index)
            return (int)b;
    }
    return -1;
}

/* The value of an integer argument expression for one case. */
static int eval_arg(const struct launch_arg *la, size_t index, const struct case_scope *cs,
                    const char *case_name, int64_t *out, char **cause)
{
    char *why = NULL, text[64];
    struct buf b;

    if (!expr_eval_int(la->expr, &cs->scope, out, &why))
        return BW_OK;
    buf_init(&b, 2048);
    buf_addf(&b, "line %d: argument %zu (%s) for case %s: %s", la->line, index + 1,
             short_text(la->expr, text, sizeof(text)), case_name, why ? why : "evaluation failed");
    add_lets_used(cs, la->expr, &b);
    free(why);
    free(*cause);
    *cause = buf_detach(&b);
    return BW_ERR_INVALID;
}

/* The value of a name in the case's scope (a @let's, here); 0 if absent,
 * which plan_check makes impossible. */
static int64_t scope_value(const struct case_scope *cs, const char *name)
{
    for (size_t i = 0; i < cs->scope.n; i++)
        if (strcmp(cs->vars[i].name, name) == 0)
            return cs->vars[i].value;
    return 0;
}

static int build_arg(const struct problem *p, const struct directives *d,
                     const int64_t *tune_values, const struct problem_case *c, enum plan_side side,
                     const struct case_scope *cs, const struct launch_arg *la, size_t index,
                     const struct plan *pl, struct plan_arg *out, char **cause)
{
    struct name_ref r;

    memset(out, 0, sizeof(*out));
    if (la->kind == LAUNCH_ARG_INTEGER) {
        out->kind = PLAN_ARG_INT;
        out->i = la->value;
        return BW_OK;
    }
    if (la->kind == LAUNCH_ARG_EXPR) {
        out->kind = PLAN_ARG_INT;
        out->name = expr_text(la->expr);
        return eval_arg(la, index, cs, c->name, &out->i, cause);
    }
    out->name = la->name;
    r = plan_resolve(p, d, side, la->name);
    switch (r.kind) {
    case NAME_TENSOR:
    case NAME_SCALE:
    case NAME_SCRATCH:
        out->kind = PLAN_ARG_BUF;
        out->buf = buffer_of(pl, r);
        if (out->buf < 0)
            return bw_fail(cause, BW_ERR_INTERNAL, "line %d: no buffer for '%s'", la->line,
                           la->name);
        return BW_OK;
    case NAME_SIZE:
        out->kind = PLAN_ARG_I64;
        out->i = c->sizes[r.index];
        return BW_OK;
    case NAME_SCALAR: {
        double v = c->scalars[r.index];
        switch (p->scalars[r.index].dtype) {
        case DTYPE_FP32:
            out->kind = PLAN_ARG_F32;
            out->f = v;
            break;
        case DTYPE_FP64:
            out->kind = PLAN_ARG_F64;
            out->f = v;
            break;
        case DTYPE_INT32:
            out->kind = PLAN_ARG_I32;
            out->i = (int64_t)v;
            break;
        case DTYPE_UINT32:
            out->kind = PLAN_ARG_U32;
            out->i = (int64_t)v;
            break;
        case DTYPE_UINT64:
            out->kind = PLAN_ARG_U64;
            out->i = (int64_t)v;
            break;
        default:
            out->kind = PLAN_ARG_I64;
            out->i = (int64_t)v;
            break;
        }
        return BW_OK;
    }
    case NAME_CONST:
        out->kind = PLAN_ARG_INT;
        out->i = d->consts[r.index].value;
        return BW_OK;
    case NAME_TUNE:
        out->kind = PLAN_ARG_INT;
        out->i = tune_values ? tune_values[r.index] : d->tunes[r.index].values[0];
        return BW_OK;
    case NAME_LET:
        out->kind = PLAN_ARG_INT;
        out->i = scope_value(cs, la->name);
        return BW_OK;
    case NAME_NONE:
        break;
    }
    return bw_fail(cause, BW_ERR_INVALID, "line %d: unknown argument '%s'", la->line, la->name);
}

/* Triton's maxnreg= for case `case_name` into *out: 0 when the launch has none
 * (Triton's default, no cap), else BW_TRITON_MAXNREG_MIN..BW_TRITON_MAXNREG_MAX. */
static int eval_maxnreg(const struct launch *ln, const struct case_scope *cs, const char *case_name,
                        int *out, char **cause)
{
    int64_t v;
    int rc;

    *out = 0;
    if (!ln->maxnreg)
        return BW_OK;
    rc = eval_dim(ln->maxnreg, 0, INT64_MIN, INT64_MAX, cs, "maxnreg = ", ln->line, case_name, &v,
                  cause);
    if (rc)
        return rc;
    if (v < BW_TRITON_MAXNREG_MIN || v > BW_TRITON_MAXNREG_MAX)
        return bw_fail(cause, BW_ERR_INVALID,
                       "line %d: maxnreg = %lld: Triton's maxnreg is %d to %d registers per "
                       "thread (BW_TRITON_MAXNREG_MIN, BW_TRITON_MAXNREG_MAX)",
                       ln->line, (long long)v, BW_TRITON_MAXNREG_MIN, BW_TRITON_MAXNREG_MAX);
    *out = (int)v;
    return BW_OK;
}

/* Triton's grid, block (32 x num_warps threads), options and arguments:
 * positional ones as for CUDA, keyword ones as constexpr values. */
static int build_triton_launch(const struct problem *p, const struct directives *d,
                               const int64_t *tune_values, const struct problem_case *c,
                               enum plan_side side, const struct case_scope *cs,
                               const struct launch *ln, const struct plan *out,
                               struct plan_launch *pl, char **cause)
{
    static const char *const gname[3] = {"grid.x = ", "grid.y = ", "grid.z = "};
    static const int64_t gmax[3] = {GRID_X_MAX, GRID_YZ_MAX, GRID_YZ_MAX};
    int64_t v;
    int rc;

    for (int k = 0; k < 3; k++) {
        rc = eval_dim(ln->grid[k], 1, 1, gmax[k], cs, gname[k], ln->line, c->name, &v, cause);
        if (rc)
            return rc;
        pl->grid[k] = (uint32_t)v;
    }
    rc = eval_dim(ln->num_warps, TRITON_NUM_WARPS_DEFAULT, 1, TRITON_NUM_WARPS_MAX, cs,
                  "num_warps = ", ln->line, c->name, &v, cause);
    if (rc)
        return rc;
    if (v & (v - 1))
        return bw_fail(cause, BW_ERR_INVALID,
                       "line %d: num_warps = %lld: Triton takes 1, 2, 4, 8, 16 or 32 warps",
                       ln->line, (long long)v);
    pl->num_warps = (int)v;
    pl->block[0] = (uint32_t)(32 * v);
    pl->block[1] = pl->block[2] = 1;
    rc = eval_dim(ln->num_stages, TRITON_NUM_STAGES_DEFAULT, 1, TRITON_NUM_STAGES_MAX, cs,
                  "num_stages = ", ln->line, c->name, &v, cause);
    if (rc)
        return rc;
    pl->num_stages = (int)v;
    rc = eval_maxnreg(ln, cs, c->name, &pl->maxnreg, cause);
    if (rc)
        return rc;
    for (size_t a = 0; a < ln->n_args; a++) {
        const struct launch_arg *la = &ln->args[a];
        struct plan_arg arg;

        rc = build_arg(p, d, tune_values, c, side, cs, la, a, out, &arg, cause);
        if (rc)
            return rc;
        if (!la->keyword) {
            pl->args[pl->n_args++] = arg;
            continue;
        }
        /* a size named alone is PLAN_ARG_I64; a literal, @const, @tune or expression PLAN_ARG_INT
         */
        pl->constexprs[pl->n_constexprs++] = (struct plan_constexpr){la->keyword, arg.i};
    }
    return BW_OK;
}

/* A CUDA launch's block= and smem= for case c into pl (a @launch's or @rows's). */
static int build_block_smem(struct expr *const block[3], const struct expr *smem, int line,
                            const struct case_scope *cs, const struct problem_case *c,
                            struct plan_launch *pl, char **cause)
{
    static const char *const bname[3] = {"block.x = ", "block.y = ", "block.z = "};
    static const int64_t bmax[3] = {BLOCK_XY_MAX, BLOCK_XY_MAX, BLOCK_Z_MAX};
    int64_t v, threads = 1;
    int rc;

    for (int k = 0; k < 3; k++) {
        rc = eval_dim(block[k], 1, 1, bmax[k], cs, bname[k], line, c->name, &v, cause);
        if (rc)
            return rc;
        pl->block[k] = (uint32_t)v;
        threads *= v;
    }
    if (threads > BLOCK_THREADS_MAX)
        return bw_fail(cause, BW_ERR_INVALID,
                       "line %d: a block of %lld threads for case %s (max %lld)", line,
                       (long long)threads, c->name, BLOCK_THREADS_MAX);
    rc = eval_dim(smem, 0, 0, SMEM_MAX, cs, "smem = ", line, c->name, &v, cause);
    if (rc)
        return rc;
    pl->smem = (uint32_t)v;
    return BW_OK;
}

void plan_copy(struct plan *dst, const struct plan *src)
{
    uintptr_t lo = (uintptr_t)src->scale_names, hi = lo + sizeof(src->scale_names);

    *dst = *src;
    for (size_t b = 0; b < dst->n_buffers; b++) {
        uintptr_t n = (uintptr_t)src->buffers[b].name;
        if (n >= lo && n < hi)
            dst->buffers[b].name = (const char *)dst->scale_names + (n - lo);
    }
}

int plan_build(const struct problem *p, const struct directives *d, const int64_t *tune_values,
               const struct problem_case *c, enum plan_side side, struct plan *out, char **cause)
{
    struct case_scope cs;
    int rc;

    plan_start(out, p, c);
    rc = case_scope_init(&cs, p, d, tune_values, c, cause);
    if (rc)
        return rc;
    rc = build_buffers(p, d, &cs, c, side, out, cause);
    if (rc)
        return rc;

    for (size_t l = 0; l < d->n_launches; l++) {
        const struct launch *ln = &d->launches[l];
        struct plan_launch *pl = &out->launches[out->n_launches];
        static const char *const gname[3] = {"grid.x = ", "grid.y = ", "grid.z = "};
        static const int64_t gmax[3] = {GRID_X_MAX, GRID_YZ_MAX, GRID_YZ_MAX};
        int64_t v;

        pl->kernel = ln->kernel;
        pl->line = ln->line;
        if (d->lang == LANG_TRITON) {
            rc = build_triton_launch(p, d, tune_values, c, side, &cs, ln, out, pl, cause);
            if (rc)
                return rc;
            out->n_launches++;
            continue;
        }
        for (int k = 0; k < 3; k++) {
            rc = eval_dim(ln->grid[k], 1, 1, gmax[k], &cs, gname[k], ln->line, c->name, &v, cause);
            if (rc)
                return rc;
            pl->grid[k] = (uint32_t)v;
        }
        rc = build_block_smem(ln->block, ln->smem, ln->line, &cs, c, pl, cause);
        if (rc)
            return rc;
        for (size_t a = 0; a < ln->n_args; a++) {
            rc = build_arg(p, d, tune_values, c, side, &cs, &ln->args[a], a, out, &pl->args[a],
                           cause);
            if (rc)
                return rc;
        }
        pl->n_args = ln->n_args;
        out->n_launches++;
    }
    return BW_OK;
}

/* The value of integer argument `la` for case c and @tune values tv;
 * BW_ERR_INVALID with *cause if an expression fails for it. */
static int int_arg_value(const struct problem *p, const struct directives *d, enum plan_side side,
                         const int64_t *tv, const struct problem_case *c,
                         const struct launch_arg *la, size_t index, int64_t *out, char **cause)
{
    struct case_scope cs;
    struct name_ref r;

    switch (la->kind) {
    case LAUNCH_ARG_INTEGER:
        *out = la->value;
        return BW_OK;
    case LAUNCH_ARG_EXPR:
        if (case_scope_init(&cs, p, d, tv, c, cause))
            return BW_ERR_INVALID;
        return eval_arg(la, index, &cs, c->name, out, cause);
    case LAUNCH_ARG_NAME:
        r = plan_resolve(p, d, side, la->name);
        if (r.kind == NAME_CONST)
            *out = d->consts[r.index].value;
        else if (r.kind == NAME_TUNE)
            *out = tv ? tv[r.index] : d->tunes[r.index].values[0];
        else if (r.kind == NAME_LET) {
            if (case_scope_init(&cs, p, d, tv, c, cause))
                return BW_ERR_INVALID;
            *out = scope_value(&cs, la->name);
        }
        return BW_OK;
    }
    return BW_OK;
}

/* True if the argument is passed with the parameter's width (PLAN_ARG_INT). */
static bool is_int_arg(const struct problem *p, const struct directives *d, enum plan_side side,
                       const struct launch_arg *la)
{
    struct name_ref r;

    if (la->kind != LAUNCH_ARG_NAME)
        return true;
    r = plan_resolve(p, d, side, la->name);
    return r.kind == NAME_CONST || r.kind == NAME_TUNE || r.kind == NAME_LET;
}

int plan_check_int_arg(const struct problem *p, const struct directives *d, enum plan_side side,
                       const int64_t (*tune_values)[BW_MAX_TUNE_PARAMS], size_t n_configs, size_t l,
                       size_t a, int param_bytes, bool param_float, struct diag_list *diags)
{
    const struct launch *ln = &d->launches[l];
    const struct launch_arg *la = &ln->args[a];
    char text[BW_MAX_EXPR_BYTES + 8], config[512], let_note[160] = "";

    if (!is_int_arg(p, d, side, la))
        return BW_OK;
    if (la->kind == LAUNCH_ARG_INTEGER)
        snprintf(text, sizeof(text), "%lld", (long long)la->value);
    else if (la->kind == LAUNCH_ARG_EXPR)
        snprintf(text, sizeof(text), "%s", short_text(la->expr, config, sizeof(config)));
    else
        snprintf(text, sizeof(text), "%s", la->name);
    if (la->kind == LAUNCH_ARG_NAME && plan_resolve(p, d, side, la->name).kind == NAME_LET) {
        const struct let *lt = &d->lets[plan_resolve(p, d, side, la->name).index];
        snprintf(let_note, sizeof(let_note), " (the @let on line %d: %s = %.64s)", lt->line,
                 lt->name, short_text(lt->value, config, sizeof(config)));
    }
    if (param_float || (param_bytes != 4 && param_bytes != 8)) {
        diag_list_addf(diags, la->line, la->column,
                       "argument %zu '%s'%s of kernel '%s' is an integer, passed as int or long "
                       "long, but the parameter is %s%d bytes",
                       a + 1, text, let_note, ln->kernel, param_float ? "floating point of " : "",
                       param_bytes);
        return BW_ERR_INVALID;
    }
    if (param_bytes == 8)
        return BW_OK;
    for (size_t k = 0; k < (n_configs ? n_configs : 1); k++) {
        const int64_t *tv = tune_values && d->n_tunes ? tune_values[k] : NULL;
        directives_tune_describe(d, tv, config, sizeof(config));
        for (size_t i = 0; i < p->n_tests + p->n_benchmarks; i++) {
            const struct problem_case *c =
                i < p->n_tests ? &p->tests[i] : &p->benchmarks[i - p->n_tests];
            char *why = NULL;
            int64_t v = 0;

            if (int_arg_value(p, d, side, tv, c, la, a, &v, &why)) {
                diag_list_addf(diags, la->line, la->column, "%s%s%s",
                               why ? why : "evaluation failed", config[0] ? " with " : "", config);
                free(why);
                return BW_ERR_INVALID;
            }
            if (v < INT32_MIN || v > INT32_MAX) {
                diag_list_addf(diags, la->line, la->column,
                               "argument %zu '%s'%s of kernel '%s' is %lld for case %s%s%s: more "
                               "than its 4-byte parameter holds (an int: -2147483648 to "
                               "2147483647); declare the parameter long long",
                               a + 1, text, let_note, ln->kernel, (long long)v, c->name,
                               config[0] ? " with " : "", config);
                return BW_ERR_INVALID;
            }
            if (la->kind == LAUNCH_ARG_INTEGER)
                return BW_OK; /* the same for every case */
        }
    }
    return BW_OK;
}

/* ---- the JSON form (Triton types: triton_variant.h) ---------------------------------- */

static const char *role_name(enum plan_role r)
{
    switch (r) {
    case PLAN_IN:
        return "in";
    case PLAN_INOUT:
        return "inout";
    case PLAN_OUT:
        return "out";
    case PLAN_DATA:
        return "data";
    case PLAN_SCRATCH:
        break;
    }
    return "scratch";
}

static const char *c_kind_name(enum plan_arg_kind k)
{
    switch (k) {
    case PLAN_ARG_I64:
        return "i64";
    case PLAN_ARG_I32:
        return "i32";
    case PLAN_ARG_U64:
        return "u64";
    case PLAN_ARG_U32:
        return "u32";
    case PLAN_ARG_F32:
        return "f32";
    case PLAN_ARG_F64:
        return "f64";
    case PLAN_ARG_INT:
        return "int";
    case PLAN_ARG_BUF:
        break;
    }
    return "buf";
}

static json_t *constexpr_json(const struct plan_constexpr *c)
{
    switch (c->kind) {
    case CONSTEXPR_BOOL:
        return json_boolean(c->value);
    case CONSTEXPR_NONE:
        return json_null();
    case CONSTEXPR_FLOAT:
        return json_real(c->f);
    case CONSTEXPR_STR:
        return json_string(c->s ? c->s : "");
    case CONSTEXPR_INT:
        break;
    }
    return json_integer((json_int_t)c->value);
}

/* Whether "%.17g" of f reads as an integer (no '.', exponent, inf or nan in it). */
static bool float_text_is_integral(double f)
{
    char text[40];

    snprintf(text, sizeof(text), "%.17g", f);
    return strpbrk(text, ".eEn") == NULL;
}

void plan_constexpr_literal(const struct plan_constexpr *c, char *out, size_t cap)
{
    switch (c->kind) {
    case CONSTEXPR_BOOL:
        snprintf(out, cap, "%s", c->value ? "True" : "False");
        return;
    case CONSTEXPR_NONE:
        snprintf(out, cap, "None");
        return;
    case CONSTEXPR_FLOAT:
        /* %.17g round-trips; ".0" keeps it apart from an integer (launcher.py does the same) */
        snprintf(out, cap, "%.17g%s", c->f, float_text_is_integral(c->f) ? ".0" : "");
        return;
    case CONSTEXPR_STR:
        snprintf(out, cap, "'%s'", c->s ? c->s : "");
        return;
    case CONSTEXPR_INT:
        break;
    }
    snprintf(out, cap, "%lld", (long long)c->value);
}

bool plan_constexpr_same(const struct plan_constexpr *a, const struct plan_constexpr *b)
{
    if (a->kind != b->kind)
        return false;
    switch (a->kind) {
    case CONSTEXPR_NONE:
        return true;
    case CONSTEXPR_FLOAT:
        return a->f == b->f || (a->f != a->f && b->f != b->f);
    case CONSTEXPR_STR:
        return strcmp(a->s ? a->s : "", b->s ? b->s : "") == 0;
    default:
        return a->value == b->value;
    }
}

static json_t *arg_json(const struct plan *pl, const struct plan_arg *a, enum language lang)
{
    char type[16];

    if (a->kind == PLAN_ARG_BUF) {
        json_t *o = json_pack(
            "{s:s}", "buffer",
            a->buf >= 0 && (size_t)a->buf < pl->n_buffers ? pl->buffers[a->buf].name : "?");
        if (a->offset)
            json_object_set_new(o, "offset", json_integer((json_int_t)a->offset));
        return o;
    }
    if (lang == LANG_TRITON)
        plan_arg_triton_type(pl, a, type, sizeof(type));
    else
        snprintf(type, sizeof(type), "%s", c_kind_name(a->kind));
    if (a->kind == PLAN_ARG_F32 || a->kind == PLAN_ARG_F64)
        return json_pack("{s:f, s:s}", "float", a->f, "type", type);
    return json_pack("{s:I, s:s}", "int", (json_int_t)a->i, "type", type);
}

json_t *plan_json(const struct plan *pl, enum language lang)
{
    json_t *buffers = json_array(), *launches = json_array();

    for (size_t b = 0; b < pl->n_buffers; b++) {
        const struct plan_buffer *pb = &pl->buffers[b];
        json_array_append_new(buffers,
                              json_pack("{s:s, s:s, s:I, s:s}", "name", pb->name, "dtype",
                                        dtype_name(pb->dtype), "count", (json_int_t)pb->count,
                                        "role", role_name(pb->role)));
    }
    for (size_t l = 0; l < pl->n_launches; l++) {
        const struct plan_launch *L = &pl->launches[l];
        json_t *args = json_array(), *o;

        for (size_t a = 0; a < L->n_args; a++)
            json_array_append_new(args, arg_json(pl, &L->args[a], lang));
        o = json_pack("{s:s, s:[i, i, i], s:o}", "kernel", L->kernel, "grid", (int)L->grid[0],
                      (int)L->grid[1], (int)L->grid[2], "args", args);
        if (lang == LANG_TRITON) {
            json_t *cx = json_object();
            for (size_t k = 0; k < L->n_constexprs; k++)
                json_object_set_new(cx, L->constexprs[k].name, constexpr_json(&L->constexprs[k]));
            json_object_set_new(o, "num_warps", json_integer(L->num_warps));
            json_object_set_new(o, "num_stages", json_integer(L->num_stages));
            if (L->maxnreg)
                json_object_set_new(o, "maxnreg", json_integer(L->maxnreg));
            json_object_set_new(o, "constexprs", cx);
        } else {
            json_object_set_new(
                o, "block",
                json_pack("[i, i, i]", (int)L->block[0], (int)L->block[1], (int)L->block[2]));
            json_object_set_new(o, "smem", json_integer(L->smem));
        }
        json_array_append_new(launches, o);
    }
    return json_pack("{s:o, s:o}", "buffers", buffers, "launches", launches);
}

int plan_build_rows(const struct problem *p, const struct directives *d,
                    const struct problem_case *c, int64_t n_rows, struct plan *out,
                    int64_t *row_count, char **cause)
{
    const struct rows_kernel *rk = d->rows;
    struct case_scope cs;
    struct plan_launch *pl;
    int rc;

    if (!rk || d->n_launches != 1)
        return bw_fail(cause, BW_ERR_INVALID, "no @rows kernel with exactly one @launch");
    rc = plan_build(p, d, NULL, c, PLAN_REFERENCE, out, cause);
    if (rc)
        return rc;
    rc = case_scope_init(&cs, p, d, NULL, c, cause);
    if (rc)
        return rc;
    rc = eval_dim(rk->rows, 1, 1, INT64_MAX, &cs, "rows = ", rk->line, c->name, row_count, cause);
    if (rc)
        return rc;
    if (n_rows < 1 || n_rows > GRID_X_MAX || n_rows > *row_count)
        return bw_fail(cause, BW_ERR_INVALID,
                       "line %d: %lld rows asked of @rows for case %s (1..%lld)", rk->line,
                       (long long)n_rows, c->name, (long long)*row_count);
    pl = &out->launches[0];
    if (pl->n_args + 2 > BW_MAX_LAUNCH_ARGS)
        return bw_fail(cause, BW_ERR_LIMIT, "line %d: @rows: too many arguments", rk->line);
    pl->kernel = rk->kernel;
    pl->line = rk->line;
    pl->grid[0] = (uint32_t)n_rows;
    pl->grid[1] = pl->grid[2] = 1;
    rc = build_block_smem(rk->block, rk->smem, rk->line, &cs, c, pl, cause);
    if (rc)
        return rc;
    rc = add_buffer(
        out,
        (struct plan_buffer){
            .name = "rows", .dtype = DTYPE_INT64, .role = PLAN_DATA, .count = n_rows, .tensor = -1},
        cause);
    if (rc)
        return rc;
    pl->args[pl->n_args++] =
        (struct plan_arg){.kind = PLAN_ARG_BUF, .buf = (int)out->n_buffers - 1, .name = "rows"};
    pl->args[pl->n_args++] = (struct plan_arg){.kind = PLAN_ARG_I64, .i = n_rows, .name = "n_rows"};
    return BW_OK;
}

int plan_rows_count(const struct problem *p, const struct directives *d,
                    const struct problem_case *c, int64_t *row_count, char **cause)
{
    struct case_scope cs;

    if (!d->rows)
        return bw_fail(cause, BW_ERR_INVALID, "no @rows kernel");
    if (case_scope_init(&cs, p, d, NULL, c, cause))
        return BW_ERR_INVALID;
    return eval_dim(d->rows->rows, 1, 1, INT64_MAX, &cs, "rows = ", d->rows->line, c->name,
                    row_count, cause);
}
