/*
 * problem.c - loading and validating problem directories (see problem.h).
 *
 * problem_load() reads problem.json once (bounded, duplicate keys rejected,
 * depth checked), then walks it field by field into a struct problem. Each
 * check names the field by its path ("tensors[1].shape[0]") and the bad value,
 * and says what was expected. Unknown fields are errors so that a typo such as
 * "tolerence" cannot silently drop a setting. After the JSON, every case is
 * evaluated once with the same helpers the judge uses later (shapes, generator
 * specs, tolerances, formulas), so a problem that loads cannot fail on a case
 * at judging time. Last come the files of the directory.
 *
 * While loading, a struct problem is filled in place; its arrays are sized up
 * front and zeroed, so problem_free() can release a half-built one on error.
 */
#include "problem.h"

#include <dirent.h>
#include <errno.h>
#include <float.h>
#include <jansson.h>
#include <limits.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "common/buf.h"
#include "common/error.h"
#include "common/json_reader.h"
#include "common/util.h"
#include "common/banned.h"

#define NUMBER_MAX    99                 /* problems on the path */
#define STEP_MAX      8                  /* steps of the path */
#define CONTROL_DEPTH 4                  /* path components of a control file */
#define EXACT_INT     9007199254740992.0 /* 2^53: larger integers are not exact in a double */

/* The standard files of every problem directory. */
static const struct {
    const char *name;
    size_t max;
} standard_files[] = {
    {"statement.md", BW_MAX_STATEMENT_BYTES},
    {"starter.cu", BW_MAX_SOURCE_BYTES},
    {"reference.cu", BW_MAX_SOURCE_BYTES},
    {"solution.cu", BW_MAX_SOURCE_BYTES},
};

struct loader {
    struct problem *p;
    char *file;                      /* "<dir>/problem.json", the prefix of every message */
    char **cause;                    /* failures outside problem.json: the files of the directory */
    struct json_reader r;            /* failures inside problem.json: "<file>: <path>: <message>" */
    size_t test_entry[BW_MAX_CASES]; /* tests[i] entry each case came from */
    size_t bench_entry[BW_MAX_BENCHMARKS]; /* benchmarks[i] entry each case came from */
};

static int load_nomem(struct loader *ld)
{
    return json_reader_fail(&ld->r, BW_ERR_NOMEM, "", "out of memory");
}

/* A generated value: a number, or "inf", "-inf", "nan". */
static int as_value(struct loader *ld, const char *path, json_t *v, double *out)
{
    const char *s;

    if (json_is_number(v))
        return json_reader_number(&ld->r, path, v, -HUGE_VAL, HUGE_VAL, out);
    if (!json_is_string(v))
        return json_reader_fail(&ld->r, BW_ERR_INVALID, path,
                                "expected a number or \"inf\", \"-inf\", \"nan\", got %s",
                                json_show(v).s);
    s = json_string_value(v);
    if (strcmp(s, "inf") == 0)
        *out = INFINITY;
    else if (strcmp(s, "-inf") == 0)
        *out = -INFINITY;
    else if (strcmp(s, "nan") == 0)
        *out = NAN;
    else
        return json_reader_fail(&ld->r, BW_ERR_INVALID, path,
                                "expected a number or \"inf\", \"-inf\", \"nan\", got %s",
                                json_quote(s).s);
    return 0;
}

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

static struct json_list size_list(const struct problem *p)
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
                                  json_quote(src).s, name.s, size_list(ld->p).s);
        else if (int_scalars)
            rc = json_reader_fail(&ld->r, BW_ERR_INVALID, path,
                                  "%s uses unknown name %s (sizes and integer scalars are %s)",
                                  json_quote(src).s, name.s, formula_name_list(ld->p).s);
        else
            rc = json_reader_fail(&ld->r, BW_ERR_INVALID, path,
                                  "%s uses unknown name %s (sizes are %s)", json_quote(src).s,
                                  name.s, size_list(ld->p).s);
        expr_free(e);
        return rc;
    }
    *out = e;
    return 0;
}

static int as_expr(struct loader *ld, const char *path, json_t *v, bool real, struct expr **out)
{
    return parse_expr(ld, path, v, real, false, out);
}

/* A bytes or FLOPs formula: real, of the sizes and the integer scalars. */
static int as_formula(struct loader *ld, const char *path, json_t *v, struct expr **out)
{
    return parse_expr(ld, path, v, true, true, out);
}

/* ---- names ----------------------------------------------------------------------------- */

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

/* A data profile name: [A-Za-z0-9_-]+, at most BW_MAX_NAME bytes. */
static bool is_profile_name(const char *s)
{
    size_t n = strlen(s);

    if (n == 0 || n > BW_MAX_NAME)
        return false;
    for (; *s; s++)
        if (!((*s >= 'a' && *s <= 'z') || (*s >= 'A' && *s <= 'Z') || (*s >= '0' && *s <= '9') ||
              *s == '_' || *s == '-'))
            return false;
    return true;
}

/* A case name: 1..BW_MAX_NAME bytes, no control characters, not padded. */
static bool is_case_name(const char *s)
{
    size_t n = strlen(s);

    if (n == 0 || n > BW_MAX_NAME || s[0] == ' ' || s[n - 1] == ' ')
        return false;
    for (; *s; s++)
        if ((unsigned char)*s < 0x20 || *s == 0x7f)
            return false;
    return true;
}

/* ---- dtypes and values ------------------------------------------------------------------ */

static double float_max(enum dtype t)
{
    switch (t) {
    case DTYPE_FP64:
        return DBL_MAX;
    case DTYPE_FP32:
        return FLT_MAX;
    case DTYPE_FP16:
        return 65504.0;
    case DTYPE_BF16:
        return 3.3895313892515355e38;
    default:
        return 0;
    }
}

/* The range of an integer dtype as int64 (uint64 capped at INT64_MAX). */
static void int_range(enum dtype t, int64_t *lo, int64_t *hi)
{
    switch (t) {
    case DTYPE_INT8:
        *lo = INT8_MIN;
        *hi = INT8_MAX;
        return;
    case DTYPE_UINT8:
        *lo = 0;
        *hi = UINT8_MAX;
        return;
    case DTYPE_INT32:
        *lo = INT32_MIN;
        *hi = INT32_MAX;
        return;
    case DTYPE_UINT32:
        *lo = 0;
        *hi = UINT32_MAX;
        return;
    case DTYPE_INT64:
        *lo = INT64_MIN;
        *hi = INT64_MAX;
        return;
    default:
        *lo = 0;
        *hi = INT64_MAX;
        return;
    }
}

/* A value generated into dtype t must be representable: a finite float
 * within range (inf and nan are given explicitly), or an exact integer. */
static int check_value_fits(struct loader *ld, const char *path, enum dtype t, double v)
{
    int64_t lo, hi;

    if (dtype_is_float(t)) {
        if (isfinite(v) && fabs(v) > float_max(t))
            return json_reader_fail(&ld->r, BW_ERR_INVALID, path,
                                    "%g overflows %s (largest finite value %g)", v, dtype_name(t),
                                    float_max(t));
        return 0;
    }
    if (!isfinite(v) || v != trunc(v))
        return json_reader_fail(&ld->r, BW_ERR_INVALID, path,
                                "%g is not an integer (the dtype is %s)", v, dtype_name(t));
    int_range(t, &lo, &hi);
    if (v < (double)lo || v > (double)hi || fabs(v) > EXACT_INT)
        return json_reader_fail(&ld->r, BW_ERR_INVALID, path, "%g is out of range for %s", v,
                                dtype_name(t));
    return 0;
}

/* ---- sizes, scalars, tensors ----------------------------------------------------------- */

static int load_sizes(struct loader *ld, json_t *v)
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
            return load_nomem(ld);
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
static int check_scalar_value(struct loader *ld, const char *path, enum dtype t, double v)
{
    if (t == DTYPE_FP64)
        return 0;
    if (t == DTYPE_FP32) {
        if (fabs(v) > FLT_MAX)
            return json_reader_fail(&ld->r, BW_ERR_INVALID, path, "%g overflows fp32", v);
        return 0;
    }
    return check_value_fits(ld, path, t, v);
}

static int load_scalar(struct loader *ld, const char *path, json_t *v, struct scalar_spec *s)
{
    const char *name = NULL, *dtype = NULL;
    json_t *f;
    int rc;

    if ((rc = json_reader_object(&ld->r, path, v)) ||
        (rc = json_reader_only_keys(&ld->r, path, v, scalar_keys)))
        return rc;
    if ((rc = json_reader_get(&ld->r, path, v, "name", true, &f)) ||
        (rc = json_reader_string(&ld->r, json_path_key(path, "name").s, f, 0, SIZE_MAX, NULL,
                                 &name)) ||
        (rc = check_name(ld, json_path_key(path, "name").s, name)))
        return rc;
    if (!(s->name = strdup(name)))
        return load_nomem(ld);
    if ((rc = json_reader_get(&ld->r, path, v, "dtype", true, &f)) ||
        (rc = json_reader_string(&ld->r, json_path_key(path, "dtype").s, f, 0, SIZE_MAX, NULL,
                                 &dtype)))
        return rc;
    s->dtype = dtype_parse(dtype);
    if (!is_scalar_dtype(s->dtype))
        return json_reader_fail(
            &ld->r, BW_ERR_INVALID, json_path_key(path, "dtype").s,
            "%s is not a scalar dtype (expected fp32, fp64, int32, int64, uint32 or uint64)",
            json_quote(dtype).s);
    if ((rc = json_reader_get(&ld->r, path, v, "value", true, &f)) ||
        (rc = json_reader_number(&ld->r, json_path_key(path, "value").s, f, -HUGE_VAL, HUGE_VAL,
                                 &s->value)))
        return rc;
    return check_scalar_value(ld, json_path_key(path, "value").s, s->dtype, s->value);
}

static int load_scalars(struct loader *ld, json_t *v)
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
        return load_nomem(ld);
    p->n_scalars = n;
    for (size_t i = 0; i < n; i++)
        if ((rc = load_scalar(ld, json_path_at("scalars", "[%zu]", i).s, json_array_get(v, i),
                              &p->scalars[i])))
            return rc;
    return 0;
}

static const char *const tolerance_keys[] = {"exact", "atol", "rtol", "acc", NULL};

/* atol or rtol: a number >= 0 or an expression of the sizes (checked >= 0 per case). */
static int load_tol_term(struct loader *ld, const char *path, json_t *v, struct expr **out)
{
    if (json_is_number(v) && json_number_value(v) < 0)
        return json_reader_fail(&ld->r, BW_ERR_INVALID, path,
                                "%s is negative (expected a number >= 0)", json_show(v).s);
    return as_expr(ld, path, v, true, out);
}

static int load_tolerance(struct loader *ld, const char *path, json_t *v, struct tensor_spec *t)
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

static const char *const tensor_keys[] = {"name", "dtype", "shape", "role", "tolerance", NULL};

static int load_tensor(struct loader *ld, const char *path, json_t *v, struct tensor_spec *t)
{
    const char *name = NULL, *dtype = NULL, *role = NULL;
    json_t *f;
    int rc;

    if ((rc = json_reader_object(&ld->r, path, v)) ||
        (rc = json_reader_only_keys(&ld->r, path, v, tensor_keys)))
        return rc;
    if ((rc = json_reader_get(&ld->r, path, v, "name", true, &f)) ||
        (rc = json_reader_string(&ld->r, json_path_key(path, "name").s, f, 0, SIZE_MAX, NULL,
                                 &name)) ||
        (rc = check_name(ld, json_path_key(path, "name").s, name)))
        return rc;
    if (!(t->name = strdup(name)))
        return load_nomem(ld);

    if ((rc = json_reader_get(&ld->r, path, v, "dtype", true, &f)) ||
        (rc = json_reader_string(&ld->r, json_path_key(path, "dtype").s, f, 0, SIZE_MAX, NULL,
                                 &dtype)))
        return rc;
    t->dtype = dtype_parse(dtype);
    if (t->dtype == DTYPE_INVALID)
        return json_reader_fail(&ld->r, BW_ERR_INVALID, json_path_key(path, "dtype").s,
                                "unknown dtype %s (expected one of %s)", json_quote(dtype).s,
                                dtype_all_names());

    if ((rc = json_reader_get(&ld->r, path, v, "role", true, &f)) ||
        (rc = json_reader_string(&ld->r, json_path_key(path, "role").s, f, 0, SIZE_MAX, NULL,
                                 &role)))
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
        if ((rc = as_expr(ld, json_path_at(sp.s, "[%d]", d).s, json_array_get(f, (size_t)d), false,
                          &t->shape[d])))
            return rc;

    if ((rc = json_reader_get(&ld->r, path, v, "tolerance", false, &f)))
        return rc;
    if (f && t->role == ROLE_IN)
        return json_reader_fail(
            &ld->r, BW_ERR_INVALID, json_path_key(path, "tolerance").s,
            "only outputs (role \"out\" or \"inout\") have a tolerance; %s is an input", t->name);
    if (f && (rc = load_tolerance(ld, json_path_key(path, "tolerance").s, f, t)))
        return rc;
    if (t->role != ROLE_IN && !dtype_is_float(t->dtype))
        t->tol.exact = true;
    return 0;
}

static struct json_list tensor_list(const struct problem *p, bool inputs_only)
{
    const char *names[BW_MAX_TENSORS];
    size_t n = 0;

    for (size_t i = 0; i < p->n_tensors; i++)
        if (!inputs_only || p->tensors[i].role != ROLE_OUT)
            names[n++] = p->tensors[i].name;
    return json_join(names, n);
}

static int load_tensors(struct loader *ld, json_t *v)
{
    struct problem *p = ld->p;
    bool has_out = false;
    size_t n;
    int rc;

    if ((rc = json_reader_array(&ld->r, "tensors", v, 1, BW_MAX_TENSORS, "BW_MAX_TENSORS")))
        return rc;
    n = json_array_size(v);
    if (!(p->tensors = calloc(n, sizeof(*p->tensors))))
        return load_nomem(ld);
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

/* ---- data profiles ------------------------------------------------------------------------ */

#define MODIFIER_KEYS "row_offset", "spike", "specials"

static const char *const uniform_keys[] = {"dist", "lo", "hi", MODIFIER_KEYS, NULL};
static const char *const normal_keys[] = {"dist", "mean", "std", MODIFIER_KEYS, NULL};
static const char *const loguniform_keys[] = {"dist", "lo", "hi", "signed", MODIFIER_KEYS, NULL};
static const char *const const_keys[] = {"dist", "value", MODIFIER_KEYS, NULL};
static const char *const randint_keys[] = {"dist", "lo", "hi", NULL};
static const char *const neg_keys[] = {"dist", "of", NULL};
static const char *const row_offset_keys[] = {"lo", "hi", NULL};
static const char *const special_keys[] = {"value", "fraction", NULL};

#define DIST_NEG 0 /* gen.kind of a "neg" until it is resolved to its source's kind */

static const struct {
    const char *name;
    uint32_t kind;
    const char *const *keys;
} dist_kinds[] = {
    {"uniform", GEN_UNIFORM, uniform_keys},          {"normal", GEN_NORMAL, normal_keys},
    {"loguniform", GEN_LOGUNIFORM, loguniform_keys}, {"const", GEN_CONST, const_keys},
    {"randint", GEN_RANDINT, randint_keys},          {"neg", DIST_NEG, neg_keys},
};

/* A number field of a distribution that must fit the tensor's dtype. */
static int dist_number(struct loader *ld, const char *path, json_t *obj, const char *key,
                       enum dtype t, double *out)
{
    json_t *f;
    int rc;

    if ((rc = json_reader_get(&ld->r, path, obj, key, true, &f)) ||
        (rc =
             json_reader_number(&ld->r, json_path_key(path, key).s, f, -HUGE_VAL, HUGE_VAL, out)) ||
        (rc = check_value_fits(ld, json_path_key(path, key).s, t, *out)))
        return rc;
    return 0;
}

/* lo and hi of a range, lo < hi. */
static int dist_range(struct loader *ld, const char *path, json_t *obj, enum dtype t, double *lo,
                      double *hi)
{
    int rc;

    if ((rc = dist_number(ld, path, obj, "lo", t, lo)) ||
        (rc = dist_number(ld, path, obj, "hi", t, hi)))
        return rc;
    if (!(*lo < *hi))
        return json_reader_fail(&ld->r, BW_ERR_INVALID, json_path_key(path, "hi").s,
                                "%g is not above lo %g (expected lo < hi)", *hi, *lo);
    return 0;
}

static int load_specials(struct loader *ld, const char *path, json_t *v, enum dtype t,
                         struct gen_spec *g)
{
    int rc;

    if ((rc = json_reader_array(&ld->r, path, v, 1, GEN_MAX_SPECIALS, "GEN_MAX_SPECIALS")))
        return rc;
    g->n_specials = (uint32_t)json_array_size(v);
    for (size_t i = 0; i < g->n_specials; i++) {
        struct json_path sp = json_path_at(path, "[%zu]", i);
        json_t *s = json_array_get(v, i), *f;
        double frac;

        if ((rc = json_reader_object(&ld->r, sp.s, s)) ||
            (rc = json_reader_only_keys(&ld->r, sp.s, s, special_keys)) ||
            (rc = json_reader_get(&ld->r, sp.s, s, "value", true, &f)) ||
            (rc = as_value(ld, json_path_key(sp.s, "value").s, f, &g->special_value[i])) ||
            (rc = check_value_fits(ld, json_path_key(sp.s, "value").s, t, g->special_value[i])) ||
            (rc = json_reader_get(&ld->r, sp.s, s, "fraction", true, &f)) ||
            (rc = json_reader_number(&ld->r, json_path_key(sp.s, "fraction").s, f, -HUGE_VAL,
                                     HUGE_VAL, &frac)))
            return rc;
        if (frac < 0 || frac > 1)
            return json_reader_fail(&ld->r, BW_ERR_INVALID, json_path_key(sp.s, "fraction").s,
                                    "%g is out of range (expected 0..1)", frac);
        g->special_fraction[i] = frac;
    }
    return 0;
}

/* row_offset, spike, specials: float tensors only. */
static int load_modifiers(struct loader *ld, const char *path, json_t *v, enum dtype t,
                          struct gen_spec *g)
{
    json_t *row = json_object_get(v, "row_offset"), *spike = json_object_get(v, "spike"),
           *specials = json_object_get(v, "specials");
    int rc;

    if ((row || spike || specials) && !dtype_is_float(t))
        return json_reader_fail(&ld->r, BW_ERR_INVALID,
                                json_path_key(path, row     ? "row_offset"
                                                    : spike ? "spike"
                                                            : "specials")
                                    .s,
                                "modifiers need a float tensor (the tensor is %s)", dtype_name(t));
    if (row) {
        struct json_path rp = json_path_key(path, "row_offset");
        if ((rc = json_reader_object(&ld->r, rp.s, row)) ||
            (rc = json_reader_only_keys(&ld->r, rp.s, row, row_offset_keys)) ||
            (rc = dist_range(ld, rp.s, row, t, &g->row_lo, &g->row_hi)))
            return rc;
        g->flags |= GEN_ROW_OFFSET;
    }
    if (spike) {
        struct json_path kp = json_path_key(path, "spike");
        if ((rc = as_value(ld, kp.s, spike, &g->spike)) ||
            (rc = check_value_fits(ld, kp.s, t, g->spike)))
            return rc;
        g->flags |= GEN_SPIKE;
    }
    if (specials && (rc = load_specials(ld, json_path_key(path, "specials").s, specials, t, g)))
        return rc;
    return 0;
}

/* One tensor's distribution in one profile; "neg" is resolved later. */
static int load_dist(struct loader *ld, const char *path, json_t *v, size_t ti, struct dist_spec *d)
{
    const struct problem *p = ld->p;
    const struct tensor_spec *t = &p->tensors[ti];
    struct gen_spec *g = &d->gen;
    const char *kind_name = NULL;
    size_t k, nk = sizeof(dist_kinds) / sizeof(dist_kinds[0]);
    json_t *f;
    int rc;

    if ((rc = json_reader_object(&ld->r, path, v)) ||
        (rc = json_reader_get(&ld->r, path, v, "dist", true, &f)) ||
        (rc = json_reader_string(&ld->r, json_path_key(path, "dist").s, f, 0, SIZE_MAX, NULL,
                                 &kind_name)))
        return rc;
    for (k = 0; k < nk; k++)
        if (strcmp(kind_name, dist_kinds[k].name) == 0)
            break;
    if (k == nk)
        return json_reader_fail(
            &ld->r, BW_ERR_INVALID, json_path_key(path, "dist").s,
            "unknown distribution %s (expected uniform, normal, loguniform, const, "
            "randint or neg)",
            json_quote(kind_name).s);
    if ((rc = json_reader_only_keys(&ld->r, path, v, dist_kinds[k].keys)))
        return rc;
    g->kind = dist_kinds[k].kind;
    g->dtype = (uint32_t)t->dtype;
    g->stream = (uint32_t)ti;
    d->set = true;

    switch (g->kind) {
    case GEN_UNIFORM:
    case GEN_NORMAL:
    case GEN_LOGUNIFORM:
        if (!dtype_is_float(t->dtype))
            return json_reader_fail(&ld->r, BW_ERR_INVALID, json_path_key(path, "dist").s,
                                    "\"%s\" needs a float tensor; %s is %s (use randint or const)",
                                    kind_name, t->name, dtype_name(t->dtype));
        break;
    case GEN_RANDINT:
        if (dtype_is_float(t->dtype))
            return json_reader_fail(&ld->r, BW_ERR_INVALID, json_path_key(path, "dist").s,
                                    "\"randint\" needs an integer tensor; %s is %s", t->name,
                                    dtype_name(t->dtype));
        break;
    case DIST_NEG:
        if (!dtype_is_float(t->dtype))
            return json_reader_fail(&ld->r, BW_ERR_INVALID, json_path_key(path, "dist").s,
                                    "\"neg\" needs a float tensor; %s is %s", t->name,
                                    dtype_name(t->dtype));
        break;
    }

    switch (g->kind) {
    case GEN_UNIFORM:
        if ((rc = dist_range(ld, path, v, t->dtype, &g->a, &g->b)))
            return rc;
        break;
    case GEN_NORMAL:
        if ((rc = dist_number(ld, path, v, "mean", t->dtype, &g->a)) ||
            (rc = dist_number(ld, path, v, "std", t->dtype, &g->b)))
            return rc;
        if (!(g->b > 0))
            return json_reader_fail(&ld->r, BW_ERR_INVALID, json_path_key(path, "std").s,
                                    "%g is not positive (expected std > 0)", g->b);
        break;
    case GEN_LOGUNIFORM:
        if ((rc = dist_range(ld, path, v, t->dtype, &g->a, &g->b)))
            return rc;
        if (!(g->a > 0))
            return json_reader_fail(&ld->r, BW_ERR_INVALID, json_path_key(path, "lo").s,
                                    "%g is not positive (expected 0 < lo < hi)", g->a);
        if ((f = json_object_get(v, "signed"))) {
            bool sign = false;
            if ((rc = json_reader_bool(&ld->r, json_path_key(path, "signed").s, f, &sign)))
                return rc;
            if (sign)
                g->flags |= GEN_SIGNED;
        }
        break;
    case GEN_CONST:
        if ((rc = json_reader_get(&ld->r, path, v, "value", true, &f)) ||
            (rc = as_value(ld, json_path_key(path, "value").s, f, &g->a)) ||
            (rc = check_value_fits(ld, json_path_key(path, "value").s, t->dtype, g->a)))
            return rc;
        break;
    case GEN_RANDINT:
        if ((rc = json_reader_get(&ld->r, path, v, "lo", true, &f)) ||
            (rc = as_expr(ld, json_path_key(path, "lo").s, f, false, &d->ilo)) ||
            (rc = json_reader_get(&ld->r, path, v, "hi", true, &f)) ||
            (rc = as_expr(ld, json_path_key(path, "hi").s, f, false, &d->ihi)))
            return rc;
        return 0;
    case DIST_NEG: {
        const char *of = NULL;
        int src;
        if ((rc = json_reader_get(&ld->r, path, v, "of", true, &f)) ||
            (rc = json_reader_string(&ld->r, json_path_key(path, "of").s, f, 0, SIZE_MAX, NULL,
                                     &of)))
            return rc;
        src = problem_tensor_index(p, of);
        if (src < 0)
            return json_reader_fail(&ld->r, BW_ERR_INVALID, json_path_key(path, "of").s,
                                    "unknown tensor %s (inputs are %s)", json_quote(of).s,
                                    tensor_list(p, true).s);
        if (p->tensors[src].role == ROLE_OUT)
            return json_reader_fail(&ld->r, BW_ERR_INVALID, json_path_key(path, "of").s,
                                    "%s is an output (expected an input tensor)", json_quote(of).s);
        if ((size_t)src == ti)
            return json_reader_fail(&ld->r, BW_ERR_INVALID, json_path_key(path, "of").s,
                                    "%s cannot be the neg of itself", json_quote(of).s);
        d->neg_of = src;
        return 0;
    }
    }
    return load_modifiers(ld, path, v, t->dtype, g);
}

/* Replaces each "neg" by its source's spec, negated, on the source's stream. */
static int resolve_negs(struct loader *ld, const char *path, struct data_profile *prof)
{
    const struct problem *p = ld->p;

    for (size_t t = 0; t < p->n_tensors; t++) {
        struct dist_spec *d = &prof->dists[t];
        const struct dist_spec *s;
        const struct tensor_spec *src;
        struct json_path tp;

        if (!d->set || d->neg_of < 0)
            continue;
        tp = json_path_at(path, ".%s.of", p->tensors[t].name);
        s = &prof->dists[d->neg_of];
        src = &p->tensors[d->neg_of];
        if (s->neg_of >= 0)
            return json_reader_fail(&ld->r, BW_ERR_INVALID, tp.s,
                                    "%s is itself a \"neg\" (expected a generated tensor)",
                                    src->name);
        if (!dtype_is_float(src->dtype) || src->dtype != p->tensors[t].dtype)
            return json_reader_fail(&ld->r, BW_ERR_INVALID, tp.s,
                                    "%s is %s but %s is %s (\"neg\" needs the same float dtype)",
                                    src->name, dtype_name(src->dtype), p->tensors[t].name,
                                    dtype_name(p->tensors[t].dtype));
        d->gen = s->gen;
        d->gen.flags |= GEN_NEGATE;
        d->gen.stream = (uint32_t)d->neg_of;
        d->gen.dtype = (uint32_t)p->tensors[t].dtype;
    }
    return 0;
}

static int load_profile(struct loader *ld, const char *name, json_t *v, struct data_profile *prof)
{
    struct problem *p = ld->p;
    struct json_path path;
    const char *tname;
    json_t *dv;
    int rc;

    if (!is_profile_name(name))
        return json_reader_fail(
            &ld->r, BW_ERR_INVALID, "data",
            "profile name %s is not valid (expected letters, digits, _ and -, at most "
            "%d bytes)",
            json_quote(name).s, BW_MAX_NAME);
    path = json_path_at("data", ".%s", name);
    for (struct data_profile *q = p->profiles; q < prof; q++)
        if (strcmp(q->name, name) == 0)
            return json_reader_fail(&ld->r, BW_ERR_INVALID, path.s, "duplicate profile name");
    if (!(prof->name = strdup(name)))
        return load_nomem(ld);
    if (!(prof->dists = calloc(p->n_tensors, sizeof(*prof->dists))))
        return load_nomem(ld);
    for (size_t t = 0; t < p->n_tensors; t++)
        prof->dists[t].neg_of = -1;
    if ((rc = json_reader_object(&ld->r, path.s, v)))
        return rc;
    json_object_foreach (v, tname, dv) {
        int t = problem_tensor_index(p, tname);
        if (t < 0)
            return json_reader_fail(&ld->r, BW_ERR_INVALID, path.s,
                                    "unknown tensor %s (inputs are %s)", json_quote(tname).s,
                                    tensor_list(p, true).s);
        if (p->tensors[t].role == ROLE_OUT)
            return json_reader_fail(&ld->r, BW_ERR_INVALID, json_path_at(path.s, ".%s", tname).s,
                                    "%s is an output; only inputs (role \"in\" or \"inout\") get a "
                                    "distribution",
                                    tname);
        if ((rc = load_dist(ld, json_path_at(path.s, ".%s", tname).s, dv, (size_t)t,
                            &prof->dists[t])))
            return rc;
    }
    for (size_t t = 0; t < p->n_tensors; t++)
        if (p->tensors[t].role != ROLE_OUT && !prof->dists[t].set)
            return json_reader_fail(
                &ld->r, BW_ERR_INVALID, path.s,
                "no distribution for input %s (every input needs one in every profile)",
                p->tensors[t].name);
    return resolve_negs(ld, path.s, prof);
}

static int load_profiles(struct loader *ld, json_t *v)
{
    struct problem *p = ld->p;
    const char *name;
    json_t *pv;
    size_t i = 0, n;
    int rc;

    if ((rc = json_reader_object(&ld->r, "data", v)))
        return rc;
    n = json_object_size(v);
    if (n == 0)
        return json_reader_fail(&ld->r, BW_ERR_INVALID, "data",
                                "no profiles (expected at least one)");
    if (n > BW_MAX_PROFILES)
        return json_reader_fail(&ld->r, BW_ERR_LIMIT, "data",
                                "%zu profiles, over the limit of %d (BW_MAX_PROFILES)", n,
                                BW_MAX_PROFILES);
    if (!(p->profiles = calloc(n, sizeof(*p->profiles))))
        return load_nomem(ld);
    p->n_profiles = n;
    json_object_foreach (v, name, pv) {
        if ((rc = load_profile(ld, name, pv, &p->profiles[i])))
            return rc;
        i++;
    }
    return 0;
}

static int profile_index(const struct problem *p, const char *name)
{
    for (size_t i = 0; i < p->n_profiles; i++)
        if (strcmp(p->profiles[i].name, name) == 0)
            return (int)i;
    return -1;
}

/* ---- tests and benchmarks ------------------------------------------------------------------ */

static const char *const case_keys[] = {"name", "sizes", "data", "scalars", NULL};

/* One test or benchmark entry, before expansion. */
struct entry {
    const char *name; /* borrowed from the JSON; NULL: auto names */
    int profile;
    double scalars[BW_MAX_SCALARS];
    json_t *values[BW_MAX_SIZES]; /* object form: per size, an integer or an array */
    json_t *rows;                 /* array form: the array of {size: value} objects */
    size_t count;                 /* cases it expands to */
};

/* A size value: an integer >= 1. */
static int size_value(struct loader *ld, const char *path, json_t *v, int64_t *out)
{
    return json_reader_int(&ld->r, path, v, 1, INT64_MAX, out);
}

/* Every size name present, no unknown ones. */
static int check_size_keys(struct loader *ld, const char *path, json_t *obj)
{
    const struct problem *p = ld->p;
    const char *key;
    json_t *v;

    json_object_foreach (obj, key, v) {
        if (problem_size_index(p, key) < 0)
            return json_reader_fail(&ld->r, BW_ERR_INVALID, path, "unknown size %s (sizes are %s)",
                                    json_quote(key).s, size_list(p).s);
    }
    for (size_t k = 0; k < p->n_sizes; k++)
        if (!json_object_get(obj, p->size_names[k]))
            return json_reader_fail(&ld->r, BW_ERR_INVALID, path, "missing size \"%s\"",
                                    p->size_names[k]);
    return 0;
}

static int load_entry_sizes(struct loader *ld, const char *path, json_t *v, size_t max,
                            struct entry *e)
{
    const struct problem *p = ld->p;
    int64_t x;
    int rc;

    if (json_is_array(v)) {
        if ((rc = json_reader_array(&ld->r, path, v, 1, max,
                                    max == BW_MAX_CASES ? "BW_MAX_CASES" : "BW_MAX_BENCHMARKS")))
            return rc;
        for (size_t i = 0; i < json_array_size(v); i++) {
            struct json_path rp = json_path_at(path, "[%zu]", i);
            json_t *row = json_array_get(v, i);
            if ((rc = json_reader_object(&ld->r, rp.s, row)) ||
                (rc = check_size_keys(ld, rp.s, row)))
                return rc;
            for (size_t k = 0; k < p->n_sizes; k++)
                if ((rc = size_value(ld, json_path_key(rp.s, p->size_names[k]).s,
                                     json_object_get(row, p->size_names[k]), &x)))
                    return rc;
        }
        e->rows = v;
        e->count = json_array_size(v);
        return 0;
    }
    if (!json_is_object(v))
        return json_reader_fail(&ld->r, BW_ERR_INVALID, path,
                                "expected an object of sizes or an array of them, got %s",
                                json_show(v).s);
    if ((rc = check_size_keys(ld, path, v)))
        return rc;
    e->count = 1;
    for (size_t k = 0; k < p->n_sizes; k++) {
        struct json_path kp = json_path_key(path, p->size_names[k]);
        json_t *sv = json_object_get(v, p->size_names[k]);
        if (json_is_array(sv)) {
            if ((rc =
                     json_reader_array(&ld->r, kp.s, sv, 1, max,
                                       max == BW_MAX_CASES ? "BW_MAX_CASES" : "BW_MAX_BENCHMARKS")))
                return rc;
            for (size_t i = 0; i < json_array_size(sv); i++)
                if ((rc = size_value(ld, json_path_at(kp.s, "[%zu]", i).s, json_array_get(sv, i),
                                     &x)))
                    return rc;
            e->count *= json_array_size(sv);
            if (e->count > max)
                return json_reader_fail(&ld->r, BW_ERR_LIMIT, path,
                                        "the lists expand to more than %zu cases (%s)", max,
                                        max == BW_MAX_CASES ? "BW_MAX_CASES" : "BW_MAX_BENCHMARKS");
        } else if ((rc = size_value(ld, kp.s, sv, &x))) {
            return rc;
        }
        e->values[k] = sv;
    }
    return 0;
}

static int load_entry(struct loader *ld, const char *path, json_t *v, bool bench, size_t max,
                      struct entry *e)
{
    const struct problem *p = ld->p;
    const char *data = NULL, *key;
    json_t *f, *sv;
    int rc;

    if ((rc = json_reader_object(&ld->r, path, v)) ||
        (rc = json_reader_only_keys(&ld->r, path, v, case_keys)))
        return rc;
    if ((rc = json_reader_get(&ld->r, path, v, "name", bench, &f)))
        return rc;
    if (f) {
        if ((rc = json_reader_string(&ld->r, json_path_key(path, "name").s, f, 0, SIZE_MAX, NULL,
                                     &e->name)))
            return rc;
        if (!is_case_name(e->name))
            return json_reader_fail(
                &ld->r, BW_ERR_INVALID, json_path_key(path, "name").s,
                "%s is not a valid case name (1..%d bytes, no control characters, no "
                "leading or trailing space)",
                json_quote(e->name).s, BW_MAX_NAME);
    }
    if ((rc = json_reader_get(&ld->r, path, v, "data", true, &f)) ||
        (rc = json_reader_string(&ld->r, json_path_key(path, "data").s, f, 0, SIZE_MAX, NULL,
                                 &data)))
        return rc;
    e->profile = profile_index(p, data);
    if (e->profile < 0) {
        const char *names[BW_MAX_PROFILES];
        for (size_t i = 0; i < p->n_profiles; i++)
            names[i] = p->profiles[i].name;
        return json_reader_fail(&ld->r, BW_ERR_INVALID, json_path_key(path, "data").s,
                                "unknown data profile %s (profiles are %s)", json_quote(data).s,
                                json_join(names, p->n_profiles).s);
    }
    for (size_t s = 0; s < p->n_scalars; s++)
        e->scalars[s] = p->scalars[s].value;
    if ((rc = json_reader_get(&ld->r, path, v, "scalars", false, &f)))
        return rc;
    if (f) {
        struct json_path sp = json_path_key(path, "scalars");
        if ((rc = json_reader_object(&ld->r, sp.s, f)))
            return rc;
        json_object_foreach (f, key, sv) {
            int s = problem_scalar_index(p, key);
            struct json_path kp = json_path_key(sp.s, key);
            if (s < 0) {
                const char *names[BW_MAX_SCALARS];
                for (size_t i = 0; i < p->n_scalars; i++)
                    names[i] = p->scalars[i].name;
                if (p->n_scalars == 0)
                    return json_reader_fail(&ld->r, BW_ERR_INVALID, sp.s,
                                            "unknown scalar %s (the problem has no scalars)",
                                            json_quote(key).s);
                return json_reader_fail(&ld->r, BW_ERR_INVALID, sp.s,
                                        "unknown scalar %s (scalars are %s)", json_quote(key).s,
                                        json_join(names, p->n_scalars).s);
            }
            if ((rc = json_reader_number(&ld->r, kp.s, sv, -HUGE_VAL, HUGE_VAL, &e->scalars[s])) ||
                (rc = check_scalar_value(ld, kp.s, p->scalars[s].dtype, e->scalars[s])))
                return rc;
        }
    }
    if ((rc = json_reader_get(&ld->r, path, v, "sizes", true, &f)))
        return rc;
    return load_entry_sizes(ld, json_path_key(path, "sizes").s, f, max, e);
}

/* Case `i` of entry e: its sizes (odometer over the lists, last size fastest). */
static void entry_sizes(const struct problem *p, const struct entry *e, size_t i, int64_t *sizes)
{
    if (e->rows) {
        json_t *row = json_array_get(e->rows, i);
        for (size_t k = 0; k < p->n_sizes; k++)
            sizes[k] = (int64_t)json_integer_value(json_object_get(row, p->size_names[k]));
        return;
    }
    for (size_t k = p->n_sizes; k-- > 0;) {
        json_t *v = e->values[k];
        if (json_is_array(v)) {
            size_t n = json_array_size(v);
            sizes[k] = (int64_t)json_integer_value(json_array_get(v, i % n));
            i /= n;
        } else {
            sizes[k] = (int64_t)json_integer_value(v);
        }
    }
}

/* "N=127", "M=7,N=33", or "name M=7,N=33" / "name" for named entries. */
static char *case_name(const struct problem *p, const struct entry *e, const int64_t *sizes)
{
    struct buf b;

    buf_init(&b, 4096);
    if (e->name && buf_puts(&b, e->name) < 0)
        goto release;
    if (e->name && e->count == 1)
        return buf_detach(&b);
    if (e->name && buf_putc(&b, ' ') < 0)
        goto release;
    for (size_t k = 0; k < p->n_sizes; k++)
        if (buf_addf(&b, "%s%s=%lld", k ? "," : "", p->size_names[k], (long long)sizes[k]) < 0)
            goto release;
    return buf_detach(&b);
release:
    buf_release(&b);
    return NULL;
}

static int load_cases(struct loader *ld, const char *fieldname, json_t *v, bool bench,
                      struct problem_case **out, size_t *n_out, size_t *entry_of)
{
    const struct problem *p = ld->p;
    size_t max = bench ? BW_MAX_BENCHMARKS : BW_MAX_CASES;
    const char *limit = bench ? "BW_MAX_BENCHMARKS" : "BW_MAX_CASES";
    size_t n_entries, total = 0;
    struct entry *entries;
    int rc = 0;

    if ((rc = json_reader_array(&ld->r, fieldname, v, 1, max, limit)))
        return rc;
    n_entries = json_array_size(v);
    if (!(entries = calloc(n_entries, sizeof(*entries))))
        return load_nomem(ld);
    for (size_t i = 0; i < n_entries; i++) {
        if ((rc = load_entry(ld, json_path_at(fieldname, "[%zu]", i).s, json_array_get(v, i), bench,
                             max, &entries[i])))
            goto free_entries;
        total += entries[i].count;
        if (total > max) {
            rc = json_reader_fail(&ld->r, BW_ERR_LIMIT, fieldname,
                                  "more than %zu cases after expansion (%s)", max, limit);
            goto free_entries;
        }
    }
    if (!(*out = calloc(total, sizeof(**out)))) {
        rc = load_nomem(ld);
        goto free_entries;
    }
    *n_out = total;
    for (size_t i = 0, c = 0; i < n_entries; i++) {
        for (size_t j = 0; j < entries[i].count; j++, c++) {
            struct problem_case *pc = &(*out)[c];
            entry_sizes(p, &entries[i], j, pc->sizes);
            memcpy(pc->scalars, entries[i].scalars, sizeof(pc->scalars));
            pc->profile = entries[i].profile;
            entry_of[c] = i;
            if (!(pc->name = case_name(p, &entries[i], pc->sizes))) {
                rc = load_nomem(ld);
                goto free_entries;
            }
            for (size_t d = 0; d < c; d++)
                if (strcmp((*out)[d].name, pc->name) == 0) {
                    rc = json_reader_fail(
                        &ld->r, BW_ERR_INVALID, json_path_at(fieldname, "[%zu]", i).s,
                        "case name %s repeats one of %s[%zu] (give the entry a distinct "
                        "\"name\")",
                        json_quote(pc->name).s, fieldname, entry_of[d]);
                    goto free_entries;
                }
        }
    }
free_entries:
    free(entries);
    return rc;
}

/* ---- formulas, peak, limits ----------------------------------------------------------- */

static int load_formulas(struct loader *ld, json_t *root)
{
    struct problem *p = ld->p;
    const char *peak = NULL;
    json_t *f, *lim;
    int rc;

    if ((rc = json_reader_get(&ld->r, "", root, "bytes", true, &f)) ||
        (rc = as_formula(ld, "bytes", f, &p->bytes)) ||
        (rc = json_reader_get(&ld->r, "", root, "flops", true, &f)) ||
        (rc = as_formula(ld, "flops", f, &p->flops)))
        return rc;
    if ((rc = json_reader_get(&ld->r, "", root, "peak", true, &f)) ||
        (rc = json_reader_string(&ld->r, "peak", f, 0, SIZE_MAX, NULL, &peak)))
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
        (rc = as_expr(ld, "limits.scratch_bytes", f, false, &p->scratch_bytes)))
        return rc;
    return 0;
}

/* ---- per-case checks --------------------------------------------------------------------- */

/* "[2, 3]" */
static struct json_shown dims_text(const int64_t *dims, int ndim)
{
    struct json_shown r;
    size_t o = 0;

    r.s[o++] = '[';
    for (int d = 0; d < ndim; d++) {
        int w = snprintf(r.s + o, sizeof(r.s) - o, "%s%lld", d ? ", " : "", (long long)dims[d]);
        if (w < 0 || (size_t)w >= sizeof(r.s) - o - 1)
            break;
        o += (size_t)w;
    }
    r.s[o++] = ']';
    r.s[o] = '\0';
    return r;
}

/* Runs every per-case helper once, so judging cannot fail on this case later. */
static int check_case(struct loader *ld, const char *path, const struct problem_case *c, bool bench)
{
    const struct problem *p = ld->p;
    struct expr_binding vars[BW_MAX_SIZES];
    struct expr_scope scope;
    uint64_t case_bytes = 0, ref_bytes = 0;
    char *inner = NULL;
    int rc;

    problem_case_scope(p, c, vars, &scope);
    for (size_t t = 0; t < p->n_tensors; t++) {
        const struct tensor_spec *ts = &p->tensors[t];
        int64_t count, bytes;
        if ((rc = problem_tensor_count(p, t, c, &count, &inner)))
            goto inner_fail;
        if (!i64_mul(count, (int64_t)dtype_size(ts->dtype), &bytes) ||
            (uint64_t)bytes > BW_MAX_TENSOR_BYTES)
            return json_reader_fail(&ld->r, BW_ERR_LIMIT, path,
                                    "case %s: tensor %s has %lld elements, over the limit of %llu "
                                    "bytes (BW_MAX_TENSOR_BYTES)",
                                    json_quote(c->name).s, ts->name, (long long)count,
                                    (unsigned long long)BW_MAX_TENSOR_BYTES);
        case_bytes += (uint64_t)bytes;
        /* the reference holds outputs as 8-byte values, plus the acc scale tensors */
        if (ts->role == ROLE_IN)
            ref_bytes += (uint64_t)bytes;
        else
            ref_bytes += (uint64_t)count * 8 * (ts->tol.acc > 0 ? 2 : 1);
        if (case_bytes > BW_MAX_CASE_BYTES)
            return json_reader_fail(
                &ld->r, BW_ERR_LIMIT, path,
                "case %s: the tensors need more than %llu bytes (BW_MAX_CASE_BYTES)",
                json_quote(c->name).s, (unsigned long long)BW_MAX_CASE_BYTES);
        if (ref_bytes > BW_MAX_CASE_BYTES)
            return json_reader_fail(
                &ld->r, BW_ERR_LIMIT, path,
                "case %s: the reference's buffers (fp64 outputs and scales) need "
                "more than %llu bytes (BW_MAX_CASE_BYTES)",
                json_quote(c->name).s, (unsigned long long)BW_MAX_CASE_BYTES);
    }
    for (size_t t = 0; t < p->n_tensors; t++) {
        const struct tensor_spec *ts = &p->tensors[t];
        const struct dist_spec *d = &p->profiles[c->profile].dists[t];
        struct gen_spec g;
        double atol, rtol;

        if (ts->role != ROLE_OUT && (rc = problem_gen_spec(p, t, c, &g, &inner)))
            goto inner_fail;
        if (ts->role != ROLE_OUT && d->neg_of >= 0) {
            int64_t a[BW_MAX_DIMS], b[BW_MAX_DIMS];
            const struct tensor_spec *src = &p->tensors[d->neg_of];
            if ((rc = problem_tensor_shape(p, t, c, a, &inner)) ||
                (rc = problem_tensor_shape(p, (size_t)d->neg_of, c, b, &inner)))
                goto inner_fail;
            if (ts->ndim != src->ndim || memcmp(a, b, sizeof(a[0]) * (size_t)ts->ndim) != 0)
                return json_reader_fail(
                    &ld->r, BW_ERR_INVALID, path,
                    "case %s: %s is the neg of %s in profile \"%s\" but their shapes "
                    "differ (%s vs %s)",
                    json_quote(c->name).s, ts->name, src->name, p->profiles[c->profile].name,
                    dims_text(a, ts->ndim).s, dims_text(b, src->ndim).s);
        }
        if (ts->role != ROLE_IN && (rc = problem_tolerance(p, t, c, &atol, &rtol, &inner)))
            goto inner_fail;
    }
    if (p->scratch_bytes) {
        int64_t s;
        if ((rc = expr_eval_int(p->scratch_bytes, &scope, &s, &inner))) {
            bw_wrap(&inner, rc, "limits.scratch_bytes %s",
                    json_quote(expr_text(p->scratch_bytes)).s);
            goto inner_fail;
        }
        if (s < 0)
            return json_reader_fail(&ld->r, BW_ERR_INVALID, path,
                                    "case %s: limits.scratch_bytes is %lld (expected >= 0)",
                                    json_quote(c->name).s, (long long)s);
    }
    if (bench) {
        struct expr_binding fvars[BW_MAX_SIZES + BW_MAX_SCALARS];
        struct expr_scope fscope;
        double bytes, flops;
        problem_formula_scope(p, c, fvars, &fscope);
        if ((rc = expr_eval_real(p->bytes, &fscope, &bytes, &inner))) {
            bw_wrap(&inner, rc, "bytes %s", json_quote(expr_text(p->bytes)).s);
            goto inner_fail;
        }
        if ((rc = expr_eval_real(p->flops, &fscope, &flops, &inner))) {
            bw_wrap(&inner, rc, "flops %s", json_quote(expr_text(p->flops)).s);
            goto inner_fail;
        }
        if (!isfinite(bytes) || bytes < 0 || !isfinite(flops) || flops < 0)
            return json_reader_fail(&ld->r, BW_ERR_INVALID, path,
                                    "case %s: bytes (%g) and flops (%g) must be finite and >= 0",
                                    json_quote(c->name).s, bytes, flops);
        if (bytes == 0 && flops == 0)
            return json_reader_fail(&ld->r, BW_ERR_INVALID, path,
                                    "case %s: bytes and flops are both 0 (nothing to score)",
                                    json_quote(c->name).s);
    }
    return 0;

inner_fail:
    rc = json_reader_fail(&ld->r, rc, path, "case %s: %s", json_quote(c->name).s,
                          inner ? inner : "failed");
    free(inner);
    return rc;
}

/* ---- learning goals ----------------------------------------------------------------------- */

static const char *const goal_kind_names[] = {"autotune", "rebuild",  "sass", "bandwidth",
                                              "compare",  "roofline", NULL};

const char *goal_kind_name(enum goal_kind k)
{
    if ((size_t)k < sizeof(goal_kind_names) / sizeof(goal_kind_names[0]) - 1)
        return goal_kind_names[k];
    return "?";
}

#define GOAL_COMMON_KEYS "kind", "name", "description"

static const char *const autotune_keys[] = {GOAL_COMMON_KEYS, "min_configs", "min_gain", NULL};
static const char *const rebuild_keys[] = {GOAL_COMMON_KEYS, "const", "min_speedup", "shapes",
                                           NULL};
static const char *const sass_keys[] = {GOAL_COMMON_KEYS, "require", "kernels", NULL};
static const char *const bandwidth_keys[] = {GOAL_COMMON_KEYS, "bytes", "min_pct", "shapes", NULL};
static const char *const compare_keys[] = {GOAL_COMMON_KEYS, "pairs", "min_speedup", NULL};
static const char *const roofline_keys[] = {GOAL_COMMON_KEYS, "min_pct", "shapes", NULL};
static const char *const pair_keys[] = {"shape", "baseline", NULL};

static const char *const *const goal_keys[] = {autotune_keys,  rebuild_keys, sass_keys,
                                               bandwidth_keys, compare_keys, roofline_keys};

#define GOAL_DESCRIPTION_BYTES 1024 /* a goal's description */
#define MIN_PCT_MAX            1000 /* a bandwidth goal's min_pct, at most */

/* A SASS pattern: an opcode and its modifiers, "LDG.E.128": components of
 * [A-Z0-9_], the first starting with a letter, at most BW_MAX_NAME bytes. */
static bool is_sass_pattern(const char *s)
{
    size_t n = strlen(s);
    bool start = true;

    if (n == 0 || n > BW_MAX_NAME || !(s[0] >= 'A' && s[0] <= 'Z'))
        return false;
    for (; *s; s++) {
        if (*s == '.') {
            if (start)
                return false;
            start = true;
            continue;
        }
        if (!((*s >= 'A' && *s <= 'Z') || (*s >= '0' && *s <= '9') || *s == '_'))
            return false;
        start = false;
    }
    return !start;
}

static int bench_index(const struct problem *p, const char *name)
{
    for (size_t i = 0; i < p->n_benchmarks; i++)
        if (strcmp(p->benchmarks[i].name, name) == 0)
            return (int)i;
    return -1;
}

static struct json_list bench_list(const struct problem *p)
{
    const char *names[BW_MAX_BENCHMARKS];

    for (size_t i = 0; i < p->n_benchmarks; i++)
        names[i] = p->benchmarks[i].name;
    return json_join(names, p->n_benchmarks);
}

/* A benchmark case name (a string naming one of problem.benchmarks). */
static int as_bench(struct loader *ld, const char *path, json_t *v, size_t *out)
{
    const char *name = NULL;
    int b, rc;

    if ((rc = json_reader_string(&ld->r, path, v, 0, SIZE_MAX, NULL, &name)))
        return rc;
    b = bench_index(ld->p, name);
    if (b < 0)
        return json_reader_fail(&ld->r, BW_ERR_INVALID, path,
                                "unknown benchmark %s (benchmarks are %s)", json_quote(name).s,
                                bench_list(ld->p).s);
    *out = (size_t)b;
    return 0;
}

/* "shapes": benchmark names, each once; absent: every benchmark. */
static int load_goal_shapes(struct loader *ld, const char *path, json_t *goal, struct goal_spec *g)
{
    struct json_path sp = json_path_key(path, "shapes");
    json_t *v = json_object_get(goal, "shapes");
    int rc;

    if (!v) {
        for (size_t i = 0; i < ld->p->n_benchmarks; i++)
            g->shapes[i] = true;
        return 0;
    }
    if ((rc = json_reader_array(&ld->r, sp.s, v, 1, BW_MAX_BENCHMARKS, "BW_MAX_BENCHMARKS")))
        return rc;
    for (size_t i = 0; i < json_array_size(v); i++) {
        struct json_path ip = json_path_at(sp.s, "[%zu]", i);
        size_t b;
        if ((rc = as_bench(ld, ip.s, json_array_get(v, i), &b)))
            return rc;
        if (g->shapes[b])
            return json_reader_fail(&ld->r, BW_ERR_INVALID, ip.s, "benchmark %s is listed twice",
                                    json_quote(ld->p->benchmarks[b].name).s);
        g->shapes[b] = true;
    }
    return 0;
}

/* An optional (unless `required`) number above lo (at least lo when !lo_open), at most hi. */
static int goal_number(struct loader *ld, const char *path, json_t *goal, const char *key,
                       bool required, double lo, bool lo_open, double hi, double *out)
{
    struct json_path kp = json_path_key(path, key);
    json_t *f;
    int rc;

    if ((rc = json_reader_get(&ld->r, path, goal, key, required, &f)) || !f)
        return rc;
    if ((rc = json_reader_number(&ld->r, kp.s, f, -HUGE_VAL, HUGE_VAL, out)))
        return rc;
    if ((lo_open ? !(*out > lo) : !(*out >= lo)) || *out > hi)
        return json_reader_fail(&ld->r, BW_ERR_INVALID, kp.s,
                                "%g is out of range (expected %s %g and <= %g)", *out,
                                lo_open ? ">" : ">=", lo, hi);
    return 0;
}

static int load_goal_autotune(struct loader *ld, const char *path, json_t *goal,
                              struct goal_spec *g)
{
    json_t *f;
    int64_t n;
    int rc;

    g->min_configs = 2;
    if ((rc = json_reader_get(&ld->r, path, goal, "min_configs", false, &f)))
        return rc;
    if (f) {
        if ((rc = json_reader_int(&ld->r, json_path_key(path, "min_configs").s, f, 2,
                                  BW_MAX_TUNE_CONFIGS, &n)))
            return rc;
        g->min_configs = (int)n;
    }
    return goal_number(ld, path, goal, "min_gain", false, 1, false, 1e6, &g->min_gain);
}

static int load_goal_rebuild(struct loader *ld, const char *path, json_t *goal, struct goal_spec *g)
{
    struct json_path cp = json_path_key(path, "const");
    const char *name;
    json_t *f, *v;
    int rc;

    if ((rc = json_reader_get(&ld->r, path, goal, "const", true, &f)) ||
        (rc = json_reader_object(&ld->r, cp.s, f)))
        return rc;
    if (json_object_size(f) == 0)
        return json_reader_fail(&ld->r, BW_ERR_INVALID, cp.s,
                                "no macro to override (expected at least one NAME: integer)");
    if (json_object_size(f) > BW_MAX_GOAL_DEFINES)
        return json_reader_fail(&ld->r, BW_ERR_LIMIT, cp.s,
                                "%zu macros, over the limit of %d (BW_MAX_GOAL_DEFINES)",
                                json_object_size(f), BW_MAX_GOAL_DEFINES);
    json_object_foreach (f, name, v) {
        struct goal_define *d = &g->defines[g->n_defines];
        struct json_path np = json_path_key(cp.s, name);

        if (!is_identifier(name))
            return json_reader_fail(
                &ld->r, BW_ERR_INVALID, cp.s,
                "%s is not an identifier (the name of an @const or @tune of the "
                "submission)",
                json_quote(name).s);
        if ((rc = json_reader_int(&ld->r, np.s, v, INT64_MIN, INT64_MAX, &d->value)))
            return rc;
        if (!(d->name = strdup(name)))
            return load_nomem(ld);
        g->n_defines++;
    }
    if ((rc = goal_number(ld, path, goal, "min_speedup", true, 0, true, 1e6, &g->min_speedup)))
        return rc;
    return load_goal_shapes(ld, path, goal, g);
}

/* An array of 1..max distinct strings, each accepted by `valid`; a *new* array. */
static int load_goal_names(struct loader *ld, const char *path, json_t *v, size_t max,
                           const char *limit_name, bool (*valid)(const char *), const char *what,
                           char ***out, size_t *n_out)
{
    size_t n;
    int rc;

    if ((rc = json_reader_array(&ld->r, path, v, 1, max, limit_name)))
        return rc;
    n = json_array_size(v);
    if (!(*out = calloc(n, sizeof(**out))))
        return load_nomem(ld);
    for (size_t i = 0; i < n; i++) {
        struct json_path ip = json_path_at(path, "[%zu]", i);
        const char *s = NULL;

        if ((rc = json_reader_string(&ld->r, ip.s, json_array_get(v, i), 0, SIZE_MAX, NULL, &s)))
            return rc;
        if (!valid(s))
            return json_reader_fail(&ld->r, BW_ERR_INVALID, ip.s, "%s is not %s", json_quote(s).s,
                                    what);
        for (size_t j = 0; j < i; j++)
            if (strcmp((*out)[j], s) == 0)
                return json_reader_fail(&ld->r, BW_ERR_INVALID, ip.s, "%s is listed twice",
                                        json_quote(s).s);
        if (!((*out)[i] = strdup(s)))
            return load_nomem(ld);
        (*n_out)++;
    }
    return 0;
}

static int load_goal_sass(struct loader *ld, const char *path, json_t *goal, struct goal_spec *g)
{
    json_t *f;
    int rc;

    if ((rc = json_reader_get(&ld->r, path, goal, "require", true, &f)) ||
        (rc = load_goal_names(ld, json_path_key(path, "require").s, f, BW_MAX_GOAL_PATTERNS,
                              "BW_MAX_GOAL_PATTERNS", is_sass_pattern,
                              "a SASS opcode pattern (e.g. \"LDG.E.128\": upper-case opcode and "
                              "modifiers separated by '.')",
                              &g->require, &g->n_require)))
        return rc;
    if ((rc = json_reader_get(&ld->r, path, goal, "kernels", false, &f)) || !f)
        return rc;
    return load_goal_names(ld, json_path_key(path, "kernels").s, f, BW_MAX_LAUNCHES,
                           "BW_MAX_LAUNCHES", is_identifier, "a kernel name (an identifier)",
                           &g->kernels, &g->n_kernels);
}

static int load_goal_bandwidth(struct loader *ld, const char *path, json_t *goal,
                               struct goal_spec *g)
{
    struct json_path bp = json_path_key(path, "bytes");
    json_t *f;
    int rc;

    if ((rc = json_reader_get(&ld->r, path, goal, "bytes", true, &f)) ||
        (rc = as_formula(ld, bp.s, f, &g->bytes)) ||
        (rc = goal_number(ld, path, goal, "min_pct", true, 0, true, MIN_PCT_MAX, &g->min_pct)) ||
        (rc = load_goal_shapes(ld, path, goal, g)))
        return rc;
    for (size_t b = 0; b < ld->p->n_benchmarks; b++) {
        const struct problem_case *c = &ld->p->benchmarks[b];
        struct expr_binding vars[BW_MAX_SIZES + BW_MAX_SCALARS];
        struct expr_scope scope;
        char *inner = NULL;
        double bytes;

        if (!g->shapes[b])
            continue;
        problem_formula_scope(ld->p, c, vars, &scope);
        if ((rc = expr_eval_real(g->bytes, &scope, &bytes, &inner))) {
            rc = json_reader_fail(&ld->r, rc, bp.s, "benchmark %s: %s", json_quote(c->name).s,
                                  inner ? inner : "cannot evaluate");
            free(inner);
            return rc;
        }
        if (!(bytes > 0))
            return json_reader_fail(&ld->r, BW_ERR_INVALID, bp.s,
                                    "benchmark %s: %s is %g (expected > 0)", json_quote(c->name).s,
                                    json_quote(expr_text(g->bytes)).s, bytes);
    }
    return 0;
}

static int load_goal_compare(struct loader *ld, const char *path, json_t *goal, struct goal_spec *g)
{
    struct json_path pp = json_path_key(path, "pairs");
    json_t *f;
    int rc;

    if ((rc = json_reader_get(&ld->r, path, goal, "pairs", true, &f)) ||
        (rc = json_reader_array(&ld->r, pp.s, f, 1, BW_MAX_GOAL_PAIRS, "BW_MAX_GOAL_PAIRS")))
        return rc;
    for (size_t i = 0; i < json_array_size(f); i++) {
        struct json_path ip = json_path_at(pp.s, "[%zu]", i);
        struct goal_pair *pr = &g->pairs[i];
        json_t *pv = json_array_get(f, i), *x;

        if ((rc = json_reader_object(&ld->r, ip.s, pv)) ||
            (rc = json_reader_only_keys(&ld->r, ip.s, pv, pair_keys)) ||
            (rc = json_reader_get(&ld->r, ip.s, pv, "shape", true, &x)) ||
            (rc = as_bench(ld, json_path_key(ip.s, "shape").s, x, &pr->shape)) ||
            (rc = json_reader_get(&ld->r, ip.s, pv, "baseline", true, &x)) ||
            (rc = as_bench(ld, json_path_key(ip.s, "baseline").s, x, &pr->baseline)))
            return rc;
        if (pr->shape == pr->baseline)
            return json_reader_fail(&ld->r, BW_ERR_INVALID, json_path_key(ip.s, "baseline").s,
                                    "%s is also the pair's \"shape\" (expected another benchmark)",
                                    json_quote(ld->p->benchmarks[pr->baseline].name).s);
        g->n_pairs++;
    }
    return goal_number(ld, path, goal, "min_speedup", true, 0, true, 1e6, &g->min_speedup);
}

static int load_goal(struct loader *ld, const char *path, json_t *v, struct goal_spec *g)
{
    const char *kind = NULL, *name = NULL;
    size_t k, nk = sizeof(goal_kind_names) / sizeof(goal_kind_names[0]) - 1;
    json_t *f;
    int rc;

    if ((rc = json_reader_object(&ld->r, path, v)) ||
        (rc = json_reader_get(&ld->r, path, v, "kind", true, &f)) ||
        (rc = json_reader_string(&ld->r, json_path_key(path, "kind").s, f, 0, SIZE_MAX, NULL,
                                 &kind)))
        return rc;
    for (k = 0; k < nk; k++)
        if (strcmp(kind, goal_kind_names[k]) == 0)
            break;
    if (k == nk)
        return json_reader_fail(&ld->r, BW_ERR_INVALID, json_path_key(path, "kind").s,
                                "unknown goal kind %s (expected %s)", json_quote(kind).s,
                                json_join(goal_kind_names, nk).s);
    g->kind = (enum goal_kind)k;
    if ((rc = json_reader_only_keys(&ld->r, path, v, goal_keys[k])))
        return rc;
    if ((rc = json_reader_get(&ld->r, path, v, "name", true, &f)) ||
        (rc = json_reader_string(&ld->r, json_path_key(path, "name").s, f, 0, SIZE_MAX, NULL,
                                 &name)))
        return rc;
    if (!is_profile_name(name))
        return json_reader_fail(
            &ld->r, BW_ERR_INVALID, json_path_key(path, "name").s,
            "%s is not a valid goal name (expected letters, digits, _ and -, at most %d "
            "bytes)",
            json_quote(name).s, BW_MAX_NAME);
    for (const struct goal_spec *q = ld->p->goals; q < g; q++)
        if (strcmp(q->name, name) == 0)
            return json_reader_fail(&ld->r, BW_ERR_INVALID, json_path_key(path, "name").s,
                                    "%s is already the name of goals[%zu]", json_quote(name).s,
                                    (size_t)(q - ld->p->goals));
    if (!(g->name = strdup(name)))
        return load_nomem(ld);
    if ((rc = json_reader_get(&ld->r, path, v, "description", false, &f)))
        return rc;
    if (f) {
        const char *d = NULL;
        if ((rc = json_reader_string(&ld->r, json_path_key(path, "description").s, f, 0, SIZE_MAX,
                                     NULL, &d)))
            return rc;
        if (!*d || strlen(d) > GOAL_DESCRIPTION_BYTES)
            return json_reader_fail(&ld->r, BW_ERR_INVALID, json_path_key(path, "description").s,
                                    "expected 1..%d bytes, got %zu", GOAL_DESCRIPTION_BYTES,
                                    strlen(d));
        if (!(g->description = strdup(d)))
            return load_nomem(ld);
    }
    switch (g->kind) {
    case GOAL_AUTOTUNE:
        return load_goal_autotune(ld, path, v, g);
    case GOAL_REBUILD:
        return load_goal_rebuild(ld, path, v, g);
    case GOAL_SASS:
        return load_goal_sass(ld, path, v, g);
    case GOAL_BANDWIDTH:
        return load_goal_bandwidth(ld, path, v, g);
    case GOAL_COMPARE:
        return load_goal_compare(ld, path, v, g);
    case GOAL_ROOFLINE:
        if ((rc = goal_number(ld, path, v, "min_pct", true, 0, true, 100, &g->min_pct)))
            return rc;
        return load_goal_shapes(ld, path, v, g);
    }
    return 0;
}

static int load_goals(struct loader *ld, json_t *v)
{
    struct problem *p = ld->p;
    size_t n;
    int rc;

    if ((rc = json_reader_array(&ld->r, "goals", v, 0, BW_MAX_GOALS, "BW_MAX_GOALS")))
        return rc;
    n = json_array_size(v);
    if (n == 0)
        return 0;
    if (!(p->goals = calloc(n, sizeof(*p->goals))))
        return load_nomem(ld);
    p->n_goals = n;
    for (size_t i = 0; i < n; i++)
        if ((rc = load_goal(ld, json_path_at("goals", "[%zu]", i).s, json_array_get(v, i),
                            &p->goals[i])))
            return rc;
    return 0;
}

/* ---- files and controls ------------------------------------------------------------------ */

/* A control key: a plain relative path to a .cu or .py file, components of
 * [A-Za-z0-9._-] that do not start with '.', at most CONTROL_DEPTH deep. */
static bool is_control_path(const char *s)
{
    const char *comp = s;
    int depth = 0;
    enum language lang;

    if (strlen(s) > 255 || !language_of_file(s, &lang))
        return false;
    for (;;) {
        const char *end = strchr(comp, '/');
        size_t n = end ? (size_t)(end - comp) : strlen(comp);
        if (n == 0 || comp[0] == '.' || ++depth > CONTROL_DEPTH)
            return false;
        for (size_t i = 0; i < n; i++) {
            char ch = comp[i];
            if (!((ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z') ||
                  (ch >= '0' && ch <= '9') || ch == '_' || ch == '-' || ch == '.'))
                return false;
        }
        if (!end)
            return true;
        comp = end + 1;
    }
}

/*
 * dir/rel must be a regular file of at most `max` bytes. The message names
 * the file; with a json_path it is reported against problem.json (a control
 * entry), else against the file itself (a standard file).
 */
static int check_file(struct loader *ld, const char *rel, size_t max, const char *limit_name,
                      const char *json_path, const char *missing_hint)
{
    char *full = path_join(ld->p->dir, rel);
    struct stat st;
    int rc = 0, code = 0;
    char msg[256];

    if (!full)
        return load_nomem(ld);
    if (stat(full, &st) < 0) {
        code = errno == ENOENT ? BW_ERR_NOTFOUND : BW_ERR_IO;
        snprintf(msg, sizeof(msg), "%s", errno == ENOENT ? missing_hint : strerror(errno));
    } else if (!S_ISREG(st.st_mode)) {
        code = BW_ERR_INVALID;
        snprintf(msg, sizeof(msg), "not a regular file");
    } else if ((uint64_t)st.st_size > max) {
        code = BW_ERR_LIMIT;
        snprintf(msg, sizeof(msg), "%lld bytes, over the limit of %zu (%s)", (long long)st.st_size,
                 max, limit_name);
    }
    if (code && json_path)
        rc = json_reader_fail(&ld->r, code, json_path, "%s: %s", full, msg);
    else if (code)
        rc = bw_fail(ld->cause, code, "%s: %s", full, msg);
    free(full);
    return rc;
}

static int check_standard_files(struct loader *ld)
{
    int rc;

    for (size_t i = 0; i < sizeof(standard_files) / sizeof(standard_files[0]); i++) {
        const char *limit = standard_files[i].max == BW_MAX_STATEMENT_BYTES
                                ? "BW_MAX_STATEMENT_BYTES"
                                : "BW_MAX_SOURCE_BYTES";
        if ((rc = check_file(ld, standard_files[i].name, standard_files[i].max, limit, NULL,
                             "missing (every problem has statement.md, starter.cu, reference.cu "
                             "and solution.cu)")))
            return rc;
    }
    return 0;
}

static const struct control *find_control(const struct problem *p, const char *file)
{
    for (size_t i = 0; i < p->n_controls; i++)
        if (p->controls[i].file && strcmp(p->controls[i].file, file) == 0)
            return &p->controls[i];
    return NULL;
}

/* Triton is a language of the problem when starter.py is there: then
 * solution.py must be too, Accepted, and both need control entries (as the
 * CUDA pair); a Triton control without starter.py is an error. */
static int load_triton_files(struct loader *ld)
{
    struct problem *p = ld->p;
    const struct control *c;
    char *path = path_join(p->dir, "starter.py");
    struct stat st;
    bool starter;
    int rc;

    if (!path)
        return load_nomem(ld);
    starter = stat(path, &st) == 0;
    free(path);
    p->languages[LANG_CUDA] = true;
    if (!starter) {
        for (size_t i = 0; i < p->n_controls; i++)
            if (p->controls[i].lang == LANG_TRITON)
                return json_reader_fail(
                    &ld->r, BW_ERR_INVALID, "controls",
                    "%s is a Triton control, but the problem has no starter.py (Triton "
                    "needs starter.py and solution.py)",
                    json_quote(p->controls[i].file).s);
        return 0;
    }
    if ((rc = check_file(ld, "starter.py", BW_MAX_SOURCE_BYTES, "BW_MAX_SOURCE_BYTES", NULL,
                         "missing")) ||
        (rc = check_file(ld, "solution.py", BW_MAX_SOURCE_BYTES, "BW_MAX_SOURCE_BYTES", NULL,
                         "missing (a problem with starter.py needs a Triton solution.py)")))
        return rc;
    if (!(c = find_control(p, "solution.py")))
        return json_reader_fail(&ld->r, BW_ERR_INVALID, "controls",
                                "no entry for \"solution.py\" (expected \"Accepted\")");
    if (c->expect != VERDICT_ACCEPTED)
        return json_reader_fail(&ld->r, BW_ERR_INVALID, "controls[\"solution.py\"]",
                                "expects %s (the solution must be Accepted)",
                                verdict_name(c->expect));
    if (!find_control(p, "starter.py"))
        return json_reader_fail(&ld->r, BW_ERR_INVALID, "controls", "no entry for \"starter.py\"");
    p->languages[LANG_TRITON] = true;
    return 0;
}

static int load_controls(struct loader *ld, json_t *v)
{
    struct problem *p = ld->p;
    const struct control *c;
    const char *file;
    json_t *cv;
    size_t i = 0, n;
    int rc;

    if ((rc = json_reader_object(&ld->r, "controls", v)))
        return rc;
    n = json_object_size(v);
    if (n > BW_MAX_CONTROLS)
        return json_reader_fail(&ld->r, BW_ERR_LIMIT, "controls",
                                "%zu entries, over the limit of %d (BW_MAX_CONTROLS)", n,
                                BW_MAX_CONTROLS);
    if (n && !(p->controls = calloc(n, sizeof(*p->controls))))
        return load_nomem(ld);
    p->n_controls = n;
    json_object_foreach (v, file, cv) {
        struct json_path path = json_path_at("controls", "[%s]", json_quote(file).s);
        struct control *ctl = &p->controls[i++];
        const char *verdict = NULL;

        if (!is_control_path(file))
            return json_reader_fail(
                &ld->r, BW_ERR_INVALID, path.s,
                "not a relative path to a .cu (CUDA) or .py (Triton) file in the problem "
                "directory (letters, digits, '.', '_', '-' and '/', no component starting "
                "with '.')");
        language_of_file(file, &ctl->lang);
        if (strcmp(file, "reference.cu") == 0)
            return json_reader_fail(&ld->r, BW_ERR_INVALID, path.s,
                                    "reference.cu is the reference, not a control");
        if ((rc = json_reader_string(&ld->r, path.s, cv, 0, SIZE_MAX, NULL, &verdict)))
            return rc;
        ctl->expect = verdict_parse(verdict);
        if (ctl->expect == VERDICT_NONE)
            return json_reader_fail(
                &ld->r, BW_ERR_INVALID, path.s,
                "unknown verdict %s (expected a name such as \"Wrong Answer\" or a code "
                "such as \"WA\")",
                json_quote(verdict).s);
        if (ctl->expect == VERDICT_JUDGE_ERROR)
            return json_reader_fail(&ld->r, BW_ERR_INVALID, path.s,
                                    "Judge Error is never an expected verdict");
        if (!(ctl->file = strdup(file)))
            return load_nomem(ld);
        if ((rc = check_file(ld, file, BW_MAX_SOURCE_BYTES, "BW_MAX_SOURCE_BYTES", path.s,
                             "no such file")))
            return rc;
        if (strncmp(file, "wrong/", 6) == 0 && ctl->expect == VERDICT_ACCEPTED)
            return json_reader_fail(&ld->r, BW_ERR_INVALID, path.s,
                                    "a negative control cannot expect Accepted");
    }
    if (!(c = find_control(p, "solution.cu")))
        return json_reader_fail(&ld->r, BW_ERR_INVALID, "controls",
                                "no entry for \"solution.cu\" (expected \"Accepted\")");
    if (c->expect != VERDICT_ACCEPTED)
        return json_reader_fail(&ld->r, BW_ERR_INVALID, "controls[\"solution.cu\"]",
                                "expects %s (the solution must be Accepted)",
                                verdict_name(c->expect));
    if (!find_control(p, "starter.cu"))
        return json_reader_fail(&ld->r, BW_ERR_INVALID, "controls", "no entry for \"starter.cu\"");
    return load_triton_files(ld);
}

static int compare_names(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

/* Every wrong/NAME.cu needs a control entry (checked in name order). */
static int check_wrong_dir(struct loader *ld)
{
    char *dirpath = path_join(ld->p->dir, "wrong");
    char *names[BW_MAX_WRONG_CONTROLS];
    size_t n = 0;
    struct dirent *de;
    DIR *d;
    int rc = 0;

    if (!dirpath)
        return load_nomem(ld);
    d = opendir(dirpath);
    if (!d) {
        if (errno != ENOENT)
            rc = bw_fail(ld->cause, errno == ENOTDIR ? BW_ERR_INVALID : BW_ERR_IO,
                         "%s: cannot open: %s", dirpath, strerror(errno));
        goto free_path;
    }
    while ((de = readdir(d))) {
        enum language lang;
        if (de->d_name[0] == '.' || !language_of_file(de->d_name, &lang))
            continue;
        if (n == BW_MAX_WRONG_CONTROLS) {
            rc = bw_fail(ld->cause, BW_ERR_LIMIT,
                         "%s: more than %d .cu and .py files (BW_MAX_WRONG_CONTROLS)", dirpath,
                         BW_MAX_WRONG_CONTROLS);
            goto free_names;
        }
        if (!(names[n] = strdup(de->d_name))) {
            rc = load_nomem(ld);
            goto free_names;
        }
        n++;
    }
    qsort(names, n, sizeof(names[0]), compare_names);
    for (size_t i = 0; i < n && !rc; i++) {
        struct json_path rel = json_path_at("wrong/", "%s", names[i]);
        if (!find_control(ld->p, rel.s))
            rc = json_reader_fail(
                &ld->r, BW_ERR_INVALID, "controls",
                "no entry for %s (every wrong/*.cu and wrong/*.py needs an expected verdict)",
                json_quote(rel.s).s);
    }
free_names:
    for (size_t i = 0; i < n; i++)
        free(names[i]);
    closedir(d);
free_path:
    free(dirpath);
    return rc;
}

/* ---- the whole file ------------------------------------------------------------------------ */

static bool too_deep(json_t *v, int depth)
{
    const char *key;
    json_t *child;
    size_t i;

    if (depth > BW_MAX_JSON_DEPTH)
        return true;
    if (json_is_object(v)) {
        json_object_foreach (v, key, child) {
            if (too_deep(child, depth + 1))
                return true;
        }
    } else if (json_is_array(v)) {
        json_array_foreach (v, i, child) {
            if (too_deep(child, depth + 1))
                return true;
        }
    }
    return false;
}

static bool is_id(const char *s)
{
    size_t n = strlen(s);

    if (n == 0 || n > BW_MAX_NAME)
        return false;
    for (; *s; s++)
        if (!((*s >= 'a' && *s <= 'z') || (*s >= '0' && *s <= '9') || *s == '-'))
            return false;
    return true;
}

static bool is_title(const char *s)
{
    size_t n = strlen(s);

    if (n == 0 || n > BW_MAX_TITLE_BYTES || s[0] == ' ' || s[n - 1] == ' ')
        return false;
    for (; *s; s++)
        if ((unsigned char)*s < 0x20 || *s == 0x7f)
            return false;
    return true;
}

static const char *const top_keys[] = {
    "id",         "number", "title", "step", "sizes",  "scalars",  "tensors", "data", "tests",
    "benchmarks", "bytes",  "flops", "peak", "limits", "controls", "goals",   NULL};

static int load_header(struct loader *ld, json_t *root, const char *dirname)
{
    struct problem *p = ld->p;
    const char *s = NULL;
    json_t *f;
    int64_t x;
    int rc;

    if ((rc = json_reader_get(&ld->r, "", root, "id", true, &f)) ||
        (rc = json_reader_string(&ld->r, "id", f, 0, SIZE_MAX, NULL, &s)))
        return rc;
    if (!is_id(s))
        return json_reader_fail(&ld->r, BW_ERR_INVALID, "id",
                                "%s is not a valid id (expected [a-z0-9-]+, at most %d bytes)",
                                json_quote(s).s, BW_MAX_NAME);
    if (strcmp(s, dirname) != 0)
        return json_reader_fail(&ld->r, BW_ERR_INVALID, "id",
                                "%s differs from the directory name %s", json_quote(s).s,
                                json_quote(dirname).s);
    if (!(p->id = strdup(s)))
        return load_nomem(ld);
    if ((rc = json_reader_get(&ld->r, "", root, "number", true, &f)) ||
        (rc = json_reader_int(&ld->r, "number", f, 1, NUMBER_MAX, &x)))
        return rc;
    p->number = (int)x;
    if ((rc = json_reader_get(&ld->r, "", root, "title", true, &f)) ||
        (rc = json_reader_string(&ld->r, "title", f, 0, SIZE_MAX, NULL, &s)))
        return rc;
    if (!is_title(s))
        return json_reader_fail(
            &ld->r, BW_ERR_INVALID, "title",
            "%s is not a valid title (1..%d bytes, no control characters, no leading or "
            "trailing space)",
            json_quote(s).s, BW_MAX_TITLE_BYTES);
    if (!(p->title = strdup(s)))
        return load_nomem(ld);
    if ((rc = json_reader_get(&ld->r, "", root, "step", true, &f)) ||
        (rc = json_reader_int(&ld->r, "step", f, 1, STEP_MAX, &x)))
        return rc;
    p->step = (int)x;
    return 0;
}

static int load_root(struct loader *ld, json_t *root, const char *dirname)
{
    struct problem *p = ld->p;
    json_t *f;
    int rc;

    if (!json_is_object(root))
        return json_reader_fail(&ld->r, BW_ERR_INVALID, "",
                                "expected an object at the top level, got %s", json_show(root).s);
    if ((rc = json_reader_only_keys(&ld->r, "", root, top_keys)) ||
        (rc = load_header(ld, root, dirname)))
        return rc;
    if ((rc = json_reader_get(&ld->r, "", root, "sizes", true, &f)) || (rc = load_sizes(ld, f)))
        return rc;
    if ((rc = json_reader_get(&ld->r, "", root, "scalars", false, &f)) ||
        (f && (rc = load_scalars(ld, f))))
        return rc;
    if ((rc = json_reader_get(&ld->r, "", root, "tensors", true, &f)) || (rc = load_tensors(ld, f)))
        return rc;
    if ((rc = json_reader_get(&ld->r, "", root, "data", true, &f)) || (rc = load_profiles(ld, f)))
        return rc;
    if ((rc = json_reader_get(&ld->r, "", root, "tests", true, &f)) ||
        (rc = load_cases(ld, "tests", f, false, &p->tests, &p->n_tests, ld->test_entry)))
        return rc;
    if ((rc = json_reader_get(&ld->r, "", root, "benchmarks", true, &f)) ||
        (rc = load_cases(ld, "benchmarks", f, true, &p->benchmarks, &p->n_benchmarks,
                         ld->bench_entry)))
        return rc;
    if ((rc = load_formulas(ld, root)))
        return rc;
    for (size_t i = 0; i < p->n_tests; i++)
        if ((rc = check_case(ld, json_path_at("tests", "[%zu]", ld->test_entry[i]).s, &p->tests[i],
                             false)))
            return rc;
    for (size_t i = 0; i < p->n_benchmarks; i++)
        if ((rc = check_case(ld, json_path_at("benchmarks", "[%zu]", ld->bench_entry[i]).s,
                             &p->benchmarks[i], true)))
            return rc;
    for (size_t j = 0; j < p->n_profiles; j++) {
        bool used = false;
        for (size_t i = 0; i < p->n_tests && !used; i++)
            used = p->tests[i].profile == (int)j;
        for (size_t i = 0; i < p->n_benchmarks && !used; i++)
            used = p->benchmarks[i].profile == (int)j;
        if (!used)
            return json_reader_fail(&ld->r, BW_ERR_INVALID,
                                    json_path_at("data", ".%s", p->profiles[j].name).s,
                                    "profile is used by no test or benchmark");
    }
    if ((rc = json_reader_get(&ld->r, "", root, "goals", false, &f)) ||
        (f && (rc = load_goals(ld, f))))
        return rc;
    if ((rc = check_standard_files(ld)))
        return rc;
    if ((rc = json_reader_get(&ld->r, "", root, "controls", true, &f)) ||
        (rc = load_controls(ld, f)))
        return rc;
    return check_wrong_dir(ld);
}

/* The last component of path s, a *new* string ("" for "/"). */
static char *last_component(const char *s)
{
    size_t n = strlen(s);
    const char *start;

    while (n > 0 && s[n - 1] == '/')
        n--;
    start = s + n;
    while (start > s && start[-1] != '/')
        start--;
    return strndup(start, (size_t)(s + n - start));
}

/* The directory's name as given ("problems/softmax/" is "softmax"; a link
 * keeps its own name), or of its real path for "." and "..". */
static char *dir_basename(const char *dir)
{
    char *name = last_component(dir), *real;

    if (!name || (strcmp(name, ".") != 0 && strcmp(name, "..") != 0 && *name))
        return name;
    if (!(real = realpath(dir, NULL)))
        return name;
    free(name);
    name = last_component(real);
    free(real);
    return name;
}

struct problem *problem_load(const char *dir, char **cause)
{
    struct loader ld = {0};
    struct problem *p;
    json_error_t jerr;
    json_t *root = NULL;
    char *text = NULL, *dirname = NULL;
    size_t len;
    int rc;

    ld.cause = cause;
    json_reader_init(&ld.r, 0);
    if (!(p = calloc(1, sizeof(*p))) || !(p->dir = strdup(dir)) ||
        !(ld.file = path_join(dir, "problem.json")) || !(dirname = dir_basename(dir))) {
        bw_fail(cause, BW_ERR_NOMEM, "%s: out of memory", dir);
        goto free_problem;
    }
    ld.p = p;
    if ((rc = read_file(ld.file, BW_MAX_PROBLEM_JSON_BYTES, &text, &len, cause))) {
        if (rc == BW_ERR_LIMIT)
            bw_wrap(cause, rc, "BW_MAX_PROBLEM_JSON_BYTES");
        goto free_problem;
    }
    root = json_loadb(text, len, JSON_REJECT_DUPLICATES, &jerr);
    if (!root) {
        bw_fail(cause, BW_ERR_INVALID, "%s: line %d, column %d: %s", ld.file, jerr.line,
                jerr.column, json_printable(jerr.text).s);
        goto free_problem;
    }
    if (too_deep(root, 1)) {
        bw_fail(cause, BW_ERR_LIMIT, "%s: nested deeper than %d levels (BW_MAX_JSON_DEPTH)",
                ld.file, BW_MAX_JSON_DEPTH);
        goto free_problem;
    }
    if ((rc = load_root(&ld, root, dirname))) {
        if (json_reader_failed(&ld.r))
            bw_wrap(cause, json_reader_cause(&ld.r, cause), "%s", ld.file);
        goto free_problem;
    }
    json_decref(root);
    free(text);
    free(dirname);
    free(ld.file);
    return p;

free_problem:
    json_decref(root);
    free(text);
    free(dirname);
    free(ld.file);
    problem_free(p);
    return NULL;
}

void problem_free(struct problem *p)
{
    if (!p)
        return;
    free(p->dir);
    free(p->id);
    free(p->title);
    for (size_t i = 0; i < p->n_sizes; i++)
        free(p->size_names[i]);
    for (size_t i = 0; i < p->n_scalars; i++)
        free(p->scalars[i].name);
    free(p->scalars);
    for (size_t i = 0; i < p->n_tensors; i++) {
        struct tensor_spec *t = &p->tensors[i];
        free(t->name);
        for (int d = 0; d < BW_MAX_DIMS; d++)
            expr_free(t->shape[d]);
        expr_free(t->tol.atol);
        expr_free(t->tol.rtol);
    }
    for (size_t i = 0; i < p->n_profiles; i++) {
        free(p->profiles[i].name);
        for (size_t t = 0; p->profiles[i].dists && t < p->n_tensors; t++) {
            expr_free(p->profiles[i].dists[t].ilo);
            expr_free(p->profiles[i].dists[t].ihi);
        }
        free(p->profiles[i].dists);
    }
    free(p->profiles);
    free(p->tensors);
    for (size_t i = 0; i < p->n_tests; i++)
        free(p->tests[i].name);
    free(p->tests);
    for (size_t i = 0; i < p->n_benchmarks; i++)
        free(p->benchmarks[i].name);
    free(p->benchmarks);
    expr_free(p->bytes);
    expr_free(p->flops);
    expr_free(p->scratch_bytes);
    for (size_t i = 0; i < p->n_controls; i++)
        free(p->controls[i].file);
    free(p->controls);
    for (size_t i = 0; i < p->n_goals; i++) {
        struct goal_spec *g = &p->goals[i];
        free(g->name);
        free(g->description);
        for (size_t k = 0; k < g->n_defines; k++)
            free(g->defines[k].name);
        for (size_t k = 0; g->require && k < g->n_require; k++)
            free(g->require[k]);
        free(g->require);
        for (size_t k = 0; g->kernels && k < g->n_kernels; k++)
            free(g->kernels[k]);
        free(g->kernels);
        expr_free(g->bytes);
    }
    free(p->goals);
    free(p);
}

/* ---- per-case helpers -------------------------------------------------------------------- */

int problem_tensor_index(const struct problem *p, const char *name)
{
    for (size_t i = 0; i < p->n_tensors; i++)
        if (p->tensors[i].name && strcmp(p->tensors[i].name, name) == 0)
            return (int)i;
    return -1;
}

int problem_size_index(const struct problem *p, const char *name)
{
    for (size_t i = 0; i < p->n_sizes; i++)
        if (p->size_names[i] && strcmp(p->size_names[i], name) == 0)
            return (int)i;
    return -1;
}

int problem_scalar_index(const struct problem *p, const char *name)
{
    for (size_t i = 0; i < p->n_scalars; i++)
        if (p->scalars[i].name && strcmp(p->scalars[i].name, name) == 0)
            return (int)i;
    return -1;
}

void problem_case_scope(const struct problem *p, const struct problem_case *c,
                        struct expr_binding *vars, struct expr_scope *scope)
{
    for (size_t i = 0; i < p->n_sizes; i++) {
        vars[i].name = p->size_names[i];
        vars[i].value = c->sizes[i];
    }
    scope->vars = vars;
    scope->n = p->n_sizes;
}

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

int problem_gen_spec(const struct problem *p, size_t t, const struct problem_case *c,
                     struct gen_spec *out, char **cause)
{
    const struct tensor_spec *ts;
    const struct dist_spec *d;
    int64_t dims[BW_MAX_DIMS], lo, hi;
    size_t src;
    int rc;

    if (t >= p->n_tensors)
        return bw_fail(cause, BW_ERR_INVALID, "no tensor %zu (the problem has %zu)", t,
                       p->n_tensors);
    ts = &p->tensors[t];
    if (ts->role == ROLE_OUT)
        return bw_fail(cause, BW_ERR_INVALID, "tensor %s is an output: it is not generated",
                       ts->name);
    if (c->profile < 0 || (size_t)c->profile >= p->n_profiles)
        return bw_fail(cause, BW_ERR_INVALID, "case %s: no data profile %d", c->name, c->profile);
    d = &p->profiles[c->profile].dists[t];
    if (!d->set)
        return bw_fail(cause, BW_ERR_INVALID, "profile %s gives tensor %s no distribution",
                       p->profiles[c->profile].name, ts->name);
    src = d->neg_of >= 0 ? (size_t)d->neg_of : t;
    if ((rc = problem_tensor_shape(p, src, c, dims, cause)))
        return rc;
    *out = d->gen;
    out->row_len = dims[p->tensors[src].ndim - 1];
    if (out->kind != GEN_RANDINT)
        return 0;

    struct expr_binding vars[BW_MAX_SIZES];
    struct expr_scope scope;
    problem_case_scope(p, c, vars, &scope);
    if ((rc = expr_eval_int(d->ilo, &scope, &out->ilo, cause)))
        return bw_wrap(cause, rc, "tensor %s randint lo \"%s\"", ts->name, expr_text(d->ilo));
    if ((rc = expr_eval_int(d->ihi, &scope, &out->ihi, cause)))
        return bw_wrap(cause, rc, "tensor %s randint hi \"%s\"", ts->name, expr_text(d->ihi));
    if (out->ilo > out->ihi)
        return bw_fail(cause, BW_ERR_INVALID,
                       "tensor %s randint lo \"%s\" = %lld is above hi \"%s\" = %lld", ts->name,
                       expr_text(d->ilo), (long long)out->ilo, expr_text(d->ihi),
                       (long long)out->ihi);
    int_range(ts->dtype, &lo, &hi);
    if (out->ilo < lo || out->ihi > hi)
        return bw_fail(cause, BW_ERR_INVALID,
                       "tensor %s randint range %lld..%lld does not fit %s (%lld..%lld)", ts->name,
                       (long long)out->ilo, (long long)out->ihi, dtype_name(ts->dtype),
                       (long long)lo, (long long)hi);
    return 0;
}

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
