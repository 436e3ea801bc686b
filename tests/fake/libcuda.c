/*
 * libcuda.c - a fake CUDA driver (libcuda.so.1) for testing blockwise-runner's
 * host logic on machines without a GPU.
 *
 * tests/unit/test_runner.c compiles this into BUILD/tests/fake/libcuda.so.1 and
 * starts the real runner with LD_LIBRARY_PATH pointing there. The fake exposes
 * cuGetProcAddress_v2 and every entry point judge/runner/cuda.h resolves; "device
 * memory" is host memory, and a launch runs a C stand-in of the kernel at
 * once: the harness kernels (same contracts as judge/runner/kernels/harness.cu;
 * generation through judge/runner/kernels/gen_value.h and dtype_store(), i.e. exactly
 * the host reference the GPU tests compare with) and a few learner kernels
 * named like the GPU tests' NVRTC kernels, with the same behaviour: a correct
 * vector_add, a tail overrun, a write before the start, a write to an input,
 * a partial writer, a fault (a sticky CUDA_ERROR_ILLEGAL_ADDRESS), a hang, and
 * additions wrong only past FAKE_BIG_N elements (at the tail, one element left
 * unwritten, a hang) for the tests checked by sample.
 *
 * BW_FAKE_DEVICE_BYTES with BW_FAKE_DEVICE_FILE (a file every runner of a test
 * can open: unsandboxed runners) make the device's memory one budget shared by
 * processes, as a GPU's is: the file holds the bytes allocated and then the
 * allocations refused (two u64, under flock); an allocation past the budget
 * fails with CUDA_ERROR_OUT_OF_MEMORY, and the device reports the budget as
 * its total memory.
 *
 * For the fake CUPTI (tests/fake/libcupti.c), every launch is logged with the
 * bytes its stand-in read and wrote (fake_cuda_launch_log, exported), from
 * which that fake derives its counters; the device answers the attributes an
 * occupancy calculator asks for with an H100's/H200's values (cc 9.0).
 *
 * A module image is the harness fatbin (recognised by its magic), the text
 * "FAKECUBIN" followed by the kernel names it holds, one per line, a real
 * cubin (an ELF image, as NVRTC makes it: the judge's own compile path), which
 * holds the learner kernels below whose names appear in its string table as
 * ".text.NAME" sections, or the fake triton's cubin (an ELF image whose
 * .nv.blockwise.fake section holds "FAKECUBIN\n", the entry name, a JSON
 * record whose "params" lists the kept parameters' Triton types), whose one
 * entry takes those parameters and Triton's two
 * scratch pointers: so a Triton submission runs here too, through the judge's
 * own Triton path (tests/cpu/judge-fake.sh). So `judged` can judge real sources end to end here:
 * tests/cpu/judge-fake.sh and tests/fixtures/fake-gpu/, whose kernels are
 * written in CUDA to do what their stand-ins here do.
 *
 * What this proves: the runner's messages, memfds, buffer layout, guard and
 * poison and hash logic, argument marshalling, bench loop, error paths and
 * sandbox run correctly. What it cannot prove: anything about the real
 * driver, real kernels or the device code (the GPU tests do that).
 */
#include <cuda.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

#include "common/dtype.h"
#include "common/gen.h"
#include "judge/runner/kernels/gen_value.h"

#define FAKE_EXPORT      __attribute__((visibility("default")))
#define FAKE_MAX_KERNELS 32
#define FAKE_BIG_ALLOC   (64u << 20) /* above this, memory is reserved, not touched */
#define FAKE_BIG_N       100000      /* K_LAST_WRONG, K_SKIP_ONE, K_HANG_BIG: wrong past this */
#define FAKE_PROFILE_N                                                                             \
    40000                  /* K_FAULT_MID: faults past this (above fake-add's tests, below         \
                              its largest benchmark: a fault under Profile) */
#define FAKE_LAUNCH_LOG 64 /* launches kept for the fake CUPTI */

static CUresult sticky; /* once a kernel faulted, every call fails with this */
static bool hung;       /* a kernel that never ends was launched */

/* --- errors ---------------------------------------------------------------------- */

static const struct {
    CUresult rc;
    const char *name, *text;
} errors[] = {
    {CUDA_SUCCESS, "CUDA_SUCCESS", "no error"},
    {CUDA_ERROR_INVALID_VALUE, "CUDA_ERROR_INVALID_VALUE", "invalid argument"},
    {CUDA_ERROR_OUT_OF_MEMORY, "CUDA_ERROR_OUT_OF_MEMORY", "out of memory"},
    {CUDA_ERROR_INVALID_IMAGE, "CUDA_ERROR_INVALID_IMAGE", "device kernel image is invalid"},
    {CUDA_ERROR_NOT_FOUND, "CUDA_ERROR_NOT_FOUND", "named symbol not found"},
    {CUDA_ERROR_ILLEGAL_ADDRESS, "CUDA_ERROR_ILLEGAL_ADDRESS",
     "an illegal memory access was encountered"},
    {CUDA_ERROR_INVALID_HANDLE, "CUDA_ERROR_INVALID_HANDLE", "invalid resource handle"},
    {CUDA_ERROR_OPERATING_SYSTEM, "CUDA_ERROR_OPERATING_SYSTEM",
     "OS call failed or operation not supported on this OS"},
};

static CUresult fake_cuGetErrorName(CUresult rc, const char **s)
{
    for (size_t i = 0; i < sizeof(errors) / sizeof(errors[0]); i++)
        if (errors[i].rc == rc) {
            *s = errors[i].name;
            return CUDA_SUCCESS;
        }
    *s = NULL;
    return CUDA_ERROR_INVALID_VALUE;
}

static CUresult fake_cuGetErrorString(CUresult rc, const char **s)
{
    for (size_t i = 0; i < sizeof(errors) / sizeof(errors[0]); i++)
        if (errors[i].rc == rc) {
            *s = errors[i].text;
            return CUDA_SUCCESS;
        }
    *s = NULL;
    return CUDA_ERROR_INVALID_VALUE;
}

/* Blocks forever (the process is killed by the client's deadline). */
static void hang_forever(void)
{
    for (;;)
        pause();
}

#define CHECK_STICKY()                                                                             \
    do {                                                                                           \
        if (sticky)                                                                                \
            return sticky;                                                                         \
    } while (0)

/* A synchronising call: hangs after a never-ending kernel, fails after a fault. */
static CUresult sync_point(void)
{
    if (hung)
        hang_forever();
    return sticky;
}

/* --- device, context ------------------------------------------------------------- */

static void *driver_thread(void *arg)
{
    (void)arg;
    for (;;)
        pause(); /* the real driver has threads too: seccomp must cover them (TSYNC) */
    return NULL;
}

static CUresult fake_cuInit(unsigned int flags)
{
    char path[64];
    pthread_t t;
    int fd;

    (void)flags;
    if (pthread_create(&t, NULL, driver_thread, NULL) != 0)
        return CUDA_ERROR_OPERATING_SYSTEM;
    /* Like drivers from 570 on: name the thread through /proc, and fail with
     * CUDA_ERROR_OPERATING_SYSTEM (304) when that is refused. */
    snprintf(path, sizeof(path), "/proc/self/task/%ld/comm", (long)gettid());
    fd = open(path, O_WRONLY | O_CLOEXEC);
    if (fd < 0)
        return CUDA_ERROR_OPERATING_SYSTEM;
    if (write(fd, "fake-cuda", 9) != 9) {
        close(fd);
        return CUDA_ERROR_OPERATING_SYSTEM;
    }
    close(fd);
    return CUDA_SUCCESS;
}

static CUresult fake_cuDriverGetVersion(int *v)
{
    *v = 13000;
    return CUDA_SUCCESS;
}

static CUresult fake_cuDeviceGetCount(int *n)
{
    *n = 1;
    return CUDA_SUCCESS;
}

static CUresult fake_cuDeviceGet(CUdevice *d, int ordinal)
{
    if (ordinal != 0)
        return CUDA_ERROR_INVALID_VALUE;
    *d = 0;
    return CUDA_SUCCESS;
}

static CUresult fake_cuDeviceGetName(char *name, int len, CUdevice d)
{
    (void)d;
    snprintf(name, (size_t)len, "Fake GPU");
    return CUDA_SUCCESS;
}

static CUresult fake_cuDeviceGetAttribute(int *v, CUdevice_attribute a, CUdevice d)
{
    (void)d;
    switch (a) {
    case CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR:
        *v = 9;
        break;
    case CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR:
        *v = 0;
        break;
    case CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT:
        *v = 4;
        break;
    case CU_DEVICE_ATTRIBUTE_L2_CACHE_SIZE:
        *v = 1 << 20;
        break;
    case CU_DEVICE_ATTRIBUTE_CLOCK_RATE:
        *v = 1500000;
        break;
    case CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK_OPTIN:
        *v = 232448;
        break;
    /* The occupancy calculator's (judge/worker/occupancy.h): an H100's and H200's values */
    case CU_DEVICE_ATTRIBUTE_WARP_SIZE:
        *v = 32;
        break;
    case CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_BLOCK:
        *v = 1024;
        break;
    case CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_MULTIPROCESSOR:
        *v = 2048;
        break;
    case CU_DEVICE_ATTRIBUTE_MAX_BLOCKS_PER_MULTIPROCESSOR:
        *v = 32;
        break;
    case CU_DEVICE_ATTRIBUTE_MAX_REGISTERS_PER_MULTIPROCESSOR:
    case CU_DEVICE_ATTRIBUTE_MAX_REGISTERS_PER_BLOCK:
        *v = 65536;
        break;
    case CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_MULTIPROCESSOR:
        *v = 233472;
        break;
    case CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK:
        *v = 49152;
        break;
    case CU_DEVICE_ATTRIBUTE_RESERVED_SHARED_MEMORY_PER_BLOCK:
        *v = 1024;
        break;
    default:
        *v = 0;
        break;
    }
    return CUDA_SUCCESS;
}

/* BW_FAKE_DEVICE_BYTES, or 0 when the device's memory is not shared (see the top). */
static uint64_t shared_device_bytes(void)
{
    const char *e = getenv("BW_FAKE_DEVICE_BYTES");
    return e && getenv("BW_FAKE_DEVICE_FILE") ? strtoull(e, NULL, 10) : 0;
}

/* Adds delta to the shared device's allocated bytes; false (nothing changed) when that would
 * pass its budget or the file cannot be used. */
static bool shared_device_charge(int64_t delta)
{
    uint64_t budget = shared_device_bytes(), v[2] = {0, 0}; /* used, refused */
    bool ok = false;
    int fd;

    if (budget == 0)
        return true;
    fd = open(getenv("BW_FAKE_DEVICE_FILE"), O_RDWR | O_CREAT | O_CLOEXEC, 0600);
    if (fd < 0)
        return false;
    if (flock(fd, LOCK_EX) == 0) {
        if (pread(fd, v, sizeof(v), 0) != (ssize_t)sizeof(v))
            v[0] = v[1] = 0;
        ok = delta < 0 || v[0] + (uint64_t)delta <= budget;
        if (ok)
            v[0] = delta < 0 && (uint64_t)-delta > v[0] ? 0 : v[0] + (uint64_t)delta;
        else
            v[1]++;
        ok = pwrite(fd, v, sizeof(v), 0) == (ssize_t)sizeof(v) && ok;
        flock(fd, LOCK_UN);
    }
    close(fd);
    return ok;
}

static CUresult fake_cuDeviceTotalMem(size_t *bytes, CUdevice d)
{
    (void)d;
    *bytes = shared_device_bytes() ? shared_device_bytes() : 1ull << 30;
    return CUDA_SUCCESS;
}

static CUresult fake_cuDeviceGetUuid(CUuuid *u, CUdevice d)
{
    (void)d;
    for (int i = 0; i < 16; i++)
        u->bytes[i] = (char)(0xf0 + i);
    return CUDA_SUCCESS;
}

static int fake_context;

static CUresult fake_cuDevicePrimaryCtxRetain(CUcontext *c, CUdevice d)
{
    (void)d;
    *c = (CUcontext)&fake_context;
    return CUDA_SUCCESS;
}

static CUresult fake_cuDevicePrimaryCtxRelease(CUdevice d)
{
    (void)d;
    return CUDA_SUCCESS;
}

static CUresult fake_cuCtxSetCurrent(CUcontext c)
{
    (void)c;
    return CUDA_SUCCESS;
}

static CUresult fake_cuCtxResetPersistingL2Cache(void)
{
    CHECK_STICKY();
    return CUDA_SUCCESS;
}

/* --- memory ---------------------------------------------------------------------- */

struct fake_alloc {
    void *p;
    size_t bytes;
    bool mapped; /* a big reservation: never touched */
};

static struct fake_alloc allocs[4096];

static struct fake_alloc *find_alloc(CUdeviceptr p)
{
    for (size_t i = 0; i < sizeof(allocs) / sizeof(allocs[0]); i++)
        if (allocs[i].p && (uintptr_t)allocs[i].p <= p &&
            p < (uintptr_t)allocs[i].p + allocs[i].bytes + 1)
            return &allocs[i];
    return NULL;
}

static bool is_big(CUdeviceptr p)
{
    struct fake_alloc *a = find_alloc(p);
    return a && a->mapped;
}

static CUresult fake_cuMemAlloc(CUdeviceptr *p, size_t bytes)
{
    CHECK_STICKY();
    for (size_t i = 0; i < sizeof(allocs) / sizeof(allocs[0]); i++) {
        if (allocs[i].p)
            continue;
        if (bytes > (4ull << 30) || !shared_device_charge((int64_t)bytes))
            return CUDA_ERROR_OUT_OF_MEMORY;
        if (bytes > FAKE_BIG_ALLOC) {
            void *m = mmap(NULL, bytes, PROT_READ | PROT_WRITE,
                           MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
            if (m == MAP_FAILED) {
                shared_device_charge(-(int64_t)bytes);
                return CUDA_ERROR_OUT_OF_MEMORY;
            }
            allocs[i].p = m;
            allocs[i].mapped = true;
        } else {
            allocs[i].p = aligned_alloc(512, (bytes + 511) / 512 * 512 + 512);
            if (!allocs[i].p) {
                shared_device_charge(-(int64_t)bytes);
                return CUDA_ERROR_OUT_OF_MEMORY;
            }
            memset(allocs[i].p, 0x5A, bytes); /* device memory is not zeroed */
            allocs[i].mapped = false;
        }
        allocs[i].bytes = bytes;
        *p = (CUdeviceptr)(uintptr_t)allocs[i].p;
        return CUDA_SUCCESS;
    }
    return CUDA_ERROR_OUT_OF_MEMORY;
}

/* BW_FAKE_FREE_DELAY_MS: each cuMemFree takes that long, as freeing tens of
 * gigabytes does on a GPU, so a test can see when the runner frees. */
static void free_delay(void)
{
    static long ms = -1;

    if (ms < 0) {
        const char *e = getenv("BW_FAKE_FREE_DELAY_MS");
        ms = e ? atol(e) : 0;
    }
    if (ms > 0) {
        struct timespec ts = {ms / 1000, (ms % 1000) * 1000000L};
        while (nanosleep(&ts, &ts) < 0 && errno == EINTR) {
        }
    }
}

static CUresult fake_cuMemFree(CUdeviceptr p)
{
    CHECK_STICKY();
    free_delay();
    for (size_t i = 0; i < sizeof(allocs) / sizeof(allocs[0]); i++) {
        if ((uintptr_t)allocs[i].p != p)
            continue;
        if (allocs[i].mapped)
            munmap(allocs[i].p, allocs[i].bytes);
        else
            free(allocs[i].p);
        allocs[i].p = NULL;
        shared_device_charge(-(int64_t)allocs[i].bytes);
        return CUDA_SUCCESS;
    }
    return CUDA_ERROR_INVALID_VALUE;
}

static CUresult fake_cuMemGetInfo(size_t *free_bytes, size_t *total)
{
    *free_bytes = 1ull << 29;
    *total = 1ull << 30;
    return CUDA_SUCCESS;
}

static CUresult fake_cuMemcpyHtoD(CUdeviceptr dst, const void *src, size_t n)
{
    CHECK_STICKY();
    memcpy((void *)(uintptr_t)dst, src, n);
    return CUDA_SUCCESS;
}

/* Pinning host memory: nothing to do on the fake, whose device memory is host memory. */
static CUresult fake_cuMemHostRegister(void *p, size_t n, unsigned int flags)
{
    (void)flags;
    CHECK_STICKY();
    if (!p || n == 0)
        return CUDA_ERROR_INVALID_VALUE;
    return CUDA_SUCCESS;
}

static CUresult fake_cuMemHostUnregister(void *p)
{
    (void)p;
    return CUDA_SUCCESS;
}

static CUresult fake_cuMemcpyDtoH(void *dst, CUdeviceptr src, size_t n)
{
    CUresult rc = sync_point();
    if (rc)
        return rc;
    memcpy(dst, (const void *)(uintptr_t)src, n);
    return CUDA_SUCCESS;
}

static CUresult fake_cuMemcpyDtoDAsync(CUdeviceptr dst, CUdeviceptr src, size_t n, CUstream s)
{
    (void)s;
    CHECK_STICKY();
    if (!is_big(dst))
        memmove((void *)(uintptr_t)dst, (const void *)(uintptr_t)src, n);
    else
        usleep(1000);
    return CUDA_SUCCESS;
}

static CUresult fake_cuMemsetD8Async(CUdeviceptr p, unsigned char v, size_t n, CUstream s)
{
    (void)s;
    CHECK_STICKY();
    memset((void *)(uintptr_t)p, v, n);
    return CUDA_SUCCESS;
}

static CUresult fake_cuMemsetD32Async(CUdeviceptr p, unsigned int v, size_t n, CUstream s)
{
    uint32_t *w = (uint32_t *)(uintptr_t)p;
    (void)s;
    CHECK_STICKY();
    if (is_big(p))
        return CUDA_SUCCESS;
    for (size_t i = 0; i < n; i++)
        w[i] = v;
    return CUDA_SUCCESS;
}

/* --- streams and events ----------------------------------------------------------- */

static CUresult fake_cuStreamCreate(CUstream *s, unsigned int flags)
{
    (void)flags;
    *s = (CUstream)malloc(8);
    return CUDA_SUCCESS;
}

static CUresult fake_cuStreamDestroy(CUstream s)
{
    free(s);
    return CUDA_SUCCESS;
}

static CUresult fake_cuStreamSynchronize(CUstream s)
{
    (void)s;
    return sync_point();
}

struct fake_event {
    uint64_t ns;
};

static uint64_t fake_now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

static CUresult fake_cuEventCreate(CUevent *e, unsigned int flags)
{
    (void)flags;
    *e = (CUevent)calloc(1, sizeof(struct fake_event));
    return *e ? CUDA_SUCCESS : CUDA_ERROR_OUT_OF_MEMORY;
}

static CUresult fake_cuEventDestroy(CUevent e)
{
    free(e);
    return CUDA_SUCCESS;
}

static CUresult fake_cuEventRecord(CUevent e, CUstream s)
{
    (void)s;
    CHECK_STICKY();
    ((struct fake_event *)e)->ns = fake_now_ns();
    return CUDA_SUCCESS;
}

static CUresult fake_cuEventSynchronize(CUevent e)
{
    (void)e;
    return sync_point();
}

static CUresult fake_cuEventElapsedTime(float *ms, CUevent a, CUevent b)
{
    CHECK_STICKY();
    *ms = (float)((double)(((struct fake_event *)b)->ns - ((struct fake_event *)a)->ns) / 1e6);
    return CUDA_SUCCESS;
}

/* --- modules and kernels ------------------------------------------------------------ */

enum fake_kind {
    K_GENERATE,
    K_HASH,
    K_GUARD_FILL,
    K_GUARD_CHECK,
    K_POISON,
    K_GATHER,
    K_CLOCK,
    K_BWCOPY,
    K_FFMA,
    K_MMA,
    /* learner kernels */
    K_VECTOR_ADD,   /* (const float *x, const float *y, float *out, long long n) */
    K_COPY,         /* (const float *x, float *out, long long n) */
    K_TAIL,         /* (const float *x, float *out, long long n): writes out[n] too */
    K_BEFORE,       /* (float *out, long long n): writes out[-1] */
    K_WRITE_IN,     /* (float *x, float *out, long long n): changes x[0] */
    K_PARTIAL,      /* (float *out, long long n): writes out[0 .. n/2) */
    K_FAULT,        /* (float *out): an illegal address */
    K_HANG,         /* (float *out): never ends */
    K_INT_PARAM,    /* (float *out, int n) */
    K_SCALE,        /* (float *xy, long long n): xy[i] *= 2 */
    K_NOOP1,        /* (void *p) */
    K_NOOP2,        /* (void *p, void *q) */
    K_SMEM,         /* (float *out, long long n): uses dynamic shared memory */
    K_ADD_REF,      /* (const float *x, const float *y, double *out, long long n): fp64 sum */
    K_ADD_REF_ROWS, /* K_ADD_REF's @rows kernel: (..., const long long *rows, long long n_rows) */
    K_SLOW_ADD,     /* as K_VECTOR_ADD, but every launch takes 200 ms: a Submit that lasts */
    /* as K_VECTOR_ADD, but past FAKE_BIG_N elements (a test checked by sample,
     * tests/fixtures/fake-gpu/fake-huge): */
    K_LAST_WRONG,  /* out[n - 1] is one too large (the tail) */
    K_SKIP_ONE,    /* out[n / 2] is never written (only the poison scan sees it) */
    K_HANG_BIG,    /* never ends */
    K_TRITON_ADD,  /* a fake triton build of (x, y, out, n, BLOCK: constexpr): x, y, out, then n
                      (i32 or i64) unless it was 1 and folded, then two scratch pointers */
    K_TRITON_NOOP, /* a fake triton build that writes nothing (a starter) */
    K_FAULT_MID,   /* as K_VECTOR_ADD, but an illegal address past FAKE_PROFILE_N elements */
    K_WRONG_256,   /* as K_VECTOR_ADD, but out[0] one too large in blocks of 256 threads */
    K_SLOW_64,     /* as K_VECTOR_ADD, but 2 ms slower in blocks of 64 threads */
};

static const struct {
    const char *name;
    enum fake_kind kind;
    int n_params;
    int param_bytes[6];
    bool harness;
} kernels[] = {
    {"bw_generate", K_GENERATE, 5, {8, 8, (int)sizeof(struct gen_spec), 8, 4}, true},
    {"bw_hash", K_HASH, 3, {8, 8, 8}, true},
    {"bw_guard_fill", K_GUARD_FILL, 4, {8, 8, 4, 4}, true},
    {"bw_guard_check", K_GUARD_CHECK, 5, {8, 8, 4, 4, 8}, true},
    {"bw_poison_count", K_POISON, 4, {8, 8, 4, 8}, true},
    {"bw_gather", K_GATHER, 6, {8, 4, 8, 8, 8, 8}, true},
    {"bw_clock", K_CLOCK, 2, {8, 8}, true},
    {"bw_copy", K_BWCOPY, 3, {8, 8, 8}, true},
    {"bw_ffma", K_FFMA, 4, {8, 4, 4, 4}, true},
    {"bw_mma_f16", K_MMA, 2, {8, 4}, true},
    {"bw_mma_bf16", K_MMA, 2, {8, 4}, true},
    {"vector_add", K_VECTOR_ADD, 4, {8, 8, 8, 8}, false},
    {"copy_f32", K_COPY, 3, {8, 8, 8}, false},
    {"tail_overrun", K_TAIL, 3, {8, 8, 8}, false},
    {"before_start", K_BEFORE, 2, {8, 8}, false},
    {"write_input", K_WRITE_IN, 3, {8, 8, 8}, false},
    {"partial", K_PARTIAL, 2, {8, 8}, false},
    {"fault", K_FAULT, 1, {8}, false},
    {"hang", K_HANG, 1, {8}, false},
    {"int_param", K_INT_PARAM, 2, {8, 4}, false},
    {"scale_inout", K_SCALE, 2, {8, 8}, false},
    {"noop1", K_NOOP1, 1, {8}, false},
    {"noop2", K_NOOP2, 2, {8, 8}, false},
    {"smem_user", K_SMEM, 2, {8, 8}, false},
    {"fake_add_ref", K_ADD_REF, 4, {8, 8, 8, 8}, false},
    {"fake_add_ref_rows", K_ADD_REF_ROWS, 6, {8, 8, 8, 8, 8, 8}, false},
    {"vector_add_slow", K_SLOW_ADD, 4, {8, 8, 8, 8}, false},
    {"vector_add_last_wrong", K_LAST_WRONG, 4, {8, 8, 8, 8}, false},
    {"vector_add_skip_one", K_SKIP_ONE, 4, {8, 8, 8, 8}, false},
    {"vector_add_hang_big", K_HANG_BIG, 4, {8, 8, 8, 8}, false},
    {"fake_triton_add", K_TRITON_ADD, 6, {8, 8, 8, 8, 8, 8}, false}, /* layout: its module's */
    {"fake_triton_noop", K_TRITON_NOOP, 6, {8, 8, 8, 8, 8, 8}, false},
    {"vector_add_fault_mid", K_FAULT_MID, 4, {8, 8, 8, 8}, false},
    {"vector_add_wrong_256", K_WRONG_256, 4, {8, 8, 8, 8}, false},
    {"vector_add_slow_64", K_SLOW_64, 4, {8, 8, 8, 8}, false},
};

struct fake_function {
    int index; /* into kernels[] */
    int max_dynamic_smem;
    int n_params; /* a fake triton build's own layout (0: kernels[index]'s) */
    int param_bytes[16];
};

struct fake_module {
    bool harness;
    int n;
    char names[FAKE_MAX_KERNELS][64];
    struct fake_function triton; /* a fake triton build's entry */
};

static struct fake_function functions[sizeof(kernels) / sizeof(kernels[0])];

/* The learner kernels whose ".text.NAME" section names a real cubin holds
 * (its section header string table, found through the ELF64 header). */
static void elf_kernels(const unsigned char *p, struct fake_module *mod)
{
    uint64_t shoff;
    uint16_t shentsize, shnum, shstrndx;
    uint64_t str_off, str_size;

    memcpy(&shoff, p + 0x28, 8);
    memcpy(&shentsize, p + 0x3A, 2);
    memcpy(&shnum, p + 0x3C, 2);
    memcpy(&shstrndx, p + 0x3E, 2);
    if (shstrndx >= shnum || shentsize < 0x40)
        return;
    memcpy(&str_off, p + shoff + (uint64_t)shstrndx * shentsize + 0x18, 8);
    memcpy(&str_size, p + shoff + (uint64_t)shstrndx * shentsize + 0x20, 8);
    for (size_t k = 0; k < sizeof(kernels) / sizeof(kernels[0]) && mod->n < FAKE_MAX_KERNELS; k++) {
        char want[80];
        int len;

        if (kernels[k].harness)
            continue;
        len = snprintf(want, sizeof(want), ".text.%s", kernels[k].name);
        for (uint64_t i = 0; i + (uint64_t)len < str_size; i++)
            if ((i == 0 || p[str_off + i - 1] == '\0') &&
                memcmp(p + str_off + i, want, (size_t)len + 1) == 0) {
                snprintf(mod->names[mod->n++], 64, "%s", kernels[k].name);
                break;
            }
    }
}

/* The fake triton's cubin after its magic: "NAME\n{...\"params\": [\"*fp32\", \"i32\"]...}".
 * Its entry takes the kept parameters (8 bytes for a pointer or a 64-bit type,
 * 4 otherwise) and two scratch pointers. False when it is not one. */
static bool fake_triton_module(const char *s, struct fake_module *mod)
{
    size_t len = strcspn(s, "\n");
    const char *list = strstr(s, "\"params\": [");
    struct fake_function *fn = &mod->triton;

    if (s[len] != '\n' || len == 0 || len >= 64 || !list)
        return false;
    snprintf(mod->names[mod->n++], 64, "%.*s", (int)len, s);
    for (list += 11; *list && *list != ']' && fn->n_params < 14; list++) {
        if (*list != '"')
            continue;
        const char *type = ++list;
        list += strcspn(list, "\"");
        bool wide = type[0] == '*' || strncmp(type, "i64", 3) == 0 ||
                    strncmp(type, "u64", 3) == 0 || strncmp(type, "fp64", 4) == 0;
        fn->param_bytes[fn->n_params++] = wide ? 8 : 4;
    }
    fn->param_bytes[fn->n_params++] = 8; /* global scratch */
    fn->param_bytes[fn->n_params++] = 8; /* profile scratch */
    return true;
}

/* The fake triton's payload ("FAKECUBIN\n...") inside an ELF64 image: what lies before its
 * section header table (the fake writes its sections first); NULL when it is not one. */
static const char *fake_triton_payload(const unsigned char *p)
{
    uint64_t shoff;

    if (p[0] != 0x7f || p[1] != 'E' || p[2] != 'L' || p[3] != 'F' || p[4] != 2)
        return NULL;
    memcpy(&shoff, p + 0x28, 8);
    if (shoff > (64u << 20))
        return NULL;
    return memmem(p, (size_t)shoff, "FAKECUBIN\n", 10);
}

static CUresult fake_cuModuleLoadData(CUmodule *m, const void *image)
{
    const unsigned char *p = image;
    struct fake_module *mod;

    CHECK_STICKY();
    mod = calloc(1, sizeof(*mod));
    if (!mod)
        return CUDA_ERROR_OUT_OF_MEMORY;
    if (p[0] == 0x50 && p[1] == 0xed && p[2] == 0x55 && p[3] == 0xba) {
        mod->harness = true; /* the fatbin magic 0xBA55ED50 */
    } else if (fake_triton_payload(p)) {
        if (!fake_triton_module(fake_triton_payload(p) + 10, mod)) {
            free(mod);
            return CUDA_ERROR_INVALID_IMAGE;
        }
    } else if (p[0] == 0x7f && p[1] == 'E' && p[2] == 'L' && p[3] == 'F') {
        elf_kernels(p, mod);
    } else if (strncmp(image, "FAKECUBIN\n", 10) == 0) {
        const char *s = (const char *)image + 10;
        while (*s && mod->n < FAKE_MAX_KERNELS) {
            size_t len = strcspn(s, "\n");
            snprintf(mod->names[mod->n++], 64, "%.*s", (int)len, s);
            s += len;
            if (*s == '\n')
                s++;
        }
    } else {
        free(mod);
        return CUDA_ERROR_INVALID_IMAGE;
    }
    *m = (CUmodule)mod;
    return CUDA_SUCCESS;
}

static CUresult fake_cuModuleUnload(CUmodule m)
{
    CHECK_STICKY();
    free(m);
    return CUDA_SUCCESS;
}

static CUresult fake_cuModuleGetFunction(CUfunction *f, CUmodule m, const char *name)
{
    struct fake_module *mod = (struct fake_module *)m;
    bool listed = mod->harness;

    CHECK_STICKY();
    if (mod->triton.n_params) { /* a fake triton build: its one entry, its own layout */
        if (strcmp(mod->names[0], name) != 0)
            return CUDA_ERROR_NOT_FOUND;
        for (size_t k = 0; k < sizeof(kernels) / sizeof(kernels[0]); k++)
            if (strcmp(kernels[k].name, name) == 0)
                mod->triton.index = (int)k;
        if (kernels[mod->triton.index].kind != K_TRITON_ADD &&
            kernels[mod->triton.index].kind != K_TRITON_NOOP)
            return CUDA_ERROR_NOT_FOUND;
        if (!mod->triton.max_dynamic_smem)
            mod->triton.max_dynamic_smem = 48 * 1024;
        *f = (CUfunction)&mod->triton;
        return CUDA_SUCCESS;
    }
    for (int i = 0; !listed && i < mod->n; i++)
        listed = strcmp(mod->names[i], name) == 0;
    for (size_t k = 0; listed && k < sizeof(kernels) / sizeof(kernels[0]); k++) {
        if (strcmp(kernels[k].name, name) != 0 || kernels[k].harness != mod->harness)
            continue;
        functions[k].index = (int)k;
        if (!functions[k].max_dynamic_smem)
            functions[k].max_dynamic_smem = 48 * 1024;
        *f = (CUfunction)&functions[k];
        return CUDA_SUCCESS;
    }
    return CUDA_ERROR_NOT_FOUND;
}

static CUresult fake_cuFuncGetAttribute(int *v, CUfunction_attribute a, CUfunction f)
{
    (void)f;
    CHECK_STICKY();
    switch (a) {
    case CU_FUNC_ATTRIBUTE_NUM_REGS:
        *v = 32;
        break;
    case CU_FUNC_ATTRIBUTE_MAX_THREADS_PER_BLOCK:
        *v = 1024;
        break;
    default:
        *v = 0;
        break;
    }
    return CUDA_SUCCESS;
}

static CUresult fake_cuFuncSetAttribute(CUfunction f, CUfunction_attribute a, int v)
{
    CHECK_STICKY();
    if (a != CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES || v > 232448 || v < 0)
        return CUDA_ERROR_INVALID_VALUE;
    ((struct fake_function *)f)->max_dynamic_smem = v;
    return CUDA_SUCCESS;
}

/*
 * The driver's occupancy calculator for the fake device (its attributes above: 2048 threads, 32
 * blocks, 64 Ki registers, 228 KiB of shared memory and 1 KiB reserved a block per SM; every
 * fake kernel 32 registers and no static shared memory): the blocks per SM by threads,
 * registers, shared memory (128-byte granules) and block slots, as NVIDIA's calculator has them.
 */
static CUresult fake_cuOccupancyMaxActiveBlocksPerMultiprocessor(int *n, CUfunction f, int threads,
                                                                 size_t smem)
{
    const struct fake_function *fn = (const struct fake_function *)f;
    int warps, blocks;
    size_t alloc;

    CHECK_STICKY();
    if (!n || !fn || threads <= 0 || threads > 1024)
        return CUDA_ERROR_INVALID_VALUE;
    warps = (threads + 31) / 32;
    blocks = 32;             /* block slots */
    if (64 / warps < blocks) /* threads: 64 warps */
        blocks = 64 / warps;
    if (65536 / (32 * 32) / warps < blocks) /* registers: 32 a thread, 1024 a warp */
        blocks = 65536 / (32 * 32) / warps;
    alloc = (smem + 1024 + 127) / 128 * 128; /* with the reserved 1 KiB */
    if (smem > (size_t)fn->max_dynamic_smem)
        blocks = 0;
    else if ((int)(233472 / alloc) < blocks)
        blocks = (int)(233472 / alloc);
    *n = blocks;
    return CUDA_SUCCESS;
}

static CUresult fake_cuFuncGetParamInfo(CUfunction f, size_t i, size_t *offset, size_t *size)
{
    const struct fake_function *fn = (const struct fake_function *)f;
    int k = fn->index;
    int n = fn->n_params ? fn->n_params : kernels[k].n_params;
    const int *bytes = fn->n_params ? fn->param_bytes : kernels[k].param_bytes;
    size_t off = 0;

    CHECK_STICKY();
    if ((int)i >= n)
        return CUDA_ERROR_INVALID_VALUE;
    for (size_t j = 0; j < i; j++)
        off += (size_t)bytes[j];
    *offset = off;
    *size = (size_t)bytes[i];
    return CUDA_SUCCESS;
}

/* Parameter j of a launch as the type T. */
#define P(T, j) (*(T *)params[j])

static uint64_t mix64(uint64_t x)
{
    x ^= x >> 30;
    x *= 0xBF58476D1CE4E5B9ull;
    x ^= x >> 27;
    x *= 0x94D049BB133111EBull;
    x ^= x >> 31;
    return x;
}

static unsigned char guard_byte(unsigned int salt, unsigned int band, unsigned int k)
{
    return (unsigned char)(mix64(((uint64_t)salt << 32) | ((uint64_t)band << 24) | k) >> 56);
}

static void run_generate(void **params)
{
    unsigned char *out = P(unsigned char *, 0);
    uint64_t n = P(uint64_t, 1);
    struct gen_spec g = P(struct gen_spec, 2);
    uint64_t seed = P(uint64_t, 3);
    unsigned int c = P(unsigned int, 4);
    size_t es = dtype_size((enum dtype)g.dtype);

    for (uint64_t i = 0; i < n; i++) {
        struct gen_value v = gen_value_at(&g, seed, c, i);
        if (dtype_is_float((enum dtype)g.dtype)) {
            dtype_store((enum dtype)g.dtype, out + i * es, v.f);
        } else {
            uint64_t bits = gen_int_bits(v, g.dtype);
            memcpy(out + i * es, &bits, es); /* little-endian: the low bytes */
        }
    }
}

static void run_hash(void **params)
{
    const unsigned char *p = P(const unsigned char *, 0);
    uint64_t nbytes = P(uint64_t, 1), sum = 0, nwords = nbytes / 8;
    uint64_t *out = P(uint64_t *, 2);

    for (uint64_t i = 0; i < nwords; i++) {
        uint64_t w;
        memcpy(&w, p + i * 8, 8);
        sum += mix64(w ^ mix64(i + 0x9E3779B97F4A7C15ull));
    }
    if (nbytes & 7) {
        uint64_t tail = 0;
        for (uint64_t b = 0; b < (nbytes & 7); b++)
            tail |= (uint64_t)p[nwords * 8 + b] << (8 * b);
        sum += mix64(tail ^ mix64(nwords + 0x9E3779B97F4A7C15ull));
    }
    *out += sum;
}

static void run_guard(void **params, bool check)
{
    unsigned char *before = P(unsigned char *, 0), *after = P(unsigned char *, 1);
    unsigned int bytes = P(unsigned int, 2), salt = P(unsigned int, 3);

    for (unsigned int band = 0; band < 2; band++) {
        for (unsigned int k = 0; k < bytes; k++) {
            unsigned char *b = (band ? after : before) + k;
            if (!check) {
                *b = guard_byte(salt, band, k);
            } else if (*b != guard_byte(salt, band, k)) {
                uint64_t code = band ? k : (uint64_t)bytes + (bytes - 1 - k);
                uint64_t *first = P(uint64_t *, 4);
                if (code < *first)
                    *first = code;
            }
        }
    }
}

static void run_poison(void **params)
{
    const unsigned char *p = P(const unsigned char *, 0);
    uint64_t n = P(uint64_t, 1), c = 0;
    unsigned int es = P(unsigned int, 2);

    for (uint64_t i = 0; i < n; i++) {
        bool all = true;
        for (unsigned int b = 0; b < es; b++)
            all = all && p[i * es + b] == 0xFF;
        c += all;
    }
    *P(uint64_t *, 3) += c;
}

static void run_gather(void **params)
{
    const unsigned char *src = P(const unsigned char *, 0);
    unsigned int es = P(unsigned int, 1);
    const long long *idx = P(const long long *, 2);
    uint64_t n = P(uint64_t, 3);
    unsigned char *dst = P(unsigned char *, 4);
    uint64_t count = P(uint64_t, 5);

    for (uint64_t j = 0; j < n; j++) {
        if ((uint64_t)idx[j] < count)
            memcpy(dst + j * es, src + (uint64_t)idx[j] * es, es);
        else
            memset(dst + j * es, 0xFF, es);
    }
}

/* --- the launch log (tests/fake/libcupti.c reads it) ----------------------------------- */

/* One launch as the fake CUPTI sees it; the layout tests/fake/libcupti.c declares too. */
struct fake_launch {
    char kernel[64];
    unsigned grid[3], block[3], smem;
    unsigned long long bytes_read, bytes_written; /* by the stand-in, the harness's included */
    bool harness;
};

static struct fake_launch launch_log[FAKE_LAUNCH_LOG];
static unsigned long launches_logged;

/* Copies launch `i` (0 = the first this process made) into *out; false when it is not
 * (or no longer) logged. *count (when not NULL) is how many launches were made. */
FAKE_EXPORT bool fake_cuda_launch_log(unsigned long i, struct fake_launch *out,
                                      unsigned long *count);
FAKE_EXPORT bool fake_cuda_launch_log(unsigned long i, struct fake_launch *out,
                                      unsigned long *count)
{
    if (count)
        *count = launches_logged;
    if (i >= launches_logged || launches_logged - i > FAKE_LAUNCH_LOG)
        return false;
    *out = launch_log[i % FAKE_LAUNCH_LOG];
    return true;
}

static void log_launch(int index, const unsigned g[3], const unsigned b[3], unsigned smem,
                       unsigned long long bytes_read, unsigned long long bytes_written)
{
    struct fake_launch *l = &launch_log[launches_logged++ % FAKE_LAUNCH_LOG];

    memset(l, 0, sizeof(*l));
    snprintf(l->kernel, sizeof(l->kernel), "%s", kernels[index].name);
    memcpy(l->grid, g, sizeof(l->grid));
    memcpy(l->block, b, sizeof(l->block));
    l->smem = smem;
    l->bytes_read = bytes_read;
    l->bytes_written = bytes_written;
    l->harness = kernels[index].harness;
}

static CUresult fake_cuLaunchKernel(CUfunction f, unsigned gx, unsigned gy, unsigned gz,
                                    unsigned bx, unsigned by, unsigned bz, unsigned smem,
                                    CUstream s, void **params, void **extra)
{
    struct fake_function *fn = (struct fake_function *)f;
    enum fake_kind kind = kernels[fn->index].kind;
    long long n = 0;

    (void)s;
    (void)extra;
    CHECK_STICKY();
    if (gx == 0 || gy == 0 || gz == 0 || bx == 0 || by == 0 || bz == 0 ||
        (uint64_t)bx * by * bz > 1024 || (int)smem > fn->max_dynamic_smem)
        return CUDA_ERROR_INVALID_VALUE;
    switch (kind) {
    case K_GENERATE:
        run_generate(params);
        break;
    case K_HASH:
        run_hash(params);
        break;
    case K_GUARD_FILL:
        run_guard(params, false);
        break;
    case K_GUARD_CHECK:
        run_guard(params, true);
        break;
    case K_POISON:
        run_poison(params);
        break;
    case K_GATHER:
        run_gather(params);
        break;
    case K_CLOCK:
        P(uint64_t *, 0)[0] = 15000000; /* 1500 MHz over 10 ms */
        P(uint64_t *, 0)[1] = 10000000;
        break;
    case K_BWCOPY: /* calibration copies are big: their bytes are not backed here */
        if (!is_big(P(CUdeviceptr, 1)))
            memmove((void *)(uintptr_t)P(CUdeviceptr, 1),
                    (const void *)(uintptr_t)P(CUdeviceptr, 0), (size_t)P(uint64_t, 2) * 16);
        else
            usleep(1000);
        break;
    case K_FFMA:
    case K_MMA:
        usleep(2000);
        break;
    case K_TRITON_ADD: /* n folded (5 parameters): 1; else 4 or 8 bytes */
        n = fn->n_params == 5         ? 1
            : fn->param_bytes[3] == 4 ? (long long)P(int, 3)
                                      : P(long long, 3);
        for (long long i = 0; i < n; i++)
            P(float *, 2)[i] = P(const float *, 0)[i] + P(const float *, 1)[i];
        break;
    case K_TRITON_NOOP:
        break;
    case K_ADD_REF:
        n = P(long long, 3);
        for (long long i = 0; i < n; i++)
            P(double *, 2)[i] = (double)P(const float *, 0)[i] + (double)P(const float *, 1)[i];
        break;
    case K_ADD_REF_ROWS: /* row = element (rows=(N)); the others keep their poison */
        for (long long j = 0; j < P(long long, 5); j++) {
            long long i = P(const long long *, 4)[j];
            P(double *, 2)[i] = (double)P(const float *, 0)[i] + (double)P(const float *, 1)[i];
        }
        break;
    case K_SLOW_ADD:
        usleep(200 * 1000);
        /* fall through */
    case K_VECTOR_ADD:
    case K_LAST_WRONG:
    case K_SKIP_ONE:
    case K_HANG_BIG:
    case K_FAULT_MID:
    case K_WRONG_256:
    case K_SLOW_64:
        n = P(long long, 3);
        if (kind == K_SLOW_64 && bx == 64)
            usleep(2000);
        if (kind == K_FAULT_MID && n > FAKE_PROFILE_N) {
            sticky = CUDA_ERROR_ILLEGAL_ADDRESS;
            break;
        }
        if (kind == K_HANG_BIG && n > FAKE_BIG_N) {
            hung = true;
            break;
        }
        for (long long i = 0; i < n; i++)
            if (kind != K_SKIP_ONE || n <= FAKE_BIG_N || i != n / 2)
                P(float *, 2)[i] = P(const float *, 0)[i] + P(const float *, 1)[i];
        if (kind == K_LAST_WRONG && n > FAKE_BIG_N)
            P(float *, 2)[n - 1] += 1.0f;
        if (kind == K_WRONG_256 && bx == 256 && n > 0)
            P(float *, 2)[0] += 1.0f;
        break;
    case K_COPY:
    case K_TAIL:
        n = P(long long, 2);
        for (long long i = 0; i < n + (kind == K_TAIL); i++)
            P(float *, 1)[i] = i < n ? P(const float *, 0)[i] : 0.0f;
        break;
    case K_BEFORE:
        n = P(long long, 1);
        for (long long i = -1; i < n; i++)
            P(float *, 0)[i] = 1.0f;
        break;
    case K_WRITE_IN:
        n = P(long long, 2);
        for (long long i = 0; i < n; i++)
            P(float *, 1)[i] = P(float *, 0)[i];
        if (n > 0)
            P(float *, 0)[0] += 1.0f;
        break;
    case K_PARTIAL:
        n = P(long long, 1);
        for (long long i = 0; i < n / 2; i++)
            P(float *, 0)[i] = 0.0f;
        break;
    case K_FAULT:
        sticky = CUDA_ERROR_ILLEGAL_ADDRESS;
        break;
    case K_HANG:
        hung = true;
        break;
    case K_INT_PARAM:
        for (int i = 0; i < P(int, 1); i++)
            P(float *, 0)[i] = (float)i;
        break;
    case K_SCALE:
        n = P(long long, 1);
        for (long long i = 0; i < n; i++)
            P(float *, 0)[i] *= 2.0f;
        break;
    case K_SMEM:
        n = P(long long, 1);
        for (long long i = 0; i < n; i++)
            P(float *, 0)[i] = (float)smem;
        break;
    case K_NOOP1:
    case K_NOOP2:
        break;
    }
    {
        const unsigned g[3] = {gx, gy, gz}, b[3] = {bx, by, bz};
        /* the elementwise stand-ins: two fp32 inputs read, one written (n is theirs) */
        bool add = kind == K_VECTOR_ADD || kind == K_SLOW_ADD || kind == K_LAST_WRONG ||
                   kind == K_SKIP_ONE || kind == K_FAULT_MID || kind == K_TRITON_ADD ||
                   kind == K_WRONG_256 || kind == K_SLOW_64;
        unsigned long long m = n > 0 ? (unsigned long long)n : 0;
        log_launch(fn->index, g, b, smem, add ? 8 * m : 0, add ? 4 * m : 0);
    }
    return CUDA_SUCCESS;
}

/* --- cuGetProcAddress -------------------------------------------------------------- */

static const struct {
    const char *name;
    void *fn;
} table[] = {
#define FAKE_FN(name)                                                                              \
    {                                                                                              \
#name, (void *)fake_##name                                                                 \
    }
    FAKE_FN(cuGetErrorName),
    FAKE_FN(cuGetErrorString),
    FAKE_FN(cuInit),
    FAKE_FN(cuDriverGetVersion),
    FAKE_FN(cuDeviceGetCount),
    FAKE_FN(cuDeviceGet),
    FAKE_FN(cuDeviceGetName),
    FAKE_FN(cuDeviceGetAttribute),
    FAKE_FN(cuDeviceTotalMem),
    FAKE_FN(cuDeviceGetUuid),
    FAKE_FN(cuDevicePrimaryCtxRetain),
    FAKE_FN(cuDevicePrimaryCtxRelease),
    FAKE_FN(cuCtxSetCurrent),

    FAKE_FN(cuCtxResetPersistingL2Cache),
    FAKE_FN(cuModuleLoadData),
    FAKE_FN(cuModuleUnload),
    FAKE_FN(cuModuleGetFunction),
    FAKE_FN(cuFuncGetAttribute),
    FAKE_FN(cuFuncSetAttribute),
    FAKE_FN(cuFuncGetParamInfo),
    FAKE_FN(cuOccupancyMaxActiveBlocksPerMultiprocessor),
    FAKE_FN(cuLaunchKernel),
    FAKE_FN(cuMemAlloc),
    FAKE_FN(cuMemFree),
    FAKE_FN(cuMemGetInfo),
    FAKE_FN(cuMemcpyHtoD),
    FAKE_FN(cuMemcpyDtoH),
    FAKE_FN(cuMemHostRegister),
    FAKE_FN(cuMemHostUnregister),
    FAKE_FN(cuMemcpyDtoDAsync),
    FAKE_FN(cuMemsetD8Async),
    FAKE_FN(cuMemsetD32Async),
    FAKE_FN(cuStreamCreate),
    FAKE_FN(cuStreamDestroy),
    FAKE_FN(cuStreamSynchronize),
    FAKE_FN(cuEventCreate),
    FAKE_FN(cuEventDestroy),
    FAKE_FN(cuEventRecord),
    FAKE_FN(cuEventSynchronize),
    FAKE_FN(cuEventElapsedTime),
#undef FAKE_FN
};

FAKE_EXPORT CUresult cuGetProcAddress_v2(const char *symbol, void **pfn, int version,
                                         cuuint64_t flags, CUdriverProcAddressQueryResult *status);
FAKE_EXPORT CUresult cuGetProcAddress_v2(const char *symbol, void **pfn, int version,
                                         cuuint64_t flags, CUdriverProcAddressQueryResult *status)
{
    (void)version;
    (void)flags;
    for (size_t i = 0; i < sizeof(table) / sizeof(table[0]); i++) {
        if (strcmp(table[i].name, symbol) == 0) {
            *pfn = table[i].fn;
            if (status)
                *status = CU_GET_PROC_ADDRESS_SUCCESS;
            return CUDA_SUCCESS;
        }
    }
    *pfn = NULL;
    if (status)
        *status = CU_GET_PROC_ADDRESS_SYMBOL_NOT_FOUND;
    return CUDA_ERROR_NOT_FOUND;
}
