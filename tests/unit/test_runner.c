/*
 * Tests of blockwise-runner end to end, driven through judge/worker/runner_client.h.
 *
 * Every scenario runs on two backends:
 *   fake_*  the real runner binary on a fake driver (tests/fake/libcuda.c,
 *           compiled here into BUILD/tests/fake/libcuda.so.1): proves the host
 *           side - messages, memfds, guards, hashes, poison, gather, argument
 *           marshalling, the bench loop, error paths, deadlines, the sandbox -
 *           on any machine;
 *   gpu_*   the real driver and GPU, with the test kernels compiled by NVRTC:
 *           proves the device side. Skipped without a GPU, unless
 *           BLOCKWISE_GPU_TESTS=1 (tests/gpu/runner.sh), which makes a missing
 *           GPU a failure. BLOCKWISE_GPU_DEVICE picks the device (default 0).
 * Plus the no-device path with the real runner, the sandbox steps in forked
 * children, and spawn failures. Lines starting "  info:" report measured
 * figures (calibration, bandwidth) for the log.
 */
#include "tests/test.h"

#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <math.h>
#include <netinet/in.h>
#include <nvrtc.h>
#include <pthread.h>
#include <signal.h>
#include <stdlib.h>
#include <sys/file.h>
#include <sys/mman.h>
#include <sys/ptrace.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "common/dtype.h"
#include "common/error.h"
#include "common/gen.h"
#include "common/limits.h"
#include "common/util.h"
#include "judge/runner/kernels/gen_value.h"
#include "judge/runner/runner_sandbox.h"
#include "judge/worker/device_memory.h"
#include "judge/worker/runner_client.h"
#include "wire/runner_proto.h"
#include "common/banned.h"

#define CALL_MS 60000 /* generous: a first launch on a GPU loads modules lazily */

/* --- the runner binary ------------------------------------------------------------------ */

/* BLOCKWISE_RUNNER, else BUILD/bin/blockwise-runner beside BUILD/tests, else build/bin. */
static const char *runner_binary(void)
{
    static char path[PATH_MAX];
    const char *env = getenv("BLOCKWISE_RUNNER");
    char *dir;

    if (path[0])
        return path;
    if (env && *env) {
        snprintf(path, sizeof(path), "%s", env);
        return path;
    }
    dir = exe_dir();
    if (dir) {
        snprintf(path, sizeof(path), "%s/../bin/blockwise-runner", dir);
        free(dir);
        if (access(path, X_OK) == 0)
            return path;
    }
    snprintf(path, sizeof(path), "build/bin/blockwise-runner");
    return path;
}

static bool have_runner(void)
{
    return access(runner_binary(), X_OK) == 0;
}

/* --- backends ----------------------------------------------------------------------------- */

enum backend_kind { FAKE, GPU };

struct backend {
    enum backend_kind kind;
    const char *name;
    struct runner_options opt;
    const char *env[2];
    const void *image; /* a module holding every test kernel */
    size_t image_len;
};

/* The test kernels. The fake driver implements the same names with the same behaviour. */
static const char gpu_kernels[] =
    "#define I (blockIdx.x * (long long)blockDim.x + threadIdx.x)\n"
    "extern \"C\" __global__ void vector_add(const float *x, const float *y, float *out, long long "
    "n)\n"
    "{ long long i = I; if (i < n) out[i] = x[i] + y[i]; }\n"
    "extern \"C\" __global__ void copy_f32(const float *x, float *out, long long n)\n"
    "{ long long i = I; if (i < n) out[i] = x[i]; }\n"
    "extern \"C\" __global__ void tail_overrun(const float *x, float *out, long long n)\n"
    "{ long long i = I; if (i <= n) out[i] = i < n ? x[i] : 0.0f; }\n"
    "extern \"C\" __global__ void before_start(float *out, long long n)\n"
    "{ long long i = I; if (i <= n) out[i - 1] = 1.0f; }\n"
    "extern \"C\" __global__ void write_input(float *x, float *out, long long n)\n"
    "{ long long i = I; if (i < n) { out[i] = x[i]; if (i == 0) x[0] = x[0] + 1.0f; } }\n"
    "extern \"C\" __global__ void partial(float *out, long long n)\n"
    "{ long long i = I; if (i < n / 2) out[i] = 0.0f; }\n"
    "extern \"C\" __global__ void fault(float *out)\n"
    "{ if (I == 0) *(volatile float *)16 = 1.0f; }\n"
    /* reads global memory through a volatile pointer, so the loop cannot be
     * deleted; out is poisoned (NaN), so it never ends */
    "extern \"C\" __global__ void hang(float *out)\n"
    "{ volatile float *p = out; while (p[0] != 12345.0f) { } }\n"
    "extern \"C\" __global__ void int_param(float *out, int n)\n"
    "{ long long i = I; if (i < n) out[i] = (float)i; }\n"
    "extern \"C\" __global__ void scale_inout(float *xy, long long n)\n"
    "{ long long i = I; if (i < n) xy[i] *= 2.0f; }\n"
    "extern \"C\" __global__ void noop1(void *p) { }\n"
    "extern \"C\" __global__ void noop2(void *p, void *q) { }\n"
    "extern \"C\" __global__ void smem_user(float *out, long long n)\n"
    "{\n"
    "    extern __shared__ float s[];\n"
    "    unsigned bytes;\n"
    "    asm volatile(\"mov.u32 %0, %%dynamic_smem_size;\" : \"=r\"(bytes));\n"
    "    if (bytes >= 4) ((volatile float *)s)[bytes / 4 - 1] = 1.0f;\n"
    "    long long i = I; if (i < n) out[i] = (float)bytes;\n"
    "}\n";

static const char fake_image[] = "FAKECUBIN\nvector_add\ncopy_f32\ntail_overrun\nbefore_start\n"
                                 "write_input\npartial\nfault\nhang\nint_param\nscale_inout\n"
                                 "noop1\nnoop2\nsmem_user\nvector_add_slow_64\n";

static bool gpu_forced(void)
{
    const char *e = getenv("BLOCKWISE_GPU_TESTS");
    return e && strcmp(e, "1") == 0;
}

static int gpu_device(void)
{
    const char *e = getenv("BLOCKWISE_GPU_DEVICE");
    int64_t v;
    return e && parse_i64(e, &v) && v >= 0 && v < 1024 ? (int)v : 0;
}

/* Builds the fake driver once; false with a reason when it cannot. */
static bool setup_fake(struct backend *b, char *why, size_t cap)
{
    static int state; /* 0 unknown, 1 built, -1 failed */
    static char dir[PATH_MAX], env[PATH_MAX + 32], reason[512];

    if (!have_runner()) {
        snprintf(why, cap, "no runner binary at %s (build it first)", runner_binary());
        return false;
    }
    if (state == 0) {
        const char *cuda = getenv("CUDA_HOME") ? getenv("CUDA_HOME") : "/usr/local/cuda";
        char cmd[3 * PATH_MAX], *exe = exe_dir();
        FILE *p;
        char out[512] = "";
        size_t got = 0;
        int status;

        snprintf(dir, sizeof(dir), "%s/fake", exe ? exe : "build/tests");
        free(exe);
        mkdir(dir, 0755);
        snprintf(cmd, sizeof(cmd),
                 "cc -shared -fPIC -O1 -std=c11 -D_GNU_SOURCE -fvisibility=hidden -I. -isystem "
                 "%s/include -o %s/libcuda.so.1 tests/fake/libcuda.c common/dtype.c -lm "
                 "-lpthread 2>&1",
                 cuda, dir);
        p = popen(cmd, "r");
        if (p) {
            got = fread(out, 1, sizeof(out) - 1, p);
            out[got] = '\0';
            status = pclose(p);
        } else {
            status = -1;
        }
        if (status != 0) {
            snprintf(reason, sizeof(reason), "cannot build the fake driver: %.400s", out);
            state = -1;
        } else {
            snprintf(env, sizeof(env), "LD_LIBRARY_PATH=%s", dir);
            state = 1;
        }
    }
    if (state < 0) {
        snprintf(why, cap, "%s", reason);
        return false;
    }
    memset(b, 0, sizeof(*b));
    b->kind = FAKE;
    b->name = "fake";
    b->env[0] = env;
    b->opt.device = 0;
    b->opt.path = runner_binary();
    b->opt.extra_env = b->env;
    b->image = fake_image;
    b->image_len = sizeof(fake_image);
    return true;
}

/* Compiles the test kernels for compute capability cc with NVRTC into a *new* cubin. */
static bool compile_kernels(int major, int minor, void **cubin, size_t *len, char *why, size_t cap)
{
    nvrtcProgram prog;
    char arch[64];
    const char *opts[] = {arch, "-std=c++17"};
    nvrtcResult rc;

    snprintf(arch, sizeof(arch), "--gpu-architecture=sm_%d%d", major, minor);
    if (nvrtcCreateProgram(&prog, gpu_kernels, "test_kernels.cu", 0, NULL, NULL) != NVRTC_SUCCESS) {
        snprintf(why, cap, "nvrtcCreateProgram failed");
        return false;
    }
    rc = nvrtcCompileProgram(prog, 2, opts);
    if (rc != NVRTC_SUCCESS) {
        size_t log_len = 0;
        char log[2048] = "";
        nvrtcGetProgramLogSize(prog, &log_len);
        if (log_len < sizeof(log))
            nvrtcGetProgramLog(prog, log);
        snprintf(why, cap, "NVRTC (%s): %s: %.700s", arch, nvrtcGetErrorString(rc), log);
        nvrtcDestroyProgram(&prog);
        return false;
    }
    nvrtcGetCUBINSize(prog, len);
    *cubin = malloc(*len);
    if (!*cubin || nvrtcGetCUBIN(prog, *cubin) != NVRTC_SUCCESS) {
        snprintf(why, cap, "nvrtcGetCUBIN failed");
        nvrtcDestroyProgram(&prog);
        return false;
    }
    nvrtcDestroyProgram(&prog);
    return true;
}

/* What the GPU probe found: whether the sandboxed runner starts, and why not. */
static char sandbox_failure[1024];
static bool gpu_without_sandbox; /* the sandboxed runner failed, the plain one works */

/* Starts a runner with opt and describes its GPU; BW_OK or the start's failure in why. */
static int probe_gpu(const struct runner_options *opt, struct gpu_props *props, char *why,
                     size_t cap)
{
    struct runner *r = NULL;
    char *cause = NULL;
    int rc = runner_start(opt, &r, &cause);

    if (rc == BW_ERR_NODEVICE)
        snprintf(why, cap, "no GPU: %s", cause ? cause : "");
    else if (rc)
        snprintf(why, cap, "the runner%s does not start on this GPU: %s: %s",
                 opt->no_sandbox ? " (--no-sandbox)" : "", bw_strerror(rc), cause ? cause : "");
    else
        *props = *runner_gpu(r);
    free(cause);
    runner_free(r);
    return rc;
}

/*
 * Probes the GPU once with a real runner and compiles the kernels for it.
 * When the sandboxed runner cannot start but the unsandboxed one can, the GPU
 * scenarios run without the sandbox (so one GPU session still tests the
 * rest) and gpu_sandboxed_runner_starts fails with the reason.
 */
static bool setup_gpu(struct backend *b, char *why, size_t cap)
{
    static int state;
    static char reason[1024];
    static void *cubin;
    static size_t cubin_len;

    if (!have_runner()) {
        snprintf(why, cap, "no runner binary at %s (build it first)", runner_binary());
        return false;
    }
    memset(b, 0, sizeof(*b));
    b->kind = GPU;
    b->name = "gpu";
    b->opt.device = gpu_device();
    b->opt.path = runner_binary();
    b->opt.no_sandbox = getenv("BLOCKWISE_NO_SANDBOX") != NULL;
    if (state == 0) {
        struct gpu_props g;
        int rc = probe_gpu(&b->opt, &g, reason, sizeof(reason));

        state = -1;
        if (rc && !b->opt.no_sandbox) {
            snprintf(sandbox_failure, sizeof(sandbox_failure), "%s", reason);
            b->opt.no_sandbox = true;
            if (probe_gpu(&b->opt, &g, reason, sizeof(reason)) == BW_OK) {
                gpu_without_sandbox = true;
                rc = BW_OK;
                printf("  info: the sandboxed runner fails (%s); GPU tests run with --no-sandbox\n",
                       sandbox_failure);
            }
        }
        if (rc == BW_OK) {
            printf("  info: %s, cc %d.%d, %d SMs, %.1f GiB, L2 %.1f MiB, driver %d, max clock %d "
                   "MHz, smem opt-in %d, nvml %s, %s\n",
                   g.name, g.cc_major, g.cc_minor, g.sm_count, (double)g.memory_bytes / (1 << 30),
                   (double)g.l2_bytes / (1 << 20), g.driver_version, g.max_clock_mhz,
                   g.smem_per_block_optin, g.nvml ? "yes" : "no", g.uuid);
            if (compile_kernels(g.cc_major, g.cc_minor, &cubin, &cubin_len, reason, sizeof(reason)))
                state = 1;
        }
    }
    if (state < 0) {
        snprintf(why, cap, "%s", reason);
        return false;
    }
    if (gpu_without_sandbox)
        b->opt.no_sandbox = true;
    b->image = cubin;
    b->image_len = cubin_len;
    return true;
}

/* Sets up backend k for the current test, or skips (fails when GPU tests are forced). */
static bool use_backend(struct backend *b, enum backend_kind k)
{
    char why[1024];

    if (k == FAKE ? setup_fake(b, why, sizeof(why)) : setup_gpu(b, why, sizeof(why)))
        return true;
    if (k == GPU && gpu_forced())
        test_fail(__FILE__, __LINE__, "GPU tests forced (BLOCKWISE_GPU_TESTS=1) but %s", why);
    else
        test_skip(why);
    return false;
}

/* A scenario run on both backends as fake_NAME and gpu_NAME. */
#define SCENARIO(name)                                                                             \
    static void scenario_##name(struct backend *b);                                                \
    TEST(fake_##name)                                                                              \
    {                                                                                              \
        struct backend b;                                                                          \
        if (use_backend(&b, FAKE))                                                                 \
            scenario_##name(&b);                                                                   \
    }                                                                                              \
    TEST(gpu_##name)                                                                               \
    {                                                                                              \
        struct backend b;                                                                          \
        if (use_backend(&b, GPU))                                                                  \
            scenario_##name(&b);                                                                   \
    }                                                                                              \
    static void scenario_##name(struct backend *b)

/* --- helpers -------------------------------------------------------------------------------- */

static struct runner *start(struct backend *b)
{
    struct runner *r = NULL;
    char *cause = NULL;
    int rc = runner_start(&b->opt, &r, &cause);

    CHECK_MSG(rc == BW_OK, "%s: runner_start: %s: %s", b->name, bw_strerror(rc),
              cause ? cause : "");
    free(cause);
    return rc == BW_OK ? r : NULL;
}

/* Loads the test module describing `kernels` (NULL-terminated); false on failure. */
static bool load(struct backend *b, struct runner *r, const char *const *kernels,
                 struct load_reply *reply)
{
    struct load_reply local;
    char *cause = NULL;
    int n = 0, rc;

    if (!reply)
        reply = &local;
    while (kernels[n])
        n++;
    rc = runner_load(r, b->image, b->image_len, kernels, n, reply, CALL_MS, &cause);
    CHECK_MSG(rc == BW_OK, "runner_load: %s: %s", bw_strerror(rc), cause ? cause : "");
    CHECK_MSG(rc || reply->fail.status == RUN_OK, "load: %s %s: %s",
              run_status_name(reply->fail.status), reply->fail.error, reply->fail.message);
    free(cause);
    return rc == BW_OK && reply->fail.status == RUN_OK;
}

static void plan_init(struct run_plan *p, uint64_t seed, uint32_t case_index)
{
    memset(p, 0, sizeof(*p));
    p->seed = seed;
    p->case_index = case_index;
}

static struct gen_spec gen(enum gen_kind kind, enum dtype dt, uint32_t stream, double a, double b)
{
    struct gen_spec g;
    memset(&g, 0, sizeof(g));
    g.kind = kind;
    g.dtype = dt;
    g.stream = stream;
    g.a = a;
    g.b = b;
    g.row_len = 1;
    return g;
}

static struct gen_spec gen_randint(enum dtype dt, uint32_t stream, int64_t lo, int64_t hi)
{
    struct gen_spec g = gen(GEN_RANDINT, dt, stream, 0, 0);
    g.ilo = lo;
    g.ihi = hi;
    return g;
}

/* Adds a buffer; returns its index. */
static int add_buf(struct run_plan *p, const char *name, enum dtype dt, uint64_t count,
                   enum run_role role, const struct gen_spec *g)
{
    struct run_buffer *B = &p->buffers[p->n_buffers];
    snprintf(B->name, sizeof(B->name), "%s", name);
    B->dtype = dt;
    B->count = count;
    B->role = role;
    if (g)
        B->gen = *g;
    return p->n_buffers++;
}

static struct run_launch *add_launch(struct run_plan *p, const char *kernel, uint64_t threads)
{
    struct run_launch *L = &p->launches[p->n_launches++];
    uint64_t grid = (threads + 255) / 256;
    snprintf(L->kernel, sizeof(L->kernel), "%s", kernel);
    L->grid[0] = (uint32_t)(grid ? grid : 1);
    L->grid[1] = L->grid[2] = 1;
    L->block[0] = 256;
    L->block[1] = L->block[2] = 1;
    return L;
}

static void arg_buf(struct run_launch *L, int buf, const char *name)
{
    struct run_arg *a = &L->args[L->n_args++];
    memset(a, 0, sizeof(*a));
    a->kind = RUN_ARG_BUF;
    a->buf = buf;
    snprintf(a->name, sizeof(a->name), "%s", name);
}

static void arg_int(struct run_launch *L, enum run_arg_kind kind, int64_t v, const char *name)
{
    struct run_arg *a = &L->args[L->n_args++];
    memset(a, 0, sizeof(*a));
    a->kind = kind;
    a->i = v;
    snprintf(a->name, sizeof(a->name), "%s", name);
}

/* Runs req; the call itself must succeed. */
static bool run(struct runner *r, const struct run_request *req, struct run_result *res,
                int timeout_ms)
{
    char *cause = NULL;
    int rc = runner_run(r, req, res, timeout_ms, &cause);

    CHECK_MSG(rc == BW_OK, "runner_run: %s: %s", bw_strerror(rc), cause ? cause : "");
    free(cause);
    return rc == BW_OK;
}

/* Checks a failure's status, printing its details when it differs. */
static bool expect_status(const struct run_failure *f, enum run_status want)
{
    CHECK_MSG(f->status == want,
              "status %s (want %s): error %s, launch %d, buf %d, sample %lld: %s",
              run_status_name(f->status), run_status_name(want), f->error, f->launch, f->buf,
              (long long)f->sample, f->message);
    return f->status == want;
}

/* The host's copy of a generated buffer (new; free it). */
static void *host_generate(const struct gen_spec *g, uint64_t seed, uint32_t case_index, uint64_t n)
{
    size_t es = dtype_size((enum dtype)g->dtype);
    unsigned char *out = malloc(n * es + 1);

    for (uint64_t i = 0; out && i < n; i++) {
        struct gen_value v = gen_value_at(g, seed, case_index, i);
        if (dtype_is_float((enum dtype)g->dtype)) {
            dtype_store((enum dtype)g->dtype, out + i * es, v.f);
        } else {
            uint64_t bits = gen_int_bits(v, g->dtype);
            memcpy(out + i * es, &bits, es);
        }
    }
    return out;
}

/*
 * How far a generated float may be from the host's value when transcendental
 * functions are involved: the device's log/cos/exp are within 1-2 ulp of a
 * double, so a double result may differ in its last few bits (16 ulp allowed)
 * and a narrower one, after rounding, by one unit of its last place; plus the
 * smallest subnormal, for values near zero.
 */
static double generated_tolerance(enum dtype dt, double want)
{
    switch (dt) {
    case DTYPE_FP64:
        /* Box-Muller and loguniform go through log/cos/exp, which differ in the last bits
         * between glibc and CUDA; mean + std * z can cancel, so allow an absolute part. */
        return ldexp(fabs(want), -44) + 0x1p-50;
    case DTYPE_FP32:
        return ldexp(fabs(want), -23) + 0x1p-149;
    case DTYPE_FP16:
        return ldexp(fabs(want), -10) + 0x1p-24;
    default:
        return ldexp(fabs(want), -7) + 0x1p-133;
    }
}

/*
 * Compares generated data with the host's reference: bit for bit when exact,
 * else within generated_tolerance(). Returns the number of elements outside
 * that, reporting the first.
 */
static uint64_t compare_generated(const char *what, enum dtype dt, const void *got,
                                  const void *want, uint64_t n, bool exact)
{
    size_t es = dtype_size(dt);
    uint64_t bad = 0, bitwise = 0;

    for (uint64_t i = 0; i < n; i++) {
        const unsigned char *g = (const unsigned char *)got + i * es;
        const unsigned char *w = (const unsigned char *)want + i * es;
        double gv, wv;
        if (memcmp(g, w, es) == 0)
            continue;
        bitwise++;
        gv = dtype_load(dt, g);
        wv = dtype_load(dt, w);
        if (!exact && dtype_is_float(dt) &&
            (fabs(gv - wv) <= generated_tolerance(dt, wv) || (isnan(gv) && isnan(wv))))
            continue;
        if (bad++ == 0)
            CHECK_MSG(0, "%s: element %llu is %.17g, the host reference says %.17g", what,
                      (unsigned long long)i, gv, wv);
    }
    if (bad)
        CHECK_MSG(0, "%s: %llu of %llu elements differ from the host reference", what,
                  (unsigned long long)bad, (unsigned long long)n);
    if (bitwise && !bad)
        printf("  info: %s: %llu of %llu elements within tolerance, not bitwise equal\n", what,
               (unsigned long long)bitwise, (unsigned long long)n);
    return bad;
}

/* Mean and standard deviation of n values, skipping NaN when skip_nan. */
static void moments(const double *v, uint64_t n, double *mean, double *std)
{
    double s = 0, s2 = 0;
    for (uint64_t i = 0; i < n; i++)
        s += v[i];
    *mean = s / (double)n;
    for (uint64_t i = 0; i < n; i++)
        s2 += (v[i] - *mean) * (v[i] - *mean);
    *std = sqrt(s2 / (double)(n - 1));
}

/* The whole output of buffer b as doubles (new). */
static double *as_doubles(const struct run_result *res, const struct run_plan *p, int b)
{
    size_t bytes = 0;
    const unsigned char *data = run_result_output(res, b, &bytes);
    enum dtype dt = p->buffers[b].dtype;
    uint64_t n = p->buffers[b].count;
    double *v = malloc(n * sizeof(double) + 1);

    CHECK_MSG(data && bytes == n * dtype_size(dt), "buffer %s: %zu bytes returned",
              p->buffers[b].name, bytes);
    if (!data || bytes != n * dtype_size(dt)) {
        free(v);
        return NULL;
    }
    for (uint64_t i = 0; v && i < n; i++)
        v[i] = dtype_load(dt, data + i * dtype_size(dt));
    return v;
}

#define CHECK_NEAR(x, want, tol, what)                                                             \
    CHECK_MSG(fabs((x) - (want)) <= (tol), "%s: %.6g, expected %.6g +- %.3g", what, (double)(x),   \
              (double)(want), (double)(tol))

/* --- scenarios on both backends -------------------------------------------------------------- */

static const char *const all_small[] = {"vector_add", "copy_f32", "int_param", NULL};

SCENARIO(ready_and_load)
{
    const char *const kernels[] = {"vector_add", "int_param", "smem_user", NULL};
    const char *const missing[] = {"vector_add", "no_such_kernel", NULL};
    struct load_reply reply;
    struct runner *r = start(b);
    char *cause = NULL;
    int rc;

    if (!r)
        return;
    CHECK(runner_gpu(r)->name[0] != '\0');
    CHECK(runner_gpu(r)->sm_count > 0);
    CHECK(runner_gpu(r)->cc_major >= 7);
    CHECK(strncmp(runner_gpu(r)->uuid, "GPU-", 4) == 0);
    if (load(b, r, kernels, &reply)) {
        CHECK_INT_EQ(reply.n_kernels, 3);
        CHECK_STR_EQ(reply.kernels[0].name, "vector_add");
        CHECK_INT_EQ(reply.kernels[0].n_params, 4);
        for (int i = 0; i < 4; i++)
            CHECK_INT_EQ(reply.kernels[0].param_bytes[i], 8);
        CHECK_INT_EQ(reply.kernels[1].n_params, 2);
        CHECK_INT_EQ(reply.kernels[1].param_bytes[1], 4);
        CHECK(reply.kernels[0].regs > 0);
        CHECK(reply.kernels[0].max_threads >= 256);
    }
    /* A missing kernel and a broken image fail the load, not the runner. */
    rc = runner_load(r, b->image, b->image_len, missing, 2, &reply, CALL_MS, &cause);
    CHECK_INT_EQ(rc, BW_OK);
    expect_status(&reply.fail, RUN_ERROR);
    CHECK_STR_EQ(reply.fail.error, "CUDA_ERROR_NOT_FOUND");
    CHECK_CONTAINS(reply.fail.message, "no_such_kernel");
    rc = runner_load(r, "not a cubin at all", 18, kernels, 1, &reply, CALL_MS, &cause);
    CHECK_INT_EQ(rc, BW_OK);
    expect_status(&reply.fail, RUN_ERROR);
    CHECK_MSG(strncmp(reply.fail.error, "CUDA_ERROR_", 11) == 0, "error \"%s\"", reply.fail.error);
    printf("  info: %s: a broken image: %s: %s\n", b->name, reply.fail.error, reply.fail.message);
    CHECK(runner_alive(r));
    load(b, r, kernels, NULL);
    free(cause);
    runner_free(r);
}

/* x (uniform), y (normal), out = x + y: the outputs match the host's arithmetic exactly. */
static void vector_add_plan(struct run_request *req, uint64_t n, uint64_t seed)
{
    struct gen_spec gx = gen(GEN_UNIFORM, DTYPE_FP32, 0, -10, 10);
    struct gen_spec gy = gen(GEN_NORMAL, DTYPE_FP32, 1, 0, 1);
    struct run_launch *L;

    memset(req, 0, sizeof(*req));
    plan_init(&req->plan, seed, 7);
    add_buf(&req->plan, "x", DTYPE_FP32, n, RUN_ROLE_IN, &gx);
    add_buf(&req->plan, "y", DTYPE_FP32, n, RUN_ROLE_IN, &gy);
    add_buf(&req->plan, "out", DTYPE_FP32, n, RUN_ROLE_OUT, NULL);
    L = add_launch(&req->plan, "vector_add", n);
    arg_buf(L, 0, "x");
    arg_buf(L, 1, "y");
    arg_buf(L, 2, "out");
    arg_int(L, RUN_ARG_I64, (int64_t)n, "N");
}

/* Checks out == x + y against the host's generation. */
static void check_vector_add(const struct run_request *req, const struct run_result *res)
{
    const struct run_plan *p = &req->plan;
    uint64_t n = p->buffers[0].count;
    float *x = host_generate(&p->buffers[0].gen, p->seed, p->case_index, n);
    float *y = host_generate(&p->buffers[1].gen, p->seed, p->case_index, n);
    size_t bytes = 0;
    const float *out = run_result_output(res, 2, &bytes);
    uint64_t bad = 0;

    CHECK_MSG(out && bytes == n * 4, "out: %zu bytes", bytes);
    for (uint64_t i = 0; out && bytes == n * 4 && i < n; i++) {
        float want = x[i] + y[i];
        if (memcmp(&out[i], &want, 4) != 0 && bad++ == 0)
            CHECK_MSG(0, "out[%llu] = %.9g, want %.9g (x %.9g, y %.9g)", (unsigned long long)i,
                      out[i], want, x[i], y[i]);
    }
    CHECK_MSG(bad == 0, "%llu of %llu outputs wrong", (unsigned long long)bad,
              (unsigned long long)n);
    free(x);
    free(y);
}

SCENARIO(vector_add_is_exact)
{
    struct run_request req;
    struct run_result res;
    struct runner *r = start(b);

    if (!r)
        return;
    if (load(b, r, all_small, NULL)) {
        vector_add_plan(&req, 100003, 0x1234567890abcdefull);
        if (run(r, &req, &res, CALL_MS) && expect_status(&res.reply.fail, RUN_OK)) {
            CHECK_INT_EQ(res.reply.n_outputs, 1);
            CHECK(res.reply.ms >= 0);
            check_vector_add(&req, &res);
        }
        run_result_release(&res);
        /* The same runner serves the next request, with another case. */
        req.plan.case_index = 8;
        if (run(r, &req, &res, CALL_MS) && expect_status(&res.reply.fail, RUN_OK))
            check_vector_add(&req, &res);
        run_result_release(&res);
    }
    runner_free(r);
}

/* Full returns go into buffers the client lends the runner: reused case
 * after case, never while a result still holds one (the reference pipe holds
 * several), and a memfd of the runner's once every slot is held. */
SCENARIO(lent_buffers)
{
    struct run_request req[BW_RUNNER_LENT_SLOTS + 1];
    struct run_result res[BW_RUNNER_LENT_SLOTS + 1];
    struct runner *r = start(b);

    if (!r)
        return;
    memset(res, 0, sizeof(res));
    if (load(b, r, all_small, NULL)) {
        for (uint32_t k = 0; k < 3; k++) { /* one at a time: one buffer serves them all */
            vector_add_plan(&req[0], 5000 - k * 1000, 0x5eedull);
            req[0].plan.case_index = k;
            if (run(r, &req[0], &res[0], CALL_MS) && expect_status(&res[0].reply.fail, RUN_OK)) {
                CHECK(res[0].lent != NULL);
                check_vector_add(&req[0], &res[0]);
            }
            run_result_release(&res[0]);
        }
        CHECK_INT_EQ(runner_lent_made(r), 1);
        /* Held at once: each in a buffer of its own, the last in a memfd. */
        for (int k = 0; k <= BW_RUNNER_LENT_SLOTS; k++) {
            vector_add_plan(&req[k], 3000 + (uint64_t)k, 0x5eedull);
            req[k].plan.case_index = (uint32_t)(10 + k);
            if (run(r, &req[k], &res[k], CALL_MS))
                expect_status(&res[k].reply.fail, RUN_OK);
        }
        CHECK_INT_EQ(runner_lent_made(r), BW_RUNNER_LENT_SLOTS);
        CHECK(res[BW_RUNNER_LENT_SLOTS].lent == NULL && res[BW_RUNNER_LENT_SLOTS].data != NULL);
        for (int k = 0; k <= BW_RUNNER_LENT_SLOTS; k++) {
            if (res[k].reply.fail.status == RUN_OK)
                check_vector_add(&req[k], &res[k]);
            for (int j = 0; j < k; j++)
                CHECK(res[j].lent == NULL || res[j].lent != res[k].lent);
        }
        for (int k = 0; k <= BW_RUNNER_LENT_SLOTS; k++)
            run_result_release(&res[k]);
        vector_add_plan(&req[0], (6u << 20) / 4, 0x5eedull);
        if (run(r, &req[0], &res[0], CALL_MS) && expect_status(&res[0].reply.fail, RUN_OK))
            check_vector_add(&req[0], &res[0]);
        /* A result outlives its runner: the buffer goes with the last holder. */
        runner_free(r);
        r = NULL;
        if (res[0].reply.fail.status == RUN_OK)
            check_vector_add(&req[0], &res[0]);
        run_result_release(&res[0]);
    }
    runner_free(r);
}

/* From no kept buffers: a runner returns a vector add of n elements and ends,
 * leaving its one lent buffer kept. Returns a fresh runner with the test
 * module loaded, or NULL. */
static struct runner *after_a_kept_buffer(struct backend *b, uint64_t n)
{
    struct run_request req;
    struct run_result res = {0};
    struct runner *r;

    runner_lent_kept_release();
    r = start(b);
    if (!r)
        return NULL;
    if (load(b, r, all_small, NULL)) {
        vector_add_plan(&req, n, 0x5eedull);
        if (run(r, &req, &res, CALL_MS))
            expect_status(&res.reply.fail, RUN_OK);
        run_result_release(&res);
    }
    runner_free(r);
    CHECK_INT_EQ(runner_lent_kept(), 1);
    r = start(b);
    if (r && !load(b, r, all_small, NULL)) {
        runner_free(r);
        r = NULL;
    }
    return r;
}

/* A runner's lent buffers outlive it, zeroed, for the next runner of the
 * process: its first return makes no new pages. */
SCENARIO(lent_buffers_kept_for_the_next_runner)
{
    struct run_request req;
    struct run_result res = {0};
    struct runner *r = after_a_kept_buffer(b, 300000); /* 1.2 MB of out */

    if (!r)
        return;
    vector_add_plan(&req, 1000, 0x5eedull);
    if (run(r, &req, &res, CALL_MS) && expect_status(&res.reply.fail, RUN_OK)) {
        check_vector_add(&req, &res);
        CHECK_INT_EQ(runner_lent_kept(), 0);
        CHECK(res.data_len >= 1200000);
        size_t nonzero = 0;
        for (size_t k = 4000; k < 1200000 && k < res.data_len; k++)
            nonzero += res.data[k] != 0;
        CHECK_MSG(nonzero == 0, "%zu bytes of the last runner's outputs are still there", nonzero);
    }
    run_result_release(&res);
    runner_free(r);
}

/* A kept buffer serves only returns it does not dwarf: the runner pins all of
 * a buffer it is lent, so a small return gets a new small buffer. */
SCENARIO(lent_buffers_kept_fit_the_return)
{
    struct run_request req;
    struct run_result res = {0};
    struct runner *r = after_a_kept_buffer(b, (20u << 20) / 4); /* 20 MiB of out */

    if (!r)
        return;
    vector_add_plan(&req, 1000, 0x5eedull); /* 4 KB: the 20 MiB buffer stays kept */
    if (run(r, &req, &res, CALL_MS) && expect_status(&res.reply.fail, RUN_OK)) {
        check_vector_add(&req, &res);
        CHECK_INT_EQ(runner_lent_kept(), 1);
        CHECK(res.data_len < (20u << 20));
    }
    run_result_release(&res);
    vector_add_plan(&req, (2u << 20) / 4, 0x5eedull); /* 2 MiB: within 1/16, it is taken */
    if (run(r, &req, &res, CALL_MS) && expect_status(&res.reply.fail, RUN_OK)) {
        check_vector_add(&req, &res);
        CHECK_INT_EQ(runner_lent_kept(), 0);
        CHECK(res.data_len >= (20u << 20));
    }
    run_result_release(&res);
    runner_free(r);
}

/* A discarded runner is killed at once and reaped in the background: its
 * result outlives it, and once drained no process of it is left. */
SCENARIO(discard_reaps_in_the_background)
{
    struct run_request req;
    struct run_result res = {0};
    struct runner *r[3];
    pid_t pid[3];

    for (int k = 0; k < 3; k++) {
        r[k] = start(b);
        if (!r[k]) {
            while (k-- > 0)
                runner_free(r[k]);
            return;
        }
        pid[k] = runner_pid(r[k]);
    }
    if (load(b, r[0], all_small, NULL)) {
        vector_add_plan(&req, 4000, 0x5eedull);
        if (run(r[0], &req, &res, CALL_MS))
            expect_status(&res.reply.fail, RUN_OK);
    }
    for (int k = 0; k < 3; k++)
        runner_discard(r[k]);
    runner_discard(NULL);
    if (res.reply.fail.status == RUN_OK)
        check_vector_add(&req, &res);
    run_result_release(&res);
    runner_discard_drain();
    for (int k = 0; k < 3; k++)
        CHECK_MSG(kill(pid[k], 0) < 0 && errno == ESRCH, "runner %d (pid %d) is still there", k,
                  (int)pid[k]);
}

/* A run's buffers are freed after its reply, before the next request is
 * read: the reply does not wait for the freeing, the next run's "free" phase
 * reports it. On the fake, each cuMemFree takes FREE_DELAY_MS, so the
 * order shows in the wall times; on a GPU, the phases say it. */
#define FREE_DELAY_MS 300

/* A runner loaded with all_small whose every cuMemFree takes FREE_DELAY_MS on the fake, so that
 * a test sees when it frees; NULL if it does not start or load. */
struct slow_free {
    struct backend b;
    char delay[64];
    const char *env[3];
};

static struct runner *start_slow_free(struct backend *b, struct slow_free *sf)
{
    struct runner *r;

    snprintf(sf->delay, sizeof(sf->delay), "BW_FAKE_FREE_DELAY_MS=%d", FREE_DELAY_MS);
    sf->env[0] = b->env[0];
    sf->env[1] = sf->delay;
    sf->env[2] = NULL;
    sf->b = *b;
    sf->b.opt.extra_env = b->kind == FAKE ? sf->env : b->opt.extra_env;
    r = start(&sf->b);
    if (r && !load(&sf->b, r, all_small, NULL)) {
        runner_free(r);
        r = NULL;
    }
    return r;
}

SCENARIO(run_buffers_are_freed_after_the_reply)
{
    struct slow_free sf;
    struct run_request req;
    struct run_result res;
    struct runner *r = start_slow_free(b, &sf);
    double t0, first_ms = 0, replied = 0, between;

    if (!r)
        return;
    /* buffers past what a runner keeps (its device's memory / BW_RUNNER_KEEP_PART, at most
     * BW_RUNNER_KEEP_BYTES): 2 MiB of the fake's 1 GiB, 64 MiB on a GPU */
    vector_add_plan(&req, b->kind == FAKE ? 1 << 19 : 1 << 24, 0xf7eeull);
    t0 = now_ms();
    if (run(r, &req, &res, CALL_MS) && expect_status(&res.reply.fail, RUN_OK)) {
        replied = now_ms();
        first_ms = replied - t0;
        check_vector_add(&req, &res);
        CHECK_MSG(res.reply.phase_ms[RUN_PHASE_ALLOC] > 0 &&
                      res.reply.phase_ms[RUN_PHASE_SETUP] > 0,
                  "the run reports alloc %.3f ms and setup %.3f ms",
                  res.reply.phase_ms[RUN_PHASE_ALLOC], res.reply.phase_ms[RUN_PHASE_SETUP]);
        CHECK_MSG(res.reply.phase_ms[RUN_PHASE_FREE] == 0,
                  "the first run reports a free of %.3f ms; nothing was freed before it",
                  res.reply.phase_ms[RUN_PHASE_FREE]);
        if (b->kind == FAKE)
            CHECK_MSG(first_ms < 3 * FREE_DELAY_MS,
                      "the first run's reply took %.0f ms: it waited for its 3 buffers' freeing "
                      "(%d ms each)",
                      first_ms, FREE_DELAY_MS);
    }
    run_result_release(&res);
    if (run(r, &req, &res, CALL_MS) && expect_status(&res.reply.fail, RUN_OK)) {
        between = now_ms() - replied; /* the freeing overlaps the check above */
        check_vector_add(&req, &res);
        CHECK_MSG(res.reply.phase_ms[RUN_PHASE_FREE] > 0,
                  "the second run reports no free of the first run's buffers");
        if (b->kind == FAKE)
            CHECK_MSG(res.reply.phase_ms[RUN_PHASE_FREE] >= 3 * FREE_DELAY_MS * 0.95 &&
                          between >= res.reply.phase_ms[RUN_PHASE_FREE] * 0.95,
                      "the second run reports a free of %.0f ms, %.0f ms after the first "
                      "reply; the first run's 3 buffers take %d ms to free",
                      res.reply.phase_ms[RUN_PHASE_FREE], between, 3 * FREE_DELAY_MS);
        printf("  info: %s: a run's buffers are freed after its reply; the next run's free "
               "phase %.3f ms\n",
               b->name, res.reply.phase_ms[RUN_PHASE_FREE]);
    }
    run_result_release(&res);
    runner_free(r);
}

/* Small buffers are kept for the next run (BW_RUNNER_KEEP_BYTES): a smaller run takes the larger
 * allocations (its guards where its data ends), a larger one allocates, and nothing small is
 * freed between runs. */
SCENARIO(small_run_buffers_are_kept_for_the_next_run)
{
    const uint64_t sizes[] = {1 << 14, 1000, 1 << 14, 1 << 15};
    struct slow_free sf;
    struct run_request req;
    struct run_result res;
    struct runner *r = start_slow_free(b, &sf);

    if (!r)
        return;
    for (int i = 0; i < 4; i++) {
        vector_add_plan(&req, sizes[i], 0x6e7ull + (uint64_t)i);
        if (run(r, &req, &res, CALL_MS) && expect_status(&res.reply.fail, RUN_OK)) {
            check_vector_add(&req, &res);
            if (b->kind == FAKE && i > 0)
                CHECK_MSG(res.reply.phase_ms[RUN_PHASE_FREE] < FREE_DELAY_MS,
                          "run %d reports a free of %.0f ms: the last run's small buffers were "
                          "freed, not kept (a free takes %d ms)",
                          i, res.reply.phase_ms[RUN_PHASE_FREE], FREE_DELAY_MS);
            printf("  info: %s: run %d of %llu elements: alloc %.3f ms, free %.3f ms\n", b->name, i,
                   (unsigned long long)sizes[i], res.reply.phase_ms[RUN_PHASE_ALLOC],
                   res.reply.phase_ms[RUN_PHASE_FREE]);
        }
        run_result_release(&res);
    }
    CHECK(runner_alive(r));
    runner_free(r);
}

/* --- the device's memory, shared by runners (judge/worker/device_memory.h) ------------------ */

/* The fake's device of SHARED_BYTES, one budget for every runner process (its ledger in a file
 * they share: the runners run unsandboxed to see it); a vector_add_plan of SHARED_N floats takes
 * 48 MiB of it, so two runs at once do not fit. */
#define SHARED_BYTES (64ull << 20)
#define SHARED_N     (4ull << 20)
#define SHARED_RUNS  4 /* runs each of two runners makes side by side */

struct shared_device {
    struct backend b;
    char file[64], bytes_env[64], file_env[96];
    const char *env[4];
};

static bool shared_device_setup(struct shared_device *d)
{
    int fd;

    if (!use_backend(&d->b, FAKE))
        return false;
    snprintf(d->file, sizeof(d->file), "/tmp/bw-fake-device-XXXXXX");
    fd = mkstemp(d->file);
    CHECK_MSG(fd >= 0, "mkstemp: %s", strerror(errno));
    if (fd < 0)
        return false;
    close(fd);
    snprintf(d->bytes_env, sizeof(d->bytes_env), "BW_FAKE_DEVICE_BYTES=%llu",
             (unsigned long long)SHARED_BYTES);
    snprintf(d->file_env, sizeof(d->file_env), "BW_FAKE_DEVICE_FILE=%s", d->file);
    d->env[0] = d->b.env[0];
    d->env[1] = d->bytes_env;
    d->env[2] = d->file_env;
    d->env[3] = NULL;
    d->b.opt.extra_env = d->env;
    d->b.opt.no_sandbox = true;
    device_memory_reset();
    device_memory_set_total(SHARED_BYTES); /* before any runner reports the fake's */
    return true;
}

/* Reads the fake device's ledger: v[0] bytes allocated, v[1] allocations refused. With delta,
 * first adds it to the bytes allocated, as memory held outside the judge's ledger would be. */
static void shared_device_ledger(const struct shared_device *d, int64_t delta, uint64_t v[2])
{
    int fd = open(d->file, O_RDWR | O_CLOEXEC);

    v[0] = v[1] = 0;
    if (fd < 0 || flock(fd, LOCK_EX) < 0) {
        CHECK_MSG(0, "the fake device's ledger %s: %s", d->file, strerror(errno));
        if (fd >= 0)
            close(fd);
        return;
    }
    if (pread(fd, v, 16, 0) != 16)
        v[0] = v[1] = 0;
    if (delta) {
        v[0] = (uint64_t)((int64_t)v[0] + delta);
        CHECK(pwrite(fd, v, 16, 0) == 16);
    }
    flock(fd, LOCK_UN);
    close(fd);
}

static void shared_device_done(struct shared_device *d)
{
    unlink(d->file);
    device_memory_reset();
}

struct shared_runner {
    struct backend *b;
    pthread_barrier_t *start;
    int ok;           /* runs RUN_OK with the right sums */
    double waited_ms; /* runner_memory_wait_ms at the end */
};

static void *shared_runner_main(void *arg)
{
    struct shared_runner *sr = arg;
    struct run_request req;
    struct run_result res;
    struct runner *r = start(sr->b);
    bool loaded = r && load(sr->b, r, all_small, NULL);

    pthread_barrier_wait(sr->start);
    for (int i = 0; loaded && i < SHARED_RUNS; i++) {
        vector_add_plan(&req, SHARED_N, 0xd0e5ull + (uint64_t)i);
        if (run(r, &req, &res, CALL_MS) && expect_status(&res.reply.fail, RUN_OK)) {
            check_vector_add(&req, &res);
            sr->ok++;
        }
        run_result_release(&res);
    }
    if (r)
        sr->waited_ms = runner_memory_wait_ms(r);
    runner_free(r);
    return NULL;
}

/* Two runners whose runs do not fit the device together: the judge's ledger makes one wait for
 * the other, and every run is served. */
TEST(fake_runs_wait_for_device_memory_instead_of_failing)
{
    struct shared_device d;
    struct shared_runner sr[2];
    pthread_t th[2];
    pthread_barrier_t bar;
    struct device_memory_state st;
    uint64_t v[2];

    if (!shared_device_setup(&d))
        return;
    pthread_barrier_init(&bar, NULL, 2);
    for (int k = 0; k < 2; k++) {
        sr[k] = (struct shared_runner){.b = &d.b, .start = &bar};
        CHECK(pthread_create(&th[k], NULL, shared_runner_main, &sr[k]) == 0);
    }
    for (int k = 0; k < 2; k++)
        pthread_join(th[k], NULL);
    pthread_barrier_destroy(&bar);
    CHECK_MSG(sr[0].ok == SHARED_RUNS && sr[1].ok == SHARED_RUNS,
              "runs served: %d and %d of %d each", sr[0].ok, sr[1].ok, SHARED_RUNS);
    device_memory_state(&st);
    shared_device_ledger(&d, 0, v);
    CHECK_MSG(st.waits >= 1, "no run waited for device memory; two do not fit together");
    CHECK_MSG(sr[0].waited_ms + sr[1].waited_ms > 0,
              "the runners say they waited %.1f and %.1f ms for device memory", sr[0].waited_ms,
              sr[1].waited_ms);
    CHECK_INT_EQ(st.reserved, 0);
    printf("  info: %llu of %d runs waited for device memory; the fake device refused %llu "
           "allocations (a run sent just as another's buffers were being freed: tried again)\n",
           (unsigned long long)st.waits, 2 * SHARED_RUNS, (unsigned long long)v[1]);
    shared_device_done(&d);
}

/* Memory the ledger does not see (a discarded runner's, being torn down) makes a run run short:
 * the client sends it again until the memory comes back, within BW_RUNNER_OOM_RETRY_MS. */
#define FOREIGN_MS 300

struct foreign_holder {
    struct shared_device *d;
    int64_t bytes;
};

static void *foreign_release(void *arg)
{
    struct foreign_holder *f = arg;
    uint64_t v[2];

    usleep(FOREIGN_MS * 1000);
    shared_device_ledger(f->d, -f->bytes, v);
    return NULL;
}

TEST(fake_a_run_short_of_device_memory_is_tried_again)
{
    struct shared_device d;
    struct foreign_holder f = {.d = &d, .bytes = 40ll << 20};
    struct run_request req;
    struct run_result res;
    struct runner *r;
    pthread_t th;
    uint64_t v[2];
    double t0, ms;

    if (!shared_device_setup(&d))
        return;
    r = start(&d.b);
    if (r && load(&d.b, r, all_small, NULL)) {
        shared_device_ledger(&d, f.bytes, v);
        CHECK(pthread_create(&th, NULL, foreign_release, &f) == 0);
        vector_add_plan(&req, SHARED_N, 0xf0e1ull);
        t0 = now_ms();
        if (run(r, &req, &res, CALL_MS) && expect_status(&res.reply.fail, RUN_OK))
            check_vector_add(&req, &res);
        ms = now_ms() - t0;
        run_result_release(&res);
        pthread_join(th, NULL);
        shared_device_ledger(&d, 0, v);
        CHECK_MSG(v[1] >= 1 && ms >= FOREIGN_MS * 0.9,
                  "the run took %.0f ms and the device refused %llu allocations; it was short "
                  "of memory for %d ms",
                  ms, (unsigned long long)v[1], FOREIGN_MS);

        /* held past BW_RUNNER_OOM_RETRY_MS: the run fails, naming the shortage; the runner
         * still serves the next run */
        shared_device_ledger(&d, f.bytes, v);
        t0 = now_ms();
        if (run(r, &req, &res, CALL_MS) && expect_status(&res.reply.fail, RUN_ERROR)) {
            CHECK_MSG(strcmp(res.reply.fail.error, RUN_ERROR_OUT_OF_MEMORY) == 0,
                      "the failure's error is \"%s\"", res.reply.fail.error);
            CHECK_CONTAINS(res.reply.fail.message, "cuMemAlloc");
        }
        ms = now_ms() - t0;
        CHECK_MSG(ms >= BW_RUNNER_OOM_RETRY_MS, "gave up after %.0f ms", ms);
        run_result_release(&res);
        shared_device_ledger(&d, -f.bytes, v);
        if (run(r, &req, &res, CALL_MS) && expect_status(&res.reply.fail, RUN_OK))
            check_vector_add(&req, &res);
        run_result_release(&res);
    }
    runner_free(r);
    shared_device_done(&d);
}

/* Several images in one load, each kernel under a name of its own (a Triton
 * program's variants): launches call the names, not the symbols. */
SCENARIO(load_images_by_name)
{
    const void *images[2];
    size_t lens[2];
    const char *const symbols[] = {"copy_f32", "vector_add"}, *const names[] = {"v0", "v1"};
    struct load_reply reply;
    struct run_request req;
    struct run_result res;
    char *cause = NULL;
    struct runner *r = start(b);

    if (!r)
        return;
    images[0] = images[1] = b->image;
    lens[0] = lens[1] = b->image_len;
    CHECK_INT_EQ(runner_load_images(r, images, lens, symbols, names, 2, &reply, CALL_MS, &cause),
                 BW_OK);
    CHECK_MSG(reply.fail.status == RUN_OK, "load: %s", reply.fail.message);
    CHECK(reply.n_kernels == 2 && strcmp(reply.kernels[1].name, "v1") == 0 &&
          reply.kernels[1].n_params == 4 && reply.kernels[0].n_params == 3);
    vector_add_plan(&req, 1000, 99);
    snprintf(req.plan.launches[0].kernel, sizeof(req.plan.launches[0].kernel), "v1");
    if (run(r, &req, &res, CALL_MS) && expect_status(&res.reply.fail, RUN_OK))
        check_vector_add(&req, &res);
    run_result_release(&res);
    /* the symbol itself is not a name launches may use */
    vector_add_plan(&req, 1000, 99);
    if (run(r, &req, &res, CALL_MS) && expect_status(&res.reply.fail, RUN_LAUNCH_ERROR))
        CHECK_CONTAINS(res.reply.fail.message, "kernel vector_add was not loaded");
    run_result_release(&res);
    /* an image outside what was sent is refused by the client */
    lens[1] = BW_MAX_CUBIN_BYTES + 1;
    CHECK_INT_EQ(runner_load_images(r, images, lens, symbols, names, 2, &reply, CALL_MS, &cause),
                 BW_ERR_LIMIT);
    free(cause);
    runner_free(r);
}

/* A one-launch plan of kernel(in x, out o, n) on n floats. */
static void simple_plan(struct run_request *req, const char *kernel, uint64_t n, bool with_input)
{
    struct gen_spec gx = gen(GEN_UNIFORM, DTYPE_FP32, 0, -1, 1);
    struct run_launch *L;

    memset(req, 0, sizeof(*req));
    plan_init(&req->plan, 42, 0);
    if (with_input)
        add_buf(&req->plan, "x", DTYPE_FP32, n, RUN_ROLE_IN, &gx);
    add_buf(&req->plan, "out", DTYPE_FP32, n, RUN_ROLE_OUT, NULL);
    L = add_launch(&req->plan, kernel, n + 1);
    if (with_input)
        arg_buf(L, 0, "x");
    arg_buf(L, with_input ? 1 : 0, "out");
    arg_int(L, RUN_ARG_I64, (int64_t)n, "n");
}

SCENARIO(guard_violations)
{
    const char *const kernels[] = {"tail_overrun", "before_start", NULL};
    struct run_request req;
    struct run_result res;
    struct runner *r = start(b);

    if (!r)
        return;
    if (load(b, r, kernels, NULL)) {
        simple_plan(&req, "tail_overrun", 1000, true);
        if (run(r, &req, &res, CALL_MS) && expect_status(&res.reply.fail, RUN_GUARD_VIOLATION)) {
            CHECK_INT_EQ(res.reply.fail.buf, 1);
            CHECK(res.reply.fail.after);
            /* the written byte nearest the data: the first past the end, unless the
             * value written there happens to equal its sentinel byte (1 in 256) */
            CHECK_MSG(res.reply.fail.offset >= 4000 && res.reply.fail.offset < 4004, "offset %lld",
                      (long long)res.reply.fail.offset);
            CHECK_CONTAINS(res.reply.fail.message, "out");
        }
        run_result_release(&res);
        simple_plan(&req, "before_start", 1000, false);
        if (run(r, &req, &res, CALL_MS) && expect_status(&res.reply.fail, RUN_GUARD_VIOLATION)) {
            CHECK_INT_EQ(res.reply.fail.buf, 0);
            CHECK(!res.reply.fail.after);
            CHECK_MSG(res.reply.fail.offset >= -4 && res.reply.fail.offset <= -1, "offset %lld",
                      (long long)res.reply.fail.offset); /* out[-1]: bytes -4 .. -1 */
        }
        run_result_release(&res);
        CHECK(runner_alive(r));
    }
    runner_free(r);
}

SCENARIO(input_modified)
{
    const char *const kernels[] = {"write_input", NULL};
    struct run_request req;
    struct run_result res;
    struct runner *r = start(b);

    if (!r)
        return;
    if (load(b, r, kernels, NULL)) {
        simple_plan(&req, "write_input", 4096, true);
        if (run(r, &req, &res, CALL_MS) && expect_status(&res.reply.fail, RUN_INPUT_MODIFIED)) {
            CHECK_INT_EQ(res.reply.fail.buf, 0);
            CHECK_CONTAINS(res.reply.fail.message, "x");
        }
        run_result_release(&res);
    }
    runner_free(r);
}

SCENARIO(poison_and_scratch)
{
    const char *const kernels[] = {"partial", "copy_f32", NULL};
    struct run_request req;
    struct run_result res;
    struct run_launch *L;
    struct runner *r = start(b);
    uint64_t n = 10001;

    if (!r)
        return;
    if (load(b, r, kernels, NULL)) {
        /* Unwritten outputs come back as 0xFF bytes. */
        simple_plan(&req, "partial", n, false);
        if (run(r, &req, &res, CALL_MS) && expect_status(&res.reply.fail, RUN_OK)) {
            size_t bytes = 0;
            const uint32_t *out = run_result_output(&res, 0, &bytes);
            uint64_t zeros = 0, poison = 0;
            for (uint64_t i = 0; out && i < n; i++) {
                zeros += out[i] == 0;
                poison += out[i] == 0xFFFFFFFFu;
            }
            CHECK_INT_EQ(zeros, n / 2);
            CHECK_INT_EQ(poison, n - n / 2);
            CHECK_INT_EQ(res.reply.n_poison, 0); /* no scan asked */
        }
        run_result_release(&res);
        /* A scan counts them all, while only two elements come back (a test checked by
         * sample). */
        int64_t idx[2] = {0, (int64_t)n - 1};
        simple_plan(&req, "partial", n, false);
        req.ret = RUN_RETURN_GATHER;
        req.scan = true;
        req.plan.n_gather = 1;
        req.plan.gather[0] = (struct run_gather){.buf = 0, .offset = 0, .count = 2};
        req.indices = idx;
        req.n_indices = 2;
        if (run(r, &req, &res, CALL_MS) && expect_status(&res.reply.fail, RUN_OK)) {
            size_t bytes = 0;
            const uint32_t *out = run_result_output(&res, 0, &bytes);
            CHECK_INT_EQ(bytes, 8);
            CHECK(out && out[0] == 0 && out[1] == 0xFFFFFFFFu);
            CHECK_INT_EQ(res.reply.n_poison, 1);
            CHECK_INT_EQ(res.reply.poison_buf[0], 0);
            CHECK_INT_EQ(res.reply.poison[0], n - n / 2);
        }
        run_result_release(&res);
        /* Scratch is zeroed: copy it to an output. */
        memset(&req, 0, sizeof(req));
        plan_init(&req.plan, 1, 0);
        add_buf(&req.plan, "ws", DTYPE_FP32, n, RUN_ROLE_SCRATCH, NULL);
        add_buf(&req.plan, "out", DTYPE_FP32, n, RUN_ROLE_OUT, NULL);
        L = add_launch(&req.plan, "copy_f32", n);
        arg_buf(L, 0, "ws");
        arg_buf(L, 1, "out");
        arg_int(L, RUN_ARG_I64, (int64_t)n, "n");
        if (run(r, &req, &res, CALL_MS) && expect_status(&res.reply.fail, RUN_OK)) {
            size_t bytes = 0;
            const uint32_t *out = run_result_output(&res, 1, &bytes);
            uint64_t nonzero = 0;
            for (uint64_t i = 0; out && i < n; i++)
                nonzero += out[i] != 0;
            CHECK_MSG(out && nonzero == 0, "%llu scratch words were not zero",
                      (unsigned long long)nonzero);
            CHECK_INT_EQ(res.reply.n_outputs, 1); /* scratch is not returned */
        }
        run_result_release(&res);
    }
    runner_free(r);
}

SCENARIO(inout_is_generated_and_returned)
{
    const char *const kernels[] = {"scale_inout", NULL};
    struct gen_spec g = gen(GEN_NORMAL, DTYPE_FP32, 3, 0, 1);
    struct run_request req;
    struct run_result res;
    struct run_launch *L;
    struct runner *r = start(b);
    uint64_t n = 5000;

    if (!r)
        return;
    memset(&req, 0, sizeof(req));
    plan_init(&req.plan, 77, 2);
    add_buf(&req.plan, "xy", DTYPE_FP32, n, RUN_ROLE_INOUT, &g);
    L = add_launch(&req.plan, "scale_inout", n);
    arg_buf(L, 0, "xy");
    arg_int(L, RUN_ARG_I64, (int64_t)n, "n");
    if (load(b, r, kernels, NULL) && run(r, &req, &res, CALL_MS) &&
        expect_status(&res.reply.fail, RUN_OK)) {
        float *want = host_generate(&g, 77, 2, n);
        size_t bytes = 0;
        const float *got = run_result_output(&res, 0, &bytes);
        uint64_t bad = 0;
        for (uint64_t i = 0; got && bytes == n * 4 && i < n; i++)
            bad += fabsf(got[i] - 2.0f * want[i]) > 1e-6f * fabsf(want[i]);
        CHECK_MSG(got && bad == 0, "%llu of %llu inout elements are not twice the generated",
                  (unsigned long long)bad, (unsigned long long)n);
        free(want);
    }
    run_result_release(&res);
    runner_free(r);
}

SCENARIO(arg_mismatch)
{
    struct run_request req;
    struct run_result res;
    struct run_launch *L;
    struct runner *r = start(b);

    if (!r)
        return;
    if (!load(b, r, all_small, NULL))
        goto free_runner;
    memset(&req, 0, sizeof(req));
    plan_init(&req.plan, 1, 0);
    add_buf(&req.plan, "out", DTYPE_FP32, 100, RUN_ROLE_OUT, NULL);
    L = add_launch(&req.plan, "int_param", 100);
    arg_buf(L, 0, "out");
    arg_int(L, RUN_ARG_I64, 100, "N");
    if (run(r, &req, &res, CALL_MS) && expect_status(&res.reply.fail, RUN_ARG_MISMATCH)) {
        CHECK_CONTAINS(res.reply.fail.message, "argument 2 of int_param");
        CHECK_CONTAINS(res.reply.fail.message, "N is int64 (8 bytes)");
        CHECK_CONTAINS(res.reply.fail.message, "parameter is 4 bytes");
    }
    run_result_release(&res);
    /* An integer literal takes the parameter's width. */
    L->args[1].kind = RUN_ARG_INT;
    if (run(r, &req, &res, CALL_MS) && expect_status(&res.reply.fail, RUN_OK)) {
        size_t bytes = 0;
        const float *out = run_result_output(&res, 0, &bytes);
        CHECK(out && out[0] == 0.0f && out[99] == 99.0f);
    }
    run_result_release(&res);
    /* ... unless it does not fit. */
    L->args[1].i = 1ll << 40;
    if (run(r, &req, &res, CALL_MS) && expect_status(&res.reply.fail, RUN_ARG_MISMATCH))
        CHECK_CONTAINS(res.reply.fail.message, "does not fit");
    run_result_release(&res);
    /* A wrong number of arguments. */
    L->n_args = 1;
    if (run(r, &req, &res, CALL_MS) && expect_status(&res.reply.fail, RUN_ARG_MISMATCH))
        CHECK_CONTAINS(res.reply.fail.message, "takes 2 parameters but 1 argument is given");
    run_result_release(&res);
    /* A kernel that is not in the module. */
    L->n_args = 2;
    snprintf(L->kernel, sizeof(L->kernel), "absent");
    if (run(r, &req, &res, CALL_MS) && expect_status(&res.reply.fail, RUN_LAUNCH_ERROR))
        CHECK_CONTAINS(res.reply.fail.message, "absent");
    run_result_release(&res);
free_runner:
    runner_free(r);
}

SCENARIO(launch_error_keeps_the_runner)
{
    struct run_request req;
    struct run_result res;
    struct runner *r = start(b);

    if (!r)
        return;
    if (load(b, r, all_small, NULL)) {
        vector_add_plan(&req, 1000, 5);
        req.plan.launches[0].block[0] = 2048; /* over the 1024 threads a block may have */
        if (run(r, &req, &res, CALL_MS) && expect_status(&res.reply.fail, RUN_LAUNCH_ERROR)) {
            CHECK_STR_EQ(res.reply.fail.error, "CUDA_ERROR_INVALID_VALUE");
            CHECK_INT_EQ(res.reply.fail.launch, 0);
        }
        run_result_release(&res);
        req.plan.launches[0].grid[0] = 0; /* an empty grid */
        req.plan.launches[0].block[0] = 256;
        if (run(r, &req, &res, CALL_MS))
            expect_status(&res.reply.fail, RUN_LAUNCH_ERROR);
        run_result_release(&res);
        CHECK(runner_alive(r));
        vector_add_plan(&req, 1000, 5);
        if (run(r, &req, &res, CALL_MS) && expect_status(&res.reply.fail, RUN_OK))
            check_vector_add(&req, &res);
        run_result_release(&res);
    }
    runner_free(r);
}

SCENARIO(dynamic_shared_memory)
{
    const char *const kernels[] = {"smem_user", NULL};
    struct run_request req;
    struct run_result res;
    struct run_launch *L;
    struct runner *r = start(b);

    if (!r)
        return;
    memset(&req, 0, sizeof(req));
    plan_init(&req.plan, 1, 0);
    add_buf(&req.plan, "out", DTYPE_FP32, 1000, RUN_ROLE_OUT, NULL);
    L = add_launch(&req.plan, "smem_user", 1000);
    arg_buf(L, 0, "out");
    arg_int(L, RUN_ARG_I64, 1000, "n");
    L->smem = 100 * 1024; /* above 48 KiB: needs the attribute */
    if (load(b, r, kernels, NULL) && run(r, &req, &res, CALL_MS) &&
        expect_status(&res.reply.fail, RUN_OK)) {
        size_t bytes = 0;
        const float *out = run_result_output(&res, 0, &bytes);
        CHECK(out && out[0] == 102400.0f && out[999] == 102400.0f);
    }
    run_result_release(&res);
    L->smem = 1 << 20; /* more than any GPU has */
    if (run(r, &req, &res, CALL_MS) && expect_status(&res.reply.fail, RUN_LAUNCH_ERROR))
        CHECK_CONTAINS(res.reply.fail.message, "dynamic shared memory");
    run_result_release(&res);
    CHECK(runner_alive(r));
    runner_free(r);
}

SCENARIO(cuda_error_ends_the_runner)
{
    const char *const kernels[] = {"vector_add", "fault", NULL};
    struct run_request req;
    struct run_result res;
    struct run_launch *L;
    struct runner *r = start(b);
    char *cause = NULL;

    if (!r)
        return;
    if (!load(b, r, kernels, NULL))
        goto free_runner;
    /* A good launch, then one that faults: the error names the second. */
    vector_add_plan(&req, 1000, 9);
    L = add_launch(&req.plan, "fault", 1);
    arg_buf(L, 2, "out");
    if (run(r, &req, &res, CALL_MS) && expect_status(&res.reply.fail, RUN_CUDA_ERROR)) {
        CHECK_STR_EQ(res.reply.fail.error, "CUDA_ERROR_ILLEGAL_ADDRESS");
        CHECK_INT_EQ(res.reply.fail.launch, 1);
    }
    run_result_release(&res);
    CHECK(!runner_alive(r));
    CHECK_INT_EQ(runner_run(r, &req, &res, CALL_MS, &cause), BW_ERR_IO);
    CHECK_CONTAINS(cause, "not running");
    run_result_release(&res);
    runner_free(r);
    /* A fresh runner works. */
    r = start(b);
    if (r && load(b, r, all_small, NULL)) {
        vector_add_plan(&req, 1000, 9);
        if (run(r, &req, &res, CALL_MS) && expect_status(&res.reply.fail, RUN_OK))
            check_vector_add(&req, &res);
        run_result_release(&res);
    }
free_runner:
    free(cause);
    runner_free(r);
}

SCENARIO(endless_kernel_is_killed_at_the_deadline)
{
    const char *const kernels[] = {"hang", NULL};
    struct run_request req;
    struct run_result res;
    struct run_launch *L;
    struct runner *r = start(b);
    char *cause = NULL;
    double t0;
    int rc;

    if (!r)
        return;
    memset(&req, 0, sizeof(req));
    plan_init(&req.plan, 1, 0);
    add_buf(&req.plan, "out", DTYPE_FP32, 1, RUN_ROLE_OUT, NULL);
    L = add_launch(&req.plan, "hang", 1);
    arg_buf(L, 0, "out");
    if (load(b, r, kernels, NULL)) {
        t0 = now_ms();
        rc = runner_run(r, &req, &res, 3000, &cause);
        CHECK_INT_EQ(rc, BW_ERR_TIMEOUT);
        CHECK_CONTAINS(cause, "did not answer run within 3000 ms");
        CHECK_MSG(now_ms() - t0 < 3000 + 5000, "the kill took %.0f ms", now_ms() - t0 - 3000);
        CHECK(!runner_alive(r));
        printf("  info: %s: endless kernel: timed out and reaped after %.0f ms\n", b->name,
               now_ms() - t0);
        run_result_release(&res);
    }
    runner_free(r);
    /* The GPU is usable by a fresh runner right after. */
    r = start(b);
    if (r && load(b, r, all_small, NULL)) {
        vector_add_plan(&req, 100000, 10);
        if (run(r, &req, &res, CALL_MS) && expect_status(&res.reply.fail, RUN_OK))
            check_vector_add(&req, &res);
        run_result_release(&res);
    }
    free(cause);
    runner_free(r);
}

SCENARIO(gather_returns_chosen_elements)
{
    int64_t idx[5] = {0, 99999, 17, 3, 17};
    struct run_request req;
    struct run_result res;
    struct runner *r = start(b);

    if (!r)
        return;
    if (load(b, r, all_small, NULL)) {
        vector_add_plan(&req, 100000, 11);
        req.ret = RUN_RETURN_GATHER;
        req.plan.n_gather = 1;
        req.plan.gather[0] = (struct run_gather){.buf = 2, .offset = 0, .count = 5};
        req.indices = idx;
        req.n_indices = 5;
        if (run(r, &req, &res, CALL_MS) && expect_status(&res.reply.fail, RUN_OK)) {
            float *x = host_generate(&req.plan.buffers[0].gen, 11, 7, 100000);
            float *y = host_generate(&req.plan.buffers[1].gen, 11, 7, 100000);
            size_t bytes = 0;
            const float *got = run_result_output(&res, 2, &bytes);
            CHECK_INT_EQ(bytes, 20);
            for (int k = 0; got && k < 5; k++) {
                float want = x[idx[k]] + y[idx[k]];
                CHECK_MSG(memcmp(&got[k], &want, 4) == 0, "gathered[%d] = %g, want %g", k, got[k],
                          want);
            }
            free(x);
            free(y);
        }
        run_result_release(&res);
        idx[2] = 100000; /* out of range: the request is refused, the runner stays */
        if (run(r, &req, &res, CALL_MS) && expect_status(&res.reply.fail, RUN_ERROR))
            CHECK_CONTAINS(res.reply.fail.message, "outside [0, 100000)");
        run_result_release(&res);
        CHECK(runner_alive(r));
    }
    runner_free(r);
}

/* The distributions checked below, each in an inout buffer (generated, returned). */
struct dist_case {
    const char *what;
    struct gen_spec g;
    bool exact; /* bitwise equal to the host (no transcendental functions) */
};

static int dist_cases(struct dist_case *c)
{
    int n = 0;
    c[n++] =
        (struct dist_case){"uniform fp32 [-2, 3)", gen(GEN_UNIFORM, DTYPE_FP32, 0, -2, 3), true};
    c[n++] = (struct dist_case){"normal fp64 (1, 2)", gen(GEN_NORMAL, DTYPE_FP64, 1, 1, 2), false};
    c[n] = (struct dist_case){"loguniform fp32 signed",
                              gen(GEN_LOGUNIFORM, DTYPE_FP32, 2, 1e-3, 1e3), false};
    c[n++].g.flags = GEN_SIGNED;
    c[n++] = (struct dist_case){"const fp16 2.5", gen(GEN_CONST, DTYPE_FP16, 3, 2.5, 0), true};
    c[n++] = (struct dist_case){"randint int32 [-5, 5]", gen_randint(DTYPE_INT32, 4, -5, 5), true};
    c[n] = (struct dist_case){"uniform + row offset", gen(GEN_UNIFORM, DTYPE_FP32, 5, 0, 1), true};
    c[n].g.flags = GEN_ROW_OFFSET;
    c[n].g.row_len = 1024;
    c[n].g.row_lo = -100;
    c[n++].g.row_hi = 100;
    c[n] = (struct dist_case){"uniform + spike", gen(GEN_UNIFORM, DTYPE_FP32, 6, 0, 1), true};
    c[n].g.flags = GEN_SPIKE;
    c[n].g.row_len = 512;
    c[n++].g.spike = 1000;
    c[n] = (struct dist_case){"normal + specials", gen(GEN_NORMAL, DTYPE_FP32, 7, 0, 1), false};
    c[n].g.n_specials = 2;
    c[n].g.special_value[0] = NAN;
    c[n].g.special_fraction[0] = 0.01;
    c[n].g.special_value[1] = INFINITY;
    c[n++].g.special_fraction[1] = 0.005;
    c[n++] =
        (struct dist_case){"uniform bf16 [-1, 1)", gen(GEN_UNIFORM, DTYPE_BF16, 8, -1, 1), true};
    c[n] = (struct dist_case){"neg of the bf16", gen(GEN_UNIFORM, DTYPE_BF16, 8, -1, 1), true};
    c[n++].g.flags = GEN_NEGATE;
    c[n++] = (struct dist_case){"normal fp16 (0, 1)", gen(GEN_NORMAL, DTYPE_FP16, 10, 0, 1), false};
    c[n++] =
        (struct dist_case){"randint uint8 [0, 255]", gen_randint(DTYPE_UINT8, 11, 0, 255), true};
    c[n++] = (struct dist_case){"randint int64 full range",
                                gen_randint(DTYPE_INT64, 12, INT64_MIN, INT64_MAX), true};
    c[n++] =
        (struct dist_case){"normal bf16 (3, 0.5)", gen(GEN_NORMAL, DTYPE_BF16, 13, 3, 0.5), false};
    c[n++] = (struct dist_case){"uniform into int8, saturating",
                                gen(GEN_UNIFORM, DTYPE_INT8, 14, -200, 200), true};
    return n;
}

#define DIST_N     (1u << 20)
#define DIST_CASES 16

static void dist_plan(struct run_request *req, struct dist_case *c, int n_cases, uint64_t seed)
{
    struct run_launch *L;

    memset(req, 0, sizeof(*req));
    plan_init(&req->plan, seed, 5);
    for (int i = 0; i < n_cases; i++) {
        char name[16];
        snprintf(name, sizeof(name), "d%d", i);
        add_buf(&req->plan, name, (enum dtype)c[i].g.dtype, DIST_N, RUN_ROLE_INOUT, &c[i].g);
    }
    L = add_launch(&req->plan, "noop1", 1);
    arg_buf(L, 0, "d0");
}

/* Statistics of each distribution over DIST_N elements. */
static void check_dist_stats(const struct run_plan *p, const struct run_result *res,
                             const struct dist_case *c)
{
    double *v[DIST_CASES] = {NULL}, mean, std;
    uint64_t n = DIST_N, cnt;

    for (int i = 0; i < p->n_buffers; i++)
        v[i] = as_doubles(res, p, i);
    if (v[0]) { /* uniform [-2, 3) */
        moments(v[0], n, &mean, &std);
        CHECK_NEAR(mean, 0.5, 0.01, c[0].what);
        CHECK_NEAR(std, 5 / sqrt(12), 0.01, c[0].what);
        for (uint64_t i = 0; i < n; i++)
            if (!(v[0][i] >= -2 && v[0][i] <= 3)) {
                CHECK_MSG(0, "uniform value %g outside [-2, 3]", v[0][i]);
                break;
            }
    }
    if (v[1]) { /* normal (1, 2) */
        moments(v[1], n, &mean, &std);
        CHECK_NEAR(mean, 1, 0.01, c[1].what);
        CHECK_NEAR(std, 2, 0.01, c[1].what);
        cnt = 0;
        for (uint64_t i = 0; i < n; i++)
            cnt += fabs(v[1][i] - 1) > 4; /* beyond 2 sigma: 4.55% */
        CHECK_NEAR((double)cnt / n, 0.0455, 0.002, "normal: fraction beyond 2 sigma");
    }
    if (v[2]) { /* loguniform, signed: log10|v| is U(-3, 3) */
        double *l = malloc(n * sizeof(double));
        cnt = 0;
        for (uint64_t i = 0; l && i < n; i++) {
            l[i] = log10(fabs(v[2][i]));
            cnt += v[2][i] < 0;
        }
        if (l) {
            moments(l, n, &mean, &std);
            CHECK_NEAR(mean, 0, 0.02, "loguniform: mean of log10|v|");
            CHECK_NEAR(std, 6 / sqrt(12), 0.01, "loguniform: std of log10|v|");
        }
        CHECK_NEAR((double)cnt / n, 0.5, 0.005, "loguniform signed: fraction negative");
        free(l);
    }
    if (v[3]) { /* const */
        cnt = 0;
        for (uint64_t i = 0; i < n; i++)
            cnt += v[3][i] != 2.5;
        CHECK_INT_EQ(cnt, 0);
    }
    if (v[4]) { /* randint [-5, 5]: each value 1/11 */
        uint64_t hist[11] = {0}, outside = 0;
        for (uint64_t i = 0; i < n; i++) {
            if (v[4][i] < -5 || v[4][i] > 5 || v[4][i] != floor(v[4][i]))
                outside++;
            else
                hist[(int)v[4][i] + 5]++;
        }
        CHECK_INT_EQ(outside, 0);
        for (int k = 0; k < 11; k++)
            CHECK_NEAR((double)hist[k] / n, 1.0 / 11, 0.003, "randint: frequency of a value");
    }
    if (v[5]) { /* row offset: within a row the spread is < 1, rows are shifted in [-100, 100] */
        double row_means[DIST_N / 1024], m, s;
        for (uint64_t row = 0; row < n / 1024; row++) {
            double lo = INFINITY, hi = -INFINITY, sum = 0;
            for (uint64_t j = 0; j < 1024; j++) {
                double x = v[5][row * 1024 + j];
                lo = fmin(lo, x);
                hi = fmax(hi, x);
                sum += x;
            }
            row_means[row] = sum / 1024 - 0.5;
            if (hi - lo >= 1.0001 || lo < -100.01 || hi > 101.01) {
                CHECK_MSG(0, "row %llu spans [%g, %g]", (unsigned long long)row, lo, hi);
                break;
            }
        }
        moments(row_means, n / 1024, &m, &s);
        CHECK_NEAR(m, 0, 8, "row offset: mean of the offsets");
        CHECK_NEAR(s, 200 / sqrt(12), 8, "row offset: spread of the offsets");
    }
    if (v[6]) { /* exactly one spike per row */
        uint64_t bad_rows = 0;
        for (uint64_t row = 0; row < n / 512; row++) {
            int spikes = 0;
            for (uint64_t j = 0; j < 512; j++)
                spikes += v[6][row * 512 + j] == 1000;
            bad_rows += spikes != 1;
        }
        CHECK_MSG(bad_rows == 0, "%llu rows without exactly one spike",
                  (unsigned long long)bad_rows);
    }
    if (v[7]) { /* specials: 1% NaN, then 0.5% of the rest +inf */
        uint64_t nans = 0, infs = 0;
        for (uint64_t i = 0; i < n; i++) {
            nans += isnan(v[7][i]);
            infs += isinf(v[7][i]) && v[7][i] > 0;
        }
        CHECK_NEAR((double)nans / n, 0.01, 0.001, "specials: NaN fraction");
        CHECK_NEAR((double)infs / n, 0.005 * 0.99, 0.0007, "specials: +inf fraction");
    }
    if (v[8] && v[9]) { /* neg: exactly minus, bit for bit but the sign */
        cnt = 0;
        for (uint64_t i = 0; i < n; i++)
            cnt += v[9][i] != -v[8][i];
        CHECK_MSG(cnt == 0, "%llu elements of the neg tensor are not exactly minus the source",
                  (unsigned long long)cnt);
    }
    if (v[10]) {
        moments(v[10], n, &mean, &std);
        CHECK_NEAR(mean, 0, 0.01, c[10].what);
        CHECK_NEAR(std, 1, 0.01, c[10].what);
    }
    if (v[11]) {
        moments(v[11], n, &mean, &std);
        CHECK_NEAR(mean, 127.5, 0.5, c[11].what);
    }
    if (v[13]) {
        moments(v[13], n, &mean, &std);
        CHECK_NEAR(mean, 3, 0.01, c[13].what);
        CHECK_NEAR(std, 0.5, 0.01, c[13].what);
    }
    if (v[14]) { /* U(-200, 200) saturates to [-128, 127]: ~18% at each end */
        uint64_t lo = 0, hi = 0;
        for (uint64_t i = 0; i < n; i++) {
            lo += v[14][i] == -128;
            hi += v[14][i] == 127;
        }
        CHECK_NEAR((double)lo / n, 72.5 / 400, 0.005, "int8 saturation at -128");
        CHECK_NEAR((double)hi / n, 73.5 / 400, 0.005, "int8 saturation at 127");
    }
    for (int i = 0; i < p->n_buffers; i++)
        free(v[i]);
}

SCENARIO(distributions_match_the_host_and_their_laws)
{
    const char *const kernels[] = {"noop1", NULL};
    struct dist_case c[DIST_CASES];
    int n_cases = dist_cases(c);
    struct run_request *req = calloc(1, sizeof(*req));
    struct run_result res, res2;
    struct runner *r = start(b), *r2 = NULL;

    memset(&res, 0, sizeof(res));
    memset(&res2, 0, sizeof(res2));
    if (!r || !req || !load(b, r, kernels, NULL))
        goto free_all;
    dist_plan(req, c, n_cases, 0xC0FFEE0123456789ull);
    if (!run(r, req, &res, CALL_MS) || !expect_status(&res.reply.fail, RUN_OK))
        goto free_all;
    for (int i = 0; i < n_cases; i++) {
        size_t bytes = 0;
        const void *got = run_result_output(&res, i, &bytes);
        void *want = host_generate(&c[i].g, req->plan.seed, req->plan.case_index, DIST_N);
        char what[96];
        snprintf(what, sizeof(what), "%s: %s", b->name, c[i].what);
        if (got && bytes == DIST_N * dtype_size((enum dtype)c[i].g.dtype))
            compare_generated(what, (enum dtype)c[i].g.dtype, got, want, DIST_N, c[i].exact);
        else
            CHECK_MSG(0, "%s: %zu bytes returned", what, bytes);
        free(want);
    }
    check_dist_stats(&req->plan, &res, c);

    /* A second runner builds the same bytes. */
    r2 = start(b);
    if (r2 && load(b, r2, kernels, NULL) && run(r2, req, &res2, CALL_MS) &&
        expect_status(&res2.reply.fail, RUN_OK)) {
        /* output by output: the lent buffers they came in may differ in size */
        for (int i = 0; i < n_cases; i++) {
            size_t b1 = 0, b2 = 0;
            const void *x1 = run_result_output(&res, i, &b1),
                       *x2 = run_result_output(&res2, i, &b2);
            CHECK_MSG(x1 && x2 && b1 == b2 && memcmp(x1, x2, b1) == 0,
                      "%s: two runners generated different inputs from the same seed", c[i].what);
        }
    }
    run_result_release(&res2);
    /* Another case changes the data. */
    req->plan.case_index++;
    if (r2 && run(r2, req, &res2, CALL_MS) && expect_status(&res2.reply.fail, RUN_OK)) {
        size_t b1 = 0, b2 = 0;
        const void *x1 = run_result_output(&res, 0, &b1), *x2 = run_result_output(&res2, 0, &b2);
        CHECK(x1 && x2 && b1 == b2 && memcmp(x1, x2, b1) != 0);
    }
free_all:
    run_result_release(&res);
    run_result_release(&res2);
    runner_free(r);
    runner_free(r2);
    free(req);
}

/* A bench of kernel(x, out, n) with x generated, out gathered at 4 points per set;
 * false when the call itself failed. *idx_out is the index array (new). */
static bool bench_copy(struct backend *b, struct runner *r, const char *kernel, uint64_t n,
                       int sets, struct bench_result *res, int64_t **idx_out)
{
    struct gen_spec g = gen(GEN_UNIFORM, DTYPE_FP32, 0, -1, 1);
    struct bench_request req;
    struct run_launch *L;
    int64_t *idx = calloc((size_t)sets * 4, sizeof(int64_t));
    char *cause = NULL;
    int rc;

    memset(&req, 0, sizeof(req));
    plan_init(&req.plan, 0xBE4C4, 100);
    add_buf(&req.plan, "x", DTYPE_FP32, n, RUN_ROLE_IN, &g);
    add_buf(&req.plan, "out", DTYPE_FP32, n, RUN_ROLE_OUT, NULL);
    L = add_launch(&req.plan, kernel, n);
    arg_buf(L, 0, "x");
    arg_buf(L, 1, "out");
    arg_int(L, RUN_ARG_I64, (int64_t)n, "n");
    req.plan.n_gather = 1;
    req.plan.gather[0] = (struct run_gather){.buf = 1, .offset = 0, .count = 4};
    for (int s = 0; idx && s < sets; s++) {
        idx[s * 4 + 0] = 0;
        idx[s * 4 + 1] = (int64_t)n - 1;
        idx[s * 4 + 2] = (int64_t)((12345u + (unsigned)s) % n);
        idx[s * 4 + 3] = (int64_t)n / 2;
    }
    req.indices = idx;
    req.n_indices = (size_t)sets * 4;
    req.sets = (uint32_t)sets;
    req.min_samples = 10;
    req.max_samples = 60;
    req.target_rse = 0.01;
    req.budget_ms = 3000;
    req.warmup_ms = 50;
    req.l2_flush_bytes = b->kind == GPU ? BW_L2_FLUSH_BYTES : (1u << 20);
    rc = runner_bench(r, &req, res, CALL_MS, &cause);
    CHECK_MSG(rc == BW_OK, "runner_bench: %s: %s", bw_strerror(rc), cause ? cause : "");
    free(cause);
    *idx_out = idx;
    return rc == BW_OK;
}

/* A bench warms up with at least its warmup_runs (a screening sends 2, bench.c): on the fake,
 * vector_add_slow_64 in blocks of 64 sleeps 2 ms a run, so the call's wall time bounds the runs
 * from below. */
#define SLOW_RUN_MS 2
#define WARMUP_MANY 40

TEST(fake_bench_warms_up_for_its_warmup_runs)
{
    const char *const kernels[] = {"vector_add_slow_64", NULL};
    struct backend b;
    struct bench_request req;
    struct bench_result res;
    struct runner *r;
    char *cause = NULL;
    double ms[2] = {0, 0};

    if (!use_backend(&b, FAKE))
        return;
    r = start(&b);
    if (!r || !load(&b, r, kernels, NULL)) {
        runner_free(r);
        return;
    }
    for (int k = 0; k < 2; k++) {
        struct run_request rq;
        double t0;

        vector_add_plan(&rq, 1000, 0x5107ull);
        memset(&req, 0, sizeof(req));
        req.plan = rq.plan;
        snprintf(req.plan.launches[0].kernel, sizeof(req.plan.launches[0].kernel), "%s",
                 kernels[0]);
        req.plan.launches[0].block[0] = 64;
        req.plan.launches[0].grid[0] = (1000 + 63) / 64;
        req.sets = 1;
        req.min_samples = req.max_samples = 1;
        req.target_rse = 0.01;
        req.budget_ms = 1000;
        req.warmup_ms = 0;
        req.warmup_runs = k == 0 ? 0 : WARMUP_MANY; /* 0: the default, BW_BENCH_WARMUP_RUNS */
        req.l2_flush_bytes = 1u << 20;
        t0 = now_ms();
        CHECK_INT_EQ(runner_bench(r, &req, &res, CALL_MS, &cause), BW_OK);
        ms[k] = now_ms() - t0;
        CHECK_MSG(res.reply.fail.status == RUN_OK, "bench: %s", res.reply.fail.message);
        CHECK_INT_EQ(res.reply.n_samples, 1);
        bench_result_release(&res);
    }
    CHECK_MSG(ms[0] >= (BW_BENCH_WARMUP_RUNS + 1) * SLOW_RUN_MS * 0.9 &&
                  ms[1] >= (WARMUP_MANY + 1) * SLOW_RUN_MS * 0.9,
              "a bench of 1 sample took %.1f ms with the default warm-up and %.1f ms with %d "
              "warm-up runs (%d ms each)",
              ms[0], ms[1], WARMUP_MANY, SLOW_RUN_MS);
    printf("  info: a bench of one 2 ms sample: %.1f ms with the default warm-up, %.1f ms with "
           "%d runs\n",
           ms[0], ms[1], WARMUP_MANY);
    free(cause);
    runner_free(r);
}

SCENARIO(bench_copy)
{
    const char *const kernels[] = {"copy_f32", NULL};
    uint64_t n = b->kind == GPU ? (1u << 26) : (1u << 18);
    struct bench_result res;
    int64_t *idx = NULL;
    struct runner *r = start(b);

    memset(&res, 0, sizeof(res));
    if (!r || !load(b, r, kernels, NULL))
        goto free_all;
    if (!bench_copy(b, r, "copy_f32", n, 2, &res, &idx) || !expect_status(&res.reply.fail, RUN_OK))
        goto free_all;
    CHECK_MSG(res.reply.n_samples >= 10 && res.reply.n_samples <= 60, "%u samples",
              res.reply.n_samples);
    CHECK(res.reply.n_poison == 1 && res.reply.poison_buf[0] == 1);
    CHECK_INT_EQ(res.reply.bytes_per_sample, 16);
    CHECK_INT_EQ(res.gathered_len, 16ull * res.reply.n_samples);
    {
        struct gen_spec gx = gen(GEN_UNIFORM, DTYPE_FP32, 0, -1, 1);
        double sorted[60], median, gbps;
        uint32_t ns = res.reply.n_samples;

        for (uint32_t s = 0; s < ns; s++) {
            const float *g = (const float *)(res.gathered + 16ull * s);
            int set = (int)(s % 2);
            CHECK_MSG(res.reply.samples_ms[s] > 0, "sample %u took %g ms", s,
                      res.reply.samples_ms[s]);
            CHECK_MSG(res.reply.poison[s] == 0, "sample %u: %llu poisoned", s,
                      (unsigned long long)res.reply.poison[s]);
            for (int k = 0; res.gathered && k < 4; k++) {
                float want;
                /* the element of input set `set` (case 100 + set) at the index */
                dtype_store(
                    DTYPE_FP32, &want,
                    gen_value_at(&gx, 0xBE4C4, 100 + (uint32_t)set, (uint64_t)idx[set * 4 + k]).f);
                if (memcmp(&g[k], &want, 4) != 0) {
                    CHECK_MSG(0, "sample %u (set %d) gathered[%d] = %g, want %g", s, set, k, g[k],
                              want);
                    s = ns;
                    break;
                }
            }
        }
        for (uint32_t s = 0; s < ns; s++)
            sorted[s] = res.reply.samples_ms[s];
        for (uint32_t i = 1; i < ns; i++)
            for (uint32_t j = i; j > 0 && sorted[j - 1] > sorted[j]; j--) {
                double t = sorted[j];
                sorted[j] = sorted[j - 1];
                sorted[j - 1] = t;
            }
        median = sorted[ns / 2];
        gbps = 8.0 * (double)n / (median * 1e-3) / 1e9;
        printf("  info: %s: copy of %llu floats: median %.4f ms (%.0f GB/s), %u samples, stop "
               "%s, clock %.0f -> %.0f MHz\n",
               b->name, (unsigned long long)n, median, gbps, ns, bench_stop_name(res.reply.stop),
               res.reply.clock_mhz[0], res.reply.clock_mhz[1]);
        CHECK(res.reply.clock_mhz[0] > 0 && res.reply.clock_mhz[1] > 0);
        if (b->kind == GPU) {
            CHECK_MSG(gbps > 300 && gbps < 20000, "copy bandwidth %.0f GB/s is not plausible",
                      gbps);
            CHECK_MSG(res.reply.clock_mhz[1] > 300 && res.reply.clock_mhz[1] < 4000,
                      "SM clock %.0f MHz", res.reply.clock_mhz[1]);
        }
    }
free_all:
    bench_result_release(&res);
    free(idx);
    runner_free(r);
}

SCENARIO(bench_failures)
{
    const char *const kernels[] = {"partial", "tail_overrun", "write_input", NULL};
    struct bench_result res;
    int64_t *idx = NULL;
    struct runner *r = start(b);
    uint64_t n = 4000; /* not a multiple of the block: the overrun thread exists */

    memset(&res, 0, sizeof(res));
    if (!r || !load(b, r, kernels, NULL))
        goto free_all;
    /* A write past the end during timing is a guard violation naming its sample. */
    if (bench_copy(b, r, "tail_overrun", n, 1, &res, &idx))
        expect_status(&res.reply.fail, RUN_GUARD_VIOLATION);
    CHECK_MSG(res.reply.fail.in_warmup || res.reply.fail.sample >= 0, "no sample named");
    bench_result_release(&res);
    free(idx);
    idx = NULL;
    if (bench_copy(b, r, "write_input", n, 2, &res, &idx) &&
        expect_status(&res.reply.fail, RUN_INPUT_MODIFIED))
        CHECK_INT_EQ(res.reply.fail.buf, 0);
    bench_result_release(&res);
    free(idx);
    idx = NULL;
    CHECK(runner_alive(r));
free_all:
    bench_result_release(&res);
    free(idx);
    runner_free(r);
}

SCENARIO(bench_counts_poison_and_restores_inout)
{
    const char *const kernels[] = {"partial", "scale_inout", NULL};
    struct gen_spec g = gen(GEN_UNIFORM, DTYPE_FP32, 0, 1, 2);
    struct bench_request req;
    struct bench_result res;
    struct run_launch *L;
    int64_t idx[2] = {0, 999};
    struct runner *r = start(b);
    char *cause = NULL;
    int rc;

    memset(&res, 0, sizeof(res));
    if (!r || !load(b, r, kernels, NULL))
        goto free_all;
    /* partial writes half of out: the other half is counted as poison each sample. */
    memset(&req, 0, sizeof(req));
    plan_init(&req.plan, 3, 0);
    add_buf(&req.plan, "out", DTYPE_FP32, 1001, RUN_ROLE_OUT, NULL);
    L = add_launch(&req.plan, "partial", 1001);
    arg_buf(L, 0, "out");
    arg_int(L, RUN_ARG_I64, 1001, "n");
    req.sets = 1;
    req.min_samples = 5;
    req.max_samples = 5;
    req.target_rse = 0;
    req.budget_ms = 5000;
    rc = runner_bench(r, &req, &res, CALL_MS, &cause);
    CHECK_INT_EQ(rc, BW_OK);
    if (!rc && expect_status(&res.reply.fail, RUN_OK)) {
        CHECK_INT_EQ(res.reply.n_samples, 5);
        /* "rse" when five equal event times give a spread of 0 */
        CHECK(res.reply.stop == BENCH_STOP_MAX_SAMPLES || res.reply.stop == BENCH_STOP_RSE);
        for (uint32_t s = 0; s < res.reply.n_samples; s++)
            CHECK_INT_EQ(res.reply.poison[s], 1001 - 500);
    }
    bench_result_release(&res);
    /* An inout buffer is regenerated before every sample: always 2x, never 2^k x. */
    memset(&req, 0, sizeof(req));
    plan_init(&req.plan, 4, 0);
    add_buf(&req.plan, "xy", DTYPE_FP32, 1000, RUN_ROLE_INOUT, &g);
    L = add_launch(&req.plan, "scale_inout", 1000);
    arg_buf(L, 0, "xy");
    arg_int(L, RUN_ARG_I64, 1000, "n");
    req.plan.n_gather = 1;
    req.plan.gather[0] = (struct run_gather){.buf = 0, .offset = 0, .count = 2};
    req.indices = idx;
    req.n_indices = 2;
    req.sets = 1;
    req.min_samples = 6;
    req.max_samples = 6;
    req.target_rse = 0;
    req.budget_ms = 5000;
    rc = runner_bench(r, &req, &res, CALL_MS, &cause);
    CHECK_INT_EQ(rc, BW_OK);
    if (!rc && expect_status(&res.reply.fail, RUN_OK) && res.gathered) {
        float *x = host_generate(&g, 4, 0, 1000);
        for (uint32_t s = 0; s < res.reply.n_samples; s++) {
            const float *got = (const float *)(res.gathered + 8ull * s);
            CHECK_MSG(got[0] == 2 * x[0] && got[1] == 2 * x[999], "sample %u: %g %g, want %g %g", s,
                      got[0], got[1], 2 * x[0], 2 * x[999]);
        }
        free(x);
    }
free_all:
    bench_result_release(&res);
    free(cause);
    runner_free(r);
}

SCENARIO(calibrate)
{
    struct calibration c;
    struct run_failure f;
    struct runner *r = start(b);
    char *cause = NULL;
    int rc;

    if (!r)
        return;
    rc = runner_calibrate(r, &c, &f, BW_RUNNER_CALIBRATE_MS, &cause);
    CHECK_MSG(rc == BW_OK, "runner_calibrate: %s: %s", bw_strerror(rc), cause ? cause : "");
    if (!rc && expect_status(&f, RUN_OK)) {
        printf("  info: %s: calibration: copy %.0f GB/s, fp32 %.1f TFLOP/s, fp16 mma.sync %.1f "
               "TFLOP/s, bf16 mma.sync %.1f TFLOP/s, clock %.0f MHz\n",
               b->name, c.copy_gbps, c.fp32_tflops, c.fp16_tensor_tflops, c.bf16_tensor_tflops,
               c.clock_mhz);
        CHECK(c.copy_gbps > 0 && c.fp32_tflops > 0 && c.fp16_tensor_tflops > 0 &&
              c.bf16_tensor_tflops > 0 && c.clock_mhz > 0);
        if (b->kind == GPU) {
            CHECK_MSG(c.copy_gbps > 300 && c.copy_gbps < 20000, "copy %.0f GB/s", c.copy_gbps);
            CHECK_MSG(c.fp32_tflops > 5 && c.fp32_tflops < 300, "fp32 %.1f TFLOP/s", c.fp32_tflops);
            CHECK_MSG(c.fp16_tensor_tflops > 30 && c.fp16_tensor_tflops < 3000, "fp16 %.1f TFLOP/s",
                      c.fp16_tensor_tflops);
            CHECK_MSG(c.bf16_tensor_tflops > 30 && c.bf16_tensor_tflops < 3000, "bf16 %.1f TFLOP/s",
                      c.bf16_tensor_tflops);
            CHECK_MSG(c.clock_mhz > 300 && c.clock_mhz < 4000, "clock %.0f MHz", c.clock_mhz);
            /* fp32 peak = SMs x 128 lanes x 2 FLOPs x clock: within a factor of 2 of that */
            double expect = runner_gpu(r)->sm_count * 128.0 * 2 * c.clock_mhz * 1e6 / 1e12;
            CHECK_MSG(c.fp32_tflops > expect / 2 && c.fp32_tflops < expect * 1.5,
                      "fp32 %.1f TFLOP/s against %.1f from SMs x clock", c.fp32_tflops, expect);
        }
    }
    free(cause);
    runner_free(r);
}

SCENARIO(a_runner_that_dies_is_reported)
{
    struct run_request req;
    struct run_result res;
    struct runner *r = start(b);
    char *cause = NULL;

    if (!r)
        return;
    kill(runner_pid(r), SIGSEGV);
    vector_add_plan(&req, 100, 1);
    CHECK_INT_EQ(runner_run(r, &req, &res, CALL_MS, &cause), BW_ERR_IO);
    CHECK_CONTAINS(cause, "signal 11");
    CHECK(!runner_alive(r));
    run_result_release(&res);
    free(cause);
    runner_free(r);
}

/* --- GPU only ----------------------------------------------------------------------------- */

/* The GPU tests' kernels compile here too (NVRTC needs no GPU), so a slip in
 * them shows before a GPU session. */
TEST(runner_test_kernels_compile_with_nvrtc)
{
    char why[1024] = "";
    void *cubin = NULL;
    size_t len = 0;

    CHECK_MSG(compile_kernels(9, 0, &cubin, &len, why, sizeof(why)), "%s", why);
    CHECK(len > 0);
    free(cubin);
}

TEST(gpu_sandboxed_runner_starts)
{
    struct backend b;

    if (!use_backend(&b, GPU))
        return;
    CHECK_MSG(!gpu_without_sandbox, "%s", sandbox_failure);
}

TEST(gpu_no_sandbox_runner_works)
{
    struct run_request req;
    struct run_result res;
    struct backend b;
    struct runner *r;

    if (!use_backend(&b, GPU))
        return;
    b.opt.no_sandbox = true;
    r = start(&b);
    if (r && load(&b, r, all_small, NULL)) {
        vector_add_plan(&req, 1 << 20, 12);
        if (run(r, &req, &res, CALL_MS) && expect_status(&res.reply.fail, RUN_OK))
            check_vector_add(&req, &res);
        run_result_release(&res);
    }
    runner_free(r);
}

/* --- without a device ------------------------------------------------------------------------ */

TEST(runner_without_a_device_says_so)
{
    struct runner_options opt = {.device = 0};
    struct runner *r = NULL;
    char *cause = NULL;
    int rc;

    if (!have_runner())
        SKIP("no runner binary (build it first)");
    opt.path = runner_binary();
    /* Device 99 exists nowhere: with or without a driver, the answer is no_device. */
    opt.device = 99;
    rc = runner_start(&opt, &r, &cause);
    CHECK_INT_EQ(rc, BW_ERR_NODEVICE);
    CHECK_MSG(cause && (strstr(cause, "libcuda.so.1") || strstr(cause, "device 99 does not exist")),
              "cause: %s", cause ? cause : "(null)");
    CHECK(r == NULL);
    /* On a machine without a driver, device 0 says why too, sandboxed or not. */
    opt.device = 0;
    for (int sandbox = 0; sandbox < 2; sandbox++) {
        opt.no_sandbox = !sandbox;
        rc = runner_start(&opt, &r, &cause);
        if (rc == BW_OK) {
            runner_free(r);
            r = NULL;
            continue; /* a GPU is here */
        }
        CHECK_INT_EQ(rc, BW_ERR_NODEVICE);
        CHECK_CONTAINS(cause, "CUDA device and harness: ");
        printf("  info: %s: %s\n", sandbox ? "sandboxed" : "no sandbox", cause);
    }
    free(cause);
}

TEST(runner_spawn_failures)
{
    struct runner_options opt = {.device = 0, .path = "/nonexistent/blockwise-runner"};
    struct runner *r = NULL;
    char *cause = NULL;

    CHECK_INT_EQ(runner_start(&opt, &r, &cause), BW_ERR_NOTFOUND);
    CHECK_CONTAINS(cause, "/nonexistent/blockwise-runner");
    /* A program that is not a runner: it never says ready. */
    opt.path = "/bin/true";
    opt.start_ms = 2000;
    CHECK_INT_EQ(runner_start(&opt, &r, &cause), BW_ERR_IO);
    CHECK_CONTAINS(cause, "exited with status 0");
    opt.path = "/bin/sleep"; /* "sleep --device 0" fails at once too */
    CHECK(runner_start(&opt, &r, &cause) != BW_OK);
    free(cause);
}

/* A stand-in runner (a shell script) reports what runner_start gave it, then dies with last
 * words; the client's start-up must see it die and quote them. */
TEST(runner_start_gives_the_layout_environment_and_group)
{
    static const char script[] =
        "#!/bin/sh\n"
        "{ for f in 0 1 2 3 4 5 6 7 8 9; do [ -e /proc/$$/fd/$f ] && printf 'fd%s ' $f; done\n"
        "  printf 'in=%s ' \"$(readlink /proc/$$/fd/0)\"\n"
        "  case \"$(readlink /proc/$$/fd/3)\" in socket:*) printf 'sock ';; esac\n"
        "  [ \"$(cut -d' ' -f5 /proc/$$/stat)\" = $$ ] && printf 'leader '\n"
        "  printf 'args=%s\\n' \"$*\"\n"
        "  env | grep -v '^PWD=' | grep -v '^SHLVL=' | grep -v '^_=' | sort\n"
        "} > \"$BW_PROBE_OUT\"\n"
        "echo 'probe: done' >&2\n"
        "exit 7\n";
    char dir[] = "/tmp/bw-runner-probe-XXXXXX", path[PATH_MAX], out[PATH_MAX],
         env_out[PATH_MAX + 16];
    const char *extra[] = {env_out, NULL};
    struct runner_options opt = {.device = 5, .start_ms = 5000, .extra_env = extra};
    struct runner *r = NULL;
    char *cause = NULL, *text = NULL, expect[2 * PATH_MAX];
    size_t len = 0;

    CHECK(mkdtemp(dir) != NULL);
    snprintf(path, sizeof(path), "%s/fake-runner", dir);
    snprintf(out, sizeof(out), "%s/report", dir);
    snprintf(env_out, sizeof(env_out), "BW_PROBE_OUT=%s", out);
    CHECK(write_file_atomic(path, script, strlen(script), NULL) == BW_OK);
    chmod(path, 0755);
    opt.path = path;
    setenv("BW_SECRET_CANARY", "bw-canary-in-judged", 1);
    CHECK_INT_EQ(runner_start(&opt, &r, &cause), BW_ERR_IO);
    CHECK_CONTAINS(cause, "exited with status 7; its last words: probe: done");
    CHECK(r == NULL);
    CHECK(read_file(out, 1 << 16, &text, &len, NULL) == BW_OK);
    /* Exactly fds 0-3, and an environment of the two variables given, nothing of judged's. */
    snprintf(expect, sizeof(expect),
             "fd0 fd1 fd2 fd3 in=/dev/null sock leader args=--device 5\n"
             "BW_PROBE_OUT=%s\nCUDA_CACHE_DISABLE=1\n",
             out);
    CHECK_STR_EQ(text, expect);
    free(text);
    free(cause);
    unlink(out);
    unlink(path);
    rmdir(dir);
}

/* --- the sandbox steps, in forked children --------------------------------------------------- */

/* Runs fn in a forked child; its output lines are returned (new) and its exit status stored. */
static char *in_child(void (*fn)(int out), int *status)
{
    int p[2];
    char *text = calloc(1, 8192);
    size_t got = 0;
    pid_t pid;

    *status = -1;
    if (!text || pipe(p) < 0)
        return text;
    pid = fork();
    if (pid == 0) {
        close(p[0]);
        fn(p[1]);
        _exit(0);
    }
    close(p[1]);
    for (;;) {
        ssize_t n = read(p[0], text + got, 8191 - got);
        if (n <= 0)
            break;
        got += (size_t)n;
    }
    close(p[0]);
    waitpid(pid, status, 0);
    return text;
}

static void say(int fd, const char *what, int result)
{
    char line[160];
    int n = snprintf(line, sizeof(line), "%s=%s\n", what, result < 0 ? strerror(errno) : "ok");
    if (write(fd, line, (size_t)n) < 0)
        _exit(3);
}

static void *blocked_thread(void *arg)
{
    int *fds = arg;
    char c;
    /* waits until the filter is installed, then tries a forbidden call */
    if (read(fds[0], &c, 1) == 1) {
        int s = socket(AF_INET, SOCK_STREAM, 0);
        fds[2] = s < 0 ? errno : 0;
        if (s >= 0)
            close(s);
    }
    return NULL;
}

static void seccomp_child(int out)
{
    int fds[3] = {-1, -1, -1}, m;
    pthread_t t;
    char *cause = NULL;
    pid_t pid;

    if (pipe(fds) < 0 || pthread_create(&t, NULL, blocked_thread, fds) != 0)
        _exit(2);
    if (runner_sandbox_rlimits(&cause) || runner_sandbox_seccomp(&cause)) {
        dprintf(out, "setup=%s\n", cause ? cause : "failed");
        _exit(1);
    }
    if (write(fds[1], "x", 1) != 1)
        _exit(2);
    pthread_join(t, NULL);
    errno = fds[2];
    say(out, "thread_socket_inet", fds[2] ? -1 : 0);
    m = socket(AF_INET, SOCK_STREAM, 0);
    say(out, "socket_inet", m);
    m = socket(AF_UNIX, SOCK_STREAM, 0);
    say(out, "socket_unix", m);
    pid = fork();
    if (pid == 0)
        _exit(0);
    say(out, "fork", pid < 0 ? -1 : 0);
    {
        char *argv[] = {(char *)"/bin/true", NULL}, *envp[] = {NULL};
        say(out, "execve", execve("/bin/true", argv, envp));
    }
    say(out, "kill_parent", kill(getppid(), 0));
    say(out, "kill_self", kill(getpid(), 0));
    say(out, "ptrace", (int)ptrace(PTRACE_ATTACH, getppid(), NULL, NULL));
    say(out, "open_devnull", open("/dev/null", O_RDWR));
    m = memfd_create("probe", MFD_CLOEXEC);
    say(out, "memfd", m >= 0 ? ftruncate(m, 1 << 20) : -1);
    {
        pthread_t t2;
        say(out, "pthread", pthread_create(&t2, NULL, blocked_thread, fds) == 0 ? 0 : -1);
    }
}

TEST(sandbox_seccomp_denies_and_allows)
{
    int status;
    char *text = in_child(seccomp_child, &status);

    CHECK_MSG(status == 0, "child exit status 0x%x: %s", status, text ? text : "");
    CHECK_CONTAINS(text, "thread_socket_inet=Operation not permitted");
    CHECK_CONTAINS(text, "socket_inet=Operation not permitted");
    CHECK_CONTAINS(text, "socket_unix=ok");
    CHECK_CONTAINS(text, "fork=Operation not permitted");
    CHECK_CONTAINS(text, "execve=Operation not permitted");
    CHECK_CONTAINS(text, "kill_parent=Operation not permitted");
    CHECK_CONTAINS(text, "kill_self=ok");
    CHECK_CONTAINS(text, "ptrace=Operation not permitted");
    CHECK_CONTAINS(text, "open_devnull=ok");
    CHECK_CONTAINS(text, "memfd=ok");
    CHECK_CONTAINS(text, "pthread=ok");
    free(text);
}

static char probe_path[PATH_MAX];

static void namespace_child(int out)
{
    char *cause = NULL;

    if (runner_sandbox_namespaces(&cause)) {
        dprintf(out, "setup=%s\n", cause ? cause : "failed");
        _exit(1);
    }
    say(out, "write_existing", open(probe_path, O_WRONLY));
    say(out, "create", open("/tmp/bw-namespace-probe", O_WRONLY | O_CREAT, 0600));
    say(out, "devnull", open("/dev/null", O_WRONLY));
    say(out, "read_existing", open(probe_path, O_RDONLY));
    say(out, "proc_comm", open("/proc/self/comm", O_WRONLY));
    say(out, "proc_sys", open("/proc/sys/vm/drop_caches", O_WRONLY));
    {
        int s = socket(AF_INET, SOCK_DGRAM, 0);
        struct sockaddr_in a = {.sin_family = AF_INET, .sin_port = htons(9)};
        a.sin_addr.s_addr = htonl(0x08080808);
        say(out, "connect_outside", s < 0 ? -1 : connect(s, (struct sockaddr *)&a, sizeof(a)));
    }
}

TEST(sandbox_namespaces_make_everything_read_only)
{
    char *dir = exe_dir(), *text;
    int fd, status;

    snprintf(probe_path, sizeof(probe_path), "%s/sandbox-probe", dir ? dir : ".");
    free(dir);
    fd = open(probe_path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
    CHECK(fd >= 0);
    if (fd >= 0)
        close(fd);
    text = in_child(namespace_child, &status);
    if (text && strstr(text, "setup=unshare")) {
        printf("  skip reason: %s\n", text);
        free(text);
        SKIP("user namespaces are not available here");
    }
    CHECK_MSG(status == 0, "child exit status 0x%x: %s", status, text ? text : "");
    CHECK_CONTAINS(text, "write_existing=Read-only file system");
    CHECK_CONTAINS(text, "create=Read-only file system");
    CHECK_CONTAINS(text, "devnull=ok");
    CHECK_CONTAINS(text, "read_existing=ok");
    CHECK_CONTAINS(text, "proc_comm=ok"); /* the driver names its threads there */
    CHECK_MSG(text && !strstr(text, "proc_sys=ok"), "/proc/sys is writable: %s", text ? text : "");
    CHECK_CONTAINS(text, "connect_outside=Network is unreachable");
    free(text);
    unlink(probe_path);
}
