#include "runner_exec.h"

#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <unistd.h>

#include "cuda.h"
#include "common/error.h"
#include "common/limits.h"
#include "common/stats.h"
#include "common/util.h"
#include "wire/ipc.h"
#include "common/banned.h"

#define HARNESS_THREADS 256
#define SMEM_STATIC_MAX (48 * 1024) /* dynamic smem above this needs the function attribute */
/* u64 result slots on the device: hashes, guard codes and poison counts of every allocation. */
#define RESULT_SLOTS    (2 * BW_MAX_BUFFERS * BW_MAX_BENCH_SETS + 16)
#define CLOCK_KERNEL_NS 10000000ull /* 10 ms of the clock kernel when NVML is absent */

/* Calibration sizes: one kernel or copy takes ~10-20 ms on an H200. */
#define CAL_COPY_BYTES                                                                             \
    (1ull << 30) /* bytes copied (read + written: twice that moved); 2 x 2 GiB failed with         \
                    CONTEXT_IS_DESTROYED in the runner on the H200 (not in a bare driver test) */
#define CAL_COPY_MIN_BYTES (256ull << 20)
#define CAL_FFMA_ITERS     (1 << 18)
#define CAL_MMA_ITERS      (1 << 17)
#define CAL_REPEATS        7

struct harness {
    CUmodule module;
    CUfunction generate, hash, guard_fill, guard_check, poison_count, gather, clock, copy, ffma,
        mma_f16, mma_bf16;
};

struct runner_exec {
    CUdevice dev;
    CUcontext ctx;
    struct harness h;
    CUmodule users[BW_MAX_LOADED_KERNELS]; /* the loaded modules (one, or one per image) */
    int n_users;
    struct {
        char name[BW_MAX_NAME + 1]; /* what launches call it */
        CUfunction fn;
    } loaded[BW_MAX_LOADED_KERNELS]; /* the kernels of the last load */
    int n_loaded;
    struct gpu_props props;
    uint32_t salt;       /* guard pattern, random per runner */
    CUdeviceptr results; /* RESULT_SLOTS u64 */
    CUevent ev[2 * BW_MAX_LAUNCHES + 2];
    int n_events;
    bool broken;
    CUresult last_error; /* the last failing driver call's result */
};

/* One device allocation: [guard][data: bytes][guard]. */
struct dev_buffer {
    CUdeviceptr base; /* from cuMemAlloc, 0 when not allocated */
    CUdeviceptr data; /* base + BW_GUARD_BYTES, 256-byte aligned */
    uint64_t bytes;
};

/* A plan staged on the device (not plan.h's struct plan, which the judge
 * builds): resolved kernels, marshalled arguments
 * per input set, and the buffers (in and inout buffers once per set; out and
 * scratch buffers only in set 0). argv holds each argument's value
 * little-endian in 8 bytes; params[r][l] points into argv[r][l]. */
struct staged_plan {
    const struct run_plan *plan;
    int sets;
    struct dev_buffer buf[BW_MAX_BUFFERS][BW_MAX_BENCH_SETS];
    uint64_t in_hash[BW_MAX_BUFFERS][BW_MAX_BENCH_SETS];
    CUfunction fn[BW_MAX_LAUNCHES];
    uint32_t param_bytes[BW_MAX_LAUNCHES][BW_MAX_LAUNCH_ARGS];
    uint64_t argv[BW_MAX_BENCH_SETS][BW_MAX_LAUNCHES][BW_MAX_LAUNCH_ARGS];
    void *params[BW_MAX_BENCH_SETS][BW_MAX_LAUNCHES][BW_MAX_LAUNCH_ARGS];
    bool launched; /* a kernel of the plan has been launched */
    uint32_t
        smem_granted[BW_MAX_LAUNCHES]; /* the dynamic smem limit set on fn[l]; 0: the default */
};

/* A failed driver call of the harness: marks the context broken when the
 * error is sticky, fills cause, returns BW_ERR_CUDA. */
static int xfail(struct runner_exec *x, CUresult rc, char **cause, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
static int xfail(struct runner_exec *x, CUresult rc, char **cause, const char *fmt, ...)
{
    char what[256];
    va_list ap;

    if (cuda_error_is_sticky(rc))
        x->broken = true;
    x->last_error = rc;
    va_start(ap, fmt);
    vsnprintf(what, sizeof(what), fmt, ap);
    va_end(ap);
    return cuda_fail(cause, rc, "%s", what);
}

/* Sets a failure of status s with CUDA error rc (0: none) and a message. */
static void set_failure(struct run_failure *f, enum run_status s, CUresult rc, int launch,
                        const char *fmt, ...) __attribute__((format(printf, 5, 6)));
static void set_failure(struct run_failure *f, enum run_status s, CUresult rc, int launch,
                        const char *fmt, ...)
{
    va_list ap;

    f->status = s;
    f->launch = launch;
    if (rc != CUDA_SUCCESS)
        snprintf(f->error, sizeof(f->error), "%s", cuda_error_name(rc));
    va_start(ap, fmt);
    vsnprintf(f->message, sizeof(f->message), fmt, ap);
    va_end(ap);
}

bool runner_exec_broken(const struct runner_exec *x)
{
    return x->broken;
}

/* --- harness launches ------------------------------------------------------------- */

/* Launches a grid-stride harness kernel over n items. */
static CUresult launch_over(const struct runner_exec *x, CUfunction f, uint64_t n, void **params)
{
    uint64_t blocks = (n + HARNESS_THREADS - 1) / HARNESS_THREADS;
    uint64_t cap = (uint64_t)x->props.sm_count * 32;

    if (blocks > cap)
        blocks = cap;
    if (blocks == 0)
        blocks = 1;
    return cu.cuLaunchKernel(f, (unsigned)blocks, 1, 1, HARNESS_THREADS, 1, 1, 0, NULL, params,
                             NULL);
}

/* The guard salt of one buffer: the runner's secret salt mixed with the
 * buffer's address, so a copy of another buffer's band (at the same offset)
 * does not match (found by the P29 authoring: copying one cache's trailing
 * guard onto another's went unnoticed with a salt shared by all buffers). */
static unsigned int guard_salt(const struct runner_exec *x, const struct dev_buffer *b)
{
    uint64_t z = (uint64_t)b->data * 0x9E3779B97F4A7C15ull;
    return x->salt ^ (unsigned int)(z >> 32) ^ (unsigned int)z;
}

static CUresult guard_fill(const struct runner_exec *x, const struct dev_buffer *b)
{
    CUdeviceptr before = b->base, after = b->data + b->bytes;
    unsigned int bytes = BW_GUARD_BYTES, salt = guard_salt(x, b);
    void *params[] = {&before, &after, &bytes, &salt};
    return launch_over(x, x->h.guard_fill, 2ull * BW_GUARD_BYTES, params);
}

static CUresult guard_check(const struct runner_exec *x, const struct dev_buffer *b,
                            CUdeviceptr slot)
{
    CUdeviceptr before = b->base, after = b->data + b->bytes;
    unsigned int bytes = BW_GUARD_BYTES, salt = guard_salt(x, b);
    void *params[] = {&before, &after, &bytes, &salt, &slot};
    return launch_over(x, x->h.guard_check, 2ull * BW_GUARD_BYTES, params);
}

static CUresult hash_launch(const struct runner_exec *x, const struct dev_buffer *b,
                            CUdeviceptr slot)
{
    CUdeviceptr p = b->data;
    uint64_t n = b->bytes;
    void *params[] = {&p, &n, &slot};
    return launch_over(x, x->h.hash, n / 8 + 1, params);
}

static CUresult poison_launch(const struct runner_exec *x, const struct dev_buffer *b,
                              unsigned int elem_size, CUdeviceptr slot)
{
    CUdeviceptr p = b->data;
    uint64_t n = b->bytes / elem_size;
    void *params[] = {&p, &n, &elem_size, &slot};
    return launch_over(x, x->h.poison_count, n, params);
}

static CUresult gather_launch(const struct runner_exec *x, CUdeviceptr src, unsigned int elem_size,
                              CUdeviceptr idx, uint64_t n, CUdeviceptr dst, uint64_t count)
{
    void *params[] = {&src, &elem_size, &idx, &n, &dst, &count};
    return launch_over(x, x->h.gather, n, params);
}

static CUresult generate_launch(const struct runner_exec *x, const struct dev_buffer *b,
                                uint64_t count, const struct gen_spec *spec, uint64_t seed,
                                uint32_t case_index)
{
    CUdeviceptr out = b->data;
    struct gen_spec g = *spec;
    uint64_t n = count;
    unsigned int c = case_index;
    void *params[] = {&out, &n, &g, &seed, &c};
    return launch_over(x, x->h.generate, n, params);
}

/* Copies n u64 result slots to the host (waits for the queued work). */
static int read_slots(struct runner_exec *x, uint64_t *dst, int n, char **cause)
{
    CUresult rc;

    if (n == 0)
        return BW_OK;
    rc = cu.cuMemcpyDtoH(dst, x->results, (size_t)n * sizeof(uint64_t));
    if (rc != CUDA_SUCCESS)
        return xfail(x, rc, cause, "reading harness results");
    return BW_OK;
}

/* Sets n result slots to `word` repeated (0 or 0xFFFFFFFF). */
static int clear_slots(struct runner_exec *x, int first, int n, unsigned int word, char **cause)
{
    CUresult rc;

    if (n == 0)
        return BW_OK;
    rc = cu.cuMemsetD32Async(x->results + (CUdeviceptr)first * 8, word, (size_t)n * 2, NULL);
    if (rc != CUDA_SUCCESS)
        return xfail(x, rc, cause, "clearing harness results");
    return BW_OK;
}

/* The SM clock in MHz now: NVML, else the clock kernel; 0 if neither works. */
static double clock_mhz(struct runner_exec *x)
{
    unsigned nvml = cuda_nvml_sm_clock_mhz();
    uint64_t out[2] = {0, 0}, ns = CLOCK_KERNEL_NS;
    CUdeviceptr slot = x->results;
    void *params[] = {&slot, &ns};

    if (nvml)
        return nvml;
    if (cu.cuLaunchKernel(x->h.clock, 1, 1, 1, 1, 1, 1, 0, NULL, params, NULL) != CUDA_SUCCESS ||
        cu.cuMemcpyDtoH(out, x->results, sizeof(out)) != CUDA_SUCCESS || out[1] == 0)
        return 0;
    return 1000.0 * (double)out[0] / (double)out[1];
}

/* --- open and close -------------------------------------------------------------- */

static int get_attr(struct runner_exec *x, CUdevice_attribute a, int *out, const char *name,
                    char **cause)
{
    CUresult rc = cu.cuDeviceGetAttribute(out, a, x->dev);
    if (rc != CUDA_SUCCESS)
        return xfail(x, rc, cause, "cuDeviceGetAttribute(%s)", name);
    return BW_OK;
}

static int describe_device(struct runner_exec *x, struct gpu_props *p, char **cause)
{
    CUuuid uuid;
    size_t mem = 0;
    int clock_khz = 0, l2 = 0, rc;
    CUresult crc;

    memset(p, 0, sizeof(*p));
    if ((crc = cu.cuDeviceGetName(p->name, (int)sizeof(p->name), x->dev)) != CUDA_SUCCESS)
        return xfail(x, crc, cause, "cuDeviceGetName");
    if ((crc = cu.cuDeviceTotalMem(&mem, x->dev)) != CUDA_SUCCESS)
        return xfail(x, crc, cause, "cuDeviceTotalMem");
    if ((crc = cu.cuDeviceGetUuid(&uuid, x->dev)) != CUDA_SUCCESS)
        return xfail(x, crc, cause, "cuDeviceGetUuid");
    if ((crc = cu.cuDriverGetVersion(&p->driver_version)) != CUDA_SUCCESS)
        return xfail(x, crc, cause, "cuDriverGetVersion");
    if ((rc = get_attr(x, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR, &p->cc_major,
                       "COMPUTE_CAPABILITY_MAJOR", cause)) ||
        (rc = get_attr(x, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR, &p->cc_minor,
                       "COMPUTE_CAPABILITY_MINOR", cause)) ||
        (rc = get_attr(x, CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT, &p->sm_count,
                       "MULTIPROCESSOR_COUNT", cause)) ||
        (rc = get_attr(x, CU_DEVICE_ATTRIBUTE_L2_CACHE_SIZE, &l2, "L2_CACHE_SIZE", cause)) ||
        (rc = get_attr(x, CU_DEVICE_ATTRIBUTE_CLOCK_RATE, &clock_khz, "CLOCK_RATE", cause)) ||
        (rc = get_attr(x, CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK_OPTIN,
                       &p->smem_per_block_optin, "MAX_SHARED_MEMORY_PER_BLOCK_OPTIN", cause)))
        return rc;
    p->memory_bytes = mem;
    p->l2_bytes = (uint64_t)l2;
    p->max_clock_mhz = clock_khz / 1000;
    cuda_format_uuid(&uuid, p->uuid);
    return BW_OK;
}

static int load_harness(struct runner_exec *x, const void *fatbin, char **cause)
{
    struct {
        const char *name;
        CUfunction *fn;
    } fns[] = {
        {"bw_generate", &x->h.generate},
        {"bw_hash", &x->h.hash},
        {"bw_guard_fill", &x->h.guard_fill},
        {"bw_guard_check", &x->h.guard_check},
        {"bw_poison_count", &x->h.poison_count},
        {"bw_gather", &x->h.gather},
        {"bw_clock", &x->h.clock},
        {"bw_copy", &x->h.copy},
        {"bw_ffma", &x->h.ffma},
        {"bw_mma_f16", &x->h.mma_f16},
        {"bw_mma_bf16", &x->h.mma_bf16},
    };
    CUresult rc = cu.cuModuleLoadData(&x->h.module, fatbin);

    if (rc != CUDA_SUCCESS)
        return xfail(x, rc, cause, "loading the harness kernels (cuModuleLoadData of the fatbin)");
    for (size_t i = 0; i < sizeof(fns) / sizeof(fns[0]); i++) {
        rc = cu.cuModuleGetFunction(fns[i].fn, x->h.module, fns[i].name);
        if (rc != CUDA_SUCCESS)
            return xfail(x, rc, cause, "harness kernel %s", fns[i].name);
    }
    return BW_OK;
}

int runner_exec_open(int device, const void *fatbin, struct runner_exec **out,
                     struct gpu_props *props, char **cause)
{
    struct runner_exec *x;
    int count = 0, rc;
    CUresult crc;

    *out = NULL;
    crc = cu.cuDeviceGetCount(&count);
    if (crc != CUDA_SUCCESS) {
        cuda_fail(cause, crc, "cuDeviceGetCount");
        return BW_ERR_NODEVICE;
    }
    if (device < 0 || device >= count)
        return bw_fail(cause, BW_ERR_NODEVICE,
                       "CUDA device %d does not exist (this machine has %d)", device, count);
    x = calloc(1, sizeof(*x));
    if (!x)
        return bw_fail(cause, BW_ERR_NOMEM, "out of memory");
    if ((crc = cu.cuDeviceGet(&x->dev, device)) != CUDA_SUCCESS) {
        rc = xfail(x, crc, cause, "cuDeviceGet(%d)", device);
        goto free_x;
    }
    if ((rc = describe_device(x, &x->props, cause)))
        goto free_x;
    if ((crc = cu.cuDevicePrimaryCtxRetain(&x->ctx, x->dev)) != CUDA_SUCCESS) {
        rc = xfail(x, crc, cause, "cuDevicePrimaryCtxRetain");
        goto free_x;
    }
    if ((crc = cu.cuCtxSetCurrent(x->ctx)) != CUDA_SUCCESS) {
        rc = xfail(x, crc, cause, "cuCtxSetCurrent");
        goto release_ctx;
    }
    if ((rc = load_harness(x, fatbin, cause)))
        goto release_ctx;
    if ((crc = cu.cuMemAlloc(&x->results, RESULT_SLOTS * sizeof(uint64_t))) != CUDA_SUCCESS) {
        rc = xfail(x, crc, cause, "cuMemAlloc of the harness results");
        goto release_ctx;
    }
    for (x->n_events = 0; x->n_events < (int)(sizeof(x->ev) / sizeof(x->ev[0])); x->n_events++) {
        crc = cu.cuEventCreate(&x->ev[x->n_events], CU_EVENT_DEFAULT);
        if (crc != CUDA_SUCCESS) {
            rc = xfail(x, crc, cause, "cuEventCreate");
            goto release_ctx;
        }
    }
    if (getrandom(&x->salt, sizeof(x->salt), 0) != (ssize_t)sizeof(x->salt))
        x->salt = (uint32_t)now_ns() ^ (uint32_t)getpid();
    x->props.nvml = cuda_nvml_open(x->props.uuid);
    *props = x->props;
    *out = x;
    return BW_OK;

release_ctx:
    cu.cuDevicePrimaryCtxRelease(x->dev);
free_x:
    free(x);
    return rc;
}

void runner_exec_close(struct runner_exec *x)
{
    if (!x)
        return;
    if (!x->broken) {
        for (int i = 0; i < x->n_events; i++)
            cu.cuEventDestroy(x->ev[i]);
        if (x->results)
            cu.cuMemFree(x->results);
        for (int i = 0; i < x->n_users; i++)
            cu.cuModuleUnload(x->users[i]);
        if (x->h.module)
            cu.cuModuleUnload(x->h.module);
        cu.cuDevicePrimaryCtxRelease(x->dev);
    }
    free(x);
}

/* --- load ------------------------------------------------------------------------- */

static int describe_kernel(struct runner_exec *x, CUfunction f, struct kernel_info *k,
                           struct run_failure *fail, char **cause)
{
    struct {
        CUfunction_attribute attr;
        int *out;
        const char *name;
    } attrs[] = {
        {CU_FUNC_ATTRIBUTE_NUM_REGS, &k->regs, "NUM_REGS"},
        {CU_FUNC_ATTRIBUTE_SHARED_SIZE_BYTES, &k->static_smem, "SHARED_SIZE_BYTES"},
        {CU_FUNC_ATTRIBUTE_LOCAL_SIZE_BYTES, &k->local_bytes, "LOCAL_SIZE_BYTES"},
        {CU_FUNC_ATTRIBUTE_MAX_THREADS_PER_BLOCK, &k->max_threads, "MAX_THREADS_PER_BLOCK"},
    };
    CUresult rc;

    for (size_t i = 0; i < sizeof(attrs) / sizeof(attrs[0]); i++) {
        rc = cu.cuFuncGetAttribute(attrs[i].out, attrs[i].attr, f);
        if (rc != CUDA_SUCCESS)
            return xfail(x, rc, cause, "cuFuncGetAttribute(%s) of %s", attrs[i].name, k->name);
    }
    for (k->n_params = 0;; k->n_params++) {
        size_t offset = 0, size = 0;
        rc = cu.cuFuncGetParamInfo(f, (size_t)k->n_params, &offset, &size);
        if (rc == CUDA_ERROR_INVALID_VALUE)
            break; /* past the last parameter */
        if (rc != CUDA_SUCCESS)
            return xfail(x, rc, cause, "cuFuncGetParamInfo(%d) of %s", k->n_params, k->name);
        if (k->n_params == BW_MAX_LAUNCH_ARGS) {
            set_failure(fail, RUN_ERROR, CUDA_SUCCESS, -1,
                        "kernel %s has more than %d parameters (BW_MAX_LAUNCH_ARGS)", k->name,
                        BW_MAX_LAUNCH_ARGS);
            return BW_OK;
        }
        k->param_bytes[k->n_params] = (uint32_t)size;
    }
    return BW_OK;
}

/* Unloads every module of the previous load. */
static int unload_all(struct runner_exec *x, char **cause)
{
    int rc = BW_OK;

    for (int i = 0; i < x->n_users; i++) {
        CUresult r = cu.cuModuleUnload(x->users[i]);
        if (r != CUDA_SUCCESS && rc == BW_OK)
            rc = xfail(x, r, cause, "unloading the previous module");
    }
    x->n_users = 0;
    x->n_loaded = 0;
    return rc;
}

/* Loads one module from image[0, len); a refusal is the reply's failure. */
static bool load_module(struct runner_exec *x, const unsigned char *image, size_t len,
                        struct run_failure *fail)
{
    CUmodule m = NULL;
    CUresult rc = cu.cuModuleLoadData(&m, image);

    if (rc != CUDA_SUCCESS) {
        if (cuda_error_is_sticky(rc))
            x->broken = true;
        set_failure(fail, RUN_ERROR, rc, -1, "cuModuleLoadData of a %zu-byte image: %s", len,
                    cuda_error_string(rc));
        return false;
    }
    x->users[x->n_users++] = m;
    return true;
}

int runner_exec_load(struct runner_exec *x, const void *image, size_t len,
                     const struct load_request *req, struct load_reply *reply, char **cause)
{
    const unsigned char *bytes = image;
    CUresult rc;
    int brc;

    memset(reply, 0, sizeof(*reply));
    run_failure_init(&reply->fail);
    brc = unload_all(x, cause);
    if (brc)
        return brc;
    if (!image || len == 0) {
        set_failure(&reply->fail, RUN_ERROR, CUDA_SUCCESS, -1, "the module image is empty");
        return BW_OK;
    }
    if (req->n_images == 0 && !load_module(x, bytes, len, &reply->fail))
        return BW_OK;
    for (int i = 0; i < req->n_kernels; i++) {
        struct kernel_info *k = &reply->kernels[i];
        const char *symbol = req->kernels[i];
        CUmodule m = x->users[0];
        CUfunction f;

        if (req->n_images > 0) {
            const struct load_image *im = &req->images[i];
            if (im->offset > len || im->bytes > len - im->offset) {
                set_failure(&reply->fail, RUN_ERROR, CUDA_SUCCESS, -1,
                            "image %d lies outside the %zu bytes sent", i, len);
                return BW_OK;
            }
            if (!load_module(x, bytes + im->offset, (size_t)im->bytes, &reply->fail))
                return BW_OK;
            m = x->users[x->n_users - 1];
            symbol = im->symbol;
        }
        snprintf(k->name, sizeof(k->name), "%s", req->kernels[i]);
        rc = cu.cuModuleGetFunction(&f, m, symbol);
        if (rc != CUDA_SUCCESS) {
            set_failure(&reply->fail, RUN_ERROR, rc, -1, "kernel %s is not in the module: %s",
                        symbol, cuda_error_string(rc));
            return BW_OK;
        }
        brc = describe_kernel(x, f, k, &reply->fail, cause);
        if (brc || reply->fail.status != RUN_OK)
            return brc;
        snprintf(x->loaded[i].name, sizeof(x->loaded[i].name), "%s", req->kernels[i]);
        x->loaded[i].fn = f;
        x->n_loaded = i + 1;
        reply->n_kernels = i + 1;
    }
    return BW_OK;
}

/* The loaded kernel launches call `name`, or NULL. */
static CUfunction loaded_function(const struct runner_exec *x, const char *name)
{
    for (int i = 0; i < x->n_loaded; i++)
        if (strcmp(x->loaded[i].name, name) == 0)
            return x->loaded[i].fn;
    return NULL;
}

/* --- plans: resolve, allocate, fill, launch, check ---------------------------------- */

static int copies_of(const struct staged_plan *st, int b)
{
    enum run_role role = st->plan->buffers[b].role;
    return role == RUN_ROLE_IN || role == RUN_ROLE_INOUT ? st->sets : 1;
}

static const char *arg_kind_text(enum run_arg_kind k)
{
    switch (k) {
    case RUN_ARG_BUF:
        return "a pointer";
    case RUN_ARG_I64:
        return "int64";
    case RUN_ARG_I32:
        return "int32";
    case RUN_ARG_U64:
        return "uint64";
    case RUN_ARG_U32:
        return "uint32";
    case RUN_ARG_F32:
        return "fp32";
    case RUN_ARG_F64:
        return "fp64";
    case RUN_ARG_INT:
        return "an integer literal";
    }
    return "?";
}

/* Bytes an argument of kind k occupies (0: matches 4 or 8). */
static uint32_t arg_bytes(enum run_arg_kind k)
{
    switch (k) {
    case RUN_ARG_I32:
    case RUN_ARG_U32:
    case RUN_ARG_F32:
        return 4;
    case RUN_ARG_INT:
        return 0;
    default:
        return 8;
    }
}

/*
 * Finds every launch's kernel and checks its arguments against the
 * parameters. A missing kernel is a launch error, a size mismatch an
 * arg_mismatch, both reported in *fail.
 */
static int staged_resolve(struct runner_exec *x, struct staged_plan *st, struct run_failure *fail,
                          char **cause)
{
    const struct run_plan *p = st->plan;

    if (x->n_loaded == 0) {
        set_failure(fail, RUN_ERROR, CUDA_SUCCESS, -1, "no module is loaded (send load first)");
        return BW_OK;
    }
    for (int l = 0; l < p->n_launches; l++) {
        const struct run_launch *L = &p->launches[l];
        int n_params;
        CUresult rc;

        st->fn[l] = loaded_function(x, L->kernel);
        if (!st->fn[l]) {
            set_failure(fail, RUN_LAUNCH_ERROR, CUDA_ERROR_NOT_FOUND, l,
                        "launch %d: kernel %s was not loaded", l, L->kernel);
            return BW_OK;
        }
        for (n_params = 0; n_params <= BW_MAX_LAUNCH_ARGS; n_params++) {
            size_t offset = 0, size = 0;
            rc = cu.cuFuncGetParamInfo(st->fn[l], (size_t)n_params, &offset, &size);
            if (rc == CUDA_ERROR_INVALID_VALUE)
                break;
            if (rc != CUDA_SUCCESS)
                return xfail(x, rc, cause, "cuFuncGetParamInfo(%d) of %s", n_params, L->kernel);
            if (n_params < BW_MAX_LAUNCH_ARGS)
                st->param_bytes[l][n_params] = (uint32_t)size;
        }
        if (n_params != L->n_args) {
            set_failure(fail, RUN_ARG_MISMATCH, CUDA_SUCCESS, l,
                        "launch %d: %s takes %d parameter%s but %d argument%s given", l, L->kernel,
                        n_params, n_params == 1 ? "" : "s", L->n_args,
                        L->n_args == 1 ? " is" : "s are");
            return BW_OK;
        }
        for (int a = 0; a < L->n_args; a++) {
            const struct run_arg *A = &L->args[a];
            uint32_t want = st->param_bytes[l][a], have = arg_bytes(A->kind);
            bool fits = have ? have == want : (want == 4 || want == 8);

            if (A->kind == RUN_ARG_INT && want == 4 && (A->i < INT32_MIN || A->i > INT32_MAX)) {
                set_failure(fail, RUN_ARG_MISMATCH, CUDA_SUCCESS, l,
                            "argument %d of %s: %s%s%" PRId64 " does not fit the 4-byte parameter",
                            a + 1, L->kernel, A->name, A->name[0] ? " = " : "", A->i);
                return BW_OK;
            }
            if (!fits) {
                char size[32];
                if (have)
                    snprintf(size, sizeof(size), " (%u bytes)", have);
                else
                    snprintf(size, sizeof(size), " (4 or 8 bytes)");
                set_failure(fail, RUN_ARG_MISMATCH, CUDA_SUCCESS, l,
                            "argument %d of %s: %s%s%s%s but the parameter is %u bytes", a + 1,
                            L->kernel, A->name[0] ? A->name : "", A->name[0] ? " is " : "is ",
                            arg_kind_text(A->kind), size, want);
                return BW_OK;
            }
        }
    }
    return BW_OK;
}

/* Fills argv/params of set r (after the buffers are allocated). */
static void staged_marshal(struct staged_plan *st, int r)
{
    const struct run_plan *p = st->plan;

    for (int l = 0; l < p->n_launches; l++) {
        const struct run_launch *L = &p->launches[l];
        for (int a = 0; a < L->n_args; a++) {
            const struct run_arg *A = &L->args[a];
            uint64_t *slot = &st->argv[r][l][a];
            float f32;
            int32_t i32;
            uint32_t u32;

            *slot = 0;
            switch (A->kind) {
            case RUN_ARG_BUF: {
                int set = copies_of(st, A->buf) > 1 ? r : 0;
                *slot = st->buf[A->buf][set].data;
                break;
            }
            case RUN_ARG_I64:
                memcpy(slot, &A->i, 8);
                break;
            case RUN_ARG_U64:
                memcpy(slot, &A->u, 8);
                break;
            case RUN_ARG_F64:
                memcpy(slot, &A->f, 8);
                break;
            case RUN_ARG_I32:
                i32 = (int32_t)A->i;
                memcpy(slot, &i32, 4);
                break;
            case RUN_ARG_U32:
                u32 = (uint32_t)A->u;
                memcpy(slot, &u32, 4);
                break;
            case RUN_ARG_F32:
                f32 = (float)A->f;
                memcpy(slot, &f32, 4);
                break;
            case RUN_ARG_INT:
                if (st->param_bytes[l][a] == 4) {
                    i32 = (int32_t)A->i;
                    memcpy(slot, &i32, 4);
                } else {
                    memcpy(slot, &A->i, 8);
                }
                break;
            }
            st->params[r][l][a] = slot;
        }
    }
}

static void staged_free(struct runner_exec *x, struct staged_plan *st)
{
    if (x->broken)
        return; /* the process exits; the driver frees everything */
    for (int b = 0; b < BW_MAX_BUFFERS; b++)
        for (int r = 0; r < BW_MAX_BENCH_SETS; r++)
            if (st->buf[b][r].base) {
                cu.cuMemFree(st->buf[b][r].base);
                st->buf[b][r].base = 0;
            }
}

/* Allocates every buffer with its guards and fills the guards. */
static int staged_alloc(struct runner_exec *x, struct staged_plan *st, char **cause)
{
    const struct run_plan *p = st->plan;

    for (int b = 0; b < p->n_buffers; b++) {
        const struct run_buffer *B = &p->buffers[b];
        uint64_t bytes = B->count * dtype_size(B->dtype);
        for (int r = 0; r < copies_of(st, b); r++) {
            struct dev_buffer *d = &st->buf[b][r];
            CUresult rc = cu.cuMemAlloc(&d->base, (size_t)(bytes + 2ull * BW_GUARD_BYTES));
            if (rc != CUDA_SUCCESS) {
                d->base = 0;
                return xfail(x, rc, cause, "cuMemAlloc of %" PRIu64 " bytes for buffer %s", bytes,
                             B->name);
            }
            d->data = d->base + BW_GUARD_BYTES;
            d->bytes = bytes;
            if (d->data % 256 != 0)
                return bw_fail(cause, BW_ERR_INTERNAL,
                               "buffer %s: data at 0x%llx is not 256-byte aligned", B->name,
                               (unsigned long long)d->data);
            rc = guard_fill(x, d);
            if (rc != CUDA_SUCCESS)
                return xfail(x, rc, cause, "filling the guards of buffer %s", B->name);
        }
    }
    return BW_OK;
}

/* Generates the in and inout buffers of set r (case_index + r); with
 * inout_only, only the inout ones (they are restored before each bench run). */
static int staged_generate(struct runner_exec *x, struct staged_plan *st, int r, bool inout_only,
                           char **cause)
{
    const struct run_plan *p = st->plan;

    for (int b = 0; b < p->n_buffers; b++) {
        const struct run_buffer *B = &p->buffers[b];
        CUresult rc;
        if (B->role != RUN_ROLE_INOUT && (inout_only || B->role != RUN_ROLE_IN))
            continue;
        rc = generate_launch(x, &st->buf[b][r], B->count, &B->gen, p->seed,
                             p->case_index + (uint32_t)r);
        if (rc != CUDA_SUCCESS)
            return xfail(x, rc, cause, "generating buffer %s", B->name);
    }
    return BW_OK;
}

/* Hashes every `in` buffer of every set into out[b][r]. */
static int staged_hash_inputs(struct runner_exec *x, struct staged_plan *st,
                              uint64_t out[BW_MAX_BUFFERS][BW_MAX_BENCH_SETS], char **cause)
{
    const struct run_plan *p = st->plan;
    uint64_t slots[RESULT_SLOTS];
    int n = 0, rc;

    for (int b = 0; b < p->n_buffers; b++)
        if (p->buffers[b].role == RUN_ROLE_IN)
            n += st->sets;
    if ((rc = clear_slots(x, 0, n, 0, cause)))
        return rc;
    n = 0;
    for (int b = 0; b < p->n_buffers; b++) {
        if (p->buffers[b].role != RUN_ROLE_IN)
            continue;
        for (int r = 0; r < st->sets; r++, n++) {
            CUresult crc = hash_launch(x, &st->buf[b][r], x->results + (CUdeviceptr)n * 8);
            if (crc != CUDA_SUCCESS)
                return xfail(x, crc, cause, "hashing buffer %s", p->buffers[b].name);
        }
    }
    if ((rc = read_slots(x, slots, n, cause)))
        return rc;
    n = 0;
    for (int b = 0; b < p->n_buffers; b++)
        if (p->buffers[b].role == RUN_ROLE_IN)
            for (int r = 0; r < st->sets; r++)
                out[b][r] = slots[n++];
    return BW_OK;
}

/* Compares the `in` buffers' hashes with those taken after generation. */
static int staged_check_inputs(struct runner_exec *x, struct staged_plan *st,
                               struct run_failure *fail, char **cause)
{
    uint64_t now[BW_MAX_BUFFERS][BW_MAX_BENCH_SETS];
    const struct run_plan *p = st->plan;
    int rc = staged_hash_inputs(x, st, now, cause);

    if (rc)
        return rc;
    for (int b = 0; b < p->n_buffers; b++) {
        if (p->buffers[b].role != RUN_ROLE_IN)
            continue;
        for (int r = 0; r < st->sets; r++) {
            if (now[b][r] == st->in_hash[b][r])
                continue;
            set_failure(fail, RUN_INPUT_MODIFIED, CUDA_SUCCESS, -1,
                        "input %s was modified by the kernel (it must be read-only)",
                        p->buffers[b].name);
            fail->buf = b;
            return BW_OK;
        }
    }
    return BW_OK;
}

/* Poisons outputs with 0xFF and zeroes scratch (set 0: they have one copy). */
static int staged_reset_outputs(struct runner_exec *x, struct staged_plan *st, char **cause)
{
    const struct run_plan *p = st->plan;

    for (int b = 0; b < p->n_buffers; b++) {
        const struct run_buffer *B = &p->buffers[b];
        CUresult rc;
        if (B->role != RUN_ROLE_OUT && B->role != RUN_ROLE_SCRATCH)
            continue;
        if (st->buf[b][0].bytes == 0)
            continue;
        rc = cu.cuMemsetD8Async(st->buf[b][0].data, B->role == RUN_ROLE_OUT ? 0xFF : 0x00,
                                (size_t)st->buf[b][0].bytes, NULL);
        if (rc != CUDA_SUCCESS)
            return xfail(x, rc, cause, "%s buffer %s",
                         B->role == RUN_ROLE_OUT ? "poisoning" : "zeroing", B->name);
    }
    return BW_OK;
}

/*
 * Checks every guard band; the first violation (lowest buffer, then set)
 * goes to *fail. Slots [0, n_allocs) are used.
 */
static int staged_check_guards(struct runner_exec *x, struct staged_plan *st,
                               struct run_failure *fail, char **cause)
{
    const struct run_plan *p = st->plan;
    uint64_t codes[RESULT_SLOTS];
    int n = 0, rc;

    for (int b = 0; b < p->n_buffers; b++)
        n += copies_of(st, b);
    if ((rc = clear_slots(x, 0, n, 0xFFFFFFFFu, cause)))
        return rc;
    n = 0;
    for (int b = 0; b < p->n_buffers; b++) {
        for (int r = 0; r < copies_of(st, b); r++, n++) {
            CUresult crc = guard_check(x, &st->buf[b][r], x->results + (CUdeviceptr)n * 8);
            if (crc != CUDA_SUCCESS)
                return xfail(x, crc, cause, "checking the guards of buffer %s", p->buffers[b].name);
        }
    }
    if ((rc = read_slots(x, codes, n, cause)))
        return rc;
    n = 0;
    for (int b = 0; b < p->n_buffers; b++) {
        for (int r = 0; r < copies_of(st, b); r++, n++) {
            uint64_t code = codes[n];
            if (code == UINT64_MAX)
                continue;
            fail->status = RUN_GUARD_VIOLATION;
            fail->buf = b;
            if (code < BW_GUARD_BYTES) {
                fail->after = true;
                fail->offset = (int64_t)(st->buf[b][r].bytes + code);
                snprintf(fail->message, sizeof(fail->message),
                         "a write past the end of %s: byte %" PRIu64 " after its last byte (its "
                         "size is %" PRIu64 " bytes)",
                         p->buffers[b].name, code, st->buf[b][r].bytes);
            } else {
                uint64_t before = code - BW_GUARD_BYTES + 1;
                fail->after = false;
                fail->offset = -(int64_t)before;
                snprintf(fail->message, sizeof(fail->message),
                         "a write before the start of %s: %" PRIu64 " byte%s before its first "
                         "byte",
                         p->buffers[b].name, before, before == 1 ? "" : "s");
            }
            return BW_OK;
        }
    }
    return BW_OK;
}

/* Prepares st for plan p with `sets` input sets: resolve, allocate, generate,
 * hash. A kernel's failure goes to *fail (status set), a harness one to the
 * return code. */
static int staged_setup(struct runner_exec *x, const struct run_plan *p, int sets,
                        struct staged_plan *st, struct run_failure *fail, char **cause)
{
    int rc;

    st->plan = p;
    st->sets = sets;
    if ((rc = staged_resolve(x, st, fail, cause)) || fail->status != RUN_OK)
        return rc;
    if ((rc = staged_alloc(x, st, cause)))
        return rc;
    for (int r = 0; r < sets; r++) {
        staged_marshal(st, r);
        if ((rc = staged_generate(x, st, r, false, cause)))
            return rc;
    }
    return staged_hash_inputs(x, st, st->in_hash, cause);
}

/*
 * Launches the plan with the arguments of set r. With sync_each, waits after
 * every launch so that a fault is pinned to its launch, and adds the launches'
 * event times to *ms; otherwise records events around the whole plan and
 * waits once (*ms = their time). Launch refusals and faults go to *fail.
 */
static int staged_launch(struct runner_exec *x, struct staged_plan *st, int r, bool sync_each,
                         double *ms, struct run_failure *fail, char **cause)
{
    const struct run_plan *p = st->plan;
    CUevent start = x->ev[0], end = x->ev[1];
    float t = 0;
    CUresult rc;

    *ms = 0;
    if (!sync_each && (rc = cu.cuEventRecord(start, NULL)) != CUDA_SUCCESS)
        return xfail(x, rc, cause, "cuEventRecord");
    for (int l = 0; l < p->n_launches; l++) {
        const struct run_launch *L = &p->launches[l];

        /* Static plus dynamic shared memory above 48 KiB needs the
         * kernel's dynamic limit raised, even when the dynamic part alone
         * is below 48 KiB (seen on the H200: 41 KB dynamic + 16 KB static
         * was refused with CUDA_ERROR_INVALID_VALUE). Set once per plan,
         * so the timed launches carry no driver call. */
        if (L->smem > 0 && st->smem_granted[l] != L->smem) {
            rc = cu.cuFuncSetAttribute(st->fn[l], CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES,
                                       (int)L->smem);
            if (rc == CUDA_SUCCESS)
                st->smem_granted[l] = L->smem;
            if (rc != CUDA_SUCCESS) {
                if (cuda_error_is_sticky(rc))
                    x->broken = true;
                set_failure(fail, x->broken ? RUN_CUDA_ERROR : RUN_LAUNCH_ERROR, rc, l,
                            "launch %d (%s): %u bytes of dynamic shared memory refused (the "
                            "device allows %d per block): %s",
                            l, L->kernel, L->smem, x->props.smem_per_block_optin,
                            cuda_error_string(rc));
                return BW_OK;
            }
        }
        if (sync_each && (rc = cu.cuEventRecord(start, NULL)) != CUDA_SUCCESS)
            return xfail(x, rc, cause, "cuEventRecord");
        st->launched = true;
        rc = cu.cuLaunchKernel(st->fn[l], L->grid[0], L->grid[1], L->grid[2], L->block[0],
                               L->block[1], L->block[2], L->smem, NULL, st->params[r][l], NULL);
        if (rc != CUDA_SUCCESS) {
            if (cuda_error_is_sticky(rc)) {
                /* an earlier launch of this plan faulted (only when not synced each) */
                x->broken = true;
                set_failure(fail, RUN_CUDA_ERROR, rc, sync_each ? l : -1, "%s",
                            cuda_error_string(rc));
            } else {
                set_failure(fail, RUN_LAUNCH_ERROR, rc, l,
                            "launch %d (%s, grid (%u, %u, %u), block (%u, %u, %u), smem %u) "
                            "refused: %s",
                            l, L->kernel, L->grid[0], L->grid[1], L->grid[2], L->block[0],
                            L->block[1], L->block[2], L->smem, cuda_error_string(rc));
            }
            return BW_OK;
        }
        if (!sync_each)
            continue;
        if ((rc = cu.cuEventRecord(end, NULL)) != CUDA_SUCCESS ||
            (rc = cu.cuEventSynchronize(end)) != CUDA_SUCCESS) {
            x->broken = true; /* a fault of the learner's kernel: the context is lost */
            set_failure(fail, RUN_CUDA_ERROR, rc, l, "launch %d (%s): %s", l, L->kernel,
                        cuda_error_string(rc));
            return BW_OK;
        }
        if ((rc = cu.cuEventElapsedTime(&t, start, end)) != CUDA_SUCCESS)
            return xfail(x, rc, cause, "cuEventElapsedTime");
        *ms += t;
    }
    if (sync_each)
        return BW_OK;
    if ((rc = cu.cuEventRecord(end, NULL)) != CUDA_SUCCESS ||
        (rc = cu.cuEventSynchronize(end)) != CUDA_SUCCESS) {
        x->broken = true;
        set_failure(fail, RUN_CUDA_ERROR, rc, -1, "%s", cuda_error_string(rc));
        return BW_OK;
    }
    if ((rc = cu.cuEventElapsedTime(&t, start, end)) != CUDA_SUCCESS)
        return xfail(x, rc, cause, "cuEventElapsedTime");
    *ms = t;
    return BW_OK;
}

/* Checks that every gather entry's indices (per set: `sets` copies of the
 * span) lie inside its buffer. */
static int check_indices(const struct run_plan *p, const int64_t *idx, size_t n_idx, int sets,
                         char **cause)
{
    uint64_t span = run_plan_gather_span(p);

    if (n_idx < span * (uint64_t)sets)
        return bw_fail(cause, BW_ERR_INVALID,
                       "gather: %zu indices sent, %" PRIu64 " needed (%d set%s of %" PRIu64 ")",
                       n_idx, span * (uint64_t)sets, sets, sets == 1 ? "" : "s", span);
    for (int r = 0; r < sets; r++) {
        for (int k = 0; k < p->n_gather; k++) {
            const struct run_gather *g = &p->gather[k];
            uint64_t count = p->buffers[g->buf].count;
            const int64_t *s = idx + (uint64_t)r * span + g->offset;
            for (uint64_t j = 0; j < g->count; j++)
                if (s[j] < 0 || (uint64_t)s[j] >= count)
                    return bw_fail(cause, BW_ERR_INVALID,
                                   "gather: index %" PRId64 " of output %s (set %d, entry %" PRIu64
                                   ") is outside [0, %" PRIu64 ")",
                                   s[j], p->buffers[g->buf].name, r, j, count);
        }
    }
    return BW_OK;
}

/* Device copy of the indices; *dev is 0 when there are none. */
static int upload_indices(struct runner_exec *x, const int64_t *idx, uint64_t n, CUdeviceptr *dev,
                          char **cause)
{
    CUresult rc;

    *dev = 0;
    if (n == 0)
        return BW_OK;
    if ((rc = cu.cuMemAlloc(dev, (size_t)n * 8)) != CUDA_SUCCESS) {
        *dev = 0;
        return xfail(x, rc, cause, "cuMemAlloc of %" PRIu64 " gather indices", n);
    }
    if ((rc = cu.cuMemcpyHtoD(*dev, idx, (size_t)n * 8)) != CUDA_SUCCESS)
        return xfail(x, rc, cause, "copying gather indices to the device");
    return BW_OK;
}

/* Gathers set r's outputs into dst (the gather list's elements, back to back). */
static int staged_gather(struct runner_exec *x, struct staged_plan *st, int r, CUdeviceptr idx,
                         CUdeviceptr dst, char **cause)
{
    const struct run_plan *p = st->plan;
    uint64_t span = run_plan_gather_span(p), at = 0;

    for (int k = 0; k < p->n_gather; k++) {
        const struct run_gather *g = &p->gather[k];
        unsigned int es = (unsigned int)dtype_size(p->buffers[g->buf].dtype);
        int set = copies_of(st, g->buf) > 1 ? r : 0;
        CUresult rc;
        if (g->count > 0) {
            rc = gather_launch(x, st->buf[g->buf][set].data, es,
                               idx + ((uint64_t)r * span + g->offset) * 8, g->count, dst + at,
                               p->buffers[g->buf].count);
            if (rc != CUDA_SUCCESS)
                return xfail(x, rc, cause, "gathering output %s", p->buffers[g->buf].name);
        }
        at += g->count * es;
    }
    return BW_OK;
}

/* A memfd of `bytes` filled from device memory at src, sealed; *fd is *new*. */
static int memfd_from_device(struct runner_exec *x, const char *name, CUdeviceptr src,
                             uint64_t bytes, int *fd, char **cause)
{
    void *map = NULL;
    size_t size = 0;
    int m, rc;
    CUresult crc;

    *fd = -1;
    if ((rc = ipc_memfd_create(name, (size_t)bytes, &m, cause)))
        return rc;
    if ((rc = ipc_memfd_map(m, &map, &size, cause)))
        goto close_memfd;
    if (size > 0 && (crc = cu.cuMemcpyDtoH(map, src, size)) != CUDA_SUCCESS) {
        rc = xfail(x, crc, cause, "copying %zu bytes of %s to the host", size, name);
        ipc_unmap(map, size);
        goto close_memfd;
    }
    ipc_unmap(map, size);
    if ((rc = ipc_memfd_seal(m, cause)))
        goto close_memfd;
    *fd = m;
    return BW_OK;

close_memfd:
    close(m);
    return rc;
}

/*
 * A harness call that failed with a sticky error after the plan's kernels
 * ran is the kernels' doing: they can write anywhere in the context (our
 * indices, results, other allocations), and only they ran untrusted code.
 * Turns such a failure (rc) into a cuda_error in *fail.
 */
static int blame_kernels(struct runner_exec *x, const struct staged_plan *st, int rc,
                         struct run_failure *fail, char **cause)
{
    if (rc == BW_OK || !x->broken || !st->launched)
        return rc;
    set_failure(fail, RUN_CUDA_ERROR, x->last_error, -1,
                "the judge's checks after the kernels hit %s: a kernel wrote outside its buffers "
                "(%s)",
                cuda_error_name(x->last_error), cause && *cause ? *cause : "no detail");
    return BW_OK;
}

/* --- run ------------------------------------------------------------------------------ */

/* Copies every out and inout buffer, back to back, into the request's lent
 * buffer or else a new sealed memfd. */
static int return_full(struct runner_exec *x, struct staged_plan *st, const struct run_request *req,
                       struct run_reply *reply, int *out_fd, char **cause)
{
    const struct run_plan *p = st->plan;
    uint64_t total = 0;
    void *map = NULL;
    size_t size = 0;
    int m, rc;

    for (int b = 0; b < p->n_buffers; b++) {
        const struct run_buffer *B = &p->buffers[b];
        if (B->role != RUN_ROLE_OUT && B->role != RUN_ROLE_INOUT)
            continue;
        reply->outputs[reply->n_outputs].buf = b;
        reply->outputs[reply->n_outputs].offset = total;
        reply->outputs[reply->n_outputs].bytes = st->buf[b][0].bytes;
        reply->n_outputs++;
        total += st->buf[b][0].bytes;
    }
    if (total > BW_MAX_RETURN_BYTES)
        return bw_fail(cause, BW_ERR_LIMIT,
                       "outputs of %" PRIu64 " bytes are over BW_MAX_RETURN_BYTES (%llu)", total,
                       (unsigned long long)BW_MAX_RETURN_BYTES);
    if (req->into >= 0) {
        if (total > req->into_size)
            return bw_fail(cause, BW_ERR_PROTOCOL,
                           "outputs of %" PRIu64 " bytes do not fit lent buffer %d (%zu bytes)",
                           total, req->into, req->into_size);
        for (int k = 0; k < reply->n_outputs; k++) {
            const struct run_output *o = &reply->outputs[k];
            CUresult crc;
            if (o->bytes == 0)
                continue;
            crc = cu.cuMemcpyDtoH((char *)req->into_map + o->offset, st->buf[o->buf][0].data,
                                  (size_t)o->bytes);
            if (crc != CUDA_SUCCESS)
                return xfail(x, crc, cause, "copying output %s to the host",
                             p->buffers[o->buf].name);
        }
        return BW_OK;
    }
    if ((rc = ipc_memfd_create("outputs", (size_t)total, &m, cause)))
        return rc;
    if ((rc = ipc_memfd_map(m, &map, &size, cause)))
        goto close_memfd;
    for (int k = 0; k < reply->n_outputs; k++) {
        const struct run_output *o = &reply->outputs[k];
        CUresult crc;
        if (o->bytes == 0)
            continue;
        crc = cu.cuMemcpyDtoH((char *)map + o->offset, st->buf[o->buf][0].data, (size_t)o->bytes);
        if (crc != CUDA_SUCCESS) {
            rc = xfail(x, crc, cause, "copying output %s to the host", p->buffers[o->buf].name);
            ipc_unmap(map, size);
            goto close_memfd;
        }
    }
    ipc_unmap(map, size);
    if ((rc = ipc_memfd_seal(m, cause)))
        goto close_memfd;
    *out_fd = m;
    return BW_OK;

close_memfd:
    close(m);
    return rc;
}

/* Gathers the requested elements into a new sealed memfd. */
static int return_gather(struct runner_exec *x, struct staged_plan *st,
                         const struct run_request *req, struct run_reply *reply, int *out_fd,
                         char **cause)
{
    const struct run_plan *p = st->plan;
    uint64_t bytes = run_plan_gather_bytes(p), at = 0;
    CUdeviceptr idx = 0, dst = 0;
    CUresult crc;
    int rc;

    if ((rc = check_indices(p, req->indices, req->n_indices, 1, cause)))
        return rc;
    for (int k = 0; k < p->n_gather; k++) {
        reply->outputs[k].buf = p->gather[k].buf;
        reply->outputs[k].offset = at;
        reply->outputs[k].bytes =
            p->gather[k].count * dtype_size(p->buffers[p->gather[k].buf].dtype);
        at += reply->outputs[k].bytes;
    }
    reply->n_outputs = p->n_gather;
    if ((rc = upload_indices(x, req->indices, run_plan_gather_span(p), &idx, cause)))
        goto free_dev;
    if (bytes > 0 && (crc = cu.cuMemAlloc(&dst, (size_t)bytes)) != CUDA_SUCCESS) {
        dst = 0;
        rc = xfail(x, crc, cause, "cuMemAlloc of %" PRIu64 " gathered bytes", bytes);
        goto free_dev;
    }
    if ((rc = staged_gather(x, st, 0, idx, dst, cause)))
        goto free_dev;
    rc = memfd_from_device(x, "gathered", dst, bytes, out_fd, cause);

free_dev:
    if (!x->broken) {
        if (dst)
            cu.cuMemFree(dst);
        if (idx)
            cu.cuMemFree(idx);
    }
    return rc;
}

bool runner_exec_pin(struct runner_exec *x, void *p, size_t size)
{
    (void)x;
    return size > 0 && cu.cuMemHostRegister(p, size, 0) == CUDA_SUCCESS;
}

void runner_exec_unpin(struct runner_exec *x, void *p)
{
    if (!x->broken)
        cu.cuMemHostUnregister(p);
}

/* Fills the data buffers (in buffer order) from the values after the gather
 * indices of a gather request. */
static int staged_fill_data(struct runner_exec *x, struct staged_plan *st,
                            const struct run_request *req, char **cause)
{
    const struct run_plan *p = st->plan;
    uint64_t at = run_plan_gather_span(p);

    for (int b = 0; b < p->n_buffers; b++) {
        const struct run_buffer *B = &p->buffers[b];
        CUresult crc;
        if (B->role != RUN_ROLE_DATA)
            continue;
        if (req->ret != RUN_RETURN_GATHER)
            return bw_fail(cause, BW_ERR_INVALID,
                           "data buffer %s: its values travel after a gather request's indices "
                           "(this is a full return)",
                           B->name);
        if (req->n_indices < at || req->n_indices - at < B->count)
            return bw_fail(cause, BW_ERR_INVALID,
                           "data buffer %s: %" PRIu64 " values needed after the %" PRIu64
                           " gather indices, %zu values sent in all",
                           B->name, B->count, run_plan_gather_span(p), req->n_indices);
        if (B->count > 0 && (crc = cu.cuMemcpyHtoD(st->buf[b][0].data, req->indices + at,
                                                   (size_t)B->count * 8)) != CUDA_SUCCESS)
            return xfail(x, crc, cause, "copying data buffer %s to the device", B->name);
        at += B->count;
    }
    return BW_OK;
}

int runner_exec_run(struct runner_exec *x, const struct run_request *req, struct run_reply *reply,
                    int *out_fd, char **cause)
{
    struct staged_plan *st;
    double *ph = reply->phase_ms, t = now_ms(), t0;
    int rc;

    memset(reply, 0, sizeof(*reply));
    run_failure_init(&reply->fail);
    *out_fd = -1;
    st = calloc(1, sizeof(*st));
    if (!st)
        return bw_fail(cause, BW_ERR_NOMEM, "out of memory");
    if ((rc = staged_setup(x, &req->plan, 1, st, &reply->fail, cause)) ||
        reply->fail.status != RUN_OK)
        goto free_state;
    if ((rc = staged_reset_outputs(x, st, cause)) || (rc = staged_fill_data(x, st, req, cause)))
        goto free_state;
    ph[RUN_PHASE_SETUP] = (t0 = now_ms()) - t;
    rc = staged_launch(x, st, 0, true, &reply->ms, &reply->fail, cause);
    ph[RUN_PHASE_LAUNCH] = (t = now_ms()) - t0;
    if (rc || reply->fail.status != RUN_OK)
        goto free_state;
    if ((rc = staged_check_guards(x, st, &reply->fail, cause)) || reply->fail.status != RUN_OK)
        goto free_state;
    if ((rc = staged_check_inputs(x, st, &reply->fail, cause)) || reply->fail.status != RUN_OK)
        goto free_state;
    ph[RUN_PHASE_CHECKS] = (t0 = now_ms()) - t;
    if (req->ret == RUN_RETURN_GATHER)
        rc = return_gather(x, st, req, reply, out_fd, cause);
    else
        rc = return_full(x, st, req, reply, out_fd, cause);
    ph[RUN_PHASE_RETURN] = now_ms() - t0;

free_state:
    rc = blame_kernels(x, st, rc, &reply->fail, cause);
    t0 = now_ms();
    staged_free(x, st);
    ph[RUN_PHASE_FREE] = now_ms() - t0;
    free(st);
    return rc;
}

/* --- bench ---------------------------------------------------------------------------- */

/* What a bench keeps on the device besides the plan's buffers. */
struct bench_dev {
    CUdeviceptr flush;    /* l2_flush_bytes, or 0 */
    uint64_t flush_words; /* 32-bit words written per flush */
    CUdeviceptr idx;      /* sets * span indices, or 0 */
    CUdeviceptr gathered; /* max_samples * bytes_per_sample, or 0 */
};

/*
 * One run of a bench on input set r: restore, flush, time, check. Timed runs
 * (sample >= 0) also gather into slot `sample` and store the poison counts in
 * poison[n_poison]. Failures go to *fail.
 */
static int bench_once(struct runner_exec *x, struct staged_plan *st, const struct bench_dev *d,
                      int r, int64_t sample, uint64_t bytes_per_sample, double *ms,
                      uint64_t *poison, int n_poison, struct run_failure *fail, char **cause)
{
    const struct run_plan *p = st->plan;
    uint64_t slots[RESULT_SLOTS];
    int rc, n_allocs = 0, k;
    CUresult crc;

    if ((rc = staged_reset_outputs(x, st, cause)) || (rc = staged_generate(x, st, r, true, cause)))
        return rc;
    crc = cu.cuCtxResetPersistingL2Cache();
    if (crc != CUDA_SUCCESS && crc != CUDA_ERROR_NOT_SUPPORTED)
        return xfail(x, crc, cause, "cuCtxResetPersistingL2Cache");
    if (d->flush) {
        /* a value that changes every run, so nothing can skip the writes */
        unsigned int word = 0x9E3779B9u * (unsigned int)(sample + 2);
        if ((crc = cu.cuMemsetD32Async(d->flush, word, (size_t)d->flush_words, NULL)) !=
            CUDA_SUCCESS)
            return xfail(x, crc, cause, "flushing L2");
    }
    if ((rc = staged_launch(x, st, r, false, ms, fail, cause)) || fail->status != RUN_OK)
        return rc;
    if ((rc = staged_check_guards(x, st, fail, cause)) || fail->status != RUN_OK)
        return rc;
    if (sample < 0)
        return BW_OK;
    for (int b = 0; b < p->n_buffers; b++)
        n_allocs += copies_of(st, b);
    if ((rc = clear_slots(x, n_allocs, n_poison, 0, cause)))
        return rc;
    k = 0;
    for (int b = 0; b < p->n_buffers; b++) {
        const struct run_buffer *B = &p->buffers[b];
        if (B->role != RUN_ROLE_OUT && B->role != RUN_ROLE_INOUT)
            continue;
        crc = poison_launch(x, &st->buf[b][B->role == RUN_ROLE_INOUT ? r : 0],
                            (unsigned int)dtype_size(B->dtype),
                            x->results + (CUdeviceptr)(n_allocs + k) * 8);
        if (crc != CUDA_SUCCESS)
            return xfail(x, crc, cause, "scanning output %s for poison", B->name);
        k++;
    }
    if (bytes_per_sample > 0 &&
        (rc = staged_gather(x, st, r, d->idx, d->gathered + (CUdeviceptr)sample * bytes_per_sample,
                            cause)))
        return rc;
    if ((rc = read_slots(x, slots, n_allocs + n_poison, cause)))
        return rc;
    for (k = 0; k < n_poison; k++)
        poison[k] = slots[n_allocs + k];
    return BW_OK;
}

static void bench_dev_free(struct runner_exec *x, struct bench_dev *d)
{
    if (x->broken)
        return;
    if (d->flush)
        cu.cuMemFree(d->flush);
    if (d->idx)
        cu.cuMemFree(d->idx);
    if (d->gathered)
        cu.cuMemFree(d->gathered);
}

int runner_exec_bench(struct runner_exec *x, const struct bench_request *req,
                      struct bench_reply *reply, int *out_fd, char **cause)
{
    const struct run_plan *p = &req->plan;
    uint64_t bps = run_plan_gather_bytes(p);
    struct bench_dev d = {0};
    struct staged_plan *st;
    double t0, ms;
    const char *reason = NULL;
    int rc;
    CUresult crc;

    memset(reply, 0, sizeof(*reply));
    run_failure_init(&reply->fail);
    *out_fd = -1;
    reply->bytes_per_sample = bps;
    for (int b = 0; b < p->n_buffers; b++)
        if (p->buffers[b].role == RUN_ROLE_OUT || p->buffers[b].role == RUN_ROLE_INOUT)
            reply->poison_buf[reply->n_poison++] = b;
    if (bps * req->max_samples > BW_MAX_RETURN_BYTES)
        return bw_fail(cause, BW_ERR_LIMIT,
                       "bench: %u samples of %" PRIu64 " gathered bytes are over "
                       "BW_MAX_RETURN_BYTES",
                       req->max_samples, bps);
    for (int b = 0; b < p->n_buffers; b++)
        if (p->buffers[b].role == RUN_ROLE_DATA)
            return bw_fail(cause, BW_ERR_INVALID,
                           "bench: data buffer %s (data buffers are for run)", p->buffers[b].name);
    if ((rc = check_indices(p, req->indices, req->n_indices, (int)req->sets, cause)))
        return rc;
    reply->samples_ms = calloc(req->max_samples, sizeof(double));
    reply->poison =
        calloc((size_t)req->max_samples * (size_t)(reply->n_poison + 1), sizeof(uint64_t));
    st = calloc(1, sizeof(*st));
    if (!reply->samples_ms || !reply->poison || !st) {
        free(st);
        bench_reply_release(reply);
        return bw_fail(cause, BW_ERR_NOMEM, "out of memory");
    }
    if ((rc = staged_setup(x, p, (int)req->sets, st, &reply->fail, cause)) ||
        reply->fail.status != RUN_OK)
        goto free_state;
    if ((rc = upload_indices(x, req->indices, run_plan_gather_span(p) * req->sets, &d.idx, cause)))
        goto free_state;
    if (bps > 0 &&
        (crc = cu.cuMemAlloc(&d.gathered, (size_t)(bps * req->max_samples))) != CUDA_SUCCESS) {
        d.gathered = 0;
        rc = xfail(x, crc, cause, "cuMemAlloc of %" PRIu64 " bytes for gathered samples",
                   bps * req->max_samples);
        goto free_state;
    }
    d.flush_words = req->l2_flush_bytes / 4;
    if (d.flush_words > 0 &&
        (crc = cu.cuMemAlloc(&d.flush, (size_t)(d.flush_words * 4))) != CUDA_SUCCESS) {
        d.flush = 0;
        rc = xfail(x, crc, cause, "cuMemAlloc of %" PRIu64 " bytes to flush L2",
                   req->l2_flush_bytes);
        goto free_state;
    }

    /* Warm-up: the same runs untimed, at least 3, for warmup_ms of wall time. */
    t0 = now_ms();
    for (int w = 0; w < 3 || now_ms() - t0 < req->warmup_ms; w++) {
        rc = bench_once(x, st, &d, w % (int)req->sets, -1, bps, &ms, NULL, 0, &reply->fail, cause);
        if (rc || reply->fail.status != RUN_OK) {
            reply->fail.in_warmup = true;
            goto free_state;
        }
    }

    reply->clock_mhz[0] = clock_mhz(x);
    t0 = now_ms();
    for (uint32_t s = 0;; s++) {
        int r = (int)(s % req->sets);
        rc = bench_once(x, st, &d, r, s, bps, &ms,
                        reply->poison + (size_t)s * (size_t)reply->n_poison, reply->n_poison,
                        &reply->fail, cause);
        if (rc || reply->fail.status != RUN_OK) {
            reply->fail.sample = s;
            goto free_state;
        }
        reply->samples_ms[s] = ms;
        reply->n_samples = s + 1;
        if (stats_should_stop(reply->samples_ms, (int)reply->n_samples, (int)req->min_samples,
                              (int)req->max_samples, req->target_rse, now_ms() - t0, req->budget_ms,
                              &reason))
            break;
        if (reply->n_samples >= req->max_samples) { /* never past the arrays, whatever the rule */
            reason = "max";
            break;
        }
    }
    reply->clock_mhz[1] = clock_mhz(x);
    reply->stop = strcmp(reason, "rse") == 0   ? BENCH_STOP_RSE
                  : strcmp(reason, "max") == 0 ? BENCH_STOP_MAX_SAMPLES
                                               : BENCH_STOP_BUDGET;

    /* The inputs of every set must still be as generated. */
    if ((rc = staged_check_inputs(x, st, &reply->fail, cause)) || reply->fail.status != RUN_OK) {
        if (!rc)
            snprintf(reply->fail.message + strlen(reply->fail.message),
                     sizeof(reply->fail.message) - strlen(reply->fail.message),
                     " (seen after %u timed runs)", reply->n_samples);
        goto free_state;
    }
    if (bps > 0)
        rc = memfd_from_device(x, "gathered", d.gathered, bps * reply->n_samples, out_fd, cause);

free_state:
    rc = blame_kernels(x, st, rc, &reply->fail, cause);
    bench_dev_free(x, &d);
    staged_free(x, st);
    free(st);
    return rc;
}

/* --- calibrate -------------------------------------------------------------------- */

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

/* A calibration measurement: a kernel launch, or a copy when f is NULL. */
struct timed_op {
    struct runner_exec *x;
    CUfunction f;
    unsigned blocks, threads;
    void **params;
    CUdeviceptr dst, src; /* copies: f == NULL */
    size_t bytes;
};

static CUresult timed_op_issue(const struct timed_op *op)
{
    if (!op->f)
        return cu.cuMemcpyDtoDAsync(op->dst, op->src, op->bytes, NULL);
    return cu.cuLaunchKernel(op->f, op->blocks, 1, 1, op->threads, 1, 1, 0, NULL, op->params, NULL);
}

/* The median event time of CAL_REPEATS issues of op, after one untimed issue. */
static int median_ms(const struct timed_op *op, const char *what, double *out, char **cause)
{
    struct runner_exec *x = op->x;
    double t[CAL_REPEATS];
    CUresult rc;

    if ((rc = timed_op_issue(op)) != CUDA_SUCCESS ||
        (rc = cu.cuStreamSynchronize(NULL)) != CUDA_SUCCESS)
        return xfail(x, rc, cause, "calibration: %s (warm-up)", what);
    for (int i = 0; i < CAL_REPEATS; i++) {
        float ms = 0;
        if ((rc = cu.cuEventRecord(x->ev[0], NULL)) != CUDA_SUCCESS ||
            (rc = timed_op_issue(op)) != CUDA_SUCCESS ||
            (rc = cu.cuEventRecord(x->ev[1], NULL)) != CUDA_SUCCESS ||
            (rc = cu.cuEventSynchronize(x->ev[1])) != CUDA_SUCCESS ||
            (rc = cu.cuEventElapsedTime(&ms, x->ev[0], x->ev[1])) != CUDA_SUCCESS)
            return xfail(x, rc, cause, "calibration: %s", what);
        t[i] = ms;
    }
    qsort(t, CAL_REPEATS, sizeof(double), cmp_double);
    *out = t[CAL_REPEATS / 2];
    if (!(*out > 0))
        return bw_fail(cause, BW_ERR_CUDA, "calibration: %s took no measurable time", what);
    return BW_OK;
}

static int calibrate_copy(struct runner_exec *x, double *gbps, char **cause)
{
    uint64_t bytes = CAL_COPY_BYTES;
    CUdeviceptr a = 0, b = 0;
    struct timed_op op = {.x = x};
    double ms = 0;
    CUresult rc;
    int brc;

    /* Two buffers of `bytes`; halve on a device with less free memory. */
    for (;; bytes /= 2) {
        rc = cu.cuMemAlloc(&a, (size_t)bytes);
        if (rc == CUDA_SUCCESS) {
            rc = cu.cuMemAlloc(&b, (size_t)bytes);
            if (rc == CUDA_SUCCESS)
                break;
            cu.cuMemFree(a);
            a = 0;
        }
        if (rc != CUDA_ERROR_OUT_OF_MEMORY || bytes / 2 < CAL_COPY_MIN_BYTES)
            return xfail(x, rc, cause, "calibration: cuMemAlloc of 2 x %" PRIu64 " bytes", bytes);
    }
    if ((rc = cu.cuMemsetD32Async(a, 0x3F800000u, (size_t)(bytes / 4), NULL)) != CUDA_SUCCESS) {
        brc = xfail(x, rc, cause, "calibration: filling the copy source");
        goto free_buffers;
    }
    {
        /* A kernel copy (bw_copy): see harness.cu for why not cuMemcpyDtoD. */
        uint64_t n16 = bytes / 16;
        void *params[] = {&a, &b, &n16};
        op.f = x->h.copy;
        op.threads = 256;
        op.blocks = (unsigned)((n16 + 255) / 256);
        op.params = params;
        brc = median_ms(&op, "device-to-device copy", &ms, cause);
    }
    if (!brc)
        *gbps = 2.0 * (double)bytes / (ms * 1e-3) / 1e9;

free_buffers:
    if (!x->broken) {
        cu.cuMemFree(a);
        cu.cuMemFree(b);
    }
    return brc;
}

/* FLOP/s of a calibration kernel: `flops_per_thread` * threads over the median time. */
static int calibrate_kernel(struct runner_exec *x, CUfunction f, unsigned blocks_per_sm,
                            void **params, double flops_per_thread, const char *what,
                            double *tflops, char **cause)
{
    struct timed_op op = {.x = x, .f = f, .threads = 256, .params = params};
    double ms = 0;
    int rc;

    op.blocks = (unsigned)x->props.sm_count * blocks_per_sm;
    rc = median_ms(&op, what, &ms, cause);
    if (!rc)
        *tflops = flops_per_thread * op.blocks * op.threads / (ms * 1e-3) / 1e12;
    return rc;
}

int runner_exec_calibrate(struct runner_exec *x, struct calibration *c, char **cause)
{
    CUdeviceptr out = 0;
    float a = 0.9999f, b = 1e-4f;
    int ffma_iters = CAL_FFMA_ITERS, mma_iters = CAL_MMA_ITERS;
    void *ffma_params[] = {&out, &a, &b, &ffma_iters};
    void *mma_params[] = {&out, &mma_iters};
    size_t threads = (size_t)x->props.sm_count * 8 * 256;
    CUresult crc;
    int rc;

    memset(c, 0, sizeof(*c));
    if ((rc = calibrate_copy(x, &c->copy_gbps, cause)))
        return rc;
    if ((crc = cu.cuMemAlloc(&out, threads * sizeof(float))) != CUDA_SUCCESS)
        return xfail(x, crc, cause, "calibration: cuMemAlloc of the kernels' output");
    /* FFMA: 8 blocks of 256 per SM (full occupancy), 2 FLOPs x 8 chains per iteration. */
    rc = calibrate_kernel(x, x->h.ffma, 8, ffma_params, 2.0 * 8 * ffma_iters, "FFMA peak",
                          &c->fp32_tflops, cause);
    /* mma.sync m16n8k16: 4096 FLOPs per warp per mma, 4 accumulators, 32 threads a warp. */
    if (!rc)
        rc = calibrate_kernel(x, x->h.mma_f16, 4, mma_params, 4096.0 * 4 * mma_iters / 32,
                              "fp16 mma.sync peak", &c->fp16_tensor_tflops, cause);
    if (!rc)
        rc = calibrate_kernel(x, x->h.mma_bf16, 4, mma_params, 4096.0 * 4 * mma_iters / 32,
                              "bf16 mma.sync peak", &c->bf16_tensor_tflops, cause);
    if (!rc)
        c->clock_mhz = clock_mhz(x);
    if (!x->broken)
        cu.cuMemFree(out);
    return rc;
}
