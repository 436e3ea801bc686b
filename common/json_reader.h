/*
 * json_reader.h - the one reader of JSON fields: typed reads of a parsed
 * Jansson document, each failure named by the field's path.
 *
 * A struct json_reader owns nothing but the first failure of a walk over a
 * document: its BW_ERR_* code, the path where it is said ("tests[3].sizes"),
 * for a missing or unknown key that key, and the message without the path
 * ("missing field \"N\""). Every reader returns BW_OK or that code, and once
 * a reader failed every later call returns the first code at once and reads
 * nothing, so a run of reads can be checked once at its end, as sqlite
 * threads an rc. Callers turn the failure into their own shape in one place:
 *   problem.json   "<file>: tests[3].sizes: missing field \"N\""
 *   the HTTP API   400 invalid (413 too_large for BW_ERR_LIMIT), field
 *                  "tests[3].sizes.N" (json_reader_field)
 *   a job or result from a peer  "tests[3].sizes: missing field \"N\""
 *                  (json_reader_cause)
 *
 * Message rules (error.h): what is wrong, lower-case, the bad value shown
 * (json_show, json_quote: escaped to printable ASCII and shortened), what was
 * expected in parentheses, e.g. "1.5 is out of range (expected an integer in
 * 1..8)". Paths: "" is the document's top level, keys are joined with '.',
 * array elements are "[i]" (json_path_key, json_path_at).
 *
 * Documents are borrowed; strings read out (json_reader_string) are
 * *borrowed* from the document and live as long as it does.
 */
#ifndef BW_JSON_READER_H
#define BW_JSON_READER_H

#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <jansson.h>

#define JSON_PATH_BYTES    384  /* a field path in a message */
#define JSON_KEY_BYTES     128  /* a missing or unknown key, kept for json_reader_field */
#define JSON_MESSAGE_BYTES 1024 /* one failure's message, without its path */
#define JSON_SHOW_BYTES    96   /* a value quoted in a message */
#define JSON_LIST_BYTES    512  /* a list of names in a message */

/* Flags of json_reader_init. */
enum {
    /* A field whose value is null reads as absent (an optional one is skipped,
     * a required one is missing): what API clients send for "none". Without
     * it, null is a value and fails every typed read but json_reader_get. */
    JSON_READER_NULL_IS_ABSENT = 1 << 0,
};

struct json_reader {
    unsigned flags;
    int code;                         /* BW_OK, or the BW_ERR_* code of the first failure */
    char path[JSON_PATH_BYTES];       /* where the message is said; "" the top level */
    char key[JSON_KEY_BYTES];         /* a missing or unknown key of the object at path, or "" */
    char message[JSON_MESSAGE_BYTES]; /* the failure without its path */
};

void json_reader_init(struct json_reader *r, unsigned flags);

/* True once a read failed. */
bool json_reader_failed(const struct json_reader *r);

/*
 * Records a failure at `path` (unless one is recorded already) and returns
 * the recorded code, so that a failing check reads
 *   return json_reader_fail(r, BW_ERR_INVALID, path, "%s is not ...", ...);
 * `code` is a negative BW_ERR_* code: BW_ERR_INVALID for a malformed value,
 * BW_ERR_LIMIT for one over a documented limit, BW_ERR_NOMEM when the caller
 * ran out of memory while reading.
 */
int json_reader_fail(struct json_reader *r, int code, const char *path, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
int json_reader_vfail(struct json_reader *r, int code, const char *path, const char *fmt,
                      va_list ap) __attribute__((format(printf, 4, 0)));

/* ---- reading --------------------------------------------------------------------------------- */

/*
 * obj[key] in *out (*borrowed*), NULL when absent. A missing required field
 * fails at `path` (the object's) with key = `key`: "missing field \"key\"".
 * *out is NULL after any failure.
 */
int json_reader_get(struct json_reader *r, const char *path, json_t *obj, const char *key,
                    bool required, json_t **out);

/*
 * Typed reads of the value `v` found at `path`. A NULL v (an absent optional
 * field, as json_reader_get gives it) reads as nothing and succeeds; *out is
 * written only on success.
 */
int json_reader_object(struct json_reader *r, const char *path, json_t *v);
/* An array of min..max elements; more than max is BW_ERR_LIMIT "over the limit
 * of max (limit_name)", or BW_ERR_INVALID when limit_name is NULL. */
int json_reader_array(struct json_reader *r, const char *path, json_t *v, size_t min, size_t max,
                      const char *limit_name);
/* A string without NUL of min..max bytes; over max as for arrays. */
int json_reader_string(struct json_reader *r, const char *path, json_t *v, size_t min, size_t max,
                       const char *limit_name, const char **out);
int json_reader_bool(struct json_reader *r, const char *path, json_t *v, bool *out);
/* A JSON integer (3.0 is not one) in lo..hi. */
int json_reader_int(struct json_reader *r, const char *path, json_t *v, int64_t lo, int64_t hi,
                    int64_t *out);
/* A finite JSON number (integer or real) in lo..hi; -HUGE_VAL..HUGE_VAL: any. */
int json_reader_number(struct json_reader *r, const char *path, json_t *v, double lo, double hi,
                       double *out);

/* json_reader_get and the typed read of obj[key] at path.key, in one call. */
int json_reader_get_string(struct json_reader *r, const char *path, json_t *obj, const char *key,
                           bool required, size_t min, size_t max, const char *limit_name,
                           const char **out);
int json_reader_get_bool(struct json_reader *r, const char *path, json_t *obj, const char *key,
                         bool required, bool *out);
int json_reader_get_int(struct json_reader *r, const char *path, json_t *obj, const char *key,
                        bool required, int64_t lo, int64_t hi, int64_t *out);
int json_reader_get_number(struct json_reader *r, const char *path, json_t *obj, const char *key,
                           bool required, double lo, double hi, double *out);

/*
 * Fails on the first key of the object obj (at path) that is not in the
 * NULL-terminated `allowed`, with key = that key and a "did you mean" when
 * one allowed name is near (a small edit distance, or one a prefix of the
 * other): "unknown field \"tolerence\" (did you mean \"tolerance\"?)".
 */
int json_reader_only_keys(struct json_reader *r, const char *path, json_t *obj,
                          const char *const *allowed);

/* ---- the failure, for a caller's own error shape --------------------------------------------- */

/* The field at fault into buf: path, or path.key for a missing or unknown key
 * ("" when nothing failed or the top level is at fault). */
void json_reader_field(const struct json_reader *r, char *buf, size_t n);

/* "path: message" (or the message alone at the top level) into buf. */
void json_reader_text(const struct json_reader *r, char *buf, size_t n);

/* Stores the failure as a *new* "path: message" in *cause (error.h's
 * convention) and returns its code; BW_OK, leaving *cause alone, when
 * nothing failed. */
int json_reader_cause(const struct json_reader *r, char **cause);

/* ---- paths and values in messages ------------------------------------------------------------ */

struct json_path {
    char s[JSON_PATH_BYTES];
};

struct json_shown {
    char s[JSON_SHOW_BYTES];
};

struct json_list {
    char s[JSON_LIST_BYTES];
};

/* base followed by a formatted suffix, json_path_at("tensors", "[%zu]", i). Truncates. */
struct json_path json_path_at(const char *base, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
/* The path of field `key` of the object at `base` ("" is the top level). */
struct json_path json_path_key(const char *base, const char *key);

/* s in double quotes, escaped and shortened: bytes outside printable ASCII
 * are shown as \xNN, so a message is always clean ASCII. */
struct json_shown json_quote(const char *s);
/* As json_quote without the quotes. */
struct json_shown json_printable(const char *s);
/* A JSON value as a message shows it: scalars by value, containers by kind
 * ("an object", "an array"). */
struct json_shown json_show(const json_t *v);
/* "a, b, c" of the non-NULL names[0..n) (shortened to whole names). */
struct json_list json_join(const char *const *names, size_t n);

#endif
