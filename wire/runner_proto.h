/*
 * runner_proto.h - the messages between judged and blockwise-runner as C
 * structs, and their JSON in both directions.
 *
 * docs/runner-protocol.md is the contract; this module is its one encoder and
 * decoder, used by the runner (judge/runner/runner_main.c, judge/runner/runner_exec.c) and by
 * its client (judge/worker/runner_client.c), so both sides agree by construction and
 * the round trip is unit-tested. Decoders validate everything (types, ranges,
 * indices, limits) and name the bad field: "buffers[2].count: expected an
 * integer in [0, 4294967296]". Encoders return a *new* json_t or NULL when out
 * of memory. Doubles that are +-inf or NaN travel as the strings "inf", "-inf",
 * "nan"; uint64 values above INT64_MAX as decimal strings.
 *
 * Bulk bytes never go in the JSON: the cubin, the gather indices and the
 * returned outputs travel in a sealed memfd attached to the message (ipc.h);
 * the structs below carry only their layout.
 */
#ifndef BW_RUNNER_PROTO_H
#define BW_RUNNER_PROTO_H

#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "common/dtype.h"
#include "common/gen.h"
#include "common/limits.h"

/* --- ready ------------------------------------------------------------------- */

struct gpu_props {
    char name[128];           /* "NVIDIA H200" */
    int cc_major, cc_minor;   /* compute capability */
    int sm_count;             /* multiprocessors */
    uint64_t memory_bytes;    /* total device memory */
    uint64_t l2_bytes;        /* L2 cache size */
    int driver_version;       /* cuDriverGetVersion: 13000 is "13.0" */
    char uuid[48];            /* "GPU-xxxxxxxx-xxxx-xxxx-xxxx-xxxxxxxxxxxx" */
    int max_clock_mhz;        /* the device's rated SM clock */
    int smem_per_block_optin; /* bytes of shared memory a block may opt in to */
    bool nvml;                /* the runner reads the current SM clock through NVML */
};

/* Why a runner could not become ready. */
enum ready_error {
    READY_OK = 0,
    READY_NO_DEVICE, /* no driver, no GPU, or no such device: "no_device" */
    READY_SANDBOX,   /* a sandbox step failed: "sandbox" */
    READY_CUDA,      /* the device is there but setting it up failed: "cuda" */
    READY_USAGE,     /* bad command line or fd 3 is not a socket: "usage" */
};

struct ready_msg {
    enum ready_error error;
    char message[512];    /* when error != READY_OK */
    struct gpu_props gpu; /* when error == READY_OK */
};

json_t *ready_to_json(const struct ready_msg *r);
int ready_from_json(const json_t *j, struct ready_msg *r, char **cause);

/* --- load -------------------------------------------------------------------- */

/* One module of a load with several: the bytes [offset, offset + bytes) of the
 * attached memfd, and the entry symbol the module's kernel has. */
struct load_image {
    uint64_t offset; /* a multiple of 8 */
    uint64_t bytes;  /* 1..BW_MAX_CUBIN_BYTES */
    char symbol[BW_MAX_NAME + 1];
};

/*
 * Without images, the memfd is one module holding every kernel named. With
 * images (a Triton program: one cubin per compiled kernel variant), there is
 * one per kernel: kernels[i] is images[i]'s symbol, known to launches by the
 * name kernels[i] (so two variants of one kernel can be loaded at once).
 */
struct load_request {
    int n_kernels; /* 1..BW_MAX_LOADED_KERNELS */
    char kernels[BW_MAX_LOADED_KERNELS][BW_MAX_NAME + 1];
    int n_images; /* 0, or n_kernels */
    struct load_image images[BW_MAX_LOADED_KERNELS];
};

struct kernel_info {
    char name[BW_MAX_NAME + 1];
    int n_params;                             /* 0..BW_MAX_LAUNCH_ARGS */
    uint32_t param_bytes[BW_MAX_LAUNCH_ARGS]; /* each parameter's size (cuFuncGetParamInfo) */
    int regs;                                 /* registers per thread */
    int static_smem;                          /* bytes of static shared memory */
    int local_bytes;                          /* bytes of local memory per thread (spills, stack) */
    int max_threads;                          /* most threads per block this kernel can launch */
};

/* --- run and bench: the launch plan ------------------------------------------- */

enum run_role {
    RUN_ROLE_IN = 1,  /* generated; hashed before and after: a change is input_modified */
    RUN_ROLE_INOUT,   /* generated, returned, not hashed */
    RUN_ROLE_OUT,     /* 0xFF-poisoned before every run, returned */
    RUN_ROLE_SCRATCH, /* zeroed before every run, not returned */
    RUN_ROLE_DATA     /* int64, filled from the request (after the gather indices); run only */
};

struct run_buffer {
    char name[BW_MAX_NAME + 1];
    enum dtype dtype;
    uint64_t count; /* elements; count * dtype_size <= BW_MAX_TENSOR_BYTES */
    enum run_role role;
    struct gen_spec gen; /* in and inout only; gen.dtype equals dtype */
};

enum run_arg_kind {
    RUN_ARG_BUF = 1, /* a buffer's device pointer (8 bytes) */
    RUN_ARG_I64,
    RUN_ARG_I32,
    RUN_ARG_U64,
    RUN_ARG_U32,
    RUN_ARG_F32,
    RUN_ARG_F64,
    RUN_ARG_INT /* an integer literal: 4 or 8 bytes to match the parameter */
};

struct run_arg {
    enum run_arg_kind kind;
    char name[BW_MAX_NAME + 1]; /* for messages ("N"); may be empty */
    int buf;                    /* RUN_ARG_BUF */
    uint64_t offset;            /* RUN_ARG_BUF: elements into the buffer (a Triton launcher's
                                   view), at most its count: the runner checks it */
    int64_t i;                  /* RUN_ARG_I64, RUN_ARG_I32, RUN_ARG_INT */
    uint64_t u;                 /* RUN_ARG_U64, RUN_ARG_U32 */
    double f;                   /* RUN_ARG_F32, RUN_ARG_F64 */
};

struct run_launch {
    char kernel[BW_MAX_NAME + 1];
    uint32_t grid[3], block[3];
    uint32_t smem; /* dynamic shared memory bytes; above 48 KiB the runner raises the limit */
    int n_args;
    struct run_arg args[BW_MAX_LAUNCH_ARGS];
};

/* Output k's gathered elements: `count` int64 indices starting at `offset` in
 * the index array (per input set in a bench). */
struct run_gather {
    int buf; /* an out or inout buffer */
    uint64_t offset, count;
};

struct run_plan {
    uint64_t seed;       /* the per-submission secret: Philox key */
    uint32_t case_index; /* < 2^30 (GEN_COUNTER_WORD3 keeps 30 bits) */
    int n_buffers;
    struct run_buffer buffers[BW_MAX_BUFFERS];
    int n_launches; /* 1..BW_MAX_LAUNCHES */
    struct run_launch launches[BW_MAX_LAUNCHES];
    int n_gather;
    struct run_gather gather[BW_MAX_BUFFERS];
};

/* The index count a plan's gather list needs per input set: max(offset + count). */
uint64_t run_plan_gather_span(const struct run_plan *p);
/* Bytes of one gathered sample: sum of count * element size. */
uint64_t run_plan_gather_bytes(const struct run_plan *p);

enum run_return {
    RUN_RETURN_FULL = 0, /* every out and inout buffer, back to back in buffer order */
    RUN_RETURN_GATHER    /* only the gathered elements, gather list order */
};

/*
 * A full return goes into a new sealed memfd, or, with `into` >= 0, into the
 * judge's lent buffer `into` (0..BW_RUNNER_LENT_SLOTS-1): a memfd the judge
 * made and maps, sent with the request that first names it (`lend`), kept by
 * the runner (mapped, registered with the driver) until a request lends
 * another buffer in its place or the runner exits. Lent buffers are reused
 * case after case, so their pages are touched and pinned once, not per case.
 */
struct run_request {
    struct run_plan plan;
    enum run_return ret;
    const int64_t *indices; /* borrowed; RUN_RETURN_GATHER: run_plan_gather_span() of them (in the
                               fd, not the JSON) */
    size_t n_indices;
    bool scan; /* after the run, count every out and inout buffer's all-0xFF elements (the reply's
                  poison): a test checked by sample is scanned whole for unwritten elements */
    /* Parsed by the runner; runner_run() chooses and sends them itself ("into",
     * "lend"), whatever the caller's struct holds. */
    int into;  /* RUN_RETURN_FULL: the lent buffer to write into; -1: a new memfd */
    bool lend; /* the request's fd is the memfd of lent buffer `into`, replacing any before */
    /* The runner's own (never in the JSON): where lent buffer `into` is mapped. */
    void *into_map;
    size_t into_size;
};

/* Bytes of a plan's full return: its out and inout buffers back to back. */
uint64_t run_plan_return_bytes(const struct run_plan *p);

/* Bytes a run of the plan allocates on the device: every buffer with its two guard bands. */
uint64_t run_plan_device_bytes(const struct run_plan *p);
/* The same with `sets` input sets (a bench: in and inout buffers once per set). */
uint64_t run_plan_device_bytes_sets(const struct run_plan *p, uint32_t sets);
/* The device copies the runner makes of a buffer of this role with `sets` input sets: one
 * per set for in and inout buffers (each set has its own inputs), else one. */
int run_buffer_copies(enum run_role role, uint32_t sets);

struct bench_request {
    struct run_plan plan;
    uint32_t sets;           /* 1..BW_MAX_BENCH_SETS input sets, case_index + r */
    uint32_t min_samples;    /* >= 1 */
    uint32_t max_samples;    /* >= min_samples, <= BW_BENCH_MAX_SAMPLES */
    double target_rse;       /* stop once the relative standard error is at most this */
    double budget_ms;        /* wall time of the timed samples */
    double warmup_ms;        /* wall time of untimed runs first (at least warmup_runs) */
    uint32_t warmup_runs;    /* untimed runs first at least; 0: BW_BENCH_WARMUP_RUNS */
    uint64_t l2_flush_bytes; /* written before each sample; 0: no flush */
    const int64_t *indices;  /* borrowed; sets * run_plan_gather_span() of them (in the fd) */
    size_t n_indices;
};

json_t *load_request_to_json(const struct load_request *r);
int load_request_from_json(const json_t *j, struct load_request *r, char **cause);
json_t *run_request_to_json(const struct run_request *r);
int run_request_from_json(const json_t *j, struct run_request *r, char **cause);
json_t *bench_request_to_json(const struct bench_request *r);
int bench_request_from_json(const json_t *j, struct bench_request *r, char **cause);
json_t *gen_spec_to_json(const struct gen_spec *g);
int gen_spec_from_json(const json_t *j, struct gen_spec *g, const char *path, char **cause);

/* --- replies ------------------------------------------------------------------- */

enum run_status {
    RUN_OK = 0,
    RUN_CUDA_ERROR,      /* a kernel faulted: the context is lost and the runner exits */
    RUN_LAUNCH_ERROR,    /* cuLaunchKernel (or the smem attribute) refused a launch */
    RUN_GUARD_VIOLATION, /* a guard band around a buffer was written */
    RUN_INPUT_MODIFIED,  /* an `in` buffer changed */
    RUN_ARG_MISMATCH,    /* arguments do not fit the kernel's parameters */
    RUN_ERROR            /* the request could not be served (not the kernel's fault) */
};

const char *run_status_name(enum run_status s);

struct run_failure {
    enum run_status status;
    char error[64];    /* CUDA error name: cuda_error, launch_error, and load failures */
    char message[512]; /* detail, for every status but RUN_OK */
    int launch;        /* cuda_error, launch_error: launch index; -1 when unknown */
    int buf;           /* guard_violation, input_modified: buffer index; -1 otherwise */
    bool after;        /* guard_violation: the band after the data (else before) */
    int64_t offset;    /* guard_violation: first written byte, relative to the data start */
    int64_t sample;    /* bench: the failing timed sample; -1 otherwise */
    bool in_warmup;    /* bench: the failure happened in a warm-up run */
};

/* Sets f to RUN_OK with every index field -1. */
void run_failure_init(struct run_failure *f);

struct run_output {
    int buf;
    uint64_t offset, bytes; /* where in the returned memfd */
};

/* Where a run's wall time went in the runner (informative: the judge's
 * timing breakdown says which part grows when judgings share a GPU). */
enum run_phase {
    RUN_PHASE_ALLOC,  /* the buffers allocated (cuMemAlloc), with their guards written */
    RUN_PHASE_SETUP,  /* inputs generated and hashed, outputs poisoned */
    RUN_PHASE_LAUNCH, /* the plan's launches, each waited for */
    RUN_PHASE_CHECKS, /* guards and input hashes checked */
    RUN_PHASE_RETURN, /* outputs copied to the host (a lent buffer or a memfd) */
    RUN_PHASE_FREE,   /* the previous run's buffers freed, after its reply (runner_exec.h) */
    RUN_PHASES
};
/* "alloc", "setup", "launch", "checks", "return", "free". */
const char *run_phase_name(enum run_phase p);

struct run_reply {
    struct run_failure fail;
    double ms; /* sum of the launches' event times (informative; bench times) */
    int n_outputs;
    struct run_output outputs[BW_MAX_BUFFERS];
    double phase_ms[RUN_PHASES];    /* wall milliseconds per phase; 0 from an older runner */
    int n_poison;                   /* a scan's (run_request.scan): out and inout buffers counted */
    int poison_buf[BW_MAX_BUFFERS]; /* their buffer indices, ascending */
    uint64_t poison[BW_MAX_BUFFERS]; /* all-0xFF elements of each */
};

struct load_reply {
    struct run_failure fail;
    int n_kernels;
    struct kernel_info kernels[BW_MAX_LOADED_KERNELS]; /* in the request's order */
};

/* Why sampling stopped: "rse", "max", "budget" (as stats_should_stop() says). */
enum bench_stop { BENCH_STOP_RSE = 0, BENCH_STOP_MAX_SAMPLES, BENCH_STOP_BUDGET };
const char *bench_stop_name(enum bench_stop s);

struct bench_reply {
    struct run_failure fail;
    enum bench_stop stop;
    uint32_t n_samples;
    double *samples_ms;             /* owned; n_samples event times */
    int n_poison;                   /* outputs scanned per sample: out and inout buffers */
    int poison_buf[BW_MAX_BUFFERS]; /* their buffer indices, ascending */
    uint64_t *poison;               /* owned; n_samples * n_poison counts of all-0xFF elements */
    double clock_mhz[2];            /* SM clock before and after the timed samples; 0: unknown */
    uint64_t bytes_per_sample;      /* gathered bytes per sample in the attached memfd */
};

void bench_reply_release(struct bench_reply *r);

struct calibration {
    double copy_gbps;          /* device-to-device copy, bytes read + written per second / 1e9 */
    double fp32_tflops;        /* FFMA */
    double fp16_tensor_tflops; /* mma.sync m16n8k16, fp32 accumulate */
    double bf16_tensor_tflops; /* mma.sync m16n8k16, fp32 accumulate */
    double clock_mhz;          /* SM clock right after the measurements; 0: unknown */
};

json_t *run_reply_to_json(const struct run_reply *r);
int run_reply_from_json(const json_t *j, struct run_reply *r, char **cause);
json_t *load_reply_to_json(const struct load_reply *r);
int load_reply_from_json(const json_t *j, struct load_reply *r, char **cause);
json_t *bench_reply_to_json(const struct bench_reply *r);
/* Fills r (release with bench_reply_release, also after a failure). */
int bench_reply_from_json(const json_t *j, struct bench_reply *r, char **cause);
/* A failed calibration is a reply with a status too. */
json_t *calibration_to_json(const struct calibration *c, const struct run_failure *fail);
int calibration_from_json(const json_t *j, struct calibration *c, struct run_failure *fail,
                          char **cause);

/* --- profile (runner_proto_profile.c) -------------------------------------------------------- */

/*
 * The metrics a profile reads from CUPTI's range profiler, one per kernel launch, in this order.
 * profile_metric_table says, for each, the names it goes by (Nsight Compute's metric names; the
 * first the GPU knows is the one read) and what the summary uses it for. A metric no name of
 * which the GPU knows is null in the results, never a failure of the whole profile.
 */
enum profile_metric {
    PM_DURATION,              /* ns */
    PM_DRAM_PCT,              /* DRAM throughput, % of peak */
    PM_L2_PCT,                /* L2 throughput, % of peak */
    PM_L1_PCT,                /* L1/TEX throughput, % of peak */
    PM_SM_PCT,                /* SM throughput (compute), % of peak */
    PM_MEMORY_PCT,            /* the busiest memory unit, % of its peak */
    PM_FMA_PCT,               /* FMA pipe, % of peak */
    PM_TENSOR_PCT,            /* tensor pipe (mma), % of peak */
    PM_GMMA_PCT,              /* the tensor pipe with Hopper's wgmma named, % of peak */
    PM_WARPS_ACTIVE_PCT,      /* achieved occupancy, % of the SM's warps */
    PM_THEORETICAL_PCT,       /* the driver's theoretical occupancy (to check ours against) */
    PM_DRAM_READ,             /* bytes */
    PM_DRAM_WRITE,            /* bytes */
    PM_L2_HIT_PCT,            /* L2 sector hit rate */
    PM_L1_HIT_PCT,            /* L1/TEX sector hit rate */
    PM_STALL_LONG_SCOREBOARD, /* the stall reasons: warps stalled per issued instruction */
    PM_STALL_SHORT_SCOREBOARD,
    PM_STALL_MIO_THROTTLE,
    PM_STALL_LG_THROTTLE,
    PM_STALL_MATH_PIPE_THROTTLE,
    PM_STALL_WAIT,
    PM_STALL_BARRIER,
    PM_STALL_MEMBAR,
    PM_STALL_NOT_SELECTED,
    PM_STALL_NO_INSTRUCTION,
    PM_STALL_DISPATCH,
    PM_STALL_TEX_THROTTLE,
    PM_COUNT
};
#define PM_STALL_FIRST PM_STALL_LONG_SCOREBOARD
#define PM_STALL_LAST  PM_STALL_TEX_THROTTLE

struct profile_metric_info {
    const char *names[3]; /* the names it goes by, NULL-terminated; the first known is read */
    const char *stall;    /* a stall reason: how the summary names it; NULL for the others */
    bool driver; /* not a CUPTI metric: the runner computes it with the CUDA driver (names[0] is
                    the name it is reported under); CUPTI is never asked for it */
};

/* Indexed by enum profile_metric. */
extern const struct profile_metric_info profile_metric_table[PM_COUNT];

/* `profile` runs a plan once under the profiler: a run_plan with no gather list. */
struct profile_request {
    struct run_plan plan;
};

/* What the occupancy calculator needs of the device (cuDeviceGetAttribute). */
struct profile_device {
    int cc_major, cc_minor;
    int sm_count, warp_size;
    int max_threads_per_block, max_threads_per_sm, max_blocks_per_sm;
    int regs_per_sm, regs_per_block;
    int smem_per_sm, smem_per_block, smem_per_block_optin, reserved_smem_per_block; /* bytes */
};

/* One kernel launch of the plan, profiled (one range of CUPTI's auto ranges). */
struct profile_range {
    int launch;                   /* its index in the plan */
    char kernel[BW_MAX_NAME + 1]; /* the name the runner loaded it under */
    uint32_t grid[3], block[3];
    uint32_t smem;           /* dynamic shared memory bytes */
    int regs, static_smem;   /* the function's registers per thread, static shared memory bytes */
    double values[PM_COUNT]; /* NaN: the GPU did not give it */
};

struct profile_reply {
    struct run_failure fail;        /* the plan's own failures, as a run's */
    bool available;                 /* the profiler ran: the ranges hold values */
    char why[BW_PROFILE_WHY_BYTES]; /* when !available: one sentence */
    char version[16];               /* CUPTI's version, "13.0" */
    char chip[32];                  /* "GH100" */
    int passes;                     /* replays of each kernel the metric set needed */
    char metrics[PM_COUNT][BW_PROFILE_METRIC_BYTES]; /* the name each metric was read under;
                                                        "": the GPU knows none of its names */
    struct profile_device device;
    int n_ranges;
    struct profile_range ranges[BW_MAX_LAUNCHES];
    double ms; /* the profiled run's wall time in the runner (every replay) */
};

json_t *profile_request_to_json(const struct profile_request *r);
int profile_request_from_json(const json_t *j, struct profile_request *r, char **cause);
json_t *profile_reply_to_json(const struct profile_reply *r);
int profile_reply_from_json(const json_t *j, struct profile_reply *r, char **cause);

/* Any reply of type `type` that only says the request failed (status "error"); error: the
 * CUDA error name that failed it (RUN_ERROR_OUT_OF_MEMORY: the judge may try again), or NULL. */
json_t *error_reply_to_json(const char *type, const char *error, const char *message);

/* The error of a RUN_ERROR reply whose buffers did not fit in the device's free memory at that
 * moment: another runner's buffers, freed after its reply, may still have held it. */
#define RUN_ERROR_OUT_OF_MEMORY "CUDA_ERROR_OUT_OF_MEMORY"

/* The string of j["type"], or "" when missing (borrowed from j). */
const char *msg_type(const json_t *j);

#endif
