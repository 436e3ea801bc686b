/*
 * json_reader.c - typed reads of JSON fields with one failure (see json_reader.h).
 */
#include "json_reader.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "error.h"
#include "banned.h"

void json_reader_init(struct json_reader *r, unsigned flags)
{
    memset(r, 0, sizeof(*r));
    r->flags = flags;
}

bool json_reader_failed(const struct json_reader *r)
{
    return r->code != BW_OK;
}

int json_reader_vfail(struct json_reader *r, int code, const char *path, const char *fmt,
                      va_list ap)
{
    if (r->code)
        return r->code;
    r->code = code < 0 ? code : BW_ERR_INTERNAL;
    snprintf(r->path, sizeof(r->path), "%s", path ? path : "");
    r->key[0] = '\0';
    if (vsnprintf(r->message, sizeof(r->message), fmt, ap) < 0)
        snprintf(r->message, sizeof(r->message), "%s", bw_strerror(r->code));
    return r->code;
}

int json_reader_fail(struct json_reader *r, int code, const char *path, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    json_reader_vfail(r, code, path, fmt, ap);
    va_end(ap);
    return r->code;
}

/* As json_reader_fail for a missing or unknown `key` of the object at path. */
static int fail_key(struct json_reader *r, const char *path, const char *key, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));

static int fail_key(struct json_reader *r, const char *path, const char *key, const char *fmt, ...)
{
    va_list ap;

    if (r->code)
        return r->code;
    va_start(ap, fmt);
    json_reader_vfail(r, BW_ERR_INVALID, path, fmt, ap);
    va_end(ap);
    snprintf(r->key, sizeof(r->key), "%s", key);
    return r->code;
}

/* ---- paths and shown values ------------------------------------------------------------------ */

struct json_path json_path_at(const char *base, const char *fmt, ...)
{
    struct json_path p;
    va_list ap;
    int n = snprintf(p.s, sizeof(p.s), "%s", base);

    if (n >= 0 && (size_t)n < sizeof(p.s)) {
        va_start(ap, fmt);
        if (vsnprintf(p.s + n, sizeof(p.s) - (size_t)n, fmt, ap) < 0)
            p.s[n] = '\0';
        va_end(ap);
    }
    return p;
}

struct json_path json_path_key(const char *base, const char *key)
{
    return *base ? json_path_at(base, ".%s", key) : json_path_at("", "%s", key);
}

static struct json_shown escape(const char *s, bool quoted)
{
    struct json_shown r;
    size_t o = 0;

    if (quoted)
        r.s[o++] = '"';
    for (; *s && o + 10 < sizeof(r.s); s++) {
        unsigned char c = (unsigned char)*s;
        if (c == '"' || c == '\\') {
            r.s[o++] = '\\';
            r.s[o++] = (char)c;
        } else if (c < 0x20 || c >= 0x7f) {
            int n = snprintf(r.s + o, sizeof(r.s) - o, "\\x%02x", c);
            o += n > 0 ? (size_t)n : 0;
        } else {
            r.s[o++] = (char)c;
        }
    }
    if (*s) {
        memcpy(r.s + o, "...", 3);
        o += 3;
    }
    if (quoted)
        r.s[o++] = '"';
    r.s[o] = '\0';
    return r;
}

struct json_shown json_quote(const char *s)
{
    return escape(s, true);
}

struct json_shown json_printable(const char *s)
{
    return escape(s, false);
}

struct json_shown json_show(const json_t *v)
{
    struct json_shown r;

    if (!v)
        return (struct json_shown){"nothing"};
    switch (json_typeof(v)) {
    case JSON_STRING:
        return json_quote(json_string_value(v));
    case JSON_INTEGER:
        snprintf(r.s, sizeof(r.s), "%lld", (long long)json_integer_value(v));
        return r;
    case JSON_REAL:
        snprintf(r.s, sizeof(r.s), "%g", json_real_value(v));
        return r;
    case JSON_TRUE:
        return (struct json_shown){"true"};
    case JSON_FALSE:
        return (struct json_shown){"false"};
    case JSON_NULL:
        return (struct json_shown){"null"};
    case JSON_OBJECT:
        return (struct json_shown){"an object"};
    case JSON_ARRAY:
        return (struct json_shown){"an array"};
    }
    return (struct json_shown){"a value"};
}

struct json_list json_join(const char *const *names, size_t n)
{
    struct json_list r;
    size_t o = 0;

    r.s[0] = '\0';
    for (size_t i = 0; i < n; i++) {
        if (!names[i])
            continue;
        int w = snprintf(r.s + o, sizeof(r.s) - o, "%s%s", o ? ", " : "", names[i]);
        if (w < 0 || (size_t)w >= sizeof(r.s) - o) {
            r.s[o] = '\0';
            break;
        }
        o += (size_t)w;
    }
    return r;
}

/* ---- reading --------------------------------------------------------------------------------- */

/* A field that reads as absent: none, or null under JSON_READER_NULL_IS_ABSENT. */
static bool absent(const struct json_reader *r, const json_t *v)
{
    return !v || ((r->flags & JSON_READER_NULL_IS_ABSENT) && json_is_null(v));
}

int json_reader_get(struct json_reader *r, const char *path, json_t *obj, const char *key,
                    bool required, json_t **out)
{
    *out = NULL;
    if (r->code)
        return r->code;
    json_t *v = json_object_get(obj, key);
    if (absent(r, v))
        return required ? fail_key(r, path, key, "missing field \"%s\"", key) : BW_OK;
    *out = v;
    return BW_OK;
}

int json_reader_object(struct json_reader *r, const char *path, json_t *v)
{
    if (r->code || !v)
        return r->code;
    if (!json_is_object(v))
        return json_reader_fail(r, BW_ERR_INVALID, path, "expected an object, got %s",
                                json_show(v).s);
    return BW_OK;
}

/* A count over its bound: the limit's wording when the bound is a named limit. */
static int over(struct json_reader *r, const char *path, size_t n, size_t max, const char *unit,
                const char *limit_name)
{
    if (limit_name)
        return json_reader_fail(r, BW_ERR_LIMIT, path, "%zu %s, over the limit of %zu (%s)", n,
                                unit, max, limit_name);
    return json_reader_fail(r, BW_ERR_INVALID, path, "%zu %s, more than %zu", n, unit, max);
}

int json_reader_array(struct json_reader *r, const char *path, json_t *v, size_t min, size_t max,
                      const char *limit_name)
{
    size_t n;

    if (r->code || !v)
        return r->code;
    if (!json_is_array(v))
        return json_reader_fail(r, BW_ERR_INVALID, path, "expected an array, got %s",
                                json_show(v).s);
    n = json_array_size(v);
    if (n < min)
        return json_reader_fail(r, BW_ERR_INVALID, path, "expected at least %zu element%s, got %zu",
                                min, min == 1 ? "" : "s", n);
    if (n > max)
        return over(r, path, n, max, "elements", limit_name);
    return BW_OK;
}

int json_reader_string(struct json_reader *r, const char *path, json_t *v, size_t min, size_t max,
                       const char *limit_name, const char **out)
{
    const char *s;
    size_t n;

    if (r->code || !v)
        return r->code;
    if (!json_is_string(v))
        return json_reader_fail(r, BW_ERR_INVALID, path, "expected a string, got %s",
                                json_show(v).s);
    s = json_string_value(v);
    n = json_string_length(v);
    if (strlen(s) != n) /* a \u0000 where the parser allowed one */
        return json_reader_fail(r, BW_ERR_INVALID, path, "contains a NUL character");
    if (n < min) {
        if (min == 1)
            return json_reader_fail(r, BW_ERR_INVALID, path, "empty");
        return json_reader_fail(r, BW_ERR_INVALID, path, "%zu bytes, shorter than %zu", n, min);
    }
    if (n > max)
        return over(r, path, n, max, "bytes", limit_name);
    *out = s;
    return BW_OK;
}

int json_reader_bool(struct json_reader *r, const char *path, json_t *v, bool *out)
{
    if (r->code || !v)
        return r->code;
    if (!json_is_boolean(v))
        return json_reader_fail(r, BW_ERR_INVALID, path, "expected true or false, got %s",
                                json_show(v).s);
    *out = json_is_true(v);
    return BW_OK;
}

int json_reader_int(struct json_reader *r, const char *path, json_t *v, int64_t lo, int64_t hi,
                    int64_t *out)
{
    int64_t x;

    if (r->code || !v)
        return r->code;
    if (!json_is_integer(v))
        return json_reader_fail(r, BW_ERR_INVALID, path, "expected an integer, got %s",
                                json_show(v).s);
    x = (int64_t)json_integer_value(v);
    if (x < lo || x > hi) {
        if (hi == INT64_MAX)
            return json_reader_fail(r, BW_ERR_INVALID, path,
                                    "%lld is out of range (expected an integer >= %lld)",
                                    (long long)x, (long long)lo);
        return json_reader_fail(r, BW_ERR_INVALID, path,
                                "%lld is out of range (expected an integer in %lld..%lld)",
                                (long long)x, (long long)lo, (long long)hi);
    }
    *out = x;
    return BW_OK;
}

int json_reader_number(struct json_reader *r, const char *path, json_t *v, double lo, double hi,
                       double *out)
{
    double x;

    if (r->code || !v)
        return r->code;
    if (!json_is_number(v))
        return json_reader_fail(r, BW_ERR_INVALID, path, "expected a number, got %s",
                                json_show(v).s);
    x = json_number_value(v);
    if (!isfinite(x))
        return json_reader_fail(r, BW_ERR_INVALID, path, "%s is not finite", json_show(v).s);
    if (x < lo || x > hi) {
        if (isinf(hi))
            return json_reader_fail(r, BW_ERR_INVALID, path, "%g is out of range (expected >= %g)",
                                    x, lo);
        if (isinf(lo))
            return json_reader_fail(r, BW_ERR_INVALID, path, "%g is out of range (expected <= %g)",
                                    x, hi);
        return json_reader_fail(r, BW_ERR_INVALID, path, "%g is out of range (expected %g..%g)", x,
                                lo, hi);
    }
    *out = x;
    return BW_OK;
}

int json_reader_get_string(struct json_reader *r, const char *path, json_t *obj, const char *key,
                           bool required, size_t min, size_t max, const char *limit_name,
                           const char **out)
{
    json_t *v;

    if (json_reader_get(r, path, obj, key, required, &v) || !v)
        return r->code;
    return json_reader_string(r, json_path_key(path, key).s, v, min, max, limit_name, out);
}

int json_reader_get_bool(struct json_reader *r, const char *path, json_t *obj, const char *key,
                         bool required, bool *out)
{
    json_t *v;

    if (json_reader_get(r, path, obj, key, required, &v) || !v)
        return r->code;
    return json_reader_bool(r, json_path_key(path, key).s, v, out);
}

int json_reader_get_int(struct json_reader *r, const char *path, json_t *obj, const char *key,
                        bool required, int64_t lo, int64_t hi, int64_t *out)
{
    json_t *v;

    if (json_reader_get(r, path, obj, key, required, &v) || !v)
        return r->code;
    return json_reader_int(r, json_path_key(path, key).s, v, lo, hi, out);
}

int json_reader_get_number(struct json_reader *r, const char *path, json_t *obj, const char *key,
                           bool required, double lo, double hi, double *out)
{
    json_t *v;

    if (json_reader_get(r, path, obj, key, required, &v) || !v)
        return r->code;
    return json_reader_number(r, json_path_key(path, key).s, v, lo, hi, out);
}

/* ---- unknown keys ---------------------------------------------------------------------------- */

static bool in_list(const char *s, const char *const *names)
{
    for (size_t i = 0; names[i]; i++)
        if (strcmp(s, names[i]) == 0)
            return true;
    return false;
}

static size_t count_list(const char *const *names)
{
    size_t n = 0;
    while (names[n])
        n++;
    return n;
}

/* Levenshtein distance, capped: strings longer than 32 bytes are "far". */
static size_t edit_distance(const char *a, const char *b)
{
    size_t la = strlen(a), lb = strlen(b), row[33];

    if (la > 32 || lb > 32)
        return SIZE_MAX;
    for (size_t j = 0; j <= lb; j++)
        row[j] = j;
    for (size_t i = 1; i <= la; i++) {
        size_t diag = row[0];
        row[0] = i;
        for (size_t j = 1; j <= lb; j++) {
            size_t up = row[j];
            size_t best = diag + (a[i - 1] != b[j - 1]);
            if (up + 1 < best)
                best = up + 1;
            if (row[j - 1] + 1 < best)
                best = row[j - 1] + 1;
            row[j] = best;
            diag = up;
        }
    }
    return row[lb];
}

/* The allowed name nearest to key, or NULL when none is near. */
static const char *nearest(const char *key, const char *const *allowed)
{
    const char *near = NULL;
    size_t best = 3;

    for (size_t i = 0; allowed[i]; i++) {
        size_t d = edit_distance(key, allowed[i]);
        if (strlen(key) >= 3 && (strncmp(key, allowed[i], strlen(key)) == 0 ||
                                 strncmp(key, allowed[i], strlen(allowed[i])) == 0))
            d = 1; /* "scratch" for "scratch_bytes", "benchmark" for "benchmarks" */
        if (d < best) {
            best = d;
            near = allowed[i];
        }
    }
    return near;
}

int json_reader_only_keys(struct json_reader *r, const char *path, json_t *obj,
                          const char *const *allowed)
{
    const char *key, *near;
    json_t *v;

    if (r->code)
        return r->code;
    json_object_foreach (obj, key, v) {
        if (in_list(key, allowed))
            continue;
        if (!allowed[0])
            return fail_key(r, path, key, "unknown field %s (expected no fields)",
                            json_quote(key).s);
        if ((near = nearest(key, allowed)))
            return fail_key(r, path, key, "unknown field %s (did you mean \"%s\"?)",
                            json_quote(key).s, near);
        return fail_key(r, path, key, "unknown field %s (expected %s)", json_quote(key).s,
                        json_join(allowed, count_list(allowed)).s);
    }
    return BW_OK;
}

/* ---- the failure ----------------------------------------------------------------------------- */

void json_reader_field(const struct json_reader *r, char *buf, size_t n)
{
    if (!r->key[0])
        snprintf(buf, n, "%s", r->path);
    else
        snprintf(buf, n, "%s", json_path_key(r->path, r->key).s);
}

void json_reader_text(const struct json_reader *r, char *buf, size_t n)
{
    snprintf(buf, n, "%s%s%s", r->path, r->path[0] ? ": " : "", r->message);
}

int json_reader_cause(const struct json_reader *r, char **cause)
{
    if (!r->code)
        return BW_OK;
    if (r->path[0])
        return bw_fail(cause, r->code, "%s: %s", r->path, r->message);
    return bw_fail(cause, r->code, "%s", r->message);
}
