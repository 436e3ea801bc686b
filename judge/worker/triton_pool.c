#include "triton_pool.h"

#include <dirent.h>
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "common/error.h"
#include "common/limits.h"
#include "common/log.h"
#include "common/util.h"
#include "common/banned.h"

struct triton_pool {
    struct triton_pool_options o;
    pthread_t threads[BW_TRITON_POOL_MAX]; /* each starts compilers, one at a time */
    int n_threads;
    pthread_mutex_t lock;
    pthread_cond_t changed; /* a compiler is ready, a start failed, a taker came, stop */
    bool stop;

    struct triton_compiler *ready[BW_TRITON_POOL_MAX]; /* oldest first */
    int n_ready;
    int starting; /* starts under way in the threads */
    int waiting;  /* takers waiting for a compiler */

    unsigned long failures; /* a waiter that sees it move gets the error */
    int failure_rc;
    char *failure_cause;      /* owned: the last start failure's reason */
    int backoff_s;            /* after a failure, spares wait this long before the next try */
    struct timespec retry_at; /* CLOCK_MONOTONIC */
    struct triton_pool_counts counts;
    bool told_full; /* the memory of a full pool was logged once */

    int cpus;      /* this machine's, shared by the compiles in flight */
    int compiling; /* compiles holding a share (triton_pool_share) */
};

static bool before(const struct timespec *a, const struct timespec *b)
{
    return a->tv_sec < b->tv_sec || (a->tv_sec == b->tv_sec && a->tv_nsec < b->tv_nsec);
}

/* The CPUs this process may run on (its affinity), at least 1. */
static int usable_cpus(void)
{
    cpu_set_t set;
    long cpus = 0;

    if (sched_getaffinity(0, sizeof(set), &set) == 0)
        cpus = CPU_COUNT(&set);
    if (cpus <= 0)
        cpus = sysconf(_SC_NPROCESSORS_ONLN);
    return cpus > 0 ? (int)cpus : 1;
}

/* VmRSS (KiB) of process pid and the parent pid it names in /proc/PID/status; 0 when gone. */
static unsigned long status_of(long pid, long *ppid)
{
    char path[64], line[256];
    unsigned long rss = 0;
    FILE *f;

    *ppid = -1;
    snprintf(path, sizeof(path), "/proc/%ld/status", pid);
    if (!(f = fopen(path, "r")))
        return 0;
    while (fgets(line, sizeof(line), f)) {
        if (strncmp(line, "PPid:", 5) == 0)
            *ppid = strtol(line + 5, NULL, 10);
        else if (strncmp(line, "VmRSS:", 6) == 0)
            rss = strtoul(line + 6, NULL, 10);
    }
    fclose(f);
    return rss;
}

/* The resident memory (KiB) of the processes below roots[0..n) and of the roots. */
static unsigned long tree_rss(const long *roots, int n)
{
    long pids[512], ppids[512];
    unsigned long rss[512], total = 0;
    bool in[512] = {false};
    int k = 0;
    struct dirent *e;
    DIR *d = opendir("/proc");

    if (!d || n == 0) {
        if (d)
            closedir(d);
        return 0;
    }
    while ((e = readdir(d)) && k < 512) {
        char *end;
        long pid = strtol(e->d_name, &end, 10);
        if (*end || pid <= 0)
            continue;
        pids[k] = pid;
        rss[k] = status_of(pid, &ppids[k]);
        k++;
    }
    closedir(d);
    for (bool grew = true; grew;) { /* the roots, then their children, to any depth */
        grew = false;
        for (int i = 0; i < k; i++) {
            bool mine = false;
            for (int r = 0; r < n && !mine; r++)
                mine = pids[i] == roots[r];
            for (int j = 0; j < k && !mine; j++)
                mine = in[j] && ppids[i] == pids[j];
            if (mine && !in[i]) {
                in[i] = grew = true;
                total += rss[i];
            }
        }
    }
    return total;
}

/* Starts one compiler and waits until it is ready (*out), or says why not. */
static int start_one(const struct triton_options *o, struct triton_compiler **out, char **cause)
{
    int rc = triton_compiler_start(o, out, cause);

    if (rc == BW_OK && (rc = triton_compiler_wait_ready(*out, BW_TRITON_START_MS, cause))) {
        triton_compiler_free(*out);
        *out = NULL;
    }
    return rc;
}

/* Should a thread start another one now? (the lock held) */
static bool want_start(const struct triton_pool *p)
{
    int want = p->o.spares > p->waiting ? p->o.spares : p->waiting;

    if (p->o.max_starts > 0 && p->counts.started + p->counts.failed + (unsigned long)p->starting >=
                                   (unsigned long)p->o.max_starts)
        return false;
    return p->n_ready + p->starting < want && p->n_ready + p->starting < BW_TRITON_POOL_MAX;
}

static void *pool_thread(void *arg)
{
    struct triton_pool *p = arg;

    pthread_mutex_lock(&p->lock);
    while (!p->stop) {
        struct triton_compiler *c = NULL;
        char *why = NULL;
        double t0;
        int rc;

        if (!want_start(p)) {
            pthread_cond_wait(&p->changed, &p->lock);
            continue;
        }
        if (p->backoff_s > 0 && p->waiting == 0) {
            struct timespec now;
            clock_gettime(CLOCK_MONOTONIC, &now);
            if (before(&now, &p->retry_at)) {
                pthread_cond_timedwait(&p->changed, &p->lock, &p->retry_at);
                continue;
            }
        }
        p->starting++;
        pthread_mutex_unlock(&p->lock);
        t0 = now_ms();
        rc = start_one(&p->o.start, &c, &why);
        log_debug("triton pool: a compiler %s in %.0f ms", rc ? "failed to start" : "is ready",
                  now_ms() - t0);
        pthread_mutex_lock(&p->lock);
        p->starting--;
        if (rc) {
            p->failures++;
            p->counts.failed++;
            p->failure_rc = rc;
            free(p->failure_cause);
            p->failure_cause = why;
            p->backoff_s = p->backoff_s ? p->backoff_s * 2 : 1;
            if (p->backoff_s > BW_POOL_RETRY_MAX_S)
                p->backoff_s = BW_POOL_RETRY_MAX_S;
            clock_gettime(CLOCK_MONOTONIC, &p->retry_at);
            p->retry_at.tv_sec += p->backoff_s;
            if (p->waiting == 0)
                log_warn("triton pool: cannot start a Triton compiler: %s (next try in %d s)",
                         why ? why : bw_strerror(rc), p->backoff_s);
            pthread_cond_broadcast(&p->changed);
            continue;
        }
        free(why);
        p->backoff_s = 0;
        p->counts.started++;
        if (p->stop || p->n_ready == BW_TRITON_POOL_MAX) {
            pthread_mutex_unlock(&p->lock);
            triton_compiler_free(c);
            pthread_mutex_lock(&p->lock);
            continue;
        }
        p->ready[p->n_ready++] = c;
        pthread_cond_broadcast(&p->changed);
        if (p->n_ready == p->o.spares && !p->told_full) {
            long roots[BW_TRITON_POOL_MAX];
            int n = p->n_ready;
            p->told_full = true;
            for (int i = 0; i < n; i++)
                roots[i] = triton_compiler_pid(p->ready[i]);
            pthread_mutex_unlock(&p->lock);
            log_info("triton pool: %d warm compilers ready, %lu MiB resident together", n,
                     tree_rss(roots, n) / 1024);
            pthread_mutex_lock(&p->lock);
        }
    }
    pthread_mutex_unlock(&p->lock);
    return NULL;
}

int triton_pool_new(const struct triton_pool_options *o, struct triton_pool **out, char **cause)
{
    struct triton_pool *p;

    *out = NULL;
    if (o->spares < 1 || o->spares > BW_TRITON_POOL_MAX)
        return bw_fail(cause, BW_ERR_INVALID,
                       "Triton compiler pool: spares must be 1..%d (BW_TRITON_POOL_MAX)",
                       BW_TRITON_POOL_MAX);
    if (!(p = calloc(1, sizeof(*p))))
        return bw_fail(cause, BW_ERR_NOMEM, "out of memory");
    p->o = *o;
    p->cpus = usable_cpus();
    pthread_mutex_init(&p->lock, NULL);
    monotonic_cond_init(&p->changed); /* the back-off's timed waits */
    for (int i = 0; i < o->spares; i++) {
        if (pthread_create(&p->threads[i], NULL, pool_thread, p) != 0) {
            triton_pool_free(p);
            return bw_fail(cause, BW_ERR_SYSTEM, "cannot start the Triton compiler pool's threads");
        }
        p->n_threads++;
    }
    *out = p;
    return BW_OK;
}

void triton_pool_free(struct triton_pool *p)
{
    if (!p)
        return;
    pthread_mutex_lock(&p->lock);
    p->stop = true;
    pthread_cond_broadcast(&p->changed);
    pthread_mutex_unlock(&p->lock);
    for (int i = 0; i < p->n_threads; i++)
        pthread_join(p->threads[i], NULL);
    for (int i = 0; i < p->n_ready; i++)
        triton_compiler_free(p->ready[i]);
    free(p->failure_cause);
    pthread_mutex_destroy(&p->lock);
    pthread_cond_destroy(&p->changed);
    free(p);
}

/* The oldest ready compiler whose child still runs, freeing dead ones; NULL when none. */
static struct triton_compiler *pop_live(struct triton_pool *p)
{
    while (p->n_ready > 0) {
        struct triton_compiler *c = p->ready[0];
        memmove(p->ready, p->ready + 1, (size_t)(p->n_ready - 1) * sizeof(*p->ready));
        p->n_ready--;
        if (triton_compiler_alive(c))
            return c;
        log_warn("triton pool: a ready Triton compiler had ended; it is replaced");
        triton_compiler_free(c);
    }
    return NULL;
}

int triton_pool_take(struct triton_pool *p, struct triton_compiler **out, char **cause)
{
    unsigned long failures;
    bool waited = false;
    int rc = BW_OK;

    *out = NULL;
    pthread_mutex_lock(&p->lock);
    p->waiting++;
    failures = p->failures;
    while (!(*out = pop_live(p))) {
        if (p->stop) {
            rc = bw_fail(cause, BW_ERR_INTERNAL, "the Triton compiler pool is stopping");
            break;
        }
        if (p->o.max_starts > 0 && p->starting == 0 && !want_start(p)) {
            /* every start it may make is made and taken: one of its own */
            pthread_mutex_unlock(&p->lock);
            rc = triton_compiler_start(&p->o.start, out, cause);
            pthread_mutex_lock(&p->lock);
            break;
        }
        if (p->failures != failures) {
            rc = bw_fail(cause, p->failure_rc, "%s",
                         p->failure_cause ? p->failure_cause : bw_strerror(p->failure_rc));
            break;
        }
        if (!waited)
            p->counts.waited++;
        waited = true;
        pthread_cond_broadcast(&p->changed); /* a thread may start one for this taker */
        pthread_cond_wait(&p->changed, &p->lock);
    }
    p->waiting--;
    if (*out)
        p->counts.taken++;
    pthread_cond_broadcast(&p->changed); /* one was taken: refill */
    pthread_mutex_unlock(&p->lock);
    return rc;
}

void triton_pool_counts(struct triton_pool *p, struct triton_pool_counts *out)
{
    long roots[BW_TRITON_POOL_MAX];
    int n = 0;

    pthread_mutex_lock(&p->lock);
    *out = p->counts;
    out->ready = p->n_ready;
    for (int i = 0; i < p->n_ready; i++)
        roots[n++] = triton_compiler_pid(p->ready[i]);
    pthread_mutex_unlock(&p->lock);
    out->ready_rss_kib = tree_rss(roots, n);
}

int triton_jobs_for(int cpus, int compiles)
{
    int jobs = cpus / (compiles < 1 ? 1 : compiles);

    if (jobs < 1)
        jobs = 1;
    return jobs > BW_TRITON_JOBS ? BW_TRITON_JOBS : jobs;
}

int triton_pool_jobs(int slots)
{
    return triton_jobs_for(usable_cpus(), slots);
}

int triton_pool_share(struct triton_pool *p)
{
    int jobs;

    if (!p)
        return triton_pool_jobs(1);
    pthread_mutex_lock(&p->lock);
    jobs = triton_jobs_for(p->cpus, ++p->compiling);
    pthread_mutex_unlock(&p->lock);
    return jobs;
}

void triton_pool_unshare(struct triton_pool *p)
{
    if (!p)
        return;
    pthread_mutex_lock(&p->lock);
    if (p->compiling > 0)
        p->compiling--;
    pthread_mutex_unlock(&p->lock);
}
