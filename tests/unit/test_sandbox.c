/*
 * Tests of the sandbox mechanisms without NVRTC: the spawn helper (judge/spawn:
 * fd layout, environment, signals, process group, rlimits, death with its
 * parent, failures before exec), the job runner (judge/sandbox_job: fd
 * layout, empty environment, wall-clock kill of the whole group, result cap,
 * output cap) with small shell programs, a job started ahead of its input
 * (a stream request, waiting for its first bytes, the wall limit counted from
 * finish, an unfinished job released), the child's set-up steps
 * (judge/sandbox) applied to a forked test process, which then probes what it
 * can still see and do, and a root of file and device binds. Every wait has
 * a deadline of a few seconds.
 */
#include "tests/test.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "common/buf.h"
#include "common/error.h"
#include "common/util.h"
#include "judge/sandbox/sandbox.h"
#include "judge/sandbox/sandbox_job.h"
#include "judge/sandbox/spawn.h"
#include "common/banned.h"

/* Runs `sh -c script` as a job; returns sandbox_job_run's code. */
static int run_sh(struct sandbox_job *job, const char *script, int request_fd)
{
    char *argv[] = {"/bin/sh", "-c", (char *)script, NULL};
    char *cause = NULL;
    int rc;

    job->path = "/bin/sh";
    job->argv = argv;
    job->request_fd = request_fd;
    rc = sandbox_job_run(job, &cause);
    if (rc)
        printf("  sandbox_job_run: %s\n", cause);
    free(cause);
    return rc;
}

TEST(job_fd_layout_and_empty_environment)
{
    struct sandbox_job job;
    char tmpl[] = "/tmp/bw-sandbox-request-XXXXXX";
    int fd = mkstemp(tmpl);

    CHECK(fd >= 0);
    CHECK(write(fd, "the request", 11) == 11);
    lseek(fd, 0, SEEK_SET);
    unlink(tmpl);
    /* An fd the test leaves open across exec (no O_CLOEXEC) must not reach the child. */
    CHECK(dup2(fd, 50) == 50);
    setenv("BW_SECRET_CANARY", "bw-canary-in-the-parent", 1);
    sandbox_job_init(&job, 10000, 4096, 4096);
    CHECK_INT_EQ(run_sh(&job,
                        "cat <&3 >&4; printf ' env=[%s]' \"$(env | grep -v '^PWD=' | "
                        "grep -v '^SHLVL=' | grep -v '^_=')\" >&4; echo to-stderr >&2; "
                        "read x && echo stdin-had-data >&4; "
                        "for f in 0 1 2 3 4 50; do [ -e /proc/$$/fd/$f ] && printf ' fd%s' $f >&4; "
                        "done; exit 7",
                        fd),
                 BW_OK);
    CHECK(WIFEXITED(job.status) && WEXITSTATUS(job.status) == 7);
    CHECK(!job.timed_out && !job.result_overflow);
    CHECK_STR_EQ(job.result.data, "the request env=[] fd0 fd1 fd2 fd3 fd4");
    CHECK_CONTAINS(job.output.data, "to-stderr");
    CHECK(job.ms > 0);
    sandbox_job_release(&job);
    close(50);
    close(fd);
}

TEST(job_wall_limit_kills_the_whole_group)
{
    struct sandbox_job job;
    double t0 = now_ms();

    sandbox_job_init(&job, 300, 4096, 4096);
    /* a grandchild that keeps the pipes open must die too */
    CHECK_INT_EQ(run_sh(&job, "sleep 30 & sleep 30; echo never >&4", -1), BW_OK);
    CHECK(job.timed_out);
    CHECK(WIFSIGNALED(job.status) && WTERMSIG(job.status) == SIGKILL);
    CHECK(job.result.len == 0);
    CHECK_MSG(now_ms() - t0 < 5000, "took %.0f ms", now_ms() - t0);
    sandbox_job_release(&job);
}

TEST(job_result_cap_kills)
{
    struct sandbox_job job;

    sandbox_job_init(&job, 10000, 1000, 4096);
    CHECK_INT_EQ(run_sh(&job, "yes >&4", -1), BW_OK);
    CHECK(job.result_overflow && !job.timed_out);
    CHECK(job.result.len == 1000);
    CHECK(WIFSIGNALED(job.status));
    sandbox_job_release(&job);
}

TEST(job_output_cap_drops_the_rest)
{
    struct sandbox_job job;

    sandbox_job_init(&job, 10000, 1000, 100);
    CHECK_INT_EQ(run_sh(&job, "head -c 100000 /dev/zero | tr '\\0' x; echo done >&4", -1), BW_OK);
    CHECK(WIFEXITED(job.status) && WEXITSTATUS(job.status) == 0);
    CHECK_INT_EQ(job.output.len, 100);
    CHECK_STR_EQ(job.result.data, "done\n");
    sandbox_job_release(&job);
}

TEST(job_missing_program)
{
    struct sandbox_job job;
    char *argv[] = {"/nonexistent/program", NULL};
    char *cause = NULL;

    sandbox_job_init(&job, 1000, 100, 100);
    job.path = argv[0];
    job.argv = argv;
    CHECK_INT_EQ(sandbox_job_run(&job, &cause), BW_ERR_NOTFOUND);
    CHECK_CONTAINS(cause, "/nonexistent/program");
    sandbox_job_release(&job);
    free(cause);
}

TEST(signal_names)
{
    CHECK_STR_EQ(spawn_signal_name(SIGSEGV), "SIGSEGV");
    CHECK_STR_EQ(spawn_signal_name(SIGSYS), "SIGSYS");
    CHECK_STR_EQ(spawn_signal_name(1000), "signal 1000");
}

TEST(job_chosen_environment)
{
    char *env[] = {"TMPDIR=/work/tmp", "TRITON_CACHE_DIR=/work/cache", NULL};
    struct sandbox_job job;

    sandbox_job_init(&job, 10000, 4096, 4096);
    job.env = env;
    CHECK_INT_EQ(
        run_sh(&job, "env | grep -v '^PWD=' | grep -v '^SHLVL=' | grep -v '^_=' | sort >&4", -1),
        BW_OK);
    CHECK(WIFEXITED(job.status) && WEXITSTATUS(job.status) == 0);
    CHECK_STR_EQ(job.result.data, "TMPDIR=/work/tmp\nTRITON_CACHE_DIR=/work/cache\n");
    sandbox_job_release(&job);
}

/* ---- the spawn helper ------------------------------------------------------------------- */

#define SPAWN_WAIT_MS 5000 /* what a spawned test child gets before it is killed */

/*
 * Starts s with its fd 1 on a pipe and collects what the child writes there
 * until it closes it or SPAWN_WAIT_MS pass (then the child is killed); reaps
 * it into *status. Returns spawn_start's code (its cause printed).
 */
static int spawn_collect(struct spawn *s, char *out, size_t cap, int *status)
{
    int p[2], rc;
    size_t got = 0;
    double deadline = now_ms() + SPAWN_WAIT_MS;
    char *cause = NULL;

    out[0] = '\0';
    *status = -1;
    if (pipe2(p, O_CLOEXEC) < 0)
        return BW_ERR_SYSTEM;
    s->fds[1] = p[1];
    rc = spawn_start(s, &cause);
    close(p[1]);
    if (rc) {
        printf("  spawn_start: %s\n", cause);
        free(cause);
        close(p[0]);
        return rc;
    }
    for (;;) {
        struct pollfd pf = {.fd = p[0], .events = POLLIN};
        double left = deadline - now_ms();
        ssize_t n;
        if (left <= 0 || poll(&pf, 1, (int)left + 1) <= 0)
            break;
        n = read(p[0], out + got, cap - 1 - got);
        if (n <= 0)
            break;
        got += (size_t)n;
        out[got] = '\0';
    }
    close(p[0]);
    if (now_ms() >= deadline)
        spawn_kill_group(s->pid);
    waitpid(s->pid, status, 0);
    return BW_OK;
}

/* Runs fn(out) in a forked child; returns what it wrote (up to cap) after it ended. */
static void in_child(void (*fn)(int out), char *text, size_t cap, int *status)
{
    int p[2];
    size_t got = 0;
    pid_t pid;

    text[0] = '\0';
    *status = -1;
    if (pipe(p) < 0)
        return;
    pid = fork();
    if (pid == 0) {
        close(p[0]);
        fn(p[1]);
        _exit(0);
    }
    close(p[1]);
    for (ssize_t n; (n = read(p[0], text + got, cap - 1 - got)) > 0;)
        got += (size_t)n;
    text[got] = '\0';
    close(p[0]);
    waitpid(pid, status, 0);
}

TEST(spawn_environment_is_empty_or_chosen)
{
    char *argv[] = {"/usr/bin/env", NULL}, *env[] = {"A=1", "B=two words", NULL}, out[4096];
    struct spawn s;
    int status;

    setenv("BW_SECRET_CANARY", "bw-canary-in-the-parent", 1);
    spawn_init(&s);
    s.path = argv[0];
    s.argv = argv;
    CHECK_INT_EQ(spawn_collect(&s, out, sizeof(out), &status), BW_OK);
    CHECK(WIFEXITED(status) && WEXITSTATUS(status) == 0);
    CHECK_STR_EQ(out, "");
    spawn_init(&s);
    s.path = argv[0];
    s.argv = argv;
    s.env = env;
    CHECK_INT_EQ(spawn_collect(&s, out, sizeof(out), &status), BW_OK);
    CHECK_STR_EQ(out, "A=1\nB=two words\n");
}

/* In a forked child: fds 3 and 4 hold files "A" and "B"; the layout swaps them, puts a socket
 * at 5, leaves 6 closed, inherits 2, and 50 (no O_CLOEXEC) must not get through. */
static _Noreturn void swap_layout_child(int out)
{
    static const char script[] =
        "for f in 0 1 2 3 4 5 6 7 50; do [ -e /proc/$$/fd/$f ] && printf 'fd%s ' $f; done; "
        "printf 'in=%s ' \"$(readlink /proc/$$/fd/0)\"; "
        "printf '3=%s 4=%s ' \"$(cat <&3)\" \"$(cat <&4)\"; "
        "case \"$(readlink /proc/$$/fd/5)\" in socket:*) printf 'sock ';; esac; "
        "echo done";
    char *argv[] = {"/bin/sh", "-c", (char *)script, NULL}, text[1024];
    char a[] = "/tmp/bw-spawn-a-XXXXXX", b[] = "/tmp/bw-spawn-b-XXXXXX";
    int fa = mkstemp(a), fb = mkstemp(b), sv[2], status;
    struct spawn s;

    /* The pipe to the test may be fd 3 or 4 itself: out of the way first. */
    if (dup2(out, 30) != 30 || fa < 0 || fb < 0 || write(fa, "A", 1) != 1 ||
        write(fb, "B", 1) != 1 || socketpair(AF_UNIX, SOCK_STREAM, 0, sv) < 0)
        _exit(2);
    close(out);
    out = 30;
    unlink(a);
    unlink(b);
    lseek(fa, 0, SEEK_SET);
    lseek(fb, 0, SEEK_SET);
    if (dup2(fa, 3) != 3 || dup2(fb, 4) != 4 || dup2(fa, 50) != 50)
        _exit(2);
    spawn_init(&s);
    s.path = argv[0];
    s.argv = argv;
    s.fds[0] = SPAWN_FD_NULL;
    s.fds[2] = SPAWN_FD_INHERIT;
    s.fds[3] = 4;
    s.fds[4] = 3;
    s.fds[5] = sv[1];
    s.fds[6] = SPAWN_FD_CLOSED;
    s.n_fds = 7;
    if (spawn_collect(&s, text, sizeof(text), &status) != BW_OK)
        _exit(3);
    dprintf(out, "%s", text);
    _exit(0);
}

TEST(spawn_fd_layout)
{
    char text[1024] = {0};
    int p[2], status = 0;
    size_t got = 0;
    pid_t pid;

    CHECK(pipe(p) == 0);
    pid = fork();
    if (pid == 0) {
        close(p[0]);
        swap_layout_child(p[1]);
    }
    close(p[1]);
    for (ssize_t n; (n = read(p[0], text + got, sizeof(text) - 1 - got)) > 0;)
        got += (size_t)n;
    close(p[0]);
    waitpid(pid, &status, 0);
    CHECK_MSG(WIFEXITED(status) && WEXITSTATUS(status) == 0, "status %#x", status);
    CHECK_STR_EQ(text, "fd0 fd1 fd2 fd3 fd4 fd5 in=/dev/null 3=B 4=A sock done\n");
}

/* In a forked child: ignore SIGUSR1 and glibc's own signals 32 and 33 (through the kernel,
 * as a parent outside glibc may leave them), block SIGUSR2, spawn cat of its own status. */
static void signals_child(int out)
{
    char *argv[] = {"/bin/cat", "/proc/self/status", NULL}, text[8192], *line;
    unsigned long kernel_ign[8] = {(unsigned long)SIG_IGN};
    struct sigaction ign = {.sa_handler = SIG_IGN};
    sigset_t usr2;
    struct spawn s;
    int status;

    sigemptyset(&usr2);
    sigaddset(&usr2, SIGUSR2);
    if (sigaction(SIGUSR1, &ign, NULL) < 0 || sigprocmask(SIG_BLOCK, &usr2, NULL) < 0 ||
        syscall(SYS_rt_sigaction, 32, kernel_ign, NULL, (size_t)(NSIG - 1) / 8) < 0 ||
        syscall(SYS_rt_sigaction, 33, kernel_ign, NULL, (size_t)(NSIG - 1) / 8) < 0)
        _exit(2);
    spawn_init(&s);
    s.path = argv[0];
    s.argv = argv;
    if (spawn_collect(&s, text, sizeof(text), &status) != BW_OK)
        _exit(3);
    for (line = strstr(text, "\nSig"); line; line = strstr(line + 1, "\nSig"))
        if (strncmp(line + 1, "SigBlk", 6) == 0 || strncmp(line + 1, "SigIgn", 6) == 0)
            dprintf(out, "%.24s\n", line + 1);
}

TEST(spawn_resets_signals)
{
    char text[256];
    int status;

    in_child(signals_child, text, sizeof(text), &status);
    CHECK_MSG(WIFEXITED(status) && WEXITSTATUS(status) == 0, "status %#x", status);
    CHECK_STR_EQ(text, "SigBlk:\t0000000000000000\nSigIgn:\t0000000000000000\n");
}

TEST(spawn_leads_its_own_group)
{
    char *argv[] = {"/bin/cat", "/proc/self/stat", NULL}, out[4096];
    struct spawn s;
    long pgrp = 0, session = 0;
    const char *stat;
    int status;

    spawn_init(&s);
    s.path = argv[0];
    s.argv = argv;
    CHECK_INT_EQ(spawn_collect(&s, out, sizeof(out), &status), BW_OK);
    /* /proc/self/stat: "PID (cat) STATE PPID PGRP SESSION ..." */
    stat = strstr(out, "(cat) ");
    if (stat && sscanf(stat + 6, "%*c %*d %ld %ld", &pgrp, &session) == 2) {
        CHECK_INT_EQ(pgrp, s.pid);
        CHECK_INT_EQ(session, s.pid);
    } else {
        CHECK_MSG(false, "no stat line in: %s", out);
    }
}

TEST(spawn_sets_rlimits_before_exec)
{
    char *argv[] = {"/bin/cat", "/proc/self/limits", NULL}, out[8192];
    const struct sandbox_limits limits = {
        .cpu_s = 7, .as_bytes = 1ULL << 30, .fsize_bytes = 123, .nofile = 33, .nproc = 0};
    struct spawn s;
    int status;

    spawn_init(&s);
    s.path = argv[0];
    s.argv = argv;
    s.limits = &limits;
    CHECK_INT_EQ(spawn_collect(&s, out, sizeof(out), &status), BW_OK);
    CHECK(WIFEXITED(status) && WEXITSTATUS(status) == 0);
    CHECK_CONTAINS(out,
                   "Max cpu time              7                    8                    seconds");
    CHECK_CONTAINS(out,
                   "Max file size             123                  123                  bytes");
    CHECK_CONTAINS(out,
                   "Max core file size        0                    0                    bytes");
    CHECK_CONTAINS(out,
                   "Max open files            33                   33                   files");
    CHECK_CONTAINS(out,
                   "Max address space         1073741824           1073741824           bytes");
}

TEST(spawn_failures_before_exec_are_reported)
{
    char *missing[] = {"/nonexistent/tool", NULL}, *dir[] = {"/tmp", NULL};
    char *ok[] = {"/bin/true", NULL};
    struct spawn s;
    char *cause = NULL;

    spawn_init(&s);
    s.path = missing[0];
    s.argv = missing;
    CHECK_INT_EQ(spawn_start(&s, &cause), BW_ERR_NOTFOUND);
    CHECK_STR_EQ(cause, "cannot start /nonexistent/tool: No such file or directory");
    CHECK_INT_EQ(s.pid, -1);
    spawn_init(&s);
    s.path = dir[0];
    s.argv = dir;
    CHECK_INT_EQ(spawn_start(&s, &cause), BW_ERR_SYSTEM);
    CHECK_STR_EQ(cause, "cannot start /tmp: Permission denied");
    /* An fd of the layout that is not open: the child's step names the slot. */
    spawn_init(&s);
    s.path = ok[0];
    s.argv = ok;
    s.fds[1] = 987;
    CHECK_INT_EQ(spawn_start(&s, &cause), BW_ERR_SYSTEM);
    CHECK_STR_EQ(cause, "cannot start /bin/true: fd layout (fd 1): Bad file descriptor");
    s.fds[1] = -7;
    CHECK_INT_EQ(spawn_start(&s, &cause), BW_ERR_INVALID);
    s.fds[1] = SPAWN_FD_NULL;
    s.n_fds = BW_SPAWN_MAX_FDS + 1;
    CHECK_INT_EQ(spawn_start(&s, &cause), BW_ERR_INVALID);
    free(cause);
    /* No child was left behind by any of them. */
    CHECK(waitpid(-1, NULL, WNOHANG) < 0 && errno == ECHILD);
}

/* In a forked child whose setrlimit is refused (a seccomp filter): the report names it. */
static void refused_rlimit_child(int out)
{
    const struct sandbox_rule refuse = {"prlimit64", SANDBOX_FAIL, EPERM, 0, {{0}}};
    const struct sandbox_rule refuse_old = {"setrlimit", SANDBOX_FAIL, EPERM, 0, {{0}}};
    const struct sandbox_rule rules[] = {refuse, refuse_old};
    const struct sandbox_filter f = {.fallback = SANDBOX_ALLOW, .rules = rules, .n_rules = 2};
    const struct sandbox_limits limits = {.nofile = 10};
    char *argv[] = {"/bin/true", NULL}, *cause = NULL;
    struct spawn s;
    int rc;

    if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) < 0 || sandbox_seccomp_load(&f, &cause))
        _exit(2);
    spawn_init(&s);
    s.path = argv[0];
    s.argv = argv;
    s.limits = &limits;
    rc = spawn_start(&s, &cause);
    dprintf(out, "%d %s", rc, cause ? cause : "");
    _exit(0);
}

TEST(spawn_rlimit_failure_is_reported)
{
    char text[1024];
    int status;

    in_child(refused_rlimit_child, text, sizeof(text), &status);
    CHECK_MSG(WIFEXITED(status) && WEXITSTATUS(status) == 0, "status %#x", status);
    CHECK_STR_EQ(text,
                 "-6 cannot start /bin/true: setrlimit(RLIMIT_CORE): Operation not permitted");
}

/* Whether pid is gone or a zombie (reparented children may wait a while for their reaper). */
static bool dead(pid_t pid)
{
    char path[64], text[512] = {0}, *close_paren;
    FILE *f;

    snprintf(path, sizeof(path), "/proc/%ld/stat", (long)pid);
    f = fopen(path, "re");
    if (!f)
        return true;
    if (!fgets(text, sizeof(text), f))
        text[0] = '\0';
    fclose(f);
    close_paren = strrchr(text, ')');
    return !close_paren || close_paren[2] == 'Z' || close_paren[2] == 'X';
}

/* The middle process: spawns a long sleep, says its pid, and dies. */
static void spawn_sleeper_and_die(int out)
{
    char *argv[] = {"/bin/sleep", "30", NULL};
    struct spawn s;

    spawn_init(&s);
    s.path = argv[0];
    s.argv = argv;
    if (spawn_start(&s, NULL))
        _exit(2);
    dprintf(out, "%ld", (long)s.pid);
    _exit(0);
}

TEST(spawn_child_dies_with_its_parent)
{
    char text[64];
    long pid = 0;
    int status;
    double deadline;

    in_child(spawn_sleeper_and_die, text, sizeof(text), &status);
    CHECK_MSG(WIFEXITED(status) && WEXITSTATUS(status) == 0 && parse_i64(text, &(int64_t){0}),
              "status %#x, said \"%s\"", status, text);
    pid = strtol(text, NULL, 10);
    if (pid <= 0)
        return;
    deadline = now_ms() + SPAWN_WAIT_MS;
    while (!dead((pid_t)pid) && now_ms() < deadline)
        usleep(10000);
    CHECK_MSG(dead((pid_t)pid), "the sleeper %ld outlived its parent", pid);
    kill((pid_t)pid, SIGKILL); /* in case it did */
}

/* ---- closing descriptors without close_range ------------------------------------------ */

/* In a forked child: close_range made ENOSYS (and, when `no_proc`, /proc unopenable). */
static void close_fallback_child(int out, bool no_proc)
{
    const struct sandbox_rule rules[] = {
        {"close_range", SANDBOX_FAIL, ENOSYS, 0, {{0}}},
        {"openat", SANDBOX_FAIL, ENOENT, 0, {{0}}},
        {"open", SANDBOX_FAIL, ENOENT, 0, {{0}}},
    };
    const struct sandbox_filter f = {
        .fallback = SANDBOX_ALLOW, .rules = rules, .n_rules = no_proc ? 3 : 1};
    struct rlimit rl = {.rlim_cur = 64, .rlim_max = 64};

    /* The pipe to the test moves to 40; the loop fallback stops at RLIMIT_NOFILE, 64. */
    if (dup2(out, 40) != 40 || dup2(out, 41) != 41 || dup2(out, 60) != 60 || dup2(0, 63) != 63)
        _exit(2);
    close(out);
    if (setrlimit(RLIMIT_NOFILE, &rl) < 0 || prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) < 0 ||
        sandbox_seccomp_load(&f, NULL))
        _exit(2);
    if (syscall(SYS_close_range, 50U, ~0U, 0) == 0 || errno != ENOSYS)
        _exit(3);
    /* Keeps 40 (the pipe to the test), closes 41, 60 and 63; 0-2 stay. */
    if (sandbox_close_fds_raw(41, 40) != 0)
        _exit(4);
    dprintf(40, "%s%s%s%s%s", fcntl(40, F_GETFD) >= 0 ? "kept " : "lost ",
            fcntl(41, F_GETFD) < 0 ? "41 " : "", fcntl(60, F_GETFD) < 0 ? "60 " : "",
            fcntl(63, F_GETFD) < 0 ? "63 " : "", fcntl(2, F_GETFD) >= 0 ? "stderr" : "");
    _exit(0);
}

static void close_fallback_proc(int out)
{
    close_fallback_child(out, false);
}

static void close_fallback_loop(int out)
{
    close_fallback_child(out, true);
}

TEST(close_fds_without_close_range)
{
    char text[256];
    int status;

    in_child(close_fallback_proc, text, sizeof(text), &status);
    CHECK_MSG(WIFEXITED(status) && WEXITSTATUS(status) == 0, "status %#x", status);
    CHECK_STR_EQ(text, "kept 41 60 63 stderr");
    in_child(close_fallback_loop, text, sizeof(text), &status);
    CHECK_MSG(WIFEXITED(status) && WEXITSTATUS(status) == 0, "status %#x", status);
    CHECK_STR_EQ(text, "kept 41 60 63 stderr");
}

/* ---- the child's steps ---------------------------------------------------------------- */

enum probe_end { END_EXECVE, END_SOCKET, END_FORK, END_EXIT };

static const char *const probe_syscalls[] = {
    "read",   "write",        "close",          "fstat",  "newfstatat", "brk",
    "mmap",   "munmap",       "mprotect",       "exit",   "exit_group", "rt_sigreturn",
    "getpid", "rt_sigaction", "rt_sigprocmask", "gettid", "lseek",      "fcntl",
};

/* In a forked child: lock down, probe, report on `out`, then end as `end` says. */
static _Noreturn void confined_probe(const char *dir, int out, enum probe_end end)
{
    struct sandbox_bind binds[] = {
        {.source = dir, .target = "/data/in"},
        {.source = NULL, .target = "/work", .tmpfs_bytes = 64 * 1024},
        {.source = dir, .target = "/data/exec", .exec = true},
    };
    struct sandbox_limits limits = {.cpu_s = 5, .fsize_bytes = 1 << 20, .nofile = 16};
    struct buf b;
    char *cause = NULL, host[64] = {0}, text[16] = {0}, block[4096] = {0};
    struct stat st;
    size_t written = 0;
    int fd;

    buf_init(&b, 4096);
    if (sandbox_unshare(SANDBOX_NS_MOUNT | SANDBOX_NS_NET | SANDBOX_NS_IPC | SANDBOX_NS_UTS |
                            SANDBOX_NS_PID,
                        &cause) ||
        sandbox_enter_pid_namespace(&cause) || sandbox_set_rlimits(&limits, &cause) ||
        sandbox_make_root(binds, sizeof(binds) / sizeof(binds[0]), &cause)) {
        dprintf(out, "setup failed: %s", cause);
        _exit(2);
    }
    buf_addf(&b, "pid=%d", (int)getpid());
    buf_addf(&b, " passwd=%s", access("/etc/passwd", F_OK) == 0 ? "seen" : "absent");
    buf_addf(&b, " proc=%s", access("/proc/self", F_OK) == 0 ? "seen" : "absent");
    buf_addf(&b, " dev=%s", access("/dev/null", F_OK) == 0 ? "seen" : "absent");
    buf_addf(&b, " tmp=%s", access("/tmp", F_OK) == 0 ? "seen" : "absent");
    fd = open("/data/in/hello.txt", O_RDONLY);
    if (fd >= 0 && read(fd, text, sizeof(text) - 1) > 0)
        buf_addf(&b, " read=%s", text);
    if (fd >= 0)
        close(fd);
    buf_addf(&b, " create=%s",
             open("/data/in/new", O_WRONLY | O_CREAT, 0644) < 0 && errno == EROFS ? "erofs"
                                                                                  : "allowed");
    buf_addf(&b, " mkdir=%s", mkdir("/x", 0755) < 0 && errno == EROFS ? "erofs" : "allowed");
    gethostname(host, sizeof(host) - 1);
    buf_addf(&b, " host=%s", host);
    /* The writable tmpfs: private, writable, and full at its size. */
    buf_addf(&b, " work=%o", stat("/work", &st) == 0 ? (unsigned)(st.st_mode & 0777) : 0);
    fd = open("/work/big", O_WRONLY | O_CREAT, 0600);
    for (ssize_t n; fd >= 0 && (n = write(fd, block, sizeof(block))) > 0;)
        written += (size_t)n;
    buf_addf(&b, " fill=%s", fd >= 0 && errno == ENOSPC && written <= 64 * 1024 ? "enospc" : "?");
    if (fd >= 0)
        close(fd);
    /* Mapping a file executable: refused on a plain bind, allowed on an exec one. */
    for (int i = 0; i < 2; i++) {
        void *m;
        fd = open(i ? "/data/exec/hello.txt" : "/data/in/hello.txt", O_RDONLY);
        m = fd < 0 ? MAP_FAILED : mmap(NULL, 4096, PROT_READ | PROT_EXEC, MAP_PRIVATE, fd, 0);
        buf_addf(&b, " %s=%s", i ? "mapx_exec" : "mapx_in",
                 m != MAP_FAILED  ? "ok"
                 : errno == EPERM ? "eperm"
                                  : strerror(errno));
        if (m != MAP_FAILED)
            munmap(m, 4096);
        if (fd >= 0)
            close(fd);
    }
    if (sandbox_drop_privileges(&cause) ||
        sandbox_seccomp_allowlist(probe_syscalls,
                                  sizeof(probe_syscalls) / sizeof(probe_syscalls[0]), &cause)) {
        dprintf(out, "lock-down failed: %s", cause);
        _exit(2);
    }
    buf_addf(&b, " rdwr=%s",
             open("/data/in/hello.txt", O_RDWR) < 0 && errno == EPERM ? "eperm" : "allowed");
    buf_addf(&b, " rdonly=%s", open("/data/in/hello.txt", O_RDONLY) >= 0 ? "allowed" : "denied");
    buf_addf(&b, " kill=%s", kill(1, SIGKILL) < 0 && errno == EPERM ? "eperm" : "allowed");
    if (write(out, b.data, b.len) < 0)
        _exit(3);
    close(out);
    switch (end) {
    case END_EXECVE: {
        char *argv[] = {"/bin/true", NULL};
        execve(argv[0], argv, argv + 1);
        break;
    }
    case END_SOCKET:
        socket(AF_INET, SOCK_STREAM, 0);
        break;
    case END_FORK:
        fork();
        break;
    case END_EXIT:
        break;
    }
    /* Not _exit(): under ASan it runs the leak checker, which needs the /proc it cannot see. */
    syscall(SYS_exit_group, 0);
    _exit(0);
}

static void probe(enum probe_end end, const char *expect_report, int expect_signal)
{
    char dir[] = "/tmp/bw-sandbox-probe-XXXXXX";
    char path[64], report[1024] = {0};
    int fds[2], status = 0;
    pid_t pid;

    CHECK(mkdtemp(dir) != NULL);
    snprintf(path, sizeof(path), "%s/hello.txt", dir);
    CHECK(write_file_atomic(path, "hi", 2, NULL) == BW_OK);
    chmod(dir, 0755);
    CHECK(pipe(fds) == 0);
    pid = fork();
    if (pid == 0) {
        close(fds[0]);
        confined_probe(dir, fds[1], end);
    }
    close(fds[1]);
    size_t got = 0;
    for (ssize_t n; (n = read(fds[0], report + got, sizeof(report) - 1 - got)) > 0;)
        got += (size_t)n;
    close(fds[0]);
    waitpid(pid, &status, 0);
    unlink(path);
    rmdir(dir);
    if (strstr(report, "setup failed: unshare(CLONE_NEWUSER)")) {
        printf("  no user namespaces here: %s\n", report);
        SKIP("user namespaces unavailable");
    }
    CHECK_STR_EQ(report, expect_report);
    if (expect_signal)
        CHECK_MSG(WIFSIGNALED(status) && WTERMSIG(status) == expect_signal,
                  "status %#x, expected death by %s", status, spawn_signal_name(expect_signal));
    else
        CHECK_MSG(WIFEXITED(status) && WEXITSTATUS(status) == 0, "status %#x", status);
}

static const char confined[] = "pid=1 passwd=absent proc=absent dev=absent tmp=absent read=hi "
                               "create=erofs mkdir=erofs host=sandbox work=700 fill=enospc "
                               "mapx_in=eperm mapx_exec=ok rdwr=eperm rdonly=allowed kill=eperm";

TEST(steps_confine_and_exit)
{
    probe(END_EXIT, confined, 0);
}

TEST(steps_execve_is_killed)
{
    probe(END_EXECVE, confined, SIGSYS);
}

TEST(steps_socket_is_killed)
{
    probe(END_SOCKET, confined, SIGSYS);
}

TEST(steps_fork_is_killed)
{
    probe(END_FORK, confined, SIGSYS);
}

TEST(rlimits_cpu_ends_with_the_exit_code)
{
    struct sandbox_limits limits = {.cpu_s = 1};
    int status = 0;
    pid_t pid = fork();

    if (pid == 0) {
        if (sandbox_set_rlimits(&limits, NULL))
            _exit(2);
        for (volatile unsigned long i = 0;; i++)
            ;
    }
    waitpid(pid, &status, 0);
    CHECK_MSG(WIFEXITED(status) && WEXITSTATUS(status) == SANDBOX_EXIT_CPU_LIMIT, "status %#x",
              status);
}

TEST(rlimits_fsize_zero_stops_writes)
{
    struct sandbox_limits limits = {.fsize_bytes = 0};
    char tmpl[] = "/tmp/bw-sandbox-fsize-XXXXXX";
    int fd = mkstemp(tmpl), status = 0;
    pid_t pid;

    CHECK(fd >= 0);
    pid = fork();
    if (pid == 0) {
        signal(SIGXFSZ, SIG_IGN);
        if (sandbox_set_rlimits(&limits, NULL))
            _exit(2);
        _exit(write(fd, "x", 1) < 0 && errno == EFBIG ? 0 : 1);
    }
    waitpid(pid, &status, 0);
    CHECK(WIFEXITED(status) && WEXITSTATUS(status) == 0);
    close(fd);
    unlink(tmpl);
}

/* ---- a job started ahead of its input ---------------------------------------------------- */

/* Starts `sh -c script` as a job whose request is a stream (the Triton compiler's shape). */
static int start_sh(struct sandbox_job *job, char **argv, const char *script)
{
    char *cause = NULL;
    int rc;

    argv[0] = "/bin/sh";
    argv[1] = "-c";
    argv[2] = (char *)script;
    argv[3] = NULL;
    job->path = "/bin/sh";
    job->argv = argv;
    job->request_stream = true;
    rc = sandbox_job_start(job, &cause);
    if (rc)
        printf("  sandbox_job_start: %s\n", cause);
    free(cause);
    return rc;
}

TEST(job_started_ahead_takes_its_input_later)
{
    struct sandbox_job job;
    char *argv[4], *cause = NULL;

    sandbox_job_init(&job, 5000, 1 << 20, 4096);
    /* Ready first, then the request echoed back, then an exit code of its own. */
    CHECK_INT_EQ(start_sh(&job, argv, "printf ready >&4; cat <&3 >&4; exit 7"), BW_OK);
    CHECK_INT_EQ(sandbox_job_wait_result(&job, 5, 5000, &cause), BW_OK);
    CHECK(job.result.len == 5 && memcmp(job.result.data, "ready", 5) == 0);
    CHECK(!job.exited);
    /* Asking for more than will come before the input: a timeout that leaves it running. */
    CHECK_INT_EQ(sandbox_job_wait_result(&job, 6, 100, &cause), BW_ERR_TIMEOUT);
    CHECK(!job.exited);
    CHECK_INT_EQ(sandbox_job_finish(&job, " and the request", 16, &cause), BW_OK);
    CHECK_STR_EQ(job.result.data, "ready and the request");
    CHECK(WIFEXITED(job.status) && WEXITSTATUS(job.status) == 7);
    CHECK(!job.timed_out);
    CHECK_INT_EQ(sandbox_job_finish(&job, "x", 1, &cause), BW_ERR_INTERNAL);
    sandbox_job_release(&job);
    free(cause);
}

TEST(job_finish_wall_limit_counts_from_finish)
{
    struct sandbox_job job;
    char *argv[4], *cause = NULL;
    double t0;

    sandbox_job_init(&job, 300, 4096, 4096);
    CHECK_INT_EQ(start_sh(&job, argv, "cat <&3 >/dev/null; sleep 30"), BW_OK);
    usleep(400 * 1000); /* longer than the wall limit, before the input: not counted */
    CHECK(!job.timed_out);
    t0 = now_ms();
    CHECK_INT_EQ(sandbox_job_finish(&job, "x", 1, &cause), BW_OK);
    CHECK(job.timed_out);
    CHECK(WIFSIGNALED(job.status) && WTERMSIG(job.status) == SIGKILL);
    CHECK_MSG(now_ms() - t0 < 5000, "finish took %.0f ms", now_ms() - t0);
    sandbox_job_release(&job);
    free(cause);
}

/* Streaming: the request sent ahead of collecting, the answer read as it grows, the wall
 * limit from the send, and a cancel fd that kills the job from another thread's side. */
TEST(job_answer_read_as_it_grows_and_cancelled)
{
    struct sandbox_job job;
    char *argv[4], *cause = NULL;
    int fds[2];
    double t0;

    sandbox_job_init(&job, 5000, 4096, 4096);
    CHECK_INT_EQ(
        start_sh(&job, argv, "cat <&3 >&4; printf ' first' >&4; sleep 30; printf late >&4"), BW_OK);
    CHECK_INT_EQ(sandbox_job_send(&job, "request", 7, &cause), BW_OK);
    while (job.result.len < 13 &&
           sandbox_job_wait_result(&job, job.result.len + 1, 5000, &cause) == BW_OK && !job.exited)
        ;
    CHECK_STR_EQ(job.result.data, "request first");
    CHECK(!job.exited);
    CHECK(pipe(fds) == 0);
    job.cancel_fd = fds[0];
    CHECK(write(fds[1], "x", 1) == 1);
    t0 = now_ms();
    CHECK_INT_EQ(sandbox_job_finish(&job, NULL, 0, &cause), BW_OK);
    CHECK(job.cancelled && !job.timed_out);
    CHECK(WIFSIGNALED(job.status) && WTERMSIG(job.status) == SIGKILL);
    CHECK_STR_EQ(job.result.data, "request first");
    CHECK_MSG(now_ms() - t0 < 2000, "a cancelled job took %.0f ms to end", now_ms() - t0);
    sandbox_job_release(&job);
    close(fds[0]);
    close(fds[1]);
    /* The wall limit runs from the send, not from finish. */
    sandbox_job_init(&job, 300, 4096, 4096);
    CHECK_INT_EQ(start_sh(&job, argv, "cat <&3 >/dev/null; sleep 30"), BW_OK);
    CHECK_INT_EQ(sandbox_job_send(&job, "x", 1, &cause), BW_OK);
    usleep(400 * 1000);
    t0 = now_ms();
    CHECK_INT_EQ(sandbox_job_finish(&job, NULL, 0, &cause), BW_OK);
    CHECK(job.timed_out);
    CHECK_MSG(now_ms() - t0 < 200, "finish waited %.0f ms past the send's limit", now_ms() - t0);
    sandbox_job_release(&job);
    free(cause);
}

TEST(job_input_to_a_child_that_does_not_read)
{
    static char big[4 << 20];
    struct sandbox_job job;
    char *argv[4], *cause = NULL;

    /* A child that exits without reading: no SIGPIPE for the judge, the input cut short. */
    sandbox_job_init(&job, 5000, 4096, 4096);
    CHECK_INT_EQ(start_sh(&job, argv, "printf gone >&4"), BW_OK);
    CHECK_INT_EQ(sandbox_job_finish(&job, big, sizeof(big), &cause), BW_OK);
    CHECK_STR_EQ(job.result.data, "gone");
    CHECK(WIFEXITED(job.status) && WEXITSTATUS(job.status) == 0);
    sandbox_job_release(&job);
    free(cause);
}

TEST(job_released_unfinished_is_killed_and_reaped)
{
    struct sandbox_job job;
    char *argv[4], *cause = NULL;
    pid_t pid;
    double t0 = now_ms();

    sandbox_job_init(&job, 5000, 4096, 4096);
    CHECK_INT_EQ(start_sh(&job, argv, "printf up >&4; sleep 30"), BW_OK);
    CHECK_INT_EQ(sandbox_job_wait_result(&job, 2, 5000, &cause), BW_OK);
    pid = job.pid;
    sandbox_job_release(&job);
    CHECK(kill(pid, 0) < 0 && errno == ESRCH); /* reaped: not even a zombie */
    CHECK_MSG(now_ms() - t0 < 5000, "took %.0f ms", now_ms() - t0);
    /* And a child that died before its input shows as exited to wait_result. */
    sandbox_job_init(&job, 5000, 4096, 4096);
    CHECK_INT_EQ(start_sh(&job, argv, "exit 3"), BW_OK);
    CHECK_INT_EQ(sandbox_job_wait_result(&job, 1, 5000, &cause), BW_OK);
    CHECK(job.result.len == 0 && (job.exited || job.result_r < 0));
    CHECK_INT_EQ(sandbox_job_finish(&job, "late", 4, &cause), BW_OK);
    CHECK(WIFEXITED(job.status) && WEXITSTATUS(job.status) == 3);
    sandbox_job_release(&job);
    free(cause);
}

/* ---- a root of files and device nodes ---------------------------------------------------- */

static char bind_dir[64];

static void file_and_device_child(int out)
{
    char src[128], path[160], text[16] = {0};
    struct buf b;
    char *cause = NULL;
    int fd;

    snprintf(src, sizeof(src), "%s/lib.so.1", bind_dir);
    snprintf(path, sizeof(path), "%s/link.so", bind_dir);
    {
        /* A file seen at another path, a symbolic link to it at a third, /dev/null usable. */
        struct sandbox_bind binds[] = {
            {.source = src, .target = "/opt/lib/lib.so.1", .exec = true},
            {.source = path, .target = "/lib/link.so"},
            {.source = "/dev/null", .target = "/dev/null", .device = true},
        };
        buf_init(&b, 4096);
        if (sandbox_unshare(SANDBOX_NS_MOUNT, &cause) ||
            sandbox_make_root(binds, sizeof(binds) / sizeof(binds[0]), &cause)) {
            dprintf(out, "setup failed: %s", cause);
            _exit(2);
        }
    }
    fd = open("/opt/lib/lib.so.1", O_RDONLY);
    if (fd >= 0 && read(fd, text, sizeof(text) - 1) > 0)
        buf_addf(&b, "file=%s", text);
    if (fd >= 0)
        close(fd);
    memset(text, 0, sizeof(text));
    fd = open("/lib/link.so", O_RDONLY);
    if (fd >= 0 && read(fd, text, sizeof(text) - 1) > 0)
        buf_addf(&b, " link=%s", text);
    if (fd >= 0)
        close(fd);
    buf_addf(&b, " write=%s",
             open("/opt/lib/lib.so.1", O_WRONLY) < 0 && errno == EROFS ? "erofs" : "allowed");
    fd = open("/dev/null", O_WRONLY);
    buf_addf(&b, " null=%s", fd >= 0 && write(fd, "x", 1) == 1 ? "ok" : strerror(errno));
    if (fd >= 0)
        close(fd);
    buf_addf(&b, " other=%s", access("/opt/lib/other", F_OK) < 0 ? "absent" : "seen");
    if (write(out, b.data, b.len) < 0)
        _exit(3);
    buf_release(&b);
    free(cause);
}

TEST(make_root_binds_files_and_devices)
{
    char path[128], text[512];
    struct stat st;
    int status;

    snprintf(bind_dir, sizeof(bind_dir), "/tmp/bw-sandbox-binds-XXXXXX");
    CHECK(mkdtemp(bind_dir) != NULL);
    chmod(bind_dir, 0755);
    snprintf(path, sizeof(path), "%s/lib.so.1", bind_dir);
    CHECK(write_file_atomic(path, "elf!", 4, NULL) == BW_OK);
    snprintf(path, sizeof(path), "%s/other", bind_dir);
    CHECK(write_file_atomic(path, "no", 2, NULL) == BW_OK);
    snprintf(path, sizeof(path), "%s/link.so", bind_dir);
    CHECK(symlink("lib.so.1", path) == 0);
    in_child(file_and_device_child, text, sizeof(text), &status);
    if (strstr(text, "setup failed: unshare"))
        SKIP("no user namespaces here");
    CHECK_MSG(WIFEXITED(status) && WEXITSTATUS(status) == 0, "status %#x: %s", status, text);
    /* A host whose /dev is nodev keeps it so: the node is there but cannot be opened. */
    if (stat("/dev/null", &st) == 0 && strstr(text, "null=Permission denied"))
        printf("  /dev/null is nodev on this host\n");
    else
        CHECK_CONTAINS(text, "null=ok");
    CHECK_CONTAINS(text, "file=elf! link=elf! write=erofs");
    CHECK_CONTAINS(text, "other=absent");
    snprintf(path, sizeof(path), "%s/link.so", bind_dir);
    unlink(path);
    snprintf(path, sizeof(path), "%s/lib.so.1", bind_dir);
    unlink(path);
    snprintf(path, sizeof(path), "%s/other", bind_dir);
    unlink(path);
    rmdir(bind_dir);
}
