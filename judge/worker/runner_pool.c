#include "runner_pool.h"

#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>

#include "common/error.h"
#include "common/limits.h"
#include "common/log.h"
#include "common/util.h"
#include "common/banned.h"

struct runner_pool {
    struct runner_pool_options o;
    pthread_t threads[BW_POOL_STARTERS]; /* each starts runners, one at a time */
    int n_threads;
    pthread_mutex_t lock;
    pthread_cond_t changed; /* a runner is ready, a start failed, a request came, stop */
    bool stop;

    struct runner *spares[BW_POOL_MAX_SPARES]; /* started submission runners, oldest first */
    int n_spares;
    struct runner *idle_refs[BW_POOL_MAX_REFERENCES]; /* reference runners not lent */
    int n_idle_refs;
    int refs_waiting;  /* takers waiting for a reference runner */
    int subs_waiting;  /* takers waiting for a submission runner */
    int refs_to_start; /* reference runners to start before anyone asks (options.references) */
    int starting_refs, starting_subs; /* starts under way in the threads */

    unsigned long failures; /* start failures so far: a waiter that sees it move gets the error */
    int failure_rc;
    char *failure_cause;      /* owned: the last start failure's reason */
    int backoff_s;            /* after a failure, spares wait this long before the next try */
    struct timespec retry_at; /* CLOCK_MONOTONIC: no start for spares before this */
    unsigned long started;

    /* the GPU gate */
    pthread_cond_t gate_changed; /* CLOCK_MONOTONIC: a background holder's patience */
    int readers;
    bool writer;
    int writers_waiting;
    int judgings; /* in progress (runner_pool_judging_begin): background work waits for none */
    double gate_free_since; /* now_ms() when the gate last had no holder: the GPU idle since */
};

static bool before(const struct timespec *a, const struct timespec *b)
{
    return a->tv_sec < b->tv_sec || (a->tv_sec == b->tv_sec && a->tv_nsec < b->tv_nsec);
}

/* True while the runner's process has not exited (it is not reaped: a dead
 * one is freed, and runner_free reaps it). An idle runner can die unseen. */
static bool running(const struct runner *r)
{
    siginfo_t info;

    if (!runner_alive(r))
        return false;
    memset(&info, 0, sizeof(info));
    if (waitid(P_PID, (id_t)runner_pid(r), &info, WEXITED | WNOHANG | WNOWAIT) != 0)
        return errno == EINTR;
    return info.si_pid == 0;
}

/* Takes the first live runner of list (n entries), freeing dead ones; NULL when none. */
static struct runner *pop_live(struct runner **list, int *n)
{
    while (*n > 0) {
        struct runner *r = list[0];
        memmove(list, list + 1, (size_t)(*n - 1) * sizeof(*list));
        (*n)--;
        if (running(r))
            return r;
        runner_free(r);
    }
    return NULL;
}

/* What the thread should start next: 1 a reference runner, 2 a submission runner, 0 nothing. */
static int next_start(const struct runner_pool *p)
{
    int want_subs = p->o.spares > p->subs_waiting ? p->o.spares : p->subs_waiting;
    int refs = p->n_idle_refs + p->starting_refs, subs = p->n_spares + p->starting_subs;

    if ((p->refs_waiting > refs || p->refs_to_start > p->starting_refs) &&
        refs < BW_POOL_MAX_REFERENCES)
        return 1;
    if (subs < want_subs && subs < BW_POOL_MAX_SPARES)
        return 2;
    return 0;
}

static void *pool_thread(void *arg)
{
    struct runner_pool *p = arg;
    struct runner_options ro = {.device = p->o.device, .no_sandbox = p->o.no_sandbox};

    pthread_mutex_lock(&p->lock);
    while (!p->stop) {
        int what = next_start(p), rc;
        bool waiters = p->refs_waiting > 0 || p->subs_waiting > 0;
        struct runner *r = NULL;
        char *why = NULL;

        if (what == 0) {
            pthread_cond_wait(&p->changed, &p->lock);
            continue;
        }
        if (p->backoff_s > 0 && !waiters) {
            /* A start failed lately and nobody waits: do not spin on a lost GPU. */
            struct timespec now;
            clock_gettime(CLOCK_MONOTONIC, &now);
            if (before(&now, &p->retry_at)) {
                pthread_cond_timedwait(&p->changed, &p->lock, &p->retry_at);
                continue;
            }
        }
        if (what == 1)
            p->starting_refs++;
        else
            p->starting_subs++;
        pthread_mutex_unlock(&p->lock);
        double t0 = now_ms();
        log_debug("runner pool: starting a %s runner", what == 1 ? "reference" : "submission");
        rc = runner_start(&ro, &r, &why);
        log_debug("runner pool: %s runner start %s in %.0f ms",
                  what == 1 ? "reference" : "submission", rc ? "failed" : "done", now_ms() - t0);
        pthread_mutex_lock(&p->lock);
        if (what == 1)
            p->starting_refs--;
        else
            p->starting_subs--;
        if (rc) {
            p->failures++;
            p->failure_rc = rc;
            free(p->failure_cause);
            p->failure_cause = why;
            if (p->refs_to_start > 0)
                p->refs_to_start = 0; /* the start-up ones: on demand from now on */
            p->backoff_s = p->backoff_s ? p->backoff_s * 2 : 1;
            if (p->backoff_s > BW_POOL_RETRY_MAX_S)
                p->backoff_s = BW_POOL_RETRY_MAX_S;
            clock_gettime(CLOCK_MONOTONIC, &p->retry_at);
            p->retry_at.tv_sec += p->backoff_s;
            if (!waiters)
                log_warn("runner pool: cannot start a runner: %s (next try in %d s)",
                         why ? why : bw_strerror(rc), p->backoff_s);
            pthread_cond_broadcast(&p->changed);
            continue;
        }
        free(why);
        p->backoff_s = 0;
        p->started++;
        if (what == 1) {
            p->idle_refs[p->n_idle_refs++] = r;
            if (p->refs_to_start > 0)
                p->refs_to_start--;
        } else {
            p->spares[p->n_spares++] = r;
        }
        pthread_cond_broadcast(&p->changed);
    }
    pthread_mutex_unlock(&p->lock);
    return NULL;
}

int runner_pool_new(const struct runner_pool_options *o, struct runner_pool **out, char **cause)
{
    struct runner_pool *p;

    *out = NULL;
    if (o->spares < 0 || o->spares > BW_POOL_MAX_SPARES || o->references < 0 ||
        o->references > BW_POOL_MAX_REFERENCES)
        return bw_fail(cause, BW_ERR_INVALID,
                       "runner pool: spares must be 0..%d and references 0..%d (BW_POOL_MAX_*)",
                       BW_POOL_MAX_SPARES, BW_POOL_MAX_REFERENCES);
    p = calloc(1, sizeof(*p));
    if (!p)
        return bw_fail(cause, BW_ERR_NOMEM, "out of memory");
    p->o = *o;
    p->refs_to_start = o->references;
    p->gate_free_since = now_ms();
    pthread_mutex_init(&p->lock, NULL);
    monotonic_cond_init(&p->changed); /* the back-off's timed waits */
    monotonic_cond_init(&p->gate_changed);
    for (int i = 0; i < BW_POOL_STARTERS; i++) {
        if (pthread_create(&p->threads[i], NULL, pool_thread, p) != 0) {
            runner_pool_free(p);
            return bw_fail(cause, BW_ERR_SYSTEM, "cannot start the runner pool's threads");
        }
        p->n_threads++;
    }
    *out = p;
    return BW_OK;
}

void runner_pool_free(struct runner_pool *p)
{
    if (!p)
        return;
    pthread_mutex_lock(&p->lock);
    p->stop = true;
    pthread_cond_broadcast(&p->changed);
    pthread_mutex_unlock(&p->lock);
    for (int i = 0; i < p->n_threads; i++)
        pthread_join(p->threads[i], NULL);
    for (int i = 0; i < p->n_spares; i++)
        runner_free(p->spares[i]);
    for (int i = 0; i < p->n_idle_refs; i++)
        runner_free(p->idle_refs[i]);
    free(p->failure_cause);
    pthread_mutex_destroy(&p->lock);
    pthread_cond_destroy(&p->changed);
    pthread_cond_destroy(&p->gate_changed);
    free(p);
}

/* Waits for a live runner in list, or for the next start failure. */
static int take(struct runner_pool *p, struct runner **list, int *n, int *waiting,
                struct runner **out, char **cause)
{
    unsigned long failures;
    int rc = BW_OK;

    *out = NULL;
    pthread_mutex_lock(&p->lock);
    (*waiting)++;
    pthread_cond_broadcast(&p->changed);
    failures = p->failures;
    while (!(*out = pop_live(list, n))) {
        if (p->stop) {
            rc = bw_fail(cause, BW_ERR_INTERNAL, "the runner pool is stopping");
            break;
        }
        if (p->failures != failures) {
            rc = bw_fail(cause, p->failure_rc, "%s",
                         p->failure_cause ? p->failure_cause : bw_strerror(p->failure_rc));
            break;
        }
        pthread_cond_wait(&p->changed, &p->lock);
    }
    (*waiting)--;
    pthread_cond_broadcast(&p->changed); /* a spare was taken: refill */
    pthread_mutex_unlock(&p->lock);
    return rc;
}

int runner_pool_take_submission(struct runner_pool *p, struct runner **out, char **cause)
{
    return take(p, p->spares, &p->n_spares, &p->subs_waiting, out, cause);
}

int runner_pool_take_reference(struct runner_pool *p, struct runner **out, char **cause)
{
    return take(p, p->idle_refs, &p->n_idle_refs, &p->refs_waiting, out, cause);
}

bool runner_pool_try_take_reference(struct runner_pool *p, struct runner **out)
{
    pthread_mutex_lock(&p->lock);
    *out = p->stop ? NULL : pop_live(p->idle_refs, &p->n_idle_refs);
    if (!*out && !p->stop && p->refs_to_start == 0) {
        p->refs_to_start = 1; /* one for next time, started in the background */
        pthread_cond_broadcast(&p->changed);
    }
    pthread_mutex_unlock(&p->lock);
    return *out != NULL;
}

void runner_pool_return_reference(struct runner_pool *p, struct runner *r)
{
    if (!r)
        return;
    pthread_mutex_lock(&p->lock);
    if (running(r) && p->n_idle_refs < BW_POOL_MAX_REFERENCES && !p->stop) {
        p->idle_refs[p->n_idle_refs++] = r;
        r = NULL;
        pthread_cond_broadcast(&p->changed);
    }
    pthread_mutex_unlock(&p->lock);
    runner_free(r);
}

/* Enters the gate; p->lock held. */
static void gate_enter_locked(struct runner_pool *p, bool exclusive)
{
    if (exclusive) {
        p->writers_waiting++;
        while (p->writer || p->readers > 0)
            pthread_cond_wait(&p->gate_changed, &p->lock);
        p->writers_waiting--;
        p->writer = true;
    } else {
        while (p->writer || p->writers_waiting > 0)
            pthread_cond_wait(&p->gate_changed, &p->lock);
        p->readers++;
    }
}

void runner_pool_gate_enter(struct runner_pool *p, bool exclusive)
{
    pthread_mutex_lock(&p->lock);
    gate_enter_locked(p, exclusive);
    pthread_mutex_unlock(&p->lock);
}

double runner_pool_gate_enter_background(struct runner_pool *p, int quiet_ms, int patience_ms)
{
    double deadline = now_ms() + patience_ms, rested;

    pthread_mutex_lock(&p->lock);
    for (;;) {
        bool quiet = p->judgings == 0 && !p->writer && p->readers == 0 && p->writers_waiting == 0;
        double now = now_ms(), wake = deadline;
        if ((quiet && now - p->gate_free_since >= quiet_ms) || now >= deadline)
            break;
        if (quiet && p->gate_free_since + quiet_ms < wake)
            wake = p->gate_free_since + quiet_ms;
        struct timespec until = monotonic_timespec(wake);
        pthread_cond_timedwait(&p->gate_changed, &p->lock, &until);
    }
    gate_enter_locked(p, true);
    rested = now_ms() - p->gate_free_since;
    pthread_mutex_unlock(&p->lock);
    return rested;
}

void runner_pool_judging_begin(struct runner_pool *p)
{
    pthread_mutex_lock(&p->lock);
    p->judgings++;
    pthread_mutex_unlock(&p->lock);
}

void runner_pool_judging_end(struct runner_pool *p)
{
    pthread_mutex_lock(&p->lock);
    p->judgings--;
    pthread_cond_broadcast(&p->gate_changed);
    pthread_mutex_unlock(&p->lock);
}

void runner_pool_gate_leave(struct runner_pool *p, bool exclusive)
{
    pthread_mutex_lock(&p->lock);
    if (exclusive)
        p->writer = false;
    else
        p->readers--;
    if (!p->writer && p->readers == 0)
        p->gate_free_since = now_ms();
    pthread_cond_broadcast(&p->gate_changed);
    pthread_mutex_unlock(&p->lock);
}

unsigned long runner_pool_started(const struct runner_pool *p)
{
    unsigned long n;

    pthread_mutex_lock((pthread_mutex_t *)&p->lock);
    n = p->started;
    pthread_mutex_unlock((pthread_mutex_t *)&p->lock);
    return n;
}
