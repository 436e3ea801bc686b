/*
 * blockwise-triton-compile - runs Triton's compiler on one untrusted submission, locked down.
 *
 *   blockwise-triton-compile --parent=PID --serve --python=EXE [--bind=PATH]...
 *                            [--cpu-s=N] [--mem-bytes=N] [--no-sandbox]
 *   blockwise-triton-compile --parent=PID --probe --python=EXE [--cpu-s=N] [--mem-bytes=N]
 *
 * Started only by judge/worker/triton_compile.c. --serve: the request arrives on fd 3
 * (a stream socket, read by the driver after it imported triton), the result
 * leaves on fd 4 (the wire format of compile.h, fields in triton_compile.h);
 * stdout and stderr go to the parent, capped, as the log. --probe: trusted
 * and unsandboxed, the driver imports triton, compiles one small kernel and
 * lists the paths of the installation (the root of the --serve sandbox).
 *
 * This file is the Triton compiler's policy (docs/sandbox.md, "The Triton
 * compile sandbox"): one linear list of named steps built from the shared
 * primitives of judge/sandbox/sandbox.h; the first that fails is reported as an
 * `error` record and the process exits. The last step execs Python (the
 * --python binary; its -I mode ignores PYTHON* variables, user site and the
 * working directory) on the trusted driver, judge/triton/driver.py, which
 * the Makefile embeds here as `triton_driver_py`. Unlike the NVRTC child this
 * one must fork and exec (Triton runs ptxas), so its seccomp allowlist
 * permits both, and what it may execute is bounded by the mounts instead:
 * only the read-only binds of the installation are executable; the writable
 * tmpfs is noexec, memfd_create is refused, and there is no /proc to reach
 * a file descriptor's executable through.
 * --no-sandbox skips the isolation steps (namespaces, root, privileges,
 * seccomp) but keeps the rlimits: diagnosis only.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <sched.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <termios.h>
#include <unistd.h>

#include "common/error.h"
#include "common/limits.h"
#include "common/util.h"
#include "judge/sandbox/child.h"
#include "judge/sandbox/sandbox.h"
#include "judge/sandbox/sandbox_job.h"
#include "wire/compile_wire.h"
#include "common/banned.h"

/* The driver's text, NUL-terminated (Makefile: triton_driver_blob.o from judge/triton/driver.py).
 */
extern const char triton_driver_py[];
/* The launcher recorder's text (Makefile: triton_launcher_blob.o from judge/triton/launcher.py),
 * which the driver loads for a launcher request: passed in pieces, each after --launcher, as
 * one argument may hold at most 128 KiB (MAX_ARG_STRLEN). The text is ASCII, so any cut is
 * whole characters. */
extern const char triton_launcher_py[];
#define LAUNCHER_PIECE  65536
#define LAUNCHER_PIECES 8

/* Every namespace there is: the compiler needs no network, IPC, host name or other processes. */
#define NAMESPACES                                                                                 \
    (SANDBOX_NS_MOUNT | SANDBOX_NS_NET | SANDBOX_NS_IPC | SANDBOX_NS_UTS | SANDBOX_NS_PID)
/* Inside the root: the private tmpfs and what lives in it (the driver makes the directories). */
#define ROOT_TMP         "/tmp"
#define ENV_HOME         "HOME=/tmp/home"
#define ENV_TMPDIR       "TMPDIR=/tmp"
#define ENV_CACHE        "TRITON_CACHE_DIR=/tmp/triton-cache"
#define MAX_ENTRIES      (BW_TRITON_MAX_BINDS + 8)
#define SECCOMP_MAX_ARGS 2

/* Device nodes Python and the tools may open (harmless; each only if the host has it). */
static const char *const devices[] = {"/dev/null", "/dev/zero", "/dev/full", "/dev/random",
                                      "/dev/urandom"};

struct child {
    struct sandbox_child base; /* first: the steps of child.h see it */
    bool probe;
    const char *python;
    const char *binds[BW_TRITON_MAX_BINDS];
    size_t n_binds;
    long cpu_s;
    unsigned long long mem_bytes;
};

/* The installation the parent found is still there (an upgrade under a running judge is not). */
static int step_check_installation(struct sandbox_child *base, char **cause)
{
    struct child *c = (struct child *)base;
    struct stat st;

    if (c->python[0] != '/' || access(c->python, X_OK) != 0)
        return bw_fail(cause, BW_ERR_NOTFOUND, "cannot run %s: %s", c->python, strerror(errno));
    for (size_t i = 0; i < c->n_binds; i++)
        if (c->binds[i][0] != '/' || stat(c->binds[i], &st) != 0)
            return bw_fail(cause, BW_ERR_SANDBOX,
                           "%s of the Triton installation is gone (%s): restart judged after an "
                           "upgrade",
                           c->binds[i], strerror(errno));
    return BW_OK;
}

static int step_unshare(struct sandbox_child *base, char **cause)
{
    (void)base;
    return sandbox_unshare(NAMESPACES, cause);
}

/* CPU, files, descriptors, tasks; the address space is the last step (see step_exec). */
/*
 * Its own session inside the namespace: kill(0) and kill(-pgid) from the
 * submission then reach only the namespace's processes, never the middle
 * process outside it (whose death would end the compile as a SIGKILL).
 */
static int step_session_in_namespace(struct sandbox_child *base, char **cause)
{
    (void)base;
    return sandbox_new_session(cause);
}

static int step_rlimits(struct sandbox_child *base, char **cause)
{
    struct child *c = (struct child *)base;
    struct sandbox_limits l = {
        .cpu_s = c->cpu_s,
        .fsize_bytes = BW_TRITON_FILE_BYTES,
        .nofile = BW_TRITON_NOFILE,
        /* Outside a user namespace RLIMIT_NPROC counts every process of the uid. */
        .nproc = c->base.sandbox ? BW_TRITON_NPROC : 0,
    };
    int rc;

    if ((rc = sandbox_set_rlimits(&l, cause)))
        return rc;
    /* Reset by the exec below; RLIMIT_CORE 0 stays, and the new root has no /proc. */
    return sandbox_not_dumpable(cause);
}

static int step_make_root(struct sandbox_child *base, char **cause)
{
    struct child *c = (struct child *)base;
    struct sandbox_bind binds[MAX_ENTRIES];
    size_t n = 0;
    struct stat st;

    /* The tmpfs first: an installation under /tmp is then bound on top of it. */
    binds[n++] = (struct sandbox_bind){.target = ROOT_TMP, .tmpfs_bytes = BW_TRITON_TMPFS_BYTES};
    for (size_t i = 0; i < sizeof(devices) / sizeof(devices[0]); i++)
        if (stat(devices[i], &st) == 0 && S_ISCHR(st.st_mode))
            binds[n++] =
                (struct sandbox_bind){.source = devices[i], .target = devices[i], .device = true};
    for (size_t i = 0; i < c->n_binds; i++)
        binds[n++] =
            (struct sandbox_bind){.source = c->binds[i], .target = c->binds[i], .exec = true};
    return sandbox_make_root(binds, n, cause);
}

/*
 * What Python, Triton (MLIR and LLVM threads), subprocess and ptxas call,
 * allowed as they are. Everything else fails with EPERM, but the calls of
 * `killed` end the process; a few are allowed with argument checks below.
 */
static const char *const allowed[] = {
    /* files (writes only reach the tmpfs: the rest of the root is read-only) */
    "read",
    "write",
    "readv",
    "writev",
    "pread64",
    "pwrite64",
    "preadv",
    "pwritev",
    "lseek",
    "open",
    "openat",
    "close",
    "close_range",
    "dup",
    "dup2",
    "dup3",
    "pipe",
    "pipe2",
    "fcntl",
    "flock",
    "fsync",
    "fdatasync",
    "ftruncate",
    "truncate",
    "fallocate",
    "sendfile",
    "copy_file_range",
    "stat",
    "fstat",
    "lstat",
    "newfstatat",
    "statx",
    "statfs",
    "fstatfs",
    "access",
    "faccessat",
    "faccessat2",
    "readlink",
    "readlinkat",
    "getcwd",
    "chdir",
    "fchdir",
    "getdents",
    "getdents64",
    "mkdir",
    "mkdirat",
    "rmdir",
    "unlink",
    "unlinkat",
    "rename",
    "renameat",
    "renameat2",
    "link",
    "linkat",
    "symlink",
    "symlinkat",
    "chmod",
    "fchmod",
    "fchmodat",
    "utime",
    "utimes",
    "utimensat",
    "umask",
    "fadvise64",
    "readahead",
    "getxattr",
    "lgetxattr",
    "fgetxattr",
    "listxattr",
    "llistxattr",
    "flistxattr",
    /* waiting */
    "poll",
    "ppoll",
    "select",
    "pselect6",
    "epoll_create",
    "epoll_create1",
    "epoll_ctl",
    "epoll_wait",
    "epoll_pwait",
    "epoll_pwait2",
    "eventfd2",
    /* memory */
    "brk",
    "mmap",
    "munmap",
    "mremap",
    "mprotect",
    "madvise",
    "msync",
    "mincore",
    "membarrier",
    /* threads, processes (inside the pid namespace), signals */
    "futex",
    "set_robust_list",
    "get_robust_list",
    "rseq",
    "set_tid_address",
    "execve",
    "fork",
    "vfork",
    "wait4",
    "waitid",
    "kill",
    "tgkill",
    "tkill",
    "exit",
    "exit_group",
    "getpid",
    "getppid",
    "gettid",
    "getpgrp",
    "getpgid",
    "getsid",
    "setsid",
    "setpgid",
    "sched_yield",
    "sched_getaffinity",
    "sched_getparam",
    "sched_getscheduler",
    "sched_get_priority_max",
    "sched_get_priority_min",
    "rt_sigaction",
    "rt_sigprocmask",
    "rt_sigreturn",
    "rt_sigpending",
    "rt_sigsuspend",
    "rt_sigtimedwait",
    "sigaltstack",
    "pause",
    "restart_syscall",
    "arch_prctl",
    /* identity, time, the machine */
    "getuid",
    "geteuid",
    "getgid",
    "getegid",
    "getgroups",
    "getresuid",
    "getresgid",
    "clock_gettime",
    "clock_getres",
    "clock_nanosleep",
    "nanosleep",
    "gettimeofday",
    "time",
    "times",
    "getrusage",
    "getitimer",
    "setitimer",
    "alarm",
    "getrlimit",
    "setrlimit",
    "uname",
    "sysinfo",
    "getrandom",
    "getcpu",
    "capget",
};

/* Namespace flags of clone(2): a nested user namespace is kernel attack surface, refused. */
#define CLONE_NS_FLAGS                                                                             \
    (CLONE_NEWNS | CLONE_NEWUSER | CLONE_NEWPID | CLONE_NEWNET | CLONE_NEWIPC | CLONE_NEWUTS |     \
     CLONE_NEWCGROUP)

static int step_seccomp(struct sandbox_child *base, char **cause)
{
    const struct sandbox_rule checked[] = {
        /* Threads and forks (subprocess, ptxas); never a new namespace. */
        {"clone", SANDBOX_ALLOW, 0, 1, {SCMP_A0_64(SCMP_CMP_MASKED_EQ, CLONE_NS_FLAGS, 0)}},
        /* clone3 passes its flags in memory, out of a filter's sight: glibc falls back. */
        {"clone3", SANDBOX_FAIL, ENOSYS, 0, {{0}}},
        /* Its own limits, to read or lower (the hard limits bind). */
        {"prlimit64", SANDBOX_ALLOW, 0, 1, {SCMP_A0_64(SCMP_CMP_EQ, 0)}},
        /* Terminal queries (isatty) and the non-blocking and close-on-exec flags. */
        {"ioctl", SANDBOX_ALLOW, 0, 1, {SCMP_A1_64(SCMP_CMP_EQ, TCGETS)}},
        {"ioctl", SANDBOX_ALLOW, 0, 1, {SCMP_A1_64(SCMP_CMP_EQ, TIOCGWINSZ)}},
        {"ioctl", SANDBOX_ALLOW, 0, 1, {SCMP_A1_64(SCMP_CMP_EQ, FIONBIO)}},
        {"ioctl", SANDBOX_ALLOW, 0, 1, {SCMP_A1_64(SCMP_CMP_EQ, FIOCLEX)}},
        {"ioctl", SANDBOX_ALLOW, 0, 1, {SCMP_A1_64(SCMP_CMP_EQ, FIONCLEX)}},
        {"ioctl", SANDBOX_ALLOW, 0, 1, {SCMP_A1_64(SCMP_CMP_EQ, FIONREAD)}},
        /* Thread names (LLVM's pool) and reading what was set. */
        {"prctl", SANDBOX_ALLOW, 0, 1, {SCMP_A0_64(SCMP_CMP_EQ, PR_SET_NAME)}},
        {"prctl", SANDBOX_ALLOW, 0, 1, {SCMP_A0_64(SCMP_CMP_EQ, PR_GET_NAME)}},
        {"prctl", SANDBOX_ALLOW, 0, 1, {SCMP_A0_64(SCMP_CMP_EQ, PR_GET_DUMPABLE)}},
        {"prctl", SANDBOX_ALLOW, 0, 1, {SCMP_A0_64(SCMP_CMP_EQ, PR_CAPBSET_READ)}},
    };
    const size_t n_allowed = sizeof(allowed) / sizeof(allowed[0]);
    const size_t n_checked = sizeof(checked) / sizeof(checked[0]);
    struct sandbox_filter f = {.fallback = SANDBOX_FAIL, .fallback_err = EPERM};
    struct sandbox_rule *rules =
        calloc(n_allowed + sandbox_n_attack_syscalls + n_checked + 1, sizeof(*rules));
    size_t n = 0;
    int rc;

    (void)base;
    if (!rules)
        return bw_fail(cause, BW_ERR_NOMEM, "out of memory");
    for (size_t i = 0; i < n_allowed; i++)
        rules[n++] = (struct sandbox_rule){.syscall = allowed[i], .verdict = SANDBOX_ALLOW};
    for (size_t i = 0; i < sandbox_n_attack_syscalls; i++)
        rules[n++] =
            (struct sandbox_rule){.syscall = sandbox_attack_syscalls[i], .verdict = SANDBOX_KILL};
    for (size_t i = 0; i < n_checked; i++)
        rules[n++] = checked[i];
    /* clone with a namespace flag dies, rather than failing quietly. */
    rules[n++] =
        (struct sandbox_rule){"clone",
                              SANDBOX_KILL,
                              0,
                              1,
                              {SCMP_A0_64(SCMP_CMP_MASKED_EQ, CLONE_NEWUSER, CLONE_NEWUSER)}};
    f.rules = rules;
    f.n_rules = n;
    rc = sandbox_seccomp_load(&f, cause);
    free(rules);
    return rc;
}

static const struct sandbox_step steps[] = {
    {"die with parent", sandbox_step_die_with_parent, false},
    {"new session", sandbox_step_new_session, false},
    {"close fds", sandbox_step_close_fds, false},
    {"check installation", step_check_installation, false},
    {"unshare namespaces", step_unshare, true},
    {"enter pid namespace", sandbox_step_enter_pid_namespace, true},
    {"session in namespace", step_session_in_namespace, true},
    {"rlimits", step_rlimits, false},
    {"make root", step_make_root, true},
    {"drop privileges", sandbox_step_drop_privileges, true},
    {"seccomp", step_seccomp, true},
};

static _Noreturn void report_setup_failure(const char *step, int code, const char *cause)
{
    compile_wire_fail_setup(SANDBOX_FD_RESULT, "blockwise-triton-compile", step, code, cause);
}

/*
 * The last step: the address-space limit (set only now, so that it binds
 * Python and not the set-up above, and so that a sanitizer build's shadow
 * memory is not in its way), then exec. Never returns.
 */
static _Noreturn void exec_python(struct child *c)
{
    struct sandbox_limits as = {.as_bytes = c->mem_bytes, .fsize_bytes = BW_TRITON_FILE_BYTES};
    char *sandboxed_env[] = {ENV_HOME, ENV_TMPDIR, ENV_CACHE, NULL};
    char *plain_env[] = {ENV_TMPDIR, NULL};
    char *probe_env[3] = {NULL, NULL, NULL};
    char *argv[12 + 2 * LAUNCHER_PIECES];
    static char pieces[LAUNCHER_PIECES][LAUNCHER_PIECE + 1];
    int argc = 0, failed = 0, err;

    if (c->probe) {
        /* Trusted: the judge's PATH and HOME (a Python shim may need them), nothing else. */
        static const char *const kept[] = {"PATH", "HOME"};
        int n = 0;
        for (size_t i = 0; i < sizeof(kept) / sizeof(kept[0]); i++) {
            const char *v = getenv(kept[i]);
            if (v && asprintf(&probe_env[n], "%s=%s", kept[i], v) >= 0)
                n++;
        }
    }
    argv[argc++] = (char *)c->python;
    argv[argc++] = "-I"; /* isolated: no PYTHON* variables, user site or working directory */
    argv[argc++] = "-B"; /* no bytecode written */
    argv[argc++] = "-X";
    argv[argc++] = "utf8";
    argv[argc++] = "-c";
    argv[argc++] = (char *)triton_driver_py;
    argv[argc++] = c->probe ? "--probe" : "--serve";
    if (!c->base.sandbox && !c->probe)
        argv[argc++] = "--no-sandbox";
    for (size_t at = 0, i = 0; !c->probe && triton_launcher_py[at] && i < LAUNCHER_PIECES; i++) {
        size_t n = strnlen(triton_launcher_py + at, LAUNCHER_PIECE);
        memcpy(pieces[i], triton_launcher_py + at, n);
        pieces[i][n] = '\0';
        argv[argc++] = "--launcher";
        argv[argc++] = pieces[i];
        at += n;
    }
    argv[argc] = NULL;
    if ((err = sandbox_apply_rlimits(&as, &failed))) {
        char msg[128];
        snprintf(msg, sizeof(msg), "setrlimit(%s, %llu): %s", sandbox_rlimit_name(failed),
                 c->mem_bytes, strerror(err));
        report_setup_failure("address space limit", BW_ERR_SANDBOX, msg);
    }
    execve(c->python, argv, c->probe ? probe_env : c->base.sandbox ? sandboxed_env : plain_env);
    {
        char msg[PATH_MAX + 64];
        snprintf(msg, sizeof(msg), "execve(%s): %s", c->python, strerror(errno));
        report_setup_failure("exec python", c->base.sandbox ? BW_ERR_SANDBOX : BW_ERR_NOTFOUND,
                             msg);
    }
}

static void usage(void)
{
    fprintf(stderr, "usage: blockwise-triton-compile --parent=PID (--serve|--probe) --python=EXE\n"
                    "         [--bind=PATH]... [--cpu-s=N] [--mem-bytes=N] [--no-sandbox]\n"
                    "(started by judged with a request on fd 3 and a result pipe on fd 4)\n");
}

int main(int argc, char **argv);
int main(int argc, char **argv)
{
    struct child c = {.base.sandbox = true,
                      .base.fail = report_setup_failure,
                      .cpu_s = BW_TRITON_CPU_S,
                      .mem_bytes = BW_TRITON_MEM_BYTES};
    bool serve = false;

    for (int i = 1; i < argc; i++) {
        int64_t v;
        if (strcmp(argv[i], "--no-sandbox") == 0) {
            c.base.sandbox = false;
        } else if (strcmp(argv[i], "--serve") == 0) {
            serve = true;
        } else if (strcmp(argv[i], "--probe") == 0) {
            c.probe = true;
        } else if (strncmp(argv[i], "--python=", 9) == 0 && argv[i][9] == '/') {
            c.python = argv[i] + 9;
        } else if (strncmp(argv[i], "--bind=", 7) == 0 && argv[i][7] == '/' &&
                   c.n_binds < BW_TRITON_MAX_BINDS) {
            c.binds[c.n_binds++] = argv[i] + 7;
        } else if (strncmp(argv[i], "--parent=", 9) == 0 && parse_i64(argv[i] + 9, &v) && v > 0 &&
                   v <= INT_MAX) {
            c.base.parent = (pid_t)v;
        } else if (strncmp(argv[i], "--cpu-s=", 8) == 0 && parse_i64(argv[i] + 8, &v) && v > 0 &&
                   v <= 3600) {
            c.cpu_s = (long)v;
        } else if (strncmp(argv[i], "--mem-bytes=", 12) == 0 && parse_i64(argv[i] + 12, &v) &&
                   v > 0) {
            c.mem_bytes = (unsigned long long)v;
        } else {
            usage();
            return 2;
        }
    }
    if (serve == c.probe || !c.python) {
        usage();
        return 2;
    }
    if (c.probe)
        c.base.sandbox = false; /* trusted code: it must see the host to describe it */
    sandbox_child_setup(&c.base, steps, sizeof(steps) / sizeof(steps[0]));
    exec_python(&c);
}
