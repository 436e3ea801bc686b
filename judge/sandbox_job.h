/*
 * sandbox_job.h - running one short-lived child to completion (the parent's
 * side): spawn it with the job fd layout, collect what it writes, kill its
 * whole process group at a wall-clock limit, and reap it.
 *
 * The compile child (compile.c) and the disassembler (sass.c) are jobs; the
 * next one is the Triton compiler, which needs a chosen environment (`env`).
 * The child is started by spawn_start() (spawn.h): empty environment unless
 * `env` is given, its own session and process group, nothing open but the
 * layout below, optional rlimits. A job locks itself down with the steps of
 * sandbox.h after exec; the layout is the contract between the two sides.
 *
 * The caller must not reap children it did not start (no SIGCHLD=SIG_IGN, no
 * waitpid(-1)) while a job runs.
 */
#ifndef BW_SANDBOX_JOB_H
#define BW_SANDBOX_JOB_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/resource.h>
#include <sys/types.h>

#include "sandbox.h"
#include "common/buf.h"

/* The fd layout of a job's child. stdin is /dev/null; stdout and stderr share
 * one pipe, kept (capped) for diagnosis. */
enum {
    SANDBOX_FD_REQUEST = 3, /* what the parent sends: readable, seekable; closed when none */
    SANDBOX_FD_RESULT = 4,  /* what the child answers: the write end of a pipe */
};

struct sandbox_job {
    /* set by the caller before sandbox_job_run() */
    const char *path;                    /* executable (borrowed) */
    char *const *argv;                   /* NULL-terminated (borrowed) */
    char *const *env;                    /* NULL-terminated "NAME=value" (borrowed); NULL: empty */
    int request_fd;                      /* becomes SANDBOX_FD_REQUEST in the child; -1 for none */
    int wall_ms;                         /* wall-clock limit from spawn to exit; > 0 */
    size_t result_max;                   /* bytes of SANDBOX_FD_RESULT kept; more kills the child */
    size_t output_max;                   /* bytes of stdout+stderr kept; more is read and dropped */
    const struct sandbox_limits *limits; /* optional (borrowed): set in the child before it
                                            execs (RLIMIT_CORE 0 too); a trusted tool with
                                            limits, such as the disassembler */

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

/* Prepares a job with these limits; the caller then sets path, argv, request_fd (env, limits). */
void sandbox_job_init(struct sandbox_job *job, int wall_ms, size_t result_max, size_t output_max);

/*
 * Spawns the job (spawn_start), reads both pipes until the child exits (or
 * the wall limit, or result_max, kills its process group), and reaps it.
 * Returns BW_OK once the child was reaped, whatever its status; a negative
 * code only when the job could not be run, with the cause: spawn_start()'s
 * codes (BW_ERR_NOTFOUND for a missing program, BW_ERR_SYSTEM when a step
 * before exec, such as an rlimit, failed), or a pipe or poll failure.
 */
int sandbox_job_run(struct sandbox_job *job, char **cause);
void sandbox_job_release(struct sandbox_job *job);

#endif
