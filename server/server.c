#include "server.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "admin.h"
#include "api.h"
#include "auth.h"
#include "files.h"
#include "http.h"
#include "judgeapi.h"
#include "metrics.h"
#include "problems.h"
#include "pwhash.h"
#include "scores.h"
#include "store/queue.h"
#include "store/store.h"
#include "sse.h"
#include "submissions.h"
#include "throttle.h"
#include "common/error.h"
#include "common/language.h"
#include "common/limits.h"
#include "common/log.h"
#include "common/util.h"
#include "common/banned.h"

/* The route table's short name for the cap of small bodies (common/limits.h). */
#define SMALL_BODY BW_MAX_SMALL_BODY_BYTES

static int h_health(struct http_request *req, struct http_response *res)
{
    (void)req;
    return api_json(res, 200, json_pack("{s:b, s:i}", "ok", 1, "schema", store_schema_latest()));
}

/* The judging capacity for the web app: whether submissions will wait, and
 * on which GPUs they would run. */
static int h_status(struct http_request *req, struct http_response *res)
{
    struct server *s = req->app;
    struct queue_status q;
    char *cause = NULL;
    int rc = queue_status(s->store, (int64_t)time(NULL), s->cfg->lease_s, &q, &cause);
    if (rc < 0) {
        log_error("server: status: %s", cause ? cause : "database error");
        free(cause);
        return api_reply_error(res, 503, "unavailable", NULL, "the database is busy; try again");
    }
    json_t *gpus = json_array();
    for (size_t i = 0; i < q.n_gpus; i++)
        json_array_append_new(gpus, json_string(q.gpus[i]));
    json_t *queued = json_object(), *compiles = json_object();
    for (int l = 0; l < LANG_COUNT; l++) {
        json_t *versions = json_array();
        for (size_t i = 0; i < q.languages[l].n_versions; i++)
            json_array_append_new(versions, json_string(q.languages[l].versions[i]));
        json_object_set_new(queued, language_name((enum language)l),
                            json_pack("{s:I}", "queued", (json_int_t)q.languages[l].queued));
        json_object_set_new(
            compiles, language_name((enum language)l),
            json_pack("{s:I, s:I, s:o}", "alive", (json_int_t)q.languages[l].workers, "gpu",
                      (json_int_t)q.languages[l].gpu_workers, "versions", versions));
    }
    return api_json(res, 200,
                    json_pack("{s:{s:I, s:I, s:I, s:o}, s:{s:I, s:I, s:o, s:o}}", "queue", "queued",
                              (json_int_t)q.queued, "waiting_for_gpu", (json_int_t)q.waiting_gpu,
                              "judging", (json_int_t)q.judging, "languages", queued, "workers",
                              "alive", (json_int_t)q.workers, "gpu", (json_int_t)q.gpu_workers,
                              "gpus", gpus, "languages", compiles));
}

/* Any other GET under /api: a 404 of the API's own, not a missing static file. */
static int h_no_endpoint(struct http_request *req, struct http_response *res)
{
    return api_reply_error(res, 404, "not_found", NULL, "no API endpoint GET %.200s", req->path);
}

static const struct route routes[] = {
    {HTTP_GET, "/api/health", h_health, 0, ACCESS_PUBLIC},
    {HTTP_GET, "/api/status", h_status, 0, ACCESS_USER},
    {HTTP_POST, "/api/auth/signup", auth_h_signup, SMALL_BODY, ACCESS_PUBLIC},
    {HTTP_POST, "/api/auth/signin", auth_h_signin, SMALL_BODY, ACCESS_PUBLIC},
    {HTTP_POST, "/api/auth/signout", auth_h_signout, SMALL_BODY, ACCESS_PUBLIC},
    {HTTP_GET, "/api/me", auth_h_me, 0, ACCESS_USER},
    {HTTP_GET, "/api/me/scores", scores_h_mine, 0, ACCESS_USER},
    {HTTP_GET, "/api/tokens", auth_h_token_list, 0, ACCESS_USER},
    {HTTP_POST, "/api/tokens", auth_h_token_create, SMALL_BODY, ACCESS_USER},
    {HTTP_DELETE, "/api/tokens/{}", auth_h_token_delete, 0, ACCESS_USER},
    {HTTP_GET, "/api/problems", problems_h_list, 0, ACCESS_PUBLIC},
    {HTTP_GET, "/api/problems/{}", problems_h_get, 0, ACCESS_PUBLIC},
    {HTTP_GET, "/api/problems/{}/leaderboard", scores_h_leaderboard, 0, ACCESS_PUBLIC},
    {HTTP_POST, "/api/submissions", submissions_h_create, BW_MAX_BODY_BYTES, ACCESS_USER},
    {HTTP_GET, "/api/submissions", submissions_h_list, 0, ACCESS_USER},
    {HTTP_GET, "/api/submissions/{}", submissions_h_get, 0, ACCESS_USER},
    {HTTP_GET, "/api/submissions/{}/events", submissions_h_events, 0, ACCESS_USER},
    {HTTP_POST, "/api/submissions/{}/cancel", submissions_h_cancel, SMALL_BODY, ACCESS_USER},
    {HTTP_GET, "/api/submissions/{}/profile", submissions_h_profile, 0, ACCESS_USER},
    {HTTP_GET, "/api/gradebook.csv", scores_h_gradebook, 0, ACCESS_INSTRUCTOR},
    {HTTP_GET, "/api/admin/workers", admin_h_workers, 0, ACCESS_ADMIN},
    {HTTP_POST, "/api/admin/workers", admin_h_worker_create, SMALL_BODY, ACCESS_ADMIN},
    {HTTP_POST, "/api/admin/workers/{}/enabled", admin_h_worker_enable, SMALL_BODY, ACCESS_ADMIN},
    {HTTP_POST, "/api/admin/workers/{}/token", admin_h_worker_token, SMALL_BODY, ACCESS_ADMIN},
    {HTTP_DELETE, "/api/admin/workers/{}", admin_h_worker_delete, 0, ACCESS_ADMIN},
    {HTTP_GET, "/api/admin/queue", admin_h_queue, 0, ACCESS_ADMIN},
    {HTTP_POST, "/api/admin/rejudge", admin_h_rejudge, SMALL_BODY, ACCESS_ADMIN},
    {HTTP_GET, "/api/admin/problems", admin_h_problems, 0, ACCESS_ADMIN},
    {HTTP_POST, "/api/admin/problems/{}/enabled", admin_h_problem_enable, SMALL_BODY, ACCESS_ADMIN},
    {HTTP_POST, "/api/admin/reload", admin_h_reload, 0, ACCESS_ADMIN},
    {HTTP_POST, "/api/admin/users/{}/role", admin_h_user_role, SMALL_BODY, ACCESS_ADMIN},
    {HTTP_POST, "/api/admin/unlock", admin_h_unlock, SMALL_BODY, ACCESS_ADMIN},
    {HTTP_POST, "/api/judge/register", judgeapi_h_register, BW_MAX_REGISTER_BODY_BYTES,
     ACCESS_WORKER},
    {HTTP_POST, "/api/judge/claim", judgeapi_h_claim, SMALL_BODY, ACCESS_WORKER},
    {HTTP_POST, "/api/judge/leases/{}/progress", judgeapi_h_progress, BW_MAX_PROGRESS_BODY_BYTES,
     ACCESS_WORKER},
    {HTTP_POST, "/api/judge/leases/{}/result", judgeapi_h_result, BW_MAX_RESULT_BODY_BYTES,
     ACCESS_WORKER},
    {HTTP_POST, "/api/judge/leases/{}/internal-error", judgeapi_h_internal_error,
     BW_MAX_IERROR_BODY_BYTES, ACCESS_WORKER},
    {HTTP_POST, "/api/judge/leases/{}/release", judgeapi_h_release, SMALL_BODY, ACCESS_WORKER},
    {HTTP_GET, "/api/judge/bundles/{}", judgeapi_h_bundle, 0, ACCESS_WORKER},
    {HTTP_GET, "/metrics", metrics_h_get, 0, ACCESS_PUBLIC},
    {HTTP_GET, "/api", h_no_endpoint, 0, ACCESS_PUBLIC},
    {HTTP_GET, "/api/*", h_no_endpoint, 0, ACCESS_PUBLIC},
    {HTTP_GET, "/*", files_h_get, 0, ACCESS_PUBLIC},
};

static void on_done(void *app, const struct http_request *req, int status, enum http_end end)
{
    struct server *s = app;
    double ms = now_ms() - req->started_ms;
    const char *method = http_method_name(req->method);
    if (status == 0 && (end == HTTP_END_CLIENT_GONE || end == HTTP_END_SHUTDOWN)) {
        /* Never answered, and not for a fault of ours: a client that hung
         * up mid-body or idled out, or the server stopping. No 5xx. */
        if (end == HTTP_END_CLIENT_GONE)
            metrics_client_gone(s->metrics);
        log_debug("http: %s %s from %s: %s after %.1f ms, before the answer", method, req->path,
                  req->remote,
                  end == HTTP_END_SHUTDOWN ? "the server stopped" : "the client went away", ms);
        return;
    }
    metrics_request(s->metrics, status ? status : 500);
    /* An answer the client stopped reading (it closed an event stream) was
     * still answered: it counts as its status. */
    const char *how = end == HTTP_END_CLIENT_GONE ? " (closed by the client)" : "";
    if (status >= 500 || status == 0)
        log_warn("http: %s %s -> %d in %.1f ms from %s%s", method, req->path, status, ms,
                 req->remote, how);
    else
        log_debug("http: %s %s -> %d in %.1f ms from %s%s", method, req->path, status, ms,
                  req->remote, how);
}

void server_poke(struct server *s)
{
    pthread_mutex_lock(&s->tick_lock);
    pthread_cond_signal(&s->tick_cond);
    pthread_mutex_unlock(&s->tick_lock);
}

static void tell_positions(struct server *s)
{
    size_t n_watched = 0, n = 0;
    int64_t *watched = sse_watched(s->hub, &n_watched);
    free(watched);
    if (!n_watched)
        return;
    int64_t *ids = NULL;
    char *cause = NULL;
    int rc = queue_ids(s->store, &ids, &n, &cause);
    if (rc < 0) {
        log_error("server: queue positions: %s", cause ? cause : "error");
        free(cause);
        return;
    }
    sse_positions(s->hub, ids, n);
    free(ids);
}

static void apply_unlock(void *arg, bool address, const char *key)
{
    struct server *s = arg;
    bool was = throttle_unlock(s->signins, address ? THROTTLE_ADDRESS : THROTTLE_ACCOUNT, key);
    log_info("auth: sign-ins %s %s unlocked from the command line%s", address ? "from" : "as", key,
             was ? "" : " (they were not locked)");
}

/* Unlock requests the command line left in the database (main.c). */
static void apply_unlocks(struct server *s)
{
    char *cause = NULL;
    if (store_unlocks_take(s->store, apply_unlock, s, &cause) < 0)
        log_error("auth: unlock requests: %s", cause ? cause : "error");
    free(cause);
}

/* What the store tells every server (store.h): the queue changed (claims
 * waiting here look again; positions are told), a submission has new events
 * (its streams here read them), or the listener was away and anything may
 * have changed. Runs on the store's listener thread (PostgreSQL) or after a
 * commit of this process (SQLite). */
static void on_signal(void *arg, const char *channel, const char *payload)
{
    struct server *s = arg;
    if (!channel) {
        atomic_store(&s->queue_dirty, true);
        claims_notify(s->claims);
        sse_follow_all(s->hub);
    } else if (strcmp(channel, "queue") == 0) {
        atomic_store(&s->queue_dirty, true);
        if (strcmp(payload, "moved") != 0)
            claims_notify(s->claims);
    } else if (strcmp(channel, "events") == 0) {
        int64_t id = 0;
        char num[24];
        size_t n = strcspn(payload, ":");
        if (n > 0 && n < sizeof(num)) {
            memcpy(num, payload, n);
            num[n] = '\0';
            if (parse_i64(num, &id) && id > 0)
                sse_follow(s->hub, id);
        }
        return;
    }
    server_poke(s);
}

static void *ticker(void *arg)
{
    struct server *s = arg;
    time_t last_sweep = 0, last_prune = 0;
    while (!atomic_load(&s->stopping)) {
        struct timespec until;
        clock_gettime(CLOCK_REALTIME, &until);
        until.tv_sec += 1;
        pthread_mutex_lock(&s->tick_lock);
        if (!atomic_load(&s->stopping))
            pthread_cond_timedwait(&s->tick_cond, &s->tick_lock, &until);
        pthread_mutex_unlock(&s->tick_lock);
        if (atomic_load(&s->stopping))
            break;
        http_tick(s->http);
        judgeapi_expire(s);
        claims_tick(s->claims);
        judgeapi_tick_claims(s);
        sse_tick(s->hub, s->cfg->sse_heartbeat_s);
        if (atomic_exchange(&s->queue_dirty, false))
            tell_positions(s);
        apply_unlocks(s);
        time_t now = time(NULL);
        if (now - last_prune >= 60) {
            char *cause = NULL;
            if (store_events_prune(s->store, (int64_t)now - BW_EVENTS_KEEP_S, &cause) < 0 ||
                throttle_prune(s->signins, throttle_clock_ms(s->signins), &cause) < 0 ||
                rate_prune(s->signups, rate_clock_ms(s->signups), &cause) < 0)
                log_error("server: dropping forgotten rows: %s", cause ? cause : "error");
            free(cause);
            last_prune = now;
        }
        if (now - last_sweep >= 300) {
            auth_expire_sessions(s->store);
            last_sweep = now;
        }
    }
    return NULL;
}

int server_start(const struct server_config *cfg, struct server **out, char **cause)
{
    struct server *s = calloc(1, sizeof(*s));
    if (!s)
        return bw_fail(cause, BW_ERR_NOMEM, "out of memory");
    s->cfg = cfg;
    pthread_mutex_init(&s->tick_lock, NULL);
    pthread_cond_init(&s->tick_cond, NULL);
    struct problem_set *set = NULL;
    char *warnings = NULL;
    int rc = config_check_paths(cfg, &warnings, cause);
    for (const char *w = warnings; w && *w;) {
        size_t n = strcspn(w, "\n");
        log_warn("server: %.*s", (int)n, w);
        w += n + (w[n] == '\n');
    }
    free(warnings);
    if (rc == BW_OK)
        rc = store_open(cfg->db_path, cfg->threads + 2, &s->store, cause);
    if (rc == BW_OK)
        rc = device_key_load(s->store, s->device_key, cause);
    if (rc == BW_OK)
        rc = problems_load(cfg->problems_dir, s->store, &set, cause);
    if (rc == BW_OK && set->n == 0) {
        rc = bw_fail(cause, BW_ERR_INVALID, "problems: none of the %zu directories in %s loads%s%s",
                     set->n_failed, cfg->problems_dir, set->n_failed ? "; the first: " : "",
                     set->n_failed ? set->failed[0].error : "");
        problems_set_unref_unlocked(set);
    }
    if (rc == BW_OK) {
        struct throttle_policy tp = {cfg->signin_account_failures, cfg->signin_address_failures,
                                     cfg->signin_lockout_s, cfg->signin_window_s};
        s->problems = problems_holder_new(set);
        s->hub = sse_hub_new(s->store);
        s->claims = claims_new();
        s->metrics = metrics_new();
        /* Servers sharing a store share their throttles too (throttle.h). */
        if (store_shared(s->store)) {
            s->signins = throttle_new_shared(&tp, s->store, cause);
            s->signups = s->signins ? rate_new_shared(cfg->signup_address_limit,
                                                      cfg->signup_address_window, s->store, cause)
                                    : NULL;
        } else {
            s->signins = throttle_new(&tp);
            s->signups = rate_new(cfg->signup_address_limit, cfg->signup_address_window);
        }
        if (!s->problems || !s->hub || !s->claims || !s->metrics || !s->signins || !s->signups) {
            if (!s->problems)
                problems_set_unref_unlocked(set);
            rc = *cause ? BW_ERR_IO : bw_fail(cause, BW_ERR_NOMEM, "out of memory");
        }
    }
    /* Made now, so that the first sign-in for an unknown name costs no more
     * than the others. */
    if (rc == BW_OK && !auth_dummy_hash(cfg))
        rc = bw_fail(cause, BW_ERR_NOMEM, "password hashing ran out of memory");
    if (rc == BW_OK) {
        /* Half the CPUs by default: a flood of sign-ins leaves the other half
         * to the HTTP threads (the hashing threads also run at a lower
         * priority, pwhash.c). */
        long cpus = sysconf(_SC_NPROCESSORS_ONLN);
        int threads = cfg->pwhash_threads > 0 ? cfg->pwhash_threads
                      : cpus > 1              ? (int)(cpus / 2)
                                              : 1;
        if (!(s->pwhash = pwhash_new(cfg, threads, cfg->pwhash_queue, cause)))
            rc = BW_ERR_SYSTEM;
        else
            log_info("server: %d password hashing thread%s", threads, threads == 1 ? "" : "s");
    }
    if (rc == BW_OK) {
        struct http_options o = {cfg->listen,
                                 cfg->port,
                                 cfg->threads,
                                 cfg->max_connections,
                                 cfg->conn_timeout_s,
                                 cfg->trusted_proxies,
                                 cfg->request_deadline_s,
                                 cfg->per_address};
        rc = http_start(&o, routes, sizeof(routes) / sizeof(routes[0]), auth_access, on_done, s,
                        &s->http, cause);
    }
    if (rc == BW_OK)
        rc = store_listen(s->store, on_signal, s, cause);
    if (rc == BW_OK) {
        if (pthread_create(&s->ticker, NULL, ticker, s) != 0)
            rc = bw_fail(cause, BW_ERR_SYSTEM, "cannot start the ticker thread");
        else
            s->ticker_started = true;
    }
    if (rc < 0) {
        server_stop(s);
        return rc;
    }
    atomic_store(&s->queue_dirty, true);
    log_info("server: listening on %s port %d, database %s (schema %d), %zu problems (%zu failed)",
             cfg->listen, http_port(s->http), store_display_name(s->store), store_schema_latest(),
             set->n, set->n_failed);
    *out = s;
    return BW_OK;
}

void server_stop(struct server *s)
{
    if (!s)
        return;
    atomic_store(&s->stopping, true);
    if (s->http)
        http_quiesce(s->http);
    if (s->claims)
        claims_shutdown(s->claims);
    if (s->hub)
        sse_shutdown(s->hub);
    /* Sign-ins waiting for a hash are answered (503) rather than left suspended. */
    pwhash_stop(s->pwhash);
    if (s->ticker_started) {
        server_poke(s);
        pthread_join(s->ticker, NULL);
    }
    /* Let resumed streams and claims write their last bytes. */
    for (int i = 0; s->http && i < 200; i++) {
        if ((!s->hub || sse_streams(s->hub) == 0) && (!s->claims || claims_waiting(s->claims) == 0))
            break;
        usleep(10 * 1000);
    }
    http_stop(s->http);
    /* No signal may reach the hub or the claims after this. */
    store_unlisten(s->store);
    pwhash_free(s->pwhash);
    sse_hub_free(s->hub);
    claims_free(s->claims);
    metrics_free(s->metrics);
    throttle_free(s->signins);
    rate_free(s->signups);
    problems_holder_free(s->problems);
    store_close(s->store);
    pthread_mutex_destroy(&s->tick_lock);
    pthread_cond_destroy(&s->tick_cond);
    free(s);
}

void server_reload(struct server *s)
{
    struct problem_set *set = NULL;
    char *cause = NULL;
    if (problems_load(s->cfg->problems_dir, s->store, &set, &cause) < 0) {
        log_error("server: reload: %s; keeping the problems loaded before", cause);
        free(cause);
        return;
    }
    if (set->n == 0) {
        log_error("server: reload: none of the %zu directories in %s loads; keeping the problems "
                  "loaded before",
                  set->n_failed, s->cfg->problems_dir);
        problems_set_unref_unlocked(set);
        return;
    }
    log_info("server: reloaded problems: %zu served, %zu failed", set->n, set->n_failed);
    problems_swap(s->problems, set);
    judgeapi_queue_changed(s);
}

int server_port(const struct server *s)
{
    return http_port(s->http);
}
