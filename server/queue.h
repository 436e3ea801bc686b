/*
 * queue.h - the judging queue in SQLite: submissions waiting, leases held by
 * workers, results stored exactly once.
 *
 * A submission is 'queued' until a worker claims it: the claim, inside one
 * BEGIN IMMEDIATE transaction, moves it to 'judging', counts an attempt and
 * creates a lease (a random id, an expiry). Progress posts extend the lease.
 * The lease ends in one of:
 *   done      the result was stored (posting it again is answered "already
 *             stored" and changes nothing: results are idempotent by lease);
 *   released  the worker gave the job back (shutdown): requeued, the attempt
 *             is not counted;
 *   failed    the worker reported an internal error: requeued, or Judge
 *             Error after BW_JUDGE_ATTEMPTS attempts;
 *   expired   no heartbeat in time (the worker died): same as failed;
 *   lost      an admin rejudged the submission meanwhile.
 * Only an active lease may store a result, so a submission is never judged
 * twice into the database, and none is lost: every state change is one
 * committed transaction and a restarted server finds queued and judging
 * submissions (with their leases' expiries) where it left them.
 *
 * A result from a compile-only worker (executed false, no verdict) puts the
 * submission back in the queue marked needs_gpu, for GPU workers only.
 */
#ifndef BW_SERVER_QUEUE_H
#define BW_SERVER_QUEUE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "common/limits.h"
#include "common/verdict.h"

struct db_conn;
struct body_result;

struct job {
    int64_t submission;
    char lease[48];
    int attempt;
    char problem[72];
    char hash[65];
    char *source; /* owned */
    bool submit;
    int64_t seed;
    int64_t expires_at;
};

void job_release(struct job *j);

/* Claims the oldest claimable submission. Returns 1 with *out filled, 0 when
 * there is none, or a negative code. */
int queue_claim(struct db_conn *c, int64_t worker, bool can_execute, int lease_s, struct job *out,
                char **cause);

/* Extends an active lease of this worker; BW_ERR_NOTFOUND when the lease is
 * not (or no longer) active. *submission is the lease's submission. */
int queue_heartbeat(struct db_conn *c, int64_t worker, const char *lease, int lease_s,
                    int64_t *submission, char **cause);

enum store_outcome {
    STORED,          /* the verdict is stored */
    STORED_BEFORE,   /* this lease's result was stored already: nothing changed */
    WAITING_FOR_GPU, /* compile-only result: back in the queue for a GPU worker */
};

struct stored {
    enum store_outcome outcome;
    int64_t submission;
    int64_t user;
    char problem[72];
    enum verdict verdict;
    double score, time_ms;
    int64_t queued_at, created_at;
};

/* Stores a result under an active lease (see above); BW_ERR_NOTFOUND when the
 * lease is neither active nor done. */
int queue_store_result(struct db_conn *c, int64_t worker, const char *lease,
                       const struct body_result *r, const char *result_json, struct stored *out,
                       char **cause);

struct failure {
    int64_t submission;
    bool judge_error;      /* the submission got Judge Error (attempts used up) */
    bool worker_disabled;  /* this failure disabled the worker */
    bool problem_disabled; /* this failure disabled the problem */
    char problem[72];
};

/* An internal error under an active lease: requeue or Judge Error; counts
 * toward disabling the worker and the problem. */
int queue_fail(struct db_conn *c, int64_t worker, const char *lease, const char *message,
               bool problem_fault, int worker_limit, int problem_limit, struct failure *out,
               char **cause);

/* Gives a job back without counting the attempt. */
int queue_release(struct db_conn *c, int64_t worker, const char *lease, int64_t *submission,
                  char **cause);

/* Ends every active lease of a worker (it restarted: that work is lost) as
 * expired, requeueing or failing the submissions. *ids (new) lists them. */
int queue_reclaim_worker(struct db_conn *c, int64_t worker, int64_t **ids, size_t *n, char **cause);

/* Expires leases past their expiry; *ids (new) lists the submissions that
 * went back to the queue, *done (new) those that got Judge Error. */
int queue_expire(struct db_conn *c, int64_t now, int64_t **ids, size_t *n, int64_t **done,
                 size_t *n_done, char **cause);

/* Queued submission ids in claim order (new array). */
int queue_ids(struct db_conn *c, int64_t **ids, size_t *n, char **cause);
/* 1-based position of a queued submission (0 if it is not queued). */
int queue_position(struct db_conn *c, int64_t id, int64_t *pos, char **cause);

/* What anyone signed in may know about the judging capacity: the queue and
 * the enabled workers that asked for work within the last lease_s seconds. */
struct queue_status {
    int64_t queued;      /* waiting for a worker (waiting_gpu included) */
    int64_t waiting_gpu; /* compiled by a compile-only worker, waiting for a GPU worker */
    int64_t judging;     /* under an active lease */
    int64_t workers;     /* enabled workers seen lately */
    int64_t gpu_workers; /* of those, the ones that can run kernels */
    char gpus[BW_MAX_STATUS_GPUS][128]; /* distinct GPU models of those, by name */
    size_t n_gpus;
};

int queue_status(struct db_conn *c, int64_t now, int lease_s, struct queue_status *out,
                 char **cause);

/* Requeues one submission (any state) or every judged submission of a
 * problem; active leases become 'lost'. *n counts them. */
int queue_rejudge_submission(struct db_conn *c, int64_t id, char **cause);
int queue_rejudge_problem(struct db_conn *c, const char *problem, int64_t *n, char **cause);

#endif
