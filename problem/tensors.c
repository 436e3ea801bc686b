/*
 * tensors.c - sizes, scalars and tensors of problem.json (see load.h): their
 * names (identifiers, unique across all three, none ending in "_scale"),
 * dtypes, roles and shapes; and a tensor's shape and element count in one
 * case (problem_tensor_shape, problem_tensor_count in problem.h).
 */
#include "load.h"

#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/error.h"
#include "common/json_reader.h"
#include "common/util.h"
#include "common/banned.h"

/* ---- names ----------------------------------------------------------------------------------- */

static bool has_suffix(const char *s, const char *suffix)
{
    size_t ls = strlen(s), lx = strlen(suffix);
    return ls >= lx && strcmp(s + ls - lx, suffix) == 0;
}

/* What already carries `name` (a size, scalar or tensor), or false. */
static bool name_owner(const struct problem *p, const char *name, char *owner, size_t n)
{
    for (size_t i = 0; i < p->n_sizes; i++)
        if (p->size_names[i] && strcmp(p->size_names[i], name) == 0) {
            snprintf(owner, n, "sizes[%zu]", i);
            return true;
        }
    for (size_t i = 0; i < p->n_scalars; i++)
        if (p->scalars[i].name && strcmp(p->scalars[i].name, name) == 0) {
            snprintf(owner, n, "scalars[%zu]", i);
            return true;
        }
    for (size_t i = 0; i < p->n_tensors; i++)
        if (p->tensors[i].name && strcmp(p->tensors[i].name, name) == 0) {
            snprintf(owner, n, "tensors[%zu]", i);
            return true;
        }
    return false;
}

/* A size, scalar or tensor name: an identifier, not reserved, unique. */
static int check_name(struct loader *ld, const char *path, const char *name)
{
    char owner[32];

    if (!is_identifier(name))
        return json_reader_fail(
            &ld->r, BW_ERR_INVALID, path,
            "%s is not an identifier (letters, digits and _, not starting with a digit, "
            "at most %d bytes)",
            json_quote(name).s, BW_MAX_NAME);
    if (has_suffix(name, "_scale"))
        return json_reader_fail(
            &ld->r, BW_ERR_INVALID, path,
            "%s ends in \"_scale\", which is reserved for the reference's scale tensors",
            json_quote(name).s);
    if (name_owner(ld->p, name, owner, sizeof(owner)))
        return json_reader_fail(&ld->r, BW_ERR_INVALID, path, "%s is already the name of %s",
                                json_quote(name).s, owner);
    return 0;
}

/* ---- sizes, scalars, tensors ----------------------------------------------------------------- */

int loader_sizes(struct loader *ld, json_t *v)
{
    struct problem *p = ld->p;
    int rc;

    if ((rc = json_reader_array(&ld->r, "sizes", v, 1, BW_MAX_SIZES, "BW_MAX_SIZES")))
        return rc;
    p->n_sizes = json_array_size(v);
    for (size_t i = 0; i < p->n_sizes; i++) {
        struct json_path path = json_path_at("sizes", "[%zu]", i);
        const char *name = NULL;

        if ((rc = json_reader_string(&ld->r, path.s, json_array_get(v, i), 0, SIZE_MAX, NULL,
                                     &name)) ||
            (rc = check_name(ld, path.s, name)))
            return rc;
        if (!(p->size_names[i] = strdup(name)))
            return loader_nomem(ld);
    }
    return 0;
}

static const char *const scalar_keys[] = {"name", "dtype", "value", NULL};

static bool is_scalar_dtype(enum dtype t)
{
    return t == DTYPE_FP32 || t == DTYPE_FP64 || t == DTYPE_INT32 || t == DTYPE_INT64 ||
           t == DTYPE_UINT32 || t == DTYPE_UINT64;
}

/* A scalar's value must be representable in its dtype. */
int loader_scalar_value(struct loader *ld, const char *path, enum dtype t, double v)
{
    if (t == DTYPE_FP64)
        return 0;
    if (t == DTYPE_FP32) {
        if (fabs(v) > FLT_MAX)
            return json_reader_fail(&ld->r, BW_ERR_INVALID, path, "%g overflows fp32", v);
        return 0;
    }
    return loader_value_fits(ld, path, t, v);
}

static int load_scalar(struct loader *ld, const char *path, json_t *v, struct scalar_spec *s)
{
    const char *name = NULL, *dtype = NULL;
    int rc;

    if ((rc = json_reader_object(&ld->r, path, v)) ||
        (rc = json_reader_only_keys(&ld->r, path, v, scalar_keys)))
        return rc;
    if ((rc = json_reader_get_string(&ld->r, path, v, "name", true, 0, SIZE_MAX, NULL, &name)) ||
        (rc = check_name(ld, json_path_key(path, "name").s, name)))
        return rc;
    if (!(s->name = strdup(name)))
        return loader_nomem(ld);
    if ((rc = json_reader_get_string(&ld->r, path, v, "dtype", true, 0, SIZE_MAX, NULL, &dtype)))
        return rc;
    s->dtype = dtype_parse(dtype);
    if (!is_scalar_dtype(s->dtype))
        return json_reader_fail(
            &ld->r, BW_ERR_INVALID, json_path_key(path, "dtype").s,
            "%s is not a scalar dtype (expected fp32, fp64, int32, int64, uint32 or uint64)",
            json_quote(dtype).s);
    if ((rc = json_reader_get_number(&ld->r, path, v, "value", true, -HUGE_VAL, HUGE_VAL,
                                     &s->value)))
        return rc;
    return loader_scalar_value(ld, json_path_key(path, "value").s, s->dtype, s->value);
}

int loader_scalars(struct loader *ld, json_t *v)
{
    struct problem *p = ld->p;
    size_t n;
    int rc;

    if ((rc = json_reader_array(&ld->r, "scalars", v, 0, BW_MAX_SCALARS, "BW_MAX_SCALARS")))
        return rc;
    n = json_array_size(v);
    if (n == 0)
        return 0;
    if (!(p->scalars = calloc(n, sizeof(*p->scalars))))
        return loader_nomem(ld);
    p->n_scalars = n;
    for (size_t i = 0; i < n; i++)
        if ((rc = load_scalar(ld, json_path_at("scalars", "[%zu]", i).s, json_array_get(v, i),
                              &p->scalars[i])))
            return rc;
    return 0;
}

static const char *const tensor_keys[] = {"name", "dtype", "shape", "role", "tolerance", NULL};

static int load_tensor(struct loader *ld, const char *path, json_t *v, struct tensor_spec *t)
{
    const char *name = NULL, *dtype = NULL, *role = NULL;
    json_t *f;
    int rc;

    if ((rc = json_reader_object(&ld->r, path, v)) ||
        (rc = json_reader_only_keys(&ld->r, path, v, tensor_keys)))
        return rc;
    if ((rc = json_reader_get_string(&ld->r, path, v, "name", true, 0, SIZE_MAX, NULL, &name)) ||
        (rc = check_name(ld, json_path_key(path, "name").s, name)))
        return rc;
    if (!(t->name = strdup(name)))
        return loader_nomem(ld);

    if ((rc = json_reader_get_string(&ld->r, path, v, "dtype", true, 0, SIZE_MAX, NULL, &dtype)))
        return rc;
    t->dtype = dtype_parse(dtype);
    if (t->dtype == DTYPE_INVALID)
        return json_reader_fail(&ld->r, BW_ERR_INVALID, json_path_key(path, "dtype").s,
                                "unknown dtype %s (expected one of %s)", json_quote(dtype).s,
                                dtype_all_names());

    if ((rc = json_reader_get_string(&ld->r, path, v, "role", true, 0, SIZE_MAX, NULL, &role)))
        return rc;
    if (strcmp(role, "in") == 0)
        t->role = ROLE_IN;
    else if (strcmp(role, "out") == 0)
        t->role = ROLE_OUT;
    else if (strcmp(role, "inout") == 0)
        t->role = ROLE_INOUT;
    else
        return json_reader_fail(&ld->r, BW_ERR_INVALID, json_path_key(path, "role").s,
                                "unknown role %s (expected \"in\", \"out\" or \"inout\")",
                                json_quote(role).s);

    struct json_path sp = json_path_key(path, "shape");
    if ((rc = json_reader_get(&ld->r, path, v, "shape", true, &f)) ||
        (rc = json_reader_array(&ld->r, sp.s, f, 1, BW_MAX_DIMS, "BW_MAX_DIMS")))
        return rc;
    t->ndim = (int)json_array_size(f);
    for (int d = 0; d < t->ndim; d++)
        if ((rc = loader_expr(ld, json_path_at(sp.s, "[%d]", d).s, json_array_get(f, (size_t)d),
                              false, &t->shape[d])))
            return rc;

    if ((rc = json_reader_get(&ld->r, path, v, "tolerance", false, &f)))
        return rc;
    if (f && t->role == ROLE_IN)
        return json_reader_fail(
            &ld->r, BW_ERR_INVALID, json_path_key(path, "tolerance").s,
            "only outputs (role \"out\" or \"inout\") have a tolerance; %s is an input", t->name);
    if (f && (rc = loader_tolerance(ld, json_path_key(path, "tolerance").s, f, t)))
        return rc;
    if (t->role != ROLE_IN && !dtype_is_float(t->dtype))
        t->tol.exact = true;
    return 0;
}

struct json_list loader_tensor_list(const struct problem *p, bool inputs_only)
{
    const char *names[BW_MAX_TENSORS];
    size_t n = 0;

    for (size_t i = 0; i < p->n_tensors; i++)
        if (!inputs_only || p->tensors[i].role != ROLE_OUT)
            names[n++] = p->tensors[i].name;
    return json_join(names, n);
}

int loader_tensors(struct loader *ld, json_t *v)
{
    struct problem *p = ld->p;
    bool has_out = false;
    size_t n;
    int rc;

    if ((rc = json_reader_array(&ld->r, "tensors", v, 1, BW_MAX_TENSORS, "BW_MAX_TENSORS")))
        return rc;
    n = json_array_size(v);
    if (!(p->tensors = calloc(n, sizeof(*p->tensors))))
        return loader_nomem(ld);
    p->n_tensors = n;
    for (size_t i = 0; i < n; i++) {
        if ((rc = load_tensor(ld, json_path_at("tensors", "[%zu]", i).s, json_array_get(v, i),
                              &p->tensors[i])))
            return rc;
        has_out |= p->tensors[i].role != ROLE_IN;
    }
    if (!has_out)
        return json_reader_fail(&ld->r, BW_ERR_INVALID, "tensors",
                                "no output (a tensor with role \"out\" or \"inout\")");
    return 0;
}

/* ---- per-case helpers ------------------------------------------------------------------------ */

int problem_tensor_shape(const struct problem *p, size_t t, const struct problem_case *c,
                         int64_t dims[BW_MAX_DIMS], char **cause)
{
    struct expr_binding vars[BW_MAX_SIZES];
    struct expr_scope scope;
    const struct tensor_spec *ts;
    int rc;

    if (t >= p->n_tensors)
        return bw_fail(cause, BW_ERR_INVALID, "no tensor %zu (the problem has %zu)", t,
                       p->n_tensors);
    ts = &p->tensors[t];
    problem_case_scope(p, c, vars, &scope);
    for (int d = 0; d < ts->ndim; d++) {
        if ((rc = expr_eval_int(ts->shape[d], &scope, &dims[d], cause)))
            return bw_wrap(cause, rc, "tensor %s shape[%d] \"%s\"", ts->name, d,
                           expr_text(ts->shape[d]));
        if (dims[d] < 1)
            return bw_fail(cause, BW_ERR_INVALID,
                           "tensor %s shape[%d] \"%s\" is %lld (expected >= 1)", ts->name, d,
                           expr_text(ts->shape[d]), (long long)dims[d]);
    }
    return 0;
}

int problem_tensor_count(const struct problem *p, size_t t, const struct problem_case *c,
                         int64_t *out, char **cause)
{
    int64_t dims[BW_MAX_DIMS], n = 1;
    int rc;

    if ((rc = problem_tensor_shape(p, t, c, dims, cause)))
        return rc;
    for (int d = 0; d < p->tensors[t].ndim; d++)
        if (!i64_mul(n, dims[d], &n))
            return bw_fail(cause, BW_ERR_LIMIT, "tensor %s: element count overflows int64",
                           p->tensors[t].name);
    *out = n;
    return 0;
}
