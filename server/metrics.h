/*
 * metrics.h - counters for /metrics (Prometheus text format 0.0.4).
 *
 * Counters live in memory since the process started (Prometheus handles
 * restarts); gauges (queue length, judging, workers alive, streams) are read
 * at scrape time from the database and the hub. Names are prefixed
 * "blockwise_" and documented in docs/operations.md.
 */
#ifndef BW_SERVER_METRICS_H
#define BW_SERVER_METRICS_H

#include "common/verdict.h"
#include "wire/worker_proto.h"

struct metrics;
struct http_request;
struct http_response;

struct metrics *metrics_new(void);
void metrics_free(struct metrics *m);

/* A request was answered with `status` (a stream the client closed counts
 * as the status it was answered with). */
void metrics_request(struct metrics *m, int status);
/* The client went away (or idled past the timeout) before it was answered:
 * not an answer, so not counted by status (blockwise_http_client_gone_total). */
void metrics_client_gone(struct metrics *m);
/* A verdict was stored; `latency_s` from submission to verdict (< 0: not observed). */
void metrics_verdict(struct metrics *m, enum verdict v, double latency_s);
/* A submission was accepted into the queue. */
void metrics_submission(struct metrics *m, enum wp_mode mode);
/* A sign-in failed (wrong name or password), or was refused by a lockout. */
void metrics_signin(struct metrics *m, bool throttled);
/* A sign-in or sign-up was refused because the password hashing queue was full. */
void metrics_pwhash_busy(struct metrics *m);
/* A sign-up was refused: its address had used its sign-ups. */
void metrics_signup_throttled(struct metrics *m);

int metrics_h_get(struct http_request *req, struct http_response *res);

#endif
