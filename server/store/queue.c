/*
 * queue.c - the job queue's worker side (queue.h): workers registering,
 * claims (SKIP LOCKED), leases and their heartbeats, results, failures and
 * releases, and leases expired by whichever server notices. What the queue
 * looks like is queue_read.c; cancel and rejudge, queue_cancel.c.
 */
#include "server/store/queue.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "server/auth.h"
#include "server/bodies.h"
#include "server/store/db.h"
#include "server/store/store_impl.h"
#include "common/error.h"
#include "common/limits.h"
#include "common/banned.h"

void job_release(struct job *j)
{
    free(j->source);
    j->source = NULL;
}

static int64_t now_s(void)
{
    return (int64_t)time(NULL);
}

int id_list_add(struct id_list *l, int64_t id, char **cause)
{
    if (l->n == l->cap) {
        size_t cap = l->cap ? l->cap * 2 : 16;
        int64_t *v = realloc(l->v, cap * sizeof(*v));
        if (!v)
            return bw_fail(cause, BW_ERR_NOMEM, "out of memory");
        l->v = v;
        l->cap = cap;
    }
    l->v[l->n++] = id;
    return BW_OK;
}

int queue_lock_submission(struct db_conn *c, int64_t id, bool skip, bool *got, char **cause)
{
    int64_t v = 0;
    int rc = skip ? db_get_i64(c, &v, cause,
                               "SELECT id FROM submissions WHERE id = ? "
                               "FOR UPDATE SKIP LOCKED",
                               "i", id)
                  : db_get_i64(c, &v, cause, "SELECT id FROM submissions WHERE id = ? FOR UPDATE",
                               "i", id);
    *got = rc == BW_OK;
    if (rc == BW_ERR_NOTFOUND) {
        free(*cause);
        *cause = NULL;
        return BW_OK;
    }
    return rc;
}

int queue_next_round(struct db_conn *c, int64_t user, int64_t *round, char **cause)
{
    return db_get_i64(c, round, cause,
                      "SELECT GREATEST(" ROUND_NOW_SQL ", COALESCE((SELECT MAX(round) + 1 FROM "
                      "submissions WHERE user_id = ? AND state IN ('queued', 'judging')), 0))",
                      "i", user);
}

/* Ends a lease and requeues its submission, or gives it Judge Error when the
 * attempts are used up. In the caller's transaction, the submission locked. */
static int end_lease(struct db_conn *c, const char *lease, int64_t submission, const char *state,
                     const char *reason, bool count_attempt, bool *judge_error, char **cause)
{
    int64_t now = now_s();
    int64_t attempts = 0;
    *judge_error = false;
    int rc = db_run(c, cause, "UPDATE leases SET state = ?, ended_at = ?, reason = ? WHERE id = ?",
                    "titt", state, now, reason, lease);
    if (rc == BW_OK && !count_attempt)
        rc = db_run(c, cause,
                    "UPDATE submissions SET attempts = GREATEST(attempts - 1, 0) WHERE id = ?", "i",
                    submission);
    if (rc == BW_OK)
        rc = db_get_i64(c, &attempts, cause, "SELECT attempts FROM submissions WHERE id = ?", "i",
                        submission);
    if (rc < 0)
        return rc;
    if (attempts >= BW_JUDGE_ATTEMPTS) {
        char message[BW_MAX_MESSAGE_FIELD + 128];
        snprintf(message, sizeof(message), "judging failed %d times; last: %s", BW_JUDGE_ATTEMPTS,
                 reason);
        *judge_error = true;
        return db_run(c, cause,
                      "UPDATE submissions SET state = 'done', verdict = 'JE', message = ?, "
                      "judged_at = ? WHERE id = ?",
                      "tii", message, now, submission);
    }
    /* What the submission says while it waits again (the learner's page, the
     * list): that it is being judged again, and why. */
    char retry[BW_MAX_MESSAGE_FIELD + 128];
    if (count_attempt)
        snprintf(retry, sizeof(retry), "judging again (attempt %lld of %d failed): %s",
                 (long long)attempts, BW_JUDGE_ATTEMPTS, reason);
    else
        snprintf(retry, sizeof(retry), "judging again: %s", reason);
    return db_run(
        c, cause,
        "UPDATE submissions SET state = 'queued', queued_at = ?, message = ? WHERE id = ?", "iti",
        now, retry, submission);
}

/* The active leases selected by `sql` (binding one int64): (lease, submission)
 * pairs in submission order. */
struct lease_list {
    char (*lease)[48];
    int64_t *sub;
    size_t n, cap;
};

static void lease_list_release(struct lease_list *l)
{
    free(l->lease);
    free(l->sub);
    memset(l, 0, sizeof(*l));
}

static int leases_where(struct db_conn *c, const char *sql, int64_t arg, struct lease_list *out,
                        char **cause)
{
    struct db_stmt *st = NULL;
    int rc = db_prepare(c, &st, cause, sql, "i", arg);
    while (rc >= 0 && (rc = db_step(st, cause)) == DB_ROW) {
        if (out->n == out->cap) {
            size_t cap = out->cap ? out->cap * 2 : 16;
            void *a = realloc(out->lease, cap * sizeof(*out->lease));
            if (a)
                out->lease = a;
            void *b = realloc(out->sub, cap * sizeof(*out->sub));
            if (b)
                out->sub = b;
            if (!a || !b) {
                rc = bw_fail(cause, BW_ERR_NOMEM, "out of memory");
                break;
            }
            out->cap = cap;
        }
        snprintf(out->lease[out->n], sizeof(out->lease[0]), "%s", db_col_text(st, 0));
        out->sub[out->n++] = db_col_i64(st, 1);
    }
    db_finish(st);
    return rc < 0 ? rc : BW_OK;
}

/* The expiring and reclaiming of leases: each chosen lease, its submission
 * locked (skipping one another transaction holds), still active, ends as
 * `state`. */
struct expiry {
    const char *select; /* (lease id, submission) of active leases, by one int64 */
    int64_t arg;
    int64_t now; /* > 0: the lease must still be past its expiry at now */
    const char *state, *reason;
    bool count_attempt, skip_locked;
    struct id_list requeued, failed;
};

static int expire_tx(struct db_conn *c, void *arg, char **cause)
{
    struct expiry *e = arg;
    struct lease_list l = {0};
    e->requeued.n = e->failed.n = 0;
    int rc = leases_where(c, e->select, e->arg, &l, cause);
    for (size_t i = 0; rc >= 0 && i < l.n; i++) {
        bool got = false, je = false;
        int64_t live = 0;
        rc = queue_lock_submission(c, l.sub[i], e->skip_locked, &got, cause);
        if (rc < 0 || !got)
            continue;
        /* Another server may have ended it meanwhile (a result, an expiry). */
        rc = e->now > 0
                 ? db_get_i64(c, &live, cause,
                              "SELECT COUNT(*) FROM leases WHERE id = ? AND state = 'active' "
                              "AND expires_at < ?",
                              "ti", l.lease[i], e->now)
                 : db_get_i64(c, &live, cause,
                              "SELECT COUNT(*) FROM leases WHERE id = ? AND state = 'active'", "t",
                              l.lease[i]);
        if (rc < 0 || !live)
            continue;
        rc = end_lease(c, l.lease[i], l.sub[i], e->state, e->reason, e->count_attempt, &je, cause);
        if (rc == BW_OK)
            rc = id_list_add(je ? &e->failed : &e->requeued, l.sub[i], cause);
    }
    lease_list_release(&l);
    return rc;
}

int queue_register(struct store *st, int64_t worker, const struct queue_registration *r,
                   int64_t **ids, size_t *n, char **cause)
{
    struct db_conn *c = db_acquire(st->db);
    *ids = NULL;
    *n = 0;
    int rc = db_begin(c, cause);
    if (rc == BW_OK)
        rc = db_run(c, cause,
                    "UPDATE workers SET registered_at = ?, last_seen_at = ?, hostname = ?, "
                    "version = ?, gpu = ?, gpu_name = ?, can_execute = ? WHERE id = ?",
                    "iitttt"
                    "Ii",
                    r->now, r->now, r->hostname, r->version, r->gpu_json, r->gpu_name,
                    r->can_execute ? 1 : 0, worker);
    if (rc == BW_OK)
        rc = db_run(c, cause, "DELETE FROM worker_languages WHERE worker_id = ?", "i", worker);
    for (size_t i = 0; rc == BW_OK && i < r->n_languages; i++)
        rc = db_run(
            c, cause, "INSERT INTO worker_languages(worker_id, language, version) VALUES (?,?,?)",
            "itt", worker, language_name(r->languages[i].language), r->languages[i].version);
    if (rc == BW_OK)
        rc = db_commit(c, cause);
    else
        db_rollback(c);
    struct expiry e = {
        .select = "SELECT id, submission_id FROM leases WHERE state = 'active' "
                  "AND worker_id = ? ORDER BY submission_id",
        .arg = worker,
        .state = "expired",
        .reason = "the worker restarted while judging it",
        .count_attempt = true,
    };
    if (rc == BW_OK)
        rc = db_tx_on(c, expire_tx, &e, cause);
    db_release(st->db, c);
    free(e.failed.v);
    if (rc < 0) {
        free(e.requeued.v);
        return rc;
    }
    *ids = e.requeued.v;
    *n = e.requeued.n;
    return BW_OK;
}

struct claim {
    int64_t worker;
    bool can_execute;
    int lease_s;
    struct job *out;
};

static int claim_tx(struct db_conn *c, void *arg, char **cause)
{
    struct claim *a = arg;
    struct job *out = a->out;
    struct db_stmt *st = NULL;
    int64_t now = now_s();
    job_release(out);
    memset(out, 0, sizeof(*out));
    /* SKIP LOCKED: a job another server is claiming (or changing) now is
     * passed over, never waited for, never taken twice. */
    int rc = db_prepare(c, &st, cause,
                        "SELECT s.id, s.problem_id, s.problem_hash, s.source, " STORE_MODE_SQL
                        ", s.seed, "
                        "s.attempts, s.language FROM submissions s "
                        "JOIN problems p ON p.id = s.problem_id "
                        "WHERE s.state = 'queued' AND p.disabled = 0 "
                        "AND (? <> 0 OR s.needs_gpu = 0) "
                        "AND s.language IN (SELECT language FROM worker_languages "
                        "WHERE worker_id = ?) "
                        "ORDER BY s.round, s.id LIMIT 1 FOR UPDATE OF s SKIP LOCKED",
                        "Ii", a->can_execute ? 1 : 0, a->worker);
    if (rc == BW_OK)
        rc = db_step(st, cause);
    if (rc == DB_ROW) {
        out->submission = db_col_i64(st, 0);
        snprintf(out->problem, sizeof(out->problem), "%s", db_col_text(st, 1));
        snprintf(out->hash, sizeof(out->hash), "%s", db_col_text(st, 2));
        out->source = db_col_strdup(st, 3);
        if (!wp_mode_from_name(db_col_text(st, 4), &out->mode))
            out->mode = WP_RUN; /* STORE_MODE_SQL gives no other */
        out->seed = db_col_i64(st, 5);
        out->attempt = (int)db_col_i64(st, 6) + 1;
        if (!language_from_name(db_col_text(st, 7), &out->language))
            out->language = LANG_CUDA; /* the schema's CHECK allows no other */
        if (!out->source)
            rc = bw_fail(cause, BW_ERR_NOMEM, "out of memory");
    }
    db_finish(st);
    if (rc != DB_ROW)
        return rc == DB_DONE ? 0 : rc;
    auth_new_token("l_", out->lease);
    out->expires_at = now + a->lease_s;
    rc = db_run(c, cause,
                "UPDATE submissions SET state = 'judging', attempts = attempts + 1 "
                "WHERE id = ? AND state = 'queued'",
                "i", out->submission);
    if (rc == BW_OK)
        rc = db_run(c, cause,
                    "INSERT INTO leases(id, submission_id, worker_id, attempt, created_at, "
                    "expires_at) VALUES (?,?,?,?,?,?)",
                    "tiiIii", out->lease, out->submission, a->worker, out->attempt, now,
                    out->expires_at);
    return rc < 0 ? rc : 1;
}

int queue_claim(struct store *st, int64_t worker, bool can_execute, int lease_s, struct job *out,
                char **cause)
{
    struct claim a = {worker, can_execute, lease_s, out};
    memset(out, 0, sizeof(*out));
    int rc = db_tx(st->db, claim_tx, &a, cause);
    if (rc != 1)
        job_release(out);
    return rc;
}

int queue_heartbeat(struct store *st, int64_t worker, const char *lease, int lease_s,
                    int64_t *submission, char **cause)
{
    int64_t now = now_s();
    struct db_conn *c = db_acquire(st->db);
    /* One statement: a lease that expired meanwhile is not brought back. */
    int rc = db_get_i64(c, submission, cause,
                        "UPDATE leases SET expires_at = ? WHERE id = ? AND worker_id = ? "
                        "AND state = 'active' RETURNING submission_id",
                        "iti", now + lease_s, lease, worker);
    if (rc == BW_ERR_NOTFOUND) {
        free(*cause);
        *cause = NULL;
        rc = bw_fail(cause, BW_ERR_NOTFOUND, "lease %s is not active (expired or given up)", lease);
    }
    if (rc == BW_OK)
        rc =
            db_run(c, cause, "UPDATE workers SET last_seen_at = ? WHERE id = ?", "ii", now, worker);
    db_release(st->db, c);
    return rc;
}

static double geomean_time(const struct wp_result *r)
{
    if (r->n_benches == 0)
        return 0;
    double sum = 0;
    for (size_t i = 0; i < r->n_benches; i++)
        sum += log(r->benches[i].median_ms > 1e-9 ? r->benches[i].median_ms : 1e-9);
    return exp(sum / (double)r->n_benches);
}

/* The geometric mean over the shapes of PyTorch's time over the kernel's ("x PyTorch"); -1
 * when a shape has no PyTorch time (stored as NULL). Computed here from the shapes, as the
 * time is, rather than taken from the worker's summary. */
static double geomean_pytorch_speedup(const struct wp_result *r)
{
    if (r->n_benches == 0)
        return -1;
    double sum = 0;
    for (size_t i = 0; i < r->n_benches; i++) {
        if (!(r->benches[i].pytorch_ms > 0) || !(r->benches[i].median_ms > 0))
            return -1;
        sum += log(r->benches[i].pytorch_ms / r->benches[i].median_ms);
    }
    return exp(sum / (double)r->n_benches);
}

static int store_rows(struct db_conn *c, int64_t id, const struct wp_result *r, char **cause)
{
    int rc = db_run(c, cause, "DELETE FROM test_results WHERE submission_id = ?", "i", id);
    if (rc == BW_OK)
        rc = db_run(c, cause, "DELETE FROM bench_results WHERE submission_id = ?", "i", id);
    for (size_t i = 0; rc == BW_OK && i < r->n_tests; i++) {
        const struct wp_test *t = &r->tests[i];
        rc =
            db_run(c, cause,
                   "INSERT INTO test_results(submission_id, idx, name, verdict, message, ms) "
                   "VALUES (?,?,?,?,?,?)",
                   "iItttd", id, (int)i, t->name,
                   t->verdict == VERDICT_NONE ? NULL : verdict_code(t->verdict), t->message, t->ms);
    }
    for (size_t i = 0; rc == BW_OK && i < r->n_benches; i++) {
        const struct wp_bench *b = &r->benches[i];
        rc = db_run(c, cause,
                    "INSERT INTO bench_results(submission_id, idx, name, samples, median_ms, "
                    "min_ms, max_ms, gbps, tflops, sol_pct, clock_mhz, pytorch_ms) "
                    "VALUES (?,?,?,?,?,?,?,?,?,?,?,NULLIF(?, 0))",
                    "iItidddddd"
                    "id",
                    id, (int)i, b->name, b->samples, b->median_ms, b->min_ms, b->max_ms, b->gbps,
                    b->tflops, b->sol_pct, b->clock_mhz, b->pytorch_ms);
    }
    return rc;
}

struct result_arg {
    int64_t worker;
    const char *lease;
    const struct wp_result *r;
    const char *json;
    struct stored *out;
};

static int result_tx(struct db_conn *c, void *arg, char **cause)
{
    struct result_arg *a = arg;
    const struct wp_result *r = a->r;
    struct stored *out = a->out;
    struct db_stmt *st = NULL;
    int64_t now = now_s(), sub = 0;
    bool got = false;
    memset(out, 0, sizeof(*out));
    int rc = db_get_i64(c, &sub, cause,
                        "SELECT submission_id FROM leases WHERE id = ? "
                        "AND worker_id = ?",
                        "ti", a->lease, a->worker);
    if (rc == BW_ERR_NOTFOUND) {
        free(*cause);
        *cause = NULL;
        return bw_fail(cause, BW_ERR_NOTFOUND, "lease %s is not active (unknown)", a->lease);
    }
    if (rc == BW_OK)
        rc = queue_lock_submission(c, sub, false, &got, cause);
    if (rc < 0)
        return rc;
    char lease_state[16] = "";
    rc = db_prepare(c, &st, cause,
                    "SELECT l.state, s.id, s.user_id, s.problem_id, " STORE_MODE_SQL
                    ", s.queued_at, "
                    "s.created_at, s.language FROM leases l "
                    "JOIN submissions s ON s.id = l.submission_id "
                    "WHERE l.id = ? AND l.worker_id = ?",
                    "ti", a->lease, a->worker);
    if (rc == BW_OK)
        rc = db_step(st, cause);
    bool submit = false, profile = false;
    char language[16] = "cuda";
    if (rc == DB_ROW) {
        snprintf(lease_state, sizeof(lease_state), "%s", db_col_text(st, 0));
        out->submission = db_col_i64(st, 1);
        out->user = db_col_i64(st, 2);
        snprintf(out->problem, sizeof(out->problem), "%s", db_col_text(st, 3));
        submit = strcmp(db_col_text(st, 4), "submit") == 0;
        profile = strcmp(db_col_text(st, 4), "profile") == 0;
        out->queued_at = db_col_i64(st, 5);
        out->created_at = db_col_i64(st, 6);
        snprintf(language, sizeof(language), "%s", db_col_text(st, 7));
    }
    db_finish(st);
    if (rc < 0)
        return rc;
    if (rc == DB_DONE || (strcmp(lease_state, "active") != 0 && strcmp(lease_state, "done") != 0))
        return bw_fail(cause, BW_ERR_NOTFOUND, "lease %s is not active (%s)", a->lease,
                       lease_state[0] ? lease_state : "unknown");
    if (strcmp(lease_state, "done") == 0) {
        out->outcome = STORED_BEFORE;
        return BW_OK;
    }
    rc = db_run(c, cause, "UPDATE leases SET state = 'done', ended_at = ? WHERE id = ?", "it", now,
                a->lease);
    if (rc < 0)
        return rc;
    if (r->verdict == VERDICT_NONE && !r->executed) {
        out->outcome = WAITING_FOR_GPU;
        return db_run(c, cause,
                      "UPDATE submissions SET state = 'queued', needs_gpu = 1, attempts = 0, "
                      "queued_at = ?, message = ? WHERE id = ?",
                      "iti", now, "compiled; waiting for a GPU worker", out->submission);
    }
    out->outcome = STORED;
    out->verdict = r->verdict;
    out->score = r->score;
    out->time_ms = geomean_time(r);
    rc = db_run(c, cause,
                "UPDATE submissions SET state = 'done', verdict = ?, message = ?, score = ?, "
                "time_ms = ?, judged_at = ?, worker_id = ?, gpu_name = ?, result = ? WHERE id = ?",
                "ttddiitti", verdict_code(r->verdict), r->message, r->score, out->time_ms, now,
                a->worker, r->gpu_name, a->json, out->submission);
    double speedup = geomean_pytorch_speedup(r);
    if (rc == BW_OK)
        rc = db_run(c, cause, "UPDATE submissions SET pytorch_speedup = NULLIF(?, -1) WHERE id = ?",
                    "di", speedup, out->submission);
    if (rc == BW_OK)
        rc = store_rows(c, out->submission, r, cause);
    if (rc == BW_OK)
        rc = db_run(c, cause, "UPDATE workers SET error_streak = 0, last_seen_at = ? WHERE id = ?",
                    "ii", now, a->worker);
    if (rc == BW_OK)
        rc = db_run(c, cause, "UPDATE problems SET error_streak = 0 WHERE id = ?", "t",
                    out->problem);
    /* A Profile is for looking at a kernel: it solves nothing and ranks nowhere. */
    if (rc == BW_OK && r->verdict == VERDICT_ACCEPTED && !profile)
        rc = db_run(c, cause,
                    "INSERT INTO solved(user_id, problem_id, language, first_at) "
                    "VALUES (?,?,?,?) ON CONFLICT DO NOTHING",
                    "itti", out->user, out->problem, language, now);
    if (rc == BW_OK && r->verdict == VERDICT_ACCEPTED && submit && r->executed &&
        r->n_benches > 0 && r->gpu_name[0])
        rc = db_run(c, cause,
                    "INSERT INTO best(user_id, problem_id, gpu_name, language, submission_id, "
                    "score, time_ms, at, pytorch_speedup) VALUES (?,?,?,?,?,?,?,?,NULLIF(?, -1)) "
                    "ON CONFLICT(user_id, problem_id, gpu_name, language) DO UPDATE SET "
                    "submission_id = excluded.submission_id, score = excluded.score, "
                    "time_ms = excluded.time_ms, at = excluded.at, "
                    "pytorch_speedup = excluded.pytorch_speedup "
                    "WHERE excluded.time_ms < best.time_ms",
                    "itttiddid", out->user, out->problem, r->gpu_name, language, out->submission,
                    r->score, out->time_ms, now, speedup);
    return rc;
}

int queue_store_result(struct store *st, int64_t worker, const char *lease,
                       const struct wp_result *r, const char *result_json, struct stored *out,
                       char **cause)
{
    struct result_arg a = {worker, lease, r, result_json, out};
    return db_tx(st->db, result_tx, &a, cause);
}

/* The active lease of `worker` named `lease`, its submission locked first
 * (queue.h's order); BW_ERR_NOTFOUND when it is not active. */
static int lock_active_lease(struct db_conn *c, int64_t worker, const char *lease,
                             int64_t *submission, char **cause)
{
    bool got = false;
    int64_t live = 0;
    int rc = db_get_i64(c, submission, cause,
                        "SELECT submission_id FROM leases WHERE id = ? AND worker_id = ? "
                        "AND state = 'active'",
                        "ti", lease, worker);
    if (rc == BW_OK)
        rc = queue_lock_submission(c, *submission, false, &got, cause);
    if (rc == BW_OK)
        rc =
            db_get_i64(c, &live, cause,
                       "SELECT COUNT(*) FROM leases WHERE id = ? AND state = 'active'", "t", lease);
    if (rc == BW_ERR_NOTFOUND || (rc == BW_OK && !live)) {
        free(*cause);
        *cause = NULL;
        return bw_fail(cause, BW_ERR_NOTFOUND, "lease %s is not active (expired or given up)",
                       lease);
    }
    return rc;
}

struct fail_arg {
    int64_t worker;
    const char *lease, *message;
    bool problem_fault;
    int worker_limit, problem_limit;
    struct failure *out;
};

static int fail_tx(struct db_conn *c, void *arg, char **cause)
{
    struct fail_arg *a = arg;
    struct failure *out = a->out;
    memset(out, 0, sizeof(*out));
    int rc = lock_active_lease(c, a->worker, a->lease, &out->submission, cause);
    struct db_stmt *st = NULL;
    if (rc == BW_OK)
        rc = db_prepare(c, &st, cause, "SELECT problem_id FROM submissions WHERE id = ?", "i",
                        out->submission);
    if (rc == BW_OK && (rc = db_step(st, cause)) == DB_ROW) {
        snprintf(out->problem, sizeof(out->problem), "%s", db_col_text(st, 0));
        rc = BW_OK;
    } else if (rc == DB_DONE) {
        rc = bw_fail(cause, BW_ERR_INTERNAL, "lease %s has no submission", a->lease);
    }
    db_finish(st);
    char reason[BW_MAX_MESSAGE_FIELD + 64];
    snprintf(reason, sizeof(reason), "internal error on worker %lld: %s", (long long)a->worker,
             a->message);
    if (rc == BW_OK)
        rc = end_lease(c, a->lease, out->submission, "failed", reason, true, &out->judge_error,
                       cause);
    int64_t wstreak = 0, pstreak = 0;
    if (rc == BW_OK && !a->problem_fault)
        rc = db_run(c, cause, "UPDATE workers SET error_streak = error_streak + 1 WHERE id = ?",
                    "i", a->worker);
    if (rc == BW_OK)
        rc = db_run(c, cause, "UPDATE problems SET error_streak = error_streak + ? WHERE id = ?",
                    "It", a->problem_fault ? a->problem_limit : 1, out->problem);
    if (rc == BW_OK)
        rc = db_get_i64(c, &wstreak, cause, "SELECT error_streak FROM workers WHERE id = ?", "i",
                        a->worker);
    if (rc == BW_OK)
        rc = db_get_i64(c, &pstreak, cause, "SELECT error_streak FROM problems WHERE id = ?", "t",
                        out->problem);
    if (rc == BW_OK && wstreak >= a->worker_limit) {
        out->worker_disabled = true;
        rc = db_run(c, cause,
                    "UPDATE workers SET disabled = 1, disabled_reason = ? WHERE id = ? "
                    "AND disabled = 0",
                    "ti", reason, a->worker);
    }
    if (rc == BW_OK && pstreak >= a->problem_limit) {
        out->problem_disabled = true;
        rc = db_run(c, cause,
                    "UPDATE problems SET disabled = 1, disabled_reason = ? WHERE id = ? "
                    "AND disabled = 0",
                    "tt", reason, out->problem);
    }
    return rc;
}

int queue_fail(struct store *st, int64_t worker, const char *lease, const char *message,
               bool problem_fault, int worker_limit, int problem_limit, struct failure *out,
               char **cause)
{
    struct fail_arg a = {worker, lease, message, problem_fault, worker_limit, problem_limit, out};
    return db_tx(st->db, fail_tx, &a, cause);
}

struct release_arg {
    int64_t worker;
    const char *lease;
    int64_t *submission;
};

static int release_tx(struct db_conn *c, void *arg, char **cause)
{
    struct release_arg *a = arg;
    bool je = false;
    int rc = lock_active_lease(c, a->worker, a->lease, a->submission, cause);
    if (rc == BW_OK)
        rc = end_lease(c, a->lease, *a->submission, "released", "given back by the worker", false,
                       &je, cause);
    return rc;
}

int queue_release(struct store *st, int64_t worker, const char *lease, int64_t *submission,
                  char **cause)
{
    struct release_arg a = {worker, lease, submission};
    return db_tx(st->db, release_tx, &a, cause);
}

int queue_drop_worker_on(struct db_conn *c, int64_t worker, const char *reason, int64_t **ids,
                         size_t *n, char **cause)
{
    struct expiry e = {
        .select = "SELECT id, submission_id FROM leases WHERE state = 'active' "
                  "AND worker_id = ? ORDER BY submission_id",
        .arg = worker,
        .state = "lost",
        .reason = reason,
        .count_attempt = false,
    };
    int rc = expire_tx(c, &e, cause);
    /* Not counted: none fails for good. */
    free(e.failed.v);
    if (rc < 0) {
        free(e.requeued.v);
        *ids = NULL;
        *n = 0;
        return rc;
    }
    *ids = e.requeued.v;
    *n = e.requeued.n;
    return BW_OK;
}

int queue_expire(struct store *st, int64_t now, int64_t **ids, size_t *n, int64_t **done,
                 size_t *n_done, char **cause)
{
    struct expiry e = {
        .select = "SELECT id, submission_id FROM leases WHERE state = 'active' "
                  "AND expires_at < ? ORDER BY submission_id",
        .arg = now,
        .now = now,
        .state = "expired",
        .reason = "the worker stopped answering (no heartbeat: its lease expired)",
        .count_attempt = true,
        .skip_locked = true,
    };
    int rc = db_tx(st->db, expire_tx, &e, cause);
    if (rc < 0) {
        free(e.requeued.v);
        free(e.failed.v);
        return rc;
    }
    *ids = e.requeued.v;
    *n = e.requeued.n;
    if (done) {
        *done = e.failed.v;
        *n_done = e.failed.n;
    } else {
        free(e.failed.v);
    }
    return BW_OK;
}
