/*
 * worker_proto.h - the worker protocol: every message between blockwise-server
 * and judged, encoded and decoded here. Both sides link this file, so they
 * agree by construction; tests/unit/test_worker_proto.c round-trips each
 * message. HTTP, the worker token and the endpoints' replies (status codes)
 * are docs/api.md's "Worker API".
 *
 *   POST /api/judge/register       worker: wp_register   server: wp_welcome
 *   POST /api/judge/claim          worker: wp_claim      server: wp_job (200) or 204
 *   POST .../leases/L/progress     worker: wp_progress (events; none: a heartbeat)
 *   POST .../leases/L/result       worker: wp_result (judged's result JSON, report.h)
 *   POST .../leases/L/internal-error  worker: wp_internal_error
 *   POST .../leases/L/release      worker: an empty object (the job goes back)
 *
 * Encoders return a *new* JSON object, or NULL when out of memory; strings in
 * the structs are borrowed. Decoders read a parsed document `j` (borrowed:
 * the strings they fill point into it, so it must outlive the struct) through
 * a json_reader, and return BW_OK or the reader's code: the first wrong field
 * with its path. Unknown fields are refused in what the server reads (a typo
 * is an error) and ignored in what judged reads (a newer server may say
 * more). The server turns a failure into a 400/413 (api_fail_reader), judged
 * into a cause (json_reader_cause).
 */
#ifndef BW_WORKER_PROTO_H
#define BW_WORKER_PROTO_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <jansson.h>

#include "common/json_reader.h"
#include "common/language.h"
#include "common/limits.h"
#include "common/verdict.h"

/* The bytes of a result's message the server keeps. */
#define WP_RESULT_MESSAGE_BYTES (64 * 1024)
/* The bytes of a worker's name (a deleted worker's is "NAME (deleted ID)"). */
#define WP_NAME_BYTES 128

/* One language a worker compiles, as it registered it. */
struct wp_language {
    enum language language;
    const char *version; /* "" when the worker did not say */
};

/*
 * register: {"hostname", "version", "can_execute", "gpu": {...}, "languages":
 * [{"name", "version"}, ...]}. "languages" has 1 to BW_MAX_WORKER_LANGUAGES
 * entries, names unique; absent, a judged from before languages, which
 * compiles CUDA only (version ""). Names this server does not know (a newer
 * worker's) are not an error: they are listed in ignored[] for the log and
 * left out of languages[].
 */
struct wp_register {
    const char *hostname;
    const char *version;
    bool can_execute; /* the worker has a GPU and runs kernels */
    json_t *gpu;      /* borrowed: the worker's struct gpu_info as JSON (gpu_info.h), or NULL */
    const char *gpu_name;
    struct wp_language languages[LANG_COUNT]; /* the known ones, in the worker's order */
    size_t n_languages;
    const char *ignored[BW_MAX_WORKER_LANGUAGES]; /* borrowed: unknown names */
    size_t n_ignored;
};
json_t *wp_register_encode(const struct wp_register *m);
int wp_register_decode(json_t *j, struct wp_register *out, struct json_reader *r);

/* register's reply: {"worker": {"id", "name"}, "reclaimed": [IDS], "languages":
 * [NAMES accepted], "lease_seconds", "heartbeat_seconds", "claim_wait"}. */
struct wp_welcome {
    int64_t worker_id;
    const char *worker_name;
    json_t *reclaimed; /* borrowed: submissions held before a restart, back in the queue */
    json_t *languages; /* borrowed: the names the server will offer jobs in */
    int lease_s, heartbeat_s, claim_wait_s;
};
json_t *wp_welcome_encode(const struct wp_welcome *m);
int wp_welcome_decode(json_t *j, struct wp_welcome *out, struct json_reader *r);

/* claim: {"wait": S} (0..BW_MAX_CLAIM_WAIT_S), or an empty body. wait_s -1: absent. */
struct wp_claim {
    int64_t wait_s;
};
json_t *wp_claim_encode(const struct wp_claim *m);
int wp_claim_decode(json_t *j, struct wp_claim *out, struct json_reader *r);

/* What a job asks of the judge: "run" (the tests), "submit" (the tests, then
 * timing and a score) or "profile" (the tests, then the plan under the GPU's
 * profiler on one benchmark shape: docs/profile.md). */
enum wp_mode { WP_RUN, WP_SUBMIT, WP_PROFILE };
#define WP_MODE_COUNT 3

/* "run", "submit" or "profile". */
const char *wp_mode_name(enum wp_mode mode);
/* The mode named `name`; false when it is none of them. */
bool wp_mode_from_name(const char *name, enum wp_mode *out);

/* claim's reply: {"lease", "submission", "problem", "bundle", "mode":
 * "run"|"submit"|"profile", "language", "source", "seed": "DECIMAL", "attempt",
 * "lease_seconds", "heartbeat_seconds"}. A server from before languages sends
 * no "language": CUDA; a seed of 0 (absent) asks the judge for a fresh one. */
struct wp_job {
    const char *lease;
    int64_t submission;
    const char *problem; /* the problem's id */
    const char *bundle;  /* the problem version's content hash */
    enum wp_mode mode;
    enum language language;
    const char *source;
    size_t source_len;
    uint64_t seed;
    int64_t attempt;
    int lease_s, heartbeat_s;
};
json_t *wp_job_encode(const struct wp_job *m);
int wp_job_decode(json_t *j, struct wp_job *out, struct json_reader *r);

/* progress: {"events": [{"event": NAME, ...}, ...]}, at most BW_MAX_EVENTS_PER_POST. */
struct wp_progress {
    json_t *events; /* borrowed: an array of objects, each with a string "event" */
};
json_t *wp_progress_encode(json_t *events /* stolen */);
int wp_progress_decode(json_t *j, struct wp_progress *out, struct json_reader *r);

/* What the server keeps of a result's tests and benchmark shapes. */
struct wp_test {
    const char *name;
    enum verdict verdict;
    const char *message;
    double ms;
};

struct wp_bench {
    const char *name;
    int64_t samples, clock_mhz;
    double median_ms, min_ms, max_ms, gbps, tflops, sol_pct;
    double pytorch_ms; /* PyTorch's median on the shape (the worker's baseline.h); 0: none */
};

/*
 * A Profile's result carries "profile" (docs/profile.md, "What the learner
 * sees", has every field): {"available": true, "case", "profiler", "wall_ms",
 * "kernels": [{"kernel", "launch", "grid", "block", "duration_ms", "dram_pct",
 * "l2_pct", "l1_pct", "sm_pct", "fma_pct", "tensor_pct",
 * "occupancy_achieved_pct", "occupancy_theoretical_pct", "occupancy_limiter",
 * "stalls": [{"reason", "pct"}], "l1_hit_pct", "l2_hit_pct", "dram_bytes",
 * "model_bytes", "limiter", "reading"}], "reading", "raw": {"KERNEL#LAUNCH":
 * {METRIC: VALUE}}}, or {"available": false, "why": SENTENCE}. It is stored
 * with the result; the decoder checks every field it names (types, ranges,
 * the words of the two limiters, at most BW_MAX_LAUNCHES kernels, the caps of
 * limits.h's Profile section) so that what the web app and the download serve
 * is what it says. Any number may be null (the GPU did not give it); fields
 * it does not name are kept as sent, as elsewhere in a result.
 */
struct wp_profile {
    bool present;    /* the result has a "profile" object */
    bool available;  /* the plan was profiled; false: `why` says why not */
    const char *why; /* "" unless !available */
    size_t n_kernels;
};

/*
 * result: {"result": RESULT}, RESULT being judged's result JSON (report.h's
 * judge_result_json), stored as is and shown by the web app; the server reads
 * the fields below of it. A compile-only result (executed false) may have no
 * verdict; any other must.
 */
struct wp_result {
    json_t *result; /* borrowed: the whole result object */
    enum verdict verdict;
    const char *message;
    double score;
    bool executed;
    const char *gpu_name;               /* "" when absent */
    struct wp_test tests[BW_MAX_CASES]; /* a problem's test cases */
    size_t n_tests;
    struct wp_bench benches[BW_MAX_BENCHMARKS]; /* one per benchmark shape */
    size_t n_benches;
    struct wp_profile profile; /* a Profile's (present false for a Run or a Submit) */
};
json_t *wp_result_encode(json_t *result /* stolen */);
/* `out` is large: allocate it, do not put it on a small stack. */
int wp_result_decode(json_t *j, struct wp_result *out, struct json_reader *r);

/* internal-error: {"message", "problem_fault"}: the judge itself failed (never the learner's
 * fault); problem_fault blames the problem (its reference failed). */
struct wp_internal_error {
    const char *message;
    bool problem_fault;
};
json_t *wp_internal_error_encode(const struct wp_internal_error *m);
int wp_internal_error_decode(json_t *j, struct wp_internal_error *out, struct json_reader *r);

#endif
