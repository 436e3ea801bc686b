/*
 * sandbox.h - locking a child process down (its side) and running one (the parent's side).
 *
 * Child side. Each function is one named step of a sandboxed child's set-up
 * list, in the style of ioi/isolate: the child's main runs them in a fixed
 * order and reports the first failure. Every step returns BW_OK or a negative
 * bw_code with a *new* message in *cause naming the system call and errno,
 * e.g. "unshare(CLONE_NEWUSER): Operation not permitted". Nothing here logs,
 * exits or allocates beyond the message, except sandbox_enter_pid_namespace
 * whose parent half never returns (it waits and exits like its child).
 *
 * The usual order (judge/compile_main.c is the model):
 *   die with parent, new session, close fds, (read the request), preload
 *   libraries, unshare namespaces, enter the pid namespace, rlimits, make the
 *   root, drop privileges, seccomp, then run the untrusted work.
 *
 * Parent side. struct sandbox_job spawns an executable with a fixed fd layout
 * and an empty environment, collects what it writes, enforces a wall-clock
 * limit with poll() and SIGKILL of its whole process group, and reaps it.
 * The caller must not reap children it did not start (no SIGCHLD=SIG_IGN, no
 * waitpid(-1)) while a job runs.
 */
#ifndef BW_SANDBOX_H
#define BW_SANDBOX_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/resource.h>
#include <sys/types.h>

#include "common/buf.h"

/* The fd layout of a sandboxed child, set up by sandbox_job_run(). */
enum {
    SANDBOX_FD_REQUEST = 3, /* what the parent sends: readable, seekable */
    SANDBOX_FD_RESULT = 4,  /* what the child answers: the write end of a pipe */
};
/* stdin is /dev/null; stdout and stderr share one pipe, kept (capped) for diagnosis. */

/* ---- child side: set-up steps -------------------------------------------- */

/*
 * Asks for SIGKILL when the parent dies (PR_SET_PDEATHSIG) and checks that the
 * parent is still `parent` (0: skip the check), closing the race where it died
 * before the prctl.
 */
int sandbox_die_with_parent(pid_t parent, char **cause);

/* Makes the process a session and process-group leader unless it already is,
 * so that the parent can kill the whole group. */
int sandbox_new_session(char **cause);

/* Closes every fd >= first. */
int sandbox_close_fds(int first, char **cause);

struct sandbox_limits {
    long cpu_s;         /* RLIMIT_CPU in s (see sandbox_set_rlimits); 0 = leave */
    rlim_t as_bytes;    /* RLIMIT_AS; 0 = leave (never for anything that loads CUDA) */
    rlim_t fsize_bytes; /* RLIMIT_FSIZE (0 = no file may grow) */
    long nofile;        /* RLIMIT_NOFILE; 0 = leave */
    long nproc; /* RLIMIT_NPROC (tasks of the uid in the current user namespace); 0 = leave */
};
/*
 * Sets the limits; RLIMIT_CORE is always 0. Limits can only go down. When the
 * CPU limit is spent the process exits with SANDBOX_EXIT_CPU_LIMIT (a SIGXCPU
 * handler; the hard limit's SIGKILL a second later is the backstop), so the
 * parent tells it apart from other deaths without guessing from rusage.
 */
#define SANDBOX_EXIT_CPU_LIMIT 152 /* 128 + SIGXCPU, as a shell would show it */
int sandbox_set_rlimits(const struct sandbox_limits *l, char **cause);

/*
 * Enters a new user namespace that maps only the caller's uid and gid (to
 * themselves; setgroups denied), then new mount, network, IPC, UTS and pid
 * namespaces owned by it (the host name there is SANDBOX_HOSTNAME). The
 * caller is not itself in the new pid namespace:
 * call sandbox_enter_pid_namespace() next. On failure the message names the
 * namespace that could not be created: a host without unprivileged user
 * namespaces fails here, and the caller must not go on unsandboxed.
 */
#define SANDBOX_HOSTNAME "sandbox"
int sandbox_unshare(char **cause);

/*
 * Forks after sandbox_unshare(). In the child (pid 1 of the new pid namespace,
 * asked to die with its parent) it returns BW_OK. The parent closes its fds,
 * waits for the child and then exits the way the child did (same status, or
 * the same signal re-raised): it never returns, unless the fork fails.
 *
 * Being pid 1 matters: signals from inside the namespace that have no handler
 * are ignored (abort() then ends in SIGSEGV; SIGXCPU needs the handler
 * sandbox_set_rlimits installs).
 */
int sandbox_enter_pid_namespace(char **cause);

/* A host path shown read-only at `target` (absolute) in the new root. */
struct sandbox_bind {
    const char *source;
    const char *target;
};

/*
 * Builds a fresh root and pivots into it: a small tmpfs mounted over
 * SANDBOX_ROOT_BASE holding only the read-only (nosuid, nodev, noexec) bind
 * mounts in `binds`, and nothing else: no /proc, /dev, /etc, /tmp. The old
 * root is detached, the new root is remounted read-only and the working
 * directory is "/". Needs sandbox_unshare() first.
 */
#define SANDBOX_ROOT_BASE "/tmp"
#define SANDBOX_MAX_BINDS 8
int sandbox_make_root(const struct sandbox_bind *binds, size_t n_binds, char **cause);

/* Drops every capability (effective, permitted, inheritable, ambient and the
 * bounding set) and sets no_new_privs. */
int sandbox_drop_privileges(char **cause);

/*
 * Loads a seccomp filter: the system calls named in `allow` (libseccomp names)
 * are allowed; open/openat only without a write or create flag; clone only
 * for threads (CLONE_THREAD); clone3 fails with ENOSYS (glibc falls back to
 * clone); tgkill only to the caller's own pid; prlimit64 only on itself, to read or to set
 * RLIMIT_STACK (NVRTC raises it). A fixed list of dangerous calls (execve, fork, socket, ptrace,
 * mount, unshare, bpf,
 * ...) kills the process with SIGSYS; anything else fails with EPERM. A name
 * unknown to this kernel/libseccomp is skipped.
 */
int sandbox_seccomp(const char *const *allow, size_t n_allow, char **cause);

/* ---- parent side ---------------------------------------------------------- */

struct sandbox_job {
    /* set by the caller before sandbox_job_run() */
    const char *path;  /* executable (borrowed) */
    char *const *argv; /* NULL-terminated (borrowed) */
    int request_fd;    /* becomes SANDBOX_FD_REQUEST in the child; -1 for none */
    int wall_ms;       /* wall-clock limit from spawn to exit; > 0 */
    size_t result_max; /* bytes of SANDBOX_FD_RESULT kept; more kills the child */
    size_t output_max; /* bytes of stdout+stderr kept; more is read and dropped */

    /* filled by sandbox_job_run() */
    struct buf result; /* what the child wrote to SANDBOX_FD_RESULT */
    struct buf output; /* what it wrote to stdout/stderr, truncated at output_max */
    pid_t pid;
    int status;           /* waitpid() status */
    bool timed_out;       /* the wall limit passed and the group was killed */
    bool result_overflow; /* the child wrote more than result_max: killed */
    struct rusage rusage; /* of the child and the descendants it reaped */
    double ms;            /* wall time from spawn to reap */
};

/* Prepares a job with these limits; the caller then sets path, argv, request_fd. */
void sandbox_job_init(struct sandbox_job *job, int wall_ms, size_t result_max, size_t output_max);

/*
 * Spawns job->path with an empty environment, stdin /dev/null, stdout and
 * stderr on one pipe, job->request_fd at fd 3 and a result pipe at fd 4, in a
 * new session; reads both pipes until the child exits (or the wall limit, or
 * result_max, kills its process group), and reaps it. Returns BW_OK once the
 * child was reaped, whatever its status; a negative code only when the job
 * could not be run (spawn, pipe or poll failure), with the cause.
 */
int sandbox_job_run(struct sandbox_job *job, char **cause);
void sandbox_job_release(struct sandbox_job *job);

/* "SIGSEGV" for SIGSEGV, "signal 77" for an unnamed one; a static or
 * thread-local string, never NULL. */
const char *sandbox_signal_name(int sig);

#endif
