/*
 * plan_check.c - a source's directives checked against its problem
 * (plan.h: plan_check), once, before anything is compiled: every name an
 * expression or an argument uses resolves (resolve.h) to something it may
 * be, and the source's own names do not shadow the problem's. Each problem
 * is a diag at its line and column.
 */
#include "plan.h"

#include <stdio.h>
#include <string.h>

#include "resolve.h"
#include "common/error.h"
#include "common/banned.h"

/* A comma-separated list of the names an argument may use, for messages. */
static void describe_names(const struct problem *p, const struct directives *d, char *out,
                           size_t cap)
{
    size_t len = 0;
    out[0] = '\0';
#define ADD(s)                                                                                     \
    do {                                                                                           \
        int n_ = snprintf(out + len, cap - len, "%s%s", len ? ", " : "", (s));                     \
        if (n_ < 0 || (size_t)n_ >= cap - len)                                                     \
            return;                                                                                \
        len += (size_t)n_;                                                                         \
    } while (0)
    for (size_t t = 0; t < p->n_tensors; t++)
        ADD(p->tensors[t].name);
    for (size_t s = 0; s < p->n_sizes; s++)
        ADD(p->size_names[s]);
    for (size_t s = 0; s < p->n_scalars; s++)
        ADD(p->scalars[s].name);
    for (size_t k = 0; k < d->n_scratches; k++)
        ADD(d->scratches[k].name);
#undef ADD
}

/* The line of a key of a directive: its own when on a continuation line. */
static int key_line(int directive_line, int line)
{
    return line ? line : directive_line;
}

struct expr_check {
    const struct problem *p;
    const struct directives *d;
    struct diag_list *diags;
    int line, column;
    const char *what;
    bool is_arg;            /* an expression in args=(...): messages say what to pass instead */
    int let;                /* checking d->lets[let]'s expression; -1 for any other */
    const bool *let_static; /* per @let: it depends on no size (plan_check's) */
    int rc;
};

/* Names in expressions must be sizes, @const, @tune or @let names (in a
 * @let, of the @let lines above it). */
static void check_expr_name(const char *name, void *arg)
{
    struct expr_check *ec = arg;
    struct name_ref r = plan_resolve(ec->p, ec->d, PLAN_SUBMISSION, name);

    if (r.kind == NAME_SIZE || r.kind == NAME_CONST || r.kind == NAME_TUNE)
        return;
    if (r.kind == NAME_LET && (ec->let < 0 || r.index < ec->let))
        return;
    ec->rc = BW_ERR_INVALID;
    if (r.kind == NAME_LET)
        diag_list_addf(ec->diags, ec->line, ec->column,
                       "%s uses %s: a @let may use only the @let lines above it", ec->what,
                       r.index == ec->let ? "itself" : "a @let defined below it");
    else if (r.kind == NAME_NONE)
        diag_list_addf(ec->diags, ec->line, ec->column, "unknown name '%s' in %s", name, ec->what);
    else if (ec->is_arg && r.kind != NAME_SCALAR)
        diag_list_addf(ec->diags, ec->line, ec->column,
                       "'%s' is a buffer and cannot be part of an expression in %s (expressions "
                       "may use sizes, @const, @tune and @let names): pass it alone and offset it "
                       "in the kernel",
                       name, ec->what);
    else if (ec->is_arg)
        diag_list_addf(ec->diags, ec->line, ec->column,
                       "'%s' is a scalar and cannot be part of an expression in %s (expressions "
                       "may use sizes, @const, @tune and @let names): pass it alone",
                       name, ec->what);
    else
        diag_list_addf(
            ec->diags, ec->line, ec->column,
            "'%s' cannot be used in %s: expressions may use sizes, @const, @tune and @let names",
            name, ec->what);
}

static int check_expr(const struct problem *p, const struct directives *d, const struct expr *e,
                      int line, int column, const char *what, struct diag_list *diags)
{
    struct expr_check ec = {p, d, diags, line, column, what, false, -1, NULL, BW_OK};
    if (e)
        expr_each_name(e, check_expr_name, &ec);
    return ec.rc;
}

static int check_arg_expr(const struct problem *p, const struct directives *d,
                          const struct launch_arg *arg, struct diag_list *diags)
{
    struct expr_check ec = {p,    d,  diags, arg->line, arg->column, "args=(...)",
                            true, -1, NULL,  BW_OK};
    expr_each_name(arg->expr, check_expr_name, &ec);
    return ec.rc;
}

/* Names in num_warps=, num_stages= and maxnreg= must be @const or @tune
 * names, or @let names that depend on no size: they change the compiled code,
 * so they may not depend on a case's sizes. */
static void check_compile_name(const char *name, void *arg)
{
    struct expr_check *ec = arg;
    struct name_ref r = plan_resolve(ec->p, ec->d, PLAN_SUBMISSION, name);

    if (r.kind == NAME_CONST || r.kind == NAME_TUNE ||
        (r.kind == NAME_LET && ec->let_static[r.index]))
        return;
    ec->rc = BW_ERR_INVALID;
    if (r.kind == NAME_LET)
        diag_list_addf(ec->diags, ec->line, ec->column,
                       "'%s' cannot be used in %s: the @let on line %d depends on the sizes of a "
                       "case, and %s changes the compiled kernel (it may use integers, @const and "
                       "@tune names, and @let names that depend on no size)",
                       name, ec->what, ec->d->lets[r.index].line, ec->what);
    else
        diag_list_addf(ec->diags, ec->line, ec->column,
                       "'%s' cannot be used in %s: it changes the compiled kernel, so it may use "
                       "only integers, @const and @tune names and @let names that depend on no "
                       "size (not the sizes of a case)",
                       name, ec->what);
}

static int check_compile_expr(const struct problem *p, const struct directives *d,
                              const bool *let_static, const struct expr *e, int line, int column,
                              const char *what, struct diag_list *diags)
{
    struct expr_check ec = {p, d, diags, line, column, what, false, -1, let_static, BW_OK};
    if (e)
        expr_each_name(e, check_compile_name, &ec);
    return ec.rc;
}

/* Whether a @let depends on no size: every name it uses is a @const, a @tune
 * or such a @let above it (the lines below are not yet known: not static). */
struct static_scan {
    const struct problem *p;
    const struct directives *d;
    const bool *let_static;
    size_t let;
    bool is_static;
};

static void static_name(const char *name, void *arg)
{
    struct static_scan *ss = arg;
    struct name_ref r = plan_resolve(ss->p, ss->d, PLAN_SUBMISSION, name);

    if (!(r.kind == NAME_CONST || r.kind == NAME_TUNE ||
          (r.kind == NAME_LET && (size_t)r.index < ss->let && ss->let_static[r.index])))
        ss->is_static = false;
}

/* The @let names, their expressions, and which of them depend on no size
 * (into let_static[], one per d->lets[k]). */
static int check_lets(const struct problem *p, const struct directives *d, enum plan_side side,
                      bool *let_static, struct diag_list *diags)
{
    int rc = BW_OK;

    for (size_t k = 0; k < d->n_lets; k++) {
        const struct let *lt = &d->lets[k];
        struct name_ref r = plan_resolve(p, d, side, lt->name);
        char what[BW_MAX_NAME + 8];
        struct expr_check ec = {p,    d,     diags,  lt->line, lt->column,
                                what, false, (int)k, NULL,     BW_OK};
        struct static_scan ss = {p, d, let_static, k, true};

        if (r.kind != NAME_LET) {
            diag_list_addf(diags, lt->line, lt->column,
                           "@let name '%s' is already a name of the problem", lt->name);
            rc = BW_ERR_INVALID;
        }
        snprintf(what, sizeof(what), "@let %s", lt->name);
        expr_each_name(lt->value, check_expr_name, &ec);
        if (ec.rc)
            rc = ec.rc;
        expr_each_name(lt->value, static_name, &ss);
        let_static[k] = ss.is_static;
    }
    return rc;
}

int plan_check(const struct problem *p, const struct directives *d, enum plan_side side,
               struct diag_list *diags)
{
    char names[1024];
    bool let_static[BW_MAX_LETS] = {false};
    int rc = BW_OK;

    /* Directive-defined names must not shadow the problem's. */
    for (size_t k = 0; k < d->n_scratches; k++) {
        struct name_ref r = plan_resolve(p, d, side, d->scratches[k].name);
        if (r.kind != NAME_SCRATCH) {
            diag_list_addf(diags, d->scratches[k].line, d->scratches[k].column,
                           "@scratch name '%s' is already a name of the problem",
                           d->scratches[k].name);
            rc = BW_ERR_INVALID;
        }
        if (check_expr(p, d, d->scratches[k].count, d->scratches[k].line, d->scratches[k].column,
                       "the @scratch size", diags))
            rc = BW_ERR_INVALID;
    }
    for (size_t k = 0; k < d->n_consts; k++) {
        struct name_ref r = plan_resolve(p, d, side, d->consts[k].name);
        if (r.kind != NAME_CONST) {
            diag_list_addf(diags, d->consts[k].line, 1,
                           "@const name '%s' is already a name of the problem", d->consts[k].name);
            rc = BW_ERR_INVALID;
        }
    }
    for (size_t k = 0; k < d->n_tunes; k++) {
        struct name_ref r = plan_resolve(p, d, side, d->tunes[k].name);
        if (r.kind != NAME_TUNE) {
            diag_list_addf(diags, d->tunes[k].line, 1,
                           "@tune name '%s' is already a name of the problem", d->tunes[k].name);
            rc = BW_ERR_INVALID;
        }
    }

    if (check_lets(p, d, side, let_static, diags))
        rc = BW_ERR_INVALID;

    if (d->rows && side == PLAN_SUBMISSION) {
        diag_list_addf(diags, d->rows->line, 1,
                       "@rows is for a problem's reference.cu (its rows kernel), not a submission");
        rc = BW_ERR_INVALID;
    } else if (d->rows) {
        const struct rows_kernel *rk = d->rows;
        if (d->n_launches != 1) {
            diag_list_addf(diags, rk->line, 1,
                           "@rows needs exactly one @launch (its kernel takes that launch's "
                           "arguments), and there are %zu",
                           d->n_launches);
            rc = BW_ERR_INVALID;
        }
        if (check_expr(p, d, rk->rows, key_line(rk->line, rk->rows_line), rk->rows_column,
                       "rows=", diags) ||
            check_expr(p, d, rk->smem, key_line(rk->line, rk->smem_line), rk->smem_column,
                       "smem=", diags))
            rc = BW_ERR_INVALID;
        for (int k = 0; k < 3; k++)
            if (check_expr(p, d, rk->block[k], key_line(rk->line, rk->block_line), rk->block_column,
                           "block=", diags))
                rc = BW_ERR_INVALID;
    }
    describe_names(p, d, names, sizeof(names));
    for (size_t l = 0; l < d->n_launches; l++) {
        const struct launch *ln = &d->launches[l];
        for (int k = 0; k < 3; k++) {
            if (check_expr(p, d, ln->grid[k], key_line(ln->line, ln->grid_line), ln->grid_column,
                           "grid=", diags))
                rc = BW_ERR_INVALID;
            if (check_expr(p, d, ln->block[k], key_line(ln->line, ln->block_line), ln->block_column,
                           "block=", diags))
                rc = BW_ERR_INVALID;
        }
        if (check_expr(p, d, ln->smem, key_line(ln->line, ln->smem_line), ln->smem_column,
                       "smem=", diags))
            rc = BW_ERR_INVALID;
        if (check_compile_expr(p, d, let_static, ln->num_warps,
                               key_line(ln->line, ln->num_warps_line), ln->num_warps_column,
                               "num_warps=", diags) ||
            check_compile_expr(p, d, let_static, ln->num_stages,
                               key_line(ln->line, ln->num_stages_line), ln->num_stages_column,
                               "num_stages=", diags) ||
            check_compile_expr(p, d, let_static, ln->maxnreg, key_line(ln->line, ln->maxnreg_line),
                               ln->maxnreg_column, "maxnreg=", diags))
            rc = BW_ERR_INVALID;
        for (size_t a = 0; a < ln->n_args; a++) {
            const struct launch_arg *arg = &ln->args[a];
            struct name_ref r;
            if (arg->kind == LAUNCH_ARG_EXPR && check_arg_expr(p, d, arg, diags))
                rc = BW_ERR_INVALID;
            if (arg->kind != LAUNCH_ARG_NAME)
                continue;
            r = plan_resolve(p, d, side, arg->name);
            if (r.kind == NAME_NONE) {
                diag_list_addf(diags, arg->line, arg->column,
                               "unknown argument '%s' (this problem's names: %s)", arg->name,
                               names);
                rc = BW_ERR_INVALID;
            } else if (arg->keyword && r.kind != NAME_SIZE && r.kind != NAME_CONST &&
                       r.kind != NAME_TUNE && r.kind != NAME_LET) {
                diag_list_addf(diags, arg->line, arg->column,
                               "%s=%s: a tl.constexpr value is an integer (a size, a @const, @tune "
                               "or @let name, or an expression of them), and '%s' is %s",
                               arg->keyword, arg->name, arg->name,
                               r.kind == NAME_SCALAR ? "a scalar" : "a buffer");
                rc = BW_ERR_INVALID;
            }
        }
    }
    return rc;
}
