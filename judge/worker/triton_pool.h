/*
 * triton_pool.h - the Triton compilers a judge keeps warm, so that a Triton
 * verdict does not wait for Python to import Triton and for Triton's first
 * compile in a process (together about 1.5 s on the H200 host: `import
 * triton` 0.5 s, then the first compile 0.7-1.8 s, against 0.07-0.1 s for a
 * vector add or a softmax in a warm process).
 *
 * A compiler (triton_compile.h) is used ONCE: each request still runs in its
 * own fresh sandbox (its own namespaces, tmpfs, work directory and Python),
 * so nothing of one learner's module can reach the next one's. What the pool
 * saves is only the wait: it starts compilers ahead of need, each of which
 * locks itself down, imports Triton and compiles one trusted probe kernel
 * (driver.py's warm_up) before it says "ready", and hands a ready one to one
 * compile. Each one taken is replaced in the background, as the runner pool
 * (runner_pool.h) replaces submission runners.
 *
 * Every compiler is started, and waited ready, by one of the pool's
 * threads, which live as long as the pool: a compiler's PDEATHSIG fires when
 * the thread that started it exits (spawn.h). There are as many threads as
 * spares, so that a burst of Runs, each taking one, finds them refilled side
 * by side: a start costs about 1.5 s of one CPU, and a class's burst takes a
 * few compilers a second.
 *
 * A taker waits for a ready compiler when none is (it then gets the next one
 * to finish its start, no later than it would have started its own); a start
 * that fails (no sandbox, no Triton any more) gives its error to the takers
 * waiting, and the pool retries with a growing back-off.
 */
#ifndef BW_TRITON_POOL_H
#define BW_TRITON_POOL_H

#include <stdbool.h>

#include "triton_compile.h"

struct triton_pool;

struct triton_pool_options {
    struct triton_options start; /* how each compiler is started (which Python, limits) */
    int spares;                  /* ready compilers kept, 1..BW_TRITON_POOL_MAX */
    int max_starts;              /* compilers started over the pool's life (0: no bound): a
                                    one-shot `judged check` starts one, ahead of its compile */
};

/* Starts the pool's threads, which begin starting compilers at once. *out is *new*. */
int triton_pool_new(const struct triton_pool_options *o, struct triton_pool **out, char **cause);

/* Stops the threads and frees every compiler the pool holds (not those taken). NULL: no-op. */
void triton_pool_free(struct triton_pool *pool);

/*
 * A ready compiler (*out, *new*: the caller compiles with it once and frees
 * it), waiting for the pool's threads when none is ready. A compiler that
 * cannot start gives its error and reason, as triton_compiler_start and
 * triton_compiler_wait_ready do.
 */
int triton_pool_take(struct triton_pool *pool, struct triton_compiler **out, char **cause);

/* What the pool did so far (the tests and the bench read it); the memory is read now. */
struct triton_pool_counts {
    unsigned long started;       /* compilers that became ready */
    unsigned long taken;         /* handed to a compile */
    unsigned long waited;        /* takes that found none ready and waited */
    unsigned long failed;        /* starts that failed */
    int ready;                   /* ready now */
    unsigned long ready_rss_kib; /* resident memory of the ready ones' processes, summed (Linux
                                    /proc; shared pages counted in each) */
};
void triton_pool_counts(struct triton_pool *pool, struct triton_pool_counts *out);

/*
 * Processes for a compile request starting now (its `jobs`): this machine's
 * CPUs divided between the compiles in flight through `pool`, this one
 * counted; at least 1, at most BW_TRITON_JOBS. A compile alone uses every CPU
 * (on the H200 host 16: a flash-attention Submit compiles 42 builds of about
 * 1.4 s of CPU each), two at once half each. A share is
 * fixed when taken: one that starts while another runs takes its half and
 * the other keeps its own, so the CPUs are oversubscribed until the first
 * ends (8 and 16 processes compiling matmul builds at once took 1.45 and
 * 1.53 s there). Each share is given back with triton_pool_unshare once its
 * compile has ended. A NULL pool: every CPU, nothing counted.
 */
int triton_pool_share(struct triton_pool *pool);
void triton_pool_unshare(struct triton_pool *pool);

/* The share of `cpus` one of `compiles` compiles in flight gets (above). */
int triton_jobs_for(int cpus, int compiles);

/* The share of a judge of `slots` judgings at once that compiles without a
 * pool: this machine's CPUs divided by its slots, as above. */
int triton_pool_jobs(int slots);

#endif
