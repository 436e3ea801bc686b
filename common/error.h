/*
 * error.h - the one error convention of Blockwise.
 *
 * Actions return 0 (BW_OK) or a negative enum bw_code; predicates return bool;
 * constructors return a pointer or NULL. The human-readable detail of a
 * failure travels in an out-parameter `char **cause`: on failure the callee
 * stores a *new* string there (the caller frees it); on success it leaves
 * *cause untouched. `cause` may be NULL when the caller does not want it.
 *
 * Message rules (as git's): start with what failed, lower-case, no trailing
 * period, name the offending value or file, e.g.
 *   "problem.json: tensors[2].dtype: unknown dtype \"fp8\" (expected fp32, ...)"
 *
 * Foreign codes (errno, CUresult, nvrtcResult, SQLite rc, MHD_Result) are
 * translated into these codes in exactly one module each.
 */
#ifndef BW_ERROR_H
#define BW_ERROR_H

#include <stdarg.h>

enum bw_code {
    BW_OK = 0,
    BW_ERR_NOMEM = -1,      /* an allocation failed */
    BW_ERR_INVALID = -2,    /* the input is malformed: a user's, a file's, a peer's */
    BW_ERR_LIMIT = -3,      /* the input is well-formed but over a documented limit */
    BW_ERR_IO = -4,         /* reading or writing a file or pipe failed */
    BW_ERR_NOTFOUND = -5,   /* a named thing does not exist */
    BW_ERR_SYSTEM = -6,     /* a system call failed (errno in the cause) */
    BW_ERR_TIMEOUT = -7,    /* a wall-clock limit passed */
    BW_ERR_CUDA = -8,       /* the CUDA driver reported an error */
    BW_ERR_NVRTC = -9,      /* NVRTC itself failed (not a compile error of the source) */
    BW_ERR_SANDBOX = -10,   /* a sandbox step could not be set up */
    BW_ERR_PROTOCOL = -11,  /* a child or peer broke the message protocol */
    BW_ERR_NODEVICE = -12,  /* no GPU or no driver: execution is impossible here */
    BW_ERR_INTERNAL = -13,  /* a bug in Blockwise: an invariant did not hold */
    BW_ERR_CANCELLED = -14, /* the work was cancelled before it finished */
    BW_ERR_PROFILER = -15,  /* the GPU's profiler (CUPTI) is missing or refused to count */
};

/* A static, lower-case name for a code ("invalid input"); never NULL. */
const char *bw_strerror(int code);

/*
 * Stores a new formatted message in *cause (if cause is not NULL; an earlier
 * message there is freed first) and returns `code`, so that a failing path
 * reads `return bw_fail(cause, BW_ERR_INVALID, "line %d: ...", line);`.
 */
int bw_fail(char **cause, int code, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
int bw_vfail(char **cause, int code, const char *fmt, va_list ap)
    __attribute__((format(printf, 3, 0)));

/*
 * Prefixes an existing *cause with "prefix: " (formatted), keeping `code`.
 * Used when passing an error up a layer that knows more context (a file
 * name, a field path). A NULL cause or *cause is left alone.
 */
int bw_wrap(char **cause, int code, const char *fmt, ...) __attribute__((format(printf, 3, 4)));

#endif
