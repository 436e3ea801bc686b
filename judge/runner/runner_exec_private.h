/*
 * runner_exec_private.h - what the runner's execution files share, private
 * to them: runner_exec.c (the context, the harness's kernels, loading, one
 * run), runner_staged.c (a plan staged on the device: buffers, arguments,
 * inputs, guards, launches, gathering) and runner_bench.c (timing and the
 * GPU's calibration). Nothing outside judge/runner/ includes it.
 */
#ifndef BW_RUNNER_EXEC_PRIVATE_H
#define BW_RUNNER_EXEC_PRIVATE_H

#include <stdbool.h>
#include <stdint.h>

#include "cuda.h"
#include "runner_exec.h"
#include "common/gen.h"
#include "common/limits.h"

#define HARNESS_THREADS 256
#define SMEM_STATIC_MAX (48 * 1024) /* dynamic smem above this needs the function attribute */
/* u64 result slots on the device: hashes, guard codes and poison counts of every allocation. */
#define RESULT_SLOTS    (2 * BW_MAX_BUFFERS * BW_MAX_BENCH_SETS + 16)
#define CLOCK_KERNEL_NS 10000000ull /* 10 ms of the clock kernel when NVML is absent */

/* Calibration sizes: one kernel or copy takes ~10-20 ms on an H200. */
#define CAL_COPY_BYTES                                                                             \
    (1ull << 30) /* bytes copied (read + written: twice that moved); 2 x 2 GiB failed with         \
                    CONTEXT_IS_DESTROYED in the runner on the H200 (not in a bare driver test) */
#define CAL_COPY_MIN_BYTES (256ull << 20)
#define CAL_FFMA_ITERS     (1 << 18)
#define CAL_MMA_ITERS      (1 << 17)
#define CAL_REPEATS        7

struct harness {
    CUmodule module;
    CUfunction generate, hash, guard_fill, guard_check, poison_count, gather, clock, copy, ffma,
        mma_f16, mma_bf16;
};

struct runner_exec {
    CUdevice dev;
    CUcontext ctx;
    struct harness h;
    CUmodule users[BW_MAX_LOADED_KERNELS]; /* the loaded modules (one, or one per image) */
    int n_users;
    struct {
        char name[BW_MAX_NAME + 1]; /* what launches call it */
        CUfunction fn;
    } loaded[BW_MAX_LOADED_KERNELS]; /* the kernels of the last load */
    int n_loaded;
    struct gpu_props props;
    uint32_t salt;       /* guard pattern, random per runner */
    CUdeviceptr results; /* RESULT_SLOTS u64 */
    CUevent ev[2 * BW_MAX_LAUNCHES + 2];
    int n_events;
    bool broken;
    CUresult last_error;       /* the last failing driver call's result */
    bool out_of_memory;        /* the request in progress: a driver call ran out of memory */
    struct staged_plan *spent; /* the last run's buffers, until runner_exec_release */
    double released_ms;        /* the last release's time, reported as the next run's "free" */
    /* Allocations kept from released buffers for the next plan's (staged_free, staged_alloc):
     * a judging's tests run case after case, and a cuMemAlloc and cuMemFree cost more than
     * most cases' launch. At most kept_cap bytes (BW_RUNNER_KEEP_BYTES, BW_RUNNER_KEEP_PART). */
    struct kept_alloc {
        CUdeviceptr base;
        uint64_t bytes;
    } kept[BW_RUNNER_KEEP_ALLOCS];
    int n_kept;
    uint64_t kept_cap;
};

/* One device allocation: [guard][data: bytes][guard][unused], alloc_bytes in all (more than
 * the buffer needs when it was kept from an earlier plan's larger one). */
struct dev_buffer {
    CUdeviceptr base; /* from cuMemAlloc, 0 when not allocated */
    CUdeviceptr data; /* base + BW_GUARD_BYTES, 256-byte aligned */
    uint64_t bytes;
    uint64_t alloc_bytes;
};

/* A plan staged on the device (not plan.h's struct plan, which the judge
 * builds): resolved kernels, marshalled arguments
 * per input set, and the buffers (in and inout buffers once per set; out and
 * scratch buffers only in set 0). argv holds each argument's value
 * little-endian in 8 bytes; params[r][l] points into argv[r][l]. */
struct staged_plan {
    const struct run_plan *plan;
    int sets;
    double alloc_ms; /* staged_setup's time in cuMemAlloc and the guards */
    struct dev_buffer buf[BW_MAX_BUFFERS][BW_MAX_BENCH_SETS];
    uint64_t in_hash[BW_MAX_BUFFERS][BW_MAX_BENCH_SETS];
    CUfunction fn[BW_MAX_LAUNCHES];
    uint32_t param_bytes[BW_MAX_LAUNCHES][BW_MAX_LAUNCH_ARGS];
    uint64_t argv[BW_MAX_BENCH_SETS][BW_MAX_LAUNCHES][BW_MAX_LAUNCH_ARGS];
    void *params[BW_MAX_BENCH_SETS][BW_MAX_LAUNCHES][BW_MAX_LAUNCH_ARGS];
    bool launched; /* a kernel of the plan has been launched */
    uint32_t
        smem_granted[BW_MAX_LAUNCHES]; /* the dynamic smem limit set on fn[l]; 0: the default */
};

/* ---- runner_exec.c: failures, harness launches, result slots --------------------------------- */

/* A failed driver call of the harness: marks the context broken when the
 * error is sticky, fills cause, returns BW_ERR_CUDA. */
int xfail(struct runner_exec *x, CUresult rc, char **cause, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));

/* Sets a failure of status s with CUDA error rc (0: none) and a message. */
void set_failure(struct run_failure *f, enum run_status s, CUresult rc, int launch, const char *fmt,
                 ...) __attribute__((format(printf, 5, 6)));

CUresult guard_fill(const struct runner_exec *x, const struct dev_buffer *b);

CUresult guard_check(const struct runner_exec *x, const struct dev_buffer *b, CUdeviceptr slot);

CUresult hash_launch(const struct runner_exec *x, const struct dev_buffer *b, CUdeviceptr slot);

CUresult poison_launch(const struct runner_exec *x, const struct dev_buffer *b,
                       unsigned int elem_size, CUdeviceptr slot);

CUresult gather_launch(const struct runner_exec *x, CUdeviceptr src, unsigned int elem_size,
                       CUdeviceptr idx, uint64_t n, CUdeviceptr dst, uint64_t count);

CUresult generate_launch(const struct runner_exec *x, const struct dev_buffer *b, uint64_t count,
                         const struct gen_spec *spec, uint64_t seed, uint32_t case_index);

/* Copies n u64 result slots to the host (waits for the queued work). */
int read_slots(struct runner_exec *x, uint64_t *dst, int n, char **cause);

/* Sets n result slots to `word` repeated (0 or 0xFFFFFFFF). */
int clear_slots(struct runner_exec *x, int first, int n, unsigned int word, char **cause);

/* The SM clock in MHz now: NVML, else the clock kernel; 0 if neither works. */
double clock_mhz(struct runner_exec *x);

/* ---- runner_staged.c: a plan staged on the device -------------------------------------------- */

int copies_of(const struct staged_plan *st, int b);

/* Releases st's buffers: small ones are kept for the next plan (within x->kept_cap), the
 * others freed. */
void staged_free(struct runner_exec *x, struct staged_plan *st);
/* Frees every kept allocation. */
void staged_free_kept(struct runner_exec *x);

/* Generates the in and inout buffers of set r (case_index + r); with
 * inout_only, only the inout ones (they are restored before each bench run). */
int staged_generate(struct runner_exec *x, struct staged_plan *st, int r, bool inout_only,
                    char **cause);

/* Compares the `in` buffers' hashes with those taken after generation. */
int staged_check_inputs(struct runner_exec *x, struct staged_plan *st, struct run_failure *fail,
                        char **cause);

/* Poisons outputs with 0xFF and zeroes scratch (set 0: they have one copy). */
int staged_reset_outputs(struct runner_exec *x, struct staged_plan *st, char **cause);

/*
 * Checks every guard band; the first violation (lowest buffer, then set)
 * goes to *fail. Slots [0, n_allocs) are used.
 */
int staged_check_guards(struct runner_exec *x, struct staged_plan *st, struct run_failure *fail,
                        char **cause);

/* Prepares st for plan p with `sets` input sets: resolve, allocate, generate,
 * hash. A kernel's failure goes to *fail (status set), a harness one to the
 * return code. */
int staged_setup(struct runner_exec *x, const struct run_plan *p, int sets, struct staged_plan *st,
                 struct run_failure *fail, char **cause);

/*
 * Launches the plan with the arguments of set r. With sync_each, waits after
 * every launch so that a fault is pinned to its launch, and adds the launches'
 * event times to *ms; otherwise records events around the whole plan and
 * waits once (*ms = their time). Launch refusals and faults go to *fail.
 */
int staged_launch(struct runner_exec *x, struct staged_plan *st, int r, bool sync_each, double *ms,
                  struct run_failure *fail, char **cause);

/*
 * Queues a count of the all-0xFF elements of every out and inout buffer (set
 * r's copy of an inout one), in buffer order, into result slots first,
 * first + 1, ...: *n of them, their buffers in bufs[0..*n) (when not NULL).
 * read_slots() waits for them.
 */
int staged_queue_poison(struct runner_exec *x, struct staged_plan *st, int r, int first, int *bufs,
                        int *n, char **cause);

/* Checks that every gather entry's indices (per set: `sets` copies of the
 * span) lie inside its buffer. */
int check_indices(const struct run_plan *p, const int64_t *idx, size_t n_idx, int sets,
                  char **cause);

/* Device copy of the indices; *dev is 0 when there are none. */
int upload_indices(struct runner_exec *x, const int64_t *idx, uint64_t n, CUdeviceptr *dev,
                   char **cause);

/* Gathers set r's outputs into dst (the gather list's elements, back to back). */
int staged_gather(struct runner_exec *x, struct staged_plan *st, int r, CUdeviceptr idx,
                  CUdeviceptr dst, char **cause);

/* A memfd of `bytes` filled from device memory at src, sealed; *fd is *new*. */
int memfd_from_device(struct runner_exec *x, const char *name, CUdeviceptr src, uint64_t bytes,
                      int *fd, char **cause);

/*
 * A harness call that failed with a sticky error after the plan's kernels
 * ran is the kernels' doing: they can write anywhere in the context (our
 * indices, results, other allocations), and only they ran untrusted code.
 * Turns such a failure (rc) into a cuda_error in *fail.
 */
int blame_kernels(struct runner_exec *x, const struct staged_plan *st, int rc,
                  struct run_failure *fail, char **cause);

/* Copies every out and inout buffer, back to back, into the request's lent
 * buffer or else a new sealed memfd. */
int return_full(struct runner_exec *x, struct staged_plan *st, const struct run_request *req,
                struct run_reply *reply, int *out_fd, char **cause);

/* Gathers the requested elements into a new sealed memfd. */
int return_gather(struct runner_exec *x, struct staged_plan *st, const struct run_request *req,
                  struct run_reply *reply, int *out_fd, char **cause);

/* Fills the data buffers (in buffer order) from the values after the gather
 * indices of a gather request. */
int staged_fill_data(struct runner_exec *x, struct staged_plan *st, const struct run_request *req,
                     char **cause);

#endif
