/*
 * runner_proto_fields.h - the JSON field helpers of the runner protocol's
 * codec, private to wire/runner_proto*.c: encoding (numbers that JSON cannot
 * hold exactly, building objects that fail as a whole) and decoding (each
 * helper names the field in its message), and a failure's form.
 */
#ifndef BW_RUNNER_PROTO_FIELDS_H
#define BW_RUNNER_PROTO_FIELDS_H

#include <stdbool.h>
#include <stdint.h>

#include <jansson.h>

#include "runner_proto.h"

int rp_bad(char **cause, const char *path, const char *key, const char *what);

/* Returns o, or NULL (freeing o) when something failed. */
json_t *rp_finish(json_t *o, bool ok);

/* An array o[key] of at most `max` entries; *n its length. */
int rp_get_array(const json_t *o, const char *key, const char *path, bool required, size_t max,
                 json_t **out, size_t *n, char **cause);

int rp_get_bool(const json_t *o, const char *key, const char *path, bool *out, char **cause);

int rp_get_f64(const json_t *o, const char *key, const char *path, bool required, double *out,
               char **cause);

/* A finite double in [lo, hi]. */
int rp_get_finite(const json_t *o, const char *key, const char *path, bool required, double lo,
                  double hi, double *out, char **cause);

int rp_get_i64(const json_t *o, const char *key, const char *path, bool required, int64_t lo,
               int64_t hi, int64_t *out, char **cause);

/* Copies o[key] into dst (cap bytes with the NUL). */
int rp_get_str(const json_t *o, const char *key, const char *path, bool required, char *dst,
               size_t cap, char **cause);

int rp_get_u32(const json_t *o, const char *key, const char *path, bool required, uint32_t hi,
               uint32_t *out, char **cause);

int rp_get_u64(const json_t *o, const char *key, const char *path, bool required, uint64_t hi,
               uint64_t *out, char **cause);

/* A double as JSON: a real, or "inf" / "-inf" / "nan". */
json_t *rp_double(double v);

/* A uint64 as JSON: an integer up to INT64_MAX, a decimal string above. */
json_t *rp_u64(uint64_t v);

/* Appends v (stolen) to array a; clears *ok on failure. */
void rp_push(json_t *a, json_t *v, bool *ok);

/* Sets o[key] = v (stolen); clears *ok when v is NULL or the set fails. */
void rp_put(json_t *o, const char *key, json_t *v, bool *ok);

/* A double from a number or "inf" / "-inf" / "nan". */
int rp_value_f64(const json_t *v, double *out);

/* A uint64 from an integer >= 0 or a decimal string. */
int rp_value_u64(const json_t *v, uint64_t *out);

/* Reads status and failure fields from reply j of the expected type. */
int rp_get_failure(const json_t *j, const char *type, struct run_failure *f, char **cause);

/* Adds the status and the failure's fields to reply o. */
void rp_put_failure(json_t *o, const struct run_failure *f, bool *ok);

/* Adds seed, case, buffers, launches and gather of plan p to o (run, bench, profile). */
void rp_put_plan(json_t *o, const struct run_plan *p, bool *ok);

/* Reads a plan from request j of type `type` (the field paths of its messages). */
int rp_get_plan(const json_t *j, const char *type, struct run_plan *p, char **cause);

#endif
