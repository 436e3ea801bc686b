#include "queue.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "auth.h"
#include "bodies.h"
#include "db.h"
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

int queue_set_languages(struct db_conn *c, int64_t worker, const struct wp_language *langs,
                        size_t n, char **cause)
{
    int rc = db_run(c, cause, "DELETE FROM worker_languages WHERE worker_id = ?", "i", worker);
    for (size_t i = 0; rc == BW_OK && i < n; i++)
        rc = db_run(c, cause,
                    "INSERT INTO worker_languages(worker_id, language, version) VALUES (?,?,?)",
                    "itt", worker, language_name(langs[i].language), langs[i].version);
    return rc;
}

/* The round being served now, as SQL: the least round still queued, or when
 * none is, the greatest one taken so far. */
#define ROUND_NOW_SQL                                                                              \
    "COALESCE((SELECT MIN(round) FROM submissions WHERE state = 'queued'), "                       \
    "MAX((SELECT COALESCE(MAX(round), 0) FROM submissions WHERE state = 'judging'), "              \
    "(SELECT COALESCE(MAX(round), 0) FROM submissions WHERE state = 'done')))"

int queue_next_round(struct db_conn *c, int64_t user, int64_t *round, char **cause)
{
    return db_get_i64(c, round, cause,
                      "SELECT MAX(" ROUND_NOW_SQL ", COALESCE((SELECT MAX(round) + 1 FROM "
                      "submissions WHERE user_id = ? AND state IN ('queued', 'judging')), 0))",
                      "i", user);
}

int queue_claim(struct db_conn *c, int64_t worker, bool can_execute, int lease_s, struct job *out,
                char **cause)
{
    struct db_stmt *st = NULL;
    int64_t now = now_s();
    memset(out, 0, sizeof(*out));
    int rc = db_begin(c, cause);
    if (rc < 0)
        return rc;
    rc = db_prepare(c, &st, cause,
                    "SELECT s.id, s.problem_id, s.problem_hash, s.source, s.mode, s.seed, "
                    "s.attempts, s.language FROM submissions s "
                    "JOIN problems p ON p.id = s.problem_id "
                    "WHERE s.state = 'queued' AND p.disabled = 0 AND (? OR s.needs_gpu = 0) "
                    "AND s.language IN (SELECT language FROM worker_languages WHERE worker_id = ?) "
                    "ORDER BY s.round, s.id LIMIT 1",
                    "Ii", can_execute ? 1 : 0, worker);
    if (rc == BW_OK)
        rc = db_step(st, cause);
    if (rc == DB_ROW) {
        out->submission = db_col_i64(st, 0);
        snprintf(out->problem, sizeof(out->problem), "%s", db_col_text(st, 1));
        snprintf(out->hash, sizeof(out->hash), "%s", db_col_text(st, 2));
        out->source = db_col_strdup(st, 3);
        out->submit = strcmp(db_col_text(st, 4), "submit") == 0;
        out->seed = db_col_i64(st, 5);
        out->attempt = (int)db_col_i64(st, 6) + 1;
        if (!language_from_name(db_col_text(st, 7), &out->language))
            out->language = LANG_CUDA; /* the schema's CHECK allows no other */
        if (!out->source)
            rc = bw_fail(cause, BW_ERR_NOMEM, "out of memory");
    }
    db_finish(st);
    if (rc == DB_ROW) {
        auth_new_token("l_", out->lease);
        out->expires_at = now + lease_s;
        rc = db_run(c, cause,
                    "UPDATE submissions SET state = 'judging', attempts = attempts + 1 "
                    "WHERE id = ? AND state = 'queued'",
                    "i", out->submission);
        if (rc == BW_OK)
            rc = db_run(c, cause,
                        "INSERT INTO leases(id, submission_id, worker_id, attempt, created_at, "
                        "expires_at) VALUES (?,?,?,?,?,?)",
                        "tiiIii", out->lease, out->submission, worker, out->attempt, now,
                        out->expires_at);
        if (rc == BW_OK)
            rc = db_commit(c, cause);
        if (rc == BW_OK)
            return 1;
    }
    db_rollback(c);
    job_release(out);
    return rc == DB_DONE ? 0 : rc;
}

/* Reads an active lease of `worker`: its submission. BW_ERR_NOTFOUND if none. */
static int active_lease(struct db_conn *c, int64_t worker, const char *lease, int64_t *submission,
                        char **cause)
{
    int rc = db_get_i64(c, submission, cause,
                        "SELECT submission_id FROM leases WHERE id = ? AND worker_id = ? "
                        "AND state = 'active'",
                        "ti", lease, worker);
    if (rc == BW_ERR_NOTFOUND)
        return bw_fail(cause, BW_ERR_NOTFOUND, "lease %s is not active (expired or given up)",
                       lease);
    return rc;
}

int queue_heartbeat(struct db_conn *c, int64_t worker, const char *lease, int lease_s,
                    int64_t *submission, char **cause)
{
    int rc = active_lease(c, worker, lease, submission, cause);
    if (rc < 0)
        return rc;
    int64_t now = now_s();
    rc = db_run(c, cause, "UPDATE leases SET expires_at = ? WHERE id = ? AND state = 'active'",
                "it", now + lease_s, lease);
    if (rc == BW_OK)
        rc =
            db_run(c, cause, "UPDATE workers SET last_seen_at = ? WHERE id = ?", "ii", now, worker);
    return rc;
}

/* Ends a lease and requeues its submission, or gives it Judge Error when the
 * attempts are used up. Runs inside the caller's transaction. */
static int end_lease(struct db_conn *c, const char *lease, int64_t submission, const char *state,
                     const char *reason, bool count_attempt, bool *judge_error, char **cause)
{
    int64_t now = now_s();
    int64_t attempts = 0;
    *judge_error = false;
    int rc = db_run(c, cause, "UPDATE leases SET state = ?, ended_at = ?, reason = ? WHERE id = ?",
                    "titt", state, now, reason, lease);
    if (rc == BW_OK && !count_attempt)
        rc = db_run(c, cause, "UPDATE submissions SET attempts = MAX(attempts - 1, 0) WHERE id = ?",
                    "i", submission);
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

int queue_store_result(struct db_conn *c, int64_t worker, const char *lease,
                       const struct wp_result *r, const char *result_json, struct stored *out,
                       char **cause)
{
    struct db_stmt *st = NULL;
    int64_t now = now_s();
    memset(out, 0, sizeof(*out));
    int rc = db_begin(c, cause);
    if (rc < 0)
        return rc;
    char lease_state[16] = "";
    rc = db_prepare(c, &st, cause,
                    "SELECT l.state, s.id, s.user_id, s.problem_id, s.mode, s.queued_at, "
                    "s.created_at, s.language FROM leases l "
                    "JOIN submissions s ON s.id = l.submission_id "
                    "WHERE l.id = ? AND l.worker_id = ?",
                    "ti", lease, worker);
    if (rc == BW_OK)
        rc = db_step(st, cause);
    bool submit = false;
    char language[16] = "cuda";
    if (rc == DB_ROW) {
        snprintf(lease_state, sizeof(lease_state), "%s", db_col_text(st, 0));
        out->submission = db_col_i64(st, 1);
        out->user = db_col_i64(st, 2);
        snprintf(out->problem, sizeof(out->problem), "%s", db_col_text(st, 3));
        submit = strcmp(db_col_text(st, 4), "submit") == 0;
        out->queued_at = db_col_i64(st, 5);
        out->created_at = db_col_i64(st, 6);
        snprintf(language, sizeof(language), "%s", db_col_text(st, 7));
    }
    db_finish(st);
    if (rc == DB_DONE ||
        (rc == DB_ROW && strcmp(lease_state, "active") != 0 && strcmp(lease_state, "done") != 0)) {
        db_rollback(c);
        return bw_fail(cause, BW_ERR_NOTFOUND, "lease %s is not active (%s)", lease,
                       lease_state[0] ? lease_state : "unknown");
    }
    if (rc < 0)
        goto out_rollback;
    if (strcmp(lease_state, "done") == 0) {
        db_rollback(c);
        out->outcome = STORED_BEFORE;
        return BW_OK;
    }
    rc = db_run(c, cause, "UPDATE leases SET state = 'done', ended_at = ? WHERE id = ?", "it", now,
                lease);
    if (rc < 0)
        goto out_rollback;
    if (r->verdict == VERDICT_NONE && !r->executed) {
        out->outcome = WAITING_FOR_GPU;
        rc = db_run(c, cause,
                    "UPDATE submissions SET state = 'queued', needs_gpu = 1, attempts = 0, "
                    "queued_at = ?, message = ? WHERE id = ?",
                    "iti", now, "compiled; waiting for a GPU worker", out->submission);
        if (rc == BW_OK)
            rc = db_commit(c, cause);
        if (rc < 0)
            goto out_rollback;
        return BW_OK;
    }
    out->outcome = STORED;
    out->verdict = r->verdict;
    out->score = r->score;
    out->time_ms = geomean_time(r);
    rc = db_run(c, cause,
                "UPDATE submissions SET state = 'done', verdict = ?, message = ?, score = ?, "
                "time_ms = ?, judged_at = ?, worker_id = ?, gpu_name = ?, result = ? WHERE id = ?",
                "ttddiitti", verdict_code(r->verdict), r->message, r->score, out->time_ms, now,
                worker, r->gpu_name, result_json, out->submission);
    double speedup = geomean_pytorch_speedup(r);
    if (rc == BW_OK)
        rc = db_run(c, cause, "UPDATE submissions SET pytorch_speedup = NULLIF(?, -1) WHERE id = ?",
                    "di", speedup, out->submission);
    if (rc == BW_OK)
        rc = store_rows(c, out->submission, r, cause);
    if (rc == BW_OK)
        rc = db_run(c, cause, "UPDATE workers SET error_streak = 0, last_seen_at = ? WHERE id = ?",
                    "ii", now, worker);
    if (rc == BW_OK)
        rc = db_run(c, cause, "UPDATE problems SET error_streak = 0 WHERE id = ?", "t",
                    out->problem);
    if (rc == BW_OK && r->verdict == VERDICT_ACCEPTED)
        rc = db_run(c, cause,
                    "INSERT OR IGNORE INTO solved(user_id, problem_id, language, first_at) "
                    "VALUES (?,?,?,?)",
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
    if (rc == BW_OK)
        rc = db_commit(c, cause);
    if (rc < 0)
        goto out_rollback;
    return BW_OK;
out_rollback:
    db_rollback(c);
    return rc;
}

int queue_fail(struct db_conn *c, int64_t worker, const char *lease, const char *message,
               bool problem_fault, int worker_limit, int problem_limit, struct failure *out,
               char **cause)
{
    memset(out, 0, sizeof(*out));
    int rc = db_begin(c, cause);
    if (rc < 0)
        return rc;
    rc = active_lease(c, worker, lease, &out->submission, cause);
    struct db_stmt *st = NULL;
    if (rc == BW_OK)
        rc = db_prepare(c, &st, cause, "SELECT problem_id FROM submissions WHERE id = ?", "i",
                        out->submission);
    if (rc == BW_OK && (rc = db_step(st, cause)) == DB_ROW) {
        snprintf(out->problem, sizeof(out->problem), "%s", db_col_text(st, 0));
        rc = BW_OK;
    } else if (rc == DB_DONE) {
        rc = bw_fail(cause, BW_ERR_INTERNAL, "lease %s has no submission", lease);
    }
    db_finish(st);
    char reason[BW_MAX_MESSAGE_FIELD + 64];
    snprintf(reason, sizeof(reason), "internal error on worker %lld: %s", (long long)worker,
             message);
    if (rc == BW_OK)
        rc = end_lease(c, lease, out->submission, "failed", reason, true, &out->judge_error, cause);
    int64_t wstreak = 0, pstreak = 0;
    if (rc == BW_OK && !problem_fault)
        rc = db_run(c, cause, "UPDATE workers SET error_streak = error_streak + 1 WHERE id = ?",
                    "i", worker);
    if (rc == BW_OK)
        rc = db_run(c, cause, "UPDATE problems SET error_streak = error_streak + ? WHERE id = ?",
                    "It", problem_fault ? problem_limit : 1, out->problem);
    if (rc == BW_OK)
        rc = db_get_i64(c, &wstreak, cause, "SELECT error_streak FROM workers WHERE id = ?", "i",
                        worker);
    if (rc == BW_OK)
        rc = db_get_i64(c, &pstreak, cause, "SELECT error_streak FROM problems WHERE id = ?", "t",
                        out->problem);
    if (rc == BW_OK && wstreak >= worker_limit) {
        out->worker_disabled = true;
        rc = db_run(c, cause,
                    "UPDATE workers SET disabled = 1, disabled_reason = ? WHERE id = ? "
                    "AND disabled = 0",
                    "ti", reason, worker);
    }
    if (rc == BW_OK && pstreak >= problem_limit) {
        out->problem_disabled = true;
        rc = db_run(c, cause,
                    "UPDATE problems SET disabled = 1, disabled_reason = ? WHERE id = ? "
                    "AND disabled = 0",
                    "tt", reason, out->problem);
    }
    if (rc == BW_OK)
        rc = db_commit(c, cause);
    if (rc < 0)
        db_rollback(c);
    return rc;
}

int queue_release(struct db_conn *c, int64_t worker, const char *lease, int64_t *submission,
                  char **cause)
{
    bool je = false;
    int rc = db_begin(c, cause);
    if (rc < 0)
        return rc;
    rc = active_lease(c, worker, lease, submission, cause);
    if (rc == BW_OK)
        rc = end_lease(c, lease, *submission, "released", "given back by the worker", false, &je,
                       cause);
    if (rc == BW_OK)
        rc = db_commit(c, cause);
    if (rc < 0)
        db_rollback(c);
    return rc;
}

/* Ends the leases selected by `sql` (binding one int64) as expired. */
static int expire_where(struct db_conn *c, const char *sql, int64_t arg, const char *reason,
                        int64_t **ids, size_t *n, int64_t **done, size_t *n_done, char **cause)
{
    struct db_stmt *st = NULL;
    char(*leases)[48] = NULL;
    int64_t *subs = NULL;
    size_t count = 0, cap = 0;
    *ids = NULL;
    *n = 0;
    if (done) {
        *done = NULL;
        *n_done = 0;
    }
    int rc = db_begin(c, cause);
    if (rc < 0)
        return rc;
    rc = db_prepare(c, &st, cause, sql, "i", arg);
    while (rc >= 0 && (rc = db_step(st, cause)) == DB_ROW) {
        if (count == cap) {
            cap = cap ? cap * 2 : 16;
            void *a = realloc(leases, cap * sizeof(*leases));
            if (a)
                leases = a;
            void *b = realloc(subs, cap * sizeof(*subs));
            if (b)
                subs = b;
            if (!a || !b) {
                rc = bw_fail(cause, BW_ERR_NOMEM, "out of memory");
                break;
            }
        }
        snprintf(leases[count], sizeof(leases[count]), "%s", db_col_text(st, 0));
        subs[count] = db_col_i64(st, 1);
        count++;
    }
    db_finish(st);
    int64_t *requeued = malloc((count ? count : 1) * sizeof(*requeued));
    int64_t *failed = malloc((count ? count : 1) * sizeof(*failed));
    size_t nr = 0, nf = 0;
    if (rc >= 0 && (!requeued || !failed))
        rc = bw_fail(cause, BW_ERR_NOMEM, "out of memory");
    for (size_t i = 0; rc >= 0 && i < count; i++) {
        bool je = false;
        rc = end_lease(c, leases[i], subs[i], "expired", reason, true, &je, cause);
        if (je)
            failed[nf++] = subs[i];
        else
            requeued[nr++] = subs[i];
    }
    if (rc >= 0)
        rc = db_commit(c, cause);
    free(leases);
    free(subs);
    if (rc < 0) {
        db_rollback(c);
        free(requeued);
        free(failed);
        return rc;
    }
    *ids = requeued;
    *n = nr;
    if (done) {
        *done = failed;
        *n_done = nf;
    } else {
        free(failed);
    }
    return BW_OK;
}

int queue_reclaim_worker(struct db_conn *c, int64_t worker, int64_t **ids, size_t *n, char **cause)
{
    return expire_where(c,
                        "SELECT id, submission_id FROM leases WHERE state = 'active' "
                        "AND worker_id = ?",
                        worker, "the worker restarted while judging it", ids, n, NULL, NULL, cause);
}

int queue_drop_worker(struct db_conn *c, int64_t worker, const char *reason, int64_t **ids,
                      size_t *n, char **cause)
{
    struct db_stmt *st = NULL;
    char(*leases)[48] = NULL;
    int64_t *subs = NULL;
    size_t count = 0, cap = 0;
    *ids = NULL;
    *n = 0;
    int rc = db_prepare(c, &st, cause,
                        "SELECT id, submission_id FROM leases WHERE state = 'active' "
                        "AND worker_id = ?",
                        "i", worker);
    while (rc >= 0 && (rc = db_step(st, cause)) == DB_ROW) {
        if (count == cap) {
            cap = cap ? cap * 2 : 8;
            void *a = realloc(leases, cap * sizeof(*leases));
            if (a)
                leases = a;
            void *b = realloc(subs, cap * sizeof(*subs));
            if (b)
                subs = b;
            if (!a || !b) {
                rc = bw_fail(cause, BW_ERR_NOMEM, "out of memory");
                break;
            }
        }
        snprintf(leases[count], sizeof(leases[count]), "%s", db_col_text(st, 0));
        subs[count] = db_col_i64(st, 1);
        count++;
    }
    db_finish(st);
    for (size_t i = 0; rc >= 0 && i < count; i++) {
        bool je = false;
        rc = end_lease(c, leases[i], subs[i], "lost", reason, false, &je, cause);
    }
    free(leases);
    if (rc < 0) {
        free(subs);
        return rc;
    }
    *ids = subs;
    *n = count;
    return BW_OK;
}

int queue_expire(struct db_conn *c, int64_t now, int64_t **ids, size_t *n, int64_t **done,
                 size_t *n_done, char **cause)
{
    return expire_where(c,
                        "SELECT id, submission_id FROM leases WHERE state = 'active' "
                        "AND expires_at < ?",
                        now, "the worker stopped answering (no heartbeat: its lease expired)", ids,
                        n, done, n_done, cause);
}

int queue_ids(struct db_conn *c, int64_t **ids, size_t *n, char **cause)
{
    struct db_stmt *st = NULL;
    size_t count = 0, cap = 64;
    int64_t *v = malloc(cap * sizeof(*v));
    if (!v)
        return bw_fail(cause, BW_ERR_NOMEM, "out of memory");
    int rc = db_prepare(c, &st, cause,
                        "SELECT id FROM submissions WHERE state = 'queued' ORDER BY round, id", "");
    while (rc >= 0 && (rc = db_step(st, cause)) == DB_ROW) {
        if (count == cap) {
            int64_t *grown = realloc(v, cap * 2 * sizeof(*v));
            if (!grown) {
                rc = bw_fail(cause, BW_ERR_NOMEM, "out of memory");
                break;
            }
            v = grown;
            cap *= 2;
        }
        v[count++] = db_col_i64(st, 0);
    }
    db_finish(st);
    if (rc < 0) {
        free(v);
        return rc;
    }
    *ids = v;
    *n = count;
    return BW_OK;
}

int queue_position(struct db_conn *c, int64_t id, int64_t *pos, char **cause)
{
    int rc = db_get_i64(c, pos, cause,
                        "SELECT " QUEUE_POSITION_SQL " FROM submissions s WHERE s.id = ?", "i", id);
    if (rc == BW_ERR_NOTFOUND) {
        *pos = 0;
        return BW_OK;
    }
    return rc;
}

int queue_status(struct db_conn *c, int64_t now, int lease_s, struct queue_status *out,
                 char **cause)
{
    struct db_stmt *st = NULL;
    int64_t since = now - lease_s;
    memset(out, 0, sizeof(*out));
    int rc = db_prepare(c, &st, cause,
                        "SELECT (SELECT COUNT(*) FROM submissions WHERE state = 'queued'), "
                        "(SELECT COUNT(*) FROM submissions WHERE state = 'queued' AND needs_gpu), "
                        "(SELECT COUNT(*) FROM leases WHERE state = 'active'), "
                        "(SELECT COUNT(*) FROM workers WHERE disabled = 0 AND last_seen_at >= ?), "
                        "(SELECT COUNT(*) FROM workers WHERE disabled = 0 AND last_seen_at >= ? "
                        " AND can_execute)",
                        "ii", since, since);
    if (rc == BW_OK && (rc = db_step(st, cause)) == DB_ROW) {
        out->queued = db_col_i64(st, 0);
        out->waiting_gpu = db_col_i64(st, 1);
        out->judging = db_col_i64(st, 2);
        out->workers = db_col_i64(st, 3);
        out->gpu_workers = db_col_i64(st, 4);
        rc = BW_OK;
    }
    db_finish(st);
    if (rc < 0)
        return rc;
    rc =
        db_prepare(c, &st, cause,
                   "SELECT DISTINCT gpu_name FROM workers WHERE disabled = 0 AND last_seen_at >= ? "
                   "AND can_execute AND gpu_name IS NOT NULL AND gpu_name != '' "
                   "ORDER BY gpu_name LIMIT ?",
                   "ii", since, (int64_t)BW_MAX_STATUS_GPUS);
    while (rc >= 0 && (rc = db_step(st, cause)) == DB_ROW)
        snprintf(out->gpus[out->n_gpus++], sizeof(out->gpus[0]), "%s", db_col_text(st, 0));
    db_finish(st);
    for (int l = 0; rc >= 0 && l < LANG_COUNT; l++) {
        const char *name = language_name((enum language)l);
        rc = db_prepare(
            c, &st, cause,
            "SELECT (SELECT COUNT(*) FROM submissions WHERE state = 'queued' AND language = ?), "
            "(SELECT COUNT(*) FROM workers w JOIN worker_languages wl ON wl.worker_id = w.id "
            " WHERE wl.language = ? AND w.disabled = 0 AND w.last_seen_at >= ?), "
            "(SELECT COUNT(*) FROM workers w JOIN worker_languages wl ON wl.worker_id = w.id "
            " WHERE wl.language = ? AND w.disabled = 0 AND w.last_seen_at >= ? AND w.can_execute)",
            "ttiti", name, name, since, name, since);
        if (rc == BW_OK && (rc = db_step(st, cause)) == DB_ROW) {
            out->languages[l].queued = db_col_i64(st, 0);
            out->languages[l].workers = db_col_i64(st, 1);
            out->languages[l].gpu_workers = db_col_i64(st, 2);
            rc = BW_OK;
        }
        db_finish(st);
        if (rc < 0)
            break;
        rc = db_prepare(c, &st, cause,
                        "SELECT DISTINCT wl.version FROM workers w "
                        "JOIN worker_languages wl ON wl.worker_id = w.id "
                        "WHERE wl.language = ? AND w.disabled = 0 AND w.last_seen_at >= ? "
                        "AND wl.version != '' ORDER BY wl.version LIMIT ?",
                        "tii", name, since, (int64_t)BW_MAX_STATUS_VERSIONS);
        while (rc >= 0 && (rc = db_step(st, cause)) == DB_ROW)
            snprintf(out->languages[l].versions[out->languages[l].n_versions++],
                     sizeof(out->languages[l].versions[0]), "%s", db_col_text(st, 0));
        db_finish(st);
    }
    return rc < 0 ? rc : BW_OK;
}

int queue_in_flight(struct db_conn *c, int64_t user, int64_t now, int lease_s,
                    struct in_flight *out, char **cause)
{
    struct db_stmt *st = NULL;
    bool compiles[LANG_COUNT] = {false}, runs[LANG_COUNT] = {false}, any_gpu = false;
    int64_t parked_gpu = 0;
    memset(out, 0, sizeof(*out));
    /* Which languages a connected worker takes: compiles (any), runs (a GPU worker). */
    int rc = db_prepare(c, &st, cause,
                        "SELECT wl.language, MAX(w.can_execute) FROM workers w "
                        "JOIN worker_languages wl ON wl.worker_id = w.id "
                        "WHERE w.disabled = 0 AND w.last_seen_at >= ? GROUP BY wl.language",
                        "i", now - lease_s);
    while (rc >= 0 && (rc = db_step(st, cause)) == DB_ROW) {
        enum language l;
        if (!language_from_name(db_col_text(st, 0), &l))
            continue;
        compiles[l] = true;
        runs[l] = db_col_i64(st, 1) != 0;
        any_gpu = any_gpu || runs[l];
    }
    db_finish(st);
    if (rc < 0)
        return rc;
    rc = db_prepare(c, &st, cause,
                    "SELECT state, needs_gpu, language FROM submissions "
                    "WHERE user_id = ? AND state != 'done'",
                    "i", user);
    while (rc >= 0 && (rc = db_step(st, cause)) == DB_ROW) {
        enum language l = LANG_CUDA;
        language_from_name(db_col_text(st, 2), &l);
        if (strcmp(db_col_text(st, 0), "queued") != 0) {
            out->counted++; /* judging */
        } else if (l != LANG_CUDA && !compiles[l]) {
            out->waiting_language++;
        } else if (db_col_i64(st, 1) != 0) {
            out->waiting_gpu++;
            if (runs[l])
                out->counted++;
            else
                parked_gpu++;
        } else {
            out->counted++;
        }
    }
    db_finish(st);
    out->gpu_connected = any_gpu && parked_gpu == 0;
    return rc < 0 ? rc : BW_OK;
}

int queue_cancel(struct db_conn *c, int64_t id, int64_t by, const char *by_name, struct cancel *out,
                 char **cause)
{
    struct db_stmt *st = NULL;
    char state[16] = "", verdict[8] = "", cancelled_by[64] = "";
    bool needs_gpu = false, cancelled = false;
    memset(out, 0, sizeof(*out));
    out->submission = id;
    out->at = now_s();
    int rc = db_begin(c, cause);
    if (rc < 0)
        return rc;
    rc = db_prepare(c, &st, cause,
                    "SELECT s.state, s.needs_gpu, s.verdict, s.cancelled_at IS NOT NULL, u.name "
                    "FROM submissions s LEFT JOIN users u ON u.id = s.cancelled_by "
                    "WHERE s.id = ?",
                    "i", id);
    if (rc == BW_OK)
        rc = db_step(st, cause);
    if (rc == DB_ROW) {
        snprintf(state, sizeof(state), "%s", db_col_text(st, 0));
        needs_gpu = db_col_i64(st, 1) != 0;
        snprintf(verdict, sizeof(verdict), "%s", db_col_text(st, 2));
        cancelled = db_col_i64(st, 3) != 0;
        snprintf(cancelled_by, sizeof(cancelled_by), "%s", db_col_text(st, 4));
        rc = BW_OK;
    } else if (rc == DB_DONE) {
        rc = bw_fail(cause, BW_ERR_NOTFOUND, "no submission %lld", (long long)id);
    }
    db_finish(st);
    if (rc == BW_OK && cancelled)
        rc = bw_fail(cause, BW_ERR_INVALID, "submission %lld was cancelled already, by %s",
                     (long long)id, cancelled_by[0] ? cancelled_by : "a deleted user");
    else if (rc == BW_OK && strcmp(state, "done") == 0)
        rc = bw_fail(cause, BW_ERR_INVALID,
                     "submission %lld is judged already (%s): nothing to cancel", (long long)id,
                     verdict[0] ? verdict_name(verdict_parse(verdict)) : "no verdict");
    if (rc < 0)
        goto out_rollback;
    snprintf(out->from, sizeof(out->from), "%s",
             strcmp(state, "judging") == 0 ? "judging"
             : needs_gpu                   ? "waiting_for_gpu"
                                           : "queued");
    char reason[96];
    snprintf(reason, sizeof(reason), "cancelled by %s", by_name);
    rc = db_prepare(c, &st, cause,
                    "SELECT id, worker_id FROM leases WHERE submission_id = ? AND state = 'active'",
                    "i", id);
    if (rc == BW_OK && (rc = db_step(st, cause)) == DB_ROW) {
        snprintf(out->lease, sizeof(out->lease), "%s", db_col_text(st, 0));
        out->worker = db_col_i64(st, 1);
    }
    db_finish(st);
    if (rc < 0)
        goto out_rollback;
    rc = db_run(c, cause,
                "UPDATE leases SET state = 'lost', ended_at = ?, reason = ? "
                "WHERE submission_id = ? AND state = 'active'",
                "iti", out->at, reason, id);
    if (rc == BW_OK)
        rc = db_run(c, cause,
                    "UPDATE submissions SET state = 'done', verdict = NULL, message = ?, "
                    "cancelled_at = ?, cancelled_by = ?, cancelled_from = ? WHERE id = ?",
                    "tiiti", reason, out->at, by, out->from, id);
    if (rc == BW_OK)
        rc = db_commit(c, cause);
    if (rc < 0)
        goto out_rollback;
    return BW_OK;
out_rollback:
    db_rollback(c);
    return rc;
}

bool queue_lease_cancelled(struct db_conn *c, int64_t worker, const char *lease,
                           int64_t *submission, char *why, size_t why_size)
{
    struct db_stmt *st = NULL;
    bool cancelled = false;
    int rc = db_prepare(c, &st, NULL,
                        "SELECT l.submission_id, l.reason FROM leases l "
                        "JOIN submissions s ON s.id = l.submission_id "
                        "WHERE l.id = ? AND l.worker_id = ? AND l.state = 'lost' "
                        "AND s.cancelled_at IS NOT NULL AND l.reason LIKE 'cancelled by %'",
                        "ti", lease, worker);
    if (rc == BW_OK && db_step(st, NULL) == DB_ROW) {
        *submission = db_col_i64(st, 0);
        snprintf(why, why_size, "%s", db_col_text(st, 1));
        cancelled = true;
    }
    db_finish(st);
    return cancelled;
}

static int requeue_one(struct db_conn *c, int64_t id, int64_t now, char **cause)
{
    int rc = db_run(c, cause,
                    "UPDATE leases SET state = 'lost', ended_at = ?, reason = 'rejudged' "
                    "WHERE submission_id = ? AND state = 'active'",
                    "ii", now, id);
    if (rc == BW_OK)
        rc = db_run(c, cause, "DELETE FROM best WHERE submission_id = ?", "i", id);
    if (rc == BW_OK)
        rc = db_run(c, cause,
                    "UPDATE submissions SET state = 'queued', needs_gpu = 0, attempts = 0, "
                    "queued_at = ?, verdict = NULL, message = NULL, score = NULL, "
                    "time_ms = NULL, judged_at = NULL, result = NULL, round = " ROUND_NOW_SQL
                    " WHERE id = ?",
                    "ii", now, id);
    return rc;
}

int queue_rejudge_submission(struct db_conn *c, int64_t id, char **cause)
{
    int64_t exists = 0;
    int rc = db_begin(c, cause);
    if (rc < 0)
        return rc;
    int64_t cancelled = 0;
    rc = db_get_i64(c, &exists, cause, "SELECT COUNT(*) FROM submissions WHERE id = ?", "i", id);
    if (rc == BW_OK && !exists)
        rc = bw_fail(cause, BW_ERR_NOTFOUND, "no submission %lld", (long long)id);
    if (rc == BW_OK)
        rc = db_get_i64(c, &cancelled, cause,
                        "SELECT cancelled_at IS NOT NULL FROM submissions WHERE id = ?", "i", id);
    if (rc == BW_OK && cancelled)
        rc = bw_fail(cause, BW_ERR_INVALID,
                     "submission %lld was cancelled: it stays cancelled (submit the code again)",
                     (long long)id);
    if (rc == BW_OK)
        rc = requeue_one(c, id, now_s(), cause);
    if (rc == BW_OK)
        rc = db_commit(c, cause);
    if (rc < 0)
        db_rollback(c);
    return rc;
}

int queue_rejudge_problem(struct db_conn *c, const char *problem, int64_t *n, char **cause)
{
    int64_t now = now_s();
    int rc = db_begin(c, cause);
    if (rc < 0)
        return rc;
    rc = db_run(c, cause,
                "UPDATE leases SET state = 'lost', ended_at = ?, reason = 'rejudged' "
                "WHERE state = 'active' AND submission_id IN "
                "(SELECT id FROM submissions WHERE problem_id = ?)",
                "it", now, problem);
    if (rc == BW_OK)
        rc = db_run(c, cause, "DELETE FROM best WHERE problem_id = ?", "t", problem);
    if (rc == BW_OK)
        rc = db_run(c, cause,
                    "UPDATE submissions SET state = 'queued', needs_gpu = 0, attempts = 0, "
                    "queued_at = ?, verdict = NULL, message = NULL, score = NULL, "
                    "time_ms = NULL, judged_at = NULL, result = NULL, round = " ROUND_NOW_SQL
                    " WHERE problem_id = ? AND state != 'queued' AND cancelled_at IS NULL",
                    "it", now, problem);
    *n = db_changes(c);
    if (rc == BW_OK)
        rc = db_commit(c, cause);
    if (rc < 0)
        db_rollback(c);
    return rc;
}
