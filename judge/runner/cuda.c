#include "cuda.h"

#include <dlfcn.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/error.h"
#include "common/banned.h"

struct cuda_driver cu;

static void *libcuda;
static bool cuda_is_open;

/* cuGetProcAddress_v2 itself, found by dlsym: it is how every other entry
 * point is found at the API version the headers describe. */
typedef CUresult (*get_proc_fn)(const char *symbol, void **pfn, int cuda_version, cuuint64_t flags,
                                CUdriverProcAddressQueryResult *status);

/* One entry point to resolve: its base name and where its pointer goes. */
struct cuda_symbol {
    const char *name;
    void **slot;
};

static const struct cuda_symbol cuda_symbols[] = {
#define CUDA_SYMBOL(fn) {#fn, (void **)&cu.fn},
    CUDA_DRIVER_FUNCTIONS(CUDA_SYMBOL)
#undef CUDA_SYMBOL
};

/* cuInit results that mean "no usable GPU here" rather than a failure to
 * look into: a machine (or container) without a GPU, or with a driver that
 * does not fit. Anything else - CUDA_ERROR_OPERATING_SYSTEM from a sandbox
 * that refuses the driver something, say - is an error to report. */
static bool cuda_means_no_device(CUresult rc)
{
    switch (rc) {
    case CUDA_ERROR_NO_DEVICE:
    case CUDA_ERROR_SYSTEM_DRIVER_MISMATCH:
    case CUDA_ERROR_COMPAT_NOT_SUPPORTED_ON_DEVICE:
    case CUDA_ERROR_DEVICE_UNAVAILABLE:
    case CUDA_ERROR_DEVICE_NOT_LICENSED:
        return true;
    default:
        return false;
    }
}

int cuda_open(char **cause)
{
    get_proc_fn get_proc;
    CUresult rc;

    if (cuda_is_open)
        return BW_OK;
    if (!libcuda) {
        libcuda = dlopen("libcuda.so.1", RTLD_NOW | RTLD_LOCAL);
        if (!libcuda) {
            const char *why = dlerror();
            return bw_fail(cause, BW_ERR_NODEVICE, "cannot load the CUDA driver: %s",
                           why ? why : "libcuda.so.1: unknown dlopen error");
        }
    }
    get_proc = (get_proc_fn)dlsym(libcuda, "cuGetProcAddress_v2");
    if (!get_proc)
        return bw_fail(cause, BW_ERR_NODEVICE,
                       "the CUDA driver is too old: libcuda.so.1 has no cuGetProcAddress_v2 "
                       "(a CUDA 12.4 or newer driver is needed)");
    for (size_t i = 0; i < sizeof(cuda_symbols) / sizeof(cuda_symbols[0]); i++) {
        CUdriverProcAddressQueryResult status = CU_GET_PROC_ADDRESS_SYMBOL_NOT_FOUND;
        void *fn = NULL;

        rc =
            get_proc(cuda_symbols[i].name, &fn, CUDA_VERSION, CU_GET_PROC_ADDRESS_DEFAULT, &status);
        if (rc != CUDA_SUCCESS || status != CU_GET_PROC_ADDRESS_SUCCESS || !fn) {
            memset(&cu, 0, sizeof(cu));
            return bw_fail(cause, BW_ERR_NODEVICE,
                           "the CUDA driver has no %s for API version %d.%d (status %d, result "
                           "%d): the driver is too old",
                           cuda_symbols[i].name, CUDA_VERSION / 1000, CUDA_VERSION % 1000 / 10,
                           (int)status, (int)rc);
        }
        *cuda_symbols[i].slot = fn;
    }
    rc = cu.cuInit(0);
    if (rc != CUDA_SUCCESS) {
        cuda_fail(cause, rc, "cuInit");
        return cuda_means_no_device(rc) ? BW_ERR_NODEVICE : BW_ERR_CUDA;
    }
    cuda_is_open = true;
    return BW_OK;
}

const char *cuda_error_name(CUresult rc)
{
    const char *s = NULL;

    if (cu.cuGetErrorName && cu.cuGetErrorName(rc, &s) == CUDA_SUCCESS && s)
        return s;
    return "CUDA_ERROR_UNRECOGNIZED";
}

const char *cuda_error_string(CUresult rc)
{
    const char *s = NULL;

    if (cu.cuGetErrorString && cu.cuGetErrorString(rc, &s) == CUDA_SUCCESS && s)
        return s;
    return "an error the driver does not describe";
}

int cuda_fail(char **cause, CUresult rc, const char *fmt, ...)
{
    char *what = NULL;
    va_list ap;

    if (!cause)
        return BW_ERR_CUDA;
    va_start(ap, fmt);
    if (vasprintf(&what, fmt, ap) < 0)
        what = NULL;
    va_end(ap);
    bw_fail(cause, BW_ERR_CUDA, "%s: %s (%d): %s", what ? what : "CUDA", cuda_error_name(rc),
            (int)rc, cuda_error_string(rc));
    free(what);
    return BW_ERR_CUDA;
}

bool cuda_error_is_sticky(CUresult rc)
{
    switch (rc) {
    case CUDA_ERROR_ILLEGAL_ADDRESS:
    case CUDA_ERROR_HARDWARE_STACK_ERROR:
    case CUDA_ERROR_ILLEGAL_INSTRUCTION:
    case CUDA_ERROR_MISALIGNED_ADDRESS:
    case CUDA_ERROR_INVALID_ADDRESS_SPACE:
    case CUDA_ERROR_INVALID_PC:
    case CUDA_ERROR_LAUNCH_FAILED:
    case CUDA_ERROR_LAUNCH_TIMEOUT:
    case CUDA_ERROR_ASSERT:
    case CUDA_ERROR_ECC_UNCORRECTABLE:
    case CUDA_ERROR_CONTEXT_IS_DESTROYED:
    case CUDA_ERROR_EXTERNAL_DEVICE:
    case CUDA_ERROR_UNKNOWN:
        return true;
    default:
        return false;
    }
}

void cuda_format_uuid(const CUuuid *uuid, char *out)
{
    const unsigned char *b = (const unsigned char *)uuid->bytes;
    snprintf(out, CUDA_UUID_CHARS,
             "GPU-%02x%02x%02x%02x-%02x%02x-%02x%02x-%02x%02x-%02x%02x%02x%02x%02x%02x", b[0], b[1],
             b[2], b[3], b[4], b[5], b[6], b[7], b[8], b[9], b[10], b[11], b[12], b[13], b[14],
             b[15]);
}

/* --- NVML, optional --------------------------------------------------------------- */

/* The few NVML declarations used (nvml.h is not on every build machine). */
typedef int nvml_return;
typedef struct nvml_device *nvml_device;
#define NVML_SUCCESS  0
#define NVML_CLOCK_SM 1

static struct {
    void *lib;
    nvml_device dev;
    nvml_return (*get_clock)(nvml_device dev, int type, unsigned int *mhz);
} nvml;

bool cuda_nvml_open(const char *uuid)
{
    nvml_return (*init)(void);
    nvml_return (*by_uuid)(const char *uuid, nvml_device *dev);

    if (nvml.get_clock)
        return true;
    nvml.lib = dlopen("libnvidia-ml.so.1", RTLD_NOW | RTLD_LOCAL);
    if (!nvml.lib)
        return false;
    init = (nvml_return(*)(void))dlsym(nvml.lib, "nvmlInit_v2");
    by_uuid =
        (nvml_return(*)(const char *, nvml_device *))dlsym(nvml.lib, "nvmlDeviceGetHandleByUUID");
    nvml.get_clock =
        (nvml_return(*)(nvml_device, int, unsigned int *))dlsym(nvml.lib, "nvmlDeviceGetClockInfo");
    if (!init || !by_uuid || !nvml.get_clock || init() != NVML_SUCCESS ||
        by_uuid(uuid, &nvml.dev) != NVML_SUCCESS) {
        nvml.get_clock = NULL;
        return false;
    }
    return true;
}

unsigned cuda_nvml_sm_clock_mhz(void)
{
    unsigned int mhz = 0;

    if (!nvml.get_clock || nvml.get_clock(nvml.dev, NVML_CLOCK_SM, &mhz) != NVML_SUCCESS)
        return 0;
    return mhz;
}
