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
#include "http.h"
#include "judgeapi.h"
#include "metrics.h"
#include "problems.h"
#include "server.h"
#include "sse.h"
#include "store/queue.h"
#include "store/store.h"
#include "common/error.h"
#include "common/json_reader.h"
#include "common/language.h"
#include "common/limits.h"
#include "common/log.h"
#include "common/util.h"
#include "problem/problem.h"
#include "common/banned.h"

#define IN_FLIGHT_RETRY_S 10

static json_t *window_json(int64_t used, int64_t oldest, int limit, int window, int64_t now)
{
    int64_t left = limit - used;
    int64_t resets = oldest ? oldest + window - now : 0;
    return json_pack("{s:i, s:I, s:I, s:i, s:I}", "limit", limit, "used", (json_int_t)used,
                     "remaining", (json_int_t)(left > 0 ? left : 0), "window_seconds", window,
                     "resets_in_seconds", (json_int_t)(resets > 0 ? resets : 0));
}

int submissions_quota_json(struct server *s, int64_t user, json_t **out, char **cause)
{
    int64_t now = (int64_t)time(NULL);
    struct store_quota q;
    struct in_flight fl;
    int rc = store_quota_use(s->store, user, now - s->cfg->quota_window_s, &q, cause);
    if (rc == BW_OK)
        rc = queue_in_flight(s->store, user, now, s->cfg->lease_s, &fl, cause);
    if (rc < 0)
        return rc;
    *out = json_pack(
        "{s:o, s:o, s:o, s:{s:i, s:I, s:I, s:b, s:I}}", "run",
        window_json(q.run_used, q.run_oldest, s->cfg->quota_run, s->cfg->quota_window_s, now),
        "submit",
        window_json(q.submit_used, q.submit_oldest, s->cfg->quota_submit, s->cfg->quota_window_s,
                    now),
        "profile",
        window_json(q.profile_used, q.profile_oldest, s->cfg->quota_profile, s->cfg->quota_window_s,
                    now),
        "in_flight", "limit", s->cfg->quota_in_flight, "used", (json_int_t)fl.counted,
        "waiting_for_gpu", (json_int_t)fl.waiting_gpu, "waiting_counted", fl.gpu_connected,
        "waiting_for_language", (json_int_t)fl.waiting_language);
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

/* The request's Idempotency-Key into *key (NULL without one): 1 to 128
 * printable ASCII characters, no spaces. Else an error reply's status. */
static int idempotency_key(struct http_request *req, struct http_response *res, const char **key)
{
    const char *k = http_header(req, "Idempotency-Key");
    *key = k;
    if (!k)
        return 0;
    size_t n = strlen(k);
    bool printable = n > 0;
    for (size_t i = 0; i < n && printable; i++)
        printable = k[i] > ' ' && k[i] < 0x7f;
    if (n > BW_IDEMPOTENCY_KEY_MAX || !printable)
        return api_reply_error(res, 400, "invalid", "Idempotency-Key",
                               "Idempotency-Key: 1 to %d printable ASCII characters without "
                               "spaces (a UUID, say)",
                               BW_IDEMPOTENCY_KEY_MAX);
    return 0;
}

/* What a post asked for, as 64 hex digits: the same key sent again must ask
 * for the same thing. */
static void request_hash(const char *problem, const char *mode, const char *language,
                         const char *source, char hex[65])
{
    crypto_generichash_state h;
    unsigned char out[32];
    const char *parts[] = {problem, mode, language, source};
    crypto_generichash_init(&h, NULL, 0, sizeof(out));
    for (size_t i = 0; i < sizeof(parts) / sizeof(parts[0]); i++)
        crypto_generichash_update(&h, (const unsigned char *)parts[i], strlen(parts[i]) + 1);
    crypto_generichash_final(&h, out, sizeof(out));
    sodium_bin2hex(hex, 65, out, sizeof(out));
}

static int reply_replayed(struct http_request *req, struct http_response *res, int64_t id);

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
    const char *key = NULL;
    int key_status = idempotency_key(req, res, &key);
    if (key_status) {
        json_decref(j);
        return key_status;
    }
    const char *language = language_name(b.language);
    const char *mode = wp_mode_name(b.mode);
    char asked[65];
    request_hash(b.problem, mode, language, b.source, asked);
    int limit = b.mode == WP_SUBMIT    ? s->cfg->quota_submit
                : b.mode == WP_PROFILE ? s->cfg->quota_profile
                                       : s->cfg->quota_run;
    int64_t now = (int64_t)time(NULL), id = 0, pos = 0, seed = 0;
    char *cause = NULL;
    int status = 0;
    randombytes_buf(&seed, sizeof(seed));
    seed &= INT64_MAX;
    if (seed == 0)
        seed = 1;
    struct store_new_submission in = {
        .user = who->id,
        .problem = b.problem,
        .hash = hash,
        .mode = mode,
        .language = language,
        .source = b.source,
        .seed = seed,
        .now = now,
        .window_since = now - s->cfg->quota_window_s,
        .limit = limit,
        .in_flight_limit = s->cfg->quota_in_flight,
        .lease_s = s->cfg->lease_s,
        .idempotency_key = key,
        .request_hash = key ? asked : NULL,
    };
    struct store_created made;
    int rc = store_submission_create(s->store, &in, &made, &cause);
    if (rc == BW_OK && made.outcome == CREATE_REPLAYED) {
        json_decref(j);
        return reply_replayed(req, res, made.id);
    }
    if (rc == BW_OK && made.outcome == CREATE_KEY_REUSED) {
        status = api_reply_error(res, 422, "idempotency_key_reused", "Idempotency-Key",
                                 "Idempotency-Key: you used this key for submission %lld, which "
                                 "asked for something else; send a new key with a new post",
                                 (long long)made.id);
    } else if (rc == BW_OK && made.outcome == CREATE_PROBLEM_DISABLED) {
        status =
            api_reply_error(res, 409, "problem_disabled", "problem",
                            "problem: \"%s\" is disabled until an admin looks at it", b.problem);
    } else if (rc == BW_OK && made.outcome == CREATE_IN_FLIGHT_FULL) {
        char msg[160];
        snprintf(msg, sizeof(msg), "at most %d of your submissions may wait or be judged at once",
                 s->cfg->quota_in_flight);
        status = too_many(req, res, IN_FLIGHT_RETRY_S, msg);
    } else if (rc == BW_OK && made.outcome == CREATE_QUOTA_USED) {
        char msg[160];
        if (limit ==
            0) /* an admin switched the mode off (quota_run, quota_submit, quota_profile) */
            snprintf(msg, sizeof(msg), "%s quota is 0 on this server: it takes no %s submissions",
                     mode, mode);
        else
            snprintf(msg, sizeof(msg), "%s quota used up: %d per %d seconds", mode, limit,
                     s->cfg->quota_window_s);
        status = too_many(req, res, made.oldest + s->cfg->quota_window_s - now, msg);
    } else if (rc == BW_OK) {
        id = made.id;
    }
    json_t *quota = NULL;
    if (rc == BW_OK && status == 0)
        rc = queue_position(s->store, id, &pos, &cause);
    if (rc == BW_OK && status == 0)
        rc = submissions_quota_json(s, who->id, &quota, &cause);
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
    metrics_submission(s->metrics, b.mode);
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

static json_t *opt_text(const char *v)
{
    return v ? json_string(v) : json_null();
}

/* The summary of a submission. A cancelled submission is state "cancelled"
 * (in the database it is 'done': schema.sql, migration 2). */
static json_t *summary(const struct store_submission *r)
{
    enum verdict verdict = r->verdict ? verdict_parse(r->verdict) : VERDICT_NONE;
    bool cancelled = r->cancelled_at != 0;
    json_t *cancel =
        cancelled ? json_pack("{s:o, s:I, s:o}", "by", opt_text(r->cancelled_by), "at",
                              (json_int_t)r->cancelled_at, "from", opt_text(r->cancelled_from))
                  : json_null();
    return json_pack(
        "{s:I, s:s, s:s, s:s, s:s, s:s, s:o, s:o, s:o, s:o, s:o, s:I, s:o, s:o, s:I, s:I, "
        "s:b, s:o, s:o}",
        "id", (json_int_t)r->id, "user", r->user, "problem", r->problem, "mode", r->mode,
        "language", r->language, "state", cancelled ? "cancelled" : r->state, "verdict",
        opt_text(r->verdict), "verdict_name",
        r->verdict ? json_string(verdict_name(verdict)) : json_null(), "message",
        opt_text(r->message), "score", r->has_score ? json_real(r->score) : json_null(), "time_ms",
        r->has_time ? json_real(r->time_ms) : json_null(), "created_at", (json_int_t)r->created_at,
        "judged_at", r->has_judged ? json_integer(r->judged_at) : json_null(), "gpu",
        opt_text(r->gpu), "position", (json_int_t)r->position, "attempts", (json_int_t)r->attempts,
        "waiting_for_gpu", r->needs_gpu && r->position > 0, "cancelled", cancel, "pytorch_speedup",
        r->has_pytorch ? json_real(r->pytorch_speedup) : json_null());
}

/* What a read of one submission keeps: its JSON (summary, or full with the
 * source and result), its owner, and whether it is finished. */
struct one {
    bool full;
    json_t *body; /* new */
    int64_t owner;
    bool done;
};

static void one_row(void *arg, const struct store_submission *r)
{
    struct one *o = arg;
    o->owner = r->owner;
    o->done = strcmp(r->state, "done") == 0; /* judged or cancelled */
    o->body = summary(r);
    if (o->full && o->body) {
        json_object_set_new(o->body, "source", json_string(r->source));
        json_t *result = r->result ? json_loads(r->result, 0, NULL) : NULL;
        json_object_set_new(o->body, "result", result ? result : json_null());
    }
}

/* Reads submission `id` if the principal may read it; BW_ERR_NOTFOUND otherwise. */
static int load_visible(struct server *s, const struct principal *who, int64_t id, struct one *o,
                        char **cause)
{
    return store_submission_get(s->store, id, who->id, who->role >= USER_INSTRUCTOR, one_row, o,
                                cause);
}

/* A post sent again with its Idempotency-Key: 200 with the submission its
 * first post made, as it is now (the summary of the list, with the quotas as
 * a 201 has them), and Idempotent-Replayed: true. No event, no quota used. */
static int reply_replayed(struct http_request *req, struct http_response *res, int64_t id)
{
    struct server *s = req->app;
    const struct principal *who = auth_who(req);
    char *cause = NULL;
    struct one o = {.full = false};
    json_t *quota = NULL;
    int rc = load_visible(s, who, id, &o, &cause);
    if (rc == BW_OK)
        rc = submissions_quota_json(s, who->id, &quota, &cause);
    if (rc < 0) {
        json_decref(o.body);
        return db_trouble(res, "replay", cause);
    }
    json_object_set_new(o.body, "quota", quota);
    char *loc = arena_printf(req->arena, "/api/submissions/%lld", (long long)id);
    if (loc)
        http_add_header(req, res, "Location", loc);
    http_add_header(req, res, "Idempotent-Replayed", "true");
    log_info("submissions: submission %lld: posted again by %s (Idempotency-Key); answered with "
             "it",
             (long long)id, who->name);
    return api_json(res, 200, o.body);
}

static int parse_id(const char *s, int64_t *id)
{
    return parse_i64(s, id) && *id > 0 ? BW_OK : BW_ERR_INVALID;
}

/* The submission the request's path names (its id in *id), read into *o when
 * the principal may see it. 0, or the status of the error reply made: 404 for
 * an id that is no submission or not the principal's to see, 503 when the
 * database failed (`what` names the request in the log). */
static int load_requested(struct http_request *req, struct http_response *res, const char *what,
                          int64_t *id, struct one *o)
{
    if (parse_id(req->params[0], id) < 0)
        return api_reply_error(res, 404, "not_found", NULL, "no such submission");
    char *cause = NULL;
    int rc = load_visible(req->app, auth_who(req), *id, o, &cause);
    if (rc == BW_ERR_NOTFOUND) {
        free(cause);
        return api_reply_error(res, 404, "not_found", NULL, "no such submission");
    }
    if (rc < 0)
        return db_trouble(res, what, cause);
    return 0;
}

int submissions_h_get(struct http_request *req, struct http_response *res)
{
    int64_t id;
    struct one o = {.full = true};
    int status = load_requested(req, res, "read", &id, &o);
    return status ? status : api_json(res, 200, o.body);
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
    struct one o = {.full = false};
    int rc = load_visible(s, who, id, &o, &cause);
    json_decref(o.body);
    if (rc == BW_OK && o.owner != who->id && who->role < USER_ADMIN)
        status = api_reply_error(res, 403, "forbidden", NULL,
                                 "only the submission's owner or an admin may cancel it");
    if (rc == BW_OK && status == 0)
        rc = queue_cancel(s->store, id, who->id, who->name, &cx, &cause);
    if (rc == BW_OK && status == 0) {
        /* Committed: a failure to read it back only shortens the answer. */
        char *why = NULL;
        struct one back = {.full = false};
        if (load_visible(s, who, id, &back, &why) == BW_OK)
            body = back.body;
        else
            log_warn("submissions: submission %lld: cancelled, but reading it back failed: %s",
                     (long long)id, why ? why : "error");
        free(why);
    }
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

static void list_row(void *arg, const struct store_submission *r)
{
    json_array_append_new(arg, summary(r));
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
    struct store_submission_filter f = {
        .before = before,
        .limit = limit,
        .problem = problem,
        .language = language,
        .everyone = everyone,
        .user = everyone ? "*" : user,
        .viewer = who->id,
    };
    int rc = store_submissions_list(s->store, &f, list_row, list, &cause);
    if (rc < 0) {
        json_decref(list);
        return db_trouble(res, "list", cause);
    }
    return api_json(res, 200, json_pack("{s:o}", "submissions", list));
}

int submissions_h_events(struct http_request *req, struct http_response *res)
{
    struct server *s = req->app;
    int64_t id, last_id = -1;
    struct one o = {.full = false};
    int status = load_requested(req, res, "events", &id, &o);
    if (status)
        return status;
    const char *last = http_header(req, "Last-Event-ID");
    if (last && (!parse_i64(last, &last_id) || last_id < 0))
        last_id = -1;
    status = sse_open(s->hub, req, res, id, o.body, o.done, last_id);
    json_decref(o.body);
    if (status != 200)
        return api_reply_error(res, 503, "unavailable", NULL, "out of memory");
    return status;
}

/* Why a Profile that can be read has no profile to hand out (a sentence for the 404). */
static void no_profile_why(json_t *sub, int64_t id, char *out, size_t n)
{
    const char *state = json_string_value(json_object_get(sub, "state"));
    const char *verdict = json_string_value(json_object_get(sub, "verdict_name"));
    json_t *result = json_object_get(sub, "result");

    if (state && strcmp(state, "cancelled") == 0)
        snprintf(out, n, "submission %lld was cancelled before it was profiled", (long long)id);
    else if (!json_is_object(result) && json_is_true(json_object_get(sub, "waiting_for_gpu")))
        snprintf(out, n, "submission %lld has no profile yet: it compiled and waits for a GPU",
                 (long long)id);
    else if (!json_is_object(result))
        snprintf(out, n, "submission %lld has no profile yet: it is %s", (long long)id,
                 state && strcmp(state, "judging") == 0 ? "being judged" : "queued");
    else
        snprintf(out, n,
                 "submission %lld has no profile: it ended %s before the profiler ran (it runs "
                 "only once the tests ran to the end without a crash)",
                 (long long)id, verdict ? verdict : "without a verdict");
}

int submissions_h_profile(struct http_request *req, struct http_response *res)
{
    int64_t id;
    struct one o = {.full = true};
    int status = load_requested(req, res, "profile", &id, &o);
    if (status)
        return status;
    json_t *sub = o.body;
    const char *mode = json_string_value(json_object_get(sub, "mode"));
    json_t *result = json_object_get(sub, "result");
    json_t *profile = json_is_object(result) ? json_object_get(result, "profile") : NULL;
    if (!mode || strcmp(mode, "profile") != 0) {
        status =
            api_reply_error(res, 404, "not_found", NULL,
                            "submission %lld is a %s, not a Profile: only a Profile has a "
                            "profile (\"mode\": \"profile\")",
                            (long long)id, mode && strcmp(mode, "submit") == 0 ? "Submit" : "Run");
    } else if (!json_is_object(profile)) {
        char why[256];
        no_profile_why(sub, id, why, sizeof(why));
        status = api_reply_error(res, 404, "not_found", NULL, "%s", why);
    } else {
        /* The profile with what it is of, so that a downloaded file says so by itself. */
        json_t *body = json_pack(
            "{s:O, s:O, s:O, s:O, s:O, s:O, s:O, s:O}", "submission", json_object_get(sub, "id"),
            "user", json_object_get(sub, "user"), "problem", json_object_get(sub, "problem"),
            "language", json_object_get(sub, "language"), "verdict",
            json_object_get(sub, "verdict"), "judged_at", json_object_get(sub, "judged_at"), "gpu",
            json_is_object(json_object_get(result, "gpu")) ? json_object_get(result, "gpu")
                                                           : json_null(),
            "profile", profile);
        char *text = body ? json_dumps(body, JSON_INDENT(1)) : NULL;
        json_decref(body);
        if (!text) {
            json_decref(sub);
            return api_reply_error(res, 503, "unavailable", NULL, "out of memory");
        }
        char name[80];
        snprintf(name, sizeof(name), "attachment; filename=\"profile-%lld.json\"", (long long)id);
        http_add_header(req, res, "Content-Disposition", name);
        status = http_text(res, 200, "application/json", text, strlen(text));
        free(text);
    }
    json_decref(sub);
    return status;
}
