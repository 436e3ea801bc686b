#include "scores.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "api.h"
#include "auth.h"
#include "bodies.h"
#include "db.h"
#include "http.h"
#include "problems.h"
#include "server.h"
#include "common/buf.h"
#include "common/error.h"
#include "common/language.h"
#include "common/log.h"
#include "common/banned.h"

#define BOARD_ROWS 100

static int db_trouble(struct http_response *res, char *cause)
{
    log_error("scores: %s", cause ? cause : "database error");
    free(cause);
    return api_reply_error(res, 503, "unavailable", NULL, "the database is busy; try again");
}

/* The ?language= of a request: *out NULL when absent; false (and a 400 in
 * *status) when it names no language. */
static bool language_query(struct http_request *req, struct http_response *res, const char **out,
                           int *status)
{
    enum language l;
    *out = http_query(req, "language");
    if (!*out || language_from_name(*out, &l))
        return true;
    *status = api_reply_error(res, 400, "invalid", "language",
                              "language: \"%.32s\" is not \"cuda\" or \"triton\"", *out);
    return false;
}

int scores_h_leaderboard(struct http_request *req, struct http_response *res)
{
    struct server *s = req->app;
    const char *problem = req->params[0];
    const char *gpu = http_query(req, "gpu");
    const char *language = NULL;
    int status = 0;
    if (!body_problem_id_ok(problem))
        return api_reply_error(res, 404, "not_found", NULL, "no such problem");
    /* The same problems as GET /api/problems/{id}: those served now. */
    struct problem_set *set = problems_get(s->problems);
    bool served = problems_find(set, problem) != NULL;
    problems_put(s->problems, set);
    if (!served)
        return api_reply_error(res, 404, "not_found", NULL, "no problem \"%s\"", problem);
    if (gpu && strlen(gpu) > 127)
        return api_reply_error(res, 400, "invalid", "gpu", "gpu: longer than 127 bytes");
    if (!language_query(req, res, &language, &status))
        return status;
    /* ?sort=time (the default: the geometric mean of the shapes' median times, fastest first)
     * or ?sort=pytorch (x PyTorch, the geometric mean of PyTorch's time over the kernel's,
     * highest first; entries without it last). The entries are the same either way: each
     * user's fastest Accepted Submit. */
    const char *sort = http_query(req, "sort");
    bool by_pytorch = sort && strcmp(sort, "pytorch") == 0;
    if (sort && !by_pytorch && strcmp(sort, "time") != 0)
        return api_reply_error(res, 400, "invalid", "sort",
                               "sort: \"%.32s\" is not \"time\" or \"pytorch\"", sort);
    char *cause = NULL;
    json_t *boards = json_array();
    json_t *board = NULL, *entries = NULL;
    char current[128] = "", current_lang[16] = "";
    int rank = 0;
    struct db_conn *c = db_acquire(s->db);
    struct db_stmt *st = NULL;
    int rc = db_prepare(c, &st, &cause,
                        "SELECT b.gpu_name, b.language, u.name, b.time_ms, b.score, "
                        "b.submission_id, b.at, b.pytorch_speedup FROM best b "
                        "JOIN users u ON u.id = b.user_id "
                        "WHERE b.problem_id = ? AND (? IS NULL OR b.gpu_name = ?) "
                        "AND (? IS NULL OR b.language = ?) "
                        "ORDER BY b.gpu_name, b.language, "
                        "CASE WHEN ? THEN b.pytorch_speedup IS NULL ELSE 0 END, "
                        "CASE WHEN ? THEN -b.pytorch_speedup ELSE 0 END, b.time_ms, b.at",
                        "tttttII", problem, gpu, gpu, language, language, by_pytorch ? 1 : 0,
                        by_pytorch ? 1 : 0);
    while (rc >= 0 && (rc = db_step(st, &cause)) == DB_ROW) {
        const char *g = db_col_text(st, 0), *l = db_col_text(st, 1);
        if (!board || strcmp(g, current) != 0 || strcmp(l, current_lang) != 0) {
            snprintf(current, sizeof(current), "%s", g);
            snprintf(current_lang, sizeof(current_lang), "%s", l);
            entries = json_array();
            board = json_pack("{s:s, s:s, s:o}", "gpu", g, "language", l, "entries", entries);
            json_array_append_new(boards, board);
            rank = 0;
        }
        if (++rank > BOARD_ROWS)
            continue;
        json_array_append_new(
            entries, json_pack("{s:i, s:s, s:f, s:f, s:I, s:I, s:o}", "rank", rank, "user",
                               db_col_text(st, 2), "time_ms", db_col_double(st, 3), "score",
                               db_col_double(st, 4), "submission", (json_int_t)db_col_i64(st, 5),
                               "at", (json_int_t)db_col_i64(st, 6), "pytorch_speedup",
                               db_col_null(st, 7) ? json_null() : json_real(db_col_double(st, 7))));
    }
    db_finish(st);
    db_release(s->db, c);
    if (rc < 0) {
        json_decref(boards);
        return db_trouble(res, cause);
    }
    return api_json(res, 200,
                    json_pack("{s:s, s:o, s:s, s:o}", "problem", problem, "language",
                              language ? json_string(language) : json_null(), "sort",
                              by_pytorch ? "pytorch" : "time", "boards", boards));
}

int scores_h_mine(struct http_request *req, struct http_response *res)
{
    struct server *s = req->app;
    const struct principal *who = auth_who(req);
    char *cause = NULL;
    json_t *problems = json_object();
    struct db_conn *c = db_acquire(s->db);
    struct db_stmt *st = NULL;
    /* A problem is solved once it is solved in any language. */
    int rc = db_prepare(c, &st, &cause,
                        "SELECT problem_id, language, first_at FROM solved WHERE user_id = ? "
                        "ORDER BY problem_id, first_at",
                        "i", who->id);
    while (rc >= 0 && (rc = db_step(st, &cause)) == DB_ROW) {
        json_t *p = json_object_get(problems, db_col_text(st, 0));
        if (!p) {
            p = json_pack("{s:b, s:I, s:{}, s:[]}", "solved", 1, "solved_at",
                          (json_int_t)db_col_i64(st, 2), "languages", "best");
            json_object_set_new(problems, db_col_text(st, 0), p);
        }
        json_object_set_new(json_object_get(p, "languages"), db_col_text(st, 1),
                            json_pack("{s:I}", "solved_at", (json_int_t)db_col_i64(st, 2)));
    }
    db_finish(st);
    if (rc >= 0)
        rc = db_prepare(c, &st, &cause,
                        "SELECT problem_id, gpu_name, language, time_ms, score, submission_id, at, "
                        "pytorch_speedup FROM best WHERE user_id = ?",
                        "i", who->id);
    while (rc >= 0 && (rc = db_step(st, &cause)) == DB_ROW) {
        json_t *p = json_object_get(problems, db_col_text(st, 0));
        if (!p)
            continue;
        json_array_append_new(
            json_object_get(p, "best"),
            json_pack("{s:s, s:s, s:f, s:f, s:I, s:I, s:o}", "gpu", db_col_text(st, 1), "language",
                      db_col_text(st, 2), "time_ms", db_col_double(st, 3), "score",
                      db_col_double(st, 4), "submission", (json_int_t)db_col_i64(st, 5), "at",
                      (json_int_t)db_col_i64(st, 6), "pytorch_speedup",
                      db_col_null(st, 7) ? json_null() : json_real(db_col_double(st, 7))));
    }
    db_finish(st);
    db_release(s->db, c);
    if (rc < 0) {
        json_decref(problems);
        return db_trouble(res, cause);
    }
    return api_json(res, 200, json_pack("{s:o}", "problems", problems));
}

/* Appends a CSV field (RFC 4180 quoting when needed). */
static void csv_field(struct buf *b, const char *s, bool last)
{
    if (strpbrk(s, ",\"\r\n")) {
        buf_putc(b, '"');
        for (; *s; s++) {
            if (*s == '"')
                buf_putc(b, '"');
            buf_putc(b, *s);
        }
        buf_putc(b, '"');
    } else {
        buf_puts(b, s);
    }
    buf_puts(b, last ? "\r\n" : ",");
}

static void iso_time(int64_t t, char out[32])
{
    if (t <= 0) {
        out[0] = '\0';
        return;
    }
    time_t tt = (time_t)t;
    struct tm tm;
    gmtime_r(&tt, &tm);
    strftime(out, 32, "%Y-%m-%dT%H:%M:%SZ", &tm);
}

int scores_h_gradebook(struct http_request *req, struct http_response *res)
{
    struct server *s = req->app;
    char *cause = NULL;
    struct buf b;
    buf_init(&b, 64 * 1024 * 1024);
    buf_puts(&b, "user,problem,solved,best_score,best_time_ms,when,language\r\n");
    struct db_conn *c = db_acquire(s->db);
    struct db_stmt *st = NULL;
    /* Every (user, problem, language) with a submission; best over GPUs:
     * highest score, lowest time; "when" is when it was first solved in that
     * language. The language is the last column, so that a script reading
     * the columns before it by position reads what it read before. */
    int rc = db_prepare(c, &st, &cause,
                        "SELECT u.name, p.problem_id, sv.first_at IS NOT NULL, "
                        "(SELECT MAX(score) FROM best b WHERE b.user_id = p.user_id "
                        " AND b.problem_id = p.problem_id AND b.language = p.language), "
                        "(SELECT MIN(time_ms) FROM best b WHERE b.user_id = p.user_id "
                        " AND b.problem_id = p.problem_id AND b.language = p.language), "
                        "sv.first_at, p.language "
                        "FROM (SELECT DISTINCT user_id, problem_id, language FROM submissions) p "
                        "JOIN users u ON u.id = p.user_id "
                        "LEFT JOIN solved sv ON sv.user_id = p.user_id "
                        "AND sv.problem_id = p.problem_id AND sv.language = p.language "
                        "ORDER BY u.name, p.problem_id, p.language",
                        "");
    while (rc >= 0 && (rc = db_step(st, &cause)) == DB_ROW) {
        char score[32] = "", timems[32] = "", when[32];
        if (!db_col_null(st, 3))
            snprintf(score, sizeof(score), "%.2f", db_col_double(st, 3));
        if (!db_col_null(st, 4))
            snprintf(timems, sizeof(timems), "%.6g", db_col_double(st, 4));
        iso_time(db_col_null(st, 5) ? 0 : db_col_i64(st, 5), when);
        csv_field(&b, db_col_text(st, 0), false);
        csv_field(&b, db_col_text(st, 1), false);
        csv_field(&b, db_col_i64(st, 2) ? "yes" : "no", false);
        csv_field(&b, score, false);
        csv_field(&b, timems, false);
        csv_field(&b, when, false);
        csv_field(&b, db_col_text(st, 6), true);
    }
    db_finish(st);
    db_release(s->db, c);
    if (rc < 0) {
        buf_release(&b);
        return db_trouble(res, cause);
    }
    http_add_header(req, res, "Content-Disposition", "attachment; filename=\"gradebook.csv\"");
    int status = http_text(res, 200, "text/csv; charset=utf-8", b.data, b.len);
    buf_release(&b);
    return status;
}
