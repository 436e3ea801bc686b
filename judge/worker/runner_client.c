#include "runner_client.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include "common/buf.h"
#include "common/error.h"
#include "common/limits.h"
#include "common/log.h"
#include "common/util.h"
#include "device_memory.h"
#include "judge/sandbox/spawn.h"
#include "wire/ipc.h"
#include "common/banned.h"

/* The runner's end of the socketpair, in its fd layout. */
#define RUNNER_FD_SOCKET 3

/* A buffer lent to the runner for full returns: a memfd of ours, its pages
 * allocated once, mapped here for reading results. Held by the runner's slot
 * and by every run_result in it (refs); freed when the last one lets go. */
struct lent_buffer {
    int refs; /* atomic: the slot's reference + one per result */
    int fd;
    uint8_t *map;
    size_t size;
    size_t used; /* bytes from 0 a runner may have written (zeroed before it is kept) */
};

struct runner {
    pid_t pid;      /* 0 once reaped */
    int sock;       /* our end of the socketpair */
    int log_fd;     /* read end of the runner's stderr, or -1 */
    struct buf log; /* what it wrote, capped */
    struct gpu_props gpu;
    char death[256]; /* how it ended, once it has */
    /* Lent buffers, used by one thread at a time (the runner's caller); a
     * result may be released from another thread (atomic refs). */
    struct lent_buffer *lent[BW_RUNNER_LENT_SLOTS];
    bool lent_sent[BW_RUNNER_LENT_SLOTS]; /* the runner has slot k's current memfd */
    unsigned lent_made;
    double lent_ms; /* spent making lent buffers (allocating and mapping their pages) */
    /* The runner frees a run's device buffers after sending its reply, before
     * it reads the next request (runner_exec.h); the next call's deadline
     * allows for that: the last run's buffers at the harness's device rate. */
    int release_ms;
    double memory_wait_ms; /* its calls' waits for device memory (device_memory.h) so far */
};

/* --- lent buffers -------------------------------------------------------------------- */

static void lent_unref(struct lent_buffer *l)
{
    if (!l || __atomic_sub_fetch(&l->refs, 1, __ATOMIC_ACQ_REL) > 0)
        return;
    ipc_unmap(l->map, l->size);
    close(l->fd);
    free(l);
}

/* True when only the slot holds l (no result is reading it). */
static bool lent_free(const struct lent_buffer *l)
{
    return __atomic_load_n(&l->refs, __ATOMIC_ACQUIRE) == 1;
}

/*
 * Buffers kept from runners that ended, for the next ones of this process:
 * making a buffer (allocating and zeroing its pages, then mapping them) cost
 * 88-107 ms of a vector-add Run on the H200, every Run, since each Run has a
 * fresh submission runner. A buffer is kept only when no result holds it,
 * after the part a runner wrote is zeroed (the next runner is another
 * learner's), within BW_LENT_KEPT_BUFFERS and BW_LENT_KEPT_BYTES.
 */
static pthread_mutex_t kept_lock = PTHREAD_MUTEX_INITIALIZER;
static struct lent_buffer *kept[BW_LENT_KEPT_BUFFERS];
static uint64_t kept_bytes;

/* Zeroes the written part of l (its own mapping is read-only); false on failure. */
static bool lent_zero(struct lent_buffer *l)
{
    void *w;

    if (l->used == 0)
        return true;
    w = mmap(NULL, l->used, PROT_READ | PROT_WRITE, MAP_SHARED, l->fd, 0);
    if (w == MAP_FAILED)
        return false;
    memset(w, 0, l->used);
    munmap(w, l->used);
    l->used = 0;
    return true;
}

/* Lets go of a slot's buffer as its runner ends: kept for the next runner
 * when nothing else holds it and there is room, else unreferenced. */
static void lent_keep_or_unref(struct lent_buffer *l)
{
    bool keep;

    if (!l)
        return;
    keep = lent_free(l) && lent_zero(l);
    pthread_mutex_lock(&kept_lock);
    for (int i = 0; keep && i < BW_LENT_KEPT_BUFFERS; i++) {
        if (!kept[i] && kept_bytes + l->size <= BW_LENT_KEPT_BYTES) {
            kept[i] = l;
            kept_bytes += l->size;
            l = NULL;
            break;
        }
    }
    pthread_mutex_unlock(&kept_lock);
    lent_unref(l);
}

/*
 * The smallest kept buffer that holds `bytes` and is at most
 * BW_LENT_KEPT_WASTE times the size a new one would have, taken out of the
 * kept ones; NULL if none. The runner pins all of a buffer it is lent
 * (cuMemHostRegister, in proportion to its size), so a small return is
 * better served by a new small buffer than by a large kept one: a Run that
 * fails its first test pins a few MiB, not the 256 MiB a vector-add Run
 * left. A judging whose cases grow (they do) makes new buffers up to 1/16
 * of the kept ones' size, then takes those.
 */
static struct lent_buffer *lent_take_kept(uint64_t bytes)
{
    uint64_t most = BW_LENT_KEPT_WASTE * (bytes < BW_RUNNER_LENT_MIN ? BW_RUNNER_LENT_MIN : bytes);
    int best = -1;
    struct lent_buffer *l = NULL;

    pthread_mutex_lock(&kept_lock);
    for (int i = 0; i < BW_LENT_KEPT_BUFFERS; i++)
        if (kept[i] && kept[i]->size >= bytes && kept[i]->size <= most &&
            (best < 0 || kept[i]->size < kept[best]->size))
            best = i;
    if (best >= 0) {
        l = kept[best];
        kept[best] = NULL;
        kept_bytes -= l->size;
    }
    pthread_mutex_unlock(&kept_lock);
    return l;
}

/* A new lent buffer of at least `bytes`: its pages allocated (zeroed) once here. */
static int lent_new(uint64_t bytes, struct lent_buffer **out, char **cause)
{
    struct lent_buffer *l;
    size_t size = bytes < BW_RUNNER_LENT_MIN ? BW_RUNNER_LENT_MIN : (size_t)bytes;
    void *map = NULL;
    int fd, rc;

    *out = NULL;
    size = (size + 4095) & ~(size_t)4095;
    if ((rc = ipc_memfd_create("lent", size, &fd, cause)))
        return rc;
    if (fallocate(fd, 0, 0, (off_t)size) < 0) {
        rc = bw_fail(cause, BW_ERR_NOMEM, "lent buffer of %zu bytes: fallocate: %s", size,
                     strerror(errno));
        close(fd);
        return rc;
    }
    if ((rc = ipc_memfd_seal_size(fd, cause))) {
        close(fd);
        return rc;
    }
    map = mmap(NULL, size, PROT_READ, MAP_SHARED | MAP_POPULATE, fd, 0);
    if (map == MAP_FAILED) {
        rc = bw_fail(cause, BW_ERR_SYSTEM, "lent buffer of %zu bytes: mmap: %s", size,
                     strerror(errno));
        close(fd);
        return rc;
    }
    l = calloc(1, sizeof(*l));
    if (!l) {
        munmap(map, size);
        close(fd);
        return bw_fail(cause, BW_ERR_NOMEM, "out of memory");
    }
    *l = (struct lent_buffer){.refs = 1, .fd = fd, .map = map, .size = size};
    *out = l;
    return BW_OK;
}

/* Slot k holds a new buffer of at least `bytes`, and at least twice the old
 * one's size (the cases of a problem grow: doubling bounds the pages touched
 * to twice the largest case's); the old one, free, is let go. */
static int lent_grow(struct runner *r, int k, uint64_t bytes, char **cause)
{
    struct lent_buffer *l;
    uint64_t twice = r->lent[k] ? 2 * (uint64_t)r->lent[k]->size : 0;
    double t0 = now_ms();
    int rc = BW_OK;

    l = lent_take_kept(bytes);
    if (!l)
        rc = lent_new(bytes > twice ? bytes : (twice < BW_RUNNER_LENT_MAX ? twice : bytes), &l,
                      cause);
    r->lent_ms += now_ms() - t0;
    if (rc)
        return rc;
    lent_unref(r->lent[k]); /* outgrown: not worth keeping (or zeroing here, mid-judging) */
    r->lent[k] = l;
    r->lent_sent[k] = false;
    r->lent_made++;
    return BW_OK;
}

/* The slot a full return of `bytes` goes into, or -1 (every buffer is held):
 * the smallest free one that fits, else an empty slot or the largest free
 * one, grown. */
static int lent_choose(struct runner *r, uint64_t bytes, char **cause)
{
    int fit = -1, grow = -1;

    for (int k = 0; k < BW_RUNNER_LENT_SLOTS; k++) {
        struct lent_buffer *l = r->lent[k];
        if (!l) {
            if (grow < 0 || r->lent[grow])
                grow = k;
            continue;
        }
        if (!lent_free(l))
            continue;
        if (l->size >= bytes && (fit < 0 || l->size < r->lent[fit]->size))
            fit = k;
        if (grow < 0 || (r->lent[grow] && l->size > r->lent[grow]->size))
            grow = k;
    }
    if (fit >= 0)
        return fit;
    if (grow < 0)
        return -1;
    if (lent_grow(r, grow, bytes, cause))
        return -2;
    return grow;
}

unsigned runner_lent_made(const struct runner *r)
{
    return r->lent_made;
}

int runner_lent_kept(void)
{
    int n = 0;

    pthread_mutex_lock(&kept_lock);
    for (int i = 0; i < BW_LENT_KEPT_BUFFERS; i++)
        n += kept[i] != NULL;
    pthread_mutex_unlock(&kept_lock);
    return n;
}

void runner_lent_kept_release(void)
{
    struct lent_buffer *gone[BW_LENT_KEPT_BUFFERS];

    pthread_mutex_lock(&kept_lock);
    for (int i = 0; i < BW_LENT_KEPT_BUFFERS; i++) {
        gone[i] = kept[i];
        kept[i] = NULL;
    }
    kept_bytes = 0;
    pthread_mutex_unlock(&kept_lock);
    for (int i = 0; i < BW_LENT_KEPT_BUFFERS; i++)
        lent_unref(gone[i]);
}

double runner_lent_ms(const struct runner *r)
{
    return r->lent_ms;
}

double runner_memory_wait_ms(const struct runner *r)
{
    return r->memory_wait_ms;
}

/* --- the log --------------------------------------------------------------------- */

/* Reads whatever the runner has written to its log pipe (never blocks). */
static void drain_log(struct runner *r)
{
    char chunk[4096];

    if (r->log_fd < 0)
        return;
    for (;;) {
        ssize_t n = read(r->log_fd, chunk, sizeof(chunk));
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0)
            return;
        /* past the cap the rest is dropped, but the pipe keeps being emptied */
        buf_append(&r->log, chunk, (size_t)n);
    }
}

const char *runner_log(struct runner *r)
{
    drain_log(r);
    return r->log.data ? r->log.data : "";
}

/* The last non-empty line of the log, into out. */
static void last_log_line(struct runner *r, char *out, size_t cap)
{
    const char *log = runner_log(r), *end = log + strlen(log), *start;

    out[0] = '\0';
    while (end > log && (end[-1] == '\n' || end[-1] == ' '))
        end--;
    start = end;
    while (start > log && start[-1] != '\n')
        start--;
    if (end > start)
        snprintf(out, cap, "%.*s", (int)(end - start), start);
}

/* --- life and death ------------------------------------------------------------------ */

/* Describes a wait status into r->death. */
static void describe_status(struct runner *r, int status)
{
    if (WIFSIGNALED(status))
        snprintf(r->death, sizeof(r->death), "was killed by signal %d (%s)", WTERMSIG(status),
                 strsignal(WTERMSIG(status)));
    else if (WIFEXITED(status))
        snprintf(r->death, sizeof(r->death), "exited with status %d", WEXITSTATUS(status));
    else
        snprintf(r->death, sizeof(r->death), "ended (wait status 0x%x)", status);
}

/* Waits up to ms for the runner to exit, then SIGKILLs it; reaps it either way. */
static void reap(struct runner *r, int ms)
{
    double until = now_ms() + ms;
    int status = 0;

    if (r->pid <= 0)
        return;
    for (;;) {
        pid_t w = waitpid(r->pid, &status, WNOHANG);
        if (w == r->pid)
            break;
        if (w < 0 && errno != EINTR) {
            snprintf(r->death, sizeof(r->death), "could not be reaped: %s", strerror(errno));
            r->pid = 0;
            return;
        }
        if (now_ms() >= until) {
            kill(r->pid, SIGKILL);
            while (waitpid(r->pid, &status, 0) < 0 && errno == EINTR)
                ;
            break;
        }
        usleep(BW_RUNNER_REAP_POLL_US);
    }
    describe_status(r, status);
    r->pid = 0;
    drain_log(r);
}

/* SIGKILLs the runner now and reaps it. */
static void kill_runner(struct runner *r)
{
    if (r->pid > 0)
        kill(r->pid, SIGKILL);
    reap(r, BW_RUNNER_REAP_MS);
}

/* The error for a runner found dead (it closed the socket or the send
 * failed): how it died and its last words. */
static int died(struct runner *r, const char *what, char **cause)
{
    char last[200];

    reap(r, BW_RUNNER_REAP_MS);
    last_log_line(r, last, sizeof(last));
    return bw_fail(cause, BW_ERR_IO, "the runner died during %s: it %s%s%s", what, r->death,
                   last[0] ? "; its last words: " : "", last);
}

bool runner_alive(const struct runner *r)
{
    return r && r->pid > 0;
}

pid_t runner_pid(const struct runner *r)
{
    return r->pid;
}

const struct gpu_props *runner_gpu(const struct runner *r)
{
    return &r->gpu;
}

void runner_free(struct runner *r)
{
    if (!r)
        return;
    kill_runner(r);
    for (int k = 0; k < BW_RUNNER_LENT_SLOTS; k++)
        lent_keep_or_unref(r->lent[k]);
    if (r->sock >= 0)
        close(r->sock);
    if (r->log_fd >= 0)
        close(r->log_fd);
    buf_release(&r->log);
    free(r);
}

/* --- discarding in the background ------------------------------------------------------ */

/* Runners killed and waiting to be reaped by the one reaper thread of the
 * process, started on the first runner_discard. */
struct discarded {
    struct runner *r;
    struct discarded *next;
};

static pthread_mutex_t discard_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t discard_cond = PTHREAD_COND_INITIALIZER;
static struct discarded *discard_queue;
static int discard_pending; /* queued or being reaped */
static bool reaper_started;

static void *reaper_main(void *arg)
{
    (void)arg;
    pthread_mutex_lock(&discard_lock);
    for (;;) {
        while (!discard_queue)
            pthread_cond_wait(&discard_cond, &discard_lock);
        struct discarded *d = discard_queue;
        discard_queue = d->next;
        pthread_mutex_unlock(&discard_lock);
        runner_free(d->r);
        free(d);
        pthread_mutex_lock(&discard_lock);
        discard_pending--;
        pthread_cond_broadcast(&discard_cond);
    }
    return NULL;
}

void runner_discard(struct runner *r)
{
    struct discarded *d;

    if (!r)
        return;
    if (r->pid > 0)
        kill(r->pid, SIGKILL);
    d = malloc(sizeof(*d));
    pthread_mutex_lock(&discard_lock);
    if (d && !reaper_started) {
        pthread_t t;
        pthread_attr_t a;
        pthread_attr_init(&a);
        pthread_attr_setdetachstate(&a, PTHREAD_CREATE_DETACHED);
        reaper_started = pthread_create(&t, &a, reaper_main, NULL) == 0;
        pthread_attr_destroy(&a);
    }
    if (!d || !reaper_started) {
        pthread_mutex_unlock(&discard_lock);
        free(d);
        runner_free(r);
        return;
    }
    /* the newest first: the order of reaping does not matter */
    *d = (struct discarded){.r = r, .next = discard_queue};
    discard_queue = d;
    discard_pending++;
    pthread_cond_broadcast(&discard_cond);
    pthread_mutex_unlock(&discard_lock);
}

void runner_discard_drain(void)
{
    pthread_mutex_lock(&discard_lock);
    while (discard_pending > 0)
        pthread_cond_wait(&discard_cond, &discard_lock);
    pthread_mutex_unlock(&discard_lock);
}

/* --- spawning ------------------------------------------------------------------------- */

/* The runner binary: opt->path, $BLOCKWISE_RUNNER, or next to this executable (*new*). */
static char *runner_path(const struct runner_options *opt)
{
    const char *env = getenv("BLOCKWISE_RUNNER");
    char *dir, *path;

    if (opt->path)
        return strdup(opt->path);
    if (env && *env)
        return strdup(env);
    dir = exe_dir();
    if (!dir)
        return NULL;
    path = path_join(dir, "blockwise-runner");
    free(dir);
    return path;
}

/* Reads the ready message and fills r->gpu, or returns the runner's reason. */
static int await_ready(struct runner *r, int ms, char **cause)
{
    struct ready_msg m;
    json_t *msg = NULL;
    int rc;

    rc = ipc_recv(r->sock, ipc_deadline_in(ms), &msg, NULL, cause);
    if (rc == BW_ERR_TIMEOUT) {
        kill_runner(r);
        return bw_fail(cause, BW_ERR_TIMEOUT, "the runner was not ready within %d ms: killed", ms);
    }
    if (rc == BW_ERR_IO)
        return died(r, "start-up", cause);
    if (rc)
        return bw_wrap(cause, rc, "the runner's ready message");
    rc = ready_from_json(msg, &m, cause);
    json_decref(msg);
    if (rc)
        return bw_wrap(cause, BW_ERR_PROTOCOL, "the runner's ready message");
    switch (m.error) {
    case READY_OK:
        r->gpu = m.gpu;
        return BW_OK;
    case READY_NO_DEVICE:
        return bw_fail(cause, BW_ERR_NODEVICE, "%s", m.message);
    case READY_SANDBOX:
        return bw_fail(cause, BW_ERR_SANDBOX, "%s", m.message);
    case READY_USAGE:
        return bw_fail(cause, BW_ERR_INTERNAL, "%s", m.message);
    case READY_CUDA:
        break;
    }
    return bw_fail(cause, BW_ERR_CUDA, "%s", m.message);
}

int runner_start(const struct runner_options *opt, struct runner **out, char **cause)
{
    char device[16], *path = NULL;
    char *argv[8], *envp[BW_RUNNER_MAX_ENV + 2];
    int sv[2] = {-1, -1}, logp[2] = {-1, -1}, argc = 0, envc = 0;
    struct spawn child;
    struct runner *r;
    int rc;

    *out = NULL;
    r = calloc(1, sizeof(*r));
    if (!r)
        return bw_fail(cause, BW_ERR_NOMEM, "out of memory");
    r->sock = r->log_fd = -1;
    buf_init(&r->log, BW_RUNNER_LOG_BYTES);
    path = runner_path(opt);
    if (!path) {
        rc = bw_fail(cause, BW_ERR_NOTFOUND,
                     "cannot locate blockwise-runner (set BLOCKWISE_RUNNER)");
        goto fail;
    }
    if (access(path, X_OK) < 0) {
        rc = bw_fail(cause, BW_ERR_NOTFOUND, "runner %s: %s", path, strerror(errno));
        goto fail;
    }
    snprintf(device, sizeof(device), "%d", opt->device);
    argv[argc++] = path;
    argv[argc++] = (char *)"--device";
    argv[argc++] = device;
    if (opt->no_sandbox)
        argv[argc++] = (char *)"--no-sandbox";
    if (opt->cupti) {
        argv[argc++] = (char *)"--cupti";
        argv[argc++] = (char *)opt->cupti;
    }
    argv[argc] = NULL;
    envp[envc++] = (char *)"CUDA_CACHE_DISABLE=1";
    for (int i = 0; opt->extra_env && opt->extra_env[i]; i++) {
        if (envc > BW_RUNNER_MAX_ENV) {
            rc = bw_fail(cause, BW_ERR_LIMIT, "more than %d extra environment variables",
                         BW_RUNNER_MAX_ENV);
            goto fail;
        }
        envp[envc++] = (char *)opt->extra_env[i];
    }
    envp[envc] = NULL;

    if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv) < 0 ||
        (!opt->inherit_stderr && pipe2(logp, O_CLOEXEC) < 0)) {
        rc = bw_fail(cause, BW_ERR_SYSTEM, "runner pipes: %s", strerror(errno));
        goto fail;
    }
    /* The runner never blocks on its log: past a full pipe, lines are lost. */
    if (logp[1] >= 0 &&
        (fcntl(logp[1], F_SETFL, O_NONBLOCK) < 0 || fcntl(logp[0], F_SETFL, O_NONBLOCK) < 0)) {
        rc = bw_fail(cause, BW_ERR_SYSTEM, "runner log pipe: %s", strerror(errno));
        goto fail;
    }
    /* fd 3 is the socket and nothing else is open (docs/runner-protocol.md, Start). */
    spawn_init(&child);
    child.path = path;
    child.argv = argv;
    child.env = envp;
    child.fds[0] = SPAWN_FD_NULL;
    child.fds[1] = child.fds[2] = logp[1] >= 0 ? logp[1] : SPAWN_FD_INHERIT;
    child.fds[RUNNER_FD_SOCKET] = sv[1];
    child.n_fds = RUNNER_FD_SOCKET + 1;
    if ((rc = spawn_start(&child, cause)))
        goto fail;
    r->pid = child.pid;
    close(sv[1]);
    sv[1] = -1;
    if (logp[1] >= 0)
        close(logp[1]);
    logp[1] = -1;
    r->sock = sv[0];
    sv[0] = -1;
    r->log_fd = logp[0];
    logp[0] = -1;

    rc = await_ready(r, opt->start_ms > 0 ? opt->start_ms : BW_RUNNER_START_MS, cause);
    if (rc)
        goto fail;
    device_memory_set_total(r->gpu.memory_bytes);
    free(path);
    *out = r;
    return BW_OK;

fail:
    for (int i = 0; i < 2; i++) {
        if (sv[i] >= 0)
            close(sv[i]);
        if (logp[i] >= 0)
            close(logp[i]);
    }
    free(path);
    runner_free(r);
    return rc;
}

/* --- calls ---------------------------------------------------------------------------- */

/*
 * Sends req (stolen) with req_fd (borrowed, or -1) and receives the reply of
 * type `reply_type` within timeout_ms. *reply is *new*; *reply_fd is *new* or -1.
 * device_bytes: what the request allocates on the GPU, reserved for the call
 * (device_memory.h; the wait for it is before the deadline starts).
 */
static int call(struct runner *r, json_t *req, int req_fd, const char *reply_type, int timeout_ms,
                uint64_t device_bytes, json_t **reply, int *reply_fd, char **cause)
{
    const char *what = msg_type(req);
    char type[32];
    uint64_t deadline;
    int rc;

    *reply = NULL;
    *reply_fd = -1;
    snprintf(type, sizeof(type), "%s", what);
    if (!req) {
        return bw_fail(cause, BW_ERR_NOMEM, "cannot build a request (out of memory)");
    }
    if (r->pid <= 0) {
        json_decref(req);
        return bw_fail(cause, BW_ERR_IO, "the runner is not running: it %s",
                       r->death[0] ? r->death : "was never started");
    }
    if (timeout_ms > INT_MAX - r->release_ms)
        timeout_ms = INT_MAX;
    else
        timeout_ms += r->release_ms;
    r->release_ms = 0;
    if (device_bytes > 0) {
        double waited = device_memory_reserve(device_bytes);
        if (waited > 0) /* the operator's sign that the slots contend for the GPU's memory */
            log_info("runner %d: %s waited %.0f ms for %.2f GB of device memory", (int)r->pid, type,
                     waited, (double)device_bytes / 1e9);
        r->memory_wait_ms += waited;
    }
    deadline = ipc_deadline_in(timeout_ms);
    rc = ipc_send(r->sock, req, req_fd, deadline, cause);
    json_decref(req);
    if (rc == BW_OK)
        rc = ipc_recv(r->sock, deadline, reply, reply_fd, cause);
    if (device_bytes > 0)
        device_memory_release(device_bytes);
    drain_log(r);
    if (rc == BW_ERR_TIMEOUT) {
        kill_runner(r);
        return bw_fail(cause, BW_ERR_TIMEOUT, "the runner did not answer %s within %d ms: killed",
                       type, timeout_ms);
    }
    if (rc == BW_ERR_IO)
        return died(r, type, cause);
    if (rc) {
        kill_runner(r);
        return bw_wrap(cause, rc, "the runner's answer to %s", type);
    }
    if (strcmp(msg_type(*reply), reply_type) != 0 && strcmp(msg_type(*reply), "error") != 0) {
        char got[32];
        snprintf(got, sizeof(got), "%s", msg_type(*reply));
        json_decref(*reply);
        *reply = NULL;
        if (*reply_fd >= 0)
            close(*reply_fd);
        *reply_fd = -1;
        kill_runner(r);
        return bw_fail(cause, BW_ERR_PROTOCOL, "the runner answered %s with a %s message", type,
                       got);
    }
    return BW_OK;
}

/* The time a runner may take to free the buffers of a run of plan p after
 * its reply: their bytes at BW_HARNESS_DEVICE_BYTES_PER_MS, rounded up. */
static int release_allowance_ms(const struct run_plan *p)
{
    uint64_t ms = (run_plan_device_bytes(p) + BW_HARNESS_DEVICE_BYTES_PER_MS - 1) /
                  BW_HARNESS_DEVICE_BYTES_PER_MS;
    return ms > INT_MAX / 2 ? INT_MAX / 2 : (int)ms;
}

/* After a reply: a runner that lost its context exits by itself; reap it,
 * and notice any other runner that has exited since it answered. */
static void after_reply(struct runner *r, const struct run_failure *f)
{
    int status = 0;

    if (f->status == RUN_CUDA_ERROR) {
        reap(r, BW_RUNNER_REAP_MS);
        return;
    }
    if (r->pid > 0 && waitpid(r->pid, &status, WNOHANG) == r->pid) {
        describe_status(r, status);
        r->pid = 0;
        drain_log(r);
    }
}

/* A reply to an unknown request ("error") becomes a RUN_ERROR status of reply_type. */
static json_t *as_reply_type(json_t *reply, const char *reply_type)
{
    if (strcmp(msg_type(reply), "error") == 0)
        json_object_set_new(reply, "type", json_string(reply_type));
    return reply;
}

/* Sends a load request with its memfd and reads the reply into *reply, the
 * kernels in the order asked for. */
static int load_call(struct runner *r, const void *blob, size_t len, const struct load_request *req,
                     struct load_reply *reply, int timeout_ms, char **cause)
{
    json_t *msg = NULL;
    int fd = -1, rfd = -1, rc, n = req->n_kernels;

    if ((rc = ipc_memfd_from_bytes("cubin", blob, len, &fd, cause)))
        return rc;
    rc = call(r, load_request_to_json(req), fd, "loaded", timeout_ms, 0, &msg, &rfd, cause);
    close(fd);
    if (rc)
        return rc;
    if (rfd >= 0) {
        close(rfd);
        json_decref(msg);
        kill_runner(r);
        return bw_fail(cause, BW_ERR_PROTOCOL, "the runner attached a descriptor to loaded");
    }
    rc = load_reply_from_json(as_reply_type(msg, "loaded"), reply, cause);
    json_decref(msg);
    if (rc)
        return bw_wrap(cause, BW_ERR_PROTOCOL, "the runner's loaded message");
    if (reply->fail.status == RUN_OK) {
        /* Put the kernels in the order asked for, and insist every one is there. */
        struct kernel_info sorted[BW_MAX_LOADED_KERNELS];
        for (int i = 0; i < n; i++) {
            int found = -1;
            for (int k = 0; k < reply->n_kernels; k++)
                if (strcmp(reply->kernels[k].name, req->kernels[i]) == 0)
                    found = k;
            if (found < 0)
                return bw_fail(cause, BW_ERR_PROTOCOL, "the runner did not describe kernel %s",
                               req->kernels[i]);
            sorted[i] = reply->kernels[found];
        }
        memcpy(reply->kernels, sorted, sizeof(sorted[0]) * (size_t)n);
        reply->n_kernels = n;
    }
    after_reply(r, &reply->fail);
    return BW_OK;
}

/* Copies kernel names into req; BW_ERR_INVALID for a count or name the protocol refuses. */
static int name_kernels(struct load_request *req, const char *const *kernels, int n, char **cause)
{
    if (n < 1 || n > BW_MAX_LOADED_KERNELS)
        return bw_fail(cause, BW_ERR_INVALID, "load: %d kernels (1 to %d)", n,
                       BW_MAX_LOADED_KERNELS);
    for (int i = 0; i < n; i++) {
        if (!is_identifier(kernels[i]))
            return bw_fail(cause, BW_ERR_INVALID, "load: \"%s\" is not a kernel name", kernels[i]);
        snprintf(req->kernels[i], sizeof(req->kernels[i]), "%s", kernels[i]);
    }
    req->n_kernels = n;
    return BW_OK;
}

int runner_load(struct runner *r, const void *image, size_t len, const char *const *kernels, int n,
                struct load_reply *reply, int timeout_ms, char **cause)
{
    struct load_request req;
    int rc;

    memset(reply, 0, sizeof(*reply));
    run_failure_init(&reply->fail);
    memset(&req, 0, sizeof(req));
    if (len > BW_MAX_CUBIN_BYTES)
        return bw_fail(cause, BW_ERR_LIMIT, "load: a cubin of %zu bytes is over BW_MAX_CUBIN_BYTES",
                       len);
    if ((rc = name_kernels(&req, kernels, n, cause)))
        return rc;
    return load_call(r, image, len, &req, reply, timeout_ms, cause);
}

int runner_load_images(struct runner *r, const void *const *images, const size_t *lens,
                       const char *const *symbols, const char *const *names, int n,
                       struct load_reply *reply, int timeout_ms, char **cause)
{
    struct load_request req;
    unsigned char *blob = NULL;
    size_t total = 0;
    int rc;

    memset(reply, 0, sizeof(*reply));
    run_failure_init(&reply->fail);
    memset(&req, 0, sizeof(req));
    if ((rc = name_kernels(&req, names, n, cause)))
        return rc;
    for (int i = 0; i < n; i++) {
        if (lens[i] == 0 || lens[i] > BW_MAX_CUBIN_BYTES)
            return bw_fail(cause, BW_ERR_LIMIT, "load: image %d has %zu bytes (1 to %d)", i,
                           lens[i], BW_MAX_CUBIN_BYTES);
        if (!is_identifier(symbols[i]) || strlen(symbols[i]) > BW_MAX_NAME)
            return bw_fail(cause, BW_ERR_INVALID, "load: \"%s\" is not a kernel symbol",
                           symbols[i]);
        req.images[i].offset = total;
        req.images[i].bytes = lens[i];
        snprintf(req.images[i].symbol, sizeof(req.images[i].symbol), "%s", symbols[i]);
        total += (lens[i] + 7) / 8 * 8;
    }
    req.n_images = n;
    blob = calloc(1, total);
    if (!blob)
        return bw_fail(cause, BW_ERR_NOMEM, "out of memory");
    for (int i = 0; i < n; i++)
        memcpy(blob + req.images[i].offset, images[i], lens[i]);
    rc = load_call(r, blob, total, &req, reply, timeout_ms, cause);
    free(blob);
    return rc;
}

/* Maps a reply's memfd (sealed) into *data / *len; takes ownership of fd. */
static int map_reply(int fd, const uint8_t **data, size_t *len, char **cause)
{
    const void *p = NULL;
    int rc = ipc_memfd_map_sealed(fd, &p, len, cause);

    close(fd);
    *data = p;
    return rc;
}

void run_result_release(struct run_result *res)
{
    if (res->lent)
        lent_unref(res->lent);
    else
        ipc_unmap(res->data, res->data_len);
    res->lent = NULL;
    res->data = NULL;
    res->data_len = 0;
}

const void *run_result_output(const struct run_result *res, int buf, size_t *bytes)
{
    for (int k = 0; k < res->reply.n_outputs; k++) {
        if (res->reply.outputs[k].buf != buf)
            continue;
        *bytes = (size_t)res->reply.outputs[k].bytes;
        return res->data ? res->data + res->reply.outputs[k].offset : NULL;
    }
    *bytes = 0;
    return NULL;
}

/* A sealed memfd of the request's gather indices, or -1 when none are needed. */
static int indices_memfd(const int64_t *idx, size_t n, bool needed, int *fd, char **cause)
{
    *fd = -1;
    if (!needed)
        return BW_OK;
    if (!idx && n > 0)
        return bw_fail(cause, BW_ERR_INVALID, "gather: no indices given");
    return ipc_memfd_from_bytes("indices", idx, n * sizeof(int64_t), fd, cause);
}

/*
 * Whether a call that failed for want of device memory (RUN_ERROR_OUT_OF_MEMORY)
 * is tried again: after BW_RUNNER_OOM_PAUSE_MS, until BW_RUNNER_OOM_RETRY_MS
 * have passed since its first try. The memory it was reserved may still have
 * been held by buffers other runners free just after their replies, or by a
 * discarded runner whose context is being torn down (device_memory.h).
 */
static bool retry_out_of_memory(const struct runner *r, const struct run_failure *f,
                                double first_ms, int *tries)
{
    if (f->status != RUN_ERROR || strcmp(f->error, RUN_ERROR_OUT_OF_MEMORY) != 0 ||
        now_ms() - first_ms >= BW_RUNNER_OOM_RETRY_MS)
        return false;
    if ((*tries)++ == 0) /* the operator's sign, once a call */
        log_info("runner %d: ran short of device memory (%s); trying again for up to %d ms",
                 (int)r->pid, f->message, BW_RUNNER_OOM_RETRY_MS);
    usleep(BW_RUNNER_OOM_PAUSE_MS * 1000);
    return true;
}

static int run_once(struct runner *r, const struct run_request *req, struct run_result *res,
                    int timeout_ms, char **cause)
{
    json_t *request, *msg = NULL;
    int fd = -1, rfd = -1, into = -1, rc;

    memset(res, 0, sizeof(*res));
    run_failure_init(&res->reply.fail);
    if (req->ret == RUN_RETURN_FULL) {
        uint64_t bytes = run_plan_return_bytes(&req->plan);
        if (bytes > 0 && bytes <= BW_RUNNER_LENT_MAX) {
            into = lent_choose(r, bytes, cause);
            if (into == -2)
                return BW_ERR_NOMEM;
        }
    }
    if ((rc = indices_memfd(req->indices, req->n_indices, req->ret == RUN_RETURN_GATHER, &fd,
                            cause)))
        return rc;
    request = run_request_to_json(req);
    if (request && into >= 0) {
        bool lend = !r->lent_sent[into];
        json_object_set_new(request, "into", json_integer(into));
        json_object_set_new(request, "lend", json_boolean(lend));
        if (lend)
            fd = r->lent[into]->fd; /* sent, not closed: the buffer keeps it */
    }
    rc = call(r, request, fd, "result", timeout_ms, run_plan_device_bytes(&req->plan), &msg, &rfd,
              cause);
    if (fd >= 0 && (into < 0 || fd != r->lent[into]->fd))
        close(fd);
    if (rc)
        return rc;
    r->release_ms = release_allowance_ms(&req->plan);
    rc = run_reply_from_json(as_reply_type(msg, "result"), &res->reply, cause);
    json_decref(msg);
    /* A runner that could not serve the request (RUN_ERROR) may not have taken
     * the buffer: it is sent again next time, which is harmless. */
    if (rc == BW_OK && into >= 0 && res->reply.fail.status != RUN_ERROR)
        r->lent_sent[into] = true;
    if (rc) {
        if (rfd >= 0)
            close(rfd);
        return bw_wrap(cause, BW_ERR_PROTOCOL, "the runner's result");
    }
    if (res->reply.fail.status == RUN_OK) {
        if (into >= 0) {
            if (rfd >= 0) {
                close(rfd);
                return bw_fail(cause, BW_ERR_PROTOCOL,
                               "the runner's result carries a memfd; it was lent a buffer");
            }
            res->lent = r->lent[into];
            __atomic_add_fetch(&res->lent->refs, 1, __ATOMIC_ACQ_REL);
            if (res->lent->used < run_plan_return_bytes(&req->plan))
                res->lent->used = (size_t)run_plan_return_bytes(&req->plan);
            res->data = res->lent->map;
            res->data_len = res->lent->size;
        } else if (rfd < 0) {
            return bw_fail(cause, BW_ERR_PROTOCOL, "the runner's result carries no outputs memfd");
        } else if ((rc = map_reply(rfd, &res->data, &res->data_len, cause))) {
            return bw_wrap(cause, BW_ERR_PROTOCOL, "the runner's outputs");
        }
        for (int k = 0; k < res->reply.n_outputs; k++) {
            const struct run_output *o = &res->reply.outputs[k];
            if (o->offset > res->data_len || o->bytes > res->data_len - o->offset ||
                o->buf >= req->plan.n_buffers) {
                run_result_release(res);
                return bw_fail(cause, BW_ERR_PROTOCOL,
                               "the runner's output %d (buffer %d, %llu bytes at %llu) does not "
                               "fit its %zu-byte memfd",
                               k, o->buf, (unsigned long long)o->bytes,
                               (unsigned long long)o->offset, res->data_len);
            }
        }
    } else if (rfd >= 0) {
        close(rfd);
    }
    after_reply(r, &res->reply.fail);
    return BW_OK;
}

int runner_run(struct runner *r, const struct run_request *req, struct run_result *res,
               int timeout_ms, char **cause)
{
    double first = now_ms();
    int rc, tries = 0;

    while ((rc = run_once(r, req, res, timeout_ms, cause)) == BW_OK &&
           retry_out_of_memory(r, &res->reply.fail, first, &tries))
        run_result_release(res);
    return rc;
}

void bench_result_release(struct bench_result *res)
{
    bench_reply_release(&res->reply);
    ipc_unmap(res->gathered, res->gathered_len);
    res->gathered = NULL;
    res->gathered_len = 0;
}

/* The bytes a bench allocates: its plan with every input set, and the L2 flush buffer. */
static uint64_t bench_device_bytes(const struct bench_request *req)
{
    return run_plan_device_bytes_sets(&req->plan, req->sets) + req->l2_flush_bytes;
}

static int bench_once(struct runner *r, const struct bench_request *req, struct bench_result *res,
                      int timeout_ms, char **cause)
{
    json_t *msg = NULL;
    int fd = -1, rfd = -1, rc;

    memset(res, 0, sizeof(*res));
    run_failure_init(&res->reply.fail);
    if ((rc = indices_memfd(req->indices, req->n_indices, req->plan.n_gather > 0, &fd, cause)))
        return rc;
    rc = call(r, bench_request_to_json(req), fd, "bench_result", timeout_ms,
              bench_device_bytes(req), &msg, &rfd, cause);
    if (fd >= 0)
        close(fd);
    if (rc)
        return rc;
    rc = bench_reply_from_json(as_reply_type(msg, "bench_result"), &res->reply, cause);
    json_decref(msg);
    if (rc) {
        if (rfd >= 0)
            close(rfd);
        bench_reply_release(&res->reply);
        return bw_wrap(cause, BW_ERR_PROTOCOL, "the runner's bench_result");
    }
    if (res->reply.fail.status == RUN_OK && res->reply.bytes_per_sample > 0) {
        uint64_t want = res->reply.bytes_per_sample * res->reply.n_samples;
        if (rfd < 0)
            return bw_fail(cause, BW_ERR_PROTOCOL, "the bench_result carries no gathered memfd");
        if ((rc = map_reply(rfd, &res->gathered, &res->gathered_len, cause)))
            return bw_wrap(cause, BW_ERR_PROTOCOL, "the runner's gathered samples");
        if (res->gathered_len != want)
            return bw_fail(cause, BW_ERR_PROTOCOL,
                           "the gathered memfd has %zu bytes, %llu expected (%u samples of %llu)",
                           res->gathered_len, (unsigned long long)want, res->reply.n_samples,
                           (unsigned long long)res->reply.bytes_per_sample);
    } else if (rfd >= 0) {
        close(rfd);
    }
    after_reply(r, &res->reply.fail);
    return BW_OK;
}

int runner_bench(struct runner *r, const struct bench_request *req, struct bench_result *res,
                 int timeout_ms, char **cause)
{
    double first = now_ms();
    int rc, tries = 0;

    while ((rc = bench_once(r, req, res, timeout_ms, cause)) == BW_OK &&
           retry_out_of_memory(r, &res->reply.fail, first, &tries))
        bench_result_release(res);
    return rc;
}

int runner_calibrate(struct runner *r, struct calibration *c, struct run_failure *fail,
                     int timeout_ms, char **cause)
{
    json_t *msg = NULL;
    int rfd = -1, rc;

    memset(c, 0, sizeof(*c));
    run_failure_init(fail);
    rc = call(r, json_pack("{s:s}", "type", "calibrate"), -1, "calibration", timeout_ms, 0, &msg,
              &rfd, cause);
    if (rc)
        return rc;
    if (rfd >= 0)
        close(rfd);
    rc = calibration_from_json(as_reply_type(msg, "calibration"), c, fail, cause);
    json_decref(msg);
    if (rc)
        return bw_wrap(cause, BW_ERR_PROTOCOL, "the runner's calibration");
    after_reply(r, fail);
    return BW_OK;
}

static int profile_once(struct runner *r, const struct profile_request *req,
                        struct profile_reply *reply, int timeout_ms, char **cause)
{
    json_t *msg = NULL;
    int rfd = -1, rc;

    memset(reply, 0, sizeof(*reply));
    run_failure_init(&reply->fail);
    rc = call(r, profile_request_to_json(req), -1, "profile_result", timeout_ms,
              run_plan_device_bytes(&req->plan), &msg, &rfd, cause);
    if (rc)
        return rc;
    if (rfd >= 0)
        close(rfd);
    rc = profile_reply_from_json(as_reply_type(msg, "profile_result"), reply, cause);
    json_decref(msg);
    if (rc)
        return bw_wrap(cause, BW_ERR_PROTOCOL, "the runner's profile");
    after_reply(r, &reply->fail);
    return BW_OK;
}

int runner_profile(struct runner *r, const struct profile_request *req, struct profile_reply *reply,
                   int timeout_ms, char **cause)
{
    double first = now_ms();
    int rc, tries = 0;

    do
        rc = profile_once(r, req, reply, timeout_ms, cause);
    while (rc == BW_OK && retry_out_of_memory(r, &reply->fail, first, &tries));
    return rc;
}
