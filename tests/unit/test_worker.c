/*
 * The judged worker loop (judge/worker/worker.c) against the real blockwise-server
 * on loopback, with the real judge: a kernel with a compile error goes
 * through register, claim, bundle download, compile in the sandbox, result
 * and storage, with its events on the stream; a worker killed with SIGKILL
 * mid-job loses its lease, the job is requeued and judged by the next one.
 * On a machine without a GPU a kernel that compiles is left waiting for a
 * GPU worker; with a GPU it gets its verdict.
 *
 * Nothing here waits without a deadline: every state is polled for with a
 * time limit (failing with what was last seen), every worker_run is stopped
 * by a watchdog after its limit (its stop flag), every curl has -m, and the
 * server dies with the test (PR_SET_PDEATHSIG).
 *
 * Needs build/bin/blockwise-server and build/bin/blockwise-compile (make all)
 * and curl; skips without them.
 */
#include "tests/test.h"

#include <dirent.h>
#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "common/buf.h"
#include "common/error.h"
#include "common/util.h"
#include "judge/worker/judge.h"
#include "judge/worker/worker.h"
#include "common/banned.h"

struct fixture {
    char dir[64];
    char bin[512];
    int port;
    pid_t server;
    char token[128];
    char csrf[128];
    bool missing;  /* fixture_init: a prerequisite is missing (a skip, not a failure) */
    char why[512]; /* fixture_init: what failed */
};

/* Runs a shell command and returns its stdout (new, trimmed), or NULL. */
static char *sh(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static char *sh(const char *fmt, ...)
{
    char cmd[4096];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(cmd, sizeof(cmd), fmt, ap);
    va_end(ap);
    FILE *p = popen(cmd, "r");
    if (!p)
        return NULL;
    struct buf b;
    buf_init(&b, 1 << 20);
    char chunk[4096];
    size_t n;
    while ((n = fread(chunk, 1, sizeof(chunk), p)) > 0)
        buf_append(&b, chunk, n);
    pclose(p);
    char *s = buf_detach(&b);
    if (s) {
        size_t len = strlen(s);
        while (len > 0 && (s[len - 1] == '\n' || s[len - 1] == '\r'))
            s[--len] = '\0';
    }
    return s;
}

static bool start_server(struct fixture *f)
{
    char conf[256], log[256];
    snprintf(conf, sizeof(conf), "%s/server.conf", f->dir);
    snprintf(log, sizeof(log), "%s/server.log", f->dir);
    f->server = fork();
    if (f->server == 0) {
        prctl(PR_SET_PDEATHSIG, SIGTERM);
        FILE *o = freopen(log, "a", stderr);
        (void)o;
        execl(f->bin, f->bin, "-c", conf, (char *)NULL);
        _exit(127);
    }
    for (int i = 0; i < 200; i++) {
        char *ok = sh("curl -s -m 2 http://127.0.0.1:%d/api/health", f->port);
        bool up = ok && strstr(ok, "\"ok\"");
        free(ok);
        if (up)
            return true;
        usleep(50 * 1000);
    }
    return false;
}

static bool fixture_init(struct fixture *f)
{
    memset(f, 0, sizeof(*f));
    char *here = realpath("build/bin/blockwise-server", NULL);
    char *compile = realpath("build/bin/blockwise-compile", NULL);
    char *runner = realpath("build/bin/blockwise-runner", NULL);
    char *curl = sh("command -v curl && command -v jq");
    bool ok = here && compile && runner && curl && *curl;
    if (ok) {
        snprintf(f->bin, sizeof(f->bin), "%s", here);
        setenv("BLOCKWISE_COMPILE", compile, 1);
        setenv("BLOCKWISE_RUNNER", runner, 1);
    }
    free(here);
    free(compile);
    free(runner);
    free(curl);
    if (!ok) {
        f->missing = true;
        return false;
    }
    snprintf(f->dir, sizeof(f->dir), "/tmp/bw-test-worker.XXXXXX");
    if (!mkdtemp(f->dir)) {
        snprintf(f->why, sizeof(f->why), "mkdtemp: %s", strerror(errno));
        return false;
    }
    srand((unsigned)time(NULL) ^ (unsigned)getpid());
    char path[256];
    snprintf(path, sizeof(path), "%s/server.conf", f->dir);
    /* A random port may be taken: a few tries, each with its own config. */
    for (int attempt = 0; attempt < 5; attempt++) {
        char conf[4096];
        f->port = 20000 + rand() % 12000; /* below the ephemeral ports (32768-) */
        snprintf(conf, sizeof(conf),
                 "port = %d\ndatabase = %s/db\nproblems = tests/fixtures/problems\nweb = \"\"\n"
                 "pwhash_ops = 1\npwhash_mem_kib = 8192\nlease = 3\nclaim_wait = 1\n"
                 "quota_in_flight = 10\n",
                 f->port, f->dir);
        if (write_file_atomic(path, conf, strlen(conf), NULL) < 0) {
            snprintf(f->why, sizeof(f->why), "cannot write %s", path);
            return false;
        }
        if (attempt == 0) {
            char *tok = sh("timeout 30 '%s' -c '%s' create-worker w1 --token-file '%s/w.token' "
                           ">/dev/null && cat '%s/w.token'",
                           f->bin, path, f->dir, f->dir);
            if (!tok || strncmp(tok, "bww_", 4) != 0) {
                snprintf(f->why, sizeof(f->why), "create-worker gave no token (%s)",
                         tok ? tok : "no output");
                free(tok);
                return false;
            }
            snprintf(f->token, sizeof(f->token), "%s", tok);
            free(tok);
        }
        if (start_server(f))
            break;
        if (f->server > 0) {
            kill(f->server, SIGKILL);
            waitpid(f->server, NULL, 0);
            f->server = 0;
        }
        char *last = sh("tail -n 1 '%s/server.log'", f->dir);
        snprintf(f->why, sizeof(f->why), "the server did not answer on port %d within 10 s: %s",
                 f->port, last && *last ? last : "(no log)");
        free(last);
    }
    if (f->server == 0)
        return false;
    f->why[0] = '\0';
    char *csrf =
        sh("curl -s -m 10 -c '%s/jar' -H 'Content-Type: application/json' "
           "-d '{\"name\":\"learner\",\"password\":\"password-1\"}' "
           "http://127.0.0.1:%d/api/auth/signup | sed -n 's/.*\"csrf\":\"\\([^\"]*\\)\".*/\\1/p'",
           f->dir, f->port);
    snprintf(f->csrf, sizeof(f->csrf), "%s", csrf ? csrf : "");
    free(csrf);
    if (f->csrf[0] == '\0')
        snprintf(f->why, sizeof(f->why), "signing up a learner gave no CSRF token");
    return f->csrf[0] != '\0';
}

static double mono_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* Reaps child `pid` if it exits within limit_s. */
static bool reap_within(pid_t pid, double limit_s)
{
    double end = mono_s() + limit_s;
    do {
        if (waitpid(pid, NULL, WNOHANG) == pid)
            return true;
        usleep(20 * 1000);
    } while (mono_s() < end);
    return false;
}

static void fixture_release(struct fixture *f)
{
    if (f->server > 0) {
        kill(f->server, SIGTERM);
        if (!reap_within(f->server, 10)) {
            kill(f->server, SIGKILL);
            waitpid(f->server, NULL, 0);
        }
    }
    if (f->dir[0]) {
        char *out = sh("rm -rf '%s'", f->dir);
        free(out);
    }
}

/* Submits a source file's text; returns the id or 0. */
static long submit(struct fixture *f, const char *source_file, const char *mode)
{
    char *id =
        sh("jq -n --rawfile s '%s' '{problem: \"vector-add\", mode: \"%s\", source: $s}' | "
           "curl -s -m 10 -b '%s/jar' -H 'X-CSRF-Token: %s' -H 'Content-Type: application/json' "
           "--data-binary @- http://127.0.0.1:%d/api/submissions | jq -r .id",
           source_file, mode, f->dir, f->csrf, f->port);
    int64_t v = 0;
    bool ok = id && parse_i64(id, &v);
    free(id);
    return ok ? (long)v : 0;
}

static char *field(struct fixture *f, long id, const char *jq)
{
    return sh("curl -s -m 10 -b '%s/jar' http://127.0.0.1:%d/api/submissions/%ld | jq -r '%s'",
              f->dir, f->port, id, jq);
}

/* Polls the submission's `jq` until it reads `want` or limit_s pass;
 * returns the last value read (new; may be NULL). */
static char *wait_field(struct fixture *f, long id, const char *jq, const char *want,
                        double limit_s)
{
    double end = mono_s() + limit_s;
    char *v = NULL;
    for (;;) {
        free(v);
        v = field(f, id, jq);
        if ((v && strcmp(v, want) == 0) || mono_s() >= end)
            return v;
        usleep(50 * 1000);
    }
}

/* Sets a worker's stop flag when its time is up (unless cancelled first). */
struct watchdog {
    pthread_mutex_t lock;
    pthread_cond_t cond;
    bool cancelled, fired;
    double limit_s;
    volatile sig_atomic_t stop; /* the worker's wc.stop */
    pthread_t thread;
};

static void *watchdog_main(void *arg)
{
    struct watchdog *wd = arg;
    struct timespec until;
    clock_gettime(CLOCK_REALTIME, &until);
    until.tv_sec += (time_t)wd->limit_s;
    pthread_mutex_lock(&wd->lock);
    while (!wd->cancelled) {
        if (pthread_cond_timedwait(&wd->cond, &wd->lock, &until) != 0 && !wd->cancelled) {
            wd->fired = true;
            wd->stop = 1;
            break;
        }
    }
    pthread_mutex_unlock(&wd->lock);
    return NULL;
}

/*
 * Runs a worker until it has judged `jobs` jobs, or for at most limit_s
 * seconds: then its stop flag is raised (an idle worker returns at once, a
 * busy one gives its job back after grace_s) and the test fails, saying so.
 */
static void run_worker(struct fixture *f, int jobs, struct judge_config *jc, double limit_s)
{
    char url[64], cache[128];
    snprintf(url, sizeof(url), "http://127.0.0.1:%d", f->port);
    snprintf(cache, sizeof(cache), "%s/cache", f->dir);
    struct watchdog wd = {.limit_s = limit_s};
    pthread_mutex_init(&wd.lock, NULL);
    pthread_cond_init(&wd.cond, NULL);
    struct worker_config wc = {0};
    wc.server = url;
    wc.token = f->token;
    wc.cache_dir = cache;
    wc.hostname = "test-node";
    wc.max_jobs = jobs;
    wc.claim_wait_s = 1;
    wc.grace_s = 2;
    wc.stop = &wd.stop;
    bool watched = pthread_create(&wd.thread, NULL, watchdog_main, &wd) == 0;
    CHECK_MSG(watched, "cannot start the watchdog thread");
    char *cause = NULL;
    int rc = watched ? worker_run(&wc, jc, &cause) : BW_ERR_SYSTEM;
    if (watched) {
        pthread_mutex_lock(&wd.lock);
        wd.cancelled = true;
        pthread_cond_signal(&wd.cond);
        pthread_mutex_unlock(&wd.lock);
        pthread_join(wd.thread, NULL);
    }
    CHECK_MSG(rc == BW_OK, "worker_run: %s", cause ? cause : "?");
    CHECK_MSG(!wd.fired, "the worker had not judged its %d job%s after %.0f s: stopped", jobs,
              jobs == 1 ? "" : "s", limit_s);
    free(cause);
    pthread_cond_destroy(&wd.cond);
    pthread_mutex_destroy(&wd.lock);
}

TEST(worker_judges_a_compile_error_end_to_end)
{
    struct fixture f;
    if (!fixture_init(&f)) {
        bool missing = f.missing;
        CHECK_MSG(missing, "the fixture did not start: %s", f.why);
        fixture_release(&f);
        if (missing)
            SKIP("needs make all (blockwise-server, blockwise-compile), curl and jq");
        return;
    }
    char src[256];
    snprintf(src, sizeof(src), "%s/ce.cu", f.dir);
    const char *ce = "// @launch vector_add grid=(cdiv(N, 256)) block=(256) args=(x, y, out, N)\n"
                     "extern \"C\" __global__ void vector_add(const float* x, const float* y,\n"
                     "                                        float* out, long long N)\n"
                     "{\n    out[0] = x[0] + y[0]   // missing semicolon\n}\n";
    write_file_atomic(src, ce, strlen(ce), NULL);
    long id = submit(&f, src, "run");
    CHECK(id > 0);
    /* Watch the stream while the worker runs. */
    char *bg = sh("curl -sN -m 60 -b '%s/jar' http://127.0.0.1:%d/api/submissions/%ld/events "
                  "> '%s/events' 2>/dev/null & echo $!",
                  f.dir, f.port, id, f.dir);
    usleep(300 * 1000);

    struct judge_config jc = {0};
    char cache[128], *cause = NULL;
    snprintf(cache, sizeof(cache), "%s/cache", f.dir);
    jc.cache_dir = cache;
    CHECK_INT_EQ(judge_probe_gpu(&jc, false, &cause), BW_OK);
    run_worker(&f, 1, &jc, 120);

    char *state = field(&f, id, ".state + \" \" + .verdict");
    CHECK_STR_EQ(state, "done CE");
    char *log = field(&f, id, ".result.compile_log + (.result.diagnostics | tostring)");
    CHECK_CONTAINS(log, "expected a \";\""); /* NVRTC's words, at the learner's line */
    char *cached = sh("ls -d '%s'/cache/bundles/*/vector-add | sed 's|.*/bundles/||'", f.dir);
    CHECK(cached && strlen(cached) == 64 + strlen("/vector-add")); /* under its hash */
    usleep(300 * 1000);
    char *events = sh("cat '%s/events'", f.dir);
    CHECK_CONTAINS(events, "event: judging");
    CHECK_CONTAINS(events, "event: compiling");
    CHECK_CONTAINS(events, "event: done");
    CHECK_CONTAINS(events, "\"verdict\":\"CE\"");
    free(events);
    free(cached);
    free(log);
    free(state);
    free(sh("kill %s 2>/dev/null", bg ? bg : "0"));
    free(bg);
    free(cause);
    judge_config_release(&jc);
    fixture_release(&f);
}

/* Calls fn on the pid of each stand-in compiler that has started (each
 * makes the directory "compiling.PID"); returns how many there were. */
static int stand_ins(const struct fixture *f, void (*fn)(pid_t))
{
    DIR *d = opendir(f->dir);
    struct dirent *e;
    int n = 0;
    while (d && (e = readdir(d))) {
        int64_t v;
        if (strncmp(e->d_name, "compiling.", 10) == 0 && parse_i64(e->d_name + 10, &v) && v > 0) {
            n++;
            if (fn)
                fn((pid_t)v);
        }
    }
    if (d)
        closedir(d);
    return n;
}

/* A stand-in leads its own session (the sandbox's setsid). */
static void kill_stand_in(pid_t pid)
{
    kill(-pid, SIGKILL);
}

/*
 * A worker killed while it holds the job. It must still hold it when the
 * SIGKILL comes: the job's compile step is a stand-in for blockwise-compile
 * that says it started and never ends. (With the real compiler a GPU-less
 * worker finishes this job in about 0.5 s - compiled, handed back as waiting
 * for a GPU with its attempts reset to 0 - so a poller that saw "judging" a
 * little late killed a worker that no longer held anything: issue 12's
 * "queued 0" != "queued 1", then a 27-minute hang in the next worker's claim,
 * since a GPU-less worker never gets a job that waits for a GPU.)
 */
TEST(worker_killed_mid_job_loses_nothing)
{
    struct fixture f;
    if (!fixture_init(&f)) {
        bool missing = f.missing;
        CHECK_MSG(missing, "the fixture did not start: %s", f.why);
        fixture_release(&f);
        if (missing)
            SKIP("needs make all (blockwise-server, blockwise-compile), curl and jq");
        return;
    }
    char src[256], stand_in[256];
    snprintf(src, sizeof(src), "%s/ok.cu", f.dir);
    char *text = NULL;
    size_t len = 0;
    CHECK_INT_EQ(
        read_file("tests/fixtures/problems/vector-add/solution.cu", 1 << 20, &text, &len, NULL),
        BW_OK);
    write_file_atomic(src, text, len, NULL);
    free(text);
    snprintf(stand_in, sizeof(stand_in), "%s/compile-forever", f.dir);
    char script[512];
    snprintf(script, sizeof(script),
             "#!/bin/sh\nPATH=/usr/bin:/bin\nmkdir '%s/compiling.'$$ && exec sleep 120\n", f.dir);
    CHECK_INT_EQ(write_file_atomic(stand_in, script, strlen(script), NULL), BW_OK);
    chmod(stand_in, 0755);
    long id = submit(&f, src, "submit");
    CHECK(id > 0);

    struct judge_config jc = {0};
    char cache[128], *cause = NULL;
    snprintf(cache, sizeof(cache), "%s/cache", f.dir);
    jc.cache_dir = cache;
    CHECK_INT_EQ(judge_probe_gpu(&jc, false, &cause), BW_OK);

    /* A worker that claims the job and is killed while it compiles it. */
    pid_t child = fork();
    if (child == 0) {
        prctl(PR_SET_PDEATHSIG, SIGKILL);
        setenv("BLOCKWISE_COMPILE", stand_in, 1);
        run_worker(&f, 1, &jc, 60);
        _exit(0);
    }
    bool compiling = false, child_exited = false;
    double end = mono_s() + 60;
    while (!(compiling = stand_ins(&f, NULL) > 0) && mono_s() < end) {
        if (waitpid(child, NULL, WNOHANG) == child) {
            child_exited = true;
            break;
        }
        usleep(20 * 1000);
    }
    CHECK_MSG(compiling, "the worker never started compiling the job (%s)",
              child_exited ? "it exited" : "not within 60 s");
    char *st = field(&f, id, ".state + \" \" + (.attempts | tostring)");
    CHECK_STR_EQ(st, "judging 1");
    if (!child_exited) {
        kill(child, SIGKILL);
        waitpid(child, NULL, 0);
    }
    stand_ins(&f, kill_stand_in); /* the dead worker starts no more of them */
    /* The lease expires (3 s) and the job is queued again, the attempt counted. */
    free(st);
    st = wait_field(&f, id, ".state + \" \" + (.attempts | tostring)", "queued 1", 30);
    CHECK_STR_EQ(st, "queued 1");
    /* The next worker judges it: a verdict with a GPU, else compiled and
     * waiting for one. */
    if (!test_failed())
        run_worker(&f, 1, &jc, 120);
    free(st);
    st = field(&f, id,
               "(.state) + \" \" + (.verdict // \"-\") + \" \" + (.waiting_for_gpu | tostring)");
    if (jc.have_gpu)
        CHECK_STR_EQ(st, "done AC false");
    else
        CHECK_STR_EQ(st, "queued - true");
    char *leases =
        sh("curl -s -m 10 http://127.0.0.1:%d/metrics | grep '^blockwise_judging '", f.port);
    CHECK_STR_EQ(leases, "blockwise_judging 0"); /* nothing held twice */
    free(leases);
    free(st);
    free(cause);
    judge_config_release(&jc);
    fixture_release(&f);
}
