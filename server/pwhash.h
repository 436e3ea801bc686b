/*
 * pwhash.h - argon2id off the HTTP threads: a bounded pool of threads that
 * check and hash passwords for sign-in and sign-up.
 *
 * An argon2id hash costs tens of milliseconds of CPU and pwhash_mem_kib of
 * memory, on purpose. Run on libmicrohttpd's threads, 50 sign-ins at once
 * stalled every request, event stream and worker post queued behind them on
 * the same threads (/api/health went from 0.4 ms to seconds). So a handler
 * hands its job to this pool and suspends its connection; a pool thread does
 * the work and resumes the connection, and the handler runs again
 * (req->calls > 1) with the result in the job. The HTTP threads never hash.
 *
 * The queue is bounded: pwhash_submit() refuses a job when `queue` jobs are
 * waiting already, and the handler answers 429 "busy" with the Retry-After
 * pwhash_retry_after() estimates, so a flood of sign-ins costs a bounded
 * amount of memory and a bounded wait, and is told so.
 *
 * Ownership: the job is the caller's (it lives in the request's state) and
 * must stay valid until the handler's next run; the pool only fills its
 * results, then resumes the connection, and never touches the job after
 * that. pwhash_job_release() zeroes the password and frees the strings.
 */
#ifndef BW_SERVER_PWHASH_H
#define BW_SERVER_PWHASH_H

#include <stdbool.h>

#include "common/limits.h"

struct http_conn;
struct pwhash_pool;
struct server_config;

enum pwhash_kind {
    PWHASH_CHECK, /* is `password` the one `stored` was made from? */
    PWHASH_HASH,  /* a new hash of `password` */
};

struct pwhash_job {
    /* in, set by the caller */
    enum pwhash_kind kind;
    char password[BW_MAX_PASSWORD + 1];
    char *stored; /* owned; CHECK: the user's hash, NULL for no such user (the dummy's cost) */
    /* out, set by the pool before it resumes the connection */
    bool done;      /* the pool ran the job */
    bool cancelled; /* the pool stopped first (the server is stopping): nothing was checked */
    bool ok;        /* CHECK: the password is right */
    char *hash;     /* owned; HASH: the new hash; CHECK: a new hash at the configured cost when
                     * the password is right and `stored` was made at another (NULL otherwise) */
    int rc;         /* BW_OK, or BW_ERR_NOMEM when hashing ran out of memory */
    /* the pool's */
    struct http_conn *conn;
    struct pwhash_job *next;
};

/* A pool of `threads` threads with room for `queue` waiting jobs, hashing at
 * cfg's cost (cfg is borrowed and must outlive the pool). NULL with *cause
 * when a thread cannot start. */
struct pwhash_pool *pwhash_new(const struct server_config *cfg, int threads, int queue,
                               char **cause);
/* Stops the pool: jobs still waiting are cancelled and their connections
 * resumed, running ones finish; then the threads are joined. The pool stays
 * valid (pwhash_submit answers BW_ERR_INVALID) until pwhash_free. A second
 * call, or NULL, is a no-op. */
void pwhash_stop(struct pwhash_pool *p);
/* Stops the pool if it runs, and frees it. NULL is a no-op. */
void pwhash_free(struct pwhash_pool *p);

/* Queues `job` and suspends `conn` until it is done (the handler returns
 * HTTP_SUSPENDED). BW_ERR_LIMIT when `queue` jobs are waiting (nothing is
 * suspended then), BW_ERR_INVALID when the pool is stopping. */
int pwhash_submit(struct pwhash_pool *p, struct pwhash_job *job, struct http_conn *conn);

/* Seconds a refused client should wait: the queue's work shared among the
 * threads, from the hashes measured so far (at least 1). */
int pwhash_retry_after(struct pwhash_pool *p);

/* Jobs waiting and running now, for /metrics. */
unsigned pwhash_load(struct pwhash_pool *p);

/* Zeroes the password and frees the job's strings (the job itself is the
 * caller's). */
void pwhash_job_release(struct pwhash_job *job);

#endif
