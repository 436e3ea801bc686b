/*
 * data.c - the data profiles of problem.json (see load.h): named sets of
 * distributions, one per input tensor, the values they may generate into a
 * dtype, and problem_gen_spec(), the concrete generator spec of one input in
 * one case (problem.h).
 */
#include "load.h"

#include <float.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "common/error.h"
#include "common/json_reader.h"
#include "common/banned.h"

#define EXACT_INT 9007199254740992.0 /* 2^53: larger integers are not exact in a double */

/* A profile or goal name: [A-Za-z0-9_-]+, at most BW_MAX_NAME bytes. */
bool loader_is_label(const char *s)
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

/* ---- dtypes and values ----------------------------------------------------------------------- */

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
int loader_value_fits(struct loader *ld, const char *path, enum dtype t, double v)
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

/* ---- data profiles --------------------------------------------------------------------------- */

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
        (rc = loader_value_fits(ld, json_path_key(path, key).s, t, *out)))
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
            (rc = loader_value_fits(ld, json_path_key(sp.s, "value").s, t, g->special_value[i])) ||
            (rc = json_reader_get_number(&ld->r, sp.s, s, "fraction", true, -HUGE_VAL, HUGE_VAL,
                                         &frac)))
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
            (rc = loader_value_fits(ld, kp.s, t, g->spike)))
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
        (rc = json_reader_get_string(&ld->r, path, v, "dist", true, 0, SIZE_MAX, NULL, &kind_name)))
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
            (rc = loader_value_fits(ld, json_path_key(path, "value").s, t->dtype, g->a)))
            return rc;
        break;
    case GEN_RANDINT:
        if ((rc = json_reader_get(&ld->r, path, v, "lo", true, &f)) ||
            (rc = loader_expr(ld, json_path_key(path, "lo").s, f, false, &d->ilo)) ||
            (rc = json_reader_get(&ld->r, path, v, "hi", true, &f)) ||
            (rc = loader_expr(ld, json_path_key(path, "hi").s, f, false, &d->ihi)))
            return rc;
        return 0;
    case DIST_NEG: {
        const char *of = NULL;
        int src;
        if ((rc = json_reader_get_string(&ld->r, path, v, "of", true, 0, SIZE_MAX, NULL, &of)))
            return rc;
        src = problem_tensor_index(p, of);
        if (src < 0)
            return json_reader_fail(&ld->r, BW_ERR_INVALID, json_path_key(path, "of").s,
                                    "unknown tensor %s (inputs are %s)", json_quote(of).s,
                                    loader_tensor_list(p, true).s);
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

    if (!loader_is_label(name))
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
        return loader_nomem(ld);
    if (!(prof->dists = calloc(p->n_tensors, sizeof(*prof->dists))))
        return loader_nomem(ld);
    for (size_t t = 0; t < p->n_tensors; t++)
        prof->dists[t].neg_of = -1;
    if ((rc = json_reader_object(&ld->r, path.s, v)))
        return rc;
    json_object_foreach (v, tname, dv) {
        int t = problem_tensor_index(p, tname);
        if (t < 0)
            return json_reader_fail(&ld->r, BW_ERR_INVALID, path.s,
                                    "unknown tensor %s (inputs are %s)", json_quote(tname).s,
                                    loader_tensor_list(p, true).s);
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

int loader_profiles(struct loader *ld, json_t *v)
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
        return loader_nomem(ld);
    p->n_profiles = n;
    json_object_foreach (v, name, pv) {
        if ((rc = load_profile(ld, name, pv, &p->profiles[i])))
            return rc;
        i++;
    }
    return 0;
}

int loader_profile_index(const struct problem *p, const char *name)
{
    for (size_t i = 0; i < p->n_profiles; i++)
        if (strcmp(p->profiles[i].name, name) == 0)
            return (int)i;
    return -1;
}

/* ---- per-case helpers ------------------------------------------------------------------------ */

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
