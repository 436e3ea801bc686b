/*
 * formulas.c - expressions in problem.json (see load.h): shapes, randint
 * bounds, tolerances and limits.scratch_bytes are expressions of the sizes;
 * the bytes and FLOPs formulas (and bandwidth goals' bytes) may also use the
 * integer scalars. Here too: "bytes", "flops", "peak", "limits", and
 * problem_formula_scope() (problem.h).
 */
#include "load.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/error.h"
#include "common/json_reader.h"
#include "common/banned.h"

/* The shortest decimal text that reads back as v (a JSON real given where an
 * expression is expected: "1e-05" for 1e-5). */
static void real_text(double v, char *out, size_t n)
{
    for (int prec = 1; prec <= 17; prec++) {
        snprintf(out, n, "%.*g", prec, v);
        if (strtod(out, NULL) == v)
            break;
    }
}

struct name_check {
    const struct problem *p;
    const char *unknown; /* first name that is not a size (or an allowed scalar) */
    bool int_scalars;    /* integer scalars are names too (bytes and FLOPs formulas) */
};

static bool is_int_scalar(const struct problem *p, const char *name)
{
    int k = problem_scalar_index(p, name);
    return k >= 0 && !dtype_is_float(p->scalars[k].dtype);
}

static void check_size_name(const char *name, void *arg)
{
    struct name_check *nc = arg;

    if (!nc->unknown && problem_size_index(nc->p, name) < 0 &&
        !(nc->int_scalars && is_int_scalar(nc->p, name)))
        nc->unknown = name;
}

struct json_list loader_size_list(const struct problem *p)
{
    return json_join((const char *const *)p->size_names, p->n_sizes);
}

static struct json_list formula_name_list(const struct problem *p)
{
    const char *names[BW_MAX_SIZES + BW_MAX_SCALARS];
    size_t n = 0;

    for (size_t i = 0; i < p->n_sizes; i++)
        names[n++] = p->size_names[i];
    for (size_t i = 0; i < p->n_scalars; i++)
        if (!dtype_is_float(p->scalars[i].dtype))
            names[n++] = p->scalars[i].name;
    return json_join(names, n);
}

/*
 * An expression of the sizes: a string, or a JSON integer (or, for real
 * formulas, any number). Integer expressions (shapes, bounds, scratch) must
 * not hold real literals. With int_scalars the problem's integer scalars are
 * names too (problem_formula_scope binds them): the bytes and FLOPs formulas,
 * where a flag like causal changes the work.
 */
static int parse_expr(struct loader *ld, const char *path, json_t *v, bool real, bool int_scalars,
                      struct expr **out)
{
    char text[64], *inner = NULL;
    const char *src;
    struct name_check nc = {ld->p, NULL, int_scalars};
    struct expr *e;

    if (json_is_string(v)) {
        src = json_string_value(v);
    } else if (json_is_integer(v)) {
        snprintf(text, sizeof(text), "%lld", (long long)json_integer_value(v));
        src = text;
    } else if (real && json_is_real(v)) {
        real_text(json_real_value(v), text, sizeof(text));
        src = text;
    } else {
        return json_reader_fail(&ld->r, BW_ERR_INVALID, path, "expected %s, got %s",
                                real ? "a number or an expression string"
                                     : "an integer or an expression string",
                                json_show(v).s);
    }
    e = expr_parse(src, NULL, &inner);
    if (!e) {
        int rc = json_reader_fail(&ld->r, BW_ERR_INVALID, path, "%s: %s", json_quote(src).s,
                                  inner ? inner : "cannot parse");
        free(inner);
        return rc;
    }
    if (!real && expr_is_real(e)) {
        expr_free(e);
        return json_reader_fail(&ld->r, BW_ERR_INVALID, path,
                                "%s has a real literal (expected an integer expression)",
                                json_quote(src).s);
    }
    expr_each_name(e, check_size_name, &nc);
    if (nc.unknown) {
        struct json_shown name = json_quote(nc.unknown);
        int k = problem_scalar_index(ld->p, nc.unknown);
        int rc;
        if (k >= 0 && int_scalars)
            rc = json_reader_fail(
                &ld->r, BW_ERR_INVALID, path,
                "%s uses scalar %s, which is %s (only integer scalars may appear here)",
                json_quote(src).s, name.s, dtype_name(ld->p->scalars[k].dtype));
        else if (k >= 0)
            rc = json_reader_fail(&ld->r, BW_ERR_INVALID, path,
                                  "%s uses scalar %s (only the sizes, %s, may appear here)",
                                  json_quote(src).s, name.s, loader_size_list(ld->p).s);
        else if (int_scalars)
            rc = json_reader_fail(&ld->r, BW_ERR_INVALID, path,
                                  "%s uses unknown name %s (sizes and integer scalars are %s)",
                                  json_quote(src).s, name.s, formula_name_list(ld->p).s);
        else
            rc = json_reader_fail(&ld->r, BW_ERR_INVALID, path,
                                  "%s uses unknown name %s (sizes are %s)", json_quote(src).s,
                                  name.s, loader_size_list(ld->p).s);
        expr_free(e);
        return rc;
    }
    *out = e;
    return 0;
}

int loader_expr(struct loader *ld, const char *path, json_t *v, bool real, struct expr **out)
{
    return parse_expr(ld, path, v, real, false, out);
}

/* A bytes or FLOPs formula: real, of the sizes and the integer scalars. */
int loader_formula(struct loader *ld, const char *path, json_t *v, struct expr **out)
{
    return parse_expr(ld, path, v, true, true, out);
}

/* ---- formulas, peak, limits ------------------------------------------------------------------ */

int loader_formulas(struct loader *ld, json_t *root)
{
    struct problem *p = ld->p;
    const char *peak = NULL;
    json_t *f, *lim;
    int rc;

    if ((rc = json_reader_get(&ld->r, "", root, "bytes", true, &f)) ||
        (rc = loader_formula(ld, "bytes", f, &p->bytes)) ||
        (rc = json_reader_get(&ld->r, "", root, "flops", true, &f)) ||
        (rc = loader_formula(ld, "flops", f, &p->flops)))
        return rc;
    if ((rc = json_reader_get_string(&ld->r, "", root, "peak", true, 0, SIZE_MAX, NULL, &peak)))
        return rc;
    if (strcmp(peak, "fp32") == 0)
        p->peak = PEAK_FP32;
    else if (strcmp(peak, "fp16_tensor") == 0)
        p->peak = PEAK_FP16_TENSOR;
    else if (strcmp(peak, "bf16_tensor") == 0)
        p->peak = PEAK_BF16_TENSOR;
    else if (strcmp(peak, "none") == 0)
        p->peak = PEAK_NONE;
    else
        return json_reader_fail(
            &ld->r, BW_ERR_INVALID, "peak",
            "unknown peak %s (expected \"fp32\", \"fp16_tensor\", \"bf16_tensor\" or "
            "\"none\")",
            json_quote(peak).s);

    p->run_ms = BW_RUN_WALL_MS_DEFAULT;
    if ((rc = json_reader_get(&ld->r, "", root, "limits", false, &lim)) || !lim)
        return rc;
    static const char *const limit_keys[] = {"run_ms", "scratch_bytes", NULL};
    if ((rc = json_reader_object(&ld->r, "limits", lim)) ||
        (rc = json_reader_only_keys(&ld->r, "limits", lim, limit_keys)))
        return rc;
    if ((f = json_object_get(lim, "run_ms"))) {
        int64_t ms;
        if ((rc = json_reader_int(&ld->r, "limits.run_ms", f, 1, BW_MAX_RUN_MS, &ms)))
            return rc;
        p->run_ms = (int)ms;
    }
    if ((f = json_object_get(lim, "scratch_bytes")) &&
        (rc = loader_expr(ld, "limits.scratch_bytes", f, false, &p->scratch_bytes)))
        return rc;
    return 0;
}

/* ---- per-case helpers ------------------------------------------------------------------------ */

void problem_formula_scope(const struct problem *p, const struct problem_case *c,
                           struct expr_binding *vars, struct expr_scope *scope)
{
    size_t n = p->n_sizes;

    problem_case_scope(p, c, vars, scope);
    for (size_t i = 0; i < p->n_scalars; i++) {
        if (dtype_is_float(p->scalars[i].dtype))
            continue;
        /* integral and in range: the loader checks every case's value */
        vars[n].name = p->scalars[i].name;
        vars[n].value = (int64_t)c->scalars[i];
        n++;
    }
    scope->n = n;
}
