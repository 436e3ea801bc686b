/*
 * queue.h - the judging queue, part of the store (store.h): submissions
 * waiting, leases held by workers, results stored exactly once, on one
 * database that one or several servers share.
 *
 * A submission is 'queued' until a worker claims it: the claim, inside one
 * transaction, moves it to 'judging', counts an attempt and creates a lease
 * (a random id, an expiry). Progress posts extend the lease.
 * The lease ends in one of:
 *   done      the result was stored (posting it again is answered "already
 *             stored" and changes nothing: results are idempotent by lease);
 *   released  the worker gave the job back (shutdown): requeued, the attempt
 *             is not counted;
 *   failed    the worker reported an internal error: requeued, or Judge
 *             Error after BW_JUDGE_ATTEMPTS attempts;
 *   expired   no heartbeat in time (the worker died): same as failed;
 *   lost      an admin rejudged the submission meanwhile, or it was
 *             cancelled (reason "cancelled by NAME"; queue_cancel).
 * Only an active lease may store a result, so a submission is never judged
 * twice into the database, and none is lost: every state change is one
 * committed transaction and a restarted server finds queued and judging
 * submissions (with their leases' expiries) where it left them.
 *
 * Several servers (PostgreSQL): a claim takes the first claimable submission
 * with SELECT ... FOR UPDATE SKIP LOCKED, so two servers' claims never take
 * the same job and never wait on each other. Every change of a submission and
 * its leases first locks the submission's row (a claim, a result, a failure,
 * an expiry, a cancel, a rejudge; several rows in id order), so their order
 * is one and none deadlocks on another; expiring skips a submission another
 * server holds and looks again at the next tick. Any server expires any
 * lease: whichever notices first.
 *
 * Learners are served in turns. Each submission has a round: a new one takes
 * the round being served now, or one more than its learner's latest round
 * still queued or judging, whichever is later (queue_next_round), and
 * workers claim in (round, id) order. So a learner who parked 100 Runs holds
 * 100 rounds, and another learner's Run waits behind one of them at most
 * instead of all of them; among learners with one job each, the order is
 * first come first served. A requeued job (an expired lease, a compile-only
 * result) keeps its round: it goes back near the front. A rejudged one takes
 * the round being served.
 *
 * A result from a compile-only worker (executed false, no verdict) puts the
 * submission back in the queue marked needs_gpu, for GPU workers only. GPU
 * workers claim every queued submission in turn order, so when one connects
 * the jobs that waited for it are judged learner by learner.
 *
 * Languages: a submission is in one language (CUDA or Triton), and a worker
 * claims only submissions in a language it registered (worker_languages,
 * written by judgeapi's register): a CUDA-only judged is never handed a
 * Triton job, however old; the job waits for a worker that compiles it.
 *
 * The queue position of a queued submission is one number everywhere (the
 * list, the submission, its event stream, the admin's queue): 1 + the queued
 * submissions before it in (round, id) order, waiting for a GPU or not
 * (QUEUE_POSITION_SQL).
 *
 * A cancelled submission (queue_cancel) is 'done' with cancelled_at set and no
 * verdict (schema.sql, migration 2); it is never claimed or rejudged again.
 */
#ifndef BW_SERVER_STORE_QUEUE_H
#define BW_SERVER_STORE_QUEUE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "common/language.h"
#include "common/limits.h"
#include "common/verdict.h"
#include "wire/worker_proto.h"

struct store;
struct db_conn;
struct wp_language;
struct wp_result;

struct job {
    int64_t submission;
    char lease[48];
    int attempt;
    char problem[72];
    char hash[65];
    char *source; /* owned */
    enum wp_mode mode;
    enum language language;
    int64_t seed;
    int64_t expires_at;
};

void job_release(struct job *j);

/* A worker registers: its host, GPU (JSON) and languages replace the last
 * ones, and every lease it still held ends as expired (it restarted: that
 * work is lost), requeueing or failing the submissions; *ids (new) lists the
 * ones requeued. */
struct queue_registration {
    int64_t now;
    const char *hostname, *version, *gpu_json, *gpu_name;
    bool can_execute;
    const struct wp_language *languages;
    size_t n_languages;
};
int queue_register(struct store *st, int64_t worker, const struct queue_registration *r,
                   int64_t **ids, size_t *n, char **cause);

/* The round a new submission of `user` takes (see above), on a connection in
 * the caller's transaction. */
int queue_next_round(struct db_conn *c, int64_t user, int64_t *round, char **cause);

/* Claims the first submission in turn order this worker may take: queued, its problem
 * enabled, in a language the worker registered, and not waiting for a GPU
 * unless the worker can execute. Returns 1 with *out filled, 0 when there is
 * none, or a negative code. */
int queue_claim(struct store *st, int64_t worker, bool can_execute, int lease_s, struct job *out,
                char **cause);

/* Extends an active lease of this worker; BW_ERR_NOTFOUND when the lease is
 * not (or no longer) active. *submission is the lease's submission. */
int queue_heartbeat(struct store *st, int64_t worker, const char *lease, int lease_s,
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
int queue_store_result(struct store *st, int64_t worker, const char *lease,
                       const struct wp_result *r, const char *result_json, struct stored *out,
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
int queue_fail(struct store *st, int64_t worker, const char *lease, const char *message,
               bool problem_fault, int worker_limit, int problem_limit, struct failure *out,
               char **cause);

/* Gives a job back without counting the attempt. */
int queue_release(struct store *st, int64_t worker, const char *lease, int64_t *submission,
                  char **cause);

/* Expires leases past their expiry; *ids (new) lists the submissions that
 * went back to the queue, *done (new) those that got Judge Error. */
int queue_expire(struct store *st, int64_t now, int64_t **ids, size_t *n, int64_t **done,
                 size_t *n_done, char **cause);

/* The position of the submissions row aliased `s` as an SQL expression: 1 +
 * the queued submissions before it in turn order while it is queued, else 0.
 * Every position the server shows comes from this expression or from
 * queue_ids, which orders the same way. */
#define QUEUE_POSITION_SQL                                                                         \
    "(CASE WHEN s.state = 'queued' THEN (SELECT COUNT(*) FROM submissions q "                      \
    "WHERE q.state = 'queued' AND (q.round, q.id) <= (s.round, s.id)) ELSE 0 END)"

/* The admin's view of the queue: every submission not done, those being
 * judged first, then the queued ones in turn order. */
struct queue_row {
    int64_t id;
    const char *user, *problem, *mode, *state, *language;
    int64_t attempts, queued_at, position;
    bool needs_gpu;
    const char *worker, *lease; /* NULL when no worker holds it */
    int64_t lease_expires_at;
};
int queue_list(struct store *st, void (*fn)(void *arg, const struct queue_row *r), void *arg,
               char **cause);

/* Queued submission ids in turn order, the order GPU workers claim them (new array). */
int queue_ids(struct store *st, int64_t **ids, size_t *n, char **cause);
/* 1-based position of a queued submission (0 if it is not queued). */
int queue_position(struct store *st, int64_t id, int64_t *pos, char **cause);

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
    struct {
        int64_t queued;      /* queued submissions in this language */
        int64_t workers;     /* enabled workers seen lately that compile it */
        int64_t gpu_workers; /* of those, the ones that can run kernels */
        char versions[BW_MAX_STATUS_VERSIONS][BW_MAX_LANGUAGE_VERSION + 1]; /* theirs, distinct */
        size_t n_versions;
    } languages[LANG_COUNT]; /* by enum language */
};

int queue_status(struct store *st, int64_t now, int lease_s, struct queue_status *out,
                 char **cause);

/* A user's submissions that the in-flight cap counts. A compiled job that
 * only waits for a GPU counts only while a GPU worker that compiles its
 * language is connected (enabled, can execute, seen within lease_s): then it
 * is in a line that moves, and the cap keeps one user from filling it;
 * without one it is parked, and counting it would refuse every new Run ("wait
 * or be judged at once") for as long as no GPU comes, with nothing to wait
 * for. Likewise a queued Triton job counts only while a worker that compiles
 * Triton is connected: a server may have none for good (CUDA is what every
 * judged compiles, so a CUDA job with no worker at all is an outage the page
 * reports, and it counts as before). Parked jobs are bounded by the Run and
 * Submit window quotas. */
struct in_flight {
    int64_t counted;          /* what the cap compares with quota_in_flight */
    int64_t waiting_gpu;      /* this user's jobs waiting for a GPU */
    int64_t waiting_language; /* this user's queued jobs no connected worker compiles (not
                                 counted, nor in waiting_gpu) */
    bool gpu_connected; /* a GPU worker is connected and every job in waiting_gpu is counted */
};

int queue_in_flight(struct store *st, int64_t user, int64_t now, int lease_s, struct in_flight *out,
                    char **cause);
/* The same on a connection in the caller's transaction. */
int queue_in_flight_on(struct db_conn *c, int64_t user, int64_t now, int lease_s,
                       struct in_flight *out, char **cause);

/* What queue_cancel did. */
struct cancel {
    int64_t submission;
    int64_t at;
    char from[16];  /* "queued", "waiting_for_gpu" or "judging" */
    char lease[48]; /* the lease it ended ("" when no worker held the job) */
    int64_t worker; /* that lease's worker (0 if none) */
};

/* Cancels submission `id` on behalf of user `by` (named `by_name`), in one
 * transaction: the submission becomes done with cancelled_at/by/from and the
 * message "cancelled by NAME", and an active lease ends as 'lost', so the
 * worker's later posts for it are refused. BW_ERR_NOTFOUND: no such
 * submission; BW_ERR_INVALID: it is finished already (judged or cancelled;
 * the cause says which). Who may cancel is the caller's decision. */
int queue_cancel(struct store *st, int64_t id, int64_t by, const char *by_name, struct cancel *out,
                 char **cause);

/* True when `lease` of `worker` ended because its submission was cancelled;
 * then *submission is that submission and `why` says by whom ("cancelled by
 * alice"). False otherwise (or on a database error). */
bool queue_lease_cancelled(struct store *st, int64_t worker, const char *lease, int64_t *submission,
                           char *why, size_t why_size);

/* Requeues one submission (any state but cancelled: BW_ERR_INVALID) or
 * every judged submission of a problem (cancelled ones stay cancelled);
 * active leases become 'lost'. *n counts them. */
int queue_rejudge_submission(struct store *st, int64_t id, char **cause);
int queue_rejudge_problem(struct store *st, const char *problem, int64_t *n, char **cause);

#endif
