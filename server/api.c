#include "api.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "http.h"
#include "common/error.h"
#include "common/json_reader.h"
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

int api_fail_reader(struct api_error *e, const struct json_reader *r)
{
    char field[sizeof(e->field)], text[sizeof(e->message)];
    bool limit = r->code == BW_ERR_LIMIT;

    json_reader_field(r, field, sizeof(field));
    json_reader_text(r, text, sizeof(text));
    return api_fail(e, limit ? 413 : 400, limit ? "too_large" : "invalid", field, "%s", text);
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
