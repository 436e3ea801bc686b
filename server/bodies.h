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
    bool submit;            /* "mode": "submit" (tests + timing) or "run" (tests only) */
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

/* One language a worker compiles, as it registered it. */
struct body_language {
    enum language language;
    const char *version; /* borrowed; "" when the worker did not say */
};

/*
 * "languages": [{"name": "cuda", "version": "13.0"}, ...], at most
 * BW_MAX_WORKER_LANGUAGES entries, names unique, at least one entry. Absent:
 * a judged from before languages, which compiles CUDA only (version "").
 * Names this server does not know (a newer worker's) are not an error: they
 * are listed in ignored[] for the log and left out of languages[].
 */
struct body_register {
    const char *hostname;
    const char *version;
    bool can_execute; /* the worker has a GPU and runs kernels */
    json_t *gpu;      /* borrowed: the worker's struct gpu_info as JSON (object) */
    const char *gpu_name;
    struct body_language languages[LANG_COUNT]; /* the known ones, in the worker's order */
    size_t n_languages;
    const char *ignored[BW_MAX_WORKER_LANGUAGES]; /* borrowed: unknown names */
    size_t n_ignored;
};

struct body_claim {
    int64_t wait_s; /* 0..claim_wait; default the server's */
};

struct body_progress {
    json_t *events; /* borrowed: an array of objects, each with a string "event" */
};

struct body_test {
    const char *name;
    enum verdict verdict;
    const char *message;
    double ms;
};

struct body_bench {
    const char *name;
    int64_t samples, clock_mhz;
    double median_ms, min_ms, max_ms, gbps, tflops, sol_pct;
};

struct body_result {
    json_t *result; /* borrowed: the whole judge_result_json() object, stored as is */
    enum verdict verdict;
    const char *message;
    double score;
    bool executed;
    const char *gpu_name;                 /* "" when absent */
    struct body_test tests[BW_MAX_CASES]; /* a problem's test cases */
    size_t n_tests;
    struct body_bench benches[BW_MAX_BENCHMARKS]; /* one per benchmark shape */
    size_t n_benches;
};

struct body_internal_error {
    const char *message;
    bool problem_fault; /* the worker blames the problem (its reference failed) */
};

json_t *body_parse_credentials(const char *data, size_t len, struct body_credentials *out,
                               struct api_error *e);
json_t *body_parse_submission(const char *data, size_t len, struct body_submission *out,
                              struct api_error *e);
json_t *body_parse_name(const char *data, size_t len, struct body_name *out, struct api_error *e);
json_t *body_parse_role(const char *data, size_t len, struct body_role *out, struct api_error *e);
json_t *body_parse_enable(const char *data, size_t len, struct body_enable *out,
                          struct api_error *e);
json_t *body_parse_rejudge(const char *data, size_t len, struct body_rejudge *out,
                           struct api_error *e);
json_t *body_parse_register(const char *data, size_t len, struct body_register *out,
                            struct api_error *e);
json_t *body_parse_claim(const char *data, size_t len, struct body_claim *out, struct api_error *e);
json_t *body_parse_progress(const char *data, size_t len, struct body_progress *out,
                            struct api_error *e);
/* `out` is large: allocate it, do not put it on a small stack. */
json_t *body_parse_result(const char *data, size_t len, struct body_result *out,
                          struct api_error *e);
json_t *body_parse_internal_error(const char *data, size_t len, struct body_internal_error *out,
                                  struct api_error *e);

/* True if s is a problem id: [a-z0-9-], 1..64 bytes. */
bool body_problem_id_ok(const char *s);

#endif
