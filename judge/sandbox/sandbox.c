#include "sandbox.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <linux/capability.h>
#include <poll.h>
#include <sched.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "common/error.h"
#include "common/limits.h"
#include "common/banned.h"

/* ---- the process ------------------------------------------------------------------- */

int sandbox_die_with_parent_raw(pid_t parent)
{
    if (prctl(PR_SET_PDEATHSIG, SIGKILL, 0, 0, 0) < 0)
        return errno;
    return parent > 0 && getppid() != parent ? ESRCH : 0;
}

int sandbox_die_with_parent(pid_t parent, char **cause)
{
    int err = sandbox_die_with_parent_raw(parent);

    if (err == ESRCH)
        return bw_fail(cause, BW_ERR_SANDBOX, "the parent (pid %ld) is gone", (long)parent);
    if (err)
        return bw_fail(cause, BW_ERR_SANDBOX, "prctl(PR_SET_PDEATHSIG): %s", strerror(err));
    return BW_OK;
}

int sandbox_new_session_raw(void)
{
    /* A group leader already (spawn.h makes every child a session leader). */
    if (getpgid(0) == getpid())
        return 0;
    return setsid() < 0 ? errno : 0;
}

int sandbox_new_session(char **cause)
{
    int err = sandbox_new_session_raw();

    if (err)
        return bw_fail(cause, BW_ERR_SANDBOX, "setsid: %s", strerror(err));
    return BW_OK;
}

/* What getdents64(2) returns (glibc declares no such struct). */
struct dirent64_raw {
    uint64_t d_ino;
    int64_t d_off;
    unsigned short d_reclen;
    unsigned char d_type;
    char d_name[];
};

/* A decimal fd number, or -1. */
static int fd_number(const char *s)
{
    long v = 0;

    if (!*s)
        return -1;
    for (; *s; s++) {
        if (*s < '0' || *s > '9' || v > INT_MAX / 10)
            return -1;
        v = v * 10 + (*s - '0');
    }
    return v > INT_MAX ? -1 : (int)v;
}

/* The fallback of kernels before 5.9: the fds listed in /proc/self/fd (read
 * with getdents64, which needs no allocation), else every fd below the limit. */
static void close_fds_slowly(int first, int keep)
{
    _Alignas(struct dirent64_raw) char entries[4096];
    struct rlimit rl;
    long end = BW_SANDBOX_CLOSE_FDS;
    int dir = open("/proc/self/fd", O_RDONLY | O_DIRECTORY | O_CLOEXEC);

    if (dir >= 0) {
        long n;
        while ((n = syscall(SYS_getdents64, dir, entries, sizeof(entries))) > 0) {
            for (long at = 0; at < n;) {
                struct dirent64_raw *e = (struct dirent64_raw *)(entries + at);
                int fd = fd_number(e->d_name);
                if (fd >= first && fd != keep && fd != dir)
                    close(fd);
                at += e->d_reclen;
            }
        }
        close(dir);
        if (n == 0)
            return;
    }
    if (getrlimit(RLIMIT_NOFILE, &rl) == 0 && rl.rlim_cur != RLIM_INFINITY)
        end = rl.rlim_cur < (rlim_t)INT_MAX ? (long)rl.rlim_cur : INT_MAX;
    for (long fd = first; fd < end; fd++)
        if (fd != keep)
            close((int)fd);
}

int sandbox_close_fds_raw(int first, int keep)
{
    long rc;

    if (first < 0)
        first = 0;
    if (keep < first) {
        rc = syscall(SYS_close_range, (unsigned)first, ~0U, 0);
    } else {
        rc = keep == first ? 0 : syscall(SYS_close_range, (unsigned)first, (unsigned)keep - 1, 0);
        if (rc == 0 && keep < INT_MAX)
            rc = syscall(SYS_close_range, (unsigned)keep + 1, ~0U, 0);
    }
    if (rc == 0)
        return 0;
    if (errno != ENOSYS)
        return errno;
    close_fds_slowly(first, keep);
    return 0;
}

int sandbox_close_fds(int first, char **cause)
{
    int err = sandbox_close_fds_raw(first, -1);

    if (err)
        return bw_fail(cause, BW_ERR_SANDBOX, "close_range(%d): %s", first, strerror(err));
    return BW_OK;
}

/* ---- resource limits ----------------------------------------------------------------- */

const char *sandbox_rlimit_name(int resource)
{
    switch (resource) {
    case RLIMIT_CORE:
        return "RLIMIT_CORE";
    case RLIMIT_FSIZE:
        return "RLIMIT_FSIZE";
    case RLIMIT_CPU:
        return "RLIMIT_CPU";
    case RLIMIT_AS:
        return "RLIMIT_AS";
    case RLIMIT_NOFILE:
        return "RLIMIT_NOFILE";
    case RLIMIT_NPROC:
        return "RLIMIT_NPROC";
    }
    return "RLIMIT_?";
}

/* Sets one limit, never above a hard limit already there; 0 or an errno. */
static int lower_rlimit(int resource, rlim_t soft, rlim_t hard)
{
    struct rlimit rl = {.rlim_cur = soft, .rlim_max = hard};
    struct rlimit old;

    if (getrlimit(resource, &old) == 0 && old.rlim_max != RLIM_INFINITY) {
        if (rl.rlim_max > old.rlim_max)
            rl.rlim_max = old.rlim_max;
        if (rl.rlim_cur > rl.rlim_max)
            rl.rlim_cur = rl.rlim_max;
    }
    return setrlimit(resource, &rl) < 0 ? errno : 0;
}

int sandbox_apply_rlimits(const struct sandbox_limits *l, int *failed)
{
    struct {
        int resource;
        bool set;
        rlim_t soft, hard;
    } steps[] = {
        {RLIMIT_CORE, true, 0, 0},
        {RLIMIT_FSIZE, true, l->fsize_bytes, l->fsize_bytes},
        {RLIMIT_CPU, l->cpu_s > 0, (rlim_t)l->cpu_s, (rlim_t)l->cpu_s + 1},
        {RLIMIT_AS, l->as_bytes > 0, l->as_bytes, l->as_bytes},
        {RLIMIT_NOFILE, l->nofile > 0, (rlim_t)l->nofile, (rlim_t)l->nofile},
        {RLIMIT_NPROC, l->nproc > 0, (rlim_t)l->nproc, (rlim_t)l->nproc},
    };

    for (size_t i = 0; i < sizeof(steps) / sizeof(steps[0]); i++) {
        int err = steps[i].set ? lower_rlimit(steps[i].resource, steps[i].soft, steps[i].hard) : 0;
        if (err) {
            *failed = steps[i].resource;
            return err;
        }
    }
    return 0;
}

static void exit_on_cpu_limit(int sig)
{
    (void)sig;
    _exit(SANDBOX_EXIT_CPU_LIMIT);
}

/* The soft value sandbox_apply_rlimits gives `resource`, for a message. */
static unsigned long long rlimit_value(const struct sandbox_limits *l, int resource)
{
    switch (resource) {
    case RLIMIT_FSIZE:
        return (unsigned long long)l->fsize_bytes;
    case RLIMIT_CPU:
        return (unsigned long long)l->cpu_s;
    case RLIMIT_AS:
        return (unsigned long long)l->as_bytes;
    case RLIMIT_NOFILE:
        return (unsigned long long)l->nofile;
    case RLIMIT_NPROC:
        return (unsigned long long)l->nproc;
    }
    return 0;
}

int sandbox_set_rlimits(const struct sandbox_limits *l, char **cause)
{
    int failed = -1, err;

    /* The soft limit's SIGXCPU ends the process with SANDBOX_EXIT_CPU_LIMIT (through a
     * handler: pid 1 of a namespace ignores it otherwise); the hard limit's SIGKILL,
     * a second later, is the backstop. */
    if (l->cpu_s > 0) {
        struct sigaction sa = {.sa_handler = exit_on_cpu_limit};
        sigemptyset(&sa.sa_mask);
        if (sigaction(SIGXCPU, &sa, NULL) < 0)
            return bw_fail(cause, BW_ERR_SANDBOX, "sigaction(SIGXCPU): %s", strerror(errno));
    }
    if ((err = sandbox_apply_rlimits(l, &failed)))
        return bw_fail(cause, BW_ERR_SANDBOX, "setrlimit(%s, %llu): %s",
                       sandbox_rlimit_name(failed), rlimit_value(l, failed), strerror(err));
    return BW_OK;
}

int sandbox_not_dumpable(char **cause)
{
    if (prctl(PR_SET_DUMPABLE, 0, 0, 0, 0) < 0)
        return bw_fail(cause, BW_ERR_SANDBOX, "prctl(PR_SET_DUMPABLE): %s", strerror(errno));
    return BW_OK;
}

/* ---- namespaces ------------------------------------------------------------------------ */

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

/* Maps the caller's ids, alone, in the user namespace it just entered. */
static int map_ids(uid_t uid, gid_t gid, char **cause)
{
    char map[64];
    int rc;

    /* Kernels before 3.19 have no setgroups file, and no need of it. */
    if ((rc = write_proc("/proc/self/setgroups", "deny", true, cause)))
        return rc;
    snprintf(map, sizeof(map), "%lu %lu 1\n", (unsigned long)uid, (unsigned long)uid);
    if ((rc = write_proc("/proc/self/uid_map", map, false, cause)))
        return rc;
    snprintf(map, sizeof(map), "%lu %lu 1\n", (unsigned long)gid, (unsigned long)gid);
    return write_proc("/proc/self/gid_map", map, false, cause);
}

int sandbox_unshare(unsigned namespaces, char **cause)
{
    static const struct {
        unsigned ns;
        int flag;
        const char *name;
    } more[] = {
        {SANDBOX_NS_MOUNT, CLONE_NEWNS, "CLONE_NEWNS"},
        {SANDBOX_NS_NET, CLONE_NEWNET, "CLONE_NEWNET"},
        {SANDBOX_NS_IPC, CLONE_NEWIPC, "CLONE_NEWIPC"},
        {SANDBOX_NS_UTS, CLONE_NEWUTS, "CLONE_NEWUTS"},
        {SANDBOX_NS_PID, CLONE_NEWPID, "CLONE_NEWPID"},
    };
    uid_t uid = geteuid();
    gid_t gid = getegid();
    int rc;

    if (unshare(CLONE_NEWUSER) < 0)
        return bw_fail(cause, BW_ERR_SANDBOX, "unshare(CLONE_NEWUSER): %s", strerror(errno));
    if ((rc = map_ids(uid, gid, cause)))
        return rc;
    for (size_t i = 0; i < sizeof(more) / sizeof(more[0]); i++)
        if ((namespaces & more[i].ns) && unshare(more[i].flag) < 0)
            return bw_fail(cause, BW_ERR_SANDBOX, "unshare(%s): %s", more[i].name, strerror(errno));
    /* The new UTS namespace starts with the host's name. */
    if ((namespaces & SANDBOX_NS_UTS) &&
        sethostname(SANDBOX_HOSTNAME, strlen(SANDBOX_HOSTNAME)) < 0)
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
    sigset_t all;
    int status;

    sandbox_close_fds_raw(0, alive);
    lower_rlimit(RLIMIT_CORE, 0, 0);
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
    if (sandbox_die_with_parent(0, cause))
        return BW_ERR_SANDBOX;
    hup = (struct pollfd){.fd = alive[0], .events = POLLIN};
    if (poll(&hup, 1, 0) != 0)
        return bw_fail(cause, BW_ERR_SANDBOX, "the parent died while entering the pid namespace");
    close(alive[0]);
    return BW_OK;
}

/* ---- the file system --------------------------------------------------------------------- */

int sandbox_private_mounts(char **cause)
{
    if (mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL) < 0)
        return bw_fail(cause, BW_ERR_SANDBOX, "mount(/, MS_REC|MS_PRIVATE): %s", strerror(errno));
    return BW_OK;
}

/* The per-mount flags to keep when remounting: in a user namespace the kernel
 * refuses to drop nosuid, nodev, noexec or the atime mode of an inherited
 * mount, so they are restated. */
static unsigned long locked_flags(const struct statvfs *sv)
{
    unsigned long f = 0;

    if (sv->f_flag & ST_NOSUID)
        f |= MS_NOSUID;
    if (sv->f_flag & ST_NODEV)
        f |= MS_NODEV;
    if (sv->f_flag & ST_NOEXEC)
        f |= MS_NOEXEC;
    if (sv->f_flag & ST_NOATIME)
        f |= MS_NOATIME;
    if (sv->f_flag & ST_NODIRATIME)
        f |= MS_NODIRATIME;
    if (sv->f_flag & ST_RELATIME)
        f |= MS_RELATIME;
    if (!(sv->f_flag & (ST_NOATIME | ST_RELATIME)))
        f |= MS_STRICTATIME;
    return f;
}

/* mkdir -p of an absolute path below a base directory; `parent_only` stops at its parent. */
static int make_dirs(const char *base, const char *target, bool parent_only, char **cause)
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
    if (!parent_only && mkdir(path, 0755) < 0 && errno != EEXIST)
        return bw_fail(cause, BW_ERR_SANDBOX, "mkdir(%s): %s", path, strerror(errno));
    return BW_OK;
}

/* An empty file as the mount point of a file or device bind. */
static int make_file(const char *base, const char *target, char **cause)
{
    char path[PATH_MAX];
    int rc, fd;

    if ((rc = make_dirs(base, target, true, cause)))
        return rc;
    snprintf(path, sizeof(path), "%s%s", base, target);
    fd = open(path, O_WRONLY | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0644);
    if (fd < 0)
        return bw_fail(cause, BW_ERR_SANDBOX, "create mount point %s: %s", target, strerror(errno));
    close(fd);
    return BW_OK;
}

static const unsigned long locked_down = MS_NOSUID | MS_NODEV | MS_NOEXEC;

/* Mounts one entry of the new root at base+target; `fd` is its opened source, or -1. */
static int mount_entry(const char *base, const struct sandbox_bind *b, int fd, char **cause)
{
    unsigned long flags = MS_NOSUID | (b->device ? 0 : MS_NODEV) | (b->exec ? 0 : MS_NOEXEC);
    char path[PATH_MAX], source[64], options[64];
    struct statvfs sv;
    struct stat st;
    int rc;

    if (b->target[0] != '/' || strstr(b->target, ".."))
        return bw_fail(cause, BW_ERR_INTERNAL, "bind target %s is not a plain absolute path",
                       b->target);
    if (!b->source && b->tmpfs_bytes == 0)
        return bw_fail(cause, BW_ERR_INTERNAL, "the tmpfs at %s has no size", b->target);
    if (b->source && fstat(fd, &st) < 0)
        return bw_fail(cause, BW_ERR_SANDBOX, "fstat(%s): %s", b->source, strerror(errno));
    if (b->source && b->device != (S_ISCHR(st.st_mode) || S_ISBLK(st.st_mode)))
        return bw_fail(cause, BW_ERR_INTERNAL, "bind source %s is %sa device node", b->source,
                       b->device ? "not " : "");
    if (b->source && !S_ISDIR(st.st_mode))
        rc = make_file(base, b->target, cause);
    else
        rc = make_dirs(base, b->target, false, cause);
    if (rc)
        return rc;
    snprintf(path, sizeof(path), "%s%s", base, b->target);
    if (!b->source) {
        snprintf(options, sizeof(options), "size=%zu,mode=0700", b->tmpfs_bytes);
        if (mount("tmpfs", path, "tmpfs", flags, options) < 0)
            return bw_fail(cause, BW_ERR_SANDBOX, "mount(tmpfs on %s): %s", b->target,
                           strerror(errno));
        return BW_OK;
    }
    snprintf(source, sizeof(source), "/proc/self/fd/%d", fd);
    if (mount(source, path, NULL, MS_BIND, NULL) < 0)
        return bw_fail(cause, BW_ERR_SANDBOX, "mount(bind %s on %s): %s", b->source, b->target,
                       strerror(errno));
    /* An executable or device bind keeps what the host locked (a noexec host mount
     * stays noexec, a nodev one nodev: its devices then cannot be opened). */
    if (b->exec || b->device) {
        if (statvfs(path, &sv) < 0)
            return bw_fail(cause, BW_ERR_SANDBOX, "statvfs(%s): %s", b->target, strerror(errno));
        flags |= locked_flags(&sv);
    }
    if (mount(NULL, path, NULL, MS_REMOUNT | MS_BIND | MS_RDONLY | flags, NULL) < 0)
        return bw_fail(cause, BW_ERR_SANDBOX, "mount(remount %s read-only): %s", b->target,
                       strerror(errno));
    return BW_OK;
}

int sandbox_make_root(const struct sandbox_bind *binds, size_t n_binds, char **cause)
{
    const char *base = SANDBOX_ROOT_BASE;
    char options[64];
    int fds[BW_SANDBOX_MAX_MOUNTS];
    size_t n_open = 0;
    int rc = BW_OK;

    if (n_binds > BW_SANDBOX_MAX_MOUNTS)
        return bw_fail(cause, BW_ERR_INTERNAL, "%zu binds, over %d", n_binds,
                       BW_SANDBOX_MAX_MOUNTS);
    /* Sources are opened first: the tmpfs over SANDBOX_ROOT_BASE may hide them. */
    for (; n_open < n_binds; n_open++) {
        fds[n_open] = binds[n_open].source ? open(binds[n_open].source, O_PATH | O_CLOEXEC) : -1;
        if (binds[n_open].source && fds[n_open] < 0) {
            rc = bw_fail(cause, BW_ERR_SANDBOX, "open(%s): %s", binds[n_open].source,
                         strerror(errno));
            goto close_sources;
        }
    }
    if ((rc = sandbox_private_mounts(cause)))
        goto close_sources;
    snprintf(options, sizeof(options), "size=%d,nr_inodes=%d,mode=0755", BW_SANDBOX_ROOT_BYTES,
             BW_SANDBOX_ROOT_INODES);
    if (mount("tmpfs", base, "tmpfs", locked_down, options) < 0) {
        rc = bw_fail(cause, BW_ERR_SANDBOX, "mount(tmpfs on %s): %s", base, strerror(errno));
        goto close_sources;
    }
    for (size_t i = 0; i < n_binds; i++)
        if ((rc = mount_entry(base, &binds[i], fds[i], cause)))
            goto close_sources;
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
        if (fds[--n_open] >= 0)
            close(fds[n_open]);
    return rc;
}

/* Undoes mountinfo's octal escapes (\040 for a space) in place. */
static void unescape_mountinfo(char *s)
{
    char *w = s;
    for (char *r = s; *r; r++) {
        if (r[0] == '\\' && r[1] >= '0' && r[1] <= '3' && r[2] >= '0' && r[2] <= '7' &&
            r[3] >= '0' && r[3] <= '7') {
            *w++ = (char)((r[1] - '0') * 64 + (r[2] - '0') * 8 + (r[3] - '0'));
            r += 3;
        } else {
            *w++ = *r;
        }
    }
    *w = '\0';
}

int sandbox_remount_readonly(const char *spare, char **cause)
{
    FILE *f = fopen("/proc/self/mountinfo", "re");
    char *line;
    int rc = BW_OK;

    if (!f)
        return bw_fail(cause, BW_ERR_SANDBOX, "open /proc/self/mountinfo: %s", strerror(errno));
    line = malloc(BW_MOUNTINFO_LINE_BYTES);
    if (!line) {
        fclose(f);
        return bw_fail(cause, BW_ERR_NOMEM, "out of memory");
    }
    while (fgets(line, BW_MOUNTINFO_LINE_BYTES, f)) {
        char *save = NULL, *field, *mp = NULL, *fstype = NULL;
        struct statvfs sv;
        int i = 0;

        /* A cut line would be parsed as two, and a mount could stay writable. */
        if (!strchr(line, '\n') && !feof(f)) {
            rc = bw_fail(cause, BW_ERR_SANDBOX,
                         "a line of /proc/self/mountinfo is over BW_MOUNTINFO_LINE_BYTES (%d)",
                         BW_MOUNTINFO_LINE_BYTES);
            break;
        }
        /* "ID PARENT MAJ:MIN ROOT MOUNTPOINT OPTIONS [OPTIONAL...] - FSTYPE SOURCE SUPER" */
        for (field = strtok_r(line, " \n", &save); field; field = strtok_r(NULL, " \n", &save)) {
            if (i == 4)
                mp = field;
            if (strcmp(field, "-") == 0) {
                fstype = strtok_r(NULL, " \n", &save);
                break;
            }
            i++;
        }
        if (!mp)
            continue;
        if (fstype && strcmp(fstype, "autofs") == 0)
            continue; /* statvfs would trigger the automount */
        if (fstype && spare && strcmp(fstype, spare) == 0)
            continue;
        unescape_mountinfo(mp);
        if (statvfs(mp, &sv) < 0) {
            if (errno == EACCES || errno == ENOENT || errno == ENOTDIR)
                continue;
            rc = bw_fail(cause, BW_ERR_SANDBOX, "statvfs %s: %s", mp, strerror(errno));
            break;
        }
        if (mount(NULL, mp, NULL, MS_REMOUNT | MS_BIND | MS_RDONLY | locked_flags(&sv), NULL) < 0) {
            if (errno == EACCES || errno == ENOENT)
                continue;
            rc = bw_fail(cause, BW_ERR_SANDBOX, "remount %s read-only: %s", mp, strerror(errno));
            break;
        }
    }
    free(line);
    fclose(f);
    return rc;
}

int sandbox_bind_readonly(const char *path, char **cause)
{
    struct statvfs sv;

    if (access(path, F_OK) < 0)
        return BW_OK;
    if (mount(path, path, NULL, MS_BIND | MS_REC, NULL) < 0)
        return bw_fail(cause, BW_ERR_SANDBOX, "bind %s onto itself: %s", path, strerror(errno));
    if (statvfs(path, &sv) < 0)
        return bw_fail(cause, BW_ERR_SANDBOX, "statvfs %s: %s", path, strerror(errno));
    if (mount(NULL, path, NULL, MS_REMOUNT | MS_BIND | MS_RDONLY | locked_flags(&sv), NULL) < 0)
        return bw_fail(cause, BW_ERR_SANDBOX, "remount %s read-only: %s", path, strerror(errno));
    return BW_OK;
}

/* ---- privileges and system calls ----------------------------------------------------------- */

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

static uint32_t seccomp_action(enum sandbox_verdict v, int err)
{
    switch (v) {
    case SANDBOX_ALLOW:
        return SCMP_ACT_ALLOW;
    case SANDBOX_FAIL:
        return SCMP_ACT_ERRNO((uint32_t)err);
    case SANDBOX_KILL:
        break;
    }
    return SCMP_ACT_KILL_PROCESS;
}

int sandbox_seccomp_load(const struct sandbox_filter *f, char **cause)
{
    scmp_filter_ctx ctx = seccomp_init(seccomp_action(f->fallback, f->fallback_err));
    int rc;

    if (!ctx)
        return bw_fail(cause, BW_ERR_SANDBOX, "seccomp_init failed");
    if (f->all_threads && (rc = seccomp_attr_set(ctx, SCMP_FLTATR_CTL_TSYNC, 1)) < 0) {
        rc = bw_fail(cause, BW_ERR_SANDBOX, "seccomp: thread synchronisation: %s", strerror(-rc));
        goto release;
    }
    for (size_t i = 0; i < f->n_rules; i++) {
        const struct sandbox_rule *r = &f->rules[i];
        int nr = seccomp_syscall_resolve_name(r->syscall);
        if (nr == __NR_SCMP_ERROR)
            continue; /* not a system call of this kernel or architecture */
        rc =
            seccomp_rule_add_array(ctx, seccomp_action(r->verdict, r->err), nr, r->n_args, r->args);
        if (rc < 0) {
            rc = bw_fail(cause, BW_ERR_SANDBOX, "seccomp rule for %s: %s", r->syscall,
                         strerror(-rc));
            goto release;
        }
    }
    if ((rc = seccomp_load(ctx)) < 0) {
        rc = bw_fail(cause, BW_ERR_SANDBOX, "seccomp_load: %s", strerror(-rc));
        goto release;
    }
    rc = BW_OK;
release:
    seccomp_release(ctx);
    return rc;
}

const char *const sandbox_attack_syscalls[] = {
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
    "fsconfig",
    "fspick",
    "open_tree",
    "move_mount",
    "mount_setattr",
    "pidfd_getfd",
    "process_madvise",
    "setuid",
    "setgid",
    "setreuid",
    "setregid",
    "setresuid",
    "setresgid",
    "setgroups",
    "capset",
    "seccomp",
    "iopl",
    "ioperm",
    "modify_ldt",
    "acct",
    "quotactl",
    "vhangup",
    "lookup_dcookie",
};
const size_t sandbox_n_attack_syscalls =
    sizeof(sandbox_attack_syscalls) / sizeof(sandbox_attack_syscalls[0]);

/* What the allowlist profile's children (pure computation) never do besides:
 * start programs or processes, talk on a network, make anonymous files or
 * watch other processes. A try is an attack, and ends the process. */
static const char *const compute_killed_syscalls[] = {
    "execve",  "execveat", "fork",       "vfork",        "socket",  "socketpair",
    "connect", "bind",     "listen",     "accept",       "accept4", "sendto",
    "sendmsg", "sendmmsg", "pidfd_open", "memfd_create",
};

#define N_COMPUTE_KILLED (sizeof(compute_killed_syscalls) / sizeof(compute_killed_syscalls[0]))

int sandbox_seccomp_allowlist(const char *const *allow, size_t n_allow, char **cause)
{
    const uint64_t write_flags = O_WRONLY | O_RDWR | O_CREAT | O_TRUNC | O_APPEND | O_TMPFILE;
    const uint64_t self = (uint64_t)getpid();
    const struct sandbox_rule checked[] = {
        /* Opening for reading only; the root is read-only anyway. */
        {"openat", SANDBOX_ALLOW, 0, 1, {SCMP_A2_64(SCMP_CMP_MASKED_EQ, write_flags, 0)}},
        {"open", SANDBOX_ALLOW, 0, 1, {SCMP_A1_64(SCMP_CMP_MASKED_EQ, write_flags, 0)}},
        /* Threads only: a clone without CLONE_THREAD is a fork. */
        {"clone",
         SANDBOX_ALLOW,
         0,
         1,
         {SCMP_A0_64(SCMP_CMP_MASKED_EQ, CLONE_THREAD, CLONE_THREAD)}},
        {"clone", SANDBOX_KILL, 0, 1, {SCMP_A0_64(SCMP_CMP_MASKED_EQ, CLONE_THREAD, 0)}},
        /* clone3 passes its flags in memory, out of a filter's sight. */
        {"clone3", SANDBOX_FAIL, ENOSYS, 0, {{0}}},
        /* abort() signals itself; nothing else. */
        {"tgkill", SANDBOX_ALLOW, 0, 1, {SCMP_A0_64(SCMP_CMP_EQ, self)}},
        /* getrlimit through prlimit64(0, resource, NULL, old), and raising its own stack
         * limit, which NVRTC does (up to the hard limits, which are what bind). */
        {"prlimit64",
         SANDBOX_ALLOW,
         0,
         2,
         {SCMP_A0_64(SCMP_CMP_EQ, 0), SCMP_A2_64(SCMP_CMP_EQ, 0)}},
        {"prlimit64",
         SANDBOX_ALLOW,
         0,
         2,
         {SCMP_A0_64(SCMP_CMP_EQ, 0), SCMP_A1_64(SCMP_CMP_EQ, RLIMIT_STACK)}},
    };
    const size_t n_checked = sizeof(checked) / sizeof(checked[0]);
    struct sandbox_filter f = {.fallback = SANDBOX_FAIL, .fallback_err = EPERM};
    struct sandbox_rule *rules =
        calloc(n_allow + N_COMPUTE_KILLED + sandbox_n_attack_syscalls + n_checked, sizeof(*rules));
    size_t n = 0;
    int rc;

    if (!rules)
        return bw_fail(cause, BW_ERR_NOMEM, "out of memory");
    for (size_t i = 0; i < n_allow; i++)
        rules[n++] = (struct sandbox_rule){.syscall = allow[i], .verdict = SANDBOX_ALLOW};
    for (size_t i = 0; i < N_COMPUTE_KILLED; i++)
        rules[n++] =
            (struct sandbox_rule){.syscall = compute_killed_syscalls[i], .verdict = SANDBOX_KILL};
    for (size_t i = 0; i < sandbox_n_attack_syscalls; i++)
        rules[n++] =
            (struct sandbox_rule){.syscall = sandbox_attack_syscalls[i], .verdict = SANDBOX_KILL};
    for (size_t i = 0; i < n_checked; i++)
        rules[n++] = checked[i];
    f.rules = rules;
    f.n_rules = n;
    rc = sandbox_seccomp_load(&f, cause);
    free(rules);
    return rc;
}
