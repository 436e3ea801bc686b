/*
 * tolerance.c - how an output is compared (see load.h): the "tolerance"
 * object of a tensor in problem.json, the default tolerances per dtype, and
 * problem_tolerance(), the atol and rtol of one output in one case
 * (problem.h).
 *
 * The defaults are the table of torch.testing.assert_close: a problem that
 * gives no tolerance for a float output gets these, integers are compared
 * exactly.
 */
#include "load.h"

#include <math.h>
#include <stdlib.h>

#include "common/error.h"
#include "common/json_reader.h"
#include "common/banned.h"

/* ---- defaults -------------------------------------------------------------------------------- */

void dtype_default_tolerance(enum dtype t, double *atol, double *rtol)
{
    switch (t) {
    case DTYPE_FP64:
        *atol = 1e-7;
        *rtol = 1e-7;
        return;
    case DTYPE_FP32:
        *atol = 1e-5;
        *rtol = 1.3e-6;
        return;
    case DTYPE_FP16:
        *atol = 1e-5;
        *rtol = 1e-3;
        return;
    case DTYPE_BF16:
        *atol = 1e-5;
        *rtol = 1.6e-2;
        return;
    case DTYPE_INVALID:
    case DTYPE_INT8:
    case DTYPE_UINT8:
    case DTYPE_INT32:
    case DTYPE_UINT32:
    case DTYPE_INT64:
    case DTYPE_UINT64:
        break;
    }
    *atol = 0;
    *rtol = 0;
}

/* ---- problem.json ---------------------------------------------------------------------------- */

static const char *const tolerance_keys[] = {"exact", "atol", "rtol", "acc", NULL};

/* atol or rtol: a number >= 0 or an expression of the sizes (checked >= 0 per case). */
static int load_tol_term(struct loader *ld, const char *path, json_t *v, struct expr **out)
{
    if (json_is_number(v) && json_number_value(v) < 0)
        return json_reader_fail(&ld->r, BW_ERR_INVALID, path,
                                "%s is negative (expected a number >= 0)", json_show(v).s);
    return loader_expr(ld, path, v, true, out);
}

int loader_tolerance(struct loader *ld, const char *path, json_t *v, struct tensor_spec *t)
{
    json_t *exact, *atol, *rtol, *acc;
    int rc;

    if ((rc = json_reader_object(&ld->r, path, v)) ||
        (rc = json_reader_only_keys(&ld->r, path, v, tolerance_keys)))
        return rc;
    exact = json_object_get(v, "exact");
    atol = json_object_get(v, "atol");
    rtol = json_object_get(v, "rtol");
    acc = json_object_get(v, "acc");
    if (exact &&
        (rc = json_reader_bool(&ld->r, json_path_key(path, "exact").s, exact, &t->tol.exact)))
        return rc;
    if (t->tol.exact && (atol || rtol || acc))
        return json_reader_fail(&ld->r, BW_ERR_INVALID, path, "\"exact\": true excludes \"%s\"",
                                atol   ? "atol"
                                : rtol ? "rtol"
                                       : "acc");
    if (!dtype_is_float(t->dtype) && (atol || rtol))
        return json_reader_fail(
            &ld->r, BW_ERR_INVALID, json_path_key(path, atol ? "atol" : "rtol").s,
            "%s outputs are always compared exactly (no atol or rtol)", dtype_name(t->dtype));
    if (atol && (rc = load_tol_term(ld, json_path_key(path, "atol").s, atol, &t->tol.atol)))
        return rc;
    if (rtol && (rc = load_tol_term(ld, json_path_key(path, "rtol").s, rtol, &t->tol.rtol)))
        return rc;
    if (acc) {
        struct json_path ap = json_path_key(path, "acc");
        if ((rc = json_reader_number(&ld->r, ap.s, acc, -HUGE_VAL, HUGE_VAL, &t->tol.acc)))
            return rc;
        if (t->tol.acc < 0)
            return json_reader_fail(&ld->r, BW_ERR_INVALID, ap.s,
                                    "%g is negative (expected a number >= 0)", t->tol.acc);
        if (t->tol.acc > 0 && !dtype_is_float(t->dtype))
            return json_reader_fail(&ld->r, BW_ERR_INVALID, ap.s,
                                    "acc > 0 needs a float output (the tensor is %s)",
                                    dtype_name(t->dtype));
    }
    return 0;
}

/* ---- per-case helpers ------------------------------------------------------------------------ */

/* Evaluates one tolerance term (NULL: the default); finite and >= 0. */
static int tol_term(const struct tensor_spec *ts, const char *what, const struct expr *e,
                    double dflt, const struct expr_scope *scope, double *out, char **cause)
{
    int rc;

    if (!e) {
        *out = dflt;
        return 0;
    }
    if ((rc = expr_eval_real(e, scope, out, cause)))
        return bw_wrap(cause, rc, "tensor %s %s \"%s\"", ts->name, what, expr_text(e));
    if (!isfinite(*out) || *out < 0)
        return bw_fail(cause, BW_ERR_INVALID, "tensor %s %s \"%s\" is %g (expected >= 0)", ts->name,
                       what, expr_text(e), *out);
    return 0;
}

int problem_tolerance(const struct problem *p, size_t t, const struct problem_case *c, double *atol,
                      double *rtol, char **cause)
{
    const struct tensor_spec *ts;
    struct expr_binding vars[BW_MAX_SIZES];
    struct expr_scope scope;
    double da, dr;
    int rc;

    if (t >= p->n_tensors)
        return bw_fail(cause, BW_ERR_INVALID, "no tensor %zu (the problem has %zu)", t,
                       p->n_tensors);
    ts = &p->tensors[t];
    if (ts->role == ROLE_IN)
        return bw_fail(cause, BW_ERR_INVALID, "tensor %s is an input: it has no tolerance",
                       ts->name);
    if (ts->tol.exact || !dtype_is_float(ts->dtype)) {
        *atol = 0;
        *rtol = 0;
        return 0;
    }
    dtype_default_tolerance(ts->dtype, &da, &dr);
    problem_case_scope(p, c, vars, &scope);
    if ((rc = tol_term(ts, "atol", ts->tol.atol, da, &scope, atol, cause)) ||
        (rc = tol_term(ts, "rtol", ts->tol.rtol, dr, &scope, rtol, cause)))
        return rc;
    return 0;
}
