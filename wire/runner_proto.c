#include "runner_proto.h"

#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/error.h"
#include "common/util.h"
#include "common/banned.h"

/* --- encoding helpers ------------------------------------------------------------ */

/* A double as JSON: a real, or "inf" / "-inf" / "nan". */
static json_t *jdouble(double v)
{
    if (isnan(v))
        return json_string("nan");
    if (isinf(v))
        return json_string(v > 0 ? "inf" : "-inf");
    return json_real(v);
}

/* A uint64 as JSON: an integer up to INT64_MAX, a decimal string above. */
static json_t *ju64(uint64_t v)
{
    char text[32];

    if (v <= (uint64_t)INT64_MAX)
        return json_integer((json_int_t)v);
    snprintf(text, sizeof(text), "%" PRIu64, v);
    return json_string(text);
}

/* Sets o[key] = v (stolen); clears *ok when v is NULL or the set fails. */
static void put(json_t *o, const char *key, json_t *v, bool *ok)
{
    if (!v || json_object_set_new(o, key, v) != 0)
        *ok = false;
}

/* Appends v (stolen) to array a; clears *ok on failure. */
static void push(json_t *a, json_t *v, bool *ok)
{
    if (!v || json_array_append_new(a, v) != 0)
        *ok = false;
}

/* Returns o, or NULL (freeing o) when something failed. */
static json_t *finish(json_t *o, bool ok)
{
    if (!ok) {
        json_decref(o);
        return NULL;
    }
    return o;
}

/* --- decoding helpers: each names the field in its message ----------------------- */

static int bad(char **cause, const char *path, const char *key, const char *what)
{
    return bw_fail(cause, BW_ERR_INVALID, "%s%s%s: %s", path, key ? "." : "", key ? key : "", what);
}

/* o[key], or NULL; missing and required is an error. */
static int field(const json_t *o, const char *key, const char *path, bool required, json_t **out,
                 char **cause)
{
    *out = json_object_get(o, key);
    if (!*out && required)
        return bad(cause, path, key, "missing");
    return BW_OK;
}

static int get_i64(const json_t *o, const char *key, const char *path, bool required, int64_t lo,
                   int64_t hi, int64_t *out, char **cause)
{
    json_t *v;
    int64_t x;
    int rc = field(o, key, path, required, &v, cause);

    if (rc || !v)
        return rc;
    if (!json_is_integer(v))
        return bad(cause, path, key, "expected an integer");
    x = json_integer_value(v);
    if (x < lo || x > hi)
        return bw_fail(cause, BW_ERR_INVALID,
                       "%s.%s: %" PRId64 " is out of range [%" PRId64 ", %" PRId64 "]", path, key,
                       x, lo, hi);
    *out = x;
    return BW_OK;
}

/* A uint64 from an integer >= 0 or a decimal string. */
static int value_u64(const json_t *v, uint64_t *out)
{
    if (json_is_integer(v) && json_integer_value(v) >= 0) {
        *out = (uint64_t)json_integer_value(v);
        return BW_OK;
    }
    if (json_is_string(v)) {
        const char *s = json_string_value(v);
        char *end;
        unsigned long long x;
        if (!*s || *s == '-' || *s == '+' || *s == ' ')
            return BW_ERR_INVALID;
        errno = 0;
        x = strtoull(s, &end, 10);
        if (errno || *end)
            return BW_ERR_INVALID;
        *out = x;
        return BW_OK;
    }
    return BW_ERR_INVALID;
}

static int get_u64(const json_t *o, const char *key, const char *path, bool required, uint64_t hi,
                   uint64_t *out, char **cause)
{
    json_t *v;
    uint64_t x;
    int rc = field(o, key, path, required, &v, cause);

    if (rc || !v)
        return rc;
    if (value_u64(v, &x))
        return bad(cause, path, key, "expected a non-negative integer");
    if (x > hi)
        return bw_fail(cause, BW_ERR_INVALID, "%s.%s: %" PRIu64 " is over the maximum %" PRIu64,
                       path, key, x, hi);
    *out = x;
    return BW_OK;
}

static int get_u32(const json_t *o, const char *key, const char *path, bool required, uint32_t hi,
                   uint32_t *out, char **cause)
{
    uint64_t x = *out;
    int rc = get_u64(o, key, path, required, hi, &x, cause);
    if (!rc)
        *out = (uint32_t)x;
    return rc;
}

/* A double from a number or "inf" / "-inf" / "nan". */
static int value_f64(const json_t *v, double *out)
{
    if (json_is_number(v)) {
        *out = json_number_value(v);
        return BW_OK;
    }
    if (json_is_string(v)) {
        const char *s = json_string_value(v);
        if (strcmp(s, "inf") == 0)
            *out = INFINITY;
        else if (strcmp(s, "-inf") == 0)
            *out = -INFINITY;
        else if (strcmp(s, "nan") == 0)
            *out = NAN;
        else
            return BW_ERR_INVALID;
        return BW_OK;
    }
    return BW_ERR_INVALID;
}

static int get_f64(const json_t *o, const char *key, const char *path, bool required, double *out,
                   char **cause)
{
    json_t *v;
    int rc = field(o, key, path, required, &v, cause);

    if (rc || !v)
        return rc;
    if (value_f64(v, out))
        return bad(cause, path, key, "expected a number, \"inf\", \"-inf\" or \"nan\"");
    return BW_OK;
}

/* A finite double in [lo, hi]. */
static int get_finite(const json_t *o, const char *key, const char *path, bool required, double lo,
                      double hi, double *out, char **cause)
{
    double x = *out;
    int rc = get_f64(o, key, path, required, &x, cause);

    if (rc)
        return rc;
    if (!isfinite(x) || x < lo || x > hi)
        return bw_fail(cause, BW_ERR_INVALID, "%s.%s: %g is not a finite number in [%g, %g]", path,
                       key, x, lo, hi);
    *out = x;
    return BW_OK;
}

static int get_bool(const json_t *o, const char *key, const char *path, bool *out, char **cause)
{
    json_t *v = json_object_get(o, key);

    if (!v)
        return BW_OK;
    if (!json_is_boolean(v))
        return bad(cause, path, key, "expected true or false");
    *out = json_is_true(v);
    return BW_OK;
}

/* Copies o[key] into dst (cap bytes with the NUL). */
static int get_str(const json_t *o, const char *key, const char *path, bool required, char *dst,
                   size_t cap, char **cause)
{
    json_t *v;
    size_t len;
    int rc = field(o, key, path, required, &v, cause);

    if (rc || !v)
        return rc;
    if (!json_is_string(v))
        return bad(cause, path, key, "expected a string");
    len = json_string_length(v);
    if (len >= cap || strlen(json_string_value(v)) != len)
        return bw_fail(cause, BW_ERR_INVALID,
                       "%s.%s: string of %zu bytes is too long (at most "
                       "%zu) or holds a NUL",
                       path, key, len, cap - 1);
    memcpy(dst, json_string_value(v), len + 1);
    return BW_OK;
}

/* An array o[key] of at most `max` entries; *n its length. */
static int get_array(const json_t *o, const char *key, const char *path, bool required, size_t max,
                     json_t **out, size_t *n, char **cause)
{
    int rc = field(o, key, path, required, out, cause);

    *n = 0;
    if (rc || !*out)
        return rc;
    if (!json_is_array(*out))
        return bad(cause, path, key, "expected an array");
    *n = json_array_size(*out);
    if (*n > max)
        return bw_fail(cause, BW_ERR_LIMIT, "%s.%s: %zu entries, over the limit of %zu", path, key,
                       *n, max);
    return BW_OK;
}

const char *msg_type(const json_t *j)
{
    const char *t = json_string_value(json_object_get(j, "type"));
    return t ? t : "";
}

/* --- ready --------------------------------------------------------------------------- */

static const char *const ready_error_names[] = {
    [READY_OK] = "ok",     [READY_NO_DEVICE] = "no_device", [READY_SANDBOX] = "sandbox",
    [READY_CUDA] = "cuda", [READY_USAGE] = "usage",
};

json_t *ready_to_json(const struct ready_msg *r)
{
    json_t *o = json_object(), *g;
    bool ok = o != NULL;
    char cc[16];

    if (!o)
        return NULL;
    put(o, "type", json_string("ready"), &ok);
    if (r->error != READY_OK) {
        put(o, "error",
            json_pack("{s:s, s:s}", "kind", ready_error_names[r->error], "message", r->message),
            &ok);
        return finish(o, ok);
    }
    g = json_object();
    put(o, "gpu", g, &ok);
    if (!g)
        return finish(o, false);
    snprintf(cc, sizeof(cc), "%d.%d", r->gpu.cc_major, r->gpu.cc_minor);
    put(g, "name", json_string(r->gpu.name), &ok);
    put(g, "cc", json_string(cc), &ok);
    put(g, "sm_count", json_integer(r->gpu.sm_count), &ok);
    put(g, "memory_bytes", ju64(r->gpu.memory_bytes), &ok);
    put(g, "l2_bytes", ju64(r->gpu.l2_bytes), &ok);
    put(g, "driver_version", json_integer(r->gpu.driver_version), &ok);
    put(g, "uuid", json_string(r->gpu.uuid), &ok);
    put(g, "max_clock_mhz", json_integer(r->gpu.max_clock_mhz), &ok);
    put(g, "smem_per_block_optin", json_integer(r->gpu.smem_per_block_optin), &ok);
    put(g, "nvml", json_boolean(r->gpu.nvml), &ok);
    return finish(o, ok);
}

int ready_from_json(const json_t *j, struct ready_msg *r, char **cause)
{
    json_t *err, *g;
    char kind[32] = "", cc[16] = "";
    int64_t v;
    int rc;

    memset(r, 0, sizeof(*r));
    if (strcmp(msg_type(j), "ready") != 0)
        return bw_fail(cause, BW_ERR_PROTOCOL, "expected a ready message, got type \"%s\"",
                       msg_type(j));
    err = json_object_get(j, "error");
    if (err) {
        if (!json_is_object(err))
            return bad(cause, "ready", "error", "expected an object");
        rc = get_str(err, "kind", "ready.error", true, kind, sizeof(kind), cause);
        if (!rc)
            rc =
                get_str(err, "message", "ready.error", true, r->message, sizeof(r->message), cause);
        if (rc)
            return rc;
        for (int k = READY_NO_DEVICE; k <= READY_USAGE; k++)
            if (strcmp(kind, ready_error_names[k]) == 0)
                r->error = (enum ready_error)k;
        if (r->error == READY_OK)
            return bw_fail(cause, BW_ERR_INVALID, "ready.error.kind: unknown kind \"%s\"", kind);
        return BW_OK;
    }
    g = json_object_get(j, "gpu");
    if (!json_is_object(g))
        return bad(cause, "ready", "gpu", "expected an object");
    if ((rc = get_str(g, "name", "ready.gpu", true, r->gpu.name, sizeof(r->gpu.name), cause)) ||
        (rc = get_str(g, "cc", "ready.gpu", true, cc, sizeof(cc), cause)) ||
        (rc = get_str(g, "uuid", "ready.gpu", false, r->gpu.uuid, sizeof(r->gpu.uuid), cause)) ||
        (rc = get_u64(g, "memory_bytes", "ready.gpu", true, UINT64_MAX, &r->gpu.memory_bytes,
                      cause)) ||
        (rc = get_u64(g, "l2_bytes", "ready.gpu", true, UINT64_MAX, &r->gpu.l2_bytes, cause)) ||
        (rc = get_bool(g, "nvml", "ready.gpu", &r->gpu.nvml, cause)))
        return rc;
    if (sscanf(cc, "%d.%d", &r->gpu.cc_major, &r->gpu.cc_minor) != 2)
        return bw_fail(cause, BW_ERR_INVALID, "ready.gpu.cc: \"%s\" is not MAJOR.MINOR", cc);
    v = 0;
    if ((rc = get_i64(g, "sm_count", "ready.gpu", true, 1, 1 << 20, &v, cause)))
        return rc;
    r->gpu.sm_count = (int)v;
    v = 0;
    if ((rc = get_i64(g, "driver_version", "ready.gpu", false, 0, INT32_MAX, &v, cause)))
        return rc;
    r->gpu.driver_version = (int)v;
    v = 0;
    if ((rc = get_i64(g, "max_clock_mhz", "ready.gpu", false, 0, INT32_MAX, &v, cause)))
        return rc;
    r->gpu.max_clock_mhz = (int)v;
    v = 0;
    if ((rc = get_i64(g, "smem_per_block_optin", "ready.gpu", false, 0, INT32_MAX, &v, cause)))
        return rc;
    r->gpu.smem_per_block_optin = (int)v;
    return BW_OK;
}

/* --- gen_spec ------------------------------------------------------------------------ */

static const char *const gen_kind_names[] = {
    [GEN_UNIFORM] = "uniform", [GEN_NORMAL] = "normal",   [GEN_LOGUNIFORM] = "loguniform",
    [GEN_CONST] = "const",     [GEN_RANDINT] = "randint",
};

#define GEN_ALL_FLAGS (GEN_NEGATE | GEN_SIGNED | GEN_ROW_OFFSET | GEN_SPIKE)

json_t *gen_spec_to_json(const struct gen_spec *g)
{
    json_t *o = json_object(), *sp;
    bool ok = o != NULL;
    const char *kind =
        g->kind >= GEN_UNIFORM && g->kind <= GEN_RANDINT ? gen_kind_names[g->kind] : "invalid";

    if (!o)
        return NULL;
    put(o, "kind", json_string(kind), &ok);
    put(o, "dtype", json_string(dtype_name((enum dtype)g->dtype)), &ok);
    put(o, "stream", json_integer(g->stream), &ok);
    put(o, "flags", json_integer(g->flags), &ok);
    put(o, "a", jdouble(g->a), &ok);
    put(o, "b", jdouble(g->b), &ok);
    put(o, "ilo", json_integer(g->ilo), &ok);
    put(o, "ihi", json_integer(g->ihi), &ok);
    put(o, "row_len", json_integer(g->row_len), &ok);
    put(o, "row_lo", jdouble(g->row_lo), &ok);
    put(o, "row_hi", jdouble(g->row_hi), &ok);
    put(o, "spike", jdouble(g->spike), &ok);
    sp = json_array();
    put(o, "specials", sp, &ok);
    for (uint32_t i = 0; sp && i < g->n_specials && i < GEN_MAX_SPECIALS; i++) {
        json_t *pair = json_array();
        push(sp, pair, &ok);
        if (pair) {
            push(pair, jdouble(g->special_value[i]), &ok);
            push(pair, jdouble(g->special_fraction[i]), &ok);
        }
    }
    return finish(o, ok);
}

int gen_spec_from_json(const json_t *j, struct gen_spec *g, const char *path, char **cause)
{
    char kind[16] = "", dt[16] = "";
    int64_t v;
    json_t *sp;
    size_t n;
    int rc;

    memset(g, 0, sizeof(*g));
    g->row_len = 1;
    if (!json_is_object(j))
        return bw_fail(cause, BW_ERR_INVALID, "%s: expected an object", path);
    if ((rc = get_str(j, "kind", path, true, kind, sizeof(kind), cause)) ||
        (rc = get_str(j, "dtype", path, true, dt, sizeof(dt), cause)))
        return rc;
    for (uint32_t k = GEN_UNIFORM; k <= GEN_RANDINT; k++)
        if (strcmp(kind, gen_kind_names[k]) == 0)
            g->kind = k;
    if (!g->kind)
        return bw_fail(cause, BW_ERR_INVALID, "%s.kind: unknown distribution \"%s\"", path, kind);
    g->dtype = (uint32_t)dtype_parse(dt);
    if (g->dtype == DTYPE_INVALID)
        return bw_fail(cause, BW_ERR_INVALID, "%s.dtype: unknown dtype \"%s\" (expected %s)", path,
                       dt, dtype_all_names());
    if ((rc = get_u32(j, "stream", path, false, UINT32_MAX, &g->stream, cause)) ||
        (rc = get_u32(j, "flags", path, false, GEN_ALL_FLAGS, &g->flags, cause)))
        return rc;
    if (g->flags & ~(uint32_t)GEN_ALL_FLAGS)
        return bw_fail(cause, BW_ERR_INVALID, "%s.flags: unknown flag bits 0x%x", path, g->flags);
    if ((rc = get_f64(j, "a", path, false, &g->a, cause)) ||
        (rc = get_f64(j, "b", path, false, &g->b, cause)) ||
        (rc = get_i64(j, "ilo", path, false, INT64_MIN, INT64_MAX, &g->ilo, cause)) ||
        (rc = get_i64(j, "ihi", path, false, INT64_MIN, INT64_MAX, &g->ihi, cause)) ||
        (rc = get_f64(j, "spike", path, false, &g->spike, cause)))
        return rc;
    v = 1;
    if ((rc = get_i64(j, "row_len", path, false, 1, INT64_MAX, &v, cause)))
        return rc;
    g->row_len = v;
    if (g->flags & GEN_ROW_OFFSET) {
        if ((rc = get_finite(j, "row_lo", path, true, -1e300, 1e300, &g->row_lo, cause)) ||
            (rc = get_finite(j, "row_hi", path, true, -1e300, 1e300, &g->row_hi, cause)))
            return rc;
    }
    switch (g->kind) {
    case GEN_UNIFORM:
        if (!isfinite(g->a) || !isfinite(g->b) || g->a > g->b)
            return bw_fail(cause, BW_ERR_INVALID, "%s: uniform needs finite a <= b (a=%g, b=%g)",
                           path, g->a, g->b);
        break;
    case GEN_NORMAL:
        if (!isfinite(g->a) || !isfinite(g->b) || g->b < 0)
            return bw_fail(cause, BW_ERR_INVALID,
                           "%s: normal needs a finite mean a and std b >= 0 (a=%g, b=%g)", path,
                           g->a, g->b);
        break;
    case GEN_LOGUNIFORM:
        if (!isfinite(g->a) || !isfinite(g->b) || !(g->a > 0) || g->a > g->b)
            return bw_fail(cause, BW_ERR_INVALID,
                           "%s: loguniform needs finite 0 < a <= b (a=%g, b=%g)", path, g->a, g->b);
        break;
    case GEN_RANDINT:
        if (g->ilo > g->ihi)
            return bw_fail(cause, BW_ERR_INVALID,
                           "%s: randint needs ilo <= ihi (ilo=%" PRId64 ", ihi=%" PRId64 ")", path,
                           g->ilo, g->ihi);
        break;
    default:
        break;
    }
    if ((rc = get_array(j, "specials", path, false, GEN_MAX_SPECIALS, &sp, &n, cause)))
        return rc;
    for (size_t i = 0; i < n; i++) {
        json_t *pair = json_array_get(sp, i);
        double f;
        if (!json_is_array(pair) || json_array_size(pair) != 2 ||
            value_f64(json_array_get(pair, 0), &g->special_value[i]) ||
            value_f64(json_array_get(pair, 1), &f) || !(f >= 0 && f <= 1))
            return bw_fail(cause, BW_ERR_INVALID,
                           "%s.specials[%zu]: expected [value, fraction] with fraction in [0, 1]",
                           path, i);
        g->special_fraction[i] = f;
    }
    g->n_specials = (uint32_t)n;
    return BW_OK;
}

/* --- load -------------------------------------------------------------------------- */

json_t *load_request_to_json(const struct load_request *r)
{
    json_t *o = json_object(), *k = json_array();
    bool ok = o && k;

    if (!o || !k) {
        json_decref(o);
        json_decref(k);
        return NULL;
    }
    put(o, "type", json_string("load"), &ok);
    put(o, "kernels", k, &ok);
    for (int i = 0; i < r->n_kernels; i++)
        push(k, json_string(r->kernels[i]), &ok);
    if (r->n_images > 0) {
        json_t *im = json_array();
        put(o, "images", im, &ok);
        for (int i = 0; ok && i < r->n_images; i++)
            push(im,
                 json_pack("{s:I, s:I, s:s}", "offset", (json_int_t)r->images[i].offset, "bytes",
                           (json_int_t)r->images[i].bytes, "symbol", r->images[i].symbol),
                 &ok);
    }
    return finish(o, ok);
}

int load_request_from_json(const json_t *j, struct load_request *r, char **cause)
{
    json_t *k;
    size_t n;
    int rc;

    memset(r, 0, sizeof(*r));
    rc = get_array(j, "kernels", "load", true, BW_MAX_LOADED_KERNELS, &k, &n, cause);
    if (rc)
        return rc;
    if (n == 0)
        return bw_fail(cause, BW_ERR_INVALID, "load.kernels: no kernel named");
    for (size_t i = 0; i < n; i++) {
        const char *s = json_string_value(json_array_get(k, i));
        if (!s || !is_identifier(s))
            return bw_fail(cause, BW_ERR_INVALID, "load.kernels[%zu]: expected a kernel name", i);
        snprintf(r->kernels[i], sizeof(r->kernels[i]), "%s", s);
    }
    r->n_kernels = (int)n;
    if (json_object_get(j, "images")) {
        json_t *im;
        size_t ni;
        rc = get_array(j, "images", "load", true, BW_MAX_LOADED_KERNELS, &im, &ni, cause);
        if (rc)
            return rc;
        if (ni != n)
            return bw_fail(cause, BW_ERR_INVALID,
                           "load.images: %zu images for %zu kernels (one image per kernel)", ni, n);
        for (size_t i = 0; i < ni; i++) {
            json_t *e = json_array_get(im, i);
            json_t *off = json_object_get(e, "offset"), *bytes = json_object_get(e, "bytes");
            const char *sym = json_string_value(json_object_get(e, "symbol"));
            if (!json_is_integer(off) || json_integer_value(off) < 0 ||
                json_integer_value(off) % 8 != 0)
                return bw_fail(cause, BW_ERR_INVALID,
                               "load.images[%zu].offset: expected a multiple of 8, >= 0", i);
            if (!json_is_integer(bytes) || json_integer_value(bytes) < 1 ||
                json_integer_value(bytes) > BW_MAX_CUBIN_BYTES)
                return bw_fail(cause, BW_ERR_INVALID,
                               "load.images[%zu].bytes: expected an integer in [1, %d]", i,
                               BW_MAX_CUBIN_BYTES);
            if (!sym || !is_identifier(sym))
                return bw_fail(cause, BW_ERR_INVALID,
                               "load.images[%zu].symbol: expected a kernel name", i);
            r->images[i].offset = (uint64_t)json_integer_value(off);
            r->images[i].bytes = (uint64_t)json_integer_value(bytes);
            snprintf(r->images[i].symbol, sizeof(r->images[i].symbol), "%s", sym);
        }
        r->n_images = (int)ni;
    }
    return BW_OK;
}

/* --- failures and statuses --------------------------------------------------------- */

static const char *const run_status_names[] = {
    [RUN_OK] = "ok",
    [RUN_CUDA_ERROR] = "cuda_error",
    [RUN_LAUNCH_ERROR] = "launch_error",
    [RUN_GUARD_VIOLATION] = "guard_violation",
    [RUN_INPUT_MODIFIED] = "input_modified",
    [RUN_ARG_MISMATCH] = "arg_mismatch",
    [RUN_ERROR] = "error",
};

const char *run_status_name(enum run_status s)
{
    if ((unsigned)s > RUN_ERROR)
        return "invalid";
    return run_status_names[s];
}

void run_failure_init(struct run_failure *f)
{
    memset(f, 0, sizeof(*f));
    f->status = RUN_OK;
    f->launch = -1;
    f->buf = -1;
    f->sample = -1;
}

/* Adds the status and the failure's fields to reply o. */
static void put_failure(json_t *o, const struct run_failure *f, bool *ok)
{
    put(o, "status", json_string(run_status_name(f->status)), ok);
    if (f->status == RUN_OK)
        return;
    if (f->error[0])
        put(o, "error", json_string(f->error), ok);
    put(o, "message", json_string(f->message), ok);
    if (f->launch >= 0)
        put(o, "launch", json_integer(f->launch), ok);
    if (f->buf >= 0)
        put(o, "buf", json_integer(f->buf), ok);
    if (f->status == RUN_GUARD_VIOLATION) {
        put(o, "where", json_string(f->after ? "after" : "before"), ok);
        put(o, "offset", json_integer(f->offset), ok);
    }
    if (f->sample >= 0)
        put(o, "sample", json_integer(f->sample), ok);
    if (f->in_warmup)
        put(o, "warmup", json_true(), ok);
}

/* Reads status and failure fields from reply j of the expected type. */
static int get_failure(const json_t *j, const char *type, struct run_failure *f, char **cause)
{
    char status[32] = "", where[16] = "";
    int64_t v;
    int rc, found;

    run_failure_init(f);
    if (strcmp(msg_type(j), type) != 0)
        return bw_fail(cause, BW_ERR_PROTOCOL, "expected a %s reply, got type \"%s\"", type,
                       msg_type(j));
    if ((rc = get_str(j, "status", type, true, status, sizeof(status), cause)))
        return rc;
    found = -1;
    for (int s = RUN_OK; s <= RUN_ERROR; s++)
        if (strcmp(status, run_status_names[s]) == 0)
            found = s;
    if (found < 0)
        return bw_fail(cause, BW_ERR_INVALID, "%s.status: unknown status \"%s\"", type, status);
    f->status = (enum run_status)found;
    if (f->status == RUN_OK)
        return BW_OK;
    if ((rc = get_str(j, "error", type, false, f->error, sizeof(f->error), cause)))
        return rc;
    /* A message longer than ours is cut, not refused: it is only words. */
    snprintf(f->message, sizeof(f->message), "%s",
             json_string_value(json_object_get(j, "message"))
                 ? json_string_value(json_object_get(j, "message"))
                 : "");
    v = -1;
    if ((rc = get_i64(j, "launch", type, false, -1, BW_MAX_LAUNCHES - 1, &v, cause)))
        return rc;
    f->launch = (int)v;
    v = -1;
    if ((rc = get_i64(j, "buf", type, false, -1, BW_MAX_BUFFERS - 1, &v, cause)))
        return rc;
    f->buf = (int)v;
    if ((rc = get_i64(j, "sample", type, false, -1, INT32_MAX, &f->sample, cause)) ||
        (rc = get_bool(j, "warmup", type, &f->in_warmup, cause)))
        return rc;
    if (f->status == RUN_GUARD_VIOLATION) {
        if ((rc = get_str(j, "where", type, true, where, sizeof(where), cause)) ||
            (rc = get_i64(j, "offset", type, true, INT64_MIN, INT64_MAX, &f->offset, cause)))
            return rc;
        if (strcmp(where, "before") != 0 && strcmp(where, "after") != 0)
            return bw_fail(cause, BW_ERR_INVALID, "%s.where: expected before or after, got \"%s\"",
                           type, where);
        f->after = strcmp(where, "after") == 0;
        if (f->buf < 0)
            return bad(cause, type, "buf", "missing for a guard violation");
    }
    if (f->status == RUN_INPUT_MODIFIED && f->buf < 0)
        return bad(cause, type, "buf", "missing for a modified input");
    return BW_OK;
}

json_t *error_reply_to_json(const char *type, const char *message)
{
    struct run_failure f;
    json_t *o = json_object();
    bool ok = o != NULL;

    if (!o)
        return NULL;
    run_failure_init(&f);
    f.status = RUN_ERROR;
    snprintf(f.message, sizeof(f.message), "%s", message ? message : "unknown error");
    put(o, "type", json_string(type), &ok);
    put_failure(o, &f, &ok);
    return finish(o, ok);
}

json_t *load_reply_to_json(const struct load_reply *r)
{
    json_t *o = json_object(), *ks;
    bool ok = o != NULL;

    if (!o)
        return NULL;
    put(o, "type", json_string("loaded"), &ok);
    put_failure(o, &r->fail, &ok);
    if (r->fail.status != RUN_OK)
        return finish(o, ok);
    ks = json_object();
    put(o, "kernels", ks, &ok);
    for (int i = 0; ks && i < r->n_kernels; i++) {
        const struct kernel_info *k = &r->kernels[i];
        json_t *ko = json_object(), *params = json_array();
        bool kok = ko && params;
        if (!kok) {
            json_decref(ko);
            json_decref(params);
            ok = false;
            break;
        }
        put(ko, "params", params, &kok);
        for (int p = 0; p < k->n_params; p++)
            push(params, json_integer(k->param_bytes[p]), &kok);
        put(ko, "regs", json_integer(k->regs), &kok);
        put(ko, "static_smem", json_integer(k->static_smem), &kok);
        put(ko, "local_bytes", json_integer(k->local_bytes), &kok);
        put(ko, "max_threads", json_integer(k->max_threads), &kok);
        if (!kok) {
            json_decref(ko);
            ok = false;
            break;
        }
        put(ks, k->name, ko, &ok);
    }
    return finish(o, ok);
}

int load_reply_from_json(const json_t *j, struct load_reply *r, char **cause)
{
    const char *name;
    json_t *ks, *ko;
    int rc;

    memset(r, 0, sizeof(*r));
    rc = get_failure(j, "loaded", &r->fail, cause);
    if (rc || r->fail.status != RUN_OK)
        return rc;
    ks = json_object_get(j, "kernels");
    if (!json_is_object(ks))
        return bad(cause, "loaded", "kernels", "expected an object");
    if (json_object_size(ks) > BW_MAX_LOADED_KERNELS)
        return bw_fail(cause, BW_ERR_INVALID, "loaded.kernels: %zu kernels, more than asked for",
                       json_object_size(ks));
    json_object_foreach (ks, name, ko) {
        struct kernel_info *k = &r->kernels[r->n_kernels];
        json_t *params;
        size_t n;
        int64_t v;

        if (!is_identifier(name))
            return bw_fail(cause, BW_ERR_INVALID, "loaded.kernels: invalid kernel name");
        if (!json_is_object(ko))
            return bad(cause, "loaded.kernels", name, "expected an object");
        snprintf(k->name, sizeof(k->name), "%s", name);
        if ((rc = get_array(ko, "params", "loaded.kernels", true, BW_MAX_LAUNCH_ARGS, &params, &n,
                            cause)))
            return rc;
        for (size_t p = 0; p < n; p++) {
            json_t *pv = json_array_get(params, p);
            if (!json_is_integer(pv) || json_integer_value(pv) < 1 ||
                json_integer_value(pv) > 32764)
                return bw_fail(cause, BW_ERR_INVALID,
                               "loaded.kernels.%s.params[%zu]: expected a "
                               "size in bytes",
                               name, p);
            k->param_bytes[p] = (uint32_t)json_integer_value(pv);
        }
        k->n_params = (int)n;
        v = 0;
        if ((rc = get_i64(ko, "regs", "loaded.kernels", true, 0, 1 << 16, &v, cause)))
            return rc;
        k->regs = (int)v;
        if ((rc = get_i64(ko, "static_smem", "loaded.kernels", true, 0, INT32_MAX, &v, cause)))
            return rc;
        k->static_smem = (int)v;
        if ((rc = get_i64(ko, "local_bytes", "loaded.kernels", true, 0, INT32_MAX, &v, cause)))
            return rc;
        k->local_bytes = (int)v;
        if ((rc = get_i64(ko, "max_threads", "loaded.kernels", true, 0, 1 << 16, &v, cause)))
            return rc;
        k->max_threads = (int)v;
        r->n_kernels++;
    }
    return BW_OK;
}

/* --- plans --------------------------------------------------------------------------- */

static const char *const role_names[] = {
    [RUN_ROLE_IN] = "in",           [RUN_ROLE_INOUT] = "inout", [RUN_ROLE_OUT] = "out",
    [RUN_ROLE_SCRATCH] = "scratch", [RUN_ROLE_DATA] = "data",
};

/* Argument kinds and their JSON keys, in enum order. */
static const char *const arg_keys[] = {
    [RUN_ARG_BUF] = "buf", [RUN_ARG_I64] = "i64", [RUN_ARG_I32] = "i32", [RUN_ARG_U64] = "u64",
    [RUN_ARG_U32] = "u32", [RUN_ARG_F32] = "f32", [RUN_ARG_F64] = "f64", [RUN_ARG_INT] = "int",
};

uint64_t run_plan_gather_span(const struct run_plan *p)
{
    uint64_t span = 0;
    for (int k = 0; k < p->n_gather; k++)
        if (p->gather[k].offset + p->gather[k].count > span)
            span = p->gather[k].offset + p->gather[k].count;
    return span;
}

uint64_t run_plan_gather_bytes(const struct run_plan *p)
{
    uint64_t bytes = 0;
    for (int k = 0; k < p->n_gather; k++)
        bytes += p->gather[k].count * dtype_size(p->buffers[p->gather[k].buf].dtype);
    return bytes;
}

static json_t *dim3_json(const uint32_t v[3])
{
    return json_pack("[I, I, I]", (json_int_t)v[0], (json_int_t)v[1], (json_int_t)v[2]);
}

static json_t *arg_json(const struct run_arg *a)
{
    json_t *o = json_object(), *v = NULL;
    bool ok = o != NULL;

    if (!o)
        return NULL;
    switch (a->kind) {
    case RUN_ARG_BUF:
        v = json_integer(a->buf);
        break;
    case RUN_ARG_I64:
    case RUN_ARG_I32:
    case RUN_ARG_INT:
        v = json_integer(a->i);
        break;
    case RUN_ARG_U64:
    case RUN_ARG_U32:
        v = ju64(a->u);
        break;
    case RUN_ARG_F32:
    case RUN_ARG_F64:
        v = jdouble(a->f);
        break;
    default:
        ok = false;
        break;
    }
    if (ok)
        put(o, arg_keys[a->kind], v, &ok);
    if (a->name[0])
        put(o, "name", json_string(a->name), &ok);
    return finish(o, ok);
}

/* Adds seed, case, buffers, launches and gather of plan p to o. */
static void put_plan(json_t *o, const struct run_plan *p, bool *ok)
{
    json_t *bufs = json_array(), *launches = json_array(), *gather = json_array();
    char seed[24];

    snprintf(seed, sizeof(seed), "%016" PRIx64, p->seed);
    put(o, "seed", json_string(seed), ok);
    put(o, "case", json_integer(p->case_index), ok);
    put(o, "buffers", bufs, ok);
    put(o, "launches", launches, ok);
    put(o, "gather", gather, ok);
    if (!*ok)
        return;
    for (int i = 0; i < p->n_buffers; i++) {
        const struct run_buffer *b = &p->buffers[i];
        json_t *bo = json_object();
        bool bok = bo != NULL;
        if (bo) {
            put(bo, "name", json_string(b->name), &bok);
            put(bo, "dtype", json_string(dtype_name(b->dtype)), &bok);
            put(bo, "count", ju64(b->count), &bok);
            put(bo, "role",
                json_string(b->role >= RUN_ROLE_IN && b->role <= RUN_ROLE_DATA ? role_names[b->role]
                                                                               : "invalid"),
                &bok);
            if (b->role == RUN_ROLE_IN || b->role == RUN_ROLE_INOUT)
                put(bo, "gen", gen_spec_to_json(&b->gen), &bok);
        }
        if (!bok) {
            json_decref(bo);
            *ok = false;
            return;
        }
        push(bufs, bo, ok);
    }
    for (int l = 0; l < p->n_launches; l++) {
        const struct run_launch *L = &p->launches[l];
        json_t *lo = json_object(), *args = json_array();
        bool lok = lo && args;
        if (lo && args) {
            put(lo, "kernel", json_string(L->kernel), &lok);
            put(lo, "grid", dim3_json(L->grid), &lok);
            put(lo, "block", dim3_json(L->block), &lok);
            put(lo, "smem", json_integer(L->smem), &lok);
            for (int a = 0; a < L->n_args; a++)
                push(args, arg_json(&L->args[a]), &lok);
            put(lo, "args", args, &lok);
            args = NULL;
        }
        json_decref(args);
        if (!lok) {
            json_decref(lo);
            *ok = false;
            return;
        }
        push(launches, lo, ok);
    }
    for (int k = 0; k < p->n_gather; k++)
        push(gather,
             json_pack("{s:i, s:o, s:o}", "buf", p->gather[k].buf, "offset",
                       ju64(p->gather[k].offset), "count", ju64(p->gather[k].count)),
             ok);
}

static int get_dim3(const json_t *o, const char *key, const char *path, uint32_t v[3], char **cause)
{
    json_t *a;
    size_t n;
    int rc = get_array(o, key, path, true, 3, &a, &n, cause);

    if (rc)
        return rc;
    if (n == 0)
        return bad(cause, path, key, "expected 1 to 3 integers");
    v[0] = v[1] = v[2] = 1;
    for (size_t i = 0; i < n; i++) {
        uint64_t x;
        if (value_u64(json_array_get(a, i), &x) || x > UINT32_MAX)
            return bw_fail(cause, BW_ERR_INVALID, "%s.%s[%zu]: expected an integer in [0, %u]",
                           path, key, i, UINT32_MAX);
        v[i] = (uint32_t)x;
    }
    return BW_OK;
}

static int get_arg(const json_t *j, const char *path, int n_buffers, struct run_arg *a,
                   char **cause)
{
    const char *key;
    json_t *v;
    int found = 0;
    int rc;

    memset(a, 0, sizeof(*a));
    if (!json_is_object(j))
        return bw_fail(cause, BW_ERR_INVALID, "%s: expected an object", path);
    if ((rc = get_str(j, "name", path, false, a->name, sizeof(a->name), cause)))
        return rc;
    json_object_foreach ((json_t *)j, key, v) {
        if (strcmp(key, "name") == 0)
            continue;
        for (int k = RUN_ARG_BUF; k <= RUN_ARG_INT; k++) {
            if (strcmp(key, arg_keys[k]) != 0)
                continue;
            a->kind = (enum run_arg_kind)k;
            found++;
        }
    }
    if (found != 1)
        return bw_fail(cause, BW_ERR_INVALID,
                       "%s: expected exactly one of buf, i64, i32, u64, u32, f32, f64, int", path);
    key = arg_keys[a->kind];
    switch (a->kind) {
    case RUN_ARG_BUF: {
        int64_t b = 0;
        rc = get_i64(j, key, path, true, 0, n_buffers - 1, &b, cause);
        a->buf = (int)b;
        return rc;
    }
    case RUN_ARG_I64:
    case RUN_ARG_INT:
        return get_i64(j, key, path, true, INT64_MIN, INT64_MAX, &a->i, cause);
    case RUN_ARG_I32:
        return get_i64(j, key, path, true, INT32_MIN, INT32_MAX, &a->i, cause);
    case RUN_ARG_U64:
        return get_u64(j, key, path, true, UINT64_MAX, &a->u, cause);
    case RUN_ARG_U32:
        return get_u64(j, key, path, true, UINT32_MAX, &a->u, cause);
    case RUN_ARG_F32:
    case RUN_ARG_F64:
        return get_f64(j, key, path, true, &a->f, cause);
    }
    return BW_ERR_INTERNAL;
}

static int get_plan(const json_t *j, const char *type, struct run_plan *p, char **cause)
{
    char seed[24] = "", path[96], role[16], dt[16];
    json_t *bufs, *launches, *gather;
    size_t n;
    uint64_t total = 0;
    int64_t v;
    int rc;

    memset(p, 0, sizeof(*p));
    if ((rc = get_str(j, "seed", type, true, seed, sizeof(seed), cause)))
        return rc;
    if (!seed[0] || strlen(seed) > 16 || strspn(seed, "0123456789abcdefABCDEF") != strlen(seed))
        return bw_fail(cause, BW_ERR_INVALID, "%s.seed: \"%s\" is not 1 to 16 hex digits", type,
                       seed);
    p->seed = strtoull(seed, NULL, 16);
    v = 0;
    if ((rc = get_i64(j, "case", type, true, 0, (1 << 30) - 1, &v, cause)))
        return rc;
    p->case_index = (uint32_t)v;

    if ((rc = get_array(j, "buffers", type, true, BW_MAX_BUFFERS, &bufs, &n, cause)))
        return rc;
    p->n_buffers = (int)n;
    for (size_t i = 0; i < n; i++) {
        struct run_buffer *b = &p->buffers[i];
        json_t *bo = json_array_get(bufs, i), *gen;
        size_t es;

        snprintf(path, sizeof(path), "%s.buffers[%zu]", type, i);
        if (!json_is_object(bo))
            return bw_fail(cause, BW_ERR_INVALID, "%s: expected an object", path);
        if ((rc = get_str(bo, "name", path, true, b->name, sizeof(b->name), cause)) ||
            (rc = get_str(bo, "dtype", path, true, dt, sizeof(dt), cause)) ||
            (rc = get_str(bo, "role", path, true, role, sizeof(role), cause)))
            return rc;
        if (!is_identifier(b->name))
            return bw_fail(cause, BW_ERR_INVALID, "%s.name: \"%s\" is not a name", path, b->name);
        b->dtype = dtype_parse(dt);
        if (b->dtype == DTYPE_INVALID)
            return bw_fail(cause, BW_ERR_INVALID, "%s.dtype: unknown dtype \"%s\" (expected %s)",
                           path, dt, dtype_all_names());
        es = dtype_size(b->dtype);
        if ((rc = get_u64(bo, "count", path, true, UINT64_MAX, &b->count, cause)))
            return rc;
        if (b->count > BW_MAX_TENSOR_BYTES / es)
            return bw_fail(cause, BW_ERR_LIMIT,
                           "%s.count: %" PRIu64 " elements of %s are over BW_MAX_TENSOR_BYTES "
                           "(%llu bytes)",
                           path, b->count, dtype_name(b->dtype),
                           (unsigned long long)BW_MAX_TENSOR_BYTES);
        total += b->count * es;
        for (int r = RUN_ROLE_IN; r <= RUN_ROLE_DATA; r++)
            if (strcmp(role, role_names[r]) == 0)
                b->role = (enum run_role)r;
        if (!b->role)
            return bw_fail(cause, BW_ERR_INVALID,
                           "%s.role: unknown role \"%s\" (expected in, inout, out, scratch, data)",
                           path, role);
        if (b->role == RUN_ROLE_DATA && b->dtype != DTYPE_INT64)
            return bw_fail(cause, BW_ERR_INVALID, "%s.dtype: a data buffer is int64, not %s", path,
                           dtype_name(b->dtype));
        gen = json_object_get(bo, "gen");
        if (b->role == RUN_ROLE_IN || b->role == RUN_ROLE_INOUT) {
            char gpath[112];
            snprintf(gpath, sizeof(gpath), "%s.gen", path);
            if (!gen)
                return bw_fail(cause, BW_ERR_INVALID, "%s: missing (a generated buffer)", gpath);
            if ((rc = gen_spec_from_json(gen, &b->gen, gpath, cause)))
                return rc;
            if (b->gen.dtype != (uint32_t)b->dtype)
                return bw_fail(cause, BW_ERR_INVALID, "%s.dtype: %s differs from the buffer's %s",
                               gpath, dtype_name((enum dtype)b->gen.dtype), dtype_name(b->dtype));
        } else if (gen) {
            return bw_fail(cause, BW_ERR_INVALID,
                           "%s.gen: only in and inout buffers are "
                           "generated",
                           path);
        }
    }
    if (total > BW_MAX_CASE_BYTES)
        return bw_fail(cause, BW_ERR_LIMIT,
                       "%s: buffers of %" PRIu64 " bytes in all, over BW_MAX_CASE_BYTES (%llu)",
                       type, total, (unsigned long long)BW_MAX_CASE_BYTES);

    if ((rc = get_array(j, "launches", type, true, BW_MAX_LAUNCHES, &launches, &n, cause)))
        return rc;
    if (n == 0)
        return bw_fail(cause, BW_ERR_INVALID, "%s.launches: a plan needs at least one launch",
                       type);
    p->n_launches = (int)n;
    for (size_t l = 0; l < n; l++) {
        struct run_launch *L = &p->launches[l];
        json_t *lo = json_array_get(launches, l), *args;
        size_t na;

        snprintf(path, sizeof(path), "%s.launches[%zu]", type, l);
        if (!json_is_object(lo))
            return bw_fail(cause, BW_ERR_INVALID, "%s: expected an object", path);
        if ((rc = get_str(lo, "kernel", path, true, L->kernel, sizeof(L->kernel), cause)) ||
            (rc = get_dim3(lo, "grid", path, L->grid, cause)) ||
            (rc = get_dim3(lo, "block", path, L->block, cause)) ||
            (rc = get_u32(lo, "smem", path, false, UINT32_MAX, &L->smem, cause)) ||
            (rc = get_array(lo, "args", path, true, BW_MAX_LAUNCH_ARGS, &args, &na, cause)))
            return rc;
        if (!is_identifier(L->kernel))
            return bw_fail(cause, BW_ERR_INVALID, "%s.kernel: \"%s\" is not a kernel name", path,
                           L->kernel);
        L->n_args = (int)na;
        for (size_t a = 0; a < na; a++) {
            char apath[128];
            snprintf(apath, sizeof(apath), "%s.args[%zu]", path, a);
            if ((rc = get_arg(json_array_get(args, a), apath, p->n_buffers, &L->args[a], cause)))
                return rc;
        }
    }

    if ((rc = get_array(j, "gather", type, false, BW_MAX_BUFFERS, &gather, &n, cause)))
        return rc;
    p->n_gather = (int)n;
    for (size_t k = 0; k < n; k++) {
        struct run_gather *g = &p->gather[k];
        json_t *go = json_array_get(gather, k);
        int64_t b = 0;

        snprintf(path, sizeof(path), "%s.gather[%zu]", type, k);
        if (!json_is_object(go))
            return bw_fail(cause, BW_ERR_INVALID, "%s: expected an object", path);
        if ((rc = get_i64(go, "buf", path, true, 0, p->n_buffers - 1, &b, cause)) ||
            (rc = get_u64(go, "offset", path, true, UINT32_MAX, &g->offset, cause)) ||
            (rc = get_u64(go, "count", path, true, UINT32_MAX, &g->count, cause)))
            return rc;
        g->buf = (int)b;
        if (p->buffers[b].role != RUN_ROLE_OUT && p->buffers[b].role != RUN_ROLE_INOUT)
            return bw_fail(cause, BW_ERR_INVALID, "%s.buf: buffer %d (%s) is not an output", path,
                           g->buf, p->buffers[b].name);
    }
    return BW_OK;
}

json_t *run_request_to_json(const struct run_request *r)
{
    json_t *o = json_object();
    bool ok = o != NULL;

    if (!o)
        return NULL;
    put(o, "type", json_string("run"), &ok);
    put_plan(o, &r->plan, &ok);
    put(o, "return", json_string(r->ret == RUN_RETURN_GATHER ? "gather" : "full"), &ok);
    return finish(o, ok);
}

int run_request_from_json(const json_t *j, struct run_request *r, char **cause)
{
    char ret[16] = "full";
    const json_t *into, *lend;
    int rc;

    memset(r, 0, sizeof(*r));
    if ((rc = get_plan(j, "run", &r->plan, cause)) ||
        (rc = get_str(j, "return", "run", false, ret, sizeof(ret), cause)))
        return rc;
    if (strcmp(ret, "full") == 0)
        r->ret = RUN_RETURN_FULL;
    else if (strcmp(ret, "gather") == 0)
        r->ret = RUN_RETURN_GATHER;
    else
        return bw_fail(cause, BW_ERR_INVALID, "run.return: expected full or gather, got \"%s\"",
                       ret);
    r->into = -1;
    into = json_object_get(j, "into");
    lend = json_object_get(j, "lend");
    if (into) {
        if (!json_is_integer(into) || json_integer_value(into) < 0 ||
            json_integer_value(into) >= BW_RUNNER_LENT_SLOTS)
            return bw_fail(cause, BW_ERR_INVALID, "run.into: expected a lent buffer 0..%d",
                           BW_RUNNER_LENT_SLOTS - 1);
        if (r->ret != RUN_RETURN_FULL)
            return bw_fail(cause, BW_ERR_INVALID,
                           "run.into: only a full return goes into a "
                           "lent buffer");
        r->into = (int)json_integer_value(into);
    }
    if (lend) {
        if (!json_is_boolean(lend))
            return bw_fail(cause, BW_ERR_INVALID, "run.lend: expected true or false");
        if (json_is_true(lend) && r->into < 0)
            return bw_fail(cause, BW_ERR_INVALID, "run.lend: lends a buffer without \"into\"");
        r->lend = json_is_true(lend);
    }
    return BW_OK;
}

uint64_t run_plan_return_bytes(const struct run_plan *p)
{
    uint64_t total = 0;

    for (int b = 0; b < p->n_buffers; b++)
        if (p->buffers[b].role == RUN_ROLE_OUT || p->buffers[b].role == RUN_ROLE_INOUT)
            total += p->buffers[b].count * dtype_size(p->buffers[b].dtype);
    return total;
}

json_t *bench_request_to_json(const struct bench_request *r)
{
    json_t *o = json_object();
    bool ok = o != NULL;

    if (!o)
        return NULL;
    put(o, "type", json_string("bench"), &ok);
    put_plan(o, &r->plan, &ok);
    put(o, "sets", json_integer(r->sets), &ok);
    put(o, "min_samples", json_integer(r->min_samples), &ok);
    put(o, "max_samples", json_integer(r->max_samples), &ok);
    put(o, "target_rse", jdouble(r->target_rse), &ok);
    put(o, "budget_ms", jdouble(r->budget_ms), &ok);
    put(o, "warmup_ms", jdouble(r->warmup_ms), &ok);
    put(o, "l2_flush_bytes", ju64(r->l2_flush_bytes), &ok);
    return finish(o, ok);
}

int bench_request_from_json(const json_t *j, struct bench_request *r, char **cause)
{
    int rc;

    memset(r, 0, sizeof(*r));
    r->sets = 1;
    if ((rc = get_plan(j, "bench", &r->plan, cause)) ||
        (rc = get_u32(j, "sets", "bench", false, BW_MAX_BENCH_SETS, &r->sets, cause)) ||
        (rc = get_u32(j, "min_samples", "bench", true, BW_BENCH_MAX_SAMPLES, &r->min_samples,
                      cause)) ||
        (rc = get_u32(j, "max_samples", "bench", true, BW_BENCH_MAX_SAMPLES, &r->max_samples,
                      cause)) ||
        (rc = get_finite(j, "target_rse", "bench", true, 0, 1, &r->target_rse, cause)) ||
        (rc = get_finite(j, "budget_ms", "bench", true, 0, 3600e3, &r->budget_ms, cause)) ||
        (rc = get_finite(j, "warmup_ms", "bench", false, 0, 3600e3, &r->warmup_ms, cause)) ||
        (rc = get_u64(j, "l2_flush_bytes", "bench", false, BW_MAX_TENSOR_BYTES, &r->l2_flush_bytes,
                      cause)))
        return rc;
    if (r->sets < 1)
        return bw_fail(cause, BW_ERR_INVALID, "bench.sets: at least 1 input set");
    if (r->min_samples < 1 || r->max_samples < r->min_samples)
        return bw_fail(cause, BW_ERR_INVALID,
                       "bench: need 1 <= min_samples (%u) <= max_samples (%u)", r->min_samples,
                       r->max_samples);
    if (r->plan.case_index + (uint64_t)r->sets > (1u << 30))
        return bw_fail(cause, BW_ERR_INVALID, "bench: case %u + %u sets passes 2^30",
                       r->plan.case_index, r->sets);
    return BW_OK;
}

/* --- run and bench replies -------------------------------------------------------- */

static const char *const run_phase_names[RUN_PHASES] = {
    [RUN_PHASE_SETUP] = "setup",   [RUN_PHASE_LAUNCH] = "launch", [RUN_PHASE_CHECKS] = "checks",
    [RUN_PHASE_RETURN] = "return", [RUN_PHASE_FREE] = "free",
};

const char *run_phase_name(enum run_phase p)
{
    return (unsigned)p < RUN_PHASES ? run_phase_names[p] : "?";
}

json_t *run_reply_to_json(const struct run_reply *r)
{
    json_t *o = json_object(), *outs, *phases;
    bool ok = o != NULL;

    if (!o)
        return NULL;
    put(o, "type", json_string("result"), &ok);
    put_failure(o, &r->fail, &ok);
    if (r->fail.status != RUN_OK)
        return finish(o, ok);
    put(o, "ms", jdouble(r->ms), &ok);
    phases = json_object();
    put(o, "phases", phases, &ok);
    for (int k = 0; phases && k < RUN_PHASES; k++)
        if (json_object_set_new(phases, run_phase_name((enum run_phase)k), jdouble(r->phase_ms[k])))
            ok = false;
    outs = json_array();
    put(o, "outputs", outs, &ok);
    for (int k = 0; outs && k < r->n_outputs; k++)
        push(outs,
             json_pack("{s:i, s:o, s:o}", "buf", r->outputs[k].buf, "offset",
                       ju64(r->outputs[k].offset), "bytes", ju64(r->outputs[k].bytes)),
             &ok);
    return finish(o, ok);
}

int run_reply_from_json(const json_t *j, struct run_reply *r, char **cause)
{
    json_t *outs, *phases;
    size_t n;
    int rc;

    memset(r, 0, sizeof(*r));
    rc = get_failure(j, "result", &r->fail, cause);
    if (rc || r->fail.status != RUN_OK)
        return rc;
    if ((rc = get_f64(j, "ms", "result", false, &r->ms, cause)) ||
        (rc = get_array(j, "outputs", "result", true, BW_MAX_BUFFERS, &outs, &n, cause)))
        return rc;
    phases = json_object_get(j, "phases");
    if (phases && !json_is_object(phases))
        return bw_fail(cause, BW_ERR_INVALID, "result.phases: expected an object");
    for (int k = 0; phases && k < RUN_PHASES; k++)
        if ((rc = get_finite(phases, run_phase_name((enum run_phase)k), "result.phases", false, 0,
                             1e12, &r->phase_ms[k], cause)))
            return rc;
    r->n_outputs = (int)n;
    for (size_t k = 0; k < n; k++) {
        json_t *oo = json_array_get(outs, k);
        char path[48];
        int64_t b = 0;
        snprintf(path, sizeof(path), "result.outputs[%zu]", k);
        if (!json_is_object(oo))
            return bw_fail(cause, BW_ERR_INVALID, "%s: expected an object", path);
        if ((rc = get_i64(oo, "buf", path, true, 0, BW_MAX_BUFFERS - 1, &b, cause)) ||
            (rc = get_u64(oo, "offset", path, true, BW_MAX_RETURN_BYTES, &r->outputs[k].offset,
                          cause)) ||
            (rc = get_u64(oo, "bytes", path, true, BW_MAX_RETURN_BYTES, &r->outputs[k].bytes,
                          cause)))
            return rc;
        r->outputs[k].buf = (int)b;
    }
    return BW_OK;
}

static const char *const stop_names[] = {
    [BENCH_STOP_RSE] = "rse",
    [BENCH_STOP_MAX_SAMPLES] = "max",
    [BENCH_STOP_BUDGET] = "budget",
};

const char *bench_stop_name(enum bench_stop s)
{
    if ((unsigned)s > BENCH_STOP_BUDGET)
        return "invalid";
    return stop_names[s];
}

void bench_reply_release(struct bench_reply *r)
{
    free(r->samples_ms);
    free(r->poison);
    r->samples_ms = NULL;
    r->poison = NULL;
    r->n_samples = 0;
}

json_t *bench_reply_to_json(const struct bench_reply *r)
{
    json_t *o = json_object(), *samples, *poison, *pbufs, *clock;
    bool ok = o != NULL;

    if (!o)
        return NULL;
    put(o, "type", json_string("bench_result"), &ok);
    put_failure(o, &r->fail, &ok);
    if (r->fail.status == RUN_OK)
        put(o, "stop", json_string(bench_stop_name(r->stop)), &ok);
    samples = json_array();
    put(o, "samples_ms", samples, &ok);
    for (uint32_t s = 0; samples && s < r->n_samples; s++)
        push(samples, jdouble(r->samples_ms[s]), &ok);
    pbufs = json_array();
    put(o, "poison_bufs", pbufs, &ok);
    for (int k = 0; pbufs && k < r->n_poison; k++)
        push(pbufs, json_integer(r->poison_buf[k]), &ok);
    poison = json_array();
    put(o, "poison", poison, &ok);
    for (uint32_t s = 0; poison && r->poison && s < r->n_samples; s++) {
        json_t *row = json_array();
        push(poison, row, &ok);
        for (int k = 0; row && k < r->n_poison; k++)
            push(row, ju64(r->poison[(size_t)s * (size_t)r->n_poison + (size_t)k]), &ok);
    }
    clock = json_array();
    put(o, "clock_mhz", clock, &ok);
    if (clock) {
        push(clock, jdouble(r->clock_mhz[0]), &ok);
        push(clock, jdouble(r->clock_mhz[1]), &ok);
    }
    put(o, "gathered", json_pack("{s:o}", "bytes_per_sample", ju64(r->bytes_per_sample)), &ok);
    return finish(o, ok);
}

int bench_reply_from_json(const json_t *j, struct bench_reply *r, char **cause)
{
    json_t *samples, *poison, *pbufs, *clock, *gathered;
    char stop[16] = "";
    size_t n, np;
    int rc;

    memset(r, 0, sizeof(*r));
    rc = get_failure(j, "bench_result", &r->fail, cause);
    if (rc)
        return rc;
    if (r->fail.status == RUN_OK) {
        if ((rc = get_str(j, "stop", "bench_result", true, stop, sizeof(stop), cause)))
            return rc;
        int found = -1;
        for (int s = BENCH_STOP_RSE; s <= BENCH_STOP_BUDGET; s++)
            if (strcmp(stop, stop_names[s]) == 0)
                found = s;
        if (found < 0)
            return bw_fail(cause, BW_ERR_INVALID, "bench_result.stop: unknown reason \"%s\"", stop);
        r->stop = (enum bench_stop)found;
    }
    if ((rc = get_array(j, "samples_ms", "bench_result", r->fail.status == RUN_OK,
                        BW_BENCH_MAX_SAMPLES, &samples, &n, cause)) ||
        (rc = get_array(j, "poison_bufs", "bench_result", false, BW_MAX_BUFFERS, &pbufs, &np,
                        cause)))
        return rc;
    r->n_poison = (int)np;
    for (size_t k = 0; k < np; k++) {
        json_t *b = json_array_get(pbufs, k);
        if (!json_is_integer(b) || json_integer_value(b) < 0 ||
            json_integer_value(b) >= BW_MAX_BUFFERS)
            return bw_fail(cause, BW_ERR_INVALID,
                           "bench_result.poison_bufs[%zu]: expected a "
                           "buffer index",
                           k);
        r->poison_buf[k] = (int)json_integer_value(b);
    }
    if (n > 0) {
        r->samples_ms = calloc(n, sizeof(double));
        r->poison = calloc(n * (np ? np : 1), sizeof(uint64_t));
        if (!r->samples_ms || !r->poison) {
            bench_reply_release(r);
            return bw_fail(cause, BW_ERR_NOMEM, "out of memory for %zu samples", n);
        }
    }
    r->n_samples = (uint32_t)n;
    for (size_t s = 0; s < n; s++) {
        if (value_f64(json_array_get(samples, s), &r->samples_ms[s]) ||
            !isfinite(r->samples_ms[s]) || r->samples_ms[s] < 0)
            return bw_fail(cause, BW_ERR_INVALID,
                           "bench_result.samples_ms[%zu]: expected a time "
                           "in ms",
                           s);
    }
    poison = json_object_get(j, "poison");
    if (n > 0 && np > 0 && (!json_is_array(poison) || json_array_size(poison) != n))
        return bw_fail(cause, BW_ERR_INVALID, "bench_result.poison: expected %zu rows", n);
    for (size_t s = 0; s < n && np > 0; s++) {
        json_t *row = json_array_get(poison, s);
        if (!json_is_array(row) || json_array_size(row) != np)
            return bw_fail(cause, BW_ERR_INVALID, "bench_result.poison[%zu]: expected %zu counts",
                           s, np);
        for (size_t k = 0; k < np; k++)
            if (value_u64(json_array_get(row, k), &r->poison[s * np + k]))
                return bw_fail(cause, BW_ERR_INVALID,
                               "bench_result.poison[%zu][%zu]: expected a "
                               "count",
                               s, k);
    }
    clock = json_object_get(j, "clock_mhz");
    if (clock) {
        if (!json_is_array(clock) || json_array_size(clock) != 2 ||
            value_f64(json_array_get(clock, 0), &r->clock_mhz[0]) ||
            value_f64(json_array_get(clock, 1), &r->clock_mhz[1]))
            return bw_fail(cause, BW_ERR_INVALID,
                           "bench_result.clock_mhz: expected [before, "
                           "after]");
    }
    gathered = json_object_get(j, "gathered");
    if (gathered && (rc = get_u64(gathered, "bytes_per_sample", "bench_result.gathered", true,
                                  BW_MAX_RETURN_BYTES, &r->bytes_per_sample, cause)))
        return rc;
    return BW_OK;
}

/* --- calibration --------------------------------------------------------------------- */

json_t *calibration_to_json(const struct calibration *c, const struct run_failure *fail)
{
    json_t *o = json_object();
    bool ok = o != NULL;

    if (!o)
        return NULL;
    put(o, "type", json_string("calibration"), &ok);
    put_failure(o, fail, &ok);
    if (fail->status != RUN_OK)
        return finish(o, ok);
    put(o, "copy_gbps", jdouble(c->copy_gbps), &ok);
    put(o, "fp32_tflops", jdouble(c->fp32_tflops), &ok);
    put(o, "fp16_tensor_tflops", jdouble(c->fp16_tensor_tflops), &ok);
    put(o, "bf16_tensor_tflops", jdouble(c->bf16_tensor_tflops), &ok);
    put(o, "clock_mhz", jdouble(c->clock_mhz), &ok);
    return finish(o, ok);
}

int calibration_from_json(const json_t *j, struct calibration *c, struct run_failure *fail,
                          char **cause)
{
    int rc;

    memset(c, 0, sizeof(*c));
    rc = get_failure(j, "calibration", fail, cause);
    if (rc || fail->status != RUN_OK)
        return rc;
    if ((rc = get_finite(j, "copy_gbps", "calibration", true, 0, 1e9, &c->copy_gbps, cause)) ||
        (rc = get_finite(j, "fp32_tflops", "calibration", true, 0, 1e9, &c->fp32_tflops, cause)) ||
        (rc = get_finite(j, "fp16_tensor_tflops", "calibration", true, 0, 1e9,
                         &c->fp16_tensor_tflops, cause)) ||
        (rc = get_finite(j, "bf16_tensor_tflops", "calibration", true, 0, 1e9,
                         &c->bf16_tensor_tflops, cause)) ||
        (rc = get_finite(j, "clock_mhz", "calibration", false, 0, 1e6, &c->clock_mhz, cause)))
        return rc;
    return BW_OK;
}
