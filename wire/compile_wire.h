/*
 * compile_wire.h - the one codec between judged and its compile children
 * (blockwise-compile for NVRTC, blockwise-triton-compile for Triton): both
 * sides link this file, so they agree by construction.
 *
 * Both directions are one record: a sequence of fields, each "KEY LEN\n"
 * followed by LEN raw bytes and "\n", where KEY is [a-z_]{1,32} and LEN is
 * decimal; the last field is "end 0\n\n". Values may hold any byte.
 *
 * NVRTC's request (parent -> child, SANDBOX_FD_REQUEST): filename, arch,
 * source, option (repeated, in order), cpu_s, mem_bytes.
 * NVRTC's result (child -> parent, SANDBOX_FD_RESULT), either
 *   error_step, error_code, error: a set-up step failed (a judge error), or
 *   nvrtc (the nvrtcResult name), log (capped: compile_log_cap), cubin and
 *   ptx (when it compiled), failure (a compile failure found by the child),
 *   nvrtc_ms.
 * Triton's request and result use the same fields' framing with their own
 * keys (triton_wire.h).
 */
#ifndef BW_COMPILE_WIRE_H
#define BW_COMPILE_WIRE_H

#include <stdbool.h>
#include <stddef.h>

#include "common/buf.h"

/* Compiled for when the request names no architecture (H100/H200). */
#define BW_COMPILE_DEFAULT_ARCH "sm_90a"
/* The source's name in logs and diagnostics when the request names none. */
#define BW_COMPILE_DEFAULT_FILENAME "submission.cu"

/* What judged asks blockwise-compile to compile. */
struct compile_request {
    const char *source; /* borrowed; `len` bytes (a NUL byte in it is a compile error) */
    size_t len;
    const char *filename;       /* shown in the log and diags; NULL: "submission.cu" */
    const char *arch;           /* "sm_90a"; NULL: BW_COMPILE_DEFAULT_ARCH */
    const char *const *options; /* extra NVRTC options, already allowed by the caller */
    size_t n_options;
    int wall_ms;                  /* wall-clock limit; 0: BW_COMPILE_WALL_MS */
    int cpu_s;                    /* CPU time limit; 0: BW_COMPILE_CPU_S */
    unsigned long long mem_bytes; /* address-space limit; 0: BW_COMPILE_MEM_BYTES */
    const char *compiler;         /* blockwise-compile; NULL: $BLOCKWISE_COMPILE, else next to
                                     the running executable */
    bool no_sandbox;              /* diagnosis only: rlimits and wall limit, no isolation */
};

struct compile_field {
    const char *key; /* borrowed from the record; NUL-terminated */
    char *value;     /* borrowed from the record; NUL-terminated (value[len] == 0) */
    size_t len;
};

int compile_wire_put(struct buf *b, const char *key, const void *value, size_t len);
int compile_wire_puts(struct buf *b, const char *key, const char *value);
int compile_wire_end(struct buf *b);
/*
 * A child's set-up failure, as its whole result record (error_step,
 * error_code, error, end) on fd, and on stderr prefixed with `tool`; then
 * _exit(3). The parent reports it as a judge error naming the step.
 */
_Noreturn void compile_wire_fail_setup(int fd, const char *tool, const char *step, int code,
                                       const char *cause);

/* Writes one field straight to fd (a large cubin is not copied first); BW_ERR_IO on failure. */
int compile_wire_write(int fd, const char *key, const void *value, size_t len);

/*
 * Reads the next field of a record in place (it overwrites the separators
 * with NULs, so keys and values become C strings). *pos is the offset of the
 * next field. Returns 1 and fills *f for a field, 0 at "end", or
 * BW_ERR_PROTOCOL (with the cause) for a malformed or truncated record.
 */
int compile_wire_next(char *data, size_t len, size_t *pos, struct compile_field *f, char **cause);

/*
 * For a record read as it arrives: is the field at `pos` whole within `len`
 * bytes? 1 when compile_wire_next() can take it, 0 when more bytes are
 * needed, -1 when what is there cannot begin a field (compile_wire_next()
 * then says why). Reads only; writes nothing.
 */
int compile_wire_complete(const char *data, size_t len, size_t pos);

/* A request as blockwise-compile received it. */
struct compile_job {
    struct compile_request rq; /* strings point into `data` */
    char *data;                /* owned: the record */
    const char **options;      /* owned array; strings in `data` */
};

/* Decodes a request record, stealing `data` (malloc'd, `len` bytes); release the job
 * whatever the result. */
int compile_job_decode(struct compile_job *job, char *data, size_t len, char **cause);
void compile_job_release(struct compile_job *job);

/* Encodes a request record (what compile_run sends). */
int compile_request_encode(const struct compile_request *rq, struct buf *out, char **cause);

/* A source's file name a compile request may carry: 1..BW_MAX_NAME of
 * [A-Za-z0-9_.-], not starting with '.' or '-' (it names a file in the
 * child's work directory, appears in every diagnostic, and must not read as
 * an option; driver.py checks Triton's the same way). */
bool compile_wire_filename_valid(const char *name);

/*
 * Caps a log of `len` bytes for keeping and showing: a log of at most `cap`
 * bytes is copied whole; a longer one keeps the front end's part (before the
 * first line starting with "ptxas") cut to `cap` bytes at a line end, a line
 * "[... N bytes of the log cut ...]", and ptxas' part, itself cut to `cap`
 * bytes, so resource usage survives a flood of warnings. Appends to out.
 */
int compile_log_cap(const char *log, size_t len, size_t cap, struct buf *out);

#endif
