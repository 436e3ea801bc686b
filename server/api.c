#include "api.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "http.h"
#include "common/banned.h"

/* Replaces every byte that does not start a valid UTF-8 sequence (including a
 * sequence cut short by truncation), and every control character, with '?',
 * so the text can go into JSON and stays one line. */
static void sanitize_utf8(char *s)
{
    unsigned char *p = (unsigned char *)s;
    while (*p) {
        int n = *p < 0x80             ? 1
                : (*p & 0xE0) == 0xC0 ? 2
                : (*p & 0xF0) == 0xE0 ? 3
                : (*p & 0xF8) == 0xF0 ? 4
                                      : 0;
        bool ok = n > 0 && !(n == 2 && *p < 0xC2) && *p >= 0x20 && *p != 0x7F;
        for (int i = 1; ok && i < n; i++)
            ok = (p[i] & 0xC0) == 0x80;
        if (!ok) {
            *p++ = '?';
            continue;
        }
        p += n;
    }
}

int api_fail(struct api_error *e, int status, const char *code, const char *field, const char *fmt,
             ...)
{
    va_list ap;
    e->status = status;
    e->code = code;
    snprintf(e->field, sizeof(e->field), "%s", field ? field : "");
    va_start(ap, fmt);
    vsnprintf(e->message, sizeof(e->message), fmt, ap);
    va_end(ap);
    sanitize_utf8(e->field);
    sanitize_utf8(e->message);
    return status;
}

bool api_json_depth_ok(const char *data, size_t len, int max_depth)
{
    int depth = 0;
    bool in_string = false;
    for (size_t i = 0; i < len; i++) {
        char c = data[i];
        if (in_string) {
            if (c == '\\')
                i++;
            else if (c == '"')
                in_string = false;
            continue;
        }
        if (c == '"') {
            in_string = true;
        } else if (c == '[' || c == '{') {
            if (++depth > max_depth)
                return false;
        } else if (c == ']' || c == '}') {
            depth--;
        }
    }
    return true;
}

json_t *api_parse_object(const char *data, size_t len, int max_depth, struct api_error *e)
{
    if (!data || len == 0) {
        api_fail(e, 400, "bad_json", NULL, "request body is empty (expected a JSON object)");
        return NULL;
    }
    if (!api_json_depth_ok(data, len, max_depth)) {
        api_fail(e, 400, "too_deep", NULL, "request body nests deeper than %d levels", max_depth);
        return NULL;
    }
    json_error_t jerr;
    json_t *j = json_loadb(data, len, JSON_REJECT_DUPLICATES | JSON_ALLOW_NUL, &jerr);
    if (!j) {
        api_fail(e, 400, "bad_json", NULL, "request body is not JSON: line %d column %d: %s",
                 jerr.line, jerr.column, jerr.text);
        return NULL;
    }
    if (!json_is_object(j)) {
        json_decref(j);
        api_fail(e, 400, "bad_json", NULL, "request body must be a JSON object");
        return NULL;
    }
    return j;
}

static bool missing(json_t *v, const char *key, bool required, struct api_error *e)
{
    if (v && !json_is_null(v))
        return false;
    if (required)
        api_fail(e, 400, "invalid", key, "%s: missing", key);
    return true;
}

bool api_get_string(json_t *obj, const char *key, bool required, size_t min, size_t max,
                    const char **out, struct api_error *e)
{
    json_t *v = json_object_get(obj, key);
    if (missing(v, key, required, e))
        return !required;
    if (!json_is_string(v)) {
        api_fail(e, 400, "invalid", key, "%s: expected a string", key);
        return false;
    }
    size_t n = json_string_length(v);
    const char *s = json_string_value(v);
    if (strlen(s) != n) {
        api_fail(e, 400, "invalid", key, "%s: contains a NUL character", key);
        return false;
    }
    if (n < min) {
        api_fail(e, 400, "invalid", key, min == 1 ? "%s: empty" : "%s: shorter than %zu bytes", key,
                 min);
        return false;
    }
    if (n > max) {
        api_fail(e, n > 65536 ? 413 : 400, n > 65536 ? "too_large" : "invalid", key,
                 "%s: longer than %zu bytes", key, max);
        return false;
    }
    *out = s;
    return true;
}

bool api_get_int(json_t *obj, const char *key, bool required, int64_t lo, int64_t hi, int64_t *out,
                 struct api_error *e)
{
    json_t *v = json_object_get(obj, key);
    if (missing(v, key, required, e))
        return !required;
    if (!json_is_integer(v)) {
        api_fail(e, 400, "invalid", key, "%s: expected an integer", key);
        return false;
    }
    json_int_t n = json_integer_value(v);
    if (n < lo || n > hi) {
        api_fail(e, 400, "invalid", key, "%s: %lld is outside %lld..%lld", key, (long long)n,
                 (long long)lo, (long long)hi);
        return false;
    }
    *out = n;
    return true;
}

bool api_get_number(json_t *obj, const char *key, bool required, double lo, double hi, double *out,
                    struct api_error *e)
{
    json_t *v = json_object_get(obj, key);
    if (missing(v, key, required, e))
        return !required;
    if (!json_is_number(v)) {
        api_fail(e, 400, "invalid", key, "%s: expected a number", key);
        return false;
    }
    double d = json_number_value(v);
    if (!isfinite(d) || d < lo || d > hi) {
        api_fail(e, 400, "invalid", key, "%s: %g is outside %g..%g", key, d, lo, hi);
        return false;
    }
    *out = d;
    return true;
}

bool api_get_bool(json_t *obj, const char *key, bool required, bool *out, struct api_error *e)
{
    json_t *v = json_object_get(obj, key);
    if (missing(v, key, required, e))
        return !required;
    if (!json_is_boolean(v)) {
        api_fail(e, 400, "invalid", key, "%s: expected true or false", key);
        return false;
    }
    *out = json_is_true(v);
    return true;
}

bool api_only_keys(json_t *obj, const char *const *allowed, struct api_error *e)
{
    const char *key;
    json_t *v;
    json_object_foreach (obj, key, v) {
        bool ok = false;
        for (const char *const *a = allowed; *a && !ok; a++)
            ok = strcmp(*a, key) == 0;
        if (!ok) {
            char shown[48];
            snprintf(shown, sizeof(shown), "%s", key);
            api_fail(e, 400, "invalid", shown, "unknown field \"%s\"", shown);
            return false;
        }
    }
    return true;
}

int api_json(struct http_response *res, int status, json_t *body)
{
    if (!body)
        return 500;
    char *text = json_dumps(body, JSON_COMPACT);
    json_decref(body);
    if (!text)
        return 500;
    int st = http_text(res, status, "application/json", text, strlen(text));
    free(text);
    return st;
}

/* A JSON string of s, or of "?" if s is not valid UTF-8 after all. */
static json_t *safe_string(const char *s)
{
    json_t *j = json_string(s);
    return j ? j : json_string("?");
}

int api_error_response(struct http_response *res, const struct api_error *e)
{
    json_t *err = json_pack("{s:s, s:o, s:o}", "code", e->code ? e->code : "invalid", "message",
                            safe_string(e->message), "field",
                            e->field[0] ? safe_string(e->field) : json_null());
    if (!err)
        return 500;
    return api_json(res, e->status, json_pack("{s:o}", "error", err));
}

int api_reply_error(struct http_response *res, int status, const char *code, const char *field,
                    const char *fmt, ...)
{
    struct api_error e;
    va_list ap;
    e.status = status;
    e.code = code;
    snprintf(e.field, sizeof(e.field), "%s", field ? field : "");
    va_start(ap, fmt);
    vsnprintf(e.message, sizeof(e.message), fmt, ap);
    va_end(ap);
    sanitize_utf8(e.field);
    sanitize_utf8(e.message);
    return api_error_response(res, &e);
}
