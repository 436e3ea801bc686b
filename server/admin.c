#include "admin.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "api.h"
#include "auth.h"
#include "bodies.h"
#include "http.h"
#include "judgeapi.h"
#include "problems.h"
#include "server.h"
#include "sse.h"
#include "store/queue.h"
#include "store/store.h"
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

int admin_create_worker(struct store *st, const char *name, const char *token,
                        store_commit_hook hook, void *arg, int64_t *id, char **cause)
{
    char hash[65];
    auth_token_hash(token, hash);
    return store_worker_create(st, name, hash, (int64_t)time(NULL), hook, arg, id, cause);
}

int admin_rotate_worker(struct store *st, int64_t id, const char *name, const char *token,
                        store_commit_hook hook, void *arg, int64_t *id_out, char *name_out,
                        char **cause)
{
    char hash[65];
    auth_token_hash(token, hash);
    return store_worker_rotate(st, id, name, hash, hook, arg, id_out, name_out, cause);
}

int admin_delete_worker(struct store *st, int64_t id, char *name_out, int64_t **ids, size_t *n,
                        char **cause)
{
    char revoked[AUTH_TOKEN_CHARS], hash[65];
    /* A hash of a random string that is no token: nothing presented hashes to it. */
    auth_new_token("del_", revoked); /* the prefix: 4 bytes at most */
    auth_token_hash(revoked, hash);
    return store_worker_delete(st, id, hash, (int64_t)time(NULL), name_out, ids, n, cause);
}

static json_t *opt_text(const char *v)
{
    return v ? json_string(v) : json_null();
}

struct workers_arg {
    json_t *list;
    int64_t now;
    int lease_s;
};

static void worker_row(void *arg, const struct store_worker_row *r)
{
    struct workers_arg *a = arg;
    json_t *gpu = r->gpu_json ? json_loads(r->gpu_json, 0, NULL) : NULL;
    bool alive = r->seen && r->last_seen_at >= a->now - a->lease_s;
    json_t *w =
        json_pack("{s:I, s:s, s:I, s:o, s:o, s:o, s:o, s:o, s:b, s:b, s:b, s:o, "
                  "s:I, s:o, s:I}",
                  "id", (json_int_t)r->id, "name", r->name, "created_at", (json_int_t)r->created_at,
                  "registered_at", r->registered ? json_integer(r->registered_at) : json_null(),
                  "last_seen_at", r->seen ? json_integer(r->last_seen_at) : json_null(), "hostname",
                  opt_text(r->hostname), "version", opt_text(r->version), "gpu",
                  gpu ? gpu : json_null(), "can_execute", (int)r->can_execute, "alive", alive,
                  "disabled", (int)r->disabled, "disabled_reason", opt_text(r->disabled_reason),
                  "error_streak", (json_int_t)r->error_streak, "current_submission",
                  r->current_submission ? json_integer(r->current_submission) : json_null(),
                  "judged", (json_int_t)r->judged);
    json_t *langs = json_array();
    /* What each compiles, as it registered it (none before its first registration). */
    for (size_t i = 0; i < r->n_languages; i++)
        json_array_append_new(langs, json_pack("{s:s, s:s}", "name", r->languages[i].name,
                                               "version", r->languages[i].version));
    json_object_set_new(w, "languages", langs);
    json_array_append_new(a->list, w);
}

int admin_h_workers(struct http_request *req, struct http_response *res)
{
    struct server *s = req->app;
    char *cause = NULL;
    struct workers_arg a = {json_array(), (int64_t)time(NULL), s->cfg->lease_s};
    int rc = store_workers_list(s->store, worker_row, &a, &cause);
    json_t *list = a.list;
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
    int rc = admin_create_worker(s->store, b.name, token, NULL, NULL, &id, &cause);
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
    int rc = store_worker_set_enabled(s->store, id, b.enabled, &cause);
    if (rc == BW_ERR_NOTFOUND) {
        free(cause);
        return api_reply_error(res, 404, "not_found", NULL, "no such worker");
    }
    if (rc < 0)
        return db_trouble(res, cause);
    if (b.enabled)
        judgeapi_queue_changed(s);
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
    int64_t same = 0;
    int rc = admin_rotate_worker(s->store, id, NULL, token, NULL, NULL, &same, name, &cause);
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
    int rc = admin_delete_worker(s->store, id, name, &ids, &n, &cause);
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

static void queue_row(void *arg, const struct queue_row *r)
{
    bool queued = strcmp(r->state, "queued") == 0;
    json_array_append_new(
        arg, json_pack("{s:I, s:s, s:s, s:s, s:s, s:s, s:I, s:b, s:I, s:o, s:o, s:o, s:o}", "id",
                       (json_int_t)r->id, "user", r->user, "problem", r->problem, "mode", r->mode,
                       "language", r->language, "state", r->state, "attempts",
                       (json_int_t)r->attempts, "needs_gpu", (int)r->needs_gpu, "queued_at",
                       (json_int_t)r->queued_at, "worker", opt_text(r->worker), "lease_expires_at",
                       r->lease ? json_integer(r->lease_expires_at) : json_null(), "lease",
                       opt_text(r->lease), "position",
                       queued ? json_integer(r->position) : json_null()));
}

int admin_h_queue(struct http_request *req, struct http_response *res)
{
    struct server *s = req->app;
    char *cause = NULL;
    json_t *list = json_array();
    int rc = queue_list(s->store, queue_row, list, &cause);
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
    int rc = b.submission ? queue_rejudge_submission(s->store, b.submission, &cause)
                          : queue_rejudge_problem(s->store, b.problem, &n, &cause);
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

struct problems_arg {
    json_t *rows;
    const struct problem_set *set;
};

static void problem_row(void *arg, const struct store_problem_row *p)
{
    struct problems_arg *a = arg;
    const struct problem_entry *pe = problems_find(a->set, p->id);
    json_t *langs = json_array();
    for (int l = 0; pe && l < LANG_COUNT; l++)
        if (pe->p->languages[l])
            json_array_append_new(langs, json_string(language_name((enum language)l)));
    json_array_append_new(
        a->rows, json_pack("{s:s, s:s, s:s, s:I, s:b, s:b, s:o, s:I, s:o}", "id", p->id, "title",
                           p->title, "hash", p->hash, "loaded_at", (json_int_t)p->loaded_at,
                           "served", pe && strcmp(pe->hash, p->hash) == 0, "disabled",
                           (int)p->disabled, "disabled_reason", opt_text(p->disabled_reason),
                           "error_streak", (json_int_t)p->error_streak, "languages", langs));
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
    struct problems_arg a = {rows, set};
    int rc = store_problems_list(s->store, problem_row, &a, &cause);
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
    int rc = store_problem_set_enabled(s->store, req->params[0], b.enabled, &cause);
    if (rc == BW_ERR_NOTFOUND) {
        free(cause);
        return api_reply_error(res, 404, "not_found", NULL, "no such problem");
    }
    if (rc < 0)
        return db_trouble(res, cause);
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
    int rc = store_user_set_role(s->store, name, b.role, &cause);
    int status;
    if (rc == BW_ERR_NOTFOUND) {
        free(cause);
        status = api_reply_error(res, 404, "not_found", NULL, "no such user");
    } else if (rc < 0) {
        status = db_trouble(res, cause);
    } else {
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
