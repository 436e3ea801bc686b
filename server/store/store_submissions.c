/*
 * store_submissions.c - learners' submissions in the store: created under
 * the quotas, read, listed.
 */
#include "server/store/store.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "server/store/db.h"
#include "server/store/queue.h"
#include "server/store/store_impl.h"
#include "common/error.h"
#include "common/banned.h"

/* `mode` as the API names it: a Profile is counted apart from the Runs it is stored among
 * (mode 'run' with profile = 1: schema.sql, migration 9). */
static int window_use(struct db_conn *c, int64_t user, const char *mode, int64_t since,
                      int64_t *used, int64_t *oldest, char **cause)
{
    struct db_stmt *st = NULL;
    bool profile = strcmp(mode, "profile") == 0;
    int rc = db_prepare(c, &st, cause,
                        "SELECT COUNT(*), COALESCE(MIN(created_at), 0) FROM submissions "
                        "WHERE user_id = ? AND mode = ? AND profile = ? AND created_at > ?",
                        "itii", user, profile ? "run" : mode, (int64_t)profile, since);
    if (rc == BW_OK && (rc = db_step(st, cause)) == DB_ROW) {
        *used = db_col_i64(st, 0);
        *oldest = db_col_i64(st, 1);
        rc = BW_OK;
    }
    db_finish(st);
    return rc < 0 ? rc : BW_OK;
}

int store_quota_use(struct store *st, int64_t user, int64_t since, struct store_quota *out,
                    char **cause)
{
    memset(out, 0, sizeof(*out));
    struct db_conn *c = db_acquire(st->db);
    int rc = window_use(c, user, "run", since, &out->run_used, &out->run_oldest, cause);
    if (rc == BW_OK)
        rc = window_use(c, user, "submit", since, &out->submit_used, &out->submit_oldest, cause);
    if (rc == BW_OK)
        rc = window_use(c, user, "profile", since, &out->profile_used, &out->profile_oldest, cause);
    db_release(st->db, c);
    return rc;
}

struct create_arg {
    const struct store_new_submission *in;
    struct store_created *out;
};

static int create_tx(struct db_conn *c, void *arg, char **cause)
{
    struct create_arg *a = arg;
    const struct store_new_submission *in = a->in;
    struct store_created *out = a->out;
    int64_t disabled = 0, used = 0, oldest = 0, round = 0, locked = 0;
    struct in_flight fl;
    memset(out, 0, sizeof(*out));
    /* The user's row is the lock that makes the counts below exact: two
     * posts of one learner, on any servers, are counted one after the other. */
    int rc = db_get_i64(c, &locked, cause, "SELECT id FROM users WHERE id = ? FOR UPDATE", "i",
                        in->user);
    if (rc == BW_OK)
        rc = db_get_i64(c, &disabled, cause, "SELECT disabled FROM problems WHERE id = ?", "t",
                        in->problem);
    if (rc == BW_OK)
        rc = queue_in_flight_on(c, in->user, in->now, in->lease_s, &fl, cause);
    if (rc == BW_OK)
        rc = window_use(c, in->user, in->mode, in->window_since, &used, &oldest, cause);
    if (rc < 0)
        return rc;
    if (disabled) {
        out->outcome = CREATE_PROBLEM_DISABLED;
        return BW_OK;
    }
    if (fl.counted >= in->in_flight_limit) {
        out->outcome = CREATE_IN_FLIGHT_FULL;
        return BW_OK;
    }
    if (used >= in->limit) {
        out->outcome = CREATE_QUOTA_USED;
        out->oldest = oldest;
        return BW_OK;
    }
    bool profile = strcmp(in->mode, "profile") == 0;
    rc = queue_next_round(c, in->user, &round, cause);
    if (rc == BW_OK)
        rc = db_get_i64(c, &out->id, cause,
                        "INSERT INTO submissions(user_id, problem_id, problem_hash, mode, "
                        "profile, language, source, seed, created_at, queued_at, round) "
                        "VALUES (?,?,?,?,?,?,?,?,?,?,?) RETURNING id",
                        "itttitt"
                        "iiii",
                        in->user, in->problem, in->hash, profile ? "run" : in->mode,
                        (int64_t)profile, in->language, in->source, in->seed, in->now, in->now,
                        round);
    return rc;
}

int store_submission_create(struct store *st, const struct store_new_submission *in,
                            struct store_created *out, char **cause)
{
    struct create_arg a = {in, out};
    int rc = db_tx(st->db, create_tx, &a, cause);
    if (rc < 0)
        out->id = 0;
    return rc;
}

/* The columns read_row() reads, in this order, and the joins they need; the
 * single-submission query adds SUMMARY_EXTRA after them. */
#define SUMMARY_COLS                                                                               \
    "s.id, u.name, s.problem_id, " STORE_MODE_SQL                                                  \
    ", s.state, s.verdict, s.message, s.score, s.time_ms, "                                        \
    "s.created_at, s.judged_at, s.gpu_name, s.attempts, s.needs_gpu, s.cancelled_at, cu.name, "    \
    "s.cancelled_from, " QUEUE_POSITION_SQL ", s.language, s.pytorch_speedup "
#define SUMMARY_FROM                                                                               \
    "FROM submissions s JOIN users u ON u.id = s.user_id "                                         \
    "LEFT JOIN users cu ON cu.id = s.cancelled_by "
#define SUMMARY_EXTRA ", s.source, s.result, s.user_id "

static const char *text_or_null(struct db_stmt *s, int col)
{
    return db_col_null(s, col) ? NULL : db_col_text(s, col);
}

static void read_row(struct db_stmt *s, struct store_submission *r, bool extra)
{
    memset(r, 0, sizeof(*r));
    r->id = db_col_i64(s, 0);
    r->user = db_col_text(s, 1);
    r->problem = db_col_text(s, 2);
    r->mode = db_col_text(s, 3);
    r->state = db_col_text(s, 4);
    r->verdict = text_or_null(s, 5);
    r->message = text_or_null(s, 6);
    r->has_score = !db_col_null(s, 7);
    r->score = db_col_double(s, 7);
    r->has_time = !db_col_null(s, 8);
    r->time_ms = db_col_double(s, 8);
    r->created_at = db_col_i64(s, 9);
    r->has_judged = !db_col_null(s, 10);
    r->judged_at = db_col_i64(s, 10);
    r->gpu = text_or_null(s, 11);
    r->attempts = db_col_i64(s, 12);
    r->needs_gpu = db_col_i64(s, 13) != 0;
    r->cancelled_at = db_col_null(s, 14) ? 0 : db_col_i64(s, 14);
    r->cancelled_by = text_or_null(s, 15);
    r->cancelled_from = text_or_null(s, 16);
    r->position = db_col_i64(s, 17);
    r->language = db_col_text(s, 18);
    r->has_pytorch = !db_col_null(s, 19);
    r->pytorch_speedup = db_col_double(s, 19);
    if (extra) {
        r->source = db_col_text(s, 20);
        r->result = text_or_null(s, 21);
        r->owner = db_col_i64(s, 22);
    }
}

int store_submission_get(struct store *st, int64_t id, int64_t viewer, bool all,
                         void (*fn)(void *arg, const struct store_submission *s), void *arg,
                         char **cause)
{
    struct db_conn *c = db_acquire(st->db);
    struct db_stmt *s = NULL;
    int rc = db_prepare(c, &s, cause,
                        "SELECT " SUMMARY_COLS SUMMARY_EXTRA SUMMARY_FROM
                        "WHERE s.id = ? AND (s.user_id = ? OR ? <> 0)",
                        "iiI", id, viewer, all ? 1 : 0);
    if (rc == BW_OK && (rc = db_step(s, cause)) == DB_ROW) {
        struct store_submission r;
        read_row(s, &r, true);
        fn(arg, &r);
        rc = BW_OK;
    } else if (rc == DB_DONE) {
        rc = bw_fail(cause, BW_ERR_NOTFOUND, "no such submission");
    }
    db_finish(s);
    db_release(st->db, c);
    return rc;
}

int store_submissions_list(struct store *st, const struct store_submission_filter *f,
                           void (*fn)(void *arg, const struct store_submission *s), void *arg,
                           char **cause)
{
    struct db_conn *c = db_acquire(st->db);
    struct db_stmt *s = NULL;
    int rc = db_prepare(
        c, &s, cause,
        "SELECT " SUMMARY_COLS SUMMARY_FROM "WHERE s.id < ? AND (? IS NULL OR s.problem_id = ?) "
        "AND (? IS NULL OR s.language = ?) "
        "AND (? <> 0 OR (? IS NULL AND s.user_id = ?) OR u.name = ?) "
        "ORDER BY s.id DESC LIMIT ?",
        "itttt"
        "Itit"
        "i",
        f->before, f->problem, f->problem, f->language, f->language, f->everyone ? 1 : 0,
        f->everyone ? "*" : f->user, f->viewer, f->user ? f->user : "", f->limit);
    while (rc >= 0 && (rc = db_step(s, cause)) == DB_ROW) {
        struct store_submission r;
        read_row(s, &r, false);
        fn(arg, &r);
    }
    db_finish(s);
    db_release(st->db, c);
    return rc < 0 ? rc : BW_OK;
}
