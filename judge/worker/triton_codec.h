/*
 * triton_codec.h - private to judge/worker's Triton compile client: the
 * result record's decoder (triton_codec.c), which the compiler process
 * (triton_compile.c) feeds as the child's answer grows.
 */
#ifndef BW_TRITON_CODEC_H
#define BW_TRITON_CODEC_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "triton_compile.h"

struct partial; /* what the decoder has seen of one build */

/*
 * The result record read as it arrives (triton_result_decode reads a whole
 * one the same way): fields are taken as they become whole; a build is given
 * out (on_build) when its "built" field closes it and it is sound, or when
 * "failed" names it, and every build not given out by the record's end is
 * given out then. A build given out is never changed or freed until the
 * result is released.
 */
struct decoder {
    const struct triton_request *rq;
    struct triton_result *out;
    struct partial *parts; /* owned: one per request kernel */
    size_t pos;            /* the next field's offset in the record */
    long current;          /* the build whose fields are coming, or -1 */
    bool accepted, complete;
    bool stopped; /* a malformed field: nothing more is read */
    const char *bad;
    char *error, *error_step; /* owned: a set-up failure before "accepted" */
    int64_t error_code;
    triton_build_fn on_build;
    void *arg;
    const struct triton_fields *own; /* the caller's fields (a launcher's), or NULL */
    const char *halt;                /* the caller needs no more of the answer: why */
};

/* A decoder of `rq`'s answer into `out`; on_build (may be NULL) is told each
 * build as it is given out. BW_ERR_NOMEM when out has no log buffer. */
int triton_decoder_init(struct decoder *d, const struct triton_request *rq,
                        struct triton_result *out, triton_build_fn on_build, void *arg,
                        char **cause);
void triton_decoder_release(struct decoder *d);
/* Reads the record's fields that are whole in data[0, len) past those read. */
int triton_decoder_feed(struct decoder *d, char *data, size_t len, char **cause);
/* The record's end: every build not given out yet is settled and given out. */
int triton_decoder_finish(struct decoder *d, char **cause);

/* Gives build i out as it stands (ok or not): once (a refused source's
 * empty builds). */
void triton_decoder_deliver(struct decoder *d, size_t i);

/* A request's fields within their limits: 0, or BW_ERR_INVALID with why. */
int triton_request_check(const struct triton_request *rq, char **cause);

/* Sets out->failure (the first one wins) to a new formatted message;
 * BW_ERR_NOMEM if it cannot. */
int triton_result_fail(struct triton_result *out, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

#endif
