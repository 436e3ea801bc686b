#include "sandbox.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <linux/capability.h>
#include <poll.h>
#include <sched.h>
#include <seccomp.h>
#include <signal.h>
#include <spawn.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "common/error.h"
#include "common/util.h"
#include "common/banned.h"

/* ---- child side ------------------------------------------------------------ */

int sandbox_die_with_parent(pid_t parent, char **cause)
{
    if (prctl(PR_SET_PDEATHSIG, SIGKILL, 0, 0, 0) < 0)
        return bw_fail(cause, BW_ERR_SANDBOX, "prctl(PR_SET_PDEATHSIG): %s", strerror(errno));
    if (parent > 0 && getppid() != parent)
        return bw_fail(cause, BW_ERR_SANDBOX, "the parent (pid %ld) is gone", (long)parent);
    return BW_OK;
}

int sandbox_new_session(char **cause)
{
    if (getsid(0) == getpid())
        return BW_OK;
    if (setsid() < 0)
        return bw_fail(cause, BW_ERR_SANDBOX, "setsid: %s", strerror(errno));
    return BW_OK;
}

int sandbox_close_fds(int first, char **cause)
{
    if (syscall(SYS_close_range, (unsigned)first, ~0U, 0) == 0)
        return BW_OK;
    if (errno != ENOSYS)
        return bw_fail(cause, BW_ERR_SANDBOX, "close_range(%d): %s", first, strerror(errno));
    /* Kernels before 5.9: close up to the fd limit. */
    long max = sysconf(_SC_OPEN_MAX);
    for (long fd = first; fd < (max > 0 ? max : 65536); fd++)
        close((int)fd);
    return BW_OK;
}

static int set_rlimit(int resource, const char *name, rlim_t soft, rlim_t hard, char **cause)
{
    struct rlimit rl = {.rlim_cur = soft, .rlim_max = hard};
    struct rlimit old;

    /* Limits only go down: keep a lower hard limit the parent already set. */
    if (getrlimit(resource, &old) == 0 && old.rlim_max != RLIM_INFINITY) {
        if (rl.rlim_max > old.rlim_max)
            rl.rlim_max = old.rlim_max;
        if (rl.rlim_cur > rl.rlim_max)
            rl.rlim_cur = rl.rlim_max;
    }
    if (setrlimit(resource, &rl) < 0)
        return bw_fail(cause, BW_ERR_SANDBOX, "setrlimit(%s, %llu): %s", name,
                       (unsigned long long)soft, strerror(errno));
    return BW_OK;
}

static void exit_on_cpu_limit(int sig)
{
    (void)sig;
    _exit(SANDBOX_EXIT_CPU_LIMIT);
}

int sandbox_set_rlimits(const struct sandbox_limits *l, char **cause)
{
    int rc;

    if ((rc = set_rlimit(RLIMIT_CORE, "RLIMIT_CORE", 0, 0, cause)))
        return rc;
    if ((rc = set_rlimit(RLIMIT_FSIZE, "RLIMIT_FSIZE", l->fsize_bytes, l->fsize_bytes, cause)))
        return rc;
    /* The soft limit's SIGXCPU ends the process with SANDBOX_EXIT_CPU_LIMIT (through a
     * handler: pid 1 of a namespace ignores it otherwise); the hard limit's SIGKILL,
     * a second later, is the backstop. */
    if (l->cpu_s > 0) {
        struct sigaction sa = {.sa_handler = exit_on_cpu_limit};
        sigemptyset(&sa.sa_mask);
        if (sigaction(SIGXCPU, &sa, NULL) < 0)
            return bw_fail(cause, BW_ERR_SANDBOX, "sigaction(SIGXCPU): %s", strerror(errno));
        if ((rc = set_rlimit(RLIMIT_CPU, "RLIMIT_CPU", (rlim_t)l->cpu_s, (rlim_t)l->cpu_s + 1,
                             cause)))
            return rc;
    }
    if (l->as_bytes > 0 &&
        (rc = set_rlimit(RLIMIT_AS, "RLIMIT_AS", l->as_bytes, l->as_bytes, cause)))
        return rc;
    if (l->nofile > 0 && (rc = set_rlimit(RLIMIT_NOFILE, "RLIMIT_NOFILE", (rlim_t)l->nofile,
                                          (rlim_t)l->nofile, cause)))
        return rc;
    if (l->nproc > 0 &&
        (rc = set_rlimit(RLIMIT_NPROC, "RLIMIT_NPROC", (rlim_t)l->nproc, (rlim_t)l->nproc, cause)))
        return rc;
    /* Not dumpable: no core, no ptrace attach by the same uid, /proc/PID owned by root. */
    if (prctl(PR_SET_DUMPABLE, 0, 0, 0, 0) < 0)
        return bw_fail(cause, BW_ERR_SANDBOX, "prctl(PR_SET_DUMPABLE): %s", strerror(errno));
    return BW_OK;
}

/* Writes a short text to a /proc file, as the uid/gid maps want it: one write. */
static int write_proc(const char *path, const char *text, bool missing_ok, char **cause)
{
    size_t len = strlen(text);
    int fd = open(path, O_WRONLY | O_CLOEXEC);
    ssize_t n;

    if (fd < 0) {
        if (missing_ok && errno == ENOENT)
            return BW_OK;
        return bw_fail(cause, BW_ERR_SANDBOX, "open(%s): %s", path, strerror(errno));
    }
    n = write(fd, text, len);
    if (n < 0 || (size_t)n != len) {
        int e = n < 0 ? errno : EIO;
        close(fd);
        return bw_fail(cause, BW_ERR_SANDBOX, "write(%s): %s", path, strerror(e));
    }
    close(fd);
    return BW_OK;
}

int sandbox_unshare(char **cause)
{
    static const struct {
        int flag;
        const char *name;
    } more[] = {
        {CLONE_NEWNS, "CLONE_NEWNS"},   {CLONE_NEWNET, "CLONE_NEWNET"},
        {CLONE_NEWIPC, "CLONE_NEWIPC"}, {CLONE_NEWUTS, "CLONE_NEWUTS"},
        {CLONE_NEWPID, "CLONE_NEWPID"},
    };
    uid_t uid = geteuid();
    gid_t gid = getegid();
    char map[64];
    int rc;

    if (unshare(CLONE_NEWUSER) < 0)
        return bw_fail(cause, BW_ERR_SANDBOX, "unshare(CLONE_NEWUSER): %s", strerror(errno));
    if ((rc = write_proc("/proc/self/setgroups", "deny", true, cause)))
        return rc;
    snprintf(map, sizeof(map), "%lu %lu 1\n", (unsigned long)uid, (unsigned long)uid);
    if ((rc = write_proc("/proc/self/uid_map", map, false, cause)))
        return rc;
    snprintf(map, sizeof(map), "%lu %lu 1\n", (unsigned long)gid, (unsigned long)gid);
    if ((rc = write_proc("/proc/self/gid_map", map, false, cause)))
        return rc;
    for (size_t i = 0; i < sizeof(more) / sizeof(more[0]); i++)
        if (unshare(more[i].flag) < 0)
            return bw_fail(cause, BW_ERR_SANDBOX, "unshare(%s): %s", more[i].name, strerror(errno));
    /* The new UTS namespace starts with the host's name. */
    if (sethostname(SANDBOX_HOSTNAME, strlen(SANDBOX_HOSTNAME)) < 0)
        return bw_fail(cause, BW_ERR_SANDBOX, "sethostname: %s", strerror(errno));
    return BW_OK;
}

/*
 * The parent half of sandbox_enter_pid_namespace: wait, then end like the
 * child. It keeps only `alive`, the write end of a pipe whose closing tells
 * the child that this process is gone.
 */
static _Noreturn void mirror_child_and_exit(pid_t child, int alive)
{
    struct rlimit zero = {0, 0};
    sigset_t all;
    int status;

    if (alive > 0)
        syscall(SYS_close_range, 0U, (unsigned)alive - 1, 0);
    syscall(SYS_close_range, (unsigned)alive + 1, ~0U, 0);
    setrlimit(RLIMIT_CORE, &zero);
    prctl(PR_SET_DUMPABLE, 0, 0, 0, 0);
    while (waitpid(child, &status, 0) < 0)
        if (errno != EINTR)
            _exit(127);
    if (WIFEXITED(status))
        _exit(WEXITSTATUS(status));
    if (WIFSIGNALED(status)) {
        int sig = WTERMSIG(status);
        signal(sig, SIG_DFL);
        sigemptyset(&all);
        sigaddset(&all, sig);
        sigprocmask(SIG_UNBLOCK, &all, NULL);
        raise(sig);
        _exit(128 + sig);
    }
    _exit(127);
}

int sandbox_enter_pid_namespace(char **cause)
{
    struct pollfd hup;
    int alive[2];
    pid_t pid;

    if (pipe2(alive, O_CLOEXEC) < 0)
        return bw_fail(cause, BW_ERR_SANDBOX, "pipe: %s", strerror(errno));
    pid = fork();
    if (pid < 0) {
        close(alive[0]);
        close(alive[1]);
        return bw_fail(cause, BW_ERR_SANDBOX, "fork into the pid namespace: %s", strerror(errno));
    }
    if (pid > 0) {
        close(alive[0]);
        mirror_child_and_exit(pid, alive[1]);
    }
    /* pid 1 of the new namespace: its parent is outside, so getppid() says 0 and
     * cannot tell whether the parent died before the prctl; the pipe can. */
    close(alive[1]);
    if (prctl(PR_SET_PDEATHSIG, SIGKILL, 0, 0, 0) < 0)
        return bw_fail(cause, BW_ERR_SANDBOX, "prctl(PR_SET_PDEATHSIG): %s", strerror(errno));
    hup = (struct pollfd){.fd = alive[0], .events = POLLIN};
    if (poll(&hup, 1, 0) != 0)
        return bw_fail(cause, BW_ERR_SANDBOX, "the parent died while entering the pid namespace");
    close(alive[0]);
    return BW_OK;
}

/* mkdir -p of an absolute path below a base directory. */
static int make_dirs(const char *base, const char *target, char **cause)
{
    char path[PATH_MAX];
    int n = snprintf(path, sizeof(path), "%s%s", base, target);

    if (n < 0 || (size_t)n >= sizeof(path))
        return bw_fail(cause, BW_ERR_LIMIT, "mount target too long: %s", target);
    for (char *p = path + strlen(base) + 1; *p; p++) {
        if (*p != '/')
            continue;
        *p = '\0';
        if (mkdir(path, 0755) < 0 && errno != EEXIST)
            return bw_fail(cause, BW_ERR_SANDBOX, "mkdir(%s): %s", path, strerror(errno));
        *p = '/';
    }
    if (mkdir(path, 0755) < 0 && errno != EEXIST)
        return bw_fail(cause, BW_ERR_SANDBOX, "mkdir(%s): %s", path, strerror(errno));
    return BW_OK;
}

static const unsigned long locked_down = MS_NOSUID | MS_NODEV | MS_NOEXEC;

int sandbox_make_root(const struct sandbox_bind *binds, size_t n_binds, char **cause)
{
    const char *base = SANDBOX_ROOT_BASE;
    char path[PATH_MAX], source[64];
    int fds[SANDBOX_MAX_BINDS];
    size_t n_open = 0;
    int rc = BW_OK;

    if (n_binds > SANDBOX_MAX_BINDS)
        return bw_fail(cause, BW_ERR_INTERNAL, "%zu binds, over %d", n_binds, SANDBOX_MAX_BINDS);
    /* Sources are opened first: the tmpfs over SANDBOX_ROOT_BASE may hide them. */
    for (; n_open < n_binds; n_open++) {
        fds[n_open] = open(binds[n_open].source, O_PATH | O_CLOEXEC);
        if (fds[n_open] < 0) {
            rc = bw_fail(cause, BW_ERR_SANDBOX, "open(%s): %s", binds[n_open].source,
                         strerror(errno));
            goto close_sources;
        }
    }
    if (mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL) < 0) {
        rc = bw_fail(cause, BW_ERR_SANDBOX, "mount(/, MS_REC|MS_PRIVATE): %s", strerror(errno));
        goto close_sources;
    }
    if (mount("tmpfs", base, "tmpfs", locked_down, "size=64k,nr_inodes=64,mode=0755") < 0) {
        rc = bw_fail(cause, BW_ERR_SANDBOX, "mount(tmpfs on %s): %s", base, strerror(errno));
        goto close_sources;
    }
    for (size_t i = 0; i < n_binds; i++) {
        const char *target = binds[i].target;
        if (target[0] != '/' || strstr(target, "..")) {
            rc = bw_fail(cause, BW_ERR_INTERNAL, "bind target %s is not a plain absolute path",
                         target);
            goto close_sources;
        }
        if ((rc = make_dirs(base, target, cause)))
            goto close_sources;
        snprintf(path, sizeof(path), "%s%s", base, target);
        snprintf(source, sizeof(source), "/proc/self/fd/%d", fds[i]);
        if (mount(source, path, NULL, MS_BIND, NULL) < 0) {
            rc = bw_fail(cause, BW_ERR_SANDBOX, "mount(bind %s on %s): %s", binds[i].source, target,
                         strerror(errno));
            goto close_sources;
        }
        if (mount(NULL, path, NULL, MS_REMOUNT | MS_BIND | MS_RDONLY | locked_down, NULL) < 0) {
            rc = bw_fail(cause, BW_ERR_SANDBOX, "mount(remount %s read-only): %s", target,
                         strerror(errno));
            goto close_sources;
        }
    }
    if (chdir(base) < 0) {
        rc = bw_fail(cause, BW_ERR_SANDBOX, "chdir(%s): %s", base, strerror(errno));
        goto close_sources;
    }
    /* pivot_root(".", ".") stacks the old root on the new one; detaching "." drops it. */
    if (syscall(SYS_pivot_root, ".", ".") < 0) {
        rc = bw_fail(cause, BW_ERR_SANDBOX, "pivot_root: %s", strerror(errno));
        goto close_sources;
    }
    if (umount2(".", MNT_DETACH) < 0) {
        rc = bw_fail(cause, BW_ERR_SANDBOX, "umount2(old root): %s", strerror(errno));
        goto close_sources;
    }
    if (chdir("/") < 0) {
        rc = bw_fail(cause, BW_ERR_SANDBOX, "chdir(/): %s", strerror(errno));
        goto close_sources;
    }
    if (mount(NULL, "/", NULL, MS_REMOUNT | MS_BIND | MS_RDONLY | locked_down, NULL) < 0)
        rc = bw_fail(cause, BW_ERR_SANDBOX, "mount(remount / read-only): %s", strerror(errno));
close_sources:
    while (n_open > 0)
        close(fds[--n_open]);
    return rc;
}

int sandbox_drop_privileges(char **cause)
{
    struct __user_cap_header_struct header = {.version = _LINUX_CAPABILITY_VERSION_3, .pid = 0};
    struct __user_cap_data_struct data[_LINUX_CAPABILITY_U32S_3];

    for (int cap = 0; cap < 64; cap++)
        if (prctl(PR_CAPBSET_DROP, cap, 0, 0, 0) < 0) {
            if (errno == EINVAL)
                break; /* past the kernel's last capability */
            return bw_fail(cause, BW_ERR_SANDBOX, "prctl(PR_CAPBSET_DROP, %d): %s", cap,
                           strerror(errno));
        }
    if (prctl(PR_CAP_AMBIENT, PR_CAP_AMBIENT_CLEAR_ALL, 0, 0, 0) < 0 && errno != EINVAL)
        return bw_fail(cause, BW_ERR_SANDBOX, "prctl(PR_CAP_AMBIENT_CLEAR_ALL): %s",
                       strerror(errno));
    memset(data, 0, sizeof(data));
    if (syscall(SYS_capset, &header, data) < 0)
        return bw_fail(cause, BW_ERR_SANDBOX, "capset: %s", strerror(errno));
    if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) < 0)
        return bw_fail(cause, BW_ERR_SANDBOX, "prctl(PR_SET_NO_NEW_PRIVS): %s", strerror(errno));
    return BW_OK;
}

/* System calls no sandboxed work of ours ever makes: a try is an attack, and ends it. */
static const char *const killed_syscalls[] = {
    "execve",
    "execveat",
    "fork",
    "vfork",
    "socket",
    "socketpair",
    "connect",
    "bind",
    "listen",
    "accept",
    "accept4",
    "sendto",
    "sendmsg",
    "sendmmsg",
    "ptrace",
    "process_vm_readv",
    "process_vm_writev",
    "mount",
    "umount2",
    "pivot_root",
    "chroot",
    "unshare",
    "setns",
    "bpf",
    "perf_event_open",
    "keyctl",
    "add_key",
    "request_key",
    "kexec_load",
    "kexec_file_load",
    "init_module",
    "finit_module",
    "delete_module",
    "reboot",
    "swapon",
    "swapoff",
    "userfaultfd",
    "io_uring_setup",
    "io_uring_enter",
    "io_uring_register",
    "open_by_handle_at",
    "name_to_handle_at",
    "fanotify_init",
    "mknod",
    "mknodat",
    "fsopen",
    "fsmount",
    "open_tree",
    "move_mount",
    "mount_setattr",
    "pidfd_open",
    "pidfd_getfd",
    "process_madvise",
    "memfd_create",
    "setuid",
    "setgid",
    "setreuid",
    "setregid",
    "setresuid",
    "setresgid",
    "setgroups",
    "capset",
    "seccomp",
};

static int seccomp_failed(scmp_filter_ctx ctx, const char *what, int rc, char **cause)
{
    seccomp_release(ctx);
    return bw_fail(cause, BW_ERR_SANDBOX, "seccomp (%s): %s", what, strerror(-rc));
}

int sandbox_seccomp(const char *const *allow, size_t n_allow, char **cause)
{
    const uint64_t write_flags = O_WRONLY | O_RDWR | O_CREAT | O_TRUNC | O_APPEND | O_TMPFILE;
    scmp_filter_ctx ctx = seccomp_init(SCMP_ACT_ERRNO(EPERM));
    int rc, nr;

    if (!ctx)
        return bw_fail(cause, BW_ERR_SANDBOX, "seccomp_init failed");
    for (size_t i = 0; i < n_allow; i++) {
        nr = seccomp_syscall_resolve_name(allow[i]);
        if (nr == __NR_SCMP_ERROR)
            continue;
        if ((rc = seccomp_rule_add(ctx, SCMP_ACT_ALLOW, nr, 0)) < 0)
            return seccomp_failed(ctx, allow[i], rc, cause);
    }
    for (size_t i = 0; i < sizeof(killed_syscalls) / sizeof(killed_syscalls[0]); i++) {
        nr = seccomp_syscall_resolve_name(killed_syscalls[i]);
        if (nr == __NR_SCMP_ERROR)
            continue;
        if ((rc = seccomp_rule_add(ctx, SCMP_ACT_KILL_PROCESS, nr, 0)) < 0)
            return seccomp_failed(ctx, killed_syscalls[i], rc, cause);
    }
    /* Opening for reading only; the root is read-only anyway. */
    rc = seccomp_rule_add(ctx, SCMP_ACT_ALLOW, SCMP_SYS(openat), 1,
                          SCMP_A2_64(SCMP_CMP_MASKED_EQ, write_flags, 0));
    if (rc == 0)
        rc = seccomp_rule_add(ctx, SCMP_ACT_ALLOW, SCMP_SYS(open), 1,
                              SCMP_A1_64(SCMP_CMP_MASKED_EQ, write_flags, 0));
    if (rc < 0)
        return seccomp_failed(ctx, "open", rc, cause);
    /* Threads only: a clone without CLONE_THREAD is a fork. */
    rc = seccomp_rule_add(ctx, SCMP_ACT_ALLOW, SCMP_SYS(clone), 1,
                          SCMP_A0_64(SCMP_CMP_MASKED_EQ, CLONE_THREAD, CLONE_THREAD));
    if (rc == 0)
        rc = seccomp_rule_add(ctx, SCMP_ACT_KILL_PROCESS, SCMP_SYS(clone), 1,
                              SCMP_A0_64(SCMP_CMP_MASKED_EQ, CLONE_THREAD, 0));
    if (rc < 0)
        return seccomp_failed(ctx, "clone", rc, cause);
    /* clone3 passes its flags in memory, out of a filter's sight. */
    if ((rc = seccomp_rule_add(ctx, SCMP_ACT_ERRNO(ENOSYS), SCMP_SYS(clone3), 0)) < 0)
        return seccomp_failed(ctx, "clone3", rc, cause);
    /* abort() signals itself; nothing else. */
    rc = seccomp_rule_add(ctx, SCMP_ACT_ALLOW, SCMP_SYS(tgkill), 1,
                          SCMP_A0_64(SCMP_CMP_EQ, (uint64_t)getpid()));
    if (rc < 0)
        return seccomp_failed(ctx, "tgkill", rc, cause);
    /* getrlimit through prlimit64(0, resource, NULL, old), and raising its own stack
     * limit, which NVRTC does (up to the hard limits, which are what bind). */
    rc = seccomp_rule_add(ctx, SCMP_ACT_ALLOW, SCMP_SYS(prlimit64), 2, SCMP_A0_64(SCMP_CMP_EQ, 0),
                          SCMP_A2_64(SCMP_CMP_EQ, 0));
    if (rc == 0)
        rc = seccomp_rule_add(ctx, SCMP_ACT_ALLOW, SCMP_SYS(prlimit64), 2,
                              SCMP_A0_64(SCMP_CMP_EQ, 0), SCMP_A1_64(SCMP_CMP_EQ, RLIMIT_STACK));
    if (rc < 0)
        return seccomp_failed(ctx, "prlimit64", rc, cause);
    if ((rc = seccomp_load(ctx)) < 0)
        return seccomp_failed(ctx, "load", rc, cause);
    seccomp_release(ctx);
    return BW_OK;
}

/* ---- parent side ------------------------------------------------------------- */

void sandbox_job_init(struct sandbox_job *job, int wall_ms, size_t result_max, size_t output_max)
{
    memset(job, 0, sizeof(*job));
    job->request_fd = -1;
    job->wall_ms = wall_ms;
    job->result_max = result_max;
    job->output_max = output_max;
    buf_init(&job->result, result_max);
    buf_init(&job->output, output_max);
    job->pid = -1;
}

void sandbox_job_release(struct sandbox_job *job)
{
    buf_release(&job->result);
    buf_release(&job->output);
}

const char *sandbox_signal_name(int sig)
{
    static _Thread_local char name[32];
    const char *abbrev = sigabbrev_np(sig);

    if (abbrev)
        snprintf(name, sizeof(name), "SIG%s", abbrev);
    else
        snprintf(name, sizeof(name), "signal %d", sig);
    return name;
}

/* Moves fd to a number >= 5 (close-on-exec), so the child's dup2 list cannot clobber it. */
static int fd_above_layout(int fd)
{
    int moved;

    if (fd >= 5)
        return fd;
    moved = fcntl(fd, F_DUPFD_CLOEXEC, 5);
    close(fd);
    return moved;
}

static void close_fd(int *fd)
{
    if (*fd >= 0)
        close(*fd);
    *fd = -1;
}

static void kill_group(pid_t pid)
{
    kill(-pid, SIGKILL);
    kill(pid, SIGKILL);
}

/* Reads what is available from fd into b (kept up to b->max; the rest dropped). Returns false at
 * EOF. */
static bool drain(int fd, struct buf *b, bool *overflow)
{
    char chunk[65536];

    for (;;) {
        ssize_t n = read(fd, chunk, sizeof(chunk));
        if (n < 0 && errno == EINTR)
            continue;
        if (n < 0)
            return errno == EAGAIN;
        if (n == 0)
            return false;
        size_t room = b->max - b->len;
        size_t keep = (size_t)n < room ? (size_t)n : room;
        if (keep < (size_t)n && overflow)
            *overflow = true;
        if (keep && buf_append(b, chunk, keep) < 0 && overflow)
            *overflow = true;
        if (overflow && *overflow)
            return false;
    }
}

/*
 * fork and exec for a job with limits (posix_spawn cannot set rlimits). The
 * judge is multi-threaded: between fork and exec the child makes only
 * async-signal-safe system calls, and reports a failure by its exit status.
 */
static int spawn_limited(struct sandbox_job *job, int devnull, int request, int result_w,
                         int output_w, char **cause)
{
    static char *const empty_env[] = {NULL};
    const struct sandbox_limits *l = job->limits;
    sigset_t none;
    pid_t pid;

    if (access(job->path, X_OK) < 0)
        return bw_fail(cause, errno == ENOENT ? BW_ERR_NOTFOUND : BW_ERR_SYSTEM,
                       "cannot start %s: %s", job->path, strerror(errno));
    sigemptyset(&none);
    pid = fork();
    if (pid < 0)
        return bw_fail(cause, BW_ERR_SYSTEM, "fork: %s", strerror(errno));
    if (pid == 0) {
        struct rlimit zero = {0, 0};
        bool ok = true;

        for (int sig = 1; sig < NSIG; sig++)
            signal(sig, SIG_DFL);
        ok &= setsid() >= 0;
        ok &= dup2(devnull, 0) == 0 && dup2(output_w, 1) == 1 && dup2(output_w, 2) == 2;
        if (request >= 0)
            ok &= dup2(request, SANDBOX_FD_REQUEST) == SANDBOX_FD_REQUEST;
        ok &= dup2(result_w, SANDBOX_FD_RESULT) == SANDBOX_FD_RESULT;
        syscall(SYS_close_range, (unsigned)SANDBOX_FD_RESULT + 1, ~0U, 0);
        ok &= setrlimit(RLIMIT_CORE, &zero) == 0;
        ok &= setrlimit(RLIMIT_FSIZE, &(struct rlimit){l->fsize_bytes, l->fsize_bytes}) == 0;
        if (l->cpu_s > 0)
            ok &= setrlimit(RLIMIT_CPU, &(struct rlimit){(rlim_t)l->cpu_s, (rlim_t)l->cpu_s + 1}) ==
                  0;
        if (l->as_bytes > 0)
            ok &= setrlimit(RLIMIT_AS, &(struct rlimit){l->as_bytes, l->as_bytes}) == 0;
        if (l->nofile > 0)
            ok &= setrlimit(RLIMIT_NOFILE,
                            &(struct rlimit){(rlim_t)l->nofile, (rlim_t)l->nofile}) == 0;
        if (l->nproc > 0)
            ok &=
                setrlimit(RLIMIT_NPROC, &(struct rlimit){(rlim_t)l->nproc, (rlim_t)l->nproc}) == 0;
        ok &= sigprocmask(SIG_SETMASK, &none, NULL) == 0;
        if (ok)
            execve(job->path, job->argv, empty_env);
        _exit(SANDBOX_EXIT_EXEC);
    }
    job->pid = pid;
    return BW_OK;
}

static int spawn(struct sandbox_job *job, int result_w, int output_w, char **cause)
{
    static char *const empty_env[] = {NULL};
    posix_spawn_file_actions_t fa;
    posix_spawnattr_t attr;
    sigset_t none, all;
    int devnull, err, rc = BW_OK;
    int request = -1;

    devnull = fd_above_layout(open("/dev/null", O_RDWR | O_CLOEXEC));
    if (devnull < 0)
        return bw_fail(cause, BW_ERR_SYSTEM, "open(/dev/null): %s", strerror(errno));
    if (job->request_fd >= 0) {
        request = fcntl(job->request_fd, F_DUPFD_CLOEXEC, 5);
        if (request < 0) {
            rc = bw_fail(cause, BW_ERR_SYSTEM, "dup(request fd): %s", strerror(errno));
            goto close_devnull;
        }
    }
    if (job->limits) {
        rc = spawn_limited(job, devnull, request, result_w, output_w, cause);
        if (rc)
            job->pid = -1;
        if (request >= 0)
            close(request);
        goto close_devnull;
    }
    posix_spawn_file_actions_init(&fa);
    posix_spawnattr_init(&attr);
    posix_spawn_file_actions_adddup2(&fa, devnull, 0);
    posix_spawn_file_actions_adddup2(&fa, output_w, 1);
    posix_spawn_file_actions_adddup2(&fa, output_w, 2);
    if (request >= 0)
        posix_spawn_file_actions_adddup2(&fa, request, SANDBOX_FD_REQUEST);
    posix_spawn_file_actions_adddup2(&fa, result_w, SANDBOX_FD_RESULT);
    /* Whatever else the caller has open without O_CLOEXEC stays out. */
    posix_spawn_file_actions_addclosefrom_np(&fa, SANDBOX_FD_RESULT + 1);
    sigemptyset(&none);
    sigfillset(&all);
    posix_spawnattr_setsigmask(&attr, &none);
    posix_spawnattr_setsigdefault(&attr, &all);
    posix_spawnattr_setflags(&attr,
                             POSIX_SPAWN_SETSID | POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF);
    err = posix_spawn(&job->pid, job->path, &fa, &attr, job->argv, empty_env);
    if (err) {
        job->pid = -1;
        rc = bw_fail(cause, err == ENOENT ? BW_ERR_NOTFOUND : BW_ERR_SYSTEM, "cannot start %s: %s",
                     job->path, strerror(err));
    }
    posix_spawnattr_destroy(&attr);
    posix_spawn_file_actions_destroy(&fa);
    if (request >= 0)
        close(request);
close_devnull:
    close(devnull);
    return rc;
}

int sandbox_job_run(struct sandbox_job *job, char **cause)
{
    int result_pipe[2] = {-1, -1}, output_pipe[2] = {-1, -1};
    int pidfd = -1, rc;
    bool exited = false, killed = false;
    double start = now_ms(), deadline = start + job->wall_ms;

    buf_reset(&job->result);
    buf_reset(&job->output);
    job->timed_out = job->result_overflow = false;
    if (pipe2(result_pipe, O_CLOEXEC) < 0 || pipe2(output_pipe, O_CLOEXEC) < 0) {
        rc = bw_fail(cause, BW_ERR_SYSTEM, "pipe: %s", strerror(errno));
        goto close_pipes;
    }
    result_pipe[1] = fd_above_layout(result_pipe[1]);
    output_pipe[1] = fd_above_layout(output_pipe[1]);
    if (result_pipe[1] < 0 || output_pipe[1] < 0) {
        rc = bw_fail(cause, BW_ERR_SYSTEM, "fcntl(F_DUPFD): %s", strerror(errno));
        goto close_pipes;
    }
    if ((rc = spawn(job, result_pipe[1], output_pipe[1], cause)))
        goto close_pipes;
    close_fd(&result_pipe[1]);
    close_fd(&output_pipe[1]);
    fcntl(result_pipe[0], F_SETFL, O_NONBLOCK);
    fcntl(output_pipe[0], F_SETFL, O_NONBLOCK);
    pidfd = (int)syscall(SYS_pidfd_open, job->pid, 0);

    while (result_pipe[0] >= 0 || output_pipe[0] >= 0 || !exited) {
        struct pollfd p[3];
        int n = 0, i_result = -1, i_output = -1, i_pid = -1;
        double left = deadline - now_ms();
        int timeout;

        if (left <= 0) {
            job->timed_out = true;
            break;
        }
        timeout = left > 1e6 ? 1000000 : (int)left + 1;
        if (result_pipe[0] >= 0)
            p[i_result = n++] = (struct pollfd){.fd = result_pipe[0], .events = POLLIN};
        if (output_pipe[0] >= 0)
            p[i_output = n++] = (struct pollfd){.fd = output_pipe[0], .events = POLLIN};
        if (!exited && pidfd >= 0)
            p[i_pid = n++] = (struct pollfd){.fd = pidfd, .events = POLLIN};
        else if (!exited && timeout > 10)
            timeout = 10; /* no pidfd (kernel < 5.3): look at the child every 10 ms */
        if (poll(p, (nfds_t)n, timeout) < 0) {
            if (errno == EINTR)
                continue;
            rc = bw_fail(cause, BW_ERR_SYSTEM, "poll: %s", strerror(errno));
            kill_group(job->pid);
            killed = true;
            goto reap;
        }
        if (i_result >= 0 && p[i_result].revents &&
            !drain(result_pipe[0], &job->result, &job->result_overflow)) {
            /* Kill before closing: a writer that met a closed pipe first
             * would die of SIGPIPE, or its shell would exit 141, and the
             * job's end would depend on who won the race. */
            if (job->result_overflow) {
                kill_group(job->pid);
                killed = true;
                close_fd(&result_pipe[0]);
                break;
            }
            close_fd(&result_pipe[0]);
        }
        if (i_output >= 0 && p[i_output].revents && !drain(output_pipe[0], &job->output, NULL))
            close_fd(&output_pipe[0]);
        if (i_pid >= 0 && p[i_pid].revents)
            exited = true;
        if (pidfd < 0 && !exited) {
            siginfo_t si = {0};
            if (waitid(P_PID, (id_t)job->pid, &si, WEXITED | WNOHANG | WNOWAIT) == 0 &&
                si.si_pid == job->pid)
                exited = true;
        }
    }
    if (job->timed_out && !killed) {
        kill_group(job->pid);
        killed = true;
    }
    rc = BW_OK;
reap:
    while (wait4(job->pid, &job->status, 0, &job->rusage) < 0) {
        if (errno != EINTR) {
            rc = bw_fail(cause, BW_ERR_SYSTEM, "wait4(%ld): %s", (long)job->pid, strerror(errno));
            break;
        }
    }
    job->ms = now_ms() - start;
    if (pidfd >= 0)
        close(pidfd);
close_pipes:
    close_fd(&result_pipe[0]);
    close_fd(&result_pipe[1]);
    close_fd(&output_pipe[0]);
    close_fd(&output_pipe[1]);
    return rc;
}
