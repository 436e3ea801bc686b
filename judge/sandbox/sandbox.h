/*
 * sandbox.h - the child-side primitives that lock a process down, written once.
 *
 * Each function is one named step that a sandboxed child's set-up list runs,
 * in the style of ioi/isolate: the child's main (judge/compile/compile_main.c,
 * judge/runner/runner_sandbox.c for blockwise-runner) states its policy as a short,
 * fixed list of these steps and reports the first failure. Every step returns
 * BW_OK or a negative bw_code with a *new* message in *cause naming the system
 * call and errno, e.g. "unshare(CLONE_NEWUSER): Operation not permitted".
 * Nothing here logs, exits or allocates beyond the message, except
 * sandbox_enter_pid_namespace whose parent half never returns (it waits and
 * exits like its child).
 *
 * The functions marked async-signal-safe make no allocation and take no lock:
 * the parent-side spawn helper (spawn.h) calls them between fork and exec.
 *
 * Three policies are built from these today (docs/sandbox.md,
 * docs/runner-protocol.md):
 *   compile child: die with parent, new session, close fds, (read the
 *     request, preload libraries), unshare every namespace, enter the pid
 *     namespace, rlimits + not dumpable, make a new root, drop privileges,
 *     the allowlist seccomp profile, then run NVRTC;
 *   runner: die with parent, new session, close fds, rlimits, unshare user +
 *     mount + net, every mount read-only but /proc, bits of /proc read-only,
 *     (CUDA comes up), a deny-list seccomp filter on every thread;
 *   Triton compiler (judge/triton/triton_compile_main.c): the compile child's list
 *     with a root of Python + Triton files, a writable tmpfs, a few device
 *     nodes and an allowlist that permits fork and exec, then it execs Python.
 */
#ifndef BW_SANDBOX_H
#define BW_SANDBOX_H

#include <seccomp.h>
#include <stdbool.h>
#include <stddef.h>
#include <sys/resource.h>
#include <sys/types.h>

/* ---- the process ----------------------------------------------------------------- */

/*
 * Asks for SIGKILL when the parent dies (PR_SET_PDEATHSIG) and checks that the
 * parent is still `parent` (0: skip the check), closing the race where it died
 * before the prctl.
 */
int sandbox_die_with_parent(pid_t parent, char **cause);
/* The same, async-signal-safe: 0, an errno, or ESRCH when the parent is gone. */
int sandbox_die_with_parent_raw(pid_t parent);

/* Makes the process a session and process-group leader unless it already
 * leads its process group, so that the parent can kill the whole group. */
int sandbox_new_session(char **cause);
/* The same, async-signal-safe: 0 or an errno. */
int sandbox_new_session_raw(void);

/*
 * Closes every fd >= first: close_range(2), else (kernels before 5.9) each fd
 * listed in /proc/self/fd, else each fd below RLIMIT_NOFILE (at most
 * BW_SANDBOX_CLOSE_FDS when it is unlimited). The one implementation of
 * closing descriptors for every child.
 */
int sandbox_close_fds(int first, char **cause);
/* The same, async-signal-safe, keeping `keep` as well (-1: none); 0 or an errno. */
int sandbox_close_fds_raw(int first, int keep);

/* ---- resource limits -------------------------------------------------------------- */

struct sandbox_limits {
    long cpu_s;         /* RLIMIT_CPU in s (see sandbox_set_rlimits); 0 = leave */
    rlim_t as_bytes;    /* RLIMIT_AS; 0 = leave (never for anything that loads CUDA) */
    rlim_t fsize_bytes; /* RLIMIT_FSIZE (0 = no file may grow) */
    long nofile;        /* RLIMIT_NOFILE; 0 = leave */
    long nproc; /* RLIMIT_NPROC (tasks of the uid in the current user namespace); 0 = leave */
};

/*
 * Applies the limits, soft = hard, with RLIMIT_CORE 0; limits only go down (a
 * lower hard limit already set is kept), and the CPU limit's hard value is one
 * second above its soft one. Async-signal-safe: returns 0 or the errno of the
 * setrlimit that failed, whose resource goes to *failed (RLIMIT_*).
 */
int sandbox_apply_rlimits(const struct sandbox_limits *l, int *failed);
/* "RLIMIT_AS" for RLIMIT_AS (static; "RLIMIT_?" for others). Async-signal-safe. */
const char *sandbox_rlimit_name(int resource);

/*
 * The step: sandbox_apply_rlimits, and when the CPU limit is spent the process
 * exits with SANDBOX_EXIT_CPU_LIMIT (a SIGXCPU handler; the hard limit's
 * SIGKILL a second later is the backstop), so the parent tells it apart from
 * other deaths without guessing from rusage. A handler does not survive exec:
 * a program given limits by spawn.h dies of SIGXCPU instead.
 */
#define SANDBOX_EXIT_CPU_LIMIT 152 /* 128 + SIGXCPU, as a shell would show it */
int sandbox_set_rlimits(const struct sandbox_limits *l, char **cause);

/* Not dumpable: no core, no ptrace attach by the same uid, /proc/PID owned by
 * root. The compile child's step; the runner does not take it. */
int sandbox_not_dumpable(char **cause);

/* ---- namespaces --------------------------------------------------------------------- */

/* Namespaces created by sandbox_unshare(), owned by a new user namespace. */
enum sandbox_ns {
    SANDBOX_NS_MOUNT = 1 << 0,
    SANDBOX_NS_NET = 1 << 1, /* only a loopback, down */
    SANDBOX_NS_IPC = 1 << 2,
    SANDBOX_NS_UTS = 1 << 3, /* host name SANDBOX_HOSTNAME */
    SANDBOX_NS_PID = 1 << 4, /* entered by the next child: sandbox_enter_pid_namespace() */
};
#define SANDBOX_HOSTNAME "sandbox"

/*
 * Enters a new user namespace that maps only the caller's effective uid and
 * gid (to themselves; setgroups denied), then, one unshare(2) each and in the
 * order of enum sandbox_ns, the namespaces in `namespaces` owned by it. On
 * failure the message names the call, e.g. "unshare(CLONE_NEWUSER): ...": a
 * host without unprivileged user namespaces fails here, and the caller must
 * not go on unsandboxed.
 */
int sandbox_unshare(unsigned namespaces, char **cause);

/*
 * Forks after sandbox_unshare(SANDBOX_NS_PID). In the child (pid 1 of the new
 * pid namespace, asked to die with its parent) it returns BW_OK. The parent
 * closes its fds, waits for the child and then exits the way the child did
 * (same status, or the same signal re-raised): it never returns, unless the
 * fork fails.
 *
 * Being pid 1 matters: signals from inside the namespace that have no handler
 * are ignored (abort() then ends in SIGSEGV; SIGXCPU needs the handler
 * sandbox_set_rlimits installs).
 */
int sandbox_enter_pid_namespace(char **cause);

/* ---- the file system ---------------------------------------------------------------- */

/* Stops mount events from leaving or entering this mount namespace (MS_REC|MS_PRIVATE on /). */
int sandbox_private_mounts(char **cause);

/* One entry of a new root. */
struct sandbox_bind {
    const char *source; /* host path shown read-only at target: a directory, a file, or
                           (with `device`) a device node; symbolic links are followed;
                           NULL: a writable tmpfs */
    const char *target; /* absolute path in the new root, without ".." */
    size_t tmpfs_bytes; /* source NULL: the size of the tmpfs (> 0) */
    bool exec;          /* its files may be executed or mapped executable (shared libraries) */
    bool device;        /* source is a device node that stays usable (no nodev): /dev/null */
};

/*
 * Builds a fresh root and pivots into it: a small tmpfs (BW_SANDBOX_ROOT_BYTES)
 * mounted over SANDBOX_ROOT_BASE holding only the entries of `binds` (at most
 * BW_SANDBOX_MAX_MOUNTS): read-only bind mounts of host directories and
 * files, and writable tmpfs directories private to this sandbox (mode 0700),
 * all nosuid and, unless `device`, nodev and, unless `exec`, noexec. A file's
 * mount point is an empty file made in the new root, a directory's a
 * directory; entries are mounted in order, so a target must not lie below an
 * earlier read-only entry. Nothing else: no /proc, /dev, /etc, /tmp. The old
 * root is detached, the new root is remounted read-only and the working
 * directory is "/". Needs sandbox_unshare(SANDBOX_NS_MOUNT) first.
 */
#define SANDBOX_ROOT_BASE "/tmp"
int sandbox_make_root(const struct sandbox_bind *binds, size_t n_binds, char **cause);

/*
 * Remounts every mount of this mount namespace read-only (parents first, in
 * the order of /proc/self/mountinfo) except those of filesystem type `spare`
 * (NULL: none) and autofs (a look would trigger it), restating the nosuid,
 * nodev, noexec and atime flags the kernel locks in a user namespace. Mounts
 * this process cannot reach (covered, unreadable) are skipped, as bubblewrap
 * does: nothing in the process can reach them either. Device nodes stay
 * usable: a read-only mount does not stop writes to a device.
 * Needs sandbox_unshare(SANDBOX_NS_MOUNT) and sandbox_private_mounts() first.
 */
int sandbox_remount_readonly(const char *spare, char **cause);

/* Makes `path` (and what is mounted below it) read-only by binding it onto
 * itself and remounting the binding read-only, as container runtimes do for
 * /proc/sys. A path that does not exist is skipped. */
int sandbox_bind_readonly(const char *path, char **cause);

/* ---- privileges and system calls ------------------------------------------------------ */

/* Drops every capability (effective, permitted, inheritable, ambient and the
 * bounding set) and sets no_new_privs. */
int sandbox_drop_privileges(char **cause);

/* What a seccomp filter does with a system call. */
enum sandbox_verdict {
    SANDBOX_ALLOW,
    SANDBOX_FAIL, /* the call fails with the rule's errno */
    SANDBOX_KILL, /* the whole process dies of SIGSYS */
};

/* One rule: a system call (a libseccomp name; one unknown to this kernel or
 * architecture is skipped) and up to two argument conditions, all of which
 * must hold. */
struct sandbox_rule {
    const char *syscall;
    enum sandbox_verdict verdict;
    int err; /* SANDBOX_FAIL: the errno */
    unsigned n_args;
    struct scmp_arg_cmp args[2];
};

struct sandbox_filter {
    enum sandbox_verdict fallback; /* for calls no rule matches */
    int fallback_err;              /* fallback SANDBOX_FAIL: the errno */
    bool all_threads;              /* every thread of the process (TSYNC), not only the caller */
    const struct sandbox_rule *rules;
    size_t n_rules;
};

/*
 * System calls that are kernel attack surface and that no child of ours ever
 * makes (ptrace, mount, namespaces, bpf, keys, kernel modules, io_uring,
 * set*id, ...): the compile children's filters kill a process that tries one
 * (the allowlist profile below, and the Triton child's). The runner, whose
 * CUDA driver makes calls nobody lists, refuses its own list with EPERM
 * instead (runner_sandbox.c).
 */
extern const char *const sandbox_attack_syscalls[];
extern const size_t sandbox_n_attack_syscalls;

/* Loads a seccomp filter (the mechanism: each child's rules are its policy). */
int sandbox_seccomp_load(const struct sandbox_filter *f, char **cause);

/*
 * The allowlist profile, for children that run untrusted computation and need
 * no exec, fork, network or writes: the system calls named in `allow` are
 * allowed; open/openat only without a write or create flag; clone only for
 * threads (CLONE_THREAD); clone3 fails with ENOSYS (glibc falls back to
 * clone); tgkill only to the caller's own pid; prlimit64 only on itself, to
 * read or to set RLIMIT_STACK (NVRTC raises it). sandbox_attack_syscalls and
 * starting programs, processes or network connections (execve, fork, socket,
 * ...) kill the process with SIGSYS; anything else fails with EPERM.
 */
int sandbox_seccomp_allowlist(const char *const *allow, size_t n_allow, char **cause);

#endif
