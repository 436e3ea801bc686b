/*
 * judgeapi.h - the worker API under /api/judge (docs/api.md, "Worker API"), for judged
 * processes holding a worker token:
 *
 *   POST /api/judge/register                 who I am, my GPU; returns what I held before
 *   POST /api/judge/claim                    long-poll for a job (a lease)
 *   POST /api/judge/leases/{id}/progress     events for the learner; extends the lease
 *   POST /api/judge/leases/{id}/result       the verdict (idempotent per lease)
 *   POST /api/judge/leases/{id}/internal-error   the judge failed; requeue
 *   POST /api/judge/leases/{id}/release      give the job back (shutdown)
 *   GET  /api/judge/bundles/{hash}           a problem's files by content hash
 *
 * A post under a lease that is no longer active is 409: "cancelled" when its
 * submission was cancelled (the lease ended as 'lost', reason "cancelled by
 * NAME"), "lease_lost" otherwise; the worker drops the job either way.
 *
 * A claim with no work suspends its connection until a submission is queued
 * (claims_notify) or its wait runs out (the ticker calls claims_tick).
 */
#ifndef BW_SERVER_JUDGEAPI_H
#define BW_SERVER_JUDGEAPI_H

#include <stddef.h>
#include <stdint.h>

struct http_request;
struct http_response;
struct claim_waiters;
struct server;

struct claim_waiters *claims_new(void);
void claims_free(struct claim_waiters *cw);
/* New work may be claimable: every waiting claim tries again. */
void claims_notify(struct claim_waiters *cw);
/* Wakes claims whose wait is over. */
void claims_tick(struct claim_waiters *cw);
/* The ticker's other part for waiting claims: a claim whose worker hung up
 * is ended now (not at the end of its wait), and every lease/3 seconds the
 * workers still waiting are marked seen, so that a worker in a long-poll
 * longer than a lease counts as alive while a killed one does not. */
void judgeapi_tick_claims(struct server *s);
/* Ends every waiting claim (shutdown). */
void claims_shutdown(struct claim_waiters *cw);
unsigned claims_waiting(struct claim_waiters *cw);

/* Tells the queue's watchers and the claims that the queue changed. */
void judgeapi_queue_changed(struct server *s);

int judgeapi_h_register(struct http_request *req, struct http_response *res);
int judgeapi_h_claim(struct http_request *req, struct http_response *res);
int judgeapi_h_progress(struct http_request *req, struct http_response *res);
int judgeapi_h_result(struct http_request *req, struct http_response *res);
int judgeapi_h_internal_error(struct http_request *req, struct http_response *res);
int judgeapi_h_release(struct http_request *req, struct http_response *res);
int judgeapi_h_bundle(struct http_request *req, struct http_response *res);

/* Tells the watchers of these submissions that they went back to the queue
 * ("requeued" events with `message`), and the queue's watchers and claims. */
void judgeapi_requeued(struct server *s, const int64_t *ids, size_t n, const char *message);

/* The ticker's part: expires leases and tells everyone about it. */
void judgeapi_expire(struct server *s);

#endif
