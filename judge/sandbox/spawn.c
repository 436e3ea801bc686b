#include "spawn.h"

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "common/error.h"
#include "common/banned.h"

/* The child's steps, as named in a failure. */
enum step {
    STEP_PARENT,
    STEP_SESSION,
    STEP_FDS,
    STEP_DEVNULL,
    STEP_CLOSE,
    STEP_RLIMITS,
    STEP_EXEC
};

static const char *const step_names[] = {
    [STEP_PARENT] = "die with parent",
    [STEP_SESSION] = "new session",
    [STEP_FDS] = "fd layout",
    [STEP_DEVNULL] = "open /dev/null",
    [STEP_CLOSE] = "close fds",
    [STEP_RLIMITS] = "setrlimit",
    [STEP_EXEC] = "exec",
};

/* What a child that failed before exec writes to the report pipe. */
struct report {
    int step;
    int err;
    int detail; /* STEP_RLIMITS: the resource */
};

void spawn_init(struct spawn *s)
{
    memset(s, 0, sizeof(*s));
    for (int i = 0; i < BW_SPAWN_MAX_FDS; i++)
        s->fds[i] = SPAWN_FD_CLOSED;
    s->fds[0] = s->fds[1] = s->fds[2] = SPAWN_FD_NULL;
    s->n_fds = 3;
    s->pid = -1;
}

static _Noreturn void child_failed(int report, enum step step, int err, int detail)
{
    struct report r = {.step = (int)step, .err = err, .detail = detail};

    if (write(report, &r, sizeof(r)) < 0)
        _exit(127);
    _exit(127);
}

/* Duplicates fd to a number >= low, close-on-exec (closed before exec anyway). */
static int dup_above(int fd, int low)
{
    return fcntl(fd, F_DUPFD_CLOEXEC, low);
}

/*
 * The child, between fork and exec: async-signal-safe calls only, and no
 * return. Every fd the layout needs is first copied above the layout (so no
 * dup2 clobbers a source still to be placed), then placed; the report pipe
 * ends at fd n_fds and exec closes it.
 */
static _Noreturn void child(const struct spawn *s, int report, pid_t parent)
{
    static char *const empty_env[] = {NULL};
    const int n = s->n_fds, high = n + 1;
    int moved[BW_SPAWN_MAX_FDS], devnull = -1, err, resource = -1;
    sigset_t none;

    /* An ignored signal stays ignored across exec. glibc's sigaction refuses its own
     * signals (32, 33) though a parent may have left them ignored: the kernel call does
     * not (an all-zero kernel sigaction is SIG_DFL, whatever the field order). */
    for (int sig = 1; sig < NSIG; sig++) {
        struct sigaction dfl = {.sa_handler = SIG_DFL};
        unsigned long kernel_dfl[8] = {0};
        if (sig != SIGKILL && sig != SIGSTOP && sigaction(sig, &dfl, NULL) < 0)
            syscall(SYS_rt_sigaction, sig, kernel_dfl, NULL, (size_t)(NSIG - 1) / 8);
    }
    if ((err = sandbox_die_with_parent_raw(parent)))
        child_failed(report, STEP_PARENT, err, 0);
    if ((err = sandbox_new_session_raw()))
        child_failed(report, STEP_SESSION, err, 0);

    if ((report = dup_above(report, high)) < 0)
        _exit(127);
    for (int i = 0; i < n; i++) {
        int source = s->fds[i] == SPAWN_FD_INHERIT ? i : s->fds[i];
        moved[i] = s->fds[i];
        if (source < 0)
            continue;
        moved[i] = dup_above(source, high);
        if (moved[i] < 0 && s->fds[i] == SPAWN_FD_INHERIT && errno == EBADF)
            moved[i] = SPAWN_FD_CLOSED;
        else if (moved[i] < 0)
            child_failed(report, STEP_FDS, errno, i);
    }
    for (int i = 0; i < n; i++) {
        if (moved[i] != SPAWN_FD_NULL || devnull >= 0)
            continue;
        devnull = open("/dev/null", O_RDWR | O_CLOEXEC);
        if (devnull < 0 || (devnull < high && (devnull = dup_above(devnull, high)) < 0))
            child_failed(report, STEP_DEVNULL, errno, 0);
    }
    for (int i = 0; i < n; i++) {
        int from = moved[i] == SPAWN_FD_NULL ? devnull : moved[i];
        if (from == SPAWN_FD_CLOSED)
            close(i);
        else if (dup2(from, i) != i)
            child_failed(report, STEP_FDS, errno, i);
    }
    if (dup3(report, n, O_CLOEXEC) != n)
        _exit(127);
    report = n;
    if ((err = sandbox_close_fds_raw(n + 1, -1)))
        child_failed(report, STEP_CLOSE, err, 0);
    if (s->limits && (err = sandbox_apply_rlimits(s->limits, &resource)))
        child_failed(report, STEP_RLIMITS, err, resource);
    sigemptyset(&none);
    sigprocmask(SIG_SETMASK, &none, NULL);
    execve(s->path, s->argv, s->env ? s->env : empty_env);
    child_failed(report, STEP_EXEC, errno, 0);
}

struct child_args {
    const struct spawn *s;
    int report;
    pid_t parent;
};

static int child_main(void *arg)
{
    const struct child_args *a = arg;
    child(a->s, a->report, a->parent);
}

/*
 * Starts the child. Normally it shares our memory until it execs, on a stack
 * of its own, while this thread waits (CLONE_VM | CLONE_VFORK, as glibc's
 * posix_spawn does): the cost does not grow with judged's memory as fork's
 * page-table copy does. The sanitizer build forks instead: instrumented code
 * in a child that shares the parent's shadow memory is not supported.
 */
static pid_t start_child(struct child_args *a)
{
#ifdef BW_SANITIZE
    pid_t pid = fork();
    if (pid == 0)
        child_main(a);
    return pid;
#else
    void *stack = mmap(NULL, BW_SPAWN_STACK_BYTES, PROT_READ | PROT_WRITE,
                       MAP_PRIVATE | MAP_ANONYMOUS | MAP_STACK, -1, 0);
    pid_t pid;
    int err;

    if (stack == MAP_FAILED)
        return -1;
    pid = clone(child_main, (char *)stack + BW_SPAWN_STACK_BYTES, CLONE_VM | CLONE_VFORK | SIGCHLD,
                a);
    err = errno;
    munmap(stack, BW_SPAWN_STACK_BYTES);
    errno = err;
    return pid;
#endif
}

static bool layout_valid(const struct spawn *s)
{
    if (s->n_fds < 0 || s->n_fds > BW_SPAWN_MAX_FDS)
        return false;
    for (int i = 0; i < s->n_fds; i++)
        if (s->fds[i] < SPAWN_FD_INHERIT)
            return false;
    return true;
}

int spawn_start(struct spawn *s, char **cause)
{
    struct child_args args = {.s = s, .parent = getpid()};
    struct report r;
    sigset_t all, old;
    int report[2], fork_errno;
    pid_t pid;
    ssize_t n;

    s->pid = -1;
    if (!s->path || !s->argv || !s->argv[0])
        return bw_fail(cause, BW_ERR_INVALID, "spawn: no program given");
    if (!layout_valid(s))
        return bw_fail(cause, BW_ERR_INVALID, "spawn %s: a bad fd layout", s->path);
    if (pipe2(report, O_CLOEXEC) < 0)
        return bw_fail(cause, BW_ERR_SYSTEM, "cannot start %s: pipe: %s", s->path, strerror(errno));
    /* No handler of ours may run in the child before it resets them. */
    sigfillset(&all);
    pthread_sigmask(SIG_SETMASK, &all, &old);
    args.report = report[1];
    pid = start_child(&args);
    fork_errno = errno; /* valid only when pid < 0: the child may have set errno */
    pthread_sigmask(SIG_SETMASK, &old, NULL);
    close(report[1]);
    if (pid < 0) {
        close(report[0]);
        return bw_fail(cause, BW_ERR_SYSTEM, "cannot start %s: fork: %s", s->path,
                       strerror(fork_errno));
    }
    /* exec closes the pipe with nothing in it, or the child says why not. */
    do
        n = read(report[0], &r, sizeof(r));
    while (n < 0 && errno == EINTR);
    close(report[0]);
    if (n == 0) {
        s->pid = pid;
        return BW_OK;
    }
    if (n != (ssize_t)sizeof(r)) {
        r = (struct report){.step = -1, .err = n < 0 ? errno : EIO};
        kill(pid, SIGKILL);
    }
    while (waitpid(pid, NULL, 0) < 0 && errno == EINTR)
        ;
    if (r.step == STEP_EXEC)
        return bw_fail(cause, r.err == ENOENT || r.err == ENOTDIR ? BW_ERR_NOTFOUND : BW_ERR_SYSTEM,
                       "cannot start %s: %s", s->path, strerror(r.err));
    if (r.step == STEP_RLIMITS)
        return bw_fail(cause, BW_ERR_SYSTEM, "cannot start %s: setrlimit(%s): %s", s->path,
                       sandbox_rlimit_name(r.detail), strerror(r.err));
    if (r.step == STEP_FDS)
        return bw_fail(cause, BW_ERR_SYSTEM, "cannot start %s: fd layout (fd %d): %s", s->path,
                       r.detail, strerror(r.err));
    return bw_fail(cause, BW_ERR_SYSTEM, "cannot start %s: %s: %s", s->path,
                   r.step >= 0 && r.step <= STEP_EXEC ? step_names[r.step] : "reading its report",
                   strerror(r.err));
}

void spawn_kill_group(pid_t pid)
{
    if (pid <= 0)
        return;
    kill(-pid, SIGKILL);
    kill(pid, SIGKILL);
}

const char *spawn_signal_name(int sig)
{
    static _Thread_local char name[32];
    const char *abbrev = sigabbrev_np(sig);

    if (abbrev)
        snprintf(name, sizeof(name), "SIG%s", abbrev);
    else
        snprintf(name, sizeof(name), "signal %d", sig);
    return name;
}
