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

#include "runner_exec_private.h"
#include "common/error.h"
#include "common/limits.h"
#include "common/stats.h"
#include "common/util.h"
#include "wire/ipc.h"
#include "common/banned.h"

/* A failed driver call of the harness: marks the context broken when the
 * error is sticky, fills cause, returns BW_ERR_CUDA. */
int xfail(struct runner_exec *x, CUresult rc, char **cause, const char *fmt, ...)
{
    char what[256];
    va_list ap;

    if (cuda_error_is_sticky(rc))
        x->broken = true;
    x->last_error = rc;
    if (rc == CUDA_ERROR_OUT_OF_MEMORY)
        x->out_of_memory = true;
    va_start(ap, fmt);
    vsnprintf(what, sizeof(what), fmt, ap);
    va_end(ap);
    return cuda_fail(cause, rc, "%s", what);
}

/* Sets a failure of status s with CUDA error rc (0: none) and a message. */
void set_failure(struct run_failure *f, enum run_status s, CUresult rc, int launch, const char *fmt,
                 ...)
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

bool runner_exec_out_of_memory(const struct runner_exec *x)
{
    return x->out_of_memory;
}

CUcontext runner_exec_context(const struct runner_exec *x)
{
    return x->ctx;
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

CUresult guard_fill(const struct runner_exec *x, const struct dev_buffer *b)
{
    CUdeviceptr before = b->base, after = b->data + b->bytes;
    unsigned int bytes = BW_GUARD_BYTES, salt = guard_salt(x, b);
    void *params[] = {&before, &after, &bytes, &salt};
    return launch_over(x, x->h.guard_fill, 2ull * BW_GUARD_BYTES, params);
}

CUresult guard_check(const struct runner_exec *x, const struct dev_buffer *b, CUdeviceptr slot)
{
    CUdeviceptr before = b->base, after = b->data + b->bytes;
    unsigned int bytes = BW_GUARD_BYTES, salt = guard_salt(x, b);
    void *params[] = {&before, &after, &bytes, &salt, &slot};
    return launch_over(x, x->h.guard_check, 2ull * BW_GUARD_BYTES, params);
}

CUresult hash_launch(const struct runner_exec *x, const struct dev_buffer *b, CUdeviceptr slot)
{
    CUdeviceptr p = b->data;
    uint64_t n = b->bytes;
    void *params[] = {&p, &n, &slot};
    return launch_over(x, x->h.hash, n / 8 + 1, params);
}

CUresult poison_launch(const struct runner_exec *x, const struct dev_buffer *b,
                       unsigned int elem_size, CUdeviceptr slot)
{
    CUdeviceptr p = b->data;
    uint64_t n = b->bytes / elem_size;
    void *params[] = {&p, &n, &elem_size, &slot};
    return launch_over(x, x->h.poison_count, n, params);
}

CUresult gather_launch(const struct runner_exec *x, CUdeviceptr src, unsigned int elem_size,
                       CUdeviceptr idx, uint64_t n, CUdeviceptr dst, uint64_t count)
{
    void *params[] = {&src, &elem_size, &idx, &n, &dst, &count};
    return launch_over(x, x->h.gather, n, params);
}

CUresult generate_launch(const struct runner_exec *x, const struct dev_buffer *b, uint64_t count,
                         const struct gen_spec *spec, uint64_t seed, uint32_t case_index)
{
    CUdeviceptr out = b->data;
    struct gen_spec g = *spec;
    uint64_t n = count;
    unsigned int c = case_index;
    void *params[] = {&out, &n, &g, &seed, &c};
    return launch_over(x, x->h.generate, n, params);
}

/* Copies n u64 result slots to the host (waits for the queued work). */
int read_slots(struct runner_exec *x, uint64_t *dst, int n, char **cause)
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
int clear_slots(struct runner_exec *x, int first, int n, unsigned int word, char **cause)
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
double clock_mhz(struct runner_exec *x)
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
    x->kept_cap = x->props.memory_bytes / BW_RUNNER_KEEP_PART;
    if (x->kept_cap > BW_RUNNER_KEEP_BYTES)
        x->kept_cap = BW_RUNNER_KEEP_BYTES;
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
    runner_exec_release(x);
    staged_free_kept(x);
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

void runner_exec_release(struct runner_exec *x)
{
    double t0 = now_ms();

    if (x->spent) {
        staged_free(x, x->spent);
        free(x->spent);
        x->spent = NULL;
        x->released_ms = now_ms() - t0;
    }
    /* A request that ran short of memory leaves nothing kept: it is sent again. */
    if (x->out_of_memory)
        staged_free_kept(x);
    x->out_of_memory = false;
}

int runner_exec_run(struct runner_exec *x, const struct run_request *req, struct run_reply *reply,
                    int *out_fd, char **cause)
{
    struct staged_plan *st;
    double *ph, t, t0;
    int rc;

    runner_exec_release(x);
    memset(reply, 0, sizeof(*reply));
    run_failure_init(&reply->fail);
    ph = reply->phase_ms;
    ph[RUN_PHASE_FREE] = x->released_ms;
    x->released_ms = 0;
    t = now_ms();
    *out_fd = -1;
    st = calloc(1, sizeof(*st));
    if (!st)
        return bw_fail(cause, BW_ERR_NOMEM, "out of memory");
    if ((rc = staged_setup(x, &req->plan, 1, st, &reply->fail, cause)) ||
        reply->fail.status != RUN_OK)
        goto free_state;
    if ((rc = staged_reset_outputs(x, st, cause)) || (rc = staged_fill_data(x, st, req, cause)))
        goto free_state;
    ph[RUN_PHASE_ALLOC] = st->alloc_ms;
    ph[RUN_PHASE_SETUP] = (t0 = now_ms()) - t - st->alloc_ms;
    rc = staged_launch(x, st, 0, true, &reply->ms, &reply->fail, cause);
    ph[RUN_PHASE_LAUNCH] = (t = now_ms()) - t0;
    if (rc || reply->fail.status != RUN_OK)
        goto free_state;
    if ((rc = staged_check_guards(x, st, &reply->fail, cause)) || reply->fail.status != RUN_OK)
        goto free_state;
    if ((rc = staged_check_inputs(x, st, &reply->fail, cause)) || reply->fail.status != RUN_OK)
        goto free_state;
    if (req->scan &&
        ((rc = staged_queue_poison(x, st, 0, 0, reply->poison_buf, &reply->n_poison, cause)) ||
         (rc = read_slots(x, reply->poison, reply->n_poison, cause))))
        goto free_state;
    ph[RUN_PHASE_CHECKS] = (t0 = now_ms()) - t;
    if (req->ret == RUN_RETURN_GATHER)
        rc = return_gather(x, st, req, reply, out_fd, cause);
    else
        rc = return_full(x, st, req, reply, out_fd, cause);
    ph[RUN_PHASE_RETURN] = now_ms() - t0;

free_state:
    rc = blame_kernels(x, st, rc, &reply->fail, cause);
    st->plan = NULL; /* the request's, gone with it; staged_free needs only the buffers */
    x->spent = st;
    return rc;
}
