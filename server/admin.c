#include "admin.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "api.h"
#include "auth.h"
#include "bodies.h"
#include "db.h"
#include "http.h"
#include "judgeapi.h"
#include "problems.h"
#include "queue.h"
#include "server.h"
#include "sse.h"
#include "throttle.h"
#include "common/error.h"
#include "common/language.h"
#include "common/limits.h"
#include "common/log.h"
#include "common/util.h"
#include "problem/problem.h"
#include "common/banned.h"

static int db_trouble(struct http_response *res, char *cause)
{
    log_error("admin: %s", cause ? cause : "database error");
    free(cause);
    return api_reply_error(res, 503, "unavailable", NULL, "the database is busy; try again");
}

bool admin_worker_name_ok(const char *name)
{
    size_t n = strlen(name);
    if (n < 1 || n > BW_MAX_TOKEN_NAME)
        return false;
    for (size_t i = 0; i < n; i++)
        if ((unsigned char)name[i] < 0x20 || name[i] == 0x7f)
            return false;
    return true;
}

int admin_create_worker(struct db_conn *c, const char *name, const char *token, int64_t *id,
                        char **cause)
{
    char hash[65];
    auth_token_hash(token, hash);
    int rc = db_run(c, cause, "INSERT INTO workers(name, token_hash, created_at) VALUES (?,?,?)",
                    "tti", name, hash, (int64_t)time(NULL));
    if (rc == BW_ERR_INVALID)
        return bw_fail(cause, BW_ERR_INVALID, "worker name \"%s\" is taken", name);
    if (rc == BW_OK && id)
        *id = db_last_id(c);
    return rc;
}

int admin_find_worker(struct db_conn *c, const char *name, int64_t *id, char **cause)
{
    int rc = db_get_i64(c, id, cause,
                        "SELECT id FROM workers WHERE name = ? AND deleted_at IS NULL", "t", name);
    if (rc == BW_ERR_NOTFOUND)
        return bw_fail(cause, BW_ERR_NOTFOUND, "no worker named \"%s\"", name);
    return rc;
}

int admin_rotate_worker(struct db_conn *c, int64_t id, const char *token, char **cause)
{
    char hash[65];
    auth_token_hash(token, hash);
    int rc =
        db_run(c, cause, "UPDATE workers SET token_hash = ? WHERE id = ? AND deleted_at IS NULL",
               "ti", hash, id);
    if (rc == BW_OK && db_changes(c) == 0)
        return bw_fail(cause, BW_ERR_NOTFOUND, "no worker %lld", (long long)id);
    return rc;
}

int admin_delete_worker(struct db_conn *c, int64_t id, char *name_out, int64_t **ids, size_t *n,
                        char **cause)
{
    struct db_stmt *st = NULL;
    char revoked[AUTH_TOKEN_CHARS], hash[65];
    int64_t now = (int64_t)time(NULL);
    *ids = NULL;
    *n = 0;
    name_out[0] = '\0';
    /* A hash of a random string that is no token: nothing presented hashes to it. */
    auth_new_token("del_", revoked); /* the prefix: 4 bytes at most */
    auth_token_hash(revoked, hash);
    int rc = db_begin(c, cause);
    if (rc < 0)
        return rc;
    rc = db_prepare(c, &st, cause, "SELECT name FROM workers WHERE id = ? AND deleted_at IS NULL",
                    "i", id);
    if (rc == BW_OK && (rc = db_step(st, cause)) == DB_ROW) {
        snprintf(name_out, BW_MAX_TOKEN_NAME + 1, "%s", db_col_text(st, 0));
        rc = BW_OK;
    } else if (rc == DB_DONE) {
        rc = bw_fail(cause, BW_ERR_NOTFOUND, "no worker %lld", (long long)id);
    }
    db_finish(st);
    if (rc == BW_OK)
        rc = queue_drop_worker(c, id, "the worker was deleted by an admin", ids, n, cause);
    if (rc == BW_OK)
        rc = db_run(c, cause,
                    "UPDATE workers SET name = name || ' (deleted ' || id || ')', "
                    "token_hash = ?, disabled = 1, disabled_reason = 'deleted', deleted_at = ? "
                    "WHERE id = ?",
                    "tii", hash, now, id);
    if (rc == BW_OK)
        rc = db_run(c, cause, "DELETE FROM worker_languages WHERE worker_id = ?", "i", id);
    if (rc == BW_OK)
        rc = db_commit(c, cause);
    if (rc < 0) {
        db_rollback(c);
        free(*ids);
        *ids = NULL;
        *n = 0;
    }
    return rc;
}

static json_t *text_or_null(struct db_stmt *st, int col)
{
    return db_col_null(st, col) ? json_null() : json_string(db_col_text(st, col));
}

static json_t *int_or_null(struct db_stmt *st, int col)
{
    return db_col_null(st, col) ? json_null() : json_integer(db_col_i64(st, col));
}

int admin_h_workers(struct http_request *req, struct http_response *res)
{
    struct server *s = req->app;
    char *cause = NULL;
    int64_t now = (int64_t)time(NULL);
    json_t *list = json_array();
    struct db_conn *c = db_acquire(s->db);
    struct db_stmt *st = NULL;
    int rc = db_prepare(c, &st, &cause,
                        "SELECT w.id, w.name, w.created_at, w.registered_at, w.last_seen_at, "
                        "w.hostname, w.version, w.gpu, w.can_execute, w.disabled, "
                        "w.disabled_reason, w.error_streak, "
                        "(SELECT l.submission_id FROM leases l WHERE l.worker_id = w.id "
                        " AND l.state = 'active' LIMIT 1), "
                        "(SELECT COUNT(*) FROM leases l WHERE l.worker_id = w.id "
                        " AND l.state = 'done') "
                        "FROM workers w WHERE w.deleted_at IS NULL ORDER BY w.id",
                        "");
    while (rc >= 0 && (rc = db_step(st, &cause)) == DB_ROW) {
        json_t *gpu = db_col_null(st, 7) ? NULL : json_loads(db_col_text(st, 7), 0, NULL);
        bool alive = !db_col_null(st, 4) && db_col_i64(st, 4) >= now - s->cfg->lease_s;
        json_t *w = json_pack(
            "{s:I, s:s, s:I, s:o, s:o, s:o, s:o, s:o, s:b, s:b, s:b, s:o, "
            "s:I, s:o, s:I}",
            "id", (json_int_t)db_col_i64(st, 0), "name", db_col_text(st, 1), "created_at",
            (json_int_t)db_col_i64(st, 2), "registered_at", int_or_null(st, 3), "last_seen_at",
            int_or_null(st, 4), "hostname", text_or_null(st, 5), "version", text_or_null(st, 6),
            "gpu", gpu ? gpu : json_null(), "can_execute", (int)db_col_i64(st, 8), "alive", alive,
            "disabled", (int)db_col_i64(st, 9), "disabled_reason", text_or_null(st, 10),
            "error_streak", (json_int_t)db_col_i64(st, 11), "current_submission",
            int_or_null(st, 12), "judged", (json_int_t)db_col_i64(st, 13));
        json_object_set_new(w, "languages", json_array());
        json_array_append_new(list, w);
    }
    db_finish(st);
    /* What each compiles, as it registered it (none before its first registration). */
    if (rc >= 0)
        rc = db_prepare(c, &st, &cause,
                        "SELECT worker_id, language, version FROM worker_languages "
                        "ORDER BY worker_id, language",
                        "");
    while (rc >= 0 && (rc = db_step(st, &cause)) == DB_ROW) {
        size_t i;
        json_t *w;
        json_array_foreach (list, i, w)
            if (json_integer_value(json_object_get(w, "id")) == db_col_i64(st, 0))
                json_array_append_new(json_object_get(w, "languages"),
                                      json_pack("{s:s, s:s}", "name", db_col_text(st, 1), "version",
                                                db_col_text(st, 2)));
    }
    db_finish(st);
    db_release(s->db, c);
    if (rc < 0) {
        json_decref(list);
        return db_trouble(res, cause);
    }
    return api_json(res, 200, json_pack("{s:o}", "workers", list));
}

int admin_h_worker_create(struct http_request *req, struct http_response *res)
{
    struct server *s = req->app;
    struct api_error e;
    struct body_name b;
    json_t *j = body_parse_name(req->body.data, req->body.len, &b, &e);
    if (!j)
        return api_error_response(res, &e);
    char token[AUTH_TOKEN_CHARS];
    char *cause = NULL;
    int64_t id = 0;
    auth_new_token("bww_", token);
    struct db_conn *c = db_acquire(s->db);
    int rc = admin_create_worker(c, b.name, token, &id, &cause);
    db_release(s->db, c);
    int status;
    if (rc == BW_ERR_INVALID) {
        status = api_reply_error(res, 409, "conflict", "name", "%s", cause);
        free(cause);
    } else if (rc < 0) {
        status = db_trouble(res, cause);
    } else {
        log_info("admin: worker %s created by %s", b.name, auth_who(req)->name);
        status = api_json(
            res, 201,
            json_pack("{s:I, s:s, s:s}", "id", (json_int_t)id, "name", b.name, "token", token));
    }
    json_decref(j);
    return status;
}

int admin_h_worker_enable(struct http_request *req, struct http_response *res)
{
    struct server *s = req->app;
    int64_t id;
    if (!parse_i64(req->params[0], &id) || id < 1)
        return api_reply_error(res, 404, "not_found", NULL, "no such worker");
    struct api_error e;
    struct body_enable b;
    json_t *j = body_parse_enable(req->body.data, req->body.len, &b, &e);
    if (!j)
        return api_error_response(res, &e);
    json_decref(j);
    char *cause = NULL;
    struct db_conn *c = db_acquire(s->db);
    int rc = db_run(c, &cause,
                    "UPDATE workers SET disabled = ?, error_streak = 0, disabled_reason = ? "
                    "WHERE id = ? AND deleted_at IS NULL",
                    "Iti", b.enabled ? 0 : 1, b.enabled ? NULL : "disabled by an admin", id);
    int changed = db_changes(c);
    db_release(s->db, c);
    if (rc < 0)
        return db_trouble(res, cause);
    if (!changed)
        return api_reply_error(res, 404, "not_found", NULL, "no such worker");
    if (b.enabled)
        claims_notify(s->claims);
    return http_text(res, 204, NULL, "", 0);
}

int admin_h_worker_token(struct http_request *req, struct http_response *res)
{
    struct server *s = req->app;
    int64_t id;
    if (!parse_i64(req->params[0], &id) || id < 1)
        return api_reply_error(res, 404, "not_found", NULL, "no such worker");
    struct api_error e;
    if (!body_empty_ok(req->body.data, req->body.len, &e))
        return api_error_response(res, &e);
    char token[AUTH_TOKEN_CHARS], name[BW_MAX_TOKEN_NAME + 1] = "";
    char *cause = NULL;
    auth_new_token("bww_", token);
    struct db_conn *c = db_acquire(s->db);
    int rc = admin_rotate_worker(c, id, token, &cause);
    struct db_stmt *st = NULL;
    if (rc == BW_OK &&
        (rc = db_prepare(c, &st, &cause, "SELECT name FROM workers WHERE id = ?", "i", id)) ==
            BW_OK &&
        (rc = db_step(st, &cause)) == DB_ROW) {
        snprintf(name, sizeof(name), "%s", db_col_text(st, 0));
        rc = BW_OK;
    }
    db_finish(st);
    db_release(s->db, c);
    if (rc == BW_ERR_NOTFOUND) {
        free(cause);
        return api_reply_error(res, 404, "not_found", NULL, "no such worker");
    }
    if (rc < 0)
        return db_trouble(res, cause);
    log_info("admin: worker %s: token rotated by %s (the old one stops working now)", name,
             auth_who(req)->name);
    return api_json(
        res, 200, json_pack("{s:I, s:s, s:s}", "id", (json_int_t)id, "name", name, "token", token));
}

int admin_h_worker_delete(struct http_request *req, struct http_response *res)
{
    struct server *s = req->app;
    int64_t id;
    if (!parse_i64(req->params[0], &id) || id < 1)
        return api_reply_error(res, 404, "not_found", NULL, "no such worker");
    char name[BW_MAX_TOKEN_NAME + 1];
    char *cause = NULL;
    int64_t *ids = NULL;
    size_t n = 0;
    struct db_conn *c = db_acquire(s->db);
    int rc = admin_delete_worker(c, id, name, &ids, &n, &cause);
    db_release(s->db, c);
    if (rc == BW_ERR_NOTFOUND) {
        free(cause);
        return api_reply_error(res, 404, "not_found", NULL, "no such worker");
    }
    if (rc < 0)
        return db_trouble(res, cause);
    log_info("admin: worker %s deleted by %s; %zu job%s it held went back to the queue", name,
             auth_who(req)->name, n, n == 1 ? "" : "s");
    judgeapi_requeued(s, ids, n, "the worker was deleted; waiting for another");
    free(ids);
    return http_text(res, 204, NULL, "", 0);
}

int admin_h_queue(struct http_request *req, struct http_response *res)
{
    struct server *s = req->app;
    char *cause = NULL;
    json_t *list = json_array();
    struct db_conn *c = db_acquire(s->db);
    struct db_stmt *st = NULL;
    int rc = db_prepare(c, &st, &cause,
                        "SELECT s.id, u.name, s.problem_id, s.mode, s.state, s.attempts, "
                        "s.needs_gpu, s.queued_at, w.name, l.expires_at, l.id, " QUEUE_POSITION_SQL
                        ", s.language "
                        "FROM submissions s JOIN users u ON u.id = s.user_id "
                        "LEFT JOIN leases l ON l.submission_id = s.id AND l.state = 'active' "
                        "LEFT JOIN workers w ON w.id = l.worker_id "
                        "WHERE s.state != 'done' ORDER BY s.state = 'queued', s.round, s.id",
                        "");
    while (rc >= 0 && (rc = db_step(st, &cause)) == DB_ROW) {
        bool queued = strcmp(db_col_text(st, 4), "queued") == 0;
        json_array_append_new(
            list,
            json_pack("{s:I, s:s, s:s, s:s, s:s, s:s, s:I, s:b, s:I, s:o, s:o, s:o, s:o}", "id",
                      (json_int_t)db_col_i64(st, 0), "user", db_col_text(st, 1), "problem",
                      db_col_text(st, 2), "mode", db_col_text(st, 3), "language",
                      db_col_text(st, 12), "state", db_col_text(st, 4), "attempts",
                      (json_int_t)db_col_i64(st, 5), "needs_gpu", (int)db_col_i64(st, 6),
                      "queued_at", (json_int_t)db_col_i64(st, 7), "worker", text_or_null(st, 8),
                      "lease_expires_at", int_or_null(st, 9), "lease", text_or_null(st, 10),
                      "position", queued ? json_integer(db_col_i64(st, 11)) : json_null()));
    }
    db_finish(st);
    db_release(s->db, c);
    if (rc < 0) {
        json_decref(list);
        return db_trouble(res, cause);
    }
    return api_json(res, 200, json_pack("{s:o}", "queue", list));
}

int admin_h_rejudge(struct http_request *req, struct http_response *res)
{
    struct server *s = req->app;
    struct api_error e;
    struct body_rejudge b;
    json_t *j = body_parse_rejudge(req->body.data, req->body.len, &b, &e);
    if (!j)
        return api_error_response(res, &e);
    char *cause = NULL;
    int64_t n = 1;
    struct db_conn *c = db_acquire(s->db);
    int rc = b.submission ? queue_rejudge_submission(c, b.submission, &cause)
                          : queue_rejudge_problem(c, b.problem, &n, &cause);
    db_release(s->db, c);
    int status;
    if (rc == BW_ERR_NOTFOUND) {
        status = api_reply_error(res, 404, "not_found", "submission", "%s", cause);
        free(cause);
    } else if (rc == BW_ERR_INVALID) {
        status = api_reply_error(res, 409, "cancelled", "submission", "%s", cause);
        free(cause);
    } else if (rc < 0) {
        status = db_trouble(res, cause);
    } else {
        if (b.submission) {
            json_t *ev = json_pack("{s:I, s:s}", "id", (json_int_t)b.submission, "state", "queued");
            sse_publish(s->hub, b.submission, "queued", ev, false);
            json_decref(ev);
        }
        log_info("admin: %s rejudged %s%s%lld", auth_who(req)->name,
                 b.problem ? b.problem : "submission ", b.problem ? ": " : "",
                 (long long)(b.problem ? n : b.submission));
        judgeapi_queue_changed(s);
        status = api_json(res, 200, json_pack("{s:I}", "requeued", (json_int_t)n));
    }
    json_decref(j);
    return status;
}

int admin_h_problems(struct http_request *req, struct http_response *res)
{
    struct server *s = req->app;
    char *cause = NULL;
    json_t *rows = json_array();
    struct problem_set *set = problems_get(s->problems);
    json_t *failed = json_array();
    for (size_t i = 0; i < set->n_failed; i++)
        json_array_append_new(failed, json_pack("{s:s, s:s}", "dir", set->failed[i].dir, "error",
                                                set->failed[i].error));
    struct db_conn *c = db_acquire(s->db);
    struct db_stmt *st = NULL;
    int rc = db_prepare(c, &st, &cause,
                        "SELECT id, title, hash, loaded_at, disabled, disabled_reason, "
                        "error_streak FROM problems ORDER BY id",
                        "");
    while (rc >= 0 && (rc = db_step(st, &cause)) == DB_ROW) {
        const struct problem_entry *pe = problems_find(set, db_col_text(st, 0));
        json_t *langs = json_array();
        for (int l = 0; pe && l < LANG_COUNT; l++)
            if (pe->p->languages[l])
                json_array_append_new(langs, json_string(language_name((enum language)l)));
        json_array_append_new(
            rows, json_pack("{s:s, s:s, s:s, s:I, s:b, s:b, s:o, s:I, s:o}", "id",
                            db_col_text(st, 0), "title", db_col_text(st, 1), "hash",
                            db_col_text(st, 2), "loaded_at", (json_int_t)db_col_i64(st, 3),
                            "served", pe && strcmp(pe->hash, db_col_text(st, 2)) == 0, "disabled",
                            (int)db_col_i64(st, 4), "disabled_reason", text_or_null(st, 5),
                            "error_streak", (json_int_t)db_col_i64(st, 6), "languages", langs));
    }
    db_finish(st);
    db_release(s->db, c);
    problems_put(s->problems, set);
    if (rc < 0) {
        json_decref(rows);
        json_decref(failed);
        return db_trouble(res, cause);
    }
    return api_json(res, 200, json_pack("{s:o, s:o}", "problems", rows, "failed", failed));
}

int admin_h_problem_enable(struct http_request *req, struct http_response *res)
{
    struct server *s = req->app;
    if (!body_problem_id_ok(req->params[0]))
        return api_reply_error(res, 404, "not_found", NULL, "no such problem");
    struct api_error e;
    struct body_enable b;
    json_t *j = body_parse_enable(req->body.data, req->body.len, &b, &e);
    if (!j)
        return api_error_response(res, &e);
    json_decref(j);
    char *cause = NULL;
    struct db_conn *c = db_acquire(s->db);
    int rc =
        db_run(c, &cause,
               "UPDATE problems SET disabled = ?, error_streak = 0, disabled_reason = ? "
               "WHERE id = ?",
               "Itt", b.enabled ? 0 : 1, b.enabled ? NULL : "disabled by an admin", req->params[0]);
    int changed = db_changes(c);
    db_release(s->db, c);
    if (rc < 0)
        return db_trouble(res, cause);
    if (!changed)
        return api_reply_error(res, 404, "not_found", NULL, "no such problem");
    if (b.enabled)
        judgeapi_queue_changed(s);
    return http_text(res, 204, NULL, "", 0);
}

int admin_h_reload(struct http_request *req, struct http_response *res)
{
    struct server *s = req->app;
    server_reload(s);
    struct problem_set *set = problems_get(s->problems);
    json_t *body =
        json_pack("{s:I, s:I}", "loaded", (json_int_t)set->n, "failed", (json_int_t)set->n_failed);
    problems_put(s->problems, set);
    return api_json(res, 200, body);
}

int admin_h_user_role(struct http_request *req, struct http_response *res)
{
    struct server *s = req->app;
    const char *name = req->params[0];
    if (!auth_username_ok(name))
        return api_reply_error(res, 404, "not_found", NULL, "no such user");
    struct api_error e;
    struct body_role b;
    json_t *j = body_parse_role(req->body.data, req->body.len, &b, &e);
    if (!j)
        return api_error_response(res, &e);
    char *cause = NULL;
    struct db_conn *c = db_acquire(s->db);
    int rc = db_run(c, &cause, "UPDATE users SET role = ? WHERE name = ?", "tt", b.role, name);
    int changed = db_changes(c);
    db_release(s->db, c);
    int status;
    if (rc < 0)
        status = db_trouble(res, cause);
    else if (!changed)
        status = api_reply_error(res, 404, "not_found", NULL, "no such user");
    else {
        log_info("admin: %s made %s %s", auth_who(req)->name, name, b.role);
        status = http_text(res, 204, NULL, "", 0);
    }
    json_decref(j);
    return status;
}

int admin_h_unlock(struct http_request *req, struct http_response *res)
{
    struct server *s = req->app;
    struct api_error e;
    struct body_unlock b;
    json_t *j = body_parse_unlock(req->body.data, req->body.len, &b, &e);
    if (!j)
        return api_error_response(res, &e);
    bool address = b.address != NULL;
    const char *key = address ? b.address : b.name;
    bool was = throttle_unlock(s->signins, address ? THROTTLE_ADDRESS : THROTTLE_ACCOUNT, key);
    log_info("admin: %s unlocked sign-ins %s %s%s", auth_who(req)->name, address ? "from" : "as",
             key, was ? "" : " (they were not locked)");
    json_t *body = json_pack("{s:b}", "unlocked", was);
    json_decref(j);
    return api_json(res, 200, body);
}
