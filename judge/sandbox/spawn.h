/*
 * spawn.h - starting a child program from judged, written once: fork and exec
 * with a fixed fd layout, a chosen environment, its own process group, and a
 * failure before exec reported back.
 *
 * Every child judged starts goes through spawn_start(): the compile child and
 * the disassembler (through sandbox_job.h, run to completion) and the runner
 * (runner_client.c, long-lived). The child shares judged's memory until it
 * execs (clone with CLONE_VM | CLONE_VFORK on a stack of its own, as glibc's
 * posix_spawn: the cost does not grow with judged's size; the sanitizer
 * build forks). In the child, before exec, it:
 *   resets every signal to its default and unblocks them all,
 *   asks for SIGKILL when the thread that spawned it exits (PR_SET_PDEATHSIG,
 *     checked against the parent's pid, so a parent that died first is seen),
 *   makes a new session (its own process group, which the parent can kill
 *     as a whole with spawn_kill_group()),
 *   lays out fds 0 to n_fds-1 as asked and closes every other descriptor
 *     (whatever the parent has open, close-on-exec or not, stays out),
 *   sets the optional rlimits (sandbox.h; RLIMIT_CORE is then 0 too),
 *   and execs with the chosen environment (empty unless `env` is given).
 * Those steps make only async-signal-safe calls (judged has threads). The
 * first that fails is written to a close-on-exec pipe as (step, errno); the
 * parent reads the pipe until exec closes it, so spawn_start() returns an
 * error naming the step ("cannot start /x/tool: setrlimit(RLIMIT_AS):
 * Invalid argument", "cannot start /x/tool: No such file or directory")
 * instead of a child that exits 127.
 *
 * The caller owns the child: it must reap it (waitpid on spawn.pid) and must
 * not reap children it did not start (no SIGCHLD=SIG_IGN, no waitpid(-1)).
 */
#ifndef BW_SPAWN_H
#define BW_SPAWN_H

#include <stdbool.h>
#include <sys/types.h>

#include "sandbox.h"
#include "common/limits.h"

/* Besides an fd of the parent, what a slot of the layout can be. */
#define SPAWN_FD_CLOSED  (-1) /* not open in the child */
#define SPAWN_FD_NULL    (-2) /* /dev/null, read-write */
#define SPAWN_FD_INHERIT (-3) /* the parent's fd of the same number (closed if it has none) */

struct spawn {
    /* set by the caller (spawn_init gives the defaults) */
    const char *path;                    /* executable, run as is: no $PATH search (borrowed) */
    char *const *argv;                   /* NULL-terminated (borrowed) */
    char *const *env;                    /* NULL-terminated "NAME=value" (borrowed); NULL: empty */
    int fds[BW_SPAWN_MAX_FDS];           /* child fd i becomes fds[i]: a parent fd or SPAWN_FD_* */
    int n_fds;                           /* slots used; every fd >= n_fds is closed in the child */
    const struct sandbox_limits *limits; /* optional (borrowed): set just before exec */

    /* filled by spawn_start() */
    pid_t pid; /* the child, to be reaped by the caller; -1 before and after a failure */
};

/* No environment, stdin/stdout/stderr on /dev/null, nothing else open, no limits. */
void spawn_init(struct spawn *s);

/*
 * Starts s->path and waits until it has exec'd. Returns BW_OK with s->pid set,
 * or, with the cause: BW_ERR_NOTFOUND when the program does not exist,
 * BW_ERR_INVALID for a bad layout, BW_ERR_SYSTEM when a system call failed in
 * the parent (pipe, fork) or a step in the child (the child is then reaped).
 */
int spawn_start(struct spawn *s, char **cause);

/* SIGKILLs the child's process group (the child and what it started that
 * stayed in its group) and the child itself. */
void spawn_kill_group(pid_t pid);

/* "SIGSEGV" for SIGSEGV, "signal 77" for an unnamed one; a static or
 * thread-local string, never NULL. */
const char *spawn_signal_name(int sig);

#endif
