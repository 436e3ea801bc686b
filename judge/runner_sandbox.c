#include "runner_sandbox.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <linux/sched.h>
#include <sched.h>
#include <seccomp.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/statvfs.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "common/error.h"
#include "common/limits.h"
#include "common/banned.h"

/* --- step 1: the process --------------------------------------------------------- */

/* Closes every descriptor above keep_max_fd. */
static int close_fds_above(int keep_max_fd, char **cause)
{
    DIR *d;
    struct dirent *e;

#ifdef SYS_close_range
    if (syscall(SYS_close_range, (unsigned)keep_max_fd + 1, ~0u, 0) == 0)
        return BW_OK;
#endif
    /* An old kernel: walk /proc/self/fd (closing while reading is fine, the
     * directory's own fd is skipped). */
    d = opendir("/proc/self/fd");
    if (!d)
        return bw_fail(cause, BW_ERR_SANDBOX, "closing descriptors: cannot list /proc/self/fd: %s",
                       strerror(errno));
    while ((e = readdir(d))) {
        char *end;
        long fd = strtol(e->d_name, &end, 10);
        if (*end || end == e->d_name || fd <= keep_max_fd || fd == dirfd(d))
            continue;
        close((int)fd);
    }
    closedir(d);
    return BW_OK;
}

int runner_sandbox_process(int keep_max_fd, char **cause)
{
    if (prctl(PR_SET_PDEATHSIG, SIGKILL) < 0)
        return bw_fail(cause, BW_ERR_SANDBOX, "prctl(PR_SET_PDEATHSIG): %s", strerror(errno));
    /* setsid fails only for a process group leader, which is already alone. */
    if (setsid() < 0 && getpgid(0) != getpid())
        return bw_fail(cause, BW_ERR_SANDBOX, "setsid: %s", strerror(errno));
    return close_fds_above(keep_max_fd, cause);
}

/* --- step 2: resource limits ----------------------------------------------------- */

int runner_sandbox_rlimits(char **cause)
{
    static const struct {
        int resource;
        const char *name;
        rlim_t value;
    } limits[] = {
        {RLIMIT_CORE, "RLIMIT_CORE", 0},
        {RLIMIT_FSIZE, "RLIMIT_FSIZE", (rlim_t)BW_MAX_RETURN_BYTES},
        {RLIMIT_NOFILE, "RLIMIT_NOFILE", BW_RUNNER_NOFILE},
    };

    for (size_t i = 0; i < sizeof(limits) / sizeof(limits[0]); i++) {
        struct rlimit rl;
        if (getrlimit(limits[i].resource, &rl) < 0)
            return bw_fail(cause, BW_ERR_SANDBOX, "getrlimit(%s): %s", limits[i].name,
                           strerror(errno));
        /* Never raise: a lower limit set by the admin stays. */
        if (rl.rlim_max == RLIM_INFINITY || rl.rlim_max > limits[i].value)
            rl.rlim_max = limits[i].value;
        rl.rlim_cur = rl.rlim_max;
        if (setrlimit(limits[i].resource, &rl) < 0)
            return bw_fail(cause, BW_ERR_SANDBOX, "setrlimit(%s, %llu): %s", limits[i].name,
                           (unsigned long long)rl.rlim_max, strerror(errno));
    }
    return BW_OK;
}

/* --- step 3: namespaces and read-only mounts -------------------------------------- */

static int write_proc(const char *path, const char *text, char **cause)
{
    size_t len = strlen(text);
    int fd = open(path, O_WRONLY | O_CLOEXEC);
    ssize_t n;

    if (fd < 0)
        return bw_fail(cause, BW_ERR_SANDBOX, "open %s: %s", path, strerror(errno));
    n = write(fd, text, len);
    if (n != (ssize_t)len) {
        int e = n < 0 ? errno : EIO;
        close(fd);
        return bw_fail(cause, BW_ERR_SANDBOX, "write \"%.*s\" to %s: %s", (int)(len - 1), text,
                       path, strerror(e));
    }
    close(fd);
    return BW_OK;
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

/* The per-mount flags to keep when remounting read-only: in a user namespace
 * the kernel refuses to drop nosuid, nodev, noexec or the atime mode of an
 * inherited mount, so they are restated. */
static unsigned long keep_flags(const struct statvfs *sv)
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

/* Remounts every mount of this namespace read-only, parents first (the
 * order of /proc/self/mountinfo), except procfs: cuInit fails with
 * CUDA_ERROR_OPERATING_SYSTEM when /proc is read-only (seen on the H200
 * machine with driver 580; scripts/diag/cuinit-ro.sh shows it); see
 * protect_proc() for what in /proc is made read-only instead. Mounts this
 * process cannot reach (EACCES, ENOENT: covered or unreadable) cannot be
 * reached by the runner either and are skipped, as bubblewrap does. */
static int remount_all_readonly(char **cause)
{
    FILE *f = fopen("/proc/self/mountinfo", "re");
    char line[4096];
    int rc = BW_OK;

    if (!f)
        return bw_fail(cause, BW_ERR_SANDBOX, "open /proc/self/mountinfo: %s", strerror(errno));
    while (fgets(line, sizeof(line), f)) {
        char *save = NULL, *field, *mp = NULL, *fstype = NULL;
        struct statvfs sv;
        int i = 0;

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
        if (fstype && strcmp(fstype, "proc") == 0)
            continue; /* the CUDA driver writes under /proc while it starts: protect_proc() */
        unescape_mountinfo(mp);
        if (statvfs(mp, &sv) < 0) {
            if (errno == EACCES || errno == ENOENT || errno == ENOTDIR)
                continue;
            rc = bw_fail(cause, BW_ERR_SANDBOX, "statvfs %s: %s", mp, strerror(errno));
            break;
        }
        if (mount(NULL, mp, NULL, MS_REMOUNT | MS_BIND | MS_RDONLY | keep_flags(&sv), NULL) < 0) {
            if (errno == EACCES || errno == ENOENT)
                continue;
            rc = bw_fail(cause, BW_ERR_SANDBOX, "remount %s read-only: %s", mp, strerror(errno));
            break;
        }
    }
    fclose(f);
    return rc;
}

/*
 * /proc stays writable: NVIDIA drivers from 570 on write their threads' names
 * to /proc/self/task/TID/comm during cuInit and treat a refusal as a fatal
 * "operating system" error (CUDA error 304). What in /proc reaches beyond
 * this process is made read-only instead, by binding each path onto itself
 * and remounting the binding read-only, as container runtimes do.
 */
static int protect_proc(char **cause)
{
    static const char *const paths[] = {"/proc/sys", "/proc/sysrq-trigger", "/proc/irq",
                                        "/proc/bus", "/proc/fs"};

    for (size_t i = 0; i < sizeof(paths) / sizeof(paths[0]); i++) {
        struct statvfs sv;
        if (access(paths[i], F_OK) < 0)
            continue;
        if (mount(paths[i], paths[i], NULL, MS_BIND | MS_REC, NULL) < 0)
            return bw_fail(cause, BW_ERR_SANDBOX, "bind %s onto itself: %s", paths[i],
                           strerror(errno));
        if (statvfs(paths[i], &sv) < 0)
            return bw_fail(cause, BW_ERR_SANDBOX, "statvfs %s: %s", paths[i], strerror(errno));
        if (mount(NULL, paths[i], NULL, MS_REMOUNT | MS_BIND | MS_RDONLY | keep_flags(&sv), NULL) <
            0)
            return bw_fail(cause, BW_ERR_SANDBOX, "remount %s read-only: %s", paths[i],
                           strerror(errno));
    }
    return BW_OK;
}

int runner_sandbox_namespaces(char **cause)
{
    char map[64];
    uid_t uid = getuid();
    gid_t gid = getgid();
    int rc;

    if (unshare(CLONE_NEWUSER | CLONE_NEWNS | CLONE_NEWNET) < 0)
        return bw_fail(cause, BW_ERR_SANDBOX,
                       "unshare(user, mount, network namespaces): %s (unprivileged user "
                       "namespaces must be allowed, or run with --no-sandbox)",
                       strerror(errno));
    if ((rc = write_proc("/proc/self/setgroups", "deny\n", cause)))
        return rc;
    snprintf(map, sizeof(map), "%u %u 1\n", (unsigned)uid, (unsigned)uid);
    if ((rc = write_proc("/proc/self/uid_map", map, cause)))
        return rc;
    snprintf(map, sizeof(map), "%u %u 1\n", (unsigned)gid, (unsigned)gid);
    if ((rc = write_proc("/proc/self/gid_map", map, cause)))
        return rc;
    if (mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL) < 0)
        return bw_fail(cause, BW_ERR_SANDBOX, "make / recursively private: %s", strerror(errno));
    if ((rc = remount_all_readonly(cause)))
        return rc;
    return protect_proc(cause);
}

/* --- step 5: seccomp --------------------------------------------------------------- */

/* A rule of the filter: syscall, errno, and at most one argument condition. */
struct deny_rule {
    const char *name; /* the syscall, resolved by name so that missing ones are skipped */
    int err;
    int n_args; /* 0 or 1 */
    struct scmp_arg_cmp arg;
};

int runner_sandbox_seccomp(char **cause)
{
    uint32_t self = (uint32_t)getpid();
    const struct deny_rule rules[] = {
        {"execve", EPERM, 0, {0}},
        {"execveat", EPERM, 0, {0}},
        {"fork", EPERM, 0, {0}},
        {"vfork", EPERM, 0, {0}},
        {"clone", EPERM, 1, SCMP_A0_64(SCMP_CMP_MASKED_EQ, CLONE_THREAD, 0)},
        {"clone3", ENOSYS, 0, {0}},
        {"socket", EPERM, 1, SCMP_A0_32(SCMP_CMP_NE, AF_UNIX)},
        {"connect", EPERM, 0, {0}},
        {"bind", EPERM, 0, {0}},
        {"listen", EPERM, 0, {0}},
        {"ptrace", EPERM, 0, {0}},
        {"process_vm_readv", EPERM, 0, {0}},
        {"process_vm_writev", EPERM, 0, {0}},
        {"kcmp", EPERM, 0, {0}},
        {"mount", EPERM, 0, {0}},
        {"umount2", EPERM, 0, {0}},
        {"pivot_root", EPERM, 0, {0}},
        {"chroot", EPERM, 0, {0}},
        {"open_tree", EPERM, 0, {0}},
        {"move_mount", EPERM, 0, {0}},
        {"fsopen", EPERM, 0, {0}},
        {"fsconfig", EPERM, 0, {0}},
        {"fsmount", EPERM, 0, {0}},
        {"fspick", EPERM, 0, {0}},
        {"mount_setattr", EPERM, 0, {0}},
        {"unshare", EPERM, 0, {0}},
        {"setns", EPERM, 0, {0}},
        {"bpf", EPERM, 0, {0}},
        {"perf_event_open", EPERM, 0, {0}},
        {"keyctl", EPERM, 0, {0}},
        {"add_key", EPERM, 0, {0}},
        {"request_key", EPERM, 0, {0}},
        {"io_uring_setup", EPERM, 0, {0}},
        {"io_uring_enter", EPERM, 0, {0}},
        {"io_uring_register", EPERM, 0, {0}},
        {"userfaultfd", EPERM, 0, {0}},
        {"pidfd_open", EPERM, 0, {0}},
        {"pidfd_send_signal", EPERM, 0, {0}},
        {"pidfd_getfd", EPERM, 0, {0}},
        {"kill", EPERM, 1, SCMP_A0_32(SCMP_CMP_NE, self)},
        {"tgkill", EPERM, 1, SCMP_A0_32(SCMP_CMP_NE, self)},
        {"tkill", EPERM, 0, {0}},
        {"rt_sigqueueinfo", EPERM, 1, SCMP_A0_32(SCMP_CMP_NE, self)},
        {"rt_tgsigqueueinfo", EPERM, 1, SCMP_A0_32(SCMP_CMP_NE, self)},
        {"prlimit64", EPERM, 1, SCMP_A0_32(SCMP_CMP_NE, 0)},
        {"move_pages", EPERM, 1, SCMP_A0_32(SCMP_CMP_NE, 0)},
        {"migrate_pages", EPERM, 1, SCMP_A0_32(SCMP_CMP_NE, 0)},
        {"openat2", ENOSYS, 0, {0}},
        {"name_to_handle_at", EPERM, 0, {0}},
        {"open_by_handle_at", EPERM, 0, {0}},
    };
    scmp_filter_ctx ctx = seccomp_init(SCMP_ACT_ALLOW);
    int rc;

    if (!ctx)
        return bw_fail(cause, BW_ERR_SANDBOX, "seccomp_init failed");
    /* Every thread (the driver has started some) gets the filter. */
    rc = seccomp_attr_set(ctx, SCMP_FLTATR_CTL_TSYNC, 1);
    if (rc < 0) {
        rc = bw_fail(cause, BW_ERR_SANDBOX, "seccomp: thread synchronisation: %s", strerror(-rc));
        goto release;
    }
    for (size_t i = 0; i < sizeof(rules) / sizeof(rules[0]); i++) {
        int nr = seccomp_syscall_resolve_name(rules[i].name);
        if (nr == __NR_SCMP_ERROR)
            continue; /* not a syscall of this architecture */
        if (rules[i].n_args)
            rc = seccomp_rule_add(ctx, SCMP_ACT_ERRNO(rules[i].err), nr, 1, rules[i].arg);
        else
            rc = seccomp_rule_add(ctx, SCMP_ACT_ERRNO(rules[i].err), nr, 0);
        if (rc < 0) {
            rc = bw_fail(cause, BW_ERR_SANDBOX, "seccomp rule for %s: %s", rules[i].name,
                         strerror(-rc));
            goto release;
        }
    }
    rc = seccomp_load(ctx);
    if (rc < 0) {
        rc = bw_fail(cause, BW_ERR_SANDBOX, "seccomp_load: %s", strerror(-rc));
        goto release;
    }
    rc = BW_OK;

release:
    seccomp_release(ctx);
    return rc;
}
