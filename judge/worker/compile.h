/*
 * compile.h - compiling an untrusted CUDA source to a cubin with NVRTC, in a sandboxed child.
 *
 * compile_run() is the judge's one way to compile a learner's source: it
 * starts `blockwise-compile` (judge/compile/compile_main.c), which locks itself down
 * (docs/sandbox.md: namespaces, a root holding only the CUDA headers, rlimits,
 * seccomp) and runs NVRTC; the parent enforces a wall-clock limit, reads back
 * the cubin and the log, and turns the log into located diagnostics and
 * per-kernel resource usage. NVRTC is never called in the judge's own process.
 *
 * The record both sides exchange is wire/compile_wire.h's; the log parsers
 * here are pure (testable without NVRTC).
 */
#ifndef BW_COMPILE_H
#define BW_COMPILE_H

#include <stdbool.h>
#include <stddef.h>

#include "common/buf.h"
#include "common/diag.h"
#include "wire/compile_wire.h"

/* The environment variable naming blockwise-compile (tests, odd installs). */
#define BW_COMPILE_ENV "BLOCKWISE_COMPILE"

/* ptxas' resource report for one entry function (from -Xptxas -v). */
struct kernel_usage {
    char *name; /* owned; the lowered (mangled unless extern "C") name */
    int registers;
    int barriers;
    long smem_bytes;  /* static shared memory */
    long stack_bytes; /* stack frame */
    long spill_store_bytes;
    long spill_load_bytes;
    long cmem0_bytes; /* constant bank 0 (kernel parameters) */
};

struct compile_result {
    bool ok;     /* a cubin was produced */
    void *cubin; /* owned; an ELF image of cubin_len bytes; NULL unless ok */
    size_t cubin_len;
    char *ptx;              /* owned; the PTX NVRTC produced (kernel signatures); NULL unless ok */
    char *log;              /* owned; NVRTC's log, capped (see compile_log_cap); never NULL
                               after compile_run returned 0 */
    struct diag_list diags; /* from the log; each msg starts with its severity: "error: ",
                               "warning: " or "remark: "; line/column are 1-based in the
                               source (bytes), 0 for other files and ptxas */
    struct kernel_usage *kernels; /* owned; one per entry function, in ptxas' order */
    size_t n_kernels;
    double ms;       /* wall time of the whole compile, child start to reap */
    double nvrtc_ms; /* of nvrtcCompileProgram alone, as the child measured it */
    bool from_cache; /* a copy of an earlier identical compile (build_cache.h) */
    char *failure;   /* owned; NULL, or why the compile could not finish: "compilation
                        exceeded the time limit of 30 s", the memory or CPU limit, "the
                        compiler crashed (SIGSEGV)", a cubin over its limit */
};

/*
 * Compiles rq->source in a sandboxed blockwise-compile and fills *out (which
 * the caller releases with compile_result_release, whatever the return).
 * Returns BW_OK when the compile ended, successfully or not because of the
 * source: errors in it (ok=false, diags), an over-limit or NUL-containing
 * source (a diag), a time, CPU or memory limit or an NVRTC crash (ok=false,
 * failure). Returns a negative code only when the judge failed: the child
 * could not be started (BW_ERR_NOTFOUND, BW_ERR_SYSTEM), the sandbox could
 * not be set up (BW_ERR_SANDBOX: "compile sandbox unavailable: ..."), NVRTC
 * could not start (BW_ERR_NVRTC), the child broke the protocol
 * (BW_ERR_PROTOCOL), or the request itself is malformed (BW_ERR_INVALID: a
 * malformed arch or one NVRTC refuses, an option reserved for the judge).
 */
int compile_run(const struct compile_request *rq, struct compile_result *out, char **cause);
void compile_result_release(struct compile_result *r);

/* True if the diagnostic is an error (not a warning or remark). */
bool compile_diag_is_error(const struct diag *d);

/*
 * Checks one extra option against what the judge reserves for itself: the
 * architecture, include paths and pre-includes, output kinds other than a
 * loadable cubin, and options that write files. Returns BW_OK or
 * BW_ERR_INVALID with the cause. (Which options a learner may use at all is
 * the @flags allowlist of directive.h; this is the sandbox's own guard.)
 */
int compile_option_check(const char *option, char **cause);

/* ---- log parsing (pure) ------------------------------------------------------ */

/*
 * Appends the diagnostics of an NVRTC log to *out: front-end lines
 * "FILE(LINE): error|warning|remark|catastrophic error[ #N-D]: MSG" (with a
 * column from the caret line under the echoed source line, when present),
 * "ptxas error|warning|fatal : MSG" and "nvrtc: error|warning: MSG". Lines of
 * `filename` get their line and column; those of other files (headers) get
 * 0/0 and the file and line in the message. Returns BW_OK or BW_ERR_NOMEM.
 */
int compile_log_diags(const char *log, const char *filename, struct diag_list *out);

/*
 * Parses ptxas' -v report of entry functions ("Compiling entry function 'K'",
 * "Function properties for K", "N bytes stack frame, N bytes spill stores,
 * N bytes spill loads", "Used N registers, used N barriers, N bytes smem,
 * N bytes cmem[0]") into a *new* array (*out, *n; NULL/0 when there is none).
 * Non-entry functions are skipped. Returns BW_OK or BW_ERR_NOMEM.
 */
int compile_log_usage(const char *log, struct kernel_usage **out, size_t *n);
void compile_usage_free(struct kernel_usage *k, size_t n);

#endif
