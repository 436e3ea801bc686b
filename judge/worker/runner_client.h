/*
 * runner_client.h - judged's side of a blockwise-runner: start one, call it
 * with typed requests under a deadline, and kill it.
 *
 * judged never touches CUDA: every GPU action is a call on a runner, a fresh
 * process started by spawn.h with an environment of CUDA_CACHE_DISABLE=1 only
 * (plus extra_env), in its own process group, and one end of a socketpair as
 * its fd 3 (docs/runner-protocol.md). The runner
 * binary is $BLOCKWISE_RUNNER when set (tests), else blockwise-runner next to
 * the current executable.
 *
 * Every call takes a timeout in milliseconds; the call after a run gets
 * more, for the run's buffers, which the runner frees after its reply and
 * before it reads the next request (their bytes at the harness's device
 * rate, BW_HARNESS_DEVICE_BYTES_PER_MS). When it passes, the client
 * SIGKILLs the runner, reaps it and returns BW_ERR_TIMEOUT, so the caller can
 * give Time Limit and start a fresh runner. When the runner dies, the call
 * returns BW_ERR_IO with how it died ("killed by signal 11 (Segmentation
 * fault)") and the last line it logged. A call returns BW_OK whenever the
 * runner answered; the answer's status says what happened to the kernel
 * (RUN_OK, RUN_GUARD_VIOLATION, ...). After a RUN_CUDA_ERROR the runner exits
 * by itself (its context is lost): the client reaps it and later calls fail
 * with BW_ERR_IO. RUN_ERROR means the runner could not serve the request: a
 * Judge Error, never the learner's fault.
 *
 * A run, bench or profile call first reserves the device memory its buffers
 * take (device_memory.h), waiting while other runners' calls hold too much;
 * one that ran short all the same (RUN_ERROR_OUT_OF_MEMORY) is sent again
 * every BW_RUNNER_OOM_PAUSE_MS for up to BW_RUNNER_OOM_RETRY_MS.
 *
 * Note: the runner has PR_SET_PDEATHSIG (set by spawn.h before exec, and again
 * by the runner), which fires when the *thread* that started it exits; start
 * runners from a thread that outlives them.
 */
#ifndef BW_RUNNER_CLIENT_H
#define BW_RUNNER_CLIENT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "wire/runner_proto.h"

struct runner;

struct runner_options {
    int device;       /* CUDA device ordinal */
    bool no_sandbox;  /* diagnostics only: no namespaces, no seccomp */
    const char *path; /* the runner binary; NULL: $BLOCKWISE_RUNNER, else next to this executable */
    int start_ms;     /* deadline of the ready message; 0: BW_RUNNER_START_MS */
    bool inherit_stderr; /* the runner's stdout and stderr are ours; else a capped in-memory log */
    const char *const
        *extra_env;    /* NULL or NULL-terminated "NAME=value" added to its environment */
    const char *cupti; /* the CUPTI library the runner profiles with (--cupti); NULL: none */
};

/*
 * Starts a runner and waits for its ready message. On success *out is *new*
 * (runner_free). When the runner says it cannot work, returns its reason as
 * BW_ERR_NODEVICE (no driver or GPU), BW_ERR_SANDBOX or BW_ERR_CUDA with its
 * message in *cause; BW_ERR_TIMEOUT or BW_ERR_IO when it hangs or dies first.
 */
int runner_start(const struct runner_options *opt, struct runner **out, char **cause);

/* The GPU the runner drives (borrowed, valid until runner_free). */
const struct gpu_props *runner_gpu(const struct runner *r);
pid_t runner_pid(const struct runner *r);
/* False once the runner has exited or been killed. */
bool runner_alive(const struct runner *r);
/* What the runner wrote to stderr so far, capped at BW_RUNNER_LOG_BYTES (borrowed; "" when
 * stderr is inherited). */
const char *runner_log(struct runner *r);

/* Loads a cubin (borrowed) and describes `n` kernels in *reply (in the order named). */
int runner_load(struct runner *r, const void *image, size_t len, const char *const *kernels, int n,
                struct load_reply *reply, int timeout_ms, char **cause);

/* Loads n cubins (borrowed), one kernel each: the kernel `symbols[i]` of
 * images[i], which launches call `names[i]` (a Triton program's variants).
 * Replaces any module loaded before; *reply as runner_load's. */
int runner_load_images(struct runner *r, const void *const *images, const size_t *lens,
                       const char *const *symbols, const char *const *names, int n,
                       struct load_reply *reply, int timeout_ms, char **cause);

struct lent_buffer;

/*
 * The outputs of a run: in a buffer this client lent the runner (a full
 * return, runner_proto.h), or mapped read-only from the runner's sealed memfd.
 * A lent buffer is not reused while a result holds it, so results of one
 * runner may be held at once (the reference pipe holds several).
 */
struct run_result {
    struct run_reply reply;
    const uint8_t *data; /* reply.outputs[k] locates output k; NULL when empty */
    size_t data_len;
    struct lent_buffer *lent; /* the lent buffer data lies in (a reference), or NULL: a mapping */
};

/*
 * Runs a plan once. res is filled (release with run_result_release, even after
 * a failure). A full return of at most BW_RUNNER_LENT_MAX bytes goes into a
 * lent buffer of the runner's that no result holds and that fits, else one
 * grown (a new memfd of at least BW_RUNNER_LENT_MIN bytes, allocated and
 * touched here), else (all held, or larger) a new sealed memfd of the runner's.
 */
int runner_run(struct runner *r, const struct run_request *req, struct run_result *res,
               int timeout_ms, char **cause);
void run_result_release(struct run_result *res);

/* Lent buffers made for this runner so far (each new one, or a grown one, counts). */
unsigned runner_lent_made(const struct runner *r);
/* How many lent buffers of ended runners are kept for the next ones (for tests). */
int runner_lent_kept(void);
/* Frees every kept buffer (their memory back to the system; tests start clean). */
void runner_lent_kept_release(void);
/* The milliseconds r's caller spent making lent buffers so far (for timing). */
double runner_lent_ms(const struct runner *r);
/* The milliseconds r's calls waited for device memory so far (device_memory.h; for timing). */
double runner_memory_wait_ms(const struct runner *r);
/* Output of buffer `buf` in res (borrowed), or NULL; *bytes its size. */
const void *run_result_output(const struct run_result *res, int buf, size_t *bytes);

struct bench_result {
    struct bench_reply reply;
    const uint8_t *gathered; /* owned mapping: reply.n_samples * reply.bytes_per_sample bytes */
    size_t gathered_len;
};

/* Times a plan. res is filled (release with bench_result_release, even after a failure). */
int runner_bench(struct runner *r, const struct bench_request *req, struct bench_result *res,
                 int timeout_ms, char **cause);
void bench_result_release(struct bench_result *res);

/* Measures the GPU (BW_RUNNER_CALIBRATE_MS is a sensible timeout). */
int runner_calibrate(struct runner *r, struct calibration *c, struct run_failure *fail,
                     int timeout_ms, char **cause);

/* Runs a plan once under the runner's profiler (started with runner_options.cupti); *reply
 * says whether the profiler was available, and the plan's failures as a run's would. */
int runner_profile(struct runner *r, const struct profile_request *req, struct profile_reply *reply,
                   int timeout_ms, char **cause);

/* Kills the runner (if alive), reaps it and frees everything. NULL is a no-op. */
void runner_free(struct runner *r);

/* runner_free for a runner whose end nobody waits to hear about: SIGKILLs it
 * now and leaves the reaping to a background thread of this process. A
 * killed runner's exit (the driver tearing down its CUDA context, its lent
 * buffers unmapped) took 70-100 ms on the H200, which a verdict should not
 * wait for. On failure to queue it, frees it here. NULL is a no-op. */
void runner_discard(struct runner *r);

/* Waits until every runner_discard'ed runner is reaped (before exiting, and
 * where a test counts processes). */
void runner_discard_drain(void);

#endif
