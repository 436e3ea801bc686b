/*
 * The judged worker loop (judge/worker.c) against the real blockwise-server
 * on loopback, with the real judge: a kernel with a compile error goes
 * through register, claim, bundle download, compile in the sandbox, result
 * and storage, with its events on the stream; a worker killed with SIGKILL
 * mid-job loses its lease, the job is requeued and judged by the next one.
 * On a machine without a GPU a kernel that compiles is left waiting for a
 * GPU worker; with a GPU it gets its verdict.
 *
 * Needs build/bin/blockwise-server and build/bin/blockwise-compile (make all)
 * and curl; skips without them.
 */
#include "tests/test.h"

#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "common/buf.h"
#include "common/error.h"
#include "common/util.h"
#include "judge/judge.h"
#include "judge/worker.h"
#include "common/banned.h"

struct fixture {
    char dir[64];
    char bin[512];
    int port;
    pid_t server;
    char token[128];
    char csrf[128];
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
        FILE *o = freopen(log, "a", stderr);
        (void)o;
        execl(f->bin, f->bin, "-c", conf, (char *)NULL);
        _exit(127);
    }
    for (int i = 0; i < 200; i++) {
        char *ok = sh("curl -s http://127.0.0.1:%d/api/health", f->port);
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
    if (!ok)
        return false;
    snprintf(f->dir, sizeof(f->dir), "/tmp/bw-test-worker.XXXXXX");
    if (!mkdtemp(f->dir))
        return false;
    srand((unsigned)time(NULL) ^ (unsigned)getpid());
    f->port = 40000 + rand() % 20000;
    char conf[4096];
    snprintf(conf, sizeof(conf),
             "port = %d\ndatabase = %s/db\nproblems = tests/fixtures/problems\nweb = \"\"\n"
             "pwhash_ops = 1\npwhash_mem_kib = 8192\nlease = 3\nclaim_wait = 1\n"
             "quota_in_flight = 10\n",
             f->port, f->dir);
    char path[256];
    snprintf(path, sizeof(path), "%s/server.conf", f->dir);
    if (write_file_atomic(path, conf, strlen(conf), NULL) < 0)
        return false;
    char *tok = sh("'%s' -c '%s' create-worker w1 --token-file '%s/w.token' >/dev/null && cat "
                   "'%s/w.token'",
                   f->bin, path, f->dir, f->dir);
    if (!tok || strncmp(tok, "bww_", 4) != 0) {
        free(tok);
        return false;
    }
    snprintf(f->token, sizeof(f->token), "%s", tok);
    free(tok);
    if (!start_server(f))
        return false;
    char *csrf =
        sh("curl -s -c '%s/jar' -H 'Content-Type: application/json' "
           "-d '{\"name\":\"learner\",\"password\":\"password-1\"}' "
           "http://127.0.0.1:%d/api/auth/signup | sed -n 's/.*\"csrf\":\"\\([^\"]*\\)\".*/\\1/p'",
           f->dir, f->port);
    snprintf(f->csrf, sizeof(f->csrf), "%s", csrf ? csrf : "");
    free(csrf);
    return f->csrf[0] != '\0';
}

static void fixture_release(struct fixture *f)
{
    if (f->server > 0) {
        kill(f->server, SIGTERM);
        waitpid(f->server, NULL, 0);
    }
    if (f->dir[0]) {
        char *out = sh("rm -rf '%s'", f->dir);
        free(out);
    }
}

/* Submits a source file's text; returns the id or 0. */
static long submit(struct fixture *f, const char *source_file, const char *mode)
{
    char *id = sh("jq -n --rawfile s '%s' '{problem: \"vector-add\", mode: \"%s\", source: $s}' | "
                  "curl -s -b '%s/jar' -H 'X-CSRF-Token: %s' -H 'Content-Type: application/json' "
                  "--data-binary @- http://127.0.0.1:%d/api/submissions | jq -r .id",
                  source_file, mode, f->dir, f->csrf, f->port);
    int64_t v = 0;
    bool ok = id && parse_i64(id, &v);
    free(id);
    return ok ? (long)v : 0;
}

static char *field(struct fixture *f, long id, const char *jq)
{
    return sh("curl -s -b '%s/jar' http://127.0.0.1:%d/api/submissions/%ld | jq -r '%s'", f->dir,
              f->port, id, jq);
}

static void run_worker(struct fixture *f, int jobs, struct judge_config *jc)
{
    char url[64], cache[128];
    snprintf(url, sizeof(url), "http://127.0.0.1:%d", f->port);
    snprintf(cache, sizeof(cache), "%s/cache", f->dir);
    struct worker_config wc = {0};
    wc.server = url;
    wc.token = f->token;
    wc.cache_dir = cache;
    wc.hostname = "test-node";
    wc.max_jobs = jobs;
    wc.claim_wait_s = 1;
    char *cause = NULL;
    int rc = worker_run(&wc, jc, &cause);
    CHECK_MSG(rc == BW_OK, "worker_run: %s", cause ? cause : "?");
    free(cause);
}

TEST(worker_judges_a_compile_error_end_to_end)
{
    struct fixture f;
    if (!fixture_init(&f)) {
        fixture_release(&f);
        SKIP("needs make all (blockwise-server, blockwise-compile), curl and jq");
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
    run_worker(&f, 1, &jc);

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

TEST(worker_killed_mid_job_loses_nothing)
{
    struct fixture f;
    if (!fixture_init(&f)) {
        fixture_release(&f);
        SKIP("needs make all (blockwise-server, blockwise-compile), curl and jq");
    }
    char src[256];
    snprintf(src, sizeof(src), "%s/ok.cu", f.dir);
    char *text = NULL;
    size_t len = 0;
    CHECK_INT_EQ(
        read_file("tests/fixtures/problems/vector-add/solution.cu", 1 << 20, &text, &len, NULL),
        BW_OK);
    write_file_atomic(src, text, len, NULL);
    free(text);
    long id = submit(&f, src, "submit");
    CHECK(id > 0);

    struct judge_config jc = {0};
    char cache[128], *cause = NULL;
    snprintf(cache, sizeof(cache), "%s/cache", f.dir);
    jc.cache_dir = cache;
    CHECK_INT_EQ(judge_probe_gpu(&jc, false, &cause), BW_OK);

    /* A worker that claims, then dies with SIGKILL as soon as it holds the job. */
    pid_t child = fork();
    if (child == 0) {
        run_worker(&f, 1, &jc);
        _exit(0);
    }
    char *st = NULL;
    for (int i = 0; i < 200; i++) {
        free(st);
        st = field(&f, id, ".state");
        if (st && strcmp(st, "judging") == 0)
            break;
        usleep(20 * 1000);
    }
    CHECK_STR_EQ(st, "judging");
    kill(child, SIGKILL);
    waitpid(child, NULL, 0);
    /* The lease expires (3 s) and the job is queued again. */
    for (int i = 0; i < 100; i++) {
        free(st);
        st = field(&f, id, ".state + \" \" + (.attempts | tostring)");
        if (st && strcmp(st, "queued 1") == 0)
            break;
        usleep(100 * 1000);
    }
    CHECK_STR_EQ(st, "queued 1");
    /* The next worker judges it: a verdict with a GPU, else compiled and
     * waiting for one. */
    run_worker(&f, 1, &jc);
    free(st);
    st = field(&f, id,
               "(.state) + \" \" + (.verdict // \"-\") + \" \" + (.waiting_for_gpu | tostring)");
    if (jc.have_gpu)
        CHECK_STR_EQ(st, "done AC false");
    else
        CHECK_STR_EQ(st, "queued - true");
    char *leases = sh("curl -s http://127.0.0.1:%d/metrics | grep '^blockwise_judging '", f.port);
    CHECK_STR_EQ(leases, "blockwise_judging 0"); /* nothing held twice */
    free(leases);
    free(st);
    free(cause);
    judge_config_release(&jc);
    fixture_release(&f);
}
