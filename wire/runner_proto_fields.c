/*
 * runner_proto_fields.c - the runner codec's JSON field helpers (runner_proto_fields.h).
 */
#include "runner_proto_fields.h"

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
json_t *rp_double(double v)
{
    if (isnan(v))
        return json_string("nan");
    if (isinf(v))
        return json_string(v > 0 ? "inf" : "-inf");
    return json_real(v);
}

/* A uint64 as JSON: an integer up to INT64_MAX, a decimal string above. */
json_t *rp_u64(uint64_t v)
{
    char text[32];

    if (v <= (uint64_t)INT64_MAX)
        return json_integer((json_int_t)v);
    snprintf(text, sizeof(text), "%" PRIu64, v);
    return json_string(text);
}

/* Sets o[key] = v (stolen); clears *ok when v is NULL or the set fails. */
void rp_put(json_t *o, const char *key, json_t *v, bool *ok)
{
    if (!v || json_object_set_new(o, key, v) != 0)
        *ok = false;
}

/* Appends v (stolen) to array a; clears *ok on failure. */
void rp_push(json_t *a, json_t *v, bool *ok)
{
    if (!v || json_array_append_new(a, v) != 0)
        *ok = false;
}

/* Returns o, or NULL (freeing o) when something failed. */
json_t *rp_finish(json_t *o, bool ok)
{
    if (!ok) {
        json_decref(o);
        return NULL;
    }
    return o;
}

/* --- decoding helpers: each names the field in its message ----------------------- */

int rp_bad(char **cause, const char *path, const char *key, const char *what)
{
    return bw_fail(cause, BW_ERR_INVALID, "%s%s%s: %s", path, key ? "." : "", key ? key : "", what);
}

/* o[key], or NULL; missing and required is an error. */
static int field(const json_t *o, const char *key, const char *path, bool required, json_t **out,
                 char **cause)
{
    *out = json_object_get(o, key);
    if (!*out && required)
        return rp_bad(cause, path, key, "missing");
    return BW_OK;
}

int rp_get_i64(const json_t *o, const char *key, const char *path, bool required, int64_t lo,
               int64_t hi, int64_t *out, char **cause)
{
    json_t *v;
    int64_t x;
    int rc = field(o, key, path, required, &v, cause);

    if (rc || !v)
        return rc;
    if (!json_is_integer(v))
        return rp_bad(cause, path, key, "expected an integer");
    x = json_integer_value(v);
    if (x < lo || x > hi)
        return bw_fail(cause, BW_ERR_INVALID,
                       "%s.%s: %" PRId64 " is out of range [%" PRId64 ", %" PRId64 "]", path, key,
                       x, lo, hi);
    *out = x;
    return BW_OK;
}

/* A uint64 from an integer >= 0 or a decimal string. */
int rp_value_u64(const json_t *v, uint64_t *out)
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

int rp_get_u64(const json_t *o, const char *key, const char *path, bool required, uint64_t hi,
               uint64_t *out, char **cause)
{
    json_t *v;
    uint64_t x;
    int rc = field(o, key, path, required, &v, cause);

    if (rc || !v)
        return rc;
    if (rp_value_u64(v, &x))
        return rp_bad(cause, path, key, "expected a non-negative integer");
    if (x > hi)
        return bw_fail(cause, BW_ERR_INVALID, "%s.%s: %" PRIu64 " is over the maximum %" PRIu64,
                       path, key, x, hi);
    *out = x;
    return BW_OK;
}

int rp_get_u32(const json_t *o, const char *key, const char *path, bool required, uint32_t hi,
               uint32_t *out, char **cause)
{
    uint64_t x = *out;
    int rc = rp_get_u64(o, key, path, required, hi, &x, cause);
    if (!rc)
        *out = (uint32_t)x;
    return rc;
}

/* A double from a number or "inf" / "-inf" / "nan". */
int rp_value_f64(const json_t *v, double *out)
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

int rp_get_f64(const json_t *o, const char *key, const char *path, bool required, double *out,
               char **cause)
{
    json_t *v;
    int rc = field(o, key, path, required, &v, cause);

    if (rc || !v)
        return rc;
    if (rp_value_f64(v, out))
        return rp_bad(cause, path, key, "expected a number, \"inf\", \"-inf\" or \"nan\"");
    return BW_OK;
}

/* A finite double in [lo, hi]. */
int rp_get_finite(const json_t *o, const char *key, const char *path, bool required, double lo,
                  double hi, double *out, char **cause)
{
    double x = *out;
    int rc = rp_get_f64(o, key, path, required, &x, cause);

    if (rc)
        return rc;
    if (!isfinite(x) || x < lo || x > hi)
        return bw_fail(cause, BW_ERR_INVALID, "%s.%s: %g is not a finite number in [%g, %g]", path,
                       key, x, lo, hi);
    *out = x;
    return BW_OK;
}

int rp_get_bool(const json_t *o, const char *key, const char *path, bool *out, char **cause)
{
    json_t *v = json_object_get(o, key);

    if (!v)
        return BW_OK;
    if (!json_is_boolean(v))
        return rp_bad(cause, path, key, "expected true or false");
    *out = json_is_true(v);
    return BW_OK;
}

/* Copies o[key] into dst (cap bytes with the NUL). */
int rp_get_str(const json_t *o, const char *key, const char *path, bool required, char *dst,
               size_t cap, char **cause)
{
    json_t *v;
    size_t len;
    int rc = field(o, key, path, required, &v, cause);

    if (rc || !v)
        return rc;
    if (!json_is_string(v))
        return rp_bad(cause, path, key, "expected a string");
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
int rp_get_array(const json_t *o, const char *key, const char *path, bool required, size_t max,
                 json_t **out, size_t *n, char **cause)
{
    int rc = field(o, key, path, required, out, cause);

    *n = 0;
    if (rc || !*out)
        return rc;
    if (!json_is_array(*out))
        return rp_bad(cause, path, key, "expected an array");
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
