/*
 * triton_launcher.h - recording a Triton submission's launcher, solve(...),
 * and compiling what it launches, in one request to the Triton compile
 * sandbox (triton_compile.h): the wire side of a launcher program.
 *
 * A launcher request is the compile request's framing with its own fields
 * (driver.py hands them to judge/triton/launcher.py):
 *   filename, source, cc, jobs      as a kernel request
 *   mode "launch"                   a launcher request (no kernel fields)
 *   record_only "1"                 record, compile only what warmup() asks (judged plan)
 *   tests_only "1"                  a Run: record every case, build the test cases' variants
 *   compile_source TEXT             the module the builds are compiled from: the source with
 *                                   its launch code blanked (triton_key_launcher_text), exactly
 *                                   the text their cache key covers; absent: `source`
 *   have "KEY"                      repeated: a variant (its key text) whose build judged
 *                                   holds for this module: not to be compiled
 *   device "KEY=VALUE"              the worker GPU, repeated: name, cc_major, cc_minor,
 *                                   sm_count, total_memory, l2_bytes, max_shared_mem,
 *                                   max_shared_mem_sm, max_num_regs, warp_size,
 *                                   max_threads_per_sm, sm_clock_khz, mem_clock_khz,
 *                                   mem_bus_width (torch.cuda.get_device_properties and
 *                                   driver.active.utils.get_device_properties answer them)
 *   limit "KEY=VALUE"               case_ms, max_launches, max_scratch, max_configs,
 *                                   max_launch_args, max_builds
 *   tensor "NAME DTYPE ROLE"        the problem's tensors, in order (ROLE in, out, inout)
 *   scalar "NAME DTYPE", size "NAME"
 *   case "INDEX KIND NAME"          per case (the tests, then the benchmarks; KIND test
 *                                   or bench), followed by its
 *     shape "TENSOR D0 D1 ..."      per tensor
 *     value "NAME V"                per size and scalar
 *     scratch_limit "BYTES"         the problem's scratch cap for the case
 * The answer, after "accepted" (untrusted, like every field after it):
 *   record_ms, record_cases         how long the recording took, over how many cases
 *   record_failed                   the recording stopped: its error is a diag (no plans)
 *   configs "N", config "I NAME"    the configurations (every autotune combination)
 *   record "CONFIG CASE"            a recorded plan, followed by its
 *     scratch "NAME DTYPE COUNT LINE"   buffers solve made
 *     launch "KERNEL LINE", grid "X Y Z", options "WARPS STAGES MAXNREG",
 *     arg "buf NAME OFFSET SPAN" | "int V" | "float V", constexpr "NAME=LITERAL"
 *   variant "I KEY"                 build I is the variant KEY (triton_variant_key: a test
 *                                   case's integers unspecialised but for the 1s every
 *                                   test case of the build passes, a benchmark shape's as
 *                                   at home), in the order the cases need them
 *                                   (configuration by configuration, tests then benchmarks)
 *   planned "N"                     the recording and its N variants are whole: the plans
 *                                   can be checked and the tests start (nothing of the
 *                                   launcher's fields comes after it)
 *   cached "I"                      build I is one judged said it has: not compiled
 *   then the kernel request's build / failed / diag / failure / driver_ms fields, each
 *   build as soon as it exists, in the order of the variants as far as the compile
 *   workers allow.
 *
 * How the driver keeps each build a function of its key (judge/triton/launcher.py): the
 * cases are recorded in children that import the whole file and have no result pipe; the
 * builds are compiled in one more child that imports only compile_source, started once every
 * process that ran the whole file is dead and the tmpfs they wrote emptied.
 *
 * Trust: judged decodes the answer into a struct recording (plan/recorded.h)
 * and the builds, each named by its variant key; judge/worker/program.c
 * checks every recorded plan (recorded_plan_build), computes each launch's
 * variant with its own rules and takes the build whose key is the same. A
 * malformed answer, a plan that does not check, a missing build: the
 * submission's Compile Error, never a judge error.
 */
#ifndef BW_TRITON_LAUNCHER_H
#define BW_TRITON_LAUNCHER_H

#include <stdbool.h>
#include <stddef.h>

#include "gpu_info.h"
#include "triton_compile.h"
#include "common/buf.h"
#include "plan/recorded.h"
#include "problem/problem.h"

struct triton_pool;

struct triton_launch_request {
    const char *source; /* borrowed; `len` bytes */
    size_t len;
    const char *filename;       /* NULL: "submission.py" */
    const struct problem *p;    /* its tensors, scalars, sizes, tests and benchmarks */
    const struct gpu_info *gpu; /* the worker GPU; NULL or nameless: an H200's figures */
    int cc_major, cc_minor;     /* the compile target (0/0: 9.0) */
    bool record_only;           /* judged plan: record, build nothing */
    bool tests_only;            /* a Run: every case is recorded, the test cases' variants
                                   built (a Submit's benchmark shapes need theirs too) */
    const char *compile_source; /* borrowed; the text the builds are compiled from (NULL:
                                   source), `compile_len` bytes */
    size_t compile_len;
    const char *const *have; /* borrowed: variant keys whose builds the caller holds */
    size_t n_have;           /* at most BW_TRITON_MAX_KERNELS */
    int wall_ms;             /* 0: BW_TRITON_WALL_MS */
    int case_ms;             /* one case's recording; 0: BW_LAUNCHER_CASE_MS */
    int jobs; /* processes recording and compiling without a pool (with one: triton_pool_share) */
    struct triton_pool *pool; /* borrowed: warm compilers; NULL: one is started */
    /* how the compiler starts without a pool (triton_options) */
    bool no_sandbox;
    const char *python;
    const char *compiler;
};

struct triton_launch_result {
    struct recording rec; /* the plans as recorded (unchecked); n_configs 0 when none came */
    bool record_failed;   /* the recording stopped: compiled.diags say where and why */
    struct triton_result compiled; /* builds[i] is variant keys[i]; diags, log, failure, ms */
    char **keys;                   /* owned: the variant of each build, as the driver named it */
    size_t n_keys;
    double wait_ms; /* of compiled.ms: waiting for a compiler (the pool's) */
};

/*
 * A launcher's answer as it comes (triton_launch_run), on the compiling thread: the plans
 * first, then each build. Once the recording and its variants are whole ("planned"),
 * on_planned sees them (out->rec, out->keys; no build yet) and returns NULL to go on, or a
 * message (static, or the caller's until the run returns) to stop the compile with it as
 * its failure; then on_build(arg, i) as build i of out->compiled is final (triton_stream's
 * rules; a "cached" or failed build is final as not built).
 */
struct triton_launch_stream {
    const char *(*on_planned)(void *arg, struct triton_launch_result *out);
    triton_build_fn on_build;
    void *arg;
    int cancel_fd; /* -1, or as triton_stream's: stops the compile */
};

/* Encodes a launcher request (the fields above); BW_ERR_INVALID or BW_ERR_LIMIT with the cause. */
int triton_launch_encode(const struct triton_launch_request *rq, struct buf *out, char **cause);

/*
 * Reads a launcher answer into *out (zeroed first), for a problem of
 * n_cases cases: *accepted and *complete as triton_result_decode says them.
 * A malformed launcher field is the submission's failure (out->compiled.failure);
 * a negative code only for a judge error before "accepted".
 */
int triton_launch_decode(char *data, size_t len, size_t n_cases, struct triton_launch_result *out,
                         bool *accepted, bool *complete, char **cause);

/*
 * Takes a compiler (rq->pool's, or one started), sends the request, decodes the answer into
 * *out as it comes, through `st` (NULL: none) (released with triton_launch_result_release
 * whatever the return). BW_OK when the child answered, well or not because of the
 * submission; a negative code for the judge's failures (as triton_compile_run).
 */
int triton_launch_run(const struct triton_launch_request *rq, const struct triton_launch_stream *st,
                      struct triton_launch_result *out, char **cause);

/* The worker GPU's figures as the launcher request says them to the module (device fields):
 * part of a launcher module's key (triton_key_launcher_module), since its import may read them. */
void triton_launch_device(const struct triton_launch_request *rq, char *out, size_t cap);

void triton_launch_result_release(struct triton_launch_result *r);

/* The build of out->compiled whose key is `key`, or -1. */
int triton_launch_find(const struct triton_launch_result *r, const char *key);

#endif
