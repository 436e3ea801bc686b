#include "judgeapi.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "api.h"
#include "arena.h"
#include "auth.h"
#include "bodies.h"
#include "http.h"
#include "metrics.h"
#include "server.h"
#include "sse.h"
#include "store/queue.h"
#include "store/store.h"
#include "common/error.h"
#include "common/language.h"
#include "common/limits.h"
#include "common/log.h"
#include "common/util.h"
#include "problem/bundle.h"
#include "common/banned.h"

struct waiter {
    struct http_conn *conn;
    int64_t worker; /* workers.id of the claim's worker */
    double deadline_ms;
    bool suspended;
    struct waiter *next;
};

struct claim_waiters {
    pthread_mutex_t lock;
    uint64_t gen; /* bumped by every notify */
    struct waiter *head;
    unsigned n;
    bool closing;
    double touched_ms; /* when waiting workers were last marked seen */
};

struct claim_state {
    struct waiter w;
    int64_t wait_s;
};

struct claim_waiters *claims_new(void)
{
    struct claim_waiters *cw = calloc(1, sizeof(*cw));
    if (cw)
        pthread_mutex_init(&cw->lock, NULL);
    return cw;
}

void claims_free(struct claim_waiters *cw)
{
    if (!cw)
        return;
    pthread_mutex_destroy(&cw->lock);
    free(cw);
}

/* Wakes the waiters that `pred` selects; call with the lock held. */
static void wake_where(struct claim_waiters *cw, bool all, double now)
{
    struct waiter **p = &cw->head;
    while (*p) {
        struct waiter *w = *p;
        if (all || w->deadline_ms <= now) {
            *p = w->next;
            cw->n--;
            w->suspended = false;
            http_resume(w->conn);
            continue;
        }
        p = &w->next;
    }
}

void claims_notify(struct claim_waiters *cw)
{
    pthread_mutex_lock(&cw->lock);
    cw->gen++;
    wake_where(cw, true, 0);
    pthread_mutex_unlock(&cw->lock);
}

void claims_tick(struct claim_waiters *cw)
{
    pthread_mutex_lock(&cw->lock);
    wake_where(cw, false, now_ms());
    pthread_mutex_unlock(&cw->lock);
}

void claims_shutdown(struct claim_waiters *cw)
{
    pthread_mutex_lock(&cw->lock);
    cw->closing = true;
    wake_where(cw, true, 0);
    pthread_mutex_unlock(&cw->lock);
}

unsigned claims_waiting(struct claim_waiters *cw)
{
    pthread_mutex_lock(&cw->lock);
    unsigned n = cw->n;
    pthread_mutex_unlock(&cw->lock);
    return n;
}

void judgeapi_queue_changed(struct server *s)
{
    atomic_store(&s->queue_dirty, true);
    claims_notify(s->claims);
    server_poke(s);
    store_signal_queue(s->store, true);
}

static int db_trouble(struct http_response *res, const char *what, char *cause)
{
    log_error("judge api: %s: %s", what, cause ? cause : "error");
    free(cause);
    return api_reply_error(res, 503, "unavailable", NULL, "the database is busy; try again");
}

static const char *lease_param(struct http_request *req)
{
    const char *id = req->params[0];
    size_t n = strlen(id);
    if (n < 3 || n >= 48 || strncmp(id, "l_", 2) != 0)
        return NULL;
    for (size_t i = 2; i < n; i++) {
        char c = id[i];
        if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
              c == '-' || c == '_'))
            return NULL;
    }
    return id;
}

/* The answer to a post under a lease that is no longer active: 409 either
 * way, which judged takes as "drop the job" (judge/worker/worker.c); the code tells
 * a cancelled submission ("cancelled") from an expired or given-up lease
 * ("lease_lost"). Frees cause. */
static int lease_refused(struct server *s, const struct principal *who, const char *lease,
                         struct http_response *res, char *cause)
{
    int64_t submission = 0;
    char why[96];
    bool cancelled = queue_lease_cancelled(s->store, who->id, lease, &submission, why, sizeof(why));
    int status;
    if (cancelled) {
        log_info("judge api: submission %lld: worker %s posted under lease %s after it was %s; "
                 "refused",
                 (long long)submission, who->name, lease, why);
        status =
            api_reply_error(res, 409, "cancelled", NULL, "submission %lld was %s: drop the job",
                            (long long)submission, why);
    } else {
        status = api_reply_error(res, 409, "lease_lost", NULL, "%s", cause ? cause : "lease lost");
    }
    free(cause);
    return status;
}

/* How often a worker posts progress, heartbeats included: three times a lease. */
static int heartbeat_seconds(const struct server *s)
{
    return s->cfg->lease_s / 3 > 0 ? s->cfg->lease_s / 3 : 1;
}

int judgeapi_h_register(struct http_request *req, struct http_response *res)
{
    struct server *s = req->app;
    const struct principal *who = auth_who(req);
    struct api_error e;
    struct wp_register b;
    json_t *j = body_parse_register(req->body.data, req->body.len, &b, &e);
    if (!j)
        return api_error_response(res, &e);
    char *gpu = b.gpu ? json_dumps(b.gpu, JSON_COMPACT) : NULL;
    char *cause = NULL;
    int64_t *ids = NULL;
    size_t n = 0;
    struct queue_registration r = {
        .now = (int64_t)time(NULL),
        .hostname = b.hostname,
        .version = b.version,
        .gpu_json = gpu,
        .gpu_name = b.gpu_name,
        .can_execute = b.can_execute,
        .languages = b.languages,
        .n_languages = b.n_languages,
    };
    int rc = queue_register(s->store, who->id, &r, &ids, &n, &cause);
    free(gpu);
    if (rc < 0) {
        json_decref(j);
        return db_trouble(res, "register", cause);
    }
    json_t *held = json_array();
    for (size_t i = 0; i < n; i++) {
        json_array_append_new(held, json_integer(ids[i]));
        log_warn("judge api: submission %lld: worker %s restarted while judging it; requeued",
                 (long long)ids[i], who->name);
    }
    free(ids);
    /* Always: the languages it compiles may have changed what it can claim. */
    judgeapi_queue_changed(s);
    char langs[128] = "";
    json_t *accepted = json_array();
    for (size_t i = 0; i < b.n_languages; i++) {
        const char *name = language_name(b.languages[i].language);
        size_t used = strlen(langs);
        snprintf(langs + used, sizeof(langs) - used, "%s%s%s%s", used ? ", " : "", name,
                 b.languages[i].version[0] ? " " : "", b.languages[i].version);
        json_array_append_new(accepted, json_string(name));
    }
    for (size_t i = 0; i < b.n_ignored; i++)
        log_warn("judge api: worker %s registered language \"%s\", which this server does not "
                 "know; ignored (it is offered no such jobs)",
                 who->name, b.ignored[i]);
    log_info("judge api: worker %s registered from %s (%s; compiles %s)", who->name, b.hostname,
             b.can_execute ? (b.gpu_name[0] ? b.gpu_name : "gpu") : "compile only",
             langs[0] ? langs : "nothing this server knows");
    json_decref(j);
    const struct wp_welcome welcome = {.worker_id = who->id,
                                       .worker_name = who->name,
                                       .reclaimed = held,
                                       .languages = accepted,
                                       .lease_s = s->cfg->lease_s,
                                       .heartbeat_s = heartbeat_seconds(s),
                                       .claim_wait_s = s->cfg->claim_wait_s};
    json_t *reply = wp_welcome_encode(&welcome);
    json_decref(held);
    json_decref(accepted);
    return api_json(res, 200, reply);
}

static json_t *job_json(const struct server *s, const struct job *job)
{
    const struct wp_job m = {.lease = job->lease,
                             .submission = job->submission,
                             .problem = job->problem,
                             .bundle = job->hash,
                             .mode = job->mode,
                             .language = job->language,
                             .source = job->source,
                             .source_len = strlen(job->source),
                             .seed = (uint64_t)job->seed,
                             .attempt = job->attempt,
                             .lease_s = s->cfg->lease_s,
                             .heartbeat_s = heartbeat_seconds(s)};
    return wp_job_encode(&m);
}

int judgeapi_h_claim(struct http_request *req, struct http_response *res)
{
    struct server *s = req->app;
    const struct principal *who = auth_who(req);
    struct claim_state *cs = req->state;
    char *cause = NULL;
    if (!cs) {
        struct api_error e;
        struct wp_claim b;
        json_t *j = body_parse_claim(req->body.data, req->body.len, &b, &e);
        if (!j)
            return api_error_response(res, &e);
        json_decref(j);
        cs = arena_alloc(req->arena, sizeof(*cs));
        if (!cs)
            return api_reply_error(res, 503, "unavailable", NULL, "out of memory");
        cs->wait_s =
            b.wait_s < 0 || b.wait_s > s->cfg->claim_wait_s ? s->cfg->claim_wait_s : b.wait_s;
        cs->w.conn = req->conn;
        cs->w.worker = who->id;
        cs->w.deadline_ms = now_ms() + (double)cs->wait_s * 1000.0;
        req->state = cs;
    }
    for (;;) {
        if (atomic_load(&s->stopping))
            return http_text(res, 204, NULL, "", 0);
        /* A worker that went away while this claim waited must not be
         * handed a job it will never see (its lease would only expire). */
        if (req->calls > 1 && http_peer_closed(req->conn))
            return http_text(res, 204, NULL, "", 0);
        pthread_mutex_lock(&s->claims->lock);
        uint64_t gen = s->claims->gen;
        pthread_mutex_unlock(&s->claims->lock);

        struct store_worker_state ws;
        struct job job;
        memset(&job, 0, sizeof(job));
        int rc = store_worker_state(s->store, who->id, (int64_t)time(NULL), &ws, &cause);
        bool disabled = ws.disabled, registered = ws.registered;
        if (rc >= 0 && !disabled && registered)
            rc = queue_claim(s->store, who->id, ws.can_execute, s->cfg->lease_s, &job, &cause);
        if (rc < 0)
            return db_trouble(res, "claim", cause);
        if (disabled)
            return api_reply_error(res, 403, "worker_disabled", NULL,
                                   "this worker is disabled; an admin must enable it");
        if (!registered)
            return api_reply_error(res, 409, "not_registered", NULL,
                                   "register before claiming work");
        if (rc == 1) {
            log_info("judge api: submission %lld: claimed by worker %s (%s, attempt %d)",
                     (long long)job.submission, who->name, language_title(job.language),
                     job.attempt);
            json_t *ev = json_pack("{s:I, s:s, s:s, s:i}", "id", (json_int_t)job.submission,
                                   "state", "judging", "worker", who->name, "attempt", job.attempt);
            sse_publish(s->hub, job.submission, "judging", ev, false);
            json_decref(ev);
            atomic_store(&s->queue_dirty, true);
            store_signal_queue(s->store, false);
            int st2 = api_json(res, 200, job_json(s, &job));
            job_release(&job);
            return st2;
        }
        /* Nothing to do: wait, unless the wait is over. */
        if (now_ms() >= cs->w.deadline_ms)
            return http_text(res, 204, NULL, "", 0);
        pthread_mutex_lock(&s->claims->lock);
        if (s->claims->gen != gen || s->claims->closing) {
            pthread_mutex_unlock(&s->claims->lock);
            continue; /* something happened meanwhile: look again */
        }
        cs->w.suspended = true;
        cs->w.next = s->claims->head;
        s->claims->head = &cs->w;
        s->claims->n++;
        http_suspend(req->conn);
        pthread_mutex_unlock(&s->claims->lock);
        return HTTP_SUSPENDED;
    }
}

int judgeapi_h_progress(struct http_request *req, struct http_response *res)
{
    struct server *s = req->app;
    const struct principal *who = auth_who(req);
    const char *lease = lease_param(req);
    if (!lease)
        return api_reply_error(res, 404, "not_found", NULL, "no such lease");
    struct api_error e;
    struct wp_progress b;
    json_t *j = body_parse_progress(req->body.data, req->body.len, &b, &e);
    if (!j)
        return api_error_response(res, &e);
    char *cause = NULL;
    int64_t submission = 0;
    int rc = queue_heartbeat(s->store, who->id, lease, s->cfg->lease_s, &submission, &cause);
    if (rc == BW_ERR_NOTFOUND) {
        json_decref(j);
        return lease_refused(s, who, lease, res, cause);
    }
    if (rc < 0) {
        json_decref(j);
        return db_trouble(res, "progress", cause);
    }
    size_t i, n = 0;
    json_t *ev;
    struct sse_event events[BW_MAX_EVENTS_PER_POST];
    json_array_foreach (b.events, i, ev) {
        const char *name = json_string_value(json_object_get(ev, "event"));
        /* The worker may not end the stream: only a stored result does. */
        if (strcmp(name, "done") == 0 || n == BW_MAX_EVENTS_PER_POST)
            continue;
        json_object_set_new(ev, "id", json_integer(submission));
        events[n++] = (struct sse_event){name, ev, false};
    }
    /* One append for the post: its events reach the streams together. */
    sse_publish_events(s->hub, submission, events, n);
    json_decref(j);
    return api_json(res, 200, json_pack("{s:i}", "lease_seconds", s->cfg->lease_s));
}

static json_t *done_json(int64_t id, enum verdict v, const char *message, double score,
                         double time_ms)
{
    return json_pack("{s:I, s:s, s:s, s:s, s:s, s:f, s:f}", "id", (json_int_t)id, "state", "done",
                     "verdict", verdict_code(v), "verdict_name", verdict_name(v), "message",
                     message ? message : "", "score", score, "time_ms", time_ms);
}

int judgeapi_h_result(struct http_request *req, struct http_response *res)
{
    struct server *s = req->app;
    const struct principal *who = auth_who(req);
    const char *lease = lease_param(req);
    if (!lease)
        return api_reply_error(res, 404, "not_found", NULL, "no such lease");
    struct api_error e;
    struct wp_result *b = malloc(sizeof(*b));
    if (!b)
        return api_reply_error(res, 503, "unavailable", NULL, "out of memory");
    json_t *j = body_parse_result(req->body.data, req->body.len, b, &e);
    if (!j) {
        free(b);
        return api_error_response(res, &e);
    }
    char *text = json_dumps(b->result, JSON_COMPACT);
    char *cause = NULL;
    struct stored out;
    int rc = text ? queue_store_result(s->store, who->id, lease, b, text, &out, &cause)
                  : bw_fail(&cause, BW_ERR_NOMEM, "out of memory");
    free(text);
    int status;
    if (rc == BW_ERR_NOTFOUND) {
        status = lease_refused(s, who, lease, res, cause);
    } else if (rc < 0) {
        status = db_trouble(res, "result", cause);
    } else if (out.outcome == STORED_BEFORE) {
        status = api_json(res, 200, json_pack("{s:b, s:b}", "stored", 1, "duplicate", 1));
    } else if (out.outcome == WAITING_FOR_GPU) {
        log_info("judge api: submission %lld: compiled by worker %s; waiting for a GPU worker",
                 (long long)out.submission, who->name);
        json_t *ev = json_pack("{s:I, s:s, s:s}", "id", (json_int_t)out.submission, "state",
                               "queued", "message", "compiled; waiting for a GPU worker");
        sse_publish(s->hub, out.submission, "waiting_for_gpu", ev, false);
        json_decref(ev);
        judgeapi_queue_changed(s);
        status = api_json(res, 200, json_pack("{s:b, s:b}", "stored", 1, "duplicate", 0));
    } else {
        log_info("judge api: submission %lld: %s by worker %s", (long long)out.submission,
                 verdict_code(out.verdict), who->name);
        json_t *ev = done_json(out.submission, out.verdict, b->message, out.score, out.time_ms);
        sse_publish(s->hub, out.submission, "done", ev, true);
        json_decref(ev);
        metrics_verdict(s->metrics, out.verdict, (double)(time(NULL) - out.created_at));
        status = api_json(res, 200, json_pack("{s:b, s:b}", "stored", 1, "duplicate", 0));
    }
    json_decref(j);
    free(b);
    return status;
}

int judgeapi_h_internal_error(struct http_request *req, struct http_response *res)
{
    struct server *s = req->app;
    const struct principal *who = auth_who(req);
    const char *lease = lease_param(req);
    if (!lease)
        return api_reply_error(res, 404, "not_found", NULL, "no such lease");
    struct api_error e;
    struct wp_internal_error b;
    json_t *j = body_parse_internal_error(req->body.data, req->body.len, &b, &e);
    if (!j)
        return api_error_response(res, &e);
    char *cause = NULL;
    struct failure f;
    int rc = queue_fail(s->store, who->id, lease, b.message, b.problem_fault,
                        s->cfg->worker_error_limit, s->cfg->problem_error_limit, &f, &cause);
    int status;
    if (rc == BW_ERR_NOTFOUND) {
        status = lease_refused(s, who, lease, res, cause);
    } else if (rc < 0) {
        status = db_trouble(res, "internal-error", cause);
    } else {
        log_warn("judge api: submission %lld: internal error on worker %s: %s",
                 (long long)f.submission, who->name, b.message);
        if (f.worker_disabled)
            log_error("judge api: worker %s disabled after %d internal errors in a row", who->name,
                      s->cfg->worker_error_limit);
        if (f.problem_disabled)
            log_error("judge api: problem %s disabled after repeated internal errors", f.problem);
        if (f.judge_error) {
            json_t *ev = done_json(f.submission, VERDICT_JUDGE_ERROR, b.message, 0, 0);
            sse_publish(s->hub, f.submission, "done", ev, true);
            json_decref(ev);
            metrics_verdict(s->metrics, VERDICT_JUDGE_ERROR, -1);
        } else {
            json_t *ev = json_pack("{s:I, s:s, s:s}", "id", (json_int_t)f.submission, "state",
                                   "queued", "message", "the judge failed; trying again");
            sse_publish(s->hub, f.submission, "requeued", ev, false);
            json_decref(ev);
        }
        judgeapi_queue_changed(s);
        status =
            api_json(res, 200,
                     json_pack("{s:b, s:b, s:b}", "judge_error", f.judge_error, "worker_disabled",
                               f.worker_disabled, "problem_disabled", f.problem_disabled));
    }
    json_decref(j);
    return status;
}

int judgeapi_h_release(struct http_request *req, struct http_response *res)
{
    struct server *s = req->app;
    const struct principal *who = auth_who(req);
    const char *lease = lease_param(req);
    if (!lease)
        return api_reply_error(res, 404, "not_found", NULL, "no such lease");
    char *cause = NULL;
    int64_t submission = 0;
    int rc = queue_release(s->store, who->id, lease, &submission, &cause);
    if (rc == BW_ERR_NOTFOUND)
        return lease_refused(s, who, lease, res, cause);
    if (rc < 0)
        return db_trouble(res, "release", cause);
    log_info("judge api: submission %lld: given back by worker %s", (long long)submission,
             who->name);
    json_t *ev = json_pack("{s:I, s:s, s:s}", "id", (json_int_t)submission, "state", "queued",
                           "message", "the worker stopped; waiting for another");
    sse_publish(s->hub, submission, "requeued", ev, false);
    json_decref(ev);
    judgeapi_queue_changed(s);
    return http_text(res, 204, NULL, "", 0);
}

int judgeapi_h_bundle(struct http_request *req, struct http_response *res)
{
    struct server *s = req->app;
    const char *hash = req->params[0];
    if (!bundle_hash_ok(hash))
        return api_reply_error(res, 404, "not_found", NULL, "no such bundle");
    char *cause = NULL;
    void *data = NULL;
    size_t len = 0;
    int rc = store_bundle(s->store, hash, &data, &len, &cause);
    if (rc == BW_ERR_NOTFOUND) {
        free(cause);
        return api_reply_error(res, 404, "not_found", NULL, "no such bundle");
    }
    if (rc < 0)
        return db_trouble(res, "bundle", cause);
    int status = http_text(res, 200, "application/json", data, len);
    free(data);
    http_add_header(req, res, "Cache-Control", "public, max-age=31536000, immutable");
    return status;
}

void judgeapi_tick_claims(struct server *s)
{
    struct claim_waiters *cw = s->claims;
    double now = now_ms();
    int64_t *ids = NULL;
    size_t n = 0;
    pthread_mutex_lock(&cw->lock);
    bool touch = now - cw->touched_ms >= (s->cfg->lease_s / 3 > 0 ? s->cfg->lease_s / 3 : 1) * 1e3;
    if (touch && cw->n > 0)
        ids = malloc(cw->n * sizeof(*ids));
    struct waiter **p = &cw->head;
    while (*p) {
        struct waiter *w = *p;
        if (http_peer_closed(w->conn)) {
            /* Its handler runs again, sees the peer gone and ends the claim. */
            *p = w->next;
            cw->n--;
            w->suspended = false;
            http_resume(w->conn);
            continue;
        }
        if (ids)
            ids[n++] = w->worker;
        p = &w->next;
    }
    if (touch)
        cw->touched_ms = now;
    pthread_mutex_unlock(&cw->lock);
    if (n > 0)
        store_workers_seen(s->store, ids, n, (int64_t)time(NULL), NULL);
    free(ids);
}

void judgeapi_requeued(struct server *s, const int64_t *ids, size_t n, const char *message)
{
    for (size_t i = 0; i < n; i++) {
        json_t *ev = json_pack("{s:I, s:s, s:s}", "id", (json_int_t)ids[i], "state", "queued",
                               "message", message);
        sse_publish(s->hub, ids[i], "requeued", ev, false);
        json_decref(ev);
    }
    if (n)
        judgeapi_queue_changed(s);
}

void judgeapi_expire(struct server *s)
{
    int64_t *ids = NULL, *done = NULL;
    size_t n = 0, n_done = 0;
    char *cause = NULL;
    int rc = queue_expire(s->store, (int64_t)time(NULL), &ids, &n, &done, &n_done, &cause);
    if (rc < 0) {
        log_error("judge api: expiring leases: %s", cause ? cause : "error");
        free(cause);
        return;
    }
    for (size_t i = 0; i < n; i++) {
        log_warn("judge api: submission %lld: its worker sent no heartbeat for %d s (lost); "
                 "requeued",
                 (long long)ids[i], s->cfg->lease_s);
        json_t *ev = json_pack("{s:I, s:s, s:s}", "id", (json_int_t)ids[i], "state", "queued",
                               "message", "the worker stopped answering; judging again");
        sse_publish(s->hub, ids[i], "requeued", ev, false);
        json_decref(ev);
    }
    for (size_t i = 0; i < n_done; i++) {
        log_error("judge api: submission %lld: Judge Error after %d attempts", (long long)done[i],
                  BW_JUDGE_ATTEMPTS);
        json_t *ev = done_json(done[i], VERDICT_JUDGE_ERROR,
                               "judging failed 3 times: the worker stopped answering", 0, 0);
        sse_publish(s->hub, done[i], "done", ev, true);
        json_decref(ev);
        metrics_verdict(s->metrics, VERDICT_JUDGE_ERROR, -1);
    }
    if (n || n_done)
        judgeapi_queue_changed(s);
    free(ids);
    free(done);
}
