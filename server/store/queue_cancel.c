/*
 * queue_cancel.c - taking submissions out of the queue and putting them back
 * (queue.h): a learner's or admin's cancel, and an admin's rejudge of one
 * submission or of a whole problem.
 */
#include "server/store/queue.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "server/store/db.h"
#include "server/store/store_impl.h"
#include "common/error.h"
#include "common/limits.h"
#include "common/banned.h"

struct cancel_arg {
    int64_t id, by;
    const char *by_name;
    struct cancel *out;
};

static int cancel_tx(struct db_conn *c, void *arg, char **cause)
{
    struct cancel_arg *a = arg;
    struct cancel *out = a->out;
    struct db_stmt *st = NULL;
    char state[16] = "", verdict[8] = "", cancelled_by[64] = "";
    bool needs_gpu = false, cancelled = false;
    int64_t id = a->id;
    memset(out, 0, sizeof(*out));
    out->submission = id;
    out->at = (int64_t)time(NULL);
    int rc = db_prepare(c, &st, cause,
                        "SELECT s.state, s.needs_gpu, s.verdict, "
                        "CASE WHEN s.cancelled_at IS NULL THEN 0 ELSE 1 END, u.name "
                        "FROM submissions s LEFT JOIN users u ON u.id = s.cancelled_by "
                        "WHERE s.id = ? FOR UPDATE OF s",
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
        return rc;
    snprintf(out->from, sizeof(out->from), "%s",
             strcmp(state, "judging") == 0 ? "judging"
             : needs_gpu                   ? "waiting_for_gpu"
                                           : "queued");
    char reason[96];
    snprintf(reason, sizeof(reason), "cancelled by %s", a->by_name);
    rc = db_prepare(c, &st, cause,
                    "SELECT id, worker_id FROM leases WHERE submission_id = ? AND state = 'active'",
                    "i", id);
    if (rc == BW_OK && (rc = db_step(st, cause)) == DB_ROW) {
        snprintf(out->lease, sizeof(out->lease), "%s", db_col_text(st, 0));
        out->worker = db_col_i64(st, 1);
    }
    db_finish(st);
    if (rc < 0)
        return rc;
    rc = db_run(c, cause,
                "UPDATE leases SET state = 'lost', ended_at = ?, reason = ? "
                "WHERE submission_id = ? AND state = 'active'",
                "iti", out->at, reason, id);
    if (rc == BW_OK)
        rc = db_run(c, cause,
                    "UPDATE submissions SET state = 'done', verdict = NULL, message = ?, "
                    "cancelled_at = ?, cancelled_by = ?, cancelled_from = ? WHERE id = ?",
                    "tiiti", reason, out->at, a->by, out->from, id);
    return rc;
}

int queue_cancel(struct store *st, int64_t id, int64_t by, const char *by_name, struct cancel *out,
                 char **cause)
{
    struct cancel_arg a = {id, by, by_name, out};
    return db_tx(st->db, cancel_tx, &a, cause);
}

bool queue_lease_cancelled(struct store *st, int64_t worker, const char *lease, int64_t *submission,
                           char *why, size_t why_size)
{
    struct db_stmt *s = NULL;
    bool cancelled = false;
    struct db_conn *c = db_acquire(st->db);
    int rc = db_prepare(c, &s, NULL,
                        "SELECT l.submission_id, l.reason FROM leases l "
                        "JOIN submissions s ON s.id = l.submission_id "
                        "WHERE l.id = ? AND l.worker_id = ? AND l.state = 'lost' "
                        "AND s.cancelled_at IS NOT NULL AND l.reason LIKE 'cancelled by %'",
                        "ti", lease, worker);
    if (rc == BW_OK && db_step(s, NULL) == DB_ROW) {
        *submission = db_col_i64(s, 0);
        snprintf(why, why_size, "%s", db_col_text(s, 1));
        cancelled = true;
    }
    db_finish(s);
    db_release(st->db, c);
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

static int rejudge_one_tx(struct db_conn *c, void *arg, char **cause)
{
    int64_t id = *(int64_t *)arg, cancelled = 0;
    bool got = false;
    int rc = queue_lock_submission(c, id, false, &got, cause);
    if (rc == BW_OK && !got)
        rc = bw_fail(cause, BW_ERR_NOTFOUND, "no submission %lld", (long long)id);
    if (rc == BW_OK)
        rc = db_get_i64(c, &cancelled, cause,
                        "SELECT CASE WHEN cancelled_at IS NULL THEN 0 ELSE 1 END "
                        "FROM submissions WHERE id = ?",
                        "i", id);
    if (rc == BW_OK && cancelled)
        rc = bw_fail(cause, BW_ERR_INVALID,
                     "submission %lld was cancelled: it stays cancelled (submit the code again)",
                     (long long)id);
    if (rc == BW_OK)
        rc = requeue_one(c, id, (int64_t)time(NULL), cause);
    return rc;
}

int queue_rejudge_submission(struct store *st, int64_t id, char **cause)
{
    return db_tx(st->db, rejudge_one_tx, &id, cause);
}

struct rejudge_arg {
    const char *problem;
    int64_t n;
};

static int rejudge_problem_tx(struct db_conn *c, void *arg, char **cause)
{
    struct rejudge_arg *a = arg;
    int64_t now = (int64_t)time(NULL);
    /* Every row it changes, locked in id order first (queue.h). */
    int rc =
        db_run(c, cause, "SELECT id FROM submissions WHERE problem_id = ? ORDER BY id FOR UPDATE",
               "t", a->problem);
    if (rc == BW_OK)
        rc = db_run(c, cause,
                    "UPDATE leases SET state = 'lost', ended_at = ?, reason = 'rejudged' "
                    "WHERE state = 'active' AND submission_id IN "
                    "(SELECT id FROM submissions WHERE problem_id = ?)",
                    "it", now, a->problem);
    if (rc == BW_OK)
        rc = db_run(c, cause, "DELETE FROM best WHERE problem_id = ?", "t", a->problem);
    if (rc == BW_OK)
        rc = db_run(c, cause,
                    "UPDATE submissions SET state = 'queued', needs_gpu = 0, attempts = 0, "
                    "queued_at = ?, verdict = NULL, message = NULL, score = NULL, "
                    "time_ms = NULL, judged_at = NULL, result = NULL, round = " ROUND_NOW_SQL
                    " WHERE problem_id = ? AND state != 'queued' AND cancelled_at IS NULL",
                    "it", now, a->problem);
    a->n = db_changes(c);
    return rc;
}

int queue_rejudge_problem(struct store *st, const char *problem, int64_t *n, char **cause)
{
    struct rejudge_arg a = {problem, 0};
    int rc = db_tx(st->db, rejudge_problem_tx, &a, cause);
    *n = a.n;
    return rc;
}
