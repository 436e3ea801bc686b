#include "error.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "banned.h"

const char *bw_strerror(int code)
{
    switch (code) {
    case BW_OK:
        return "success";
    case BW_ERR_NOMEM:
        return "out of memory";
    case BW_ERR_INVALID:
        return "invalid input";
    case BW_ERR_LIMIT:
        return "over a limit";
    case BW_ERR_IO:
        return "input/output error";
    case BW_ERR_NOTFOUND:
        return "not found";
    case BW_ERR_SYSTEM:
        return "system call failed";
    case BW_ERR_TIMEOUT:
        return "timed out";
    case BW_ERR_CUDA:
        return "CUDA driver error";
    case BW_ERR_NVRTC:
        return "NVRTC error";
    case BW_ERR_SANDBOX:
        return "sandbox set-up failed";
    case BW_ERR_PROTOCOL:
        return "protocol error";
    case BW_ERR_NODEVICE:
        return "no GPU available";
    case BW_ERR_INTERNAL:
        return "internal error";
    case BW_ERR_CANCELLED:
        return "cancelled";
    case BW_ERR_PROFILER:
        return "profiler unavailable";
    }
    return "unknown error";
}

int bw_vfail(char **cause, int code, const char *fmt, va_list ap)
{
    if (!cause)
        return code;
    free(*cause);
    *cause = NULL;
    if (vasprintf(cause, fmt, ap) < 0)
        *cause = NULL;
    return code;
}

int bw_fail(char **cause, int code, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    bw_vfail(cause, code, fmt, ap);
    va_end(ap);
    return code;
}

int bw_wrap(char **cause, int code, const char *fmt, ...)
{
    char *prefix = NULL, *joined = NULL;
    va_list ap;

    if (!cause || !*cause)
        return code;
    va_start(ap, fmt);
    if (vasprintf(&prefix, fmt, ap) < 0)
        prefix = NULL;
    va_end(ap);
    if (prefix && asprintf(&joined, "%s: %s", prefix, *cause) >= 0) {
        free(*cause);
        *cause = joined;
    }
    free(prefix);
    return code;
}
