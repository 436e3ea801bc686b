/*
 * Tests of judge/sandbox without NVRTC: the parent's job runner (fd layout,
 * empty environment, wall-clock kill of the whole group, result cap, output
 * cap) with small shell programs, and the child's set-up steps applied to a
 * forked test process, which then probes what it can still see and do.
 */
#include "tests/test.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdlib.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "common/buf.h"
#include "common/error.h"
#include "common/util.h"
#include "judge/sandbox.h"
#include "judge/sandbox_job.h"
#include "judge/spawn.h"
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
    struct sandbox_bind binds[] = {{.source = dir, .target = "/data/in"}};
    struct sandbox_limits limits = {.cpu_s = 5, .fsize_bytes = 0, .nofile = 16};
    struct buf b;
    char *cause = NULL, host[64] = {0}, text[16] = {0};
    int fd;

    buf_init(&b, 4096);
    if (sandbox_unshare(SANDBOX_NS_MOUNT | SANDBOX_NS_NET | SANDBOX_NS_IPC | SANDBOX_NS_UTS |
                            SANDBOX_NS_PID,
                        &cause) ||
        sandbox_enter_pid_namespace(&cause) || sandbox_set_rlimits(&limits, &cause) ||
        sandbox_make_root(binds, 1, &cause)) {
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
                               "create=erofs mkdir=erofs host=sandbox rdwr=eperm rdonly=allowed "
                               "kill=eperm";

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
