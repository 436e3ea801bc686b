/*
 * triton_compile.h - compiling a Triton submission's kernels ahead of time, in a sandboxed child.
 *
 * The judge's one way to run Triton's compiler, the twin of compile.h (NVRTC).
 * Compiling Triton executes the learner's Python (importing the module runs
 * its top level; @triton.constexpr_function runs at compile time), so the
 * compiler is a submission process like the runner: triton_compiler_start()
 * spawns `blockwise-triton-compile` (judge/triton/triton_compile_main.c), which
 * locks itself down (docs/sandbox.md, "The Triton compile sandbox": every
 * namespace, a read-only root holding only the Python + Triton installation,
 * a private tmpfs for TMPDIR, HOME and TRITON_CACHE_DIR, an environment of
 * those three only, rlimits, a seccomp allowlist) and execs Python on the
 * trusted driver (judge/triton/driver.py, embedded in that binary). The
 * driver imports triton (about 0.9 s on the H200 machine) and waits for ONE
 * request; triton_compiler_compile() sends it: the source and, per kernel
 * variant, the kernel's name, its positional arguments typed as
 * kernel[grid](...) would type them, its constexpr values, num_warps,
 * num_stages and maxnreg (when given). The driver checks the binding against
 * the kernel's signature, specialises as Triton's JIT does (tt.divisibility=16,
 * integers equal to 1 folded), runs triton.compile(ASTSource(fn, signature,
 * constexprs, attrs), target=GPUTarget("cuda", CC, 32), options={num_warps,
 * num_stages[, maxnreg]}) -- no other option; a @gluon.jit kernel's source is
 * Gluon's GluonASTSource, the same otherwise -- and answers cubins, PTX and
 * metadata, or diagnostics at the learner's lines.
 *
 * Pre-starting (the shape of the API): importing triton is most of a Triton
 * compile's latency, so a pool keeps a started compiler ahead of need and
 * hands it to one compile, once, as runner_pool.h does with runners. A
 * started compiler gets SIGKILL when the *thread* that started it exits
 * (PDEATHSIG, spawn.h): start it from a thread that outlives it.
 * triton_compile_run() is start + compile for simple callers.
 *
 * Trust: once the driver has accepted the request, the child runs the
 * learner's code, which may write anything to the result pipe. So everything
 * after "accepted" is checked as untrusted input (sizes, parameter indices,
 * entry names, ELF images, scratch sizes), and every failure from then on (a
 * crash, a limit, a malformed or forged answer) is the submission's own
 * Compile Error, never a judge error: a learner cannot make the judge report
 * itself broken. Judge errors come only from before (set-up, import triton).
 *
 * The installation: the root of the sandbox is the list of paths that
 * triton_probe()'s discovery found, once per Python per process (restart
 * judged after upgrading Triton): blockwise-triton-compile --probe runs
 * Python unsandboxed on trusted code only (import triton, compile one small
 * kernel) and lists the interpreter, pyvenv.cfg, sys.path's directories, the
 * triton package, every file the process mapped, the dynamic loader and the
 * libraries `ld.so --list` names for the mapped objects and for Triton's
 * bundled tools (ptxas), and /etc/ld.so.cache. Those paths are bound
 * read-only (and executable) at the same place in the root.
 *
 * The shape, against the first sketch of this API: the start takes its own
 * struct triton_options (which Python, which binary, the limits) because a
 * pre-started child exists before any request; triton_request keeps those
 * fields for triton_compile_run(). triton_compiler_wait_ready() lets a pool
 * tell a ready spare from a broken one before a learner waits on it. A build
 * carries param_types as well as params: a kernel's annotation (n: tl.int64)
 * changes the type the cubin takes, as in Triton's own launcher, and the
 * runner must pack what the cubin takes. driver_ms separates Triton's time
 * from the child's start.
 */
#ifndef BW_TRITON_COMPILE_H
#define BW_TRITON_COMPILE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "common/buf.h"
#include "plan/directive.h"
#include "wire/compile_wire.h"
#include "plan/triton_variant.h"

/* The environment variable naming blockwise-triton-compile (the Python: python.h). */
#define BW_TRITON_COMPILE_ENV      "BLOCKWISE_TRITON_COMPILE"
#define BW_TRITON_DEFAULT_FILENAME "submission.py"

/* A kernel variant's arguments (struct triton_arg) and constexpr values
 * (struct triton_constexpr) are the launch language's: plan/triton_variant.h. */

/* One kernel variant to build. */
struct triton_kernel_request {
    const char *kernel; /* the top-level @triton.jit function */
    const struct triton_arg *args;
    size_t n_args; /* at most BW_MAX_LAUNCH_ARGS */
    const struct triton_constexpr *constexprs;
    size_t n_constexprs; /* at most BW_MAX_LAUNCH_ARGS */
    int num_warps;       /* 1, 2, 4, 8, 16 or 32 */
    int num_stages;      /* 1 to 16 */
    int maxnreg;         /* registers per thread: 0 (no cap, Triton's default) or
                            BW_TRITON_MAXNREG_MIN to BW_TRITON_MAXNREG_MAX */
    int line;            /* the @launch line: errors about the binding go there (0: none) */
};

/* How a compiler child is started (the part of a request known before the source). */
struct triton_options {
    const char *python;           /* NULL: $BLOCKWISE_PYTHON, else python3 found on PATH */
    const char *compiler;         /* blockwise-triton-compile; NULL: $BLOCKWISE_TRITON_COMPILE,
                                     else beside the running executable */
    bool no_sandbox;              /* diagnosis only: rlimits and wall limit, no isolation */
    int cpu_s;                    /* RLIMIT_CPU; 0: BW_TRITON_CPU_S */
    unsigned long long mem_bytes; /* RLIMIT_AS; 0: BW_TRITON_MEM_BYTES */
};

struct triton_request {
    const char *source; /* borrowed; `len` bytes (UTF-8 Python; a NUL byte is a diag) */
    size_t len;
    const char *filename;   /* shown in diags and tracebacks; NULL: "submission.py" */
    int cc_major, cc_minor; /* GPUTarget("cuda", 10*major+minor, 32); 0/0: 9.0 (H100/H200) */
    const struct triton_kernel_request *kernels; /* borrowed; 1 to BW_TRITON_MAX_KERNELS */
    size_t n_kernels;
    int wall_ms; /* wall-clock limit of the compile; 0: BW_TRITON_WALL_MS */
    int jobs;    /* processes compiling the variants at once, at most (the driver also stops
                    at its CPUs and the variants): 1 to BW_TRITON_JOBS; 0: BW_TRITON_JOBS */
    /* used by triton_compile_run() only, to start its compiler (triton_options) */
    bool no_sandbox;
    const char *python;
    const char *compiler;
    int cpu_s;
    unsigned long long mem_bytes;
};

/* One build, per request kernel, in order. */
struct triton_build {
    bool ok;
    void *cubin; /* owned; an ELF image of cubin_len bytes (and a NUL byte after them) */
    size_t cubin_len;
    char *ptx;     /* owned */
    char *name;    /* owned; the entry symbol in the cubin */
    int num_warps; /* 1 to 32; block = 32 * num_warps threads. A warp-specialised kernel's
                      is every partition's warps (e.g. 12): not the request's, nor a power of 2 */
    int num_ctas;  /* always 1 (the judge never asks for clusters) */
    int shared;    /* dynamic shared memory bytes to launch with (opt in above 48 KiB) */
    uint64_t global_scratch_size; /* per program; the launch needs grid_x*grid_y*grid_z*size
                                     bytes at global_scratch_align, or NULL when 0 */
    uint64_t global_scratch_align;
    uint64_t profile_scratch_size; /* 0: pass NULL as the last pointer */
    int *params;        /* owned; request arg indices the cubin takes, in order (then the two
                           trailing scratch pointers) */
    char **param_types; /* owned; each kept argument's Triton type as the cubin takes it: the
                           request's, unless the kernel's annotation (n: tl.int64) overrides it */
    size_t n_params;
};

struct triton_result {
    bool ok;                     /* every build is ok */
    struct triton_build *builds; /* owned; n_builds == the request's n_kernels */
    size_t n_builds;
    struct diag_list diags; /* each msg starts with "error: ", "warning: " or "remark: ";
                               lines and columns (1-based) of the learner's file; binding
                               errors at the @launch line; 0/0 for the whole file */
    char *log;            /* owned; the compiler's stdout and stderr (the learner's prints, Triton's
                             warnings), capped at BW_TRITON_OUTPUT_BYTES; never NULL after a
                             compile that returned BW_OK */
    char *failure;        /* owned; NULL, or why the compile could not finish: a limit (time, CPU,
                             memory), a crash, a forbidden system call, a malformed answer */
    double ms;            /* wall time of the compile call (and of the start, for _run) */
    double driver_ms;     /* of the compiles inside the child, as the driver measured them */
    double cpu_ms;        /* CPU time of the child and its processes from their start (the
                             warm-up before the request included), as the reap counts it */
    char *triton_version; /* owned; NULL when the child never said */
};

/* A started compiler: an opaque handle, used for one compile. */
struct triton_compiler;

/*
 * Starts a compiler (*out, *new*; free it with triton_compiler_free) and
 * returns at once: the child locks itself down and imports triton while the
 * caller does other work. The first start for a Python runs the discovery
 * (triton_probe's), about as long as one compile, and keeps its answer.
 * Returns BW_ERR_NOTFOUND when there is no usable Python, Triton or
 * blockwise-triton-compile (with the reason), BW_ERR_SYSTEM when spawning failed.
 */
int triton_compiler_start(const struct triton_options *o, struct triton_compiler **out,
                          char **cause);

/*
 * Waits until the compiler has imported Triton and awaits its request:
 * BW_OK, BW_ERR_TIMEOUT (still importing), or the judge error that ended it
 * (BW_ERR_SANDBOX "Triton compile sandbox unavailable: STEP: ..."). A pool
 * calls it before offering a compiler; compile does not need it.
 */
int triton_compiler_wait_ready(struct triton_compiler *c, int timeout_ms, char **cause);

/*
 * Compiles with a started compiler and fills *out (released with
 * triton_result_release whatever the return); the compiler is spent after
 * it. Returns BW_OK when the compile ended, well or not because of the
 * submission (ok=false with diags or failure: see "Trust" above). A negative
 * code only when the judge failed: the request is malformed (BW_ERR_INVALID:
 * a bad type, name, num_warps, architecture; BW_ERR_LIMIT), the compiler was
 * used already, or the child failed before it accepted the request
 * (BW_ERR_SANDBOX, BW_ERR_NOTFOUND, BW_ERR_TIMEOUT, BW_ERR_PROTOCOL).
 */
int triton_compiler_compile(struct triton_compiler *c, const struct triton_request *rq,
                            struct triton_result *out, char **cause);

/*
 * Streaming: the compile's builds given out one by one as the child answers
 * each (the driver sends a build as soon as it exists, in the request's
 * order as far as its processes allow), so that a caller can test with the
 * first while the others compile.
 */
typedef void (*triton_build_fn)(void *arg, size_t i);

struct triton_stream {
    triton_build_fn on_build; /* called once per request kernel i, on the compiling thread,
                                 when build i is final: out->builds[i].ok says whether it
                                 built; never changed or freed after, until the result is
                                 released. Every build is given out by the time the
                                 compile returns BW_OK (unbuilt ones, as not ok). */
    void *arg;
    int cancel_fd; /* -1, or an fd that another thread makes readable (a pipe's read end) to
                      stop the compile: the child is killed, the builds not given out yet
                      are not built, and result.failure says it was stopped */
};

/* triton_compiler_compile, with its builds given out as they come (st NULL: none). */
int triton_compiler_compile_stream(struct triton_compiler *c, const struct triton_request *rq,
                                   const struct triton_stream *st, struct triton_result *out,
                                   char **cause);

/* A started compiler not used yet whose child still runs (a pool's check before lending it). */
bool triton_compiler_alive(const struct triton_compiler *c);

/* The started child's pid (the sandbox's middle process; Python runs below it), or -1. */
long triton_compiler_pid(const struct triton_compiler *c);

/* Kills the child if it still runs and frees the handle. NULL: no-op. */
void triton_compiler_free(struct triton_compiler *c);

/*
 * An answer with fields of the caller's own (a launcher's: triton_launcher.h), read by the
 * caller's hook as they come; the compile's own fields (build ... built, failed, cached, diag,
 * failure, driver_ms) are read as for any request. The request's kernels may be named late:
 * the hook says them once it knows them, and the builds after that are theirs.
 */
struct triton_field_verdict {
    bool taken;                           /* the field is the caller's (else: unknown, malformed) */
    const char *bad;                      /* it is malformed: why (static text) */
    const struct triton_request *kernels; /* the request's kernels are known now (borrowed for
                                             the rest of the answer): the builds are theirs */
    const char *halt; /* the caller needs no more: the compile is stopped, this its failure
                         (static, or the caller's until the exchange returns) */
};

struct triton_fields {
    /* One field after "accepted" that is not the compile's own: *v zeroed before the call.
     * Negative: out of memory (a judge error). */
    int (*field)(void *arg, const struct compile_field *f, struct triton_field_verdict *v);
    void *arg;
};

/*
 * A request the caller encoded itself (a launcher request) through a started compiler:
 * refuses a source over the limits or holding a NUL byte as triton_compiler_compile does
 * (out->diags), sends `request`, reads the answer as it grows with `own` (NULL: none) and
 * gives out each build through `st` (NULL: none; its cancel_fd stops the compile), then treats
 * a child that died after accepting, the log and out->ok as triton_compiler_compile does.
 * Returns what it would. A build named "cached" is not built here (the caller holds it).
 */
int triton_compiler_exchange(struct triton_compiler *c, const struct buf *request,
                             const char *source, size_t len, int wall_ms,
                             const struct triton_fields *own, const struct triton_stream *st,
                             struct triton_result *out, char **cause);

/* triton_result_decode for a whole answer with fields of the caller's own (`own`, above), whose
 * kernels are said by its hook. */
int triton_result_decode_with(char *data, size_t len, const struct triton_fields *own,
                              struct triton_result *out, bool *accepted, bool *complete,
                              char **cause);

/* triton_compiler_start (with the request's python, compiler, no_sandbox, limits) + compile. */
int triton_compile_run(const struct triton_request *rq, struct triton_result *out, char **cause);

void triton_result_release(struct triton_result *r);

/* A deep copy of src into *dst (the build cache's); false, with *dst empty, when out of memory. */
bool triton_result_copy(struct triton_result *dst, const struct triton_result *src);
bool triton_build_copy(struct triton_build *dst, const struct triton_build *src);

/* Frees what a build holds (zeroed after). */
void triton_build_release(struct triton_build *b);

/* A deep copy of one build (*dst zeroed first); false, with *dst empty, when out of memory. */
bool triton_build_copy(struct triton_build *dst, const struct triton_build *src);

/*
 * Is Triton usable here? Runs (once per Python per process; later calls
 * answer from memory) the discovery: BW_OK with Triton's version (*version,
 * *new*, may be NULL), or BW_ERR_NOTFOUND with why not: no Python, no
 * triton module, an import that fails, a Triton too old, no
 * blockwise-triton-compile, a probe compile that fails. A machine without
 * Triton must build, serve and answer a Triton job clearly with that reason.
 * `python` NULL: $BLOCKWISE_PYTHON, else python3 found on PATH.
 */
int triton_probe(const char *python, char **version, char **cause);

/* ---- pure parts (tested without Python) ------------------------------------------------- */

/* True for the argument types the judge may send: "*" + a dtype ("fp32", "fp16", "bf16",
 * "fp64", "fp8e4nv", "fp8e5", "i1", "i8".."i64", "u8".."u64") or a scalar of those. */
bool triton_arg_type_valid(const char *type);

/*
 * Checks a request (the same checks triton_compiler_compile makes) and
 * encodes it as the driver's request record (the wire format of compile.h):
 * filename, source, cc, jobs (the request's, else BW_TRITON_JOBS: the driver
 * compiles the variants in that many forked processes at most, as many as
 * it has CPUs),
 * then per kernel: kernel, line, num_warps,
 * num_stages, maxnreg (only when nonzero), arg "TYPE FLAGS" (FLAGS "D"
 * div16, "1" equal1, "-" none),
 * constexpr "NAME=VALUE". BW_ERR_INVALID or BW_ERR_LIMIT with the cause.
 */
int triton_request_encode(const struct triton_request *rq, struct buf *out, char **cause);

/*
 * Reads the driver's result record into *out for a request of n_kernels
 * kernels (n_args[i] arguments each). Fields: ready VERSION; error_step,
 * error_code, error (a judge-side failure before accepted); accepted; per
 * build: build I, name, cubin, ptx, num_warps, num_ctas, shared,
 * global_scratch_size, global_scratch_align, profile_scratch_size, params
 * "0,1,3", types "*fp32,*fp32,i32", ptx_params N, then built I (the build
 * is whole: streaming gives it out now); failed I; cached I (not built here: a
 * launcher's caller holds it, triton_launcher.h); diag
 * "LINE:COL:MSG"; failure TEXT; driver_ms; end. A build is kept only when it
 * is whole and sound (an ELF cubin of at most BW_MAX_CUBIN_BYTES naming its
 * entry, indices strictly increasing below n_args dropping only equal1
 * arguments, one type each, a PTX entry of n_params + 2 parameters, num_ctas
 * 1, bounded sizes); a build that is not is the submission's failure.
 * Returns BW_OK with *accepted saying whether the child got that far
 * (everything after is the submission's: malformed records become
 * out->failure) and *complete whether the record ended ("end"), or the judge
 * error the child reported before it was accepted (BW_ERR_PROTOCOL for a
 * malformed record then).
 */
int triton_result_decode(char *data, size_t len, const struct triton_request *rq,
                         struct triton_result *out, bool *accepted, bool *complete, char **cause);

#endif
