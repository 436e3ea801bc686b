#include "metrics.h"

#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <sodium.h>

#include "api.h"
#include "store/store.h"
#include "http.h"
#include "pwhash.h"
#include "judgeapi.h"
#include "problems.h"
#include "server.h"
#include "sse.h"
#include "common/buf.h"
#include "common/language.h"
#include "common/banned.h"

static const double buckets[] = {1, 2, 5, 10, 30, 60, 120, 300, 600, 1800};
#define N_BUCKETS  (sizeof(buckets) / sizeof(buckets[0]))
#define N_VERDICTS (VERDICT_JUDGE_ERROR + 1)

struct metrics {
    pthread_mutex_t lock;
    uint64_t requests[6]; /* by status class 1xx..5xx (index 1..5) */
    uint64_t verdicts[N_VERDICTS];
    uint64_t latency_le[N_BUCKETS + 1]; /* cumulative at scrape; per-bucket here */
    double latency_sum;
    uint64_t latency_count;
    uint64_t submissions[WP_MODE_COUNT]; /* by enum wp_mode */
    uint64_t client_gone;
    uint64_t signin_failures, signin_throttled;
    uint64_t pwhash_busy, signup_throttled;
    time_t started;
};

struct metrics *metrics_new(void)
{
    struct metrics *m = calloc(1, sizeof(*m));
    if (m) {
        pthread_mutex_init(&m->lock, NULL);
        m->started = time(NULL);
    }
    return m;
}

void metrics_free(struct metrics *m)
{
    if (!m)
        return;
    pthread_mutex_destroy(&m->lock);
    free(m);
}

void metrics_request(struct metrics *m, int status)
{
    int cls = status / 100;
    if (cls < 1 || cls > 5)
        cls = 5;
    pthread_mutex_lock(&m->lock);
    m->requests[cls]++;
    pthread_mutex_unlock(&m->lock);
}

void metrics_client_gone(struct metrics *m)
{
    pthread_mutex_lock(&m->lock);
    m->client_gone++;
    pthread_mutex_unlock(&m->lock);
}

void metrics_signin(struct metrics *m, bool throttled)
{
    pthread_mutex_lock(&m->lock);
    if (throttled)
        m->signin_throttled++;
    else
        m->signin_failures++;
    pthread_mutex_unlock(&m->lock);
}

void metrics_pwhash_busy(struct metrics *m)
{
    pthread_mutex_lock(&m->lock);
    m->pwhash_busy++;
    pthread_mutex_unlock(&m->lock);
}

void metrics_signup_throttled(struct metrics *m)
{
    pthread_mutex_lock(&m->lock);
    m->signup_throttled++;
    pthread_mutex_unlock(&m->lock);
}

void metrics_verdict(struct metrics *m, enum verdict v, double latency_s)
{
    pthread_mutex_lock(&m->lock);
    if ((int)v >= 0 && (int)v < (int)N_VERDICTS)
        m->verdicts[v]++;
    if (latency_s >= 0) {
        size_t i = 0;
        while (i < N_BUCKETS && latency_s > buckets[i])
            i++;
        m->latency_le[i]++;
        m->latency_sum += latency_s;
        m->latency_count++;
    }
    pthread_mutex_unlock(&m->lock);
}

void metrics_submission(struct metrics *m, enum wp_mode mode)
{
    pthread_mutex_lock(&m->lock);
    if ((unsigned)mode < WP_MODE_COUNT)
        m->submissions[mode]++;
    pthread_mutex_unlock(&m->lock);
}

int metrics_h_get(struct http_request *req, struct http_response *res)
{
    struct server *s = req->app;
    if (s->cfg->metrics_token[0]) {
        const char *authz = http_header(req, "Authorization");
        size_t n = strlen(s->cfg->metrics_token);
        if (!authz || strncmp(authz, "Bearer ", 7) != 0 || strlen(authz + 7) != n ||
            sodium_memcmp(authz + 7, s->cfg->metrics_token, n) != 0)
            return api_reply_error(res, 401, "unauthorized", NULL,
                                   "/metrics needs the configured metrics_token");
    }
    struct metrics snap;
    pthread_mutex_lock(&s->metrics->lock);
    snap = *s->metrics;
    pthread_mutex_unlock(&s->metrics->lock);

    int64_t now = (int64_t)time(NULL);
    struct store_counts counts;
    store_counts(s->store, now, s->cfg->lease_s, &counts, NULL);
    int64_t queued = counts.queued, judging = counts.judging, alive = counts.alive;
    int64_t disabled = counts.disabled;
    int64_t oldest = counts.oldest_queued_at;
    int64_t *lang_queued = counts.lang_queued, *lang_workers = counts.lang_workers;
    struct problem_set *set = problems_get(s->problems);
    size_t loaded = set->n, failed = set->n_failed;
    problems_put(s->problems, set);

    struct buf b;
    buf_init(&b, 1 << 20);
    buf_puts(&b, "# HELP blockwise_queue_length Submissions waiting for a worker.\n"
                 "# TYPE blockwise_queue_length gauge\n");
    buf_addf(&b, "blockwise_queue_length %lld\n", (long long)queued);
    buf_puts(&b, "# HELP blockwise_queue_oldest_seconds Age of the oldest queued submission.\n"
                 "# TYPE blockwise_queue_oldest_seconds gauge\n");
    buf_addf(&b, "blockwise_queue_oldest_seconds %lld\n",
             (long long)(oldest > 0 ? now - oldest : 0));
    buf_puts(&b, "# HELP blockwise_judging Submissions being judged (active leases).\n"
                 "# TYPE blockwise_judging gauge\n");
    buf_addf(&b, "blockwise_judging %lld\n", (long long)judging);
    buf_puts(&b, "# HELP blockwise_workers_alive Enabled workers seen within one lease.\n"
                 "# TYPE blockwise_workers_alive gauge\n");
    buf_addf(&b, "blockwise_workers_alive %lld\n", (long long)alive);
    buf_puts(&b, "# HELP blockwise_queue_language Submissions waiting for a worker, by language.\n"
                 "# TYPE blockwise_queue_language gauge\n");
    for (int l = 0; l < LANG_COUNT; l++)
        buf_addf(&b, "blockwise_queue_language{language=\"%s\"} %lld\n",
                 language_name((enum language)l), (long long)lang_queued[l]);
    buf_puts(&b, "# HELP blockwise_workers_language Enabled workers seen within one lease that "
                 "compile the language.\n"
                 "# TYPE blockwise_workers_language gauge\n");
    for (int l = 0; l < LANG_COUNT; l++)
        buf_addf(&b, "blockwise_workers_language{language=\"%s\"} %lld\n",
                 language_name((enum language)l), (long long)lang_workers[l]);
    buf_puts(&b, "# HELP blockwise_workers_disabled Workers disabled by errors or an admin.\n"
                 "# TYPE blockwise_workers_disabled gauge\n");
    buf_addf(&b, "blockwise_workers_disabled %lld\n", (long long)disabled);
    buf_puts(&b, "# HELP blockwise_workers_waiting Claims waiting for work right now.\n"
                 "# TYPE blockwise_workers_waiting gauge\n");
    buf_addf(&b, "blockwise_workers_waiting %u\n", claims_waiting(s->claims));
    buf_puts(&b, "# HELP blockwise_event_streams Open submission event streams.\n"
                 "# TYPE blockwise_event_streams gauge\n");
    buf_addf(&b, "blockwise_event_streams %zu\n", sse_streams(s->hub));
    buf_puts(&b, "# HELP blockwise_problems Problems served, and directories that failed to load.\n"
                 "# TYPE blockwise_problems gauge\n");
    buf_addf(&b, "blockwise_problems{state=\"loaded\"} %zu\n", loaded);
    buf_addf(&b, "blockwise_problems{state=\"failed\"} %zu\n", failed);
    buf_puts(&b, "# HELP blockwise_submissions_total Submissions accepted, by mode.\n"
                 "# TYPE blockwise_submissions_total counter\n");
    for (int mode = WP_RUN; mode < WP_MODE_COUNT; mode++)
        buf_addf(&b, "blockwise_submissions_total{mode=\"%s\"} %llu\n",
                 wp_mode_name((enum wp_mode)mode), (unsigned long long)snap.submissions[mode]);
    buf_puts(&b, "# HELP blockwise_verdicts_total Verdicts stored, by verdict.\n"
                 "# TYPE blockwise_verdicts_total counter\n");
    for (int v = VERDICT_ACCEPTED; v < (int)N_VERDICTS; v++)
        buf_addf(&b, "blockwise_verdicts_total{verdict=\"%s\"} %llu\n",
                 verdict_code((enum verdict)v), (unsigned long long)snap.verdicts[v]);
    buf_puts(&b, "# HELP blockwise_judging_latency_seconds From submission to stored verdict.\n"
                 "# TYPE blockwise_judging_latency_seconds histogram\n");
    uint64_t cum = 0;
    for (size_t i = 0; i < N_BUCKETS; i++) {
        cum += snap.latency_le[i];
        buf_addf(&b, "blockwise_judging_latency_seconds_bucket{le=\"%g\"} %llu\n", buckets[i],
                 (unsigned long long)cum);
    }
    cum += snap.latency_le[N_BUCKETS];
    buf_addf(&b, "blockwise_judging_latency_seconds_bucket{le=\"+Inf\"} %llu\n",
             (unsigned long long)cum);
    buf_addf(&b, "blockwise_judging_latency_seconds_sum %g\n", snap.latency_sum);
    buf_addf(&b, "blockwise_judging_latency_seconds_count %llu\n",
             (unsigned long long)snap.latency_count);
    buf_puts(&b, "# HELP blockwise_http_requests_total HTTP requests answered, by status class.\n"
                 "# TYPE blockwise_http_requests_total counter\n");
    for (int k = 1; k <= 5; k++)
        buf_addf(&b, "blockwise_http_requests_total{code=\"%dxx\"} %llu\n", k,
                 (unsigned long long)snap.requests[k]);
    buf_puts(&b, "# HELP blockwise_http_client_gone_total Requests whose client left (or idled "
                 "past connection_timeout) before the answer.\n"
                 "# TYPE blockwise_http_client_gone_total counter\n");
    buf_addf(&b, "blockwise_http_client_gone_total %llu\n", (unsigned long long)snap.client_gone);
    uint64_t slow = 0, refused = 0;
    http_counters(s->http, &slow, &refused);
    buf_puts(&b, "# HELP blockwise_http_deadline_closed_total Connections closed because a request "
                 "did not arrive whole within request_deadline.\n"
                 "# TYPE blockwise_http_deadline_closed_total counter\n");
    buf_addf(&b, "blockwise_http_deadline_closed_total %llu\n", (unsigned long long)slow);
    buf_puts(&b, "# HELP blockwise_http_address_refused_total Connections closed at once: their "
                 "address had connections_per_address open.\n"
                 "# TYPE blockwise_http_address_refused_total counter\n");
    buf_addf(&b, "blockwise_http_address_refused_total %llu\n", (unsigned long long)refused);
    buf_puts(&b, "# HELP blockwise_signin_failures_total Sign-ins with a wrong name or password.\n"
                 "# TYPE blockwise_signin_failures_total counter\n");
    buf_addf(&b, "blockwise_signin_failures_total %llu\n",
             (unsigned long long)snap.signin_failures);
    buf_puts(&b, "# HELP blockwise_signin_throttled_total Sign-ins refused by a lockout (429).\n"
                 "# TYPE blockwise_signin_throttled_total counter\n");
    buf_addf(&b, "blockwise_signin_throttled_total %llu\n",
             (unsigned long long)snap.signin_throttled);
    buf_puts(&b, "# HELP blockwise_signup_throttled_total Sign-ups refused: their address used "
                 "signup_address_limit (429).\n"
                 "# TYPE blockwise_signup_throttled_total counter\n");
    buf_addf(&b, "blockwise_signup_throttled_total %llu\n",
             (unsigned long long)snap.signup_throttled);
    buf_puts(&b, "# HELP blockwise_pwhash_busy_total Sign-ins and sign-ups refused because "
                 "pwhash_queue was full (429 busy).\n"
                 "# TYPE blockwise_pwhash_busy_total counter\n");
    buf_addf(&b, "blockwise_pwhash_busy_total %llu\n", (unsigned long long)snap.pwhash_busy);
    buf_puts(&b, "# HELP blockwise_pwhash_load Password checks and hashes waiting or running.\n"
                 "# TYPE blockwise_pwhash_load gauge\n");
    buf_addf(&b, "blockwise_pwhash_load %u\n", s->pwhash ? pwhash_load(s->pwhash) : 0);
    buf_puts(&b, "# HELP blockwise_start_time_seconds When the server started.\n"
                 "# TYPE blockwise_start_time_seconds gauge\n");
    buf_addf(&b, "blockwise_start_time_seconds %lld\n", (long long)snap.started);
    int status = http_text(res, 200, "text/plain; version=0.0.4; charset=utf-8",
                           b.data ? b.data : "", b.len);
    buf_release(&b);
    return status;
}
