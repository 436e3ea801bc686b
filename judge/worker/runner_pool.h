/*
 * runner_pool.h - the runners a judge keeps ready, so that a verdict does not
 * wait for CUDA to start, and the gate that keeps timing alone on the GPU.
 *
 * Starting a runner (exec, sandbox, cuInit, context, harness module) takes
 * about 180 ms on an H200, and every judging needs two: that was a quarter of
 * a Run's latency. A pool holds:
 *
 *   reference runners: they run trusted code only (a problem's reference.cu
 *     and the harness), so one is kept for the pool's life and lent to one
 *     judging at a time; it comes back when the judging ends. One that died or
 *     was killed (a sticky error, a timeout) is freed instead, and the next
 *     borrower gets a fresh one.
 *   submission runners: never reused. Each is started and initialised ahead
 *     of need, handed to exactly one submission (one @tune configuration) and
 *     freed by its taker. The pool keeps `spares` of them
 *     started, replacing each one taken in the background while the job runs.
 *
 * Every runner is started by one of the pool's BW_POOL_STARTERS threads, which
 * live as long as the pool: a runner's PDEATHSIG fires when the thread that
 * started it exits (runner_client.h), so a runner kept across jobs cannot be
 * started by a job's thread. They start runners side by side because a start
 * (~180 ms on the H200) is longer than a Run that fails its first test: with
 * one thread, a burst of such Runs waited for spares.
 *
 * The GPU gate: judgings on one GPU overlap while they run tests (each holds
 * the gate shared around each runner call), but a benchmark shape is timed
 * with nothing else on the GPU (the gate held exclusively). A waiting
 * exclusive holder blocks new shared ones, so a stream of Runs cannot starve
 * a Submit's timing. Background work (PyTorch's baseline) first lets the
 * judgings in progress end and the GPU rest, within its patience.
 */
#ifndef BW_RUNNER_POOL_H
#define BW_RUNNER_POOL_H

#include <stdbool.h>

#include "runner_client.h"

struct runner_pool;

struct runner_pool_options {
    int device;      /* CUDA device ordinal */
    bool no_sandbox; /* diagnostics only */
    int spares;      /* submission runners kept started, 0..BW_POOL_MAX_SPARES */
    int references;  /* reference runners started at once (more start on demand), 0..spares+1 */
};

/* Starts the pool's threads, which begin starting runners at once. *out is *new*. */
int runner_pool_new(const struct runner_pool_options *o, struct runner_pool **out, char **cause);

/* Stops the threads and frees every runner the pool holds (not those taken). NULL: no-op. */
void runner_pool_free(struct runner_pool *pool);

/*
 * A fresh submission runner (*out, *new*: the caller frees it), waiting for
 * the pool's thread when no spare is ready. A runner that cannot start (no
 * GPU, sandbox refused, timeout) gives its error and reason, as runner_start.
 */
int runner_pool_take_submission(struct runner_pool *pool, struct runner **out, char **cause);

/* A reference runner (*out, lent) until runner_pool_return_reference(). */
int runner_pool_take_reference(struct runner_pool *pool, struct runner **out, char **cause);

/* A reference runner if one is idle now (true, *out lent as above); otherwise
 * false, and one is started in the background for a later call (at most one
 * such start pending). For work that only pays when it does not wait for a
 * start: the timing's reference computed ahead (bench.h). */
bool runner_pool_try_take_reference(struct runner_pool *pool, struct runner **out);

/* Gives a lent reference runner back: kept when alive, freed otherwise. NULL: no-op. */
void runner_pool_return_reference(struct runner_pool *pool, struct runner *r);

/* The GPU gate (see above). Calls nest only as enter/leave pairs of one kind. */
void runner_pool_gate_enter(struct runner_pool *pool, bool exclusive);
void runner_pool_gate_leave(struct runner_pool *pool, bool exclusive);

/*
 * Enters the gate exclusively for work no learner waits for (PyTorch's baseline): first it waits
 * until no judging is in progress (runner_pool_judging_begin .. _end), no one holds or waits for
 * the gate and the gate has been free for quiet_ms, for at most patience_ms, then queues as any
 * exclusive holder. Returns how long the gate had been free when it entered (ms): the GPU's rest,
 * every kernel of a judging or a baseline running inside the gate. Without it a baseline's shape,
 * timed while a judging ran, made that judging's next test or shape wait.
 */
double runner_pool_gate_enter_background(struct runner_pool *pool, int quiet_ms, int patience_ms);

/* A judging on this pool's GPU begins or ends (judge_submission). */
void runner_pool_judging_begin(struct runner_pool *pool);
void runner_pool_judging_end(struct runner_pool *pool);

/* Runners the pool started since it was made (tests and the bench read it). */
unsigned long runner_pool_started(const struct runner_pool *pool);

#endif
