#include "worker.h"

#include <errno.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <cuda.h> /* CUDA_VERSION: the toolkit's, whose NVRTC compiles */
#include <curl/curl.h>
#include <jansson.h>

#include "baseline.h"
#include "judge.h"
#include "report.h"
#include "wire/worker_proto.h"
#include "common/buf.h"
#include "common/error.h"
#include "common/language.h"
#include "common/limits.h"
#include "common/log.h"
#include "common/util.h"
#include "problem/bundle.h"
#include "problem/problem.h"
#include "common/banned.h"

#define WORKER_VERSION "1"

struct cached_problem {
    char hash[65];
    struct problem *p; /* owned */
    uint64_t used;
    int users; /* slots judging with it now: not evicted while > 0 */
};

/* What every slot shares: the server, the registration, the problem cache. */
struct worker {
    const struct worker_config *wc;
    struct judge_config *jc;
    char *base;                    /* owned: server URL without a trailing slash */
    char *authz;                   /* owned: "Authorization: Bearer ..." */
    char *cache_dir;               /* owned: where bundles go */
    pthread_mutex_t register_lock; /* one registration at a time */
    pthread_mutex_t lock;          /* guards everything below */
    int heartbeat_s;
    int lease_s;
    struct cached_problem problems[BW_WORKER_PROBLEMS];
    uint64_t tick;
    int jobs;           /* jobs finished (for max_jobs) */
    int busy;           /* slots judging a job now */
    bool done;          /* max_jobs reached, or a slot abandoned a job: every slot returns */
    int register_rc;    /* a failed re-registration (a refused token) ends the worker */
    char *register_why; /* owned: its reason */
};

/* One job at a time: a thread with its own connection to the server. */
struct slot {
    struct worker *w;
    int index;
    CURL *curl;
    int backoff_s;
    bool abort_on_stop; /* the request in flight may be cut short by a stop */
};

/* What the judge thread shares with the main thread. */
struct job_run {
    pthread_mutex_t lock;
    pthread_cond_t finished_cond; /* signalled when finished is set (CLOCK_MONOTONIC) */
    json_t *events;               /* array of pending events (new references) */
    bool finished;
    int rc;
    char *cause;
    struct judge_result result;
    /* inputs, owned by the main thread until the run is joined or abandoned */
    struct judge_config *jc;
    const struct problem *p;
    char *source;
    size_t len;
    char job[48];       /* "submission 42", what the judge's log lines name */
    atomic_bool cancel; /* the lease is gone: the judge stops early */
    struct judge_options opts;
};

/* SIGTERM: finish or give back the job at hand, claim no more. */
static bool stop_requested(const struct worker *w)
{
    return w->wc->stop && *w->wc->stop;
}

/* No more claims: stopped, or max_jobs reached. */
static bool stopping(struct worker *w)
{
    bool done;

    pthread_mutex_lock(&w->lock);
    done = w->done;
    pthread_mutex_unlock(&w->lock);
    return done || stop_requested(w);
}

/* Sleeps up to `s` seconds, waking early when asked to stop. */
static void nap(struct worker *w, double s)
{
    double until = now_ms() + s * 1000.0;
    while (!stopping(w) && now_ms() < until)
        usleep(100 * 1000);
}

static void backoff(struct slot *sl, const char *why)
{
    log_warn("worker: %s; retrying in %d s", why, sl->backoff_s);
    nap(sl->w, sl->backoff_s);
    sl->backoff_s =
        sl->backoff_s * 2 > sl->w->wc->max_backoff_s ? sl->w->wc->max_backoff_s : sl->backoff_s * 2;
}

static size_t on_body(char *data, size_t size, size_t n, void *arg)
{
    struct buf *b = arg;
    if (buf_append(b, data, size * n) < 0)
        return 0; /* over the cap: curl fails the transfer */
    return size * n;
}

/* Aborts a transfer (a claim long-poll) when the worker is told to stop. */
static int on_progress(void *arg, curl_off_t a, curl_off_t b, curl_off_t c, curl_off_t d)
{
    (void)a;
    (void)b;
    (void)c;
    (void)d;
    struct slot *sl = arg;
    return sl->abort_on_stop && stopping(sl->w) ? 1 : 0;
}

/*
 * One HTTP exchange. method "GET" or "POST" (body: JSON, borrowed; NULL: none).
 * Returns BW_OK with *status set whenever the server answered (any status);
 * BW_ERR_IO when it could not be reached. The reply body is in *reply (new;
 * "" when empty), capped at `max` bytes.
 */
static int exchange(struct slot *sl, const char *method, const char *path, json_t *body,
                    long timeout_s, size_t max, long *status, char **reply, char **cause)
{
    struct worker *w = sl->w;
    char *url = NULL, *text = NULL;
    struct buf in;
    struct curl_slist *headers = NULL;
    int rc = BW_OK;
    buf_init(&in, max);
    size_t n = strlen(w->base) + strlen(path) + 1;
    url = malloc(n);
    if (!url)
        return bw_fail(cause, BW_ERR_NOMEM, "out of memory");
    snprintf(url, n, "%s%s", w->base, path);
    if (body) {
        text = json_dumps(body, JSON_COMPACT);
        if (!text) {
            rc = bw_fail(cause, BW_ERR_NOMEM, "out of memory");
            goto out_url;
        }
    }
    headers = curl_slist_append(headers, w->authz);
    headers = curl_slist_append(headers, "Content-Type: application/json");
    headers = curl_slist_append(headers, "Expect:");
    CURL *c = sl->curl;
    curl_easy_reset(c);
    curl_easy_setopt(c, CURLOPT_URL, url);
    curl_easy_setopt(c, CURLOPT_HTTPHEADER, headers);
    curl_easy_setopt(c, CURLOPT_WRITEFUNCTION, on_body);
    curl_easy_setopt(c, CURLOPT_WRITEDATA, &in);
    curl_easy_setopt(c, CURLOPT_TIMEOUT, timeout_s);
    curl_easy_setopt(c, CURLOPT_CONNECTTIMEOUT, (long)BW_WORKER_CONNECT_S);
    curl_easy_setopt(c, CURLOPT_NOSIGNAL, 1L);
    curl_easy_setopt(c, CURLOPT_NOPROGRESS, 0L);
    curl_easy_setopt(c, CURLOPT_XFERINFOFUNCTION, on_progress);
    curl_easy_setopt(c, CURLOPT_XFERINFODATA, sl);
    curl_easy_setopt(c, CURLOPT_USERAGENT, "judged/" WORKER_VERSION);
    if (strcmp(method, "POST") == 0) {
        curl_easy_setopt(c, CURLOPT_POST, 1L);
        curl_easy_setopt(c, CURLOPT_POSTFIELDS, text ? text : "");
        curl_easy_setopt(c, CURLOPT_POSTFIELDSIZE, (long)(text ? strlen(text) : 0));
    }
    CURLcode cr = curl_easy_perform(c);
    if (cr != CURLE_OK) {
        rc = bw_fail(cause, BW_ERR_IO, "%s %s: %s", method, path, curl_easy_strerror(cr));
        goto out_headers;
    }
    curl_easy_getinfo(c, CURLINFO_RESPONSE_CODE, status);
    *reply = buf_detach(&in);
    if (!*reply)
        rc = bw_fail(cause, BW_ERR_NOMEM, "out of memory");
out_headers:
    curl_slist_free_all(headers);
    buf_release(&in);
    free(text);
out_url:
    free(url);
    return rc;
}

/* As exchange() for a JSON reply: *reply is the parsed body (new) or NULL. */
static int exchange_json(struct slot *sl, const char *method, const char *path, json_t *body,
                         long timeout_s, long *status, json_t **reply, char **cause)
{
    char *text = NULL;
    *reply = NULL;
    int rc =
        exchange(sl, method, path, body, timeout_s, BW_WORKER_REPLY_BYTES, status, &text, cause);
    if (rc < 0)
        return rc;
    if (*text)
        *reply = json_loads(text, 0, NULL);
    free(text);
    return BW_OK;
}

/* The server's error message in a reply, or "HTTP N". */
static const char *error_text(json_t *reply, long status, char *tmp, size_t n)
{
    const char *m = json_string_value(json_object_get(json_object_get(reply, "error"), "message"));
    if (m)
        return m;
    snprintf(tmp, n, "HTTP %ld", status);
    return tmp;
}

/* The register message: the host, CUDA always, at the toolkit judged is built
 * with (its NVRTC compiles), then each language the judge found
 * (jc->languages: Triton when triton_probe() found it), and the GPU's figures.
 * The server offers this worker jobs in these languages only. A *new* object. */
static json_t *register_json(const struct worker *w, const char *host)
{
    struct wp_register m = {.hostname = host,
                            .version = WORKER_VERSION,
                            .can_execute = w->jc->have_gpu,
                            .gpu = w->jc->have_gpu ? gpu_info_json(&w->jc->gpu) : NULL};
    char cuda[16];
    json_t *body;

    snprintf(cuda, sizeof(cuda), "%d.%d", CUDA_VERSION / 1000, CUDA_VERSION % 1000 / 10);
    m.languages[m.n_languages++] = (struct wp_language){LANG_CUDA, cuda};
    for (int l = 0; l < LANG_COUNT; l++)
        if (l != LANG_CUDA && w->jc->languages[l].available)
            m.languages[m.n_languages++] =
                (struct wp_language){(enum language)l, w->jc->languages[l].version};
    body = wp_register_encode(&m);
    json_decref(m.gpu);
    return body;
}

/* Registers until it works; BW_ERR_INVALID when the token is refused. */
static int do_register(struct slot *sl, char **cause)
{
    struct worker *w = sl->w;
    char host[256] = "";
    if (w->wc->hostname)
        snprintf(host, sizeof(host), "%s", w->wc->hostname);
    else if (gethostname(host, sizeof(host) - 1) != 0 || !host[0])
        snprintf(host, sizeof(host), "unknown");
    json_t *body = register_json(w, host);
    if (!body)
        return bw_fail(cause, BW_ERR_NOMEM, "out of memory");
    int rc = BW_OK;
    while (!stopping(w)) {
        long status = 0;
        json_t *reply = NULL;
        char *err = NULL, tmp[32];
        sl->abort_on_stop = true;
        rc = exchange_json(sl, "POST", "/api/judge/register", body, BW_WORKER_HTTP_S, &status,
                           &reply, &err);
        sl->abort_on_stop = false;
        struct wp_welcome welcome;
        struct json_reader jr;
        json_reader_init(&jr, JSON_READER_NULL_IS_ABSENT);
        if (rc == BW_OK && status == 200 && wp_welcome_decode(reply, &welcome, &jr) == BW_OK) {
            pthread_mutex_lock(&w->lock);
            w->lease_s = welcome.lease_s > 0 ? welcome.lease_s : BW_WORKER_LEASE_S;
            w->heartbeat_s = welcome.heartbeat_s > 0 ? welcome.heartbeat_s : BW_WORKER_LEASE_S / 3;
            pthread_mutex_unlock(&w->lock);
            size_t n = json_array_size(welcome.reclaimed);
            log_info("worker: registered with %s as %s (%s)%s", w->base, welcome.worker_name,
                     w->jc->have_gpu ? w->jc->gpu.name : "compile only, no GPU",
                     n ? "; the jobs held before a restart went back to the queue" : "");
            json_decref(reply);
            free(err);
            sl->backoff_s = 1;
            rc = BW_OK;
            break;
        }
        if (rc == BW_OK && (status == 401 || status == 403)) {
            rc = bw_fail(cause, BW_ERR_INVALID, "the server refused the worker token: %s",
                         error_text(reply, status, tmp, sizeof(tmp)));
            json_decref(reply);
            free(err);
            break;
        }
        char why[512], bad[256];
        if (rc == BW_OK && status == 200) { /* an answer judged cannot read */
            json_reader_text(&jr, bad, sizeof(bad));
            snprintf(why, sizeof(why), "register: the server's welcome: %s", bad);
        } else {
            snprintf(why, sizeof(why), "register: %s",
                     rc < 0 ? err : error_text(reply, status, tmp, sizeof(tmp)));
        }
        json_decref(reply);
        free(err);
        rc = BW_OK;
        backoff(sl, why);
    }
    json_decref(body);
    return rc;
}

/* Takes a reference to the cached problem of a bundle hash, fetching and
 * unpacking the bundle if needed (*entry: give it back with put_problem).
 * A bundle lives in cache_dir/bundles/HASH/ID/ (the loader wants the
 * directory named after the problem). The whole look-up holds the worker's
 * lock: two slots never unpack one bundle at once, and an entry in use is
 * never evicted. */
static const struct problem *get_problem(struct slot *sl, const char *hash, const char *id,
                                         struct cached_problem **entry, char **cause)
{
    struct worker *w = sl->w;
    struct cached_problem *victim = NULL;
    const struct problem *found = NULL;
    struct problem *p = NULL;
    char dir[4096], hashdir[4096];
    struct stat st;

    *entry = NULL;
    if (!bundle_hash_ok(hash) || !bundle_path_ok(id) || strchr(id, '/')) {
        bw_fail(cause, BW_ERR_PROTOCOL, "bad bundle hash \"%.70s\" or problem \"%.70s\"", hash, id);
        return NULL;
    }
    if (strlen(w->cache_dir) > 3000) {
        bw_fail(cause, BW_ERR_INVALID, "cache directory path too long");
        return NULL;
    }
    pthread_mutex_lock(&w->lock);
    for (int i = 0; i < BW_WORKER_PROBLEMS && !found; i++) {
        struct cached_problem *c = &w->problems[i];
        if (c->p && strcmp(c->hash, hash) == 0) {
            c->used = ++w->tick;
            c->users++;
            *entry = c;
            found = c->p;
        } else if (c->users == 0 && (!victim || c->used < victim->used)) {
            victim = c;
        }
    }
    if (found)
        goto out;
    snprintf(hashdir, sizeof(hashdir), "%s/bundles/%.64s", w->cache_dir, hash);
    snprintf(dir, sizeof(dir), "%.3100s/%.255s", hashdir, id);
    if (stat(dir, &st) != 0) {
        char path[128], *text = NULL;
        long status = 0;
        int rc;

        snprintf(path, sizeof(path), "/api/judge/bundles/%s", hash);
        rc = exchange(sl, "GET", path, NULL, BW_WORKER_BUNDLE_HTTP_S, BW_MAX_BUNDLE_BYTES, &status,
                      &text, cause);
        if (rc == BW_OK && status != 200)
            rc = bw_fail(cause, BW_ERR_IO, "bundle %.12s: HTTP %ld", hash, status);
        if (rc == BW_OK)
            rc = mkdirs(hashdir, cause);
        if (rc == BW_OK)
            rc = bundle_unpack(text, strlen(text), hash, dir, cause);
        free(text);
        if (rc < 0)
            goto out;
        log_info("worker: bundle %.12s cached in %s", hash, dir);
    }
    p = problem_load(dir, cause);
    if (!p || !victim) { /* no entry free (every one in use): the caller owns it alone */
        found = p;
        goto out;
    }
    problem_free(victim->p);
    snprintf(victim->hash, sizeof(victim->hash), "%s", hash);
    victim->p = p;
    victim->used = ++w->tick;
    victim->users = 1;
    *entry = victim;
    found = p;
out:
    pthread_mutex_unlock(&w->lock);
    return found;
}

/* Gives back what get_problem() handed out: a cache entry's reference, or
 * frees a problem that was loaded outside the cache. */
static void put_problem(struct worker *w, struct cached_problem *entry, const struct problem *p)
{
    if (!entry) {
        problem_free((struct problem *)p);
        return;
    }
    pthread_mutex_lock(&w->lock);
    entry->users--;
    pthread_mutex_unlock(&w->lock);
}

static void on_event(json_t *event, void *arg)
{
    struct job_run *run = arg;
    json_t *copy = json_deep_copy(event);
    if (!copy)
        return;
    pthread_mutex_lock(&run->lock);
    if (json_array_size(run->events) < BW_MAX_SSE_EVENTS)
        json_array_append_new(run->events, copy);
    else
        json_decref(copy);
    pthread_mutex_unlock(&run->lock);
}

static void *judge_thread(void *arg)
{
    struct job_run *run = arg;
    char *cause = NULL;
    int rc =
        judge_submission(run->jc, run->p, run->source, run->len, &run->opts, &run->result, &cause);
    pthread_mutex_lock(&run->lock);
    run->rc = rc;
    run->cause = cause;
    run->finished = true;
    pthread_cond_broadcast(&run->finished_cond);
    pthread_mutex_unlock(&run->lock);
    return NULL;
}

enum post_outcome { POST_OK, POST_LOST, POST_RETRY };

/* Posts the pending events (possibly none: a heartbeat). */
static enum post_outcome post_progress(struct slot *sl, const char *lease, struct job_run *run)
{
    json_t *batch = json_array();
    pthread_mutex_lock(&run->lock);
    while (json_array_size(run->events) > 0 && json_array_size(batch) < BW_MAX_EVENTS_PER_POST) {
        json_array_append(batch, json_array_get(run->events, 0));
        json_array_remove(run->events, 0);
    }
    pthread_mutex_unlock(&run->lock);
    char path[128];
    snprintf(path, sizeof(path), "/api/judge/leases/%s/progress", lease);
    json_t *body = wp_progress_encode(batch);
    long status = 0;
    json_t *reply = NULL;
    char *err = NULL;
    int rc = exchange_json(sl, "POST", path, body, BW_WORKER_HTTP_S, &status, &reply, &err);
    json_decref(body);
    json_decref(reply);
    enum post_outcome out = rc < 0                           ? POST_RETRY
                            : status == 200                  ? POST_OK
                            : status == 409 || status == 404 ? POST_LOST
                                                             : POST_RETRY;
    if (out == POST_RETRY)
        log_warn("worker: progress for lease %s: %s", lease, err ? err : "server error");
    free(err);
    return out;
}

/* Posts a final message (result, internal-error, release) until the server
 * has it or the lease is gone. */
static enum post_outcome post_final(struct slot *sl, const char *lease, const char *what,
                                    json_t *body)
{
    char path[128];
    snprintf(path, sizeof(path), "/api/judge/leases/%s/%s", lease, what);
    for (int tries = 0;; tries++) {
        long status = 0;
        json_t *reply = NULL;
        char *err = NULL, tmp[32];
        int rc =
            exchange_json(sl, "POST", path, body, BW_WORKER_FINAL_HTTP_S, &status, &reply, &err);
        if (rc == BW_OK && (status == 200 || status == 204)) {
            json_decref(reply);
            return POST_OK;
        }
        if (rc == BW_OK && (status == 409 || status == 404)) {
            log_warn("worker: %s for lease %s: %s", what, lease,
                     error_text(reply, status, tmp, sizeof(tmp)));
            json_decref(reply);
            return POST_LOST;
        }
        if (rc == BW_OK && status >= 400 && status < 500) {
            log_error("worker: %s for lease %s refused: %s", what, lease,
                      error_text(reply, status, tmp, sizeof(tmp)));
            json_decref(reply);
            return POST_LOST;
        }
        char why[512];
        snprintf(why, sizeof(why), "%s for lease %s: %s", what, lease,
                 rc < 0 ? err : error_text(reply, status, tmp, sizeof(tmp)));
        json_decref(reply);
        free(err);
        /* A stopping worker still tries a few times: the result is precious. */
        if (stop_requested(sl->w) && tries >= 3)
            return POST_RETRY;
        backoff(sl, why);
        if (stop_requested(sl->w))
            sl->backoff_s = 1;
    }
}

static void internal_error(struct slot *sl, const char *lease, const char *message)
{
    json_t *body = wp_internal_error_encode(&(struct wp_internal_error){.message = message});
    if (body)
        post_final(sl, lease, "internal-error", body);
    json_decref(body);
}

/* Runs one claimed job to its end. Returns true when the job is over
 * (result, internal error, release); false when it was abandoned on stop. */
static bool run_job(struct slot *sl, json_t *job)
{
    struct worker *w = sl->w;
    struct cached_problem *entry = NULL;
    struct wp_job m;
    struct json_reader jr;
    json_reader_init(&jr, JSON_READER_NULL_IS_ABSENT);
    if (wp_job_decode(job, &m, &jr)) {
        char bad[256], msg[320];
        const char *lease = json_string_value(json_object_get(job, "lease"));
        json_reader_text(&jr, bad, sizeof(bad));
        log_error("worker: malformed job from the server: %s", bad);
        snprintf(msg, sizeof(msg), "the worker received a malformed job: %s", bad);
        if (lease)
            internal_error(sl, lease, msg);
        return true;
    }
    const char *lease = m.lease, *hash = m.bundle, *problem_id = m.problem;
    long long id = (long long)m.submission;
    log_info("worker: submission %lld: judging (%s, lease %s)", id, wp_mode_name(m.mode), lease);
    char *cause = NULL;
    const struct problem *p = get_problem(sl, hash, problem_id, &entry, &cause);
    if (!p) {
        log_error("worker: submission %lld: problem bundle %.12s: %s", (long long)id, hash, cause);
        char msg[1024];
        snprintf(msg, sizeof(msg), "problem bundle %.12s: %s", hash, cause ? cause : "error");
        internal_error(sl, lease, msg);
        free(cause);
        return true;
    }
    /* A problem version first seen here: PyTorch's time on it is measured in the background. */
    baseline_service_want(w->wc->baselines, hash, p, m.mode == WP_SUBMIT);
    struct job_run *run = calloc(1, sizeof(*run));
    if (run)
        atomic_init(&run->cancel, false);
    if (!run) {
        internal_error(sl, lease, "out of memory");
        put_problem(w, entry, p);
        return true;
    }
    pthread_mutex_init(&run->lock, NULL);
    monotonic_cond_init(&run->finished_cond);
    run->events = json_array();
    run->jc = w->jc;
    run->p = p;
    run->source = malloc(m.source_len + 1);
    if (run->source)
        memcpy(run->source, m.source, m.source_len + 1);
    run->len = m.source_len;
    snprintf(run->job, sizeof(run->job), "submission %lld", (long long)id);
    run->opts.job = run->job;
    run->opts.cancel = &run->cancel;
    /* A Profile runs the tests as a Run does, then profiles (profile.h). */
    run->opts.tests_only = m.mode != WP_SUBMIT;
    run->opts.profile = m.mode == WP_PROFILE;
    run->opts.seed = m.seed;
    run->opts.language = m.language;
    run->opts.on_event = on_event;
    run->opts.event_arg = run;
    pthread_t th;
    if (!run->events || !run->source || pthread_create(&th, NULL, judge_thread, run) != 0) {
        internal_error(sl, lease, "cannot start the judge thread");
        json_decref(run->events);
        free(run->source);
        pthread_cond_destroy(&run->finished_cond);
        pthread_mutex_destroy(&run->lock);
        free(run);
        put_problem(w, entry, p);
        return true;
    }
    double last_post = now_ms(), stop_seen = 0;
    int heartbeat_s;
    pthread_mutex_lock(&w->lock);
    heartbeat_s = w->heartbeat_s;
    pthread_mutex_unlock(&w->lock);
    bool lost = false, finished = false;
    for (;;) {
        /* A tick for progress, heartbeats and stops; the verdict wakes it at
         * once (a plain sleep here cost every verdict up to a tick). */
        struct timespec until = monotonic_timespec(now_ms() + BW_WORKER_TICK_MS);
        pthread_mutex_lock(&run->lock);
        while (!run->finished &&
               pthread_cond_timedwait(&run->finished_cond, &run->lock, &until) == 0)
            ;
        finished = run->finished;
        size_t pending = json_array_size(run->events);
        pthread_mutex_unlock(&run->lock);
        if (finished)
            break;
        double now = now_ms();
        if (stop_requested(w)) {
            if (stop_seen == 0) {
                stop_seen = now;
                log_info("worker: submission %lld: stopping; waiting up to %d s for the job",
                         (long long)id, w->wc->grace_s);
            } else if (now - stop_seen > w->wc->grace_s * 1000.0) {
                log_warn("worker: submission %lld: not done within %d s; giving it back",
                         (long long)id, w->wc->grace_s);
                json_t *body = json_object();
                if (!lost)
                    post_final(sl, lease, "release", body);
                json_decref(body);
                /* The judge thread still holds run, p and jc: leave them be
                 * (the process is exiting); p's cache entry keeps its user,
                 * so worker_release leaves p alone. */
                pthread_detach(th);
                return false;
            }
        }
        bool due = (pending > 0 && now - last_post >= BW_WORKER_POST_MS) ||
                   now - last_post >= heartbeat_s * 1000.0;
        if (due && !lost) {
            enum post_outcome o = post_progress(sl, lease, run);
            if (o == POST_LOST) {
                lost = true;
                atomic_store(&run->cancel, true); /* the GPU is wanted elsewhere */
                log_warn("worker: submission %lld: lease %s lost (cancelled or expired); the "
                         "judging stops and its result is dropped",
                         (long long)id, lease);
            }
            last_post = now_ms();
        }
    }
    pthread_join(th, NULL);
    while (!lost && json_array_size(run->events) > 0) {
        if (post_progress(sl, lease, run) != POST_OK)
            break;
    }
    if (!lost && run->rc < 0) {
        log_error("worker: submission %lld: the judge failed: %s", (long long)id,
                  run->cause ? run->cause : bw_strerror(run->rc));
        internal_error(sl, lease, run->cause ? run->cause : bw_strerror(run->rc));
    } else if (!lost) {
        /* PyTorch's figures, waiting for a measurement in progress at most a heartbeat (the
         * lease outlives two: nothing was posted since the last progress). */
        if (!run->opts.tests_only && run->result.executed && run->result.n_benches > 0)
            baseline_service_attach(w->wc->baselines, hash, &run->result,
                                    BW_BASELINE_WAIT_MS < heartbeat_s * 1000 ? BW_BASELINE_WAIT_MS
                                                                             : heartbeat_s * 1000);
        json_t *result = judge_result_json(&run->result);
        json_t *body = wp_result_encode(result);
        if (!body) {
            internal_error(sl, lease, "out of memory building the result");
        } else if (post_final(sl, lease, "result", body) == POST_OK) {
            if (run->result.verdict == VERDICT_JUDGE_ERROR) /* the judge's fault: say why here */
                log_warn("worker: submission %lld: JE: %s", (long long)id,
                         run->result.message ? run->result.message : "(no message)");
            else
                log_info("worker: submission %lld: %s%s", (long long)id,
                         verdict_code(run->result.verdict),
                         run->result.executed ? "" : " (compiled only; no GPU here)");
        }
        json_decref(body);
    }
    judge_result_release(&run->result);
    free(run->cause);
    free(run->source);
    json_decref(run->events);
    pthread_cond_destroy(&run->finished_cond);
    pthread_mutex_destroy(&run->lock);
    free(run);
    put_problem(w, entry, p);
    return true;
}

static void worker_release(struct worker *w)
{
    for (int i = 0; i < BW_WORKER_PROBLEMS; i++)
        if (w->problems[i].users == 0)
            problem_free(w->problems[i].p);
    free(w->base);
    free(w->authz);
    free(w->cache_dir);
    free(w->register_why);
    pthread_mutex_destroy(&w->lock);
    pthread_mutex_destroy(&w->register_lock);
}

/* Registers again (one slot at a time). After an outage this is done only
 * when no slot holds a job: registering gives back every lease the worker
 * holds (the server's reclaim), which would cost a busy slot its job. */
static void reregister(struct slot *sl, bool only_if_idle)
{
    struct worker *w = sl->w;
    char *why = NULL;
    int rc = BW_OK;
    bool busy;

    pthread_mutex_lock(&w->register_lock);
    pthread_mutex_lock(&w->lock);
    busy = w->busy > 0;
    pthread_mutex_unlock(&w->lock);
    if (!(only_if_idle && busy))
        rc = do_register(sl, &why);
    pthread_mutex_unlock(&w->register_lock);
    if (rc) {
        pthread_mutex_lock(&w->lock);
        w->done = true;
        if (!w->register_rc) {
            w->register_rc = rc;
            w->register_why = why;
            why = NULL;
        }
        pthread_mutex_unlock(&w->lock);
    }
    free(why);
}

/* One slot: claim, judge, report, until the worker stops. */
static void *slot_thread(void *arg)
{
    struct slot *sl = arg;
    struct worker *w = sl->w;
    json_t *claim = wp_claim_encode(
        &(struct wp_claim){.wait_s = w->wc->claim_wait_s > 0 ? w->wc->claim_wait_s : -1});
    while (claim && !stopping(w)) {
        long status = 0;
        json_t *reply = NULL;
        char *err = NULL, tmp[32];
        sl->abort_on_stop = true;
        int xr = exchange_json(sl, "POST", "/api/judge/claim", claim, BW_WORKER_CLAIM_HTTP_S,
                               &status, &reply, &err);
        sl->abort_on_stop = false;
        if (stopping(w)) {
            if (xr == BW_OK && status == 200)
                post_final(sl, json_string_value(json_object_get(reply, "lease")), "release",
                           claim);
            json_decref(reply);
            free(err);
            break;
        }
        if (xr == BW_OK && status == 200 && json_is_object(reply)) {
            bool over;
            sl->backoff_s = 1;
            pthread_mutex_lock(&w->lock);
            w->busy++;
            pthread_mutex_unlock(&w->lock);
            over = run_job(sl, reply);
            json_decref(reply);
            pthread_mutex_lock(&w->lock);
            w->busy--;
            w->jobs++;
            if (!over || (w->wc->max_jobs > 0 && w->jobs >= w->wc->max_jobs))
                w->done = true; /* abandoned on stop, or enough jobs (tests) */
            pthread_mutex_unlock(&w->lock);
            continue;
        }
        if (xr == BW_OK && status == 204) {
            sl->backoff_s = 1;
            continue;
        }
        if (xr == BW_OK && status == 409) {
            /* The server forgot us (a fresh database, a restart): register again. */
            json_decref(reply);
            reregister(sl, false);
            continue;
        }
        char why[512];
        snprintf(why, sizeof(why), "claim: %s",
                 xr < 0 ? err : error_text(reply, status, tmp, sizeof(tmp)));
        bool outage = xr < 0 || status >= 500;
        json_decref(reply);
        free(err);
        backoff(sl, why);
        if (outage && !stopping(w))
            reregister(sl, true);
    }
    json_decref(claim);
    return NULL;
}

int worker_run(const struct worker_config *wc, struct judge_config *jc, char **cause)
{
    struct worker w;
    struct worker_config defaults = *wc;
    struct slot slots[BW_WORKER_MAX_SLOTS];
    pthread_t threads[BW_WORKER_MAX_SLOTS];
    int n_slots, started = 0, rc = BW_OK;
    const char *dir;
    size_t n, bl;

    memset(&w, 0, sizeof(w));
    memset(slots, 0, sizeof(slots));
    if (defaults.grace_s <= 0)
        defaults.grace_s = BW_WORKER_GRACE_S;
    if (defaults.max_backoff_s <= 0)
        defaults.max_backoff_s = BW_WORKER_MAX_BACKOFF_S;
    n_slots = defaults.slots > 0 ? defaults.slots : BW_WORKER_SLOTS;
    if (n_slots > BW_WORKER_MAX_SLOTS)
        return bw_fail(cause, BW_ERR_INVALID, "at most %d job slots (BW_WORKER_MAX_SLOTS)",
                       BW_WORKER_MAX_SLOTS);
    if (!wc->server || !wc->token || strncmp(wc->token, "bww_", 4) != 0)
        return bw_fail(cause, BW_ERR_INVALID,
                       "a server URL and a worker token (bww_...) are needed");
    dir = wc->cache_dir ? wc->cache_dir : jc->cache_dir;
    if (!dir)
        return bw_fail(cause, BW_ERR_INVALID, "a cache directory is needed for problem bundles");
    if (curl_global_init(CURL_GLOBAL_DEFAULT) != 0)
        return bw_fail(cause, BW_ERR_SYSTEM, "curl_global_init failed");
    pthread_mutex_init(&w.lock, NULL);
    pthread_mutex_init(&w.register_lock, NULL);
    w.wc = &defaults;
    w.jc = jc;
    w.heartbeat_s = BW_WORKER_LEASE_S / 3;
    w.base = strdup(wc->server);
    w.cache_dir = strdup(dir);
    n = strlen(wc->token) + 32;
    w.authz = malloc(n);
    if (!w.base || !w.cache_dir || !w.authz) {
        rc = bw_fail(cause, BW_ERR_NOMEM, "out of memory");
        goto out;
    }
    snprintf(w.authz, n, "Authorization: Bearer %s", wc->token);
    bl = strlen(w.base);
    while (bl > 0 && w.base[bl - 1] == '/')
        w.base[--bl] = '\0';
    rc = mkdirs(w.cache_dir, cause);
    if (rc) {
        bw_wrap(cause, rc, "cache directory %s", w.cache_dir);
        goto out;
    }
    for (int i = 0; i < n_slots; i++) {
        slots[i] = (struct slot){.w = &w, .index = i, .curl = curl_easy_init(), .backoff_s = 1};
        if (!slots[i].curl) {
            rc = bw_fail(cause, BW_ERR_NOMEM, "out of memory");
            goto out;
        }
    }
    rc = do_register(&slots[0], cause);
    if (rc == BW_OK && n_slots > 1)
        log_info("worker: %d job slots", n_slots);
    for (int i = 1; rc == BW_OK && i < n_slots; i++) {
        if (pthread_create(&threads[i], NULL, slot_thread, &slots[i]) != 0) {
            rc = bw_fail(cause, BW_ERR_SYSTEM, "cannot start job slot %d", i);
            pthread_mutex_lock(&w.lock);
            w.done = true;
            pthread_mutex_unlock(&w.lock);
            break;
        }
        started = i;
    }
    if (rc == BW_OK)
        slot_thread(&slots[0]); /* slot 0 is this thread */
    for (int i = 1; i <= started; i++)
        pthread_join(threads[i], NULL);
    if (rc == BW_OK && w.register_rc)
        rc = bw_fail(cause, w.register_rc, "%s",
                     w.register_why ? w.register_why : bw_strerror(w.register_rc));
out:
    for (int i = 0; i < n_slots; i++)
        if (slots[i].curl)
            curl_easy_cleanup(slots[i].curl);
    worker_release(&w);
    curl_global_cleanup();
    return rc;
}
