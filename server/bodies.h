/*
 * bodies.h - the JSON request bodies of every endpoint, parsed and validated
 * into typed structs. Handlers call these and nothing else on a body, and the
 * fuzz target (tests/fuzz/fuzz_request.c) calls the same functions, so what
 * the fuzzer proves holds for the server.
 *
 * Each body_parse_X() returns the parsed document (a *new* reference that
 * the caller decrefs once done with *out, whose strings are borrowed from
 * it) or NULL with *e filled: 400 bad_json / too_deep / invalid, or 413
 * too_large, always with the field named where there is one. Fields are
 * read with common/json_reader.h (null reads as an absent field) and its
 * failure becomes *e in api_fail_reader(). Unknown fields are refused, so a
 * typo is an error and not silently ignored.
 */
#ifndef BW_SERVER_BODIES_H
#define BW_SERVER_BODIES_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <jansson.h>

#include "api.h"
#include "wire/worker_proto.h"
#include "common/language.h"
#include "common/limits.h"
#include "common/verdict.h"

struct body_credentials { /* sign-up, sign-in */
    const char *name;
    const char *password;
};

struct body_submission {
    const char *problem;
    const char *source;
    size_t source_len;
    enum wp_mode mode;      /* "mode": "run" (tests), "submit" (+ timing), "profile" (+ profiler) */
    enum language language; /* "language": "cuda" (also when absent: older clients) or "triton" */
};

struct body_name { /* API token, worker token */
    const char *name;
};

struct body_role {
    const char *role;
};

struct body_enable {
    bool enabled;
};

struct body_rejudge {   /* exactly one of the two */
    int64_t submission; /* 0: none */
    const char *problem;
};

struct body_unlock {
    const char *name;    /* borrowed; NULL when the address is given */
    const char *address; /* borrowed; NULL when the name is given */
};

json_t *body_parse_credentials(const char *data, size_t len, struct body_credentials *out,
                               struct api_error *e);
json_t *body_parse_submission(const char *data, size_t len, struct body_submission *out,
                              struct api_error *e);
json_t *body_parse_name(const char *data, size_t len, struct body_name *out, struct api_error *e);
json_t *body_parse_role(const char *data, size_t len, struct body_role *out, struct api_error *e);
/* {"name": USER} or {"address": NUMERIC-IP}: exactly one (the admin's unlock). */
json_t *body_parse_unlock(const char *data, size_t len, struct body_unlock *out,
                          struct api_error *e);
json_t *body_parse_enable(const char *data, size_t len, struct body_enable *out,
                          struct api_error *e);
json_t *body_parse_rejudge(const char *data, size_t len, struct body_rejudge *out,
                           struct api_error *e);
json_t *body_parse_register(const char *data, size_t len, struct wp_register *out,
                            struct api_error *e);
json_t *body_parse_claim(const char *data, size_t len, struct wp_claim *out, struct api_error *e);
json_t *body_parse_progress(const char *data, size_t len, struct wp_progress *out,
                            struct api_error *e);
/* `out` is large: allocate it, do not put it on a small stack. */
json_t *body_parse_result(const char *data, size_t len, struct wp_result *out, struct api_error *e);
json_t *body_parse_internal_error(const char *data, size_t len, struct wp_internal_error *out,
                                  struct api_error *e);

/* True if a body is empty or an object without fields (an action that takes
 * no arguments); false with *e filled otherwise. */
bool body_empty_ok(const char *data, size_t len, struct api_error *e);

/* True if s is a problem id: [a-z0-9-], 1..64 bytes. */
bool body_problem_id_ok(const char *s);

#endif
