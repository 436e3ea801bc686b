/*
 * api.h - JSON in and out for the HTTP API: request bodies parsed under
 * caps, responses and the one error shape:
 *
 *   {"error": {"code": "invalid", "message": "source: empty", "field": "source"}}
 *
 * `code` is a stable machine word (bad_json, invalid, too_large, not_found,
 * unauthorized, forbidden, csrf, quota, conflict, ...); `message` is for
 * people; `field` names the offending field or is null. Fields are read with
 * common/json_reader.h; api_fail_reader() is the one place a reader's
 * failure becomes an API error. Nothing here touches a socket: the parsers
 * are fuzzed directly (tests/fuzz/fuzz_request.c).
 */
#ifndef BW_SERVER_API_H
#define BW_SERVER_API_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <jansson.h>

struct http_response;
struct json_reader;

struct api_error {
    int status;       /* 4xx (or 5xx for the server's own failures) */
    const char *code; /* static */
    char field[64];
    char message[320];
};

/* Fills *e and returns e->status. `field` may be NULL. */
int api_fail(struct api_error *e, int status, const char *code, const char *field, const char *fmt,
             ...) __attribute__((format(printf, 5, 6)));

/* True if the JSON text nests arrays/objects at most max_depth deep (strings
 * are skipped correctly); checked before parsing so that a deep body costs
 * nothing. */
bool api_json_depth_ok(const char *data, size_t len, int max_depth);

/* Parses a request body that must be one JSON object: a *new* reference, or
 * NULL with *e filled (400 bad_json with line and column, or 400 too_deep). */
json_t *api_parse_object(const char *data, size_t len, int max_depth, struct api_error *e);

/*
 * The API error of a failed field read (r has failed): 413 too_large for
 * BW_ERR_LIMIT (a field over a documented cap), else 400 invalid; `field` is
 * the field at fault (json_reader_field: "languages[1].name", or the unknown
 * key), `message` "path: message". Returns the status.
 */
int api_fail_reader(struct api_error *e, const struct json_reader *r);

/* Response writers; each returns `status` (or 500 if the body cannot be built). */
int api_json(struct http_response *res, int status, json_t *body /* stolen */);
int api_error_response(struct http_response *res, const struct api_error *e);
/* Shorthand: api_fail + api_error_response. */
int api_reply_error(struct http_response *res, int status, const char *code, const char *field,
                    const char *fmt, ...) __attribute__((format(printf, 5, 6)));

#endif
