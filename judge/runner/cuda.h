/*
 * cuda.h - the CUDA driver API, opened at run time, and the one place where
 * CUresult becomes a Blockwise code and message.
 *
 * Nothing links libcuda: cuda_open() dlopen()s libcuda.so.1, resolves every
 * entry point below through cuGetProcAddress_v2 at the API version of the
 * headers we compile against (CUDA_VERSION), so each pointer has exactly the
 * prototype cuda.h declares, and calls cuInit. Where there is no driver, no
 * GPU, or a driver too old for an entry point, it fails with BW_ERR_NODEVICE
 * and a message that says which, so binaries start and explain themselves on
 * machines without a GPU. Only the runner (blockwise-runner) calls it.
 *
 * After cuda_open() succeeds, call the driver through the table `cu`:
 *     rc = cu.cuMemAlloc(&ptr, bytes);
 * cuda.h's own macros (cuMemAlloc -> cuMemAlloc_v2) apply to the member names
 * as to the prototypes, so the versions always match.
 *
 * NVML (libnvidia-ml.so.1) is optional and used only to read the current SM
 * clock; its absence is not an error.
 */
#ifndef BW_CUDA_H
#define BW_CUDA_H

#include <cuda.h>
#include <stdbool.h>

/*
 * Every driver entry point Blockwise uses, each resolved by cuGetProcAddress
 * at the headers' CUDA_VERSION. Beware of entry points whose newest version
 * changed its parameters without cuda.h mapping the plain name to it:
 * cuCtxSynchronize at 13000 resolves to cuCtxSynchronize_v2(CUcontext), so a
 * call through the void prototype passes garbage and fails with
 * CUDA_ERROR_CONTEXT_IS_DESTROYED (seen on the H200, driver 580). It is left
 * out: cuStreamSynchronize(NULL) does the same job here.
 */
#define CUDA_DRIVER_FUNCTIONS(X)                                                                   \
    X(cuGetErrorName)                                                                              \
    X(cuGetErrorString)                                                                            \
    X(cuInit)                                                                                      \
    X(cuDriverGetVersion)                                                                          \
    X(cuDeviceGetCount)                                                                            \
    X(cuDeviceGet)                                                                                 \
    X(cuDeviceGetName)                                                                             \
    X(cuDeviceGetAttribute)                                                                        \
    X(cuDeviceTotalMem)                                                                            \
    X(cuDeviceGetUuid)                                                                             \
    X(cuDevicePrimaryCtxRetain)                                                                    \
    X(cuDevicePrimaryCtxRelease)                                                                   \
    X(cuCtxSetCurrent)                                                                             \
    X(cuCtxResetPersistingL2Cache)                                                                 \
    X(cuModuleLoadData)                                                                            \
    X(cuModuleUnload)                                                                              \
    X(cuModuleGetFunction)                                                                         \
    X(cuFuncGetAttribute)                                                                          \
    X(cuFuncSetAttribute)                                                                          \
    X(cuFuncGetParamInfo)                                                                          \
    X(cuOccupancyMaxActiveBlocksPerMultiprocessor)                                                 \
    X(cuLaunchKernel)                                                                              \
    X(cuMemAlloc)                                                                                  \
    X(cuMemFree)                                                                                   \
    X(cuMemGetInfo)                                                                                \
    X(cuMemcpyHtoD)                                                                                \
    X(cuMemcpyDtoH)                                                                                \
    X(cuMemHostRegister)                                                                           \
    X(cuMemHostUnregister)                                                                         \
    X(cuMemcpyDtoDAsync)                                                                           \
    X(cuMemsetD8Async)                                                                             \
    X(cuMemsetD32Async)                                                                            \
    X(cuStreamCreate)                                                                              \
    X(cuStreamDestroy)                                                                             \
    X(cuStreamSynchronize)                                                                         \
    X(cuEventCreate)                                                                               \
    X(cuEventDestroy)                                                                              \
    X(cuEventRecord)                                                                               \
    X(cuEventSynchronize)                                                                          \
    X(cuEventElapsedTime)

struct cuda_driver {
#define CUDA_DECLARE_FN(name) __typeof__(name) *name;
    CUDA_DRIVER_FUNCTIONS(CUDA_DECLARE_FN)
#undef CUDA_DECLARE_FN
};

/* The resolved entry points; all NULL until cuda_open() succeeds. */
extern struct cuda_driver cu;

/*
 * Loads the driver, resolves every entry point and calls cuInit(0).
 * BW_ERR_NODEVICE (with the loader's or the driver's words) when there is no
 * driver, no GPU, or a driver too old; BW_ERR_CUDA when cuInit fails for
 * another reason (CUDA_ERROR_OPERATING_SYSTEM when a sandbox refuses the
 * driver something). Calling it again after success does nothing.
 */
int cuda_open(char **cause);

/* The error's name ("CUDA_ERROR_ILLEGAL_ADDRESS") and the driver's sentence
 * for it; static strings, never NULL (fallbacks for codes the driver does not
 * know, or before cuda_open()). */
const char *cuda_error_name(CUresult rc);
const char *cuda_error_string(CUresult rc);

/*
 * Stores "WHAT: NAME: sentence" in *cause, WHAT formatted from fmt, and
 * returns BW_ERR_CUDA. For the one-line failure path:
 *     if (crc != CUDA_SUCCESS) return cuda_fail(cause, crc, "cuMemAlloc of %zu bytes", n);
 */
int cuda_fail(char **cause, CUresult rc, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

/*
 * True for errors that leave the context unusable (a kernel fault: illegal
 * address, illegal instruction, misaligned address, trap, assert, hardware
 * stack error, timeout, ...): after one, every later call fails too and the
 * process must exit. Launch-configuration errors (invalid value, out of
 * resources) are not sticky.
 */
bool cuda_error_is_sticky(CUresult rc);

/* Formats a device UUID as NVML and nvidia-smi do: "GPU-xxxxxxxx-xxxx-xxxx-xxxx-xxxxxxxxxxxx"
 * (out must hold CUDA_UUID_CHARS bytes). */
#define CUDA_UUID_CHARS 41
void cuda_format_uuid(const CUuuid *uuid, char *out);

/* Opens NVML for the GPU with this UUID (as cuda_format_uuid writes it);
 * false when NVML or the GPU is not there (not an error: clocks are then
 * measured another way or reported as unknown). Call before any sandbox
 * step that would stop NVML from opening its device files. */
bool cuda_nvml_open(const char *uuid);

/* The current SM clock in MHz, or 0 when NVML is not open or does not say. */
unsigned cuda_nvml_sm_clock_mhz(void);

#endif
