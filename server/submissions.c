#include "submissions.h"

#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <sodium.h>

#include "api.h"
#include "arena.h"
#include "auth.h"
#include "bodies.h"
#include "db.h"
#include "http.h"
#include "judgeapi.h"
#include "metrics.h"
#include "problems.h"
#include "queue.h"
#include "server.h"
#include "sse.h"
#include "common/error.h"
#include "common/json_reader.h"
#include "common/language.h"
#include "common/limits.h"
#include "common/log.h"
#include "common/util.h"
#include "problem/problem.h"
#include "common/banned.h"

#define IN_FLIGHT_RETRY_S 10

struct quota_use {
    int64_t used, oldest; /* in the window; oldest created_at (0 if none) */
};

static int window_use(struct db_conn *c, int64_t user, const char *mode, int64_t since,
                      struct quota_use *q, char **cause)
{
    struct db_stmt *st = NULL;
    int rc = db_prepare(c, &st, cause,
                        "SELECT COUNT(*), COALESCE(MIN(created_at), 0) FROM submissions "
                        "WHERE user_id = ? AND mode = ? AND created_at > ?",
                        "iti", user, mode, since);
    if (rc == BW_OK && (rc = db_step(st, cause)) == DB_ROW) {
        q->used = db_col_i64(st, 0);
        q->oldest = db_col_i64(st, 1);
        rc = BW_OK;
    }
    db_finish(st);
    return rc < 0 ? rc : BW_OK;
}

static json_t *window_json(const struct quota_use *q, int limit, int window, int64_t now)
{
    int64_t left = limit - q->used;
    int64_t resets = q->oldest ? q->oldest + window - now : 0;
    return json_pack("{s:i, s:I, s:I, s:i, s:I}", "limit", limit, "used", (json_int_t)q->used,
                     "remaining", (json_int_t)(left > 0 ? left : 0), "window_seconds", window,
                     "resets_in_seconds", (json_int_t)(resets > 0 ? resets : 0));
}

int submissions_quota_json(struct server *s, struct db_conn *c, int64_t user, json_t **out,
                           char **cause)
{
    int64_t now = (int64_t)time(NULL);
    int64_t since = now - s->cfg->quota_window_s;
    struct quota_use run = {0}, sub = {0};
    struct in_flight fl;
    int rc = window_use(c, user, "run", since, &run, cause);
    if (rc == BW_OK)
        rc = window_use(c, user, "submit", since, &sub, cause);
    if (rc == BW_OK)
        rc = queue_in_flight(c, user, now, s->cfg->lease_s, &fl, cause);
    if (rc < 0)
        return rc;
    *out = json_pack("{s:o, s:o, s:{s:i, s:I, s:I, s:b, s:I}}", "run",
                     window_json(&run, s->cfg->quota_run, s->cfg->quota_window_s, now), "submit",
                     window_json(&sub, s->cfg->quota_submit, s->cfg->quota_window_s, now),
                     "in_flight", "limit", s->cfg->quota_in_flight, "used", (json_int_t)fl.counted,
                     "waiting_for_gpu", (json_int_t)fl.waiting_gpu, "waiting_counted",
                     fl.gpu_connected, "waiting_for_language", (json_int_t)fl.waiting_language);
    return *out ? BW_OK : bw_fail(cause, BW_ERR_NOMEM, "out of memory");
}

static int db_trouble(struct http_response *res, const char *what, char *cause)
{
    log_error("submissions: %s: %s", what, cause ? cause : "error");
    free(cause);
    return api_reply_error(res, 503, "unavailable", NULL, "the database is busy; try again");
}

static int too_many(struct http_request *req, struct http_response *res, int64_t retry,
                    const char *message)
{
    char value[32];
    snprintf(value, sizeof(value), "%lld", (long long)(retry > 0 ? retry : 1));
    http_add_header(req, res, "Retry-After", value);
    return api_reply_error(res, 429, "quota", NULL, "%s", message);
}

int submissions_h_create(struct http_request *req, struct http_response *res)
{
    struct server *s = req->app;
    const struct principal *who = auth_who(req);
    struct api_error e;
    struct body_submission b;
    json_t *j = body_parse_submission(req->body.data, req->body.len, &b, &e);
    if (!j)
        return api_error_response(res, &e);
    struct problem_set *set = problems_get(s->problems);
    const struct problem_entry *pe = problems_find(set, b.problem);
    char hash[65];
    bool has_language = pe && pe->p->languages[b.language];
    char offered[64] = "";
    if (pe) {
        snprintf(hash, sizeof(hash), "%s", pe->hash);
        for (int l = 0; l < LANG_COUNT; l++)
            if (pe->p->languages[l]) {
                size_t used = strlen(offered);
                snprintf(offered + used, sizeof(offered) - used, "%s%s", used ? ", " : "",
                         language_name((enum language)l));
            }
    }
    problems_put(s->problems, set);
    if (!pe) {
        int st = api_reply_error(res, 404, "not_found", "problem", "problem: no problem \"%s\"",
                                 b.problem);
        json_decref(j);
        return st;
    }
    if (!has_language) {
        int st = api_reply_error(res, 400, "invalid", "language",
                                 "language: problem \"%s\" is not offered in %s (its languages: "
                                 "%s)",
                                 b.problem, language_title(b.language), offered);
        json_decref(j);
        return st;
    }
    const char *language = language_name(b.language);
    const char *mode = b.submit ? "submit" : "run";
    int limit = b.submit ? s->cfg->quota_submit : s->cfg->quota_run;
    int64_t now = (int64_t)time(NULL), disabled = 0, id = 0, pos = 0, seed = 0;
    struct quota_use q = {0};
    struct in_flight fl = {0};
    char *cause = NULL;
    int status = 0;
    randombytes_buf(&seed, sizeof(seed));
    seed &= INT64_MAX;
    if (seed == 0)
        seed = 1;
    struct db_conn *c = db_acquire(s->db);
    int rc = db_begin(c, &cause);
    if (rc == BW_OK)
        rc = db_get_i64(c, &disabled, &cause, "SELECT disabled FROM problems WHERE id = ?", "t",
                        b.problem);
    if (rc == BW_OK)
        rc = queue_in_flight(c, who->id, now, s->cfg->lease_s, &fl, &cause);
    if (rc == BW_OK)
        rc = window_use(c, who->id, mode, now - s->cfg->quota_window_s, &q, &cause);
    if (rc == BW_OK) {
        if (disabled)
            status = api_reply_error(res, 409, "problem_disabled", "problem",
                                     "problem: \"%s\" is disabled until an admin looks at it",
                                     b.problem);
        else if (fl.counted >= s->cfg->quota_in_flight) {
            char msg[160];
            snprintf(msg, sizeof(msg),
                     "at most %d of your submissions may wait or be judged at once",
                     s->cfg->quota_in_flight);
            status = too_many(req, res, IN_FLIGHT_RETRY_S, msg);
        } else if (q.used >= limit) {
            char msg[160];
            snprintf(msg, sizeof(msg), "%s quota used up: %d per %d seconds", mode, limit,
                     s->cfg->quota_window_s);
            status = too_many(req, res, q.oldest + s->cfg->quota_window_s - now, msg);
        }
    }
    int64_t round = 0;
    if (rc == BW_OK && status == 0)
        rc = queue_next_round(c, who->id, &round, &cause);
    if (rc == BW_OK && status == 0)
        rc = db_run(c, &cause,
                    "INSERT INTO submissions(user_id, problem_id, problem_hash, mode, language, "
                    "source, seed, created_at, queued_at, round) VALUES (?,?,?,?,?,?,?,?,?,?)",
                    "ittttt"
                    "iiii",
                    who->id, b.problem, hash, mode, language, b.source, seed, now, now, round);
    if (rc == BW_OK && status == 0) {
        id = db_last_id(c);
        rc = db_commit(c, &cause);
    } else {
        db_rollback(c);
    }
    json_t *quota = NULL;
    if (rc == BW_OK && status == 0)
        rc = queue_position(c, id, &pos, &cause);
    if (rc == BW_OK && status == 0)
        rc = submissions_quota_json(s, c, who->id, &quota, &cause);
    db_release(s->db, c);
    if (rc < 0) {
        json_decref(j);
        json_decref(quota);
        if (id) {
            /* Committed: the submission is safe; only the extras failed. */
            log_warn("submissions: submission %lld: created, but %s", (long long)id,
                     cause ? cause : "reading its position failed");
            free(cause);
            return api_json(res, 201,
                            json_pack("{s:I, s:s}", "id", (json_int_t)id, "state", "queued"));
        }
        return db_trouble(res, "create", cause);
    }
    if (status) {
        json_decref(j);
        return status;
    }
    log_info("submissions: submission %lld: %s %s in %s by %s", (long long)id, mode, b.problem,
             language_title(b.language), who->name);
    metrics_submission(s->metrics, b.submit);
    json_t *ev = json_pack("{s:I, s:s, s:I}", "id", (json_int_t)id, "state", "queued", "position",
                           (json_int_t)pos);
    sse_publish(s->hub, id, "queued", ev, false);
    json_decref(ev);
    judgeapi_queue_changed(s);
    char *loc = arena_printf(req->arena, "/api/submissions/%lld", (long long)id);
    if (loc)
        http_add_header(req, res, "Location", loc);
    status = api_json(res, 201,
                      json_pack("{s:I, s:s, s:s, s:s, s:s, s:I, s:o}", "id", (json_int_t)id,
                                "problem", b.problem, "mode", mode, "language", language, "state",
                                "queued", "position", (json_int_t)pos, "quota", quota));
    json_decref(j);
    return status;
}

/* The columns summary() reads, in this order, and the joins they need; the
 * single-submission queries add SUMMARY_EXTRA after them. */
#define SUMMARY_COLS                                                                               \
    "s.id, u.name, s.problem_id, s.mode, s.state, s.verdict, s.message, s.score, s.time_ms, "      \
    "s.created_at, s.judged_at, s.gpu_name, s.attempts, s.needs_gpu, s.cancelled_at, cu.name, "    \
    "s.cancelled_from, " QUEUE_POSITION_SQL ", s.language, s.pytorch_speedup "
#define SUMMARY_FROM                                                                               \
    "FROM submissions s JOIN users u ON u.id = s.user_id "                                         \
    "LEFT JOIN users cu ON cu.id = s.cancelled_by "
enum { COL_LANGUAGE = 18, COL_PYTORCH, COL_SOURCE, COL_RESULT, COL_OWNER };
#define SUMMARY_EXTRA ", s.source, s.result, s.user_id "

/* Loads submission `id` if the principal may read it; 404 otherwise. Sets
 * *row to the prepared row (caller finishes it). */
static int load_visible(struct db_conn *c, const struct principal *who, int64_t id,
                        struct db_stmt **row, char **cause)
{
    int rc = db_prepare(c, row, cause,
                        "SELECT " SUMMARY_COLS SUMMARY_EXTRA SUMMARY_FROM
                        "WHERE s.id = ? AND (s.user_id = ? OR ?)",
                        "iiI", id, who->id, who->role >= USER_INSTRUCTOR ? 1 : 0);
    if (rc < 0)
        return rc;
    rc = db_step(*row, cause);
    if (rc == DB_DONE) {
        db_finish(*row);
        *row = NULL;
        return BW_ERR_NOTFOUND;
    }
    return rc < 0 ? rc : BW_OK;
}

static json_t *opt_real(struct db_stmt *st, int col)
{
    return db_col_null(st, col) ? json_null() : json_real(db_col_double(st, col));
}

static json_t *opt_int(struct db_stmt *st, int col)
{
    return db_col_null(st, col) ? json_null() : json_integer(db_col_i64(st, col));
}

static json_t *opt_text(struct db_stmt *st, int col)
{
    return db_col_null(st, col) ? json_null() : json_string(db_col_text(st, col));
}

/* True when the row (SUMMARY_COLS) was cancelled. */
static bool row_cancelled(struct db_stmt *st)
{
    return !db_col_null(st, 14);
}

/* The summary of a row of SUMMARY_COLS. A cancelled submission is state
 * "cancelled" (in the database it is 'done': schema.sql, migration 2). */
static json_t *summary(struct db_stmt *st)
{
    const char *v = db_col_null(st, 5) ? NULL : db_col_text(st, 5);
    enum verdict verdict = v ? verdict_parse(v) : VERDICT_NONE;
    bool cancelled = row_cancelled(st);
    int64_t pos = db_col_i64(st, 17);
    json_t *cancel =
        cancelled ? json_pack("{s:o, s:I, s:o}", "by",
                              db_col_null(st, 15) ? json_null() : json_string(db_col_text(st, 15)),
                              "at", (json_int_t)db_col_i64(st, 14), "from", opt_text(st, 16))
                  : json_null();
    return json_pack(
        "{s:I, s:s, s:s, s:s, s:s, s:s, s:o, s:o, s:o, s:o, s:o, s:I, s:o, s:o, s:I, s:I, "
        "s:b, s:o, s:o}",
        "id", (json_int_t)db_col_i64(st, 0), "user", db_col_text(st, 1), "problem",
        db_col_text(st, 2), "mode", db_col_text(st, 3), "language", db_col_text(st, COL_LANGUAGE),
        "state", cancelled ? "cancelled" : db_col_text(st, 4), "verdict",
        v ? json_string(v) : json_null(), "verdict_name",
        v ? json_string(verdict_name(verdict)) : json_null(), "message", opt_text(st, 6), "score",
        opt_real(st, 7), "time_ms", opt_real(st, 8), "created_at", (json_int_t)db_col_i64(st, 9),
        "judged_at", opt_int(st, 10), "gpu", opt_text(st, 11), "position", (json_int_t)pos,
        "attempts", (json_int_t)db_col_i64(st, 12), "waiting_for_gpu",
        db_col_i64(st, 13) != 0 && pos > 0, "cancelled", cancel, "pytorch_speedup",
        opt_real(st, COL_PYTORCH));
}

static int parse_id(const char *s, int64_t *id)
{
    return parse_i64(s, id) && *id > 0 ? BW_OK : BW_ERR_INVALID;
}

/* The full submission of a load_visible row: the summary, source, result. */
static json_t *full_json(struct db_stmt *st)
{
    json_t *body = summary(st);
    if (!body)
        return NULL;
    json_object_set_new(body, "source", json_string(db_col_text(st, COL_SOURCE)));
    json_t *result = NULL;
    if (!db_col_null(st, COL_RESULT))
        result = json_loads(db_col_text(st, COL_RESULT), 0, NULL);
    json_object_set_new(body, "result", result ? result : json_null());
    return body;
}

int submissions_h_get(struct http_request *req, struct http_response *res)
{
    struct server *s = req->app;
    const struct principal *who = auth_who(req);
    int64_t id;
    if (parse_id(req->params[0], &id) < 0)
        return api_reply_error(res, 404, "not_found", NULL, "no such submission");
    char *cause = NULL;
    struct db_conn *c = db_acquire(s->db);
    struct db_stmt *st = NULL;
    int rc = load_visible(c, who, id, &st, &cause);
    json_t *body = rc == BW_OK ? full_json(st) : NULL;
    db_finish(st);
    db_release(s->db, c);
    if (rc == BW_ERR_NOTFOUND) {
        free(cause);
        return api_reply_error(res, 404, "not_found", NULL, "no such submission");
    }
    if (rc < 0)
        return db_trouble(res, "read", cause);
    return api_json(res, 200, body);
}

/* The body of a cancel request: empty, or an object without fields. */
static bool cancel_body_ok(struct http_request *req, struct api_error *e)
{
    if (req->body.len == 0)
        return true;
    json_t *j = api_parse_object(req->body.data, req->body.len, 2, e);
    if (!j)
        return false;
    static const char *const none[] = {NULL};
    struct json_reader r;
    json_reader_init(&r, JSON_READER_NULL_IS_ABSENT);
    if (json_reader_only_keys(&r, "", j, none))
        api_fail_reader(e, &r);
    json_decref(j);
    return !json_reader_failed(&r);
}

int submissions_h_cancel(struct http_request *req, struct http_response *res)
{
    struct server *s = req->app;
    const struct principal *who = auth_who(req);
    int64_t id;
    if (parse_id(req->params[0], &id) < 0)
        return api_reply_error(res, 404, "not_found", NULL, "no such submission");
    struct api_error e;
    if (!cancel_body_ok(req, &e))
        return api_error_response(res, &e);
    char *cause = NULL;
    struct cancel cx;
    json_t *body = NULL;
    int status = 0;
    struct db_conn *c = db_acquire(s->db);
    struct db_stmt *st = NULL;
    int rc = load_visible(c, who, id, &st, &cause);
    if (rc == BW_OK && db_col_i64(st, COL_OWNER) != who->id && who->role < USER_ADMIN)
        status = api_reply_error(res, 403, "forbidden", NULL,
                                 "only the submission's owner or an admin may cancel it");
    db_finish(st);
    st = NULL;
    if (rc == BW_OK && status == 0)
        rc = queue_cancel(c, id, who->id, who->name, &cx, &cause);
    if (rc == BW_OK && status == 0) {
        /* Committed: a failure to read it back only shortens the answer. */
        char *why = NULL;
        if (load_visible(c, who, id, &st, &why) == BW_OK)
            body = summary(st);
        else
            log_warn("submissions: submission %lld: cancelled, but reading it back failed: %s",
                     (long long)id, why ? why : "error");
        free(why);
    }
    db_finish(st);
    db_release(s->db, c);
    if (status)
        return status;
    if (rc == BW_ERR_NOTFOUND) {
        free(cause);
        return api_reply_error(res, 404, "not_found", NULL, "no such submission");
    }
    if (rc == BW_ERR_INVALID) {
        status = api_reply_error(res, 409, "finished", NULL, "%s", cause);
        free(cause);
        return status;
    }
    if (rc < 0)
        return db_trouble(res, "cancel", cause);
    if (cx.lease[0])
        log_info("submissions: submission %lld: cancelled by %s while worker %lld judged it "
                 "(lease %s ended)",
                 (long long)id, who->name, (long long)cx.worker, cx.lease);
    else
        log_info("submissions: submission %lld: cancelled by %s (it was %s)", (long long)id,
                 who->name, strcmp(cx.from, "queued") == 0 ? "queued" : "waiting for a GPU");
    if (!body)
        body = json_pack("{s:I, s:s}", "id", (json_int_t)id, "state", "cancelled");
    /* The stream's final event: "done", whose state says it was cancelled. */
    sse_publish(s->hub, id, "done", body, true);
    judgeapi_queue_changed(s);
    return api_json(res, 200, body);
}

int submissions_h_list(struct http_request *req, struct http_response *res)
{
    struct server *s = req->app;
    const struct principal *who = auth_who(req);
    const char *problem = http_query(req, "problem");
    const char *user = http_query(req, "user");
    const char *limit_s = http_query(req, "limit");
    const char *before_s = http_query(req, "before");
    const char *language = http_query(req, "language");
    enum language lang;
    int64_t limit = 50, before = INT64_MAX;
    if (limit_s && (!parse_i64(limit_s, &limit) || limit < 1 || limit > BW_MAX_LIST_LIMIT))
        return api_reply_error(res, 400, "invalid", "limit", "limit: expected 1..%d",
                               BW_MAX_LIST_LIMIT);
    if (before_s && (!parse_i64(before_s, &before) || before < 1))
        return api_reply_error(res, 400, "invalid", "before", "before: expected a submission id");
    if (problem && !body_problem_id_ok(problem))
        return api_reply_error(res, 400, "invalid", "problem", "problem: not a problem id");
    if (language && !language_from_name(language, &lang))
        return api_reply_error(res, 400, "invalid", "language",
                               "language: \"%.32s\" is not \"cuda\" or \"triton\"", language);
    if (user && !auth_username_ok(user) && strcmp(user, "*") != 0)
        return api_reply_error(res, 400, "invalid", "user", "user: not a user name");
    bool everyone = user && strcmp(user, "*") == 0;
    if (user && who->role < USER_INSTRUCTOR && (everyone || strcmp(user, who->name) != 0))
        return api_reply_error(res, 403, "forbidden", "user",
                               "only instructors list other users' submissions");
    char *cause = NULL;
    json_t *list = json_array();
    struct db_conn *c = db_acquire(s->db);
    struct db_stmt *st = NULL;
    int rc = db_prepare(c, &st, &cause,
                        "SELECT " SUMMARY_COLS SUMMARY_FROM
                        "WHERE s.id < ? AND (? IS NULL OR s.problem_id = ?) "
                        "AND (? IS NULL OR s.language = ?) "
                        "AND (? OR (? IS NULL AND s.user_id = ?) OR u.name = ?) "
                        "ORDER BY s.id DESC LIMIT ?",
                        "itttt"
                        "Itit"
                        "i",
                        before, problem, problem, language, language, everyone ? 1 : 0,
                        everyone ? "*" : user, who->id, user ? user : "", limit);
    while (rc >= 0 && (rc = db_step(st, &cause)) == DB_ROW)
        json_array_append_new(list, summary(st));
    db_finish(st);
    db_release(s->db, c);
    if (rc < 0) {
        json_decref(list);
        return db_trouble(res, "list", cause);
    }
    return api_json(res, 200, json_pack("{s:o}", "submissions", list));
}

int submissions_h_events(struct http_request *req, struct http_response *res)
{
    struct server *s = req->app;
    const struct principal *who = auth_who(req);
    int64_t id, last_id = -1;
    if (parse_id(req->params[0], &id) < 0)
        return api_reply_error(res, 404, "not_found", NULL, "no such submission");
    const char *last = http_header(req, "Last-Event-ID");
    if (last && (!parse_i64(last, &last_id) || last_id < 0))
        last_id = -1;
    char *cause = NULL;
    struct db_conn *c = db_acquire(s->db);
    struct db_stmt *st = NULL;
    int rc = load_visible(c, who, id, &st, &cause);
    json_t *snap = NULL;
    bool done = false;
    if (rc == BW_OK) {
        snap = summary(st);
        done = strcmp(db_col_text(st, 4), "done") == 0; /* judged or cancelled */
    }
    db_finish(st);
    db_release(s->db, c);
    if (rc == BW_ERR_NOTFOUND) {
        free(cause);
        return api_reply_error(res, 404, "not_found", NULL, "no such submission");
    }
    if (rc < 0)
        return db_trouble(res, "events", cause);
    int status = sse_open(s->hub, req, res, id, snap, done, last_id);
    json_decref(snap);
    if (status != 200)
        return api_reply_error(res, 503, "unavailable", NULL, "out of memory");
    return status;
}
