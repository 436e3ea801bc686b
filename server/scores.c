#include "scores.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "api.h"
#include "auth.h"
#include "bodies.h"
#include "http.h"
#include "problems.h"
#include "server.h"
#include "store/store.h"
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

/* The leaderboard being built: one board per GPU model and language. */
struct board {
    json_t *boards, *entries;
    char gpu[128], language[16];
    int rank;
};

static void board_row(void *arg, const struct store_board_row *r)
{
    struct board *b = arg;
    if (!b->entries || strcmp(r->gpu, b->gpu) != 0 || strcmp(r->language, b->language) != 0) {
        snprintf(b->gpu, sizeof(b->gpu), "%s", r->gpu);
        snprintf(b->language, sizeof(b->language), "%s", r->language);
        b->entries = json_array();
        json_array_append_new(b->boards, json_pack("{s:s, s:s, s:o}", "gpu", r->gpu, "language",
                                                   r->language, "entries", b->entries));
        b->rank = 0;
    }
    if (++b->rank > BOARD_ROWS)
        return;
    json_array_append_new(
        b->entries, json_pack("{s:i, s:s, s:f, s:f, s:I, s:I, s:o}", "rank", b->rank, "user",
                              r->user, "time_ms", r->time_ms, "score", r->score, "submission",
                              (json_int_t)r->submission, "at", (json_int_t)r->at, "pytorch_speedup",
                              r->has_pytorch ? json_real(r->pytorch_speedup) : json_null()));
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
    struct board b = {json_array(), NULL, "", "", 0};
    int rc = store_leaderboard(s->store, problem, gpu, language, by_pytorch, board_row, &b, &cause);
    json_t *boards = b.boards;
    if (rc < 0) {
        json_decref(boards);
        return db_trouble(res, cause);
    }
    return api_json(res, 200,
                    json_pack("{s:s, s:o, s:s, s:o}", "problem", problem, "language",
                              language ? json_string(language) : json_null(), "sort",
                              by_pytorch ? "pytorch" : "time", "boards", boards));
}

/* A problem is solved once it is solved in any language. */
static void solved_row(void *arg, const struct store_solved_row *r)
{
    json_t *problems = arg;
    json_t *p = json_object_get(problems, r->problem);
    if (!p) {
        p = json_pack("{s:b, s:I, s:{}, s:[]}", "solved", 1, "solved_at", (json_int_t)r->first_at,
                      "languages", "best");
        json_object_set_new(problems, r->problem, p);
    }
    json_object_set_new(json_object_get(p, "languages"), r->language,
                        json_pack("{s:I}", "solved_at", (json_int_t)r->first_at));
}

static void best_row(void *arg, const char *problem, const struct store_board_row *r)
{
    json_t *p = json_object_get(arg, problem);
    if (!p)
        return;
    json_array_append_new(json_object_get(p, "best"),
                          json_pack("{s:s, s:s, s:f, s:f, s:I, s:I, s:o}", "gpu", r->gpu,
                                    "language", r->language, "time_ms", r->time_ms, "score",
                                    r->score, "submission", (json_int_t)r->submission, "at",
                                    (json_int_t)r->at, "pytorch_speedup",
                                    r->has_pytorch ? json_real(r->pytorch_speedup) : json_null()));
}

int scores_h_mine(struct http_request *req, struct http_response *res)
{
    struct server *s = req->app;
    const struct principal *who = auth_who(req);
    char *cause = NULL;
    json_t *problems = json_object();
    int rc = store_scores_of(s->store, who->id, solved_row, best_row, problems, &cause);
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

static void grade_row(void *arg, const struct store_grade_row *r)
{
    struct buf *b = arg;
    char score[32] = "", timems[32] = "", when[32];
    if (r->has_score)
        snprintf(score, sizeof(score), "%.2f", r->score);
    if (r->has_time)
        snprintf(timems, sizeof(timems), "%.6g", r->time_ms);
    iso_time(r->first_at, when);
    csv_field(b, r->user, false);
    csv_field(b, r->problem, false);
    csv_field(b, r->solved ? "yes" : "no", false);
    csv_field(b, score, false);
    csv_field(b, timems, false);
    csv_field(b, when, false);
    csv_field(b, r->language, true);
}

int scores_h_gradebook(struct http_request *req, struct http_response *res)
{
    struct server *s = req->app;
    char *cause = NULL;
    struct buf b;
    buf_init(&b, 64 * 1024 * 1024);
    buf_puts(&b, "user,problem,solved,best_score,best_time_ms,when,language\r\n");
    /* The language is the last column, so that a script reading the columns
     * before it by position reads what it read before. */
    int rc = store_gradebook(s->store, grade_row, &b, &cause);
    if (rc < 0) {
        buf_release(&b);
        return db_trouble(res, cause);
    }
    http_add_header(req, res, "Content-Disposition", "attachment; filename=\"gradebook.csv\"");
    int status = http_text(res, 200, "text/csv; charset=utf-8", b.data, b.len);
    buf_release(&b);
    return status;
}
