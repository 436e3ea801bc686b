/*
 * cases.c - tests and benchmarks of problem.json (see load.h): each entry
 * (sizes as lists, a product, or rows; a data profile; scalar values)
 * expanded into named cases, the check that runs every per-case helper once
 * per case (so judging cannot fail on a case later), and
 * problem_case_scope() (problem.h).
 */
#include "load.h"

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/buf.h"
#include "common/error.h"
#include "common/json_reader.h"
#include "common/util.h"
#include "common/banned.h"

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

/* ---- tests and benchmarks -------------------------------------------------------------------- */

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
                                    json_quote(key).s, loader_size_list(p).s);
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
    if ((rc = json_reader_get_string(&ld->r, path, v, "data", true, 0, SIZE_MAX, NULL, &data)))
        return rc;
    e->profile = loader_profile_index(p, data);
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
                (rc = loader_scalar_value(ld, kp.s, p->scalars[s].dtype, e->scalars[s])))
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

int loader_cases(struct loader *ld, const char *fieldname, json_t *v, bool bench,
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
        return loader_nomem(ld);
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
        rc = loader_nomem(ld);
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
                rc = loader_nomem(ld);
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

/* ---- per-case checks ------------------------------------------------------------------------- */

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
int loader_check_case(struct loader *ld, const char *path, const struct problem_case *c, bool bench)
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
        int64_t count, bytes, ref_tensor;
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
        ref_tensor = ts->role == ROLE_IN ? bytes : count * 8; /* count < 2^35: no overflow */
        ref_bytes += (uint64_t)ref_tensor * (ts->role != ROLE_IN && ts->tol.acc > 0 ? 2 : 1);
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
        /* the runner refuses any buffer over the limit, the reference's too (runner_proto.c) */
        if ((uint64_t)ref_tensor > BW_MAX_TENSOR_BYTES)
            return json_reader_fail(&ld->r, BW_ERR_LIMIT, path,
                                    "case %s: the reference's %s (8 bytes an element) has %lld "
                                    "elements, over the limit of %llu bytes (BW_MAX_TENSOR_BYTES)",
                                    json_quote(c->name).s, ts->name, (long long)count,
                                    (unsigned long long)BW_MAX_TENSOR_BYTES);
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

/* ---- per-case helpers ------------------------------------------------------------------------ */

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
