#include "pwhash.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <sodium.h>

#include "auth.h"
#include "http.h"
#include "common/error.h"
#include "common/log.h"
#include "common/util.h"
#include "common/banned.h"

struct pwhash_pool {
    const struct server_config *cfg;
    pthread_mutex_t lock;
    pthread_cond_t work;
    struct pwhash_job *head, *tail; /* waiting, oldest first */
    unsigned waiting, running, cap;
    bool stopping;
    double avg_ms; /* a moving average of one job's time */
    pthread_t *threads;
    int n_threads;
};

static void run(const struct server_config *cfg, struct pwhash_job *job)
{
    job->rc = BW_OK;
    if (job->kind == PWHASH_HASH) {
        char *cause = NULL;
        job->rc = auth_hash_password(cfg, job->password, &job->hash, &cause);
        free(cause);
        return;
    }
    job->ok = auth_check_password(cfg, job->stored, job->password);
    if (job->ok && auth_needs_rehash(cfg, job->stored)) {
        char *cause = NULL;
        if (auth_hash_password(cfg, job->password, &job->hash, &cause) < 0)
            job->hash = NULL; /* the old hash stays; the next sign-in tries again */
        free(cause);
    }
}

static void *pool_thread(void *arg)
{
    struct pwhash_pool *p = arg;
    /* Hashing yields the CPU to the HTTP threads: with every core busy
     * hashing, a request waiting for one would otherwise wait for a time
     * slice. Linux keeps a nice value per thread (setpriority(2)); failing
     * to lower it only costs that. */
    if (setpriority(PRIO_PROCESS, (id_t)syscall(SYS_gettid), BW_PWHASH_NICE) != 0)
        log_debug("pwhash: cannot lower a hashing thread's priority; it runs at the HTTP threads'");
    pthread_mutex_lock(&p->lock);
    for (;;) {
        while (!p->head && !p->stopping)
            pthread_cond_wait(&p->work, &p->lock);
        if (!p->head)
            break; /* stopping, and nothing left that may run */
        struct pwhash_job *job = p->head;
        p->head = job->next;
        if (!p->head)
            p->tail = NULL;
        p->waiting--;
        p->running++;
        pthread_mutex_unlock(&p->lock);
        double t0 = now_ms();
        run(p->cfg, job);
        double ms = now_ms() - t0;
        pthread_mutex_lock(&p->lock);
        p->running--;
        p->avg_ms = p->avg_ms > 0 ? 0.9 * p->avg_ms + 0.1 * ms : ms;
        job->done = true;
        /* The last touch of the job: the handler may free it as soon as it runs. */
        http_resume(job->conn);
    }
    pthread_mutex_unlock(&p->lock);
    return NULL;
}

struct pwhash_pool *pwhash_new(const struct server_config *cfg, int threads, int queue,
                               char **cause)
{
    struct pwhash_pool *p = calloc(1, sizeof(*p));
    if (p)
        p->threads = calloc((size_t)threads, sizeof(*p->threads));
    if (!p || !p->threads) {
        free(p);
        bw_fail(cause, BW_ERR_NOMEM, "out of memory");
        return NULL;
    }
    p->cfg = cfg;
    p->cap = (unsigned)queue;
    pthread_mutex_init(&p->lock, NULL);
    pthread_cond_init(&p->work, NULL);
    for (int i = 0; i < threads; i++) {
        if (pthread_create(&p->threads[i], NULL, pool_thread, p) != 0) {
            bw_fail(cause, BW_ERR_SYSTEM, "cannot start password hashing thread %d of %d", i + 1,
                    threads);
            pwhash_free(p);
            return NULL;
        }
        p->n_threads++;
    }
    return p;
}

void pwhash_stop(struct pwhash_pool *p)
{
    if (!p)
        return;
    pthread_mutex_lock(&p->lock);
    if (p->stopping) {
        pthread_mutex_unlock(&p->lock);
        return;
    }
    p->stopping = true;
    /* Jobs nobody started are answered "cancelled" now, not hashed first. */
    while (p->head) {
        struct pwhash_job *job = p->head;
        p->head = job->next;
        p->waiting--;
        job->cancelled = true;
        job->done = true;
        http_resume(job->conn);
    }
    p->tail = NULL;
    pthread_cond_broadcast(&p->work);
    pthread_mutex_unlock(&p->lock);
    for (int i = 0; i < p->n_threads; i++)
        pthread_join(p->threads[i], NULL);
}

void pwhash_free(struct pwhash_pool *p)
{
    if (!p)
        return;
    pwhash_stop(p);
    pthread_cond_destroy(&p->work);
    pthread_mutex_destroy(&p->lock);
    free(p->threads);
    free(p);
}

int pwhash_submit(struct pwhash_pool *p, struct pwhash_job *job, struct http_conn *conn)
{
    job->done = job->cancelled = job->ok = false;
    job->hash = NULL;
    job->conn = conn;
    job->next = NULL;
    pthread_mutex_lock(&p->lock);
    if (p->stopping || p->waiting >= p->cap) {
        bool stopping = p->stopping;
        pthread_mutex_unlock(&p->lock);
        return stopping ? BW_ERR_INVALID : BW_ERR_LIMIT;
    }
    if (p->tail)
        p->tail->next = job;
    else
        p->head = job;
    p->tail = job;
    p->waiting++;
    /* Suspended before any pool thread can see the job (they need the lock),
     * so the resume never comes first. */
    http_suspend(conn);
    pthread_cond_signal(&p->work);
    pthread_mutex_unlock(&p->lock);
    return BW_OK;
}

int pwhash_retry_after(struct pwhash_pool *p)
{
    pthread_mutex_lock(&p->lock);
    double ms = (double)(p->waiting + p->running) * (p->avg_ms > 0 ? p->avg_ms : 100.0) /
                (double)(p->n_threads > 0 ? p->n_threads : 1);
    pthread_mutex_unlock(&p->lock);
    int s = (int)(ms / 1000.0) + 1;
    return s > BW_PWHASH_RETRY_MAX_S ? BW_PWHASH_RETRY_MAX_S : s;
}

unsigned pwhash_load(struct pwhash_pool *p)
{
    pthread_mutex_lock(&p->lock);
    unsigned n = p->waiting + p->running;
    pthread_mutex_unlock(&p->lock);
    return n;
}

void pwhash_job_release(struct pwhash_job *job)
{
    sodium_memzero(job->password, sizeof(job->password));
    free(job->stored);
    free(job->hash);
    job->stored = job->hash = NULL;
}
