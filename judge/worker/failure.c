#include "failure.h"

#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/banned.h"

const char *failure_cuda_hint(const char *error)
{
    static const struct {
        const char *name, *hint;
    } hints[] = {
        {"CUDA_ERROR_ILLEGAL_ADDRESS",
         "a thread read or wrote memory outside every buffer: usually an index past "
         "the end (a missing tail check such as `if (i < n)`) or a wrong stride"},
        {"CUDA_ERROR_MISALIGNED_ADDRESS",
         "a vector access (float4, int2, ...) at an address not aligned to its "
         "size: vectorize only from aligned offsets and handle the rest as scalars"},
        {"CUDA_ERROR_ASSERT", "a device-side assert() failed"},
        {"CUDA_ERROR_ILLEGAL_INSTRUCTION",
         "the kernel executed an illegal instruction or __trap()"},
        {"CUDA_ERROR_LAUNCH_FAILED",
         "the kernel stopped with an exception (often __trap() or a bad pointer)"},
        {"CUDA_ERROR_HARDWARE_STACK_ERROR",
         "stack overflow: deep recursion or very large local arrays"},
        {"CUDA_ERROR_INVALID_PC",
         "the kernel jumped to an invalid address (corrupted stack or function pointer)"},
        {"CUDA_ERROR_OUT_OF_RESOURCES",
         "the block needs more registers or shared memory than a multiprocessor "
         "has: use fewer threads per block, __launch_bounds__ or less shared memory"},
        {"CUDA_ERROR_INVALID_VALUE",
         "the launch configuration is invalid for this GPU: block size, grid size or "
         "dynamic shared memory over the device's limits"},
        {"CUDA_ERROR_LAUNCH_OUT_OF_RESOURCES",
         "the block needs more registers than a multiprocessor has for this "
         "many threads: use fewer threads per block or __launch_bounds__"},
    };
    for (size_t i = 0; i < sizeof(hints) / sizeof(hints[0]); i++)
        if (strcmp(error, hints[i].name) == 0)
            return hints[i].hint;
    return NULL;
}

/* An illegal address in a plan with a buffer of more than 2^31 - 1 elements
 * is, far more often than a missing tail check, an index kept in 32 bits: it
 * wraps negative at element 2^31, before the start of the buffer. */
#define PAST_INT32_HINT                                                                            \
    "this case has a buffer of more than 2^31 elements: an element index computed in 32 bits "     \
    "wraps negative there and points before the buffer. Compute indices in 64 bits: in CUDA "      \
    "`(long long)blockIdx.x * blockDim.x + threadIdx.x`, in Triton "                               \
    "`tl.program_id(0).to(tl.int64) * BLOCK + tl.arange(0, BLOCK)`"

static bool has_past_int32_buffer(const struct plan *pl)
{
    for (size_t i = 0; i < pl->n_buffers; i++)
        if (pl->buffers[i].count > INT32_MAX)
            return true;
    return false;
}

/* The hint for CUDA error `error` in a run of plan `pl`. */
static const char *run_error_hint(const struct plan *pl, const char *error)
{
    if (strcmp(error, "CUDA_ERROR_ILLEGAL_ADDRESS") == 0 && has_past_int32_buffer(pl))
        return PAST_INT32_HINT;
    return failure_cuda_hint(error);
}

static char *line(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* A *new* formatted line, or NULL when out of memory. */
static char *line(const char *fmt, ...)
{
    va_list ap;
    char *s = NULL;

    va_start(ap, fmt);
    if (vasprintf(&s, fmt, ap) < 0)
        s = NULL;
    va_end(ap);
    return s;
}

enum verdict failure_verdict(const struct plan *pl, const struct run_failure *f, char **message,
                             json_t **detail)
{
    const char *name =
        (f->buf >= 0 && (size_t)f->buf < pl->n_buffers) ? pl->buffers[f->buf].name : "?";
    const char *kernel = (f->launch >= 0 && (size_t)f->launch < pl->n_launches)
                             ? pl->launches[f->launch].kernel
                             : NULL;

    switch (f->status) {
    case RUN_OK:
        return VERDICT_ACCEPTED;
    case RUN_CUDA_ERROR:
    case RUN_LAUNCH_ERROR:
        *message = line("%s%s%s%s", f->error, kernel ? " in kernel " : "", kernel ? kernel : "",
                        f->status == RUN_LAUNCH_ERROR ? " (the launch was refused)" : "");
        *detail = json_pack("{s:s, s:s, s:s, s:i, s:s?, s:s?}", "kind",
                            f->status == RUN_CUDA_ERROR ? "cuda_error" : "launch_error", "error",
                            f->error, "message", f->message, "launch", f->launch, "kernel", kernel,
                            "hint", run_error_hint(pl, f->error));
        return VERDICT_RUNTIME_ERROR;
    case RUN_GUARD_VIOLATION:
        *message =
            line("wrote %s the %s of %s (byte %lld %s it)", f->after ? "past" : "before",
                 f->after ? "end" : "start", name, (long long)(f->after ? f->offset : -f->offset),
                 f->after ? "after the start of" : "before");
        *detail = json_pack(
            "{s:s, s:s, s:s, s:I, s:s}", "kind", "guard", "buffer", name, "where",
            f->after ? "after" : "before", "offset", (json_int_t)f->offset, "hint",
            "an index past the end of a buffer: check the tail (if (i < n)) of every access");
        return VERDICT_MEMORY_VIOLATION;
    case RUN_INPUT_MODIFIED:
        *message = line("the input %s was changed by the kernel", name);
        *detail = json_pack("{s:s, s:s, s:s}", "kind", "input_modified", "buffer", name, "hint",
                            "inputs are read-only: write only to outputs and @scratch buffers");
        return VERDICT_INPUT_MODIFIED;
    case RUN_ARG_MISMATCH:
        *message = strdup(f->message);
        *detail = json_pack("{s:s, s:s}", "kind", "arg_mismatch", "message", f->message);
        return VERDICT_COMPILE_ERROR;
    case RUN_ERROR:
        break;
    }
    *message = line("the runner failed: %s", f->message);
    return VERDICT_JUDGE_ERROR;
}

#define TIMEOUT_HINT                                                                               \
    "a loop that never ends (check its bounds and exit condition) or far too much work"

enum verdict failure_timeout(int limit_ms, int deadline_ms, char **message, json_t **detail)
{
    *message = line("the plan did not finish within %d ms", limit_ms);
    *detail = json_pack("{s:s, s:i, s:i, s:s}", "kind", "timeout", "limit_ms", limit_ms,
                        "deadline_ms", deadline_ms, "hint", TIMEOUT_HINT);
    return VERDICT_TIME_LIMIT;
}

enum verdict failure_overrun(int limit_ms, double plan_ms, char **message, json_t **detail)
{
    *message = line("the plan took %.0f ms, over its limit of %d ms", plan_ms, limit_ms);
    *detail = json_pack("{s:s, s:i, s:f, s:s}", "kind", "timeout", "limit_ms", limit_ms, "plan_ms",
                        plan_ms, "hint", TIMEOUT_HINT);
    return VERDICT_TIME_LIMIT;
}
