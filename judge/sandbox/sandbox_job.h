/*
 * sandbox_job.h - running one short-lived child to completion (the parent's
 * side): spawn it with the job fd layout, collect what it writes, kill its
 * whole process group at a wall-clock limit, and reap it.
 *
 * The compile child (compile.c) and the disassembler (sass.c) are jobs, run
 * at once by sandbox_job_run(). The Triton compiler (triton_compile.c) is a
 * job started ahead of its request: sandbox_job_start() spawns it with a
 * stream socket as its request fd, sandbox_job_wait_result() can wait for the
 * first bytes of its answer (it is ready), and sandbox_job_finish() writes the
 * request, collects the rest and reaps it.
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
    SANDBOX_FD_REQUEST = 3, /* what the parent sends: readable (a seekable file, or with
                               request_stream one end of a stream socket, shut for writing
                               by the parent after the request); closed when none */
    SANDBOX_FD_RESULT = 4,  /* what the child answers: the write end of a pipe */
};

struct sandbox_job {
    /* set by the caller before sandbox_job_run() */
    const char *path;                    /* executable (borrowed) */
    char *const *argv;                   /* NULL-terminated (borrowed) */
    char *const *env;                    /* NULL-terminated "NAME=value" (borrowed); NULL: empty */
    int request_fd;                      /* becomes SANDBOX_FD_REQUEST in the child; -1 for none */
    bool request_stream;                 /* SANDBOX_FD_REQUEST is a socket the parent writes the
                                            input of sandbox_job_finish() to (request_fd -1) */
    int wall_ms;                         /* wall-clock limit of sandbox_job_run (spawn to exit)
                                            and of sandbox_job_finish (its call to exit); > 0 */
    size_t result_max;                   /* bytes of SANDBOX_FD_RESULT kept; more kills the child */
    size_t output_max;                   /* bytes of stdout+stderr kept; more is read and dropped */
    const struct sandbox_limits *limits; /* optional (borrowed): set in the child before it
                                            execs (RLIMIT_CORE 0 too); a trusted tool with
                                            limits, such as the disassembler */
    int cancel_fd;                       /* optional (borrowed; -1: none): once readable, the
                                            job's process group is killed and `cancelled` set
                                            (another thread's way to stop a job this one
                                            waits on; the reap stays this thread's) */

    /* filled by sandbox_job_run() */
    struct buf result; /* what the child wrote to SANDBOX_FD_RESULT */
    struct buf output; /* what it wrote to stdout/stderr, truncated at output_max */
    pid_t pid;
    int status;           /* waitpid() status */
    bool timed_out;       /* the wall limit passed and the group was killed */
    bool result_overflow; /* the child wrote more than result_max: killed */
    bool cancelled;       /* cancel_fd became readable and the group was killed */
    struct rusage rusage; /* of the child and the descendants it reaped */
    double ms;            /* wall time from spawn to reap */

    /* private: between sandbox_job_start() and the reap */
    int result_r, output_r, request_w, pidfd;
    bool started, exited;
    double start_ms;
    double deadline_ms; /* sandbox_job_send's: the wall limit's end (0: from finish's call) */
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

/*
 * The same in steps, for a child started ahead of its input.
 * sandbox_job_start() spawns the job (sandbox_job_run's codes) and returns at
 * once; nothing is read yet. sandbox_job_wait_result() reads the pipes until
 * the result holds at least `min_bytes`, the child exits (check job->exited),
 * or `timeout_ms` passes (BW_ERR_TIMEOUT; the child is left running); it
 * kills the child only when it writes over result_max. sandbox_job_finish()
 * writes `input` to the request socket (request_stream; a child that stops
 * reading or dies only cuts it short), shuts the socket for writing, reads
 * both pipes until the child exits or wall_ms passes from this call (then the
 * group is killed), and reaps it: the fields are then as after
 * sandbox_job_run(). A started job that is released unfinished is killed and
 * reaped.
 */
int sandbox_job_start(struct sandbox_job *job, char **cause);
int sandbox_job_wait_result(struct sandbox_job *job, size_t min_bytes, int timeout_ms,
                            char **cause);
int sandbox_job_finish(struct sandbox_job *job, const void *input, size_t len, char **cause);
/*
 * Streaming, for a child that answers in parts (the Triton compiler's builds,
 * each as soon as it exists): sandbox_job_send() writes `input` to the request
 * socket and shuts it (reading both pipes meanwhile, so neither side blocks),
 * and starts the wall limit (wall_ms from this call, kept by the later
 * sandbox_job_finish()); the caller then reads the answer as it grows with
 * sandbox_job_wait_result(job, job->result.len + 1, ...) and ends with
 * sandbox_job_finish(job, NULL, 0, ...), which collects the rest and reaps.
 * BW_OK once the input is written or refused (a child that stopped reading or
 * died: its end shows in the answer); BW_ERR_TIMEOUT when the wall limit
 * passed first (the child is left for sandbox_job_finish to kill).
 */
int sandbox_job_send(struct sandbox_job *job, const void *input, size_t len, char **cause);

/* Frees the buffers; kills and reaps a job started and not finished. */
void sandbox_job_release(struct sandbox_job *job);

#endif
