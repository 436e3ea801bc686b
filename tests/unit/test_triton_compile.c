/*
 * Tests of judge/triton_compile: the request and result records (pure), and
 * the whole path through the sandboxed blockwise-triton-compile with a FAKE
 * triton package (tests/fake/triton/, no GPU, no real Triton): discovery and
 * triton_probe, a Python without triton, cubin + metadata + kept parameters
 * round trips, Triton's specialisation (divisibility, integers equal to 1,
 * annotations, do_not_specialize), binding errors at the @launch line,
 * Triton's errors at the learner's lines, the start / ready / compile split,
 * "sandbox unavailable", and the hostile programs of tests/hostile/triton/
 * with the expectations written in their first lines:
 *
 *   # expect: ok | compile-error | failure   the outcome of the compile
 *   # failure: TEXT          result.failure contains TEXT
 *   # log-has: TEXT          the log contains TEXT (repeatable)
 *   # log-lacks: TEXT        the log, diags and failure lack TEXT (repeatable)
 *   # log-max: N             the kept log is at most N bytes
 *   # diag: LINE:COL TEXT    a diagnostic at LINE:COL (COL * for any) contains TEXT
 *   # control-log-has: TEXT  compiled again with --no-sandbox, the log has TEXT
 *                            (proof that the attack is real without the sandbox)
 *   # limits: wall_ms=N cpu_s=N mem_mb=N
 *   # max-ms: N              the whole compile ends within N ms
 *   # real: skip             not with the real Triton (a fake-only behaviour)
 *   # needs: non-root        skipped when the test runs as root (RLIMIT_NPROC does not
 *                            bind uid 0, so a fork bomb is bounded only by time there)
 *   # no-survivor: MARKER    after the compile no process's command line holds MARKER
 *                            (what it forked died with its pid namespace)
 *
 * Each hostile file is compiled as kernel `k` with the arguments (*fp32, i32)
 * and BLOCK=128. Every hostile compile is also checked for the canary (a
 * host file and an environment variable of this process) and for
 * /etc/passwd's first line.
 *
 * With BW_TRITON_REAL=1 (tests/gpu/triton.sh on the GPU machine) the same
 * tests run against the real Triton of $BLOCKWISE_PYTHON (else python3 on
 * PATH) instead of the fake, skipping the fake-only ones, and the real_*
 * tests compile real kernels; without it those skip.
 */
#include "tests/test.h"

#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <seccomp.h>
#include <signal.h>
#include <stdlib.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "built_tool.h"
#include "hostile_header.h"
#include "common/buf.h"
#include "common/error.h"
#include "common/limits.h"
#include "common/util.h"
#include "judge/worker/compile.h"
#include "judge/worker/python.h"
#include "judge/worker/triton_compile.h"
#include "judge/worker/triton_pool.h"
#include "common/banned.h"

#define HOSTILE_DIR "tests/hostile/triton"
#define FAKE_TRITON "tests/fake/triton"
#define STR_(x)     #x
#define STR(x)      STR_(x)
#define CANARY      "bw-triton-canary-7c2e91"
#define CANARY_FILE "/tmp/bw-triton-secret-canary.txt"

/* ---- helpers ------------------------------------------------------------------ */

static bool real(void)
{
    const char *v = getenv("BW_TRITON_REAL");
    return v && strcmp(v, "1") == 0;
}

/* blockwise-triton-compile: $BLOCKWISE_TRITON_COMPILE, beside this binary's build, or build/bin. */
static const char *compiler(void)
{
    static char path[PATH_MAX];
    static bool looked;

    if (!looked) {
        looked = true;
        built_tool(BW_TRITON_COMPILE_ENV, "blockwise-triton-compile", path, sizeof(path));
    }
    return path[0] ? path : NULL;
}

/* The plain interpreter the fake venv is made of: $BW_TEST_PYTHON or /usr/bin/python3. */
static const char *base_python(void)
{
    static char path[PATH_MAX];
    static bool looked;
    const char *name = getenv("BW_TEST_PYTHON");

    if (!looked) {
        looked = true;
        if (!realpath(name ? name : "/usr/bin/python3", path) || access(path, X_OK) != 0)
            path[0] = '\0';
    }
    return path[0] ? path : NULL;
}

/* Writes a symbolic link, replacing what is there. */
static bool relink(const char *target, const char *link)
{
    unlink(link);
    return symlink(target, link) == 0;
}

/*
 * A venv of base_python() whose site-packages holds the fake triton (a
 * symbolic link to tests/fake/triton, as an editable install would have),
 * beside this test binary; or, with BW_TRITON_REAL, the real Python.
 */
static const char *python(void)
{
    static char exe[PATH_MAX + 64];
    static bool made;
    char root[PATH_MAX], dir[PATH_MAX + 64], cfg[PATH_MAX + 512], fake[PATH_MAX], *bin;
    const char *base = base_python(), *slash, *version;

    if (real())
        return getenv(BW_PYTHON_ENV) ? getenv(BW_PYTHON_ENV) : "python3";
    if (made)
        return exe[0] ? exe : NULL;
    made = true;
    bin = exe_dir();
    if (!base || !bin || !realpath(FAKE_TRITON, fake)) {
        free(bin);
        return NULL;
    }
    slash = strrchr(base, '/');
    version = strstr(slash, "python3.") ? strstr(slash, "python") + 6 : NULL;
    snprintf(root, sizeof(root), "%s/fake-triton-venv", bin);
    free(bin);
    if (!version)
        return NULL;
    snprintf(dir, sizeof(dir), "%s/lib/python%s/site-packages", root, version);
    if (mkdirs(dir, NULL) != BW_OK)
        return NULL;
    snprintf(cfg, sizeof(cfg), "%s/triton", dir);
    if (!relink(fake, cfg))
        return NULL;
    snprintf(dir, sizeof(dir), "%s/bin", root);
    if (mkdirs(dir, NULL) != BW_OK)
        return NULL;
    snprintf(exe, sizeof(exe), "%s/bin/python3", root);
    if (!relink(base, exe)) {
        exe[0] = '\0';
        return NULL;
    }
    snprintf(dir, sizeof(dir), "%s/pyvenv.cfg", root);
    snprintf(cfg, sizeof(cfg), "home = %.*s\ninclude-system-site-packages = false\n",
             (int)(slash - base), base);
    if (write_file_atomic(dir, cfg, strlen(cfg), NULL) != BW_OK)
        exe[0] = '\0';
    return exe[0] ? exe : NULL;
}

static bool sandbox_works(void);

#define NEED_TRITON()                                                                              \
    do {                                                                                           \
        if (!compiler())                                                                           \
            SKIP("blockwise-triton-compile is not built (make first)");                            \
        if (!python())                                                                             \
            SKIP("no Python for the fake triton venv (set BW_TEST_PYTHON)");                       \
        if (!sandbox_works())                                                                      \
            SKIP("the Triton compile sandbox cannot run on this host");                            \
    } while (0)

#define FAKE_ONLY()                                                                                \
    do {                                                                                           \
        if (real())                                                                                \
            SKIP("a behaviour of the fake triton");                                                \
    } while (0)

static const struct triton_arg add_args[] = {
    {"*fp32", true, false}, {"*fp32", true, false}, {"*fp32", true, false}, {"i32", true, false}};
static const struct triton_constexpr block_1024[] = {{"BLOCK", 1024}};

static struct triton_kernel_request kernel(const char *name, const struct triton_arg *args,
                                           size_t n_args, const struct triton_constexpr *cx,
                                           size_t n_cx, int line)
{
    return (struct triton_kernel_request){.kernel = name,
                                          .args = args,
                                          .n_args = n_args,
                                          .constexprs = cx,
                                          .n_constexprs = n_cx,
                                          .num_warps = 4,
                                          .num_stages = 3,
                                          .line = line};
}

/* Compiles src (sandboxed unless no_sandbox) for these kernels. */
static int compile_ks(const char *src, const struct triton_kernel_request *ks, size_t n,
                      bool no_sandbox, struct triton_result *r, char **cause)
{
    struct triton_request rq = {.source = src,
                                .len = strlen(src),
                                .kernels = ks,
                                .n_kernels = n,
                                .python = python(),
                                .compiler = compiler(),
                                .no_sandbox = no_sandbox};
    return triton_compile_run(&rq, r, cause);
}

static bool sandbox_works(void)
{
    static int state; /* 0 unknown, 1 works, -1 not */
    if (state == 0) {
        static const char src[] = "import triton\n"
                                  "import triton.language as tl\n\n\n"
                                  "@triton.jit\n"
                                  "def k(x_ptr, n, BLOCK: tl.constexpr):\n"
                                  "    pass\n";
        static const struct triton_arg args[] = {{"*fp32", true, false}, {"i32", true, false}};
        static const struct triton_constexpr cx[] = {{"BLOCK", 128}};
        struct triton_kernel_request k = kernel("k", args, 2, cx, 1, 1);
        struct triton_result r;
        char *cause = NULL;
        int rc = compile_ks(src, &k, 1, false, &r, &cause);
        if (rc == BW_ERR_SANDBOX)
            printf("  Triton compile sandbox unavailable: %s\n", cause);
        else if (rc)
            printf("  the first Triton compile failed: %s: %s\n", bw_strerror(rc), cause);
        state = rc == BW_ERR_SANDBOX ? -1 : 1;
        triton_result_release(&r);
        free(cause);
    }
    return state > 0;
}

static void dump(const struct triton_result *r)
{
    for (size_t i = 0; i < r->diags.n; i++)
        printf("    diag %d:%d %s\n", r->diags.items[i].line, r->diags.items[i].column,
               r->diags.items[i].msg);
    if (r->failure)
        printf("    failure: %s\n", r->failure);
    if (r->log && r->log[0])
        printf("    log: %.2000s\n", r->log);
}

#define CHECK_DIAG(r, line, col, text)                                                             \
    do {                                                                                           \
        if (!hostile_find_diag(&(r)->diags, (line), (col), (text))) {                              \
            test_fail(__FILE__, __LINE__, "no diag %d:%d containing \"%s\"", (line), (col),        \
                      (text));                                                                     \
            dump(r);                                                                               \
        }                                                                                          \
    } while (0)

/* The fake cubin's JSON record of what compile() was given (after its "FAKECUBIN" mark). */
static const char *fake_record(const struct triton_build *b)
{
    const char *mark = b->cubin ? memmem(b->cubin, b->cubin_len, "FAKECUBIN\n", 10) : NULL;
    const char *json =
        mark ? memmem(mark, b->cubin_len - (size_t)(mark - (const char *)b->cubin), "{", 1) : NULL;
    return json ? json : "";
}

static const char vector_add[] =
    "# @launch add_kernel grid=(cdiv(N, BLOCK)) num_warps=4 args=(A, B, C, N, BLOCK=BLOCK)\n"
    "import triton\n"
    "import triton.language as tl\n"
    "\n"
    "\n"
    "@triton.jit\n"
    "def add_kernel(a_ptr, b_ptr, c_ptr, n, BLOCK: tl.constexpr):\n"
    "    pid = tl.program_id(0)\n"
    "    offs = pid * BLOCK + tl.arange(0, BLOCK)\n"
    "    mask = offs < n\n"
    "    a = tl.load(a_ptr + offs, mask=mask)\n"
    "    b = tl.load(b_ptr + offs, mask=mask)\n"
    "    tl.store(c_ptr + offs, a + b, mask=mask)\n";

/* ---- pure parts ------------------------------------------------------------------ */

TEST(arg_types)
{
    CHECK(triton_arg_type_valid("*fp32"));
    CHECK(triton_arg_type_valid("*bf16"));
    CHECK(triton_arg_type_valid("*i32"));
    CHECK(triton_arg_type_valid("i64"));
    CHECK(triton_arg_type_valid("fp32"));
    CHECK(!triton_arg_type_valid("*float"));
    CHECK(!triton_arg_type_valid("tensordesc<fp16[64, 64]>"));
    CHECK(!triton_arg_type_valid("**fp32"));
    CHECK(!triton_arg_type_valid(""));
    CHECK(!triton_arg_type_valid(NULL));
}

TEST(request_record)
{
    static const struct triton_arg args[] = {
        {"*fp16", true, false}, {"i32", false, true}, {"i64", true, false}, {"fp32", false, false}};
    static const struct triton_constexpr cx[] = {{"BLOCK", -7}, {"N", 1LL << 40}};
    struct triton_kernel_request k = kernel("my_kernel", args, 4, cx, 2, 12);
    struct triton_request rq = {
        .source = "src\0x", .len = 5, .cc_major = 8, .cc_minor = 9, .kernels = &k, .n_kernels = 1};
    struct compile_field f;
    struct buf b;
    char *cause = NULL, *data;
    const char *want[][2] = {{"filename", "submission.py"},
                             {"source", "src"},
                             {"cc", "89"},
                             {"jobs", STR(BW_TRITON_JOBS)},
                             {"kernel", "my_kernel"},
                             {"line", "12"},
                             {"num_warps", "4"},
                             {"num_stages", "3"},
                             {"arg", "*fp16 D"},
                             {"arg", "i32 1"},
                             {"arg", "i64 D"},
                             {"arg", "fp32 -"},
                             {"constexpr", "BLOCK=-7"},
                             {"constexpr", "N=1099511627776"}};
    size_t pos = 0, i = 0, len;
    int rc;

    buf_init(&b, 1 << 20);
    CHECK_INT_EQ(triton_request_encode(&rq, &b, &cause), BW_OK);
    len = b.len;
    data = buf_detach(&b);
    while ((rc = compile_wire_next(data, len, &pos, &f, &cause)) == 1 && i < 14) {
        CHECK_STR_EQ(f.key, want[i][0]);
        CHECK_STR_EQ(f.value, want[i][1]);
        if (strcmp(f.key, "source") == 0)
            CHECK(f.len == 5 && memcmp(f.value, "src\0x", 5) == 0);
        i++;
    }
    CHECK_INT_EQ(rc, 0);
    CHECK_INT_EQ(i, 14);
    free(data);
    free(cause);
}

/* maxnreg is sent only when given, after num_stages. */
TEST(request_record_maxnreg)
{
    static const struct triton_arg args[] = {{"*fp32", true, false}};
    struct triton_kernel_request k = kernel("ws", args, 1, NULL, 0, 3);
    struct triton_request rq = {.source = "x", .len = 1, .kernels = &k, .n_kernels = 1};
    const char *want[] = {"filename", "source",    "cc",         "jobs",    "kernel",
                          "line",     "num_warps", "num_stages", "maxnreg", "arg"};
    struct compile_field f;
    struct buf b;
    char *cause = NULL, *data;
    size_t pos = 0, i = 0, len;
    int rc;

    k.maxnreg = 168;
    buf_init(&b, 1 << 20);
    CHECK_INT_EQ(triton_request_encode(&rq, &b, &cause), BW_OK);
    len = b.len;
    data = buf_detach(&b);
    while ((rc = compile_wire_next(data, len, &pos, &f, &cause)) == 1 && i < 10) {
        CHECK_STR_EQ(f.key, want[i]);
        if (strcmp(f.key, "maxnreg") == 0)
            CHECK_STR_EQ(f.value, "168");
        i++;
    }
    CHECK_INT_EQ(rc, 0);
    CHECK_INT_EQ(i, 10);
    free(data);
    free(cause);
}

TEST(request_refused)
{
    static const struct triton_arg tensordesc[] = {{"tensordesc<fp16[64,64]>", false, false}};
    static const struct triton_arg bad_one[] = {{"*fp32", true, true}};
    static const struct triton_constexpr twice[] = {{"B", 1}, {"B", 2}};
    struct triton_kernel_request k = kernel("k", add_args, 4, block_1024, 1, 1);
    struct triton_request rq = {.source = "", .kernels = &k, .n_kernels = 1};
    struct buf b;
    char *cause = NULL;

    buf_init(&b, 1 << 20);
    k.num_warps = 3;
    CHECK_INT_EQ(triton_request_encode(&rq, &b, &cause), BW_ERR_INVALID);
    CHECK_CONTAINS(cause, "num_warps=3");
    k = kernel("k", add_args, 4, block_1024, 1, 1);
    k.num_warps = 12; /* a build may have 12 warps (warp specialisation); a request may not */
    CHECK_INT_EQ(triton_request_encode(&rq, &b, &cause), BW_ERR_INVALID);
    CHECK_CONTAINS(cause, "num_warps=12 (expected 1, 2, 4, 8, 16 or 32)");
    k = kernel("k", add_args, 4, block_1024, 1, 1);
    k.maxnreg = BW_TRITON_MAXNREG_MIN - 1;
    CHECK_INT_EQ(triton_request_encode(&rq, &b, &cause), BW_ERR_INVALID);
    CHECK_CONTAINS(cause, "maxnreg=23 (expected 0, or 24 to 255");
    k.maxnreg = BW_TRITON_MAXNREG_MAX + 1;
    CHECK_INT_EQ(triton_request_encode(&rq, &b, &cause), BW_ERR_INVALID);
    CHECK_CONTAINS(cause, "maxnreg=256");
    k.maxnreg = -1;
    CHECK_INT_EQ(triton_request_encode(&rq, &b, &cause), BW_ERR_INVALID);
    CHECK_CONTAINS(cause, "maxnreg=-1");
    k = kernel("k", tensordesc, 1, NULL, 0, 1);
    CHECK_INT_EQ(triton_request_encode(&rq, &b, &cause), BW_ERR_INVALID);
    CHECK_CONTAINS(cause, "host-side tensor descriptors are not supported");
    k = kernel("k", bad_one, 1, NULL, 0, 1);
    CHECK_INT_EQ(triton_request_encode(&rq, &b, &cause), BW_ERR_INVALID);
    k = kernel("k", add_args, 4, twice, 2, 1);
    CHECK_INT_EQ(triton_request_encode(&rq, &b, &cause), BW_ERR_INVALID);
    CHECK_CONTAINS(cause, "given twice");
    k = kernel("not a name", add_args, 4, NULL, 0, 1);
    CHECK_INT_EQ(triton_request_encode(&rq, &b, &cause), BW_ERR_INVALID);
    k = kernel("k", add_args, 4, block_1024, 1, 1);
    rq.n_kernels = BW_TRITON_MAX_KERNELS + 1;
    CHECK_INT_EQ(triton_request_encode(&rq, &b, &cause), BW_ERR_LIMIT);
    rq.n_kernels = 1;
    rq.filename = "../x.py";
    CHECK_INT_EQ(triton_request_encode(&rq, &b, &cause), BW_ERR_INVALID);
    rq.filename = NULL;
    rq.cc_major = 3;
    CHECK_INT_EQ(triton_request_encode(&rq, &b, &cause), BW_ERR_INVALID);
    buf_release(&b);
    free(cause);
}

/* A result record from fields given as "key", "value" pairs (NULL-terminated). */
static char *record(size_t *len, ...)
{
    struct buf b;
    va_list ap;
    const char *k;

    buf_init(&b, 1 << 20);
    va_start(ap, len);
    while ((k = va_arg(ap, const char *)) != NULL) {
        const char *v = va_arg(ap, const char *);
        compile_wire_puts(&b, k, v);
    }
    va_end(ap);
    compile_wire_end(&b);
    *len = b.len;
    return buf_detach(&b);
}

static const char good_ptx[] = ".visible .entry add_kernel(\n .param .u64 p0,\n .param .u64 p1,\n"
                               " .param .u64 p2,\n .param .u32 p3,\n .param .u64 s0,\n"
                               " .param .u64 s1\n)\n{ ret; }\n";

/* Decodes a record for the vector add request; returns triton_result_decode's code. */
static int decode(char *data, size_t len, const struct triton_arg *args, struct triton_result *r,
                  bool *accepted, bool *complete, char **cause)
{
    static struct triton_kernel_request k;
    static struct triton_request rq;
    k = kernel("add_kernel", args ? args : add_args, 4, block_1024, 1, 7);
    rq = (struct triton_request){.kernels = &k, .n_kernels = 1};
    memset(r, 0, sizeof(*r));
    return triton_result_decode(data, len, &rq, r, accepted, complete, cause);
}

TEST(result_record_good_build)
{
    size_t len;
    char *data = record(&len, "ready", "3.6.0", "accepted", "", "build", "0", "name", "add_kernel",
                        "cubin", "\177ELF add_kernel", "ptx", good_ptx, "num_warps", "8",
                        "num_ctas", "1", "shared", "2048", "global_scratch_size", "256",
                        "global_scratch_align", "128", "profile_scratch_size", "0", "params",
                        "0,1,2,3", "types", "*fp32,*fp32,*fp32,i32", "ptx_params", "6", "diag",
                        "3:5:warning: something", "diag", "0:0:plain", "driver_ms", "12.5", NULL);
    struct triton_result r;
    bool accepted, complete;
    char *cause = NULL;

    CHECK_INT_EQ(decode(data, len, NULL, &r, &accepted, &complete, &cause), BW_OK);
    CHECK(accepted && complete && !r.failure);
    CHECK(r.builds[0].ok);
    CHECK_STR_EQ(r.builds[0].name, "add_kernel");
    CHECK_INT_EQ(r.builds[0].num_warps, 8);
    CHECK_INT_EQ(r.builds[0].shared, 2048);
    CHECK_INT_EQ(r.builds[0].global_scratch_size, 256);
    CHECK_INT_EQ(r.builds[0].global_scratch_align, 128);
    CHECK_INT_EQ(r.builds[0].n_params, 4);
    CHECK_INT_EQ(r.builds[0].params[3], 3);
    CHECK_STR_EQ(r.builds[0].param_types[3], "i32");
    CHECK_STR_EQ(r.triton_version, "3.6.0");
    CHECK(r.driver_ms == 12.5);
    CHECK_INT_EQ(r.diags.n, 2);
    CHECK_DIAG(&r, 3, 5, "warning: something");
    CHECK_DIAG(&r, 0, 0, "error: plain");
    triton_result_release(&r);
    free(data);
    free(cause);
}

/* "built I" closes build I (streaming gives it out then); one naming another build is malformed. */
TEST(result_record_built_closes_its_build)
{
    size_t len;
    char *data = record(&len, "ready", "3.6.0", "accepted", "", "build", "0", "name", "add_kernel",
                        "cubin", "\177ELF add_kernel", "ptx", good_ptx, "num_warps", "4",
                        "num_ctas", "1", "params", "0,1,2,3", "types", "*fp32,*fp32,*fp32,i32",
                        "ptx_params", "6", "built", "0", "driver_ms", "1", NULL);
    struct triton_result r;
    bool accepted, complete;
    char *cause = NULL;

    CHECK_INT_EQ(decode(data, len, NULL, &r, &accepted, &complete, &cause), BW_OK);
    CHECK(accepted && complete && !r.failure && r.builds[0].ok);
    triton_result_release(&r);
    free(data);
    data = record(&len, "ready", "3.6.0", "accepted", "", "build", "0", "name", "add_kernel",
                  "cubin", "\177ELF add_kernel", "built", "1", NULL);
    CHECK_INT_EQ(decode(data, len, NULL, &r, &accepted, &complete, &cause), BW_OK);
    CHECK(!complete && !r.builds[0].ok);
    CHECK_CONTAINS(r.failure, "built field does not close");
    triton_result_release(&r);
    free(data);
    free(cause);
}

/* A warp-specialised build's num_warps is every partition's: 12 is not a power of 2. */
TEST(result_record_warp_specialised_build)
{
    size_t len;
    char *data =
        record(&len, "ready", "3.6.0", "accepted", "", "build", "0", "name", "add_kernel", "cubin",
               "\177ELF add_kernel", "ptx", good_ptx, "num_warps", "12", "num_ctas", "1", "shared",
               "0", "params", "0,1,2,3", "types", "*fp32,*fp32,*fp32,i32", "ptx_params", "6", NULL);
    struct triton_result r;
    bool accepted, complete;
    char *cause = NULL;

    CHECK_INT_EQ(decode(data, len, NULL, &r, &accepted, &complete, &cause), BW_OK);
    CHECK(accepted && complete && !r.failure);
    CHECK(r.builds[0].ok);
    CHECK_INT_EQ(r.builds[0].num_warps, 12);
    triton_result_release(&r);
    free(data);
    free(cause);
}

/* A forged or broken build: the submission's failure, never a judge error. */
static void expect_unsound(const char *what, const char *failure, ...)
{
    const char *fields[64];
    size_t n = 0, len;
    va_list ap;
    struct buf b;
    struct triton_result r;
    bool accepted, complete;
    char *cause = NULL, *data;
    static const struct triton_arg with_one[] = {{"*fp32", true, false},
                                                 {"*fp32", true, false},
                                                 {"*fp32", true, false},
                                                 {"i32", false, true}};

    va_start(ap, failure);
    while (n < 62 && (fields[n] = va_arg(ap, const char *)) != NULL)
        n++;
    va_end(ap);
    buf_init(&b, 1 << 20);
    compile_wire_puts(&b, "ready", "3.6.0");
    compile_wire_puts(&b, "accepted", "");
    for (size_t i = 0; i + 1 < n; i += 2)
        compile_wire_puts(&b, fields[i], fields[i + 1]);
    compile_wire_end(&b);
    len = b.len;
    data = buf_detach(&b);
    CHECK_MSG(decode(data, len, with_one, &r, &accepted, &complete, &cause) == BW_OK,
              "%s: a judge error: %s", what, cause);
    CHECK_MSG(accepted && !r.builds[0].ok && r.failure && strstr(r.failure, failure),
              "%s: failure \"%s\", expected \"%s\"", what, r.failure ? r.failure : "none", failure);
    triton_result_release(&r);
    free(data);
    free(cause);
}

#define BUILD_FIELDS(name, cubin, params, types, ptx_params)                                       \
    "build", "0", "name", name, "cubin", cubin, "ptx", good_ptx, "num_warps", "4", "num_ctas",     \
        "1", "params", params, "types", types, "ptx_params", ptx_params

TEST(result_record_unsound_builds)
{
    expect_unsound("not ELF", "not an ELF image",
                   BUILD_FIELDS("add_kernel", "FAKE add_kernel", "0,1,2", "*fp32,*fp32,*fp32", "5"),
                   NULL);
    expect_unsound("name not in cubin", "does not hold its entry's name",
                   BUILD_FIELDS("other", "\177ELF add_kernel", "0,1,2", "*fp32,*fp32,*fp32", "5"),
                   NULL);
    expect_unsound(
        "drops a pointer", "drops an argument",
        BUILD_FIELDS("add_kernel", "\177ELF add_kernel", "0,1,3", "*fp32,*fp32,i32", "5"), NULL);
    expect_unsound(
        "index out of range", "parameter list is malformed",
        BUILD_FIELDS("add_kernel", "\177ELF add_kernel", "0,1,2,9", "*fp32,*fp32,*fp32,i32", "6"),
        NULL);
    expect_unsound(
        "not increasing", "parameter list is malformed",
        BUILD_FIELDS("add_kernel", "\177ELF add_kernel", "1,0,2", "*fp32,*fp32,*fp32", "5"), NULL);
    expect_unsound("types mismatch", "types do not match",
                   BUILD_FIELDS("add_kernel", "\177ELF add_kernel", "0,1,2", "*fp32,*fp32", "5"),
                   NULL);
    expect_unsound(
        "unknown type", "type is not one the judge knows",
        BUILD_FIELDS("add_kernel", "\177ELF add_kernel", "0,1,2", "*fp32,*fp32,*float", "5"), NULL);
    expect_unsound(
        "ptx params", "two scratch pointers",
        BUILD_FIELDS("add_kernel", "\177ELF add_kernel", "0,1,2", "*fp32,*fp32,*fp32", "3"), NULL);
    expect_unsound("cluster", "cluster", "build", "0", "name", "add_kernel", "cubin",
                   "\177ELF add_kernel", "ptx", good_ptx, "num_warps", "4", "num_ctas", "2",
                   "params", "0,1,2", "types", "*fp32,*fp32,*fp32", "ptx_params", "5", NULL);
    expect_unsound(
        "huge scratch", "BW_TRITON_MAX_SCRATCH",
        BUILD_FIELDS("add_kernel", "\177ELF add_kernel", "0,1,2", "*fp32,*fp32,*fp32", "5"),
        "global_scratch_size", "1099511627776", NULL);
    expect_unsound("no warps", "num_warps is not 1 to 32", "build", "0", "num_warps", "0", NULL);
    expect_unsound("too many warps", "num_warps is not 1 to 32", "build", "0", "num_warps", "33",
                   NULL);
    expect_unsound(
        "repeated build", "repeated",
        BUILD_FIELDS("add_kernel", "\177ELF add_kernel", "0,1,2", "*fp32,*fp32,*fp32", "5"),
        "build", "0", NULL);
    expect_unsound("unknown field", "unknown field", "surprise", "1", NULL);
    expect_unsound("bad diag", "diagnostic is malformed", "diag", "x:1:error", NULL);
    expect_unsound("silence", "said nothing of kernel add_kernel", NULL);
}

TEST(result_record_before_accepted)
{
    size_t len;
    char *data = record(&len, "error_step", "unshare namespaces", "error_code", "-10", "error",
                        "unshare(CLONE_NEWUSER): Operation not permitted", NULL);
    struct triton_result r;
    bool accepted, complete;
    char *cause = NULL;

    CHECK_INT_EQ(decode(data, len, NULL, &r, &accepted, &complete, &cause), BW_ERR_SANDBOX);
    CHECK_CONTAINS(cause, "Triton compile sandbox unavailable: unshare namespaces: unshare");
    CHECK(!accepted);
    triton_result_release(&r);
    free(data);

    data = record(&len, "error_step", "import triton", "error_code", "-5", "error",
                  "ModuleNotFoundError: No module named 'triton'", NULL);
    CHECK_INT_EQ(decode(data, len, NULL, &r, &accepted, &complete, &cause), BW_ERR_NOTFOUND);
    CHECK_CONTAINS(cause, "import triton: ModuleNotFoundError");
    triton_result_release(&r);
    free(data);

    /* Cut short before "accepted": nothing decided here (the caller says how it ended). */
    data = record(&len, "ready", "3.6.0", NULL);
    CHECK_INT_EQ(decode(data, len - 7, NULL, &r, &accepted, &complete, &cause), BW_OK);
    CHECK(!accepted && !complete);
    CHECK_STR_EQ(r.triton_version, "3.6.0");
    triton_result_release(&r);

    /* Cut short after: not complete, and no failure yet (the child's end explains it). */
    free(data);
    data = record(&len, "ready", "3.6.0", "accepted", "", "build", "0", NULL);
    CHECK_INT_EQ(decode(data, len - 7, NULL, &r, &accepted, &complete, &cause), BW_OK);
    CHECK(accepted && !complete && !r.failure && !r.builds[0].ok);
    triton_result_release(&r);
    free(data);
    free(cause);
}

/* ---- discovery and the probe ------------------------------------------------------- */

TEST(probe_reports_the_version)
{
    char *version = NULL, *cause = NULL;

    NEED_TRITON();
    setenv(BW_TRITON_COMPILE_ENV, compiler(), 1);
    CHECK_MSG(triton_probe(python(), &version, &cause) == BW_OK, "probe: %s", cause);
    if (!real())
        CHECK_STR_EQ(version, "3.6.0+fake");
    else
        CHECK(version && version[0] == '3');
    free(version);
    version = NULL;
    /* A relative path is made absolute, not resolved (a venv's python is a link). */
    {
        char cwd[PATH_MAX];
        size_t n;
        if (!real() && getcwd(cwd, sizeof(cwd)) && (n = strlen(cwd)) &&
            strncmp(python(), cwd, n) == 0 && python()[n] == '/') {
            CHECK_MSG(triton_probe(python() + n + 1, &version, &cause) == BW_OK, "%s: %s",
                      python() + n + 1, cause);
            CHECK_STR_EQ(version, "3.6.0+fake");
            free(version);
        }
    }
    free(cause);
}

TEST(probe_without_triton)
{
    char *version = NULL, *cause = NULL;

    if (!compiler() || !base_python())
        SKIP("no blockwise-triton-compile or no Python");
    setenv(BW_TRITON_COMPILE_ENV, compiler(), 1);
    /* The plain interpreter: no triton on its path. */
    CHECK_INT_EQ(triton_probe(base_python(), &version, &cause), BW_ERR_NOTFOUND);
    CHECK_CONTAINS(cause, "Triton is not usable with");
    CHECK_CONTAINS(cause, "import triton: ModuleNotFoundError: No module named 'triton'");
    CHECK(version == NULL);
    CHECK_INT_EQ(triton_probe("/nonexistent/python3", &version, &cause), BW_ERR_NOTFOUND);
    CHECK_CONTAINS(cause, "no Python at /nonexistent/python3");
    setenv(BW_TRITON_COMPILE_ENV, "/nonexistent/blockwise-triton-compile", 1);
    CHECK_INT_EQ(triton_probe(base_python(), &version, &cause), BW_ERR_NOTFOUND);
    CHECK_CONTAINS(cause, "no blockwise-triton-compile at /nonexistent");
    setenv(BW_TRITON_COMPILE_ENV, compiler(), 1);
    free(cause);
}

TEST(compile_without_triton_is_a_clear_judge_error)
{
    struct triton_kernel_request k = kernel("add_kernel", add_args, 4, block_1024, 1, 1);
    struct triton_request rq = {.source = vector_add,
                                .len = strlen(vector_add),
                                .kernels = &k,
                                .n_kernels = 1,
                                .python = base_python(),
                                .compiler = compiler()};
    struct triton_result r;
    char *cause = NULL;

    if (!compiler() || !base_python())
        SKIP("no blockwise-triton-compile or no Python");
    CHECK_INT_EQ(triton_compile_run(&rq, &r, &cause), BW_ERR_NOTFOUND);
    CHECK_CONTAINS(cause, "No module named 'triton'");
    triton_result_release(&r);
    free(cause);
}

/* ---- builds -------------------------------------------------------------------------- */

static void check_vector_add(bool no_sandbox)
{
    struct triton_kernel_request k = kernel("add_kernel", add_args, 4, block_1024, 1, 1);
    struct triton_result r;
    char *cause = NULL;
    const struct triton_build *b;

    CHECK_MSG(compile_ks(vector_add, &k, 1, no_sandbox, &r, &cause) == BW_OK, "%s", cause);
    CHECK_MSG(r.ok, "vector add did not build");
    if (!r.ok)
        dump(&r);
    b = &r.builds[0];
    CHECK_INT_EQ(r.n_builds, 1);
    CHECK(b->ok && b->cubin && b->cubin_len > 4 && memcmp(b->cubin, "\177ELF", 4) == 0);
    CHECK_STR_EQ(b->name, "add_kernel");
    CHECK_INT_EQ(b->num_warps, 4);
    CHECK_INT_EQ(b->num_ctas, 1);
    CHECK_INT_EQ(b->n_params, 4);
    for (size_t i = 0; i < b->n_params && i < 4; i++) {
        CHECK_INT_EQ(b->params[i], (int)i);
        CHECK_STR_EQ(b->param_types[i], add_args[i].type);
    }
    CHECK(b->ptx && strstr(b->ptx, ".entry add_kernel"));
    CHECK(r.triton_version != NULL);
    CHECK(r.log != NULL);
    if (!real()) {
        const char *rec = fake_record(b);
        CHECK_CONTAINS(rec, "\"signature\": {\"BLOCK\": \"constexpr\", \"a_ptr\": \"*fp32\", "
                            "\"b_ptr\": \"*fp32\", \"c_ptr\": \"*fp32\", \"n\": \"i32\"}");
        CHECK_CONTAINS(rec, "\"constexprs\": {\"4\": 1024}");
        CHECK_CONTAINS(rec, "\"3\": [[\"tt.divisibility\", 16]]");
        CHECK_CONTAINS(rec, "\"arch\": 90");
        CHECK_CONTAINS(rec, "release 12.8"); /* it ran ptxas --version: fork + exec */
        CHECK_INT_EQ(b->shared, 0);
        CHECK_INT_EQ(b->global_scratch_size, 0);
    }
    printf("  vector add%s: %.0f ms (driver %.0f ms)\n", no_sandbox ? " unsandboxed" : "", r.ms,
           r.driver_ms);
    triton_result_release(&r);
    free(cause);
}

TEST(vector_add_builds)
{
    NEED_TRITON();
    check_vector_add(false);
}

TEST(vector_add_builds_without_the_sandbox)
{
    NEED_TRITON();
    check_vector_add(true);
}

/* The file's name is the learner's: one called triton.py must not shadow Triton itself. */
TEST(a_file_named_like_a_module)
{
    struct triton_kernel_request k = kernel("add_kernel", add_args, 4, block_1024, 1, 7);
    struct triton_request rq = {.source = vector_add,
                                .len = strlen(vector_add),
                                .filename = "triton.py",
                                .kernels = &k,
                                .n_kernels = 1,
                                .python = python(),
                                .compiler = compiler()};
    struct triton_result r;
    char *cause = NULL;

    NEED_TRITON();
    CHECK_MSG(triton_compile_run(&rq, &r, &cause) == BW_OK, "%s", cause);
    CHECK(r.ok);
    if (!r.ok)
        dump(&r);
    triton_result_release(&r);
    free(cause);
}

static const char specialise_src[] =
    "import triton\n"
    "import triton.language as tl\n"
    "\n"
    "\n"
    "@triton.jit(do_not_specialize=[\"m\"])\n"
    "def spec(x_ptr, n, m, wide: tl.int64, s, BLOCK: tl.constexpr, GROUP: tl.constexpr = 8):\n"
    "    tl.store(x_ptr + tl.arange(0, BLOCK), s)\n";

TEST(specialisation_as_the_jit)
{
    static const struct triton_arg args[] = {
        {"*fp16", true, false}, /* x_ptr: D */
        {"i32", false, true},   /* n == 1: folded */
        {"i32", false, true},   /* m == 1 but do_not_specialize: kept, no attribute */
        {"i32", true, false},   /* wide: annotated tl.int64 (type replaced, D kept) */
        {"fp32", false, false}, /* s: a float, never specialised */
    };
    static const struct triton_constexpr cx[] = {{"BLOCK", 64}};
    struct triton_kernel_request k = kernel("spec", args, 5, cx, 1, 1);
    struct triton_result r;
    char *cause = NULL;
    const struct triton_build *b;

    NEED_TRITON();
    CHECK_MSG(compile_ks(specialise_src, &k, 1, false, &r, &cause) == BW_OK, "%s", cause);
    CHECK(r.ok);
    if (!r.ok)
        dump(&r);
    b = &r.builds[0];
    CHECK_INT_EQ(b->n_params, 4);
    if (b->n_params == 4) {
        CHECK_INT_EQ(b->params[0], 0);
        CHECK_INT_EQ(b->params[1], 2);
        CHECK_INT_EQ(b->params[2], 3);
        CHECK_INT_EQ(b->params[3], 4);
        CHECK_STR_EQ(b->param_types[0], "*fp16");
        CHECK_STR_EQ(b->param_types[1], "i32");
        CHECK_STR_EQ(b->param_types[2], "i64");
        CHECK_STR_EQ(b->param_types[3], "fp32");
    }
    if (!real()) {
        const char *rec = fake_record(b);
        CHECK_CONTAINS(rec, "\"signature\": {\"BLOCK\": \"constexpr\", \"GROUP\": \"constexpr\", "
                            "\"m\": \"i32\", \"n\": \"constexpr\", \"s\": \"fp32\", \"wide\": "
                            "\"i64\", \"x_ptr\": \"*fp16\"}");
        /* n folded to 1; BLOCK given; GROUP from its default */
        CHECK_CONTAINS(rec, "\"constexprs\": {\"1\": 1, \"5\": 64, \"6\": 8}");
        CHECK_CONTAINS(rec, "\"attrs\": {\"0\": [[\"tt.divisibility\", 16]], \"3\": "
                            "[[\"tt.divisibility\", 16]]}");
    }
    triton_result_release(&r);
    free(cause);
}

TEST(variants_and_metadata)
{
    static const char src[] = "import triton\n"
                              "import triton.language as tl\n"
                              "\n"
                              "\n"
                              "@triton.jit\n"
                              "def mm(a_ptr, n, BLOCK: tl.constexpr):\n"
                              "    x = tl.load(a_ptr + tl.arange(0, BLOCK))\n"
                              "    tl.store(a_ptr, tl.dot(x, x))\n"
                              "\n"
                              "\n"
                              "@triton.jit\n"
                              "def desc(a_ptr, n, BLOCK: tl.constexpr):\n"
                              "    d = tl.make_tensor_descriptor(a_ptr, [n], [1], [BLOCK])\n";
    static const struct triton_arg args16[] = {{"*fp16", true, false}, {"i32", true, false}};
    static const struct triton_arg args17[] = {{"*fp16", true, false}, {"i32", false, false}};
    static const struct triton_constexpr b64[] = {{"BLOCK", 64}}, b128[] = {{"BLOCK", 128}};
    struct triton_kernel_request ks[4] = {
        kernel("mm", args16, 2, b64, 1, 1), kernel("mm", args17, 2, b64, 1, 1),
        kernel("mm", args16, 2, b128, 1, 1), kernel("desc", args16, 2, b64, 1, 2)};
    struct triton_result r;
    char *cause = NULL;

    NEED_TRITON();
    FAKE_ONLY();
    ks[2].num_stages = 4;
    ks[2].num_warps = 8;
    CHECK_MSG(compile_ks(src, ks, 4, false, &r, &cause) == BW_OK, "%s", cause);
    CHECK(r.ok && r.n_builds == 4);
    if (!r.ok)
        dump(&r);
    else {
        CHECK_CONTAINS(fake_record(&r.builds[0]), "\"1\": [[\"tt.divisibility\", 16]]");
        CHECK(!strstr(fake_record(&r.builds[1]), "\"1\": [[\"tt.divisibility\""));
        CHECK_INT_EQ(r.builds[0].shared, 3 * 16384);
        CHECK_INT_EQ(r.builds[2].shared, 4 * 16384);
        CHECK_INT_EQ(r.builds[2].num_warps, 8);
        CHECK_CONTAINS(fake_record(&r.builds[2]), "\"num_stages\": 4");
        CHECK_INT_EQ(r.builds[3].global_scratch_size, 128);
        CHECK_INT_EQ(r.builds[3].global_scratch_align, 128);
    }
    triton_result_release(&r);
    free(cause);
}

/* maxnreg reaches triton.compile only when given; the memo of builds tells it apart. */
TEST(maxnreg_is_a_compile_option)
{
    struct triton_kernel_request ks[3] = {kernel("add_kernel", add_args, 4, block_1024, 1, 1),
                                          kernel("add_kernel", add_args, 4, block_1024, 1, 1),
                                          kernel("add_kernel", add_args, 4, block_1024, 1, 1)};
    struct triton_result r;
    char *cause = NULL;

    NEED_TRITON();
    FAKE_ONLY();
    ks[1].maxnreg = 128;
    ks[2].maxnreg = 64;
    CHECK_MSG(compile_ks(vector_add, ks, 3, false, &r, &cause) == BW_OK, "%s", cause);
    CHECK(r.ok && r.n_builds == 3);
    if (!r.ok)
        dump(&r);
    else {
        CHECK_CONTAINS(fake_record(&r.builds[0]), "\"maxnreg\": null");
        CHECK_CONTAINS(fake_record(&r.builds[1]), "\"maxnreg\": 128");
        CHECK_CONTAINS(fake_record(&r.builds[2]), "\"maxnreg\": 64");
        CHECK_CONTAINS(fake_record(&r.builds[0]), "\"source\": \"ASTSource\"");
    }
    triton_result_release(&r);
    free(cause);
}

/* Gluon (the fake's tests/fake/triton/experimental/gluon): the kernel line numbers. */
static const char gluon_src[] =
    "import triton.language as tl\n"                                     /* 1 */
    "from triton.experimental import gluon\n"                            /* 2 */
    "from triton.experimental.gluon import language as gl\n"             /* 3 */
    "from triton.experimental.gluon.language.nvidia.hopper import tma\n" /* 4 */
    "\n"                                                                 /* 5 */
    "\n"                                                                 /* 6 */
    "@gluon.jit\n"                                                       /* 7 */
    "def _loader(x_ptr, n):\n"                                           /* 8 */
    "    gl.load(x_ptr)\n"                                               /* 9 */
    "\n"                                                                 /* 10 */
    "\n"                                                                 /* 11 */
    "@gluon.jit\n"                                                       /* 12 */
    "def _consumer(x_ptr, n):\n"                                         /* 13 */
    "    gl.store(x_ptr, gl.load(x_ptr) + 1.0)\n"                        /* 14 */
    "\n"                                                                 /* 15 */
    "\n"                                                                 /* 16 */
    "@gluon.jit\n"                                                       /* 17 */
    "def ws(x_ptr, n, BLOCK: gl.constexpr):\n"                           /* 18 */
    "    desc = tma.make_tensor_descriptor(x_ptr, [n], [1], [BLOCK])\n"  /* 19 */
    "    args = (x_ptr, n)\n"                                            /* 20 */
    "    gl.warp_specialize([(_consumer, args), (_consumer, args), (_loader, args)],"
    " [4, 1], [240, 24])\n"                                                                /* 21 */
    "\n"                                                                                   /* 22 */
    "\n"                                                                                   /* 23 */
    "@gluon.jit\n"                                                                         /* 24 */
    "def _bad_helper(x):\n"                                                                /* 25 */
    "    return x + undefined_in_gluon\n"                                                  /* 26 */
    "\n"                                                                                   /* 27 */
    "\n"                                                                                   /* 28 */
    "@gluon.jit\n"                                                                         /* 29 */
    "def k_bad(x_ptr, n, BLOCK: gl.constexpr):\n"                                          /* 30 */
    "    gl.store(x_ptr, _bad_helper(n))\n"                                                /* 31 */
    "\n"                                                                                   /* 32 */
    "\n"                                                                                   /* 33 */
    "@gluon.jit\n"                                                                         /* 34 */
    "def k_ptxas(x_ptr, n, BLOCK: gl.constexpr):\n"                                        /* 35 */
    "    tl.fake_ptxas_error()\n"                                                          /* 36 */
    "\n"                                                                                   /* 37 */
    "\n"                                                                                   /* 38 */
    "@gluon.jit\n"                                                                         /* 39 */
    "def k_bad_partition(x_ptr, n, BLOCK: gl.constexpr):\n"                                /* 40 */
    "    gl.warp_specialize([(_consumer, (x_ptr, n)), (_bad_helper, (n,))], [1], [24])\n"; /* 41 */

TEST(gluon_kernels_compile_as_gluon)
{
    static const struct triton_arg args[] = {{"*fp16", true, false}, {"i32", true, false}};
    static const struct triton_constexpr cx[] = {{"BLOCK", 64}};
    struct triton_kernel_request ks[2] = {kernel("ws", args, 2, cx, 1, 50),
                                          kernel("ws", args, 2, cx, 1, 50)};
    struct triton_result r;
    char *cause = NULL;
    const struct triton_build *b;

    NEED_TRITON();
    FAKE_ONLY();
    ks[0].maxnreg = 168;
    CHECK_MSG(compile_ks(gluon_src, ks, 2, false, &r, &cause) == BW_OK, "%s", cause);
    CHECK(r.ok && r.n_builds == 2);
    if (!r.ok) {
        dump(&r);
    } else {
        b = &r.builds[0];
        CHECK_INT_EQ(b->num_warps, 12);            /* 4 + 4 + 1 warps, in whole warp groups */
        CHECK_INT_EQ(b->global_scratch_size, 128); /* tma.make_tensor_descriptor */
        CHECK_CONTAINS(fake_record(b), "\"source\": \"GluonASTSource\"");
        CHECK_CONTAINS(fake_record(b), "\"maxnreg\": 168");
        CHECK_CONTAINS(fake_record(b), "\"num_warps\": 4"); /* what was asked */
        CHECK_CONTAINS(fake_record(b), "\"constexprs\": {\"2\": 64}");
        CHECK_CONTAINS(fake_record(&r.builds[1]), "\"maxnreg\": null");
    }
    triton_result_release(&r);
    free(cause);
}

TEST(gluon_errors_at_the_learners_lines)
{
    static const struct triton_arg args[] = {{"*fp32", true, false}, {"i32", true, false}};
    static const struct triton_constexpr cx[] = {{"BLOCK", 4}};
    struct triton_kernel_request ks[3] = {kernel("k_bad", args, 2, cx, 1, 1),
                                          kernel("k_ptxas", args, 2, cx, 1, 1),
                                          kernel("k_bad_partition", args, 2, cx, 1, 1)};
    struct triton_result r;
    char *cause = NULL;

    NEED_TRITON();
    FAKE_ONLY();
    ks[1].maxnreg = 168;
    CHECK_MSG(compile_ks(gluon_src, ks, 3, false, &r, &cause) == BW_OK, "%s", cause);
    CHECK(!r.ok && !r.failure);
    CHECK_DIAG(&r, 26, 16, "error: NameError(\"'undefined_in_gluon' is not defined\")");
    CHECK_DIAG(&r, 31, 21, "remark: the error above happens in this call");
    CHECK_DIAG(&r, 35, 0,
               "error: Triton could not compile `k_ptxas` (num_warps=4, num_stages=3, "
               "maxnreg=168): PTXASError: `ptxas` failed with error code 255");
    CHECK_DIAG(&r, 41, 50, "remark: the error above happens in this call"); /* the partition */
    triton_result_release(&r);
    free(cause);
}

/* A @gluon.jit kernel where Triton's Gluon compiler cannot be imported: said at the @launch. */
TEST(gluon_without_gluon_is_said_at_the_launch)
{
    static const char src[] =
        "import sys\n"
        "from triton.experimental import gluon\n"
        "from triton.experimental.gluon import language as gl\n"
        "\n"
        "\n"
        "@gluon.jit\n"
        "def k(x_ptr, n, BLOCK: gl.constexpr):\n"
        "    pass\n"
        "\n"
        "\n"
        "sys.modules[\"triton.experimental.gluon._runtime\"] = None  # as if it were absent\n";
    static const struct triton_arg args[] = {{"*fp32", true, false}, {"i32", true, false}};
    static const struct triton_constexpr cx[] = {{"BLOCK", 4}};
    struct triton_kernel_request k = kernel("k", args, 2, cx, 1, 14);
    struct triton_result r;
    char *cause = NULL;

    NEED_TRITON();
    FAKE_ONLY();
    CHECK_MSG(compile_ks(src, &k, 1, false, &r, &cause) == BW_OK, "%s", cause);
    CHECK(!r.ok && !r.failure && !r.builds[0].ok);
    CHECK_DIAG(&r, 14, 0,
               "error: `k` is a @gluon.jit kernel, and Triton 3.6.0+fake here has no "
               "Gluon compiler (triton.experimental.gluon._runtime.GluonASTSource: ");
    triton_result_release(&r);
    free(cause);
}

/* ---- errors -------------------------------------------------------------------------- */

static const char binding_src[] =
    "import triton\n"                                              /* 1 */
    "import triton.language as tl\n"                               /* 2 */
    "\n"                                                           /* 3 */
    "\n"                                                           /* 4 */
    "@triton.jit\n"                                                /* 5 */
    "def k(x_ptr, n, BLOCK: tl.constexpr, D: tl.constexpr = 2):\n" /* 6 */
    "    pass\n"                                                   /* 7 */
    "\n"                                                           /* 8 */
    "\n"                                                           /* 9 */
    "def plain(x):\n"                                              /* 10 */
    "    return x\n"                                               /* 11 */
    "\n"                                                           /* 12 */
    "\n"                                                           /* 13 */
    "@triton.autotune(configs=[], key=[\"n\"])\n"                  /* 14 */
    "@triton.jit\n"                                                /* 15 */
    "def tuned(x_ptr, n, BLOCK: tl.constexpr):\n"                  /* 16 */
    "    pass\n"                                                   /* 17 */
    "\n"                                                           /* 18 */
    "\n"                                                           /* 19 */
    "from triton.language import sum as lib_kernel\n";             /* 20 */

TEST(binding_errors_at_the_launch_line)
{
    static const struct triton_arg two[] = {{"*fp32", true, false}, {"i32", true, false}};
    static const struct triton_arg three[] = {
        {"*fp32", true, false}, {"i32", true, false}, {"i32", true, false}};
    static const struct triton_constexpr unknown[] = {{"BLOCK", 4}, {"WHAT", 1}};
    static const struct triton_constexpr positional[] = {{"BLOCK", 4}, {"n", 1}};
    static const struct triton_constexpr good[] = {{"BLOCK", 4}};
    struct triton_kernel_request ks[] = {
        kernel("k", three, 3, good, 1, 21),     kernel("k", two, 2, unknown, 2, 22),
        kernel("k", two, 2, positional, 2, 23), kernel("k", two, 2, NULL, 0, 24),
        kernel("missing", two, 2, good, 1, 25), kernel("plain", two, 2, good, 1, 26),
        kernel("tuned", two, 2, good, 1, 27),   kernel("lib_kernel", two, 2, good, 1, 28),
    };
    struct triton_result r;
    char *cause = NULL;
    size_t n = sizeof(ks) / sizeof(ks[0]);

    NEED_TRITON();
    /* One at a time: a kernel refused once is not asked again in the same request. */
    for (size_t i = 0; i < n; i++) {
        CHECK_MSG(compile_ks(binding_src, &ks[i], 1, false, &r, &cause) == BW_OK, "%s", cause);
        CHECK(!r.ok && !r.failure);
        switch (i) {
        case 0:
            CHECK_DIAG(&r, 21, 0,
                       "`k` takes 2 positional arguments (x_ptr, n) before its "
                       "tl.constexpr ones (BLOCK, D); the @launch gives 3");
            break;
        case 1:
            CHECK_DIAG(&r, 22, 0,
                       "`k` has no parameter `WHAT` (its tl.constexpr parameters: "
                       "BLOCK, D)");
            break;
        case 2:
            CHECK_DIAG(&r, 23, 0,
                       "`n` of `k` is not a tl.constexpr parameter: give it "
                       "positionally");
            break;
        case 3:
            CHECK_DIAG(&r, 24, 0,
                       "the tl.constexpr parameter `BLOCK` of `k` has no default: "
                       "give it in args as BLOCK=...");
            CHECK(!hostile_find_diag(&r.diags, 24, 0, "`D`"));
            break;
        case 4:
            CHECK_DIAG(&r, 25, 0, "`missing` is not defined at the top level of submission.py");
            break;
        case 5:
            CHECK_DIAG(&r, 26, 0,
                       "`plain` is not a @triton.jit (or @gluon.jit) function (it is a function)");
            break;
        case 6:
            CHECK_DIAG(&r, 27, 0,
                       "`tuned` is wrapped by Autotuner: the judge compiles the "
                       "@triton.jit function itself");
            break;
        case 7: /* the real triton's library kernels are @triton.jit functions of their module */
            if (real())
                CHECK_DIAG(&r, 28, 0,
                           "`lib_kernel` is a @triton.jit (or @gluon.jit) function of another "
                           "module (triton.language.standard): @launch runs kernels defined in "
                           "submission.py");
            else
                CHECK_DIAG(&r, 28, 0, "`lib_kernel` is not a @triton.jit (or @gluon.jit) function");
            break;
        }
        triton_result_release(&r);
    }
    /* All at once: every one reported, none built, the good one built. */
    ks[3] = kernel("k", two, 2, good, 1, 24);
    CHECK_MSG(compile_ks(binding_src, ks, 4, false, &r, &cause) == BW_OK, "%s", cause);
    CHECK(!r.ok && r.builds[0].ok == false);
    CHECK_DIAG(&r, 21, 0, "takes 2 positional arguments");
    triton_result_release(&r);
    free(cause);
}

static const char errors_src[] = "import triton\n"                                    /* 1 */
                                 "import triton.language as tl\n"                     /* 2 */
                                 "\n"                                                 /* 3 */
                                 "\n"                                                 /* 4 */
                                 "@triton.constexpr_function\n"                       /* 5 */
                                 "def pick(x):\n"                                     /* 6 */
                                 "    return {1: 2}[x]\n"                             /* 7 */
                                 "\n"                                                 /* 8 */
                                 "\n"                                                 /* 9 */
                                 "@triton.jit\n"                                      /* 10 */
                                 "def helper(x):\n"                                   /* 11 */
                                 "    return x + undefined_in_helper\n"               /* 12 */
                                 "\n"                                                 /* 13 */
                                 "\n"                                                 /* 14 */
                                 "@triton.jit\n"                                      /* 15 */
                                 "def k_name(x_ptr, n, BLOCK: tl.constexpr):\n"       /* 16 */
                                 "    y = tl.load(x_ptr)\n"                           /* 17 */
                                 "    tl.store(x_ptr, y + nope)\n"                    /* 18 */
                                 "\n"                                                 /* 19 */
                                 "\n"                                                 /* 20 */
                                 "@triton.jit\n"                                      /* 21 */
                                 "def k_call(x_ptr, n, BLOCK: tl.constexpr):\n"       /* 22 */
                                 "    tl.store(x_ptr, helper(n))\n"                   /* 23 */
                                 "\n"                                                 /* 24 */
                                 "\n"                                                 /* 25 */
                                 "@triton.jit\n"                                      /* 26 */
                                 "def k_assert(x_ptr, n, BLOCK: tl.constexpr):\n"     /* 27 */
                                 "    tl.static_assert(False, \"BLOCK too small\")\n" /* 28 */
                                 "\n"                                                 /* 29 */
                                 "\n"                                                 /* 30 */
                                 "@triton.jit\n"                                      /* 31 */
                                 "def k_mlir(x_ptr, n, BLOCK: tl.constexpr):\n"       /* 32 */
                                 "    tl.fake_mlir_error()\n"                         /* 33 */
                                 "\n"                                                 /* 34 */
                                 "\n"                                                 /* 35 */
                                 "@triton.jit\n"                                      /* 36 */
                                 "def k_ptxas(x_ptr, n, BLOCK: tl.constexpr):\n"      /* 37 */
                                 "    tl.fake_ptxas_error()\n"                        /* 38 */
                                 "\n"                                                 /* 39 */
                                 "\n"                                                 /* 40 */
                                 "@triton.jit\n"                                      /* 41 */
                                 "def k_constfn(x_ptr, n, BLOCK: tl.constexpr):\n"    /* 42 */
                                 "    tl.store(x_ptr, pick(BLOCK))\n";                /* 43 */

TEST(triton_errors_at_the_learners_lines)
{
    static const struct triton_arg args[] = {{"*fp32", true, false}, {"i32", true, false}};
    static const struct triton_constexpr cx[] = {{"BLOCK", 4}};
    struct triton_kernel_request ks[] = {
        kernel("k_name", args, 2, cx, 1, 1),   kernel("k_call", args, 2, cx, 1, 1),
        kernel("k_assert", args, 2, cx, 1, 1), kernel("k_mlir", args, 2, cx, 1, 1),
        kernel("k_ptxas", args, 2, cx, 1, 1),  kernel("k_constfn", args, 2, cx, 1, 1),
        kernel("k_name", args, 2, cx, 1, 1),
    };
    struct triton_result r;
    char *cause = NULL;

    NEED_TRITON();
    FAKE_ONLY();
    CHECK_MSG(compile_ks(errors_src, ks, sizeof(ks) / sizeof(ks[0]), false, &r, &cause) == BW_OK,
              "%s", cause);
    CHECK(!r.ok && !r.failure);
    for (size_t i = 0; i < r.n_builds; i++)
        CHECK(!r.builds[i].ok);
    CHECK_DIAG(&r, 18, 25, "error: NameError(\"'nope' is not defined\")");
    CHECK_DIAG(&r, 12, 16, "error: NameError(\"'undefined_in_helper' is not defined\")");
    CHECK_DIAG(&r, 23, 21, "remark: the error above happens in this call");
    CHECK_DIAG(&r, 28, 5, "error: Static assertion failed: BLOCK too small");
    CHECK_DIAG(&r, 33, 5, "error: 'tt.fake' op fake MLIR failure");
    CHECK_DIAG(&r, 37, 0,
               "error: Triton could not compile `k_ptxas` (num_warps=4, "
               "num_stages=3): PTXASError: `ptxas` failed with error code 255");
    CHECK_DIAG(&r, 43, 21, "error: KeyError(4)");
    /* The second k_name variant repeats nothing: one diag at line 18. */
    size_t at18 = 0;
    for (size_t i = 0; i < r.diags.n; i++)
        at18 += r.diags.items[i].line == 18;
    CHECK_INT_EQ(at18, 1);
    CHECK_CONTAINS(r.log, "'tt.fake' op fake MLIR failure");
    triton_result_release(&r);
    free(cause);
}

TEST(import_errors_at_the_learners_lines)
{
    struct triton_kernel_request k = kernel("add_kernel", add_args, 4, block_1024, 1, 1);
    struct triton_result r;
    char *cause = NULL;

    NEED_TRITON();
    CHECK(compile_ks("import triton\n\ndef f(:\n    pass\n", &k, 1, false, &r, &cause) == BW_OK);
    CHECK(!r.ok && !r.failure && !r.builds[0].ok);
    CHECK_DIAG(&r, 3, 7, "error: SyntaxError: invalid syntax");
    triton_result_release(&r);

    CHECK(compile_ks("import triton\nx = 1\nraise ValueError('no ' + 'luck')\n", &k, 1, false, &r,
                     &cause) == BW_OK);
    CHECK(!r.ok && !r.failure);
    CHECK_DIAG(&r, 3, 0, "error: ValueError: no luck");
    triton_result_release(&r);

    CHECK(compile_ks("import sys\n\n\nsys.exit(4)\n", &k, 1, false, &r, &cause) == BW_OK);
    CHECK(!r.ok && !r.failure);
    CHECK_DIAG(&r, 4, 0, "error: the module exited (SystemExit 4) while it was imported");
    triton_result_release(&r);

    CHECK(compile_ks("import no_such_module_anywhere\n", &k, 1, false, &r, &cause) == BW_OK);
    CHECK_DIAG(&r, 1, 0, "ModuleNotFoundError: No module named 'no_such_module_anywhere'");
    triton_result_release(&r);

    /* A NUL byte: refused before any child starts. */
    struct triton_request rq = {.source = "import triton\n\0x",
                                .len = 16,
                                .kernels = &k,
                                .n_kernels = 1,
                                .python = "/nonexistent",
                                .compiler = "/nonexistent"};
    CHECK_INT_EQ(triton_compile_run(&rq, &r, &cause), BW_OK);
    CHECK(!r.ok && r.n_builds == 1 && r.log && r.log[0] == '\0');
    CHECK_DIAG(&r, 2, 1, "error: the source contains a NUL byte");
    triton_result_release(&r);
    free(cause);
}

/* ---- the start / compile split --------------------------------------------------------- */

TEST(pre_started_compiler)
{
    struct triton_options o = {.python = python(), .compiler = compiler()};
    struct triton_kernel_request k = kernel("add_kernel", add_args, 4, block_1024, 1, 1);
    struct triton_request rq = {
        .source = vector_add, .len = strlen(vector_add), .kernels = &k, .n_kernels = 1};
    struct triton_compiler *c = NULL, *idle = NULL;
    struct triton_result r;
    char *cause = NULL;
    double t0, ready_ms;

    NEED_TRITON();
    t0 = now_ms();
    CHECK_MSG(triton_compiler_start(&o, &c, &cause) == BW_OK, "%s", cause);
    if (!c)
        return;
    CHECK_MSG(triton_compiler_wait_ready(c, 20000, &cause) == BW_OK, "%s", cause);
    ready_ms = now_ms() - t0;
    CHECK_MSG(triton_compiler_compile(c, &rq, &r, &cause) == BW_OK, "%s", cause);
    CHECK(r.ok && r.builds[0].ok);
    printf("  ready after %.0f ms; the compile then took %.0f ms\n", ready_ms, r.ms);
    triton_result_release(&r);
    /* Spent: a second compile is refused, without a child. */
    CHECK_INT_EQ(triton_compiler_compile(c, &rq, &r, &cause), BW_ERR_INVALID);
    CHECK_CONTAINS(cause, "used already");
    triton_result_release(&r);
    CHECK_INT_EQ(triton_compiler_wait_ready(c, 10, &cause), BW_ERR_INVALID);
    triton_compiler_free(c);

    /* A started compiler freed unused is killed and reaped (no zombie, no hang). */
    CHECK_MSG(triton_compiler_start(&o, &idle, &cause) == BW_OK, "%s", cause);
    triton_compiler_free(idle);
    triton_compiler_free(NULL);

    /* An invalid request leaves the compiler unused. */
    CHECK(triton_compiler_start(&o, &c, &cause) == BW_OK);
    k.num_warps = 5;
    CHECK_INT_EQ(triton_compiler_compile(c, &rq, &r, &cause), BW_ERR_INVALID);
    triton_result_release(&r);
    k.num_warps = 4;
    CHECK_INT_EQ(triton_compiler_compile(c, &rq, &r, &cause), BW_OK);
    CHECK(r.ok);
    triton_result_release(&r);
    triton_compiler_free(c);
    free(cause);
}

/* ---- builds as they come, and warm compilers ------------------------------------- */

static const char slow_src[] =
    "import triton\n"
    "import triton.language as tl\n"
    "\n"
    "\n"
    "@triton.jit\n"
    "def slow_k(x_ptr, n, BLOCK: tl.constexpr, FAKE_COMPILE_MS: tl.constexpr):\n"
    "    pass\n";

static const struct triton_arg slow_args[] = {{"*fp32", true, false}, {"i32", true, false}};
static const struct triton_constexpr slow_fast[] = {{"BLOCK", 128}, {"FAKE_COMPILE_MS", 0}};
static const struct triton_constexpr slow_1500[] = {{"BLOCK", 128}, {"FAKE_COMPILE_MS", 1500}};
static const struct triton_constexpr slow_1501[] = {{"BLOCK", 128}, {"FAKE_COMPILE_MS", 1501}};

/* What a streamed compile gave out, and when. */
struct given {
    double at[4];
    int times[4];
    bool ok[4];
    int order[4], n;
    struct triton_result *r;
    int cancel_w; /* >= 0: the first build given out stops the compile */
};

static void record_build(void *arg, size_t i)
{
    struct given *g = arg;

    g->at[i] = now_ms();
    g->times[i]++;
    g->ok[i] = g->r->builds[i].ok && g->r->builds[i].cubin;
    g->order[g->n++] = (int)i;
    if (g->cancel_w >= 0 && g->n == 1 && write(g->cancel_w, "x", 1) != 1)
        g->cancel_w = -1;
}

/* Three variants of slow_k: the first quick, two taking 1.5 s, in two processes. */
static int compile_slow(struct given *g, int cancel_r, struct triton_result *r, double *ms)
{
    struct triton_kernel_request ks[3] = {kernel("slow_k", slow_args, 2, slow_fast, 2, 1),
                                          kernel("slow_k", slow_args, 2, slow_1500, 2, 1),
                                          kernel("slow_k", slow_args, 2, slow_1501, 2, 1)};
    struct triton_request rq = {
        .source = slow_src, .len = strlen(slow_src), .kernels = ks, .n_kernels = 3, .jobs = 2};
    struct triton_options o = {.python = python(), .compiler = compiler()};
    struct triton_stream st = {.on_build = record_build, .arg = g, .cancel_fd = cancel_r};
    struct triton_compiler *c = NULL;
    char *cause = NULL;
    double t0;
    int rc;

    g->r = r;
    CHECK_MSG((rc = triton_compiler_start(&o, &c, &cause)) == BW_OK, "%s", cause);
    if (rc == BW_OK)
        CHECK_MSG((rc = triton_compiler_wait_ready(c, 20000, &cause)) == BW_OK, "%s", cause);
    t0 = now_ms();
    if (rc == BW_OK)
        CHECK_MSG((rc = triton_compiler_compile_stream(c, &rq, &st, r, &cause)) == BW_OK, "%s",
                  cause);
    *ms = now_ms() - t0;
    for (int i = 0; i < 3; i++)
        g->at[i] -= t0;
    triton_compiler_free(c);
    free(cause);
    return rc;
}

TEST(builds_are_given_out_as_they_exist)
{
    struct given g = {.cancel_w = -1};
    struct triton_result r = {0};
    double ms;

    NEED_TRITON();
    FAKE_ONLY();
    if (compile_slow(&g, -1, &r, &ms))
        goto out;
    CHECK(r.ok);
    for (int i = 0; i < 3; i++)
        CHECK_MSG(g.times[i] == 1 && g.ok[i], "build %d given out %d times (ok %d)", i, g.times[i],
                  g.ok[i]);
    CHECK_INT_EQ(g.order[0], 0); /* the quick one, first in the queue, first out */
    CHECK_MSG(g.at[0] < ms - 1000, "the quick build came at %.0f ms of a %.0f ms compile", g.at[0],
              ms);
    CHECK_MSG(ms >= 1500 && ms < 2900,
              "two 1.5 s builds in two processes took %.0f ms (one process: 3 s)", ms);
    printf("  quick build at %.0f ms, the 1.5 s ones at %.0f and %.0f ms; the compile %.0f ms\n",
           g.at[0], g.at[1], g.at[2], ms);
out:
    triton_result_release(&r);
}

TEST(a_stopped_compile_ends_at_once)
{
    struct given g = {0};
    struct triton_result r = {0};
    int fds[2];
    double ms;

    NEED_TRITON();
    FAKE_ONLY();
    if (pipe(fds) < 0) {
        CHECK(!"pipe");
        return;
    }
    g.cancel_w = fds[1];
    if (compile_slow(&g, fds[0], &r, &ms) == BW_OK) {
        CHECK(!r.ok);
        CHECK_CONTAINS(r.failure, "stopped");
        CHECK(g.ok[0] && !g.ok[1] && !g.ok[2]); /* the one given out stays as it was */
        CHECK(g.times[0] == 1 && g.times[1] == 1 && g.times[2] == 1);
        CHECK_MSG(ms < 1200, "stopped after its first build, the compile still took %.0f ms", ms);
        printf("  stopped at %.0f ms, the compile returned at %.0f ms\n", g.at[0], ms);
    }
    triton_result_release(&r);
    close(fds[0]);
    close(fds[1]);
}

/* Learner a's module leaves what it can: a file in the work directory, a module in
 * sys.modules, a global in builtins, an environment variable, and its kernels' artefacts
 * in Triton's cache directory. */
static const char leaving_src[] =
    "import builtins, os, sys, types\n"
    "import triton\n"
    "import triton.language as tl\n"
    "with open(os.path.join(os.getcwd(), 'left-by-a.txt'), 'w') as f:\n"
    "    f.write('learner a was here')\n"
    "sys.modules['left_by_a'] = types.ModuleType('left_by_a')\n"
    "builtins.LEFT_BY_A = 1\n"
    "os.environ['LEFT_BY_A'] = '1'\n"
    "print('a left its marks in', os.getcwd())\n"
    "\n"
    "\n"
    "@triton.jit\n"
    "def leaky_a(x_ptr, n, BLOCK: tl.constexpr):\n"
    "    pass\n";

/* Learner b's module looks for them all, and refuses to import if it finds one. */
static const char looking_src[] =
    "import builtins, os, sys\n"
    "import triton\n"
    "import triton.language as tl\n"
    "found, cache_files = [], 0\n"
    "for top in {os.environ.get('TMPDIR', '/tmp'), os.getcwd(), os.environ['TRITON_CACHE_DIR'],\n"
    "            os.path.expanduser('~')}:\n"
    "    for root, dirs, files in os.walk(top):\n"
    "        for name in dirs + files:\n"
    "            cache_files += root.startswith(os.environ['TRITON_CACHE_DIR'])\n"
    "            if 'left-by-a' in name or 'leaky_a' in name:\n"
    "                found.append(os.path.join(root, name))\n"
    "if 'left_by_a' in sys.modules:\n"
    "    found.append('sys.modules[left_by_a]')\n"
    "if hasattr(builtins, 'LEFT_BY_A'):\n"
    "    found.append('builtins.LEFT_BY_A')\n"
    "if 'LEFT_BY_A' in os.environ:\n"
    "    found.append('$LEFT_BY_A')\n"
    "if found:\n"
    "    raise RuntimeError('b sees the previous request: ' + ', '.join(found))\n"
    "print('b sees nothing of a; Triton cache entries here: %d' % cache_files)\n"
    "\n"
    "\n"
    "@triton.jit\n"
    "def clean_b(x_ptr, n, BLOCK: tl.constexpr):\n"
    "    pass\n";

TEST(a_warm_compiler_shows_nothing_of_the_previous_request)
{
    struct triton_pool_options po = {.start = {.python = python(), .compiler = compiler()},
                                     .spares = 1};
    static const struct triton_constexpr b128[] = {{"BLOCK", 128}}, b256[] = {{"BLOCK", 256}};
    struct triton_kernel_request ka[2] = {kernel("leaky_a", slow_args, 2, b128, 1, 1),
                                          kernel("leaky_a", slow_args, 2, b256, 1, 1)};
    struct triton_kernel_request kb[2] = {kernel("clean_b", slow_args, 2, b128, 1, 1),
                                          kernel("clean_b", slow_args, 2, b256, 1, 1)};
    struct triton_request a = {.source = leaving_src,
                               .len = strlen(leaving_src),
                               .kernels = ka,
                               .n_kernels = 2,
                               .jobs = 2};
    struct triton_request b = a;
    struct triton_pool *pool = NULL;
    struct triton_pool_counts n;
    struct triton_compiler *c = NULL;
    struct triton_result r = {0};
    char *cause = NULL;

    NEED_TRITON();
    b.source = looking_src;
    b.len = strlen(looking_src);
    b.kernels = kb;
    CHECK_MSG(triton_pool_new(&po, &pool, &cause) == BW_OK, "%s", cause);
    if (!pool)
        goto out;
    for (int round = 0; round < 2; round++) {
        const struct triton_request *rq = round ? &b : &a;
        CHECK_MSG(triton_pool_take(pool, &c, &cause) == BW_OK, "%s", cause);
        if (!c)
            break;
        CHECK_MSG(triton_compiler_compile(c, rq, &r, &cause) == BW_OK, "%s", cause);
        triton_compiler_free(c);
        c = NULL;
        if (!r.ok)
            dump(&r);
        CHECK_MSG(r.ok && r.builds[0].ok && r.builds[1].ok, "request %c did not build",
                  "ab"[round]);
        CHECK_CONTAINS(r.log, round ? "b sees nothing of a" : "a left its marks");
        if (round) { /* the walk did see a cache: the warm-up's probe kernel and b's own */
            const char *at = r.log ? strstr(r.log, "cache entries here: ") : NULL;
            CHECK_MSG(at && at[20] >= '1' && at[20] <= '9',
                      "b found no Triton cache to look in: %s", r.log ? r.log : "");
        }
        triton_result_release(&r);
    }
    triton_pool_counts(pool, &n);
    CHECK_INT_EQ(n.taken, 2);
    CHECK_MSG(n.started >= 2, "%lu compilers started for 2 requests", n.started);
out:
    triton_pool_free(pool);
    free(cause);
}

TEST(a_pool_keeps_compilers_warm_and_replaces_those_taken)
{
    struct triton_pool_options po = {.start = {.python = python(), .compiler = compiler()},
                                     .spares = 2};
    struct triton_kernel_request k = kernel("add_kernel", add_args, 4, block_1024, 1, 1);
    struct triton_request rq = {
        .source = vector_add, .len = strlen(vector_add), .kernels = &k, .n_kernels = 1};
    struct triton_pool *pool = NULL;
    struct triton_pool_counts n = {0};
    struct triton_compiler *c = NULL;
    struct triton_result r = {0};
    char *cause = NULL;
    double t0;

    NEED_TRITON();
    CHECK_MSG(triton_pool_new(&po, &pool, &cause) == BW_OK, "%s", cause);
    if (!pool)
        goto out;
    for (t0 = now_ms(); now_ms() - t0 < 20000 && n.ready < 2; usleep(20000))
        triton_pool_counts(pool, &n);
    CHECK_MSG(n.ready == 2, "%d of 2 compilers ready after %.0f ms", n.ready, now_ms() - t0);
    CHECK(n.ready_rss_kib > 0);
    printf("  2 warm compilers ready after %.0f ms, holding %lu MiB resident (%lu MiB each)\n",
           now_ms() - t0, n.ready_rss_kib / 1024, n.ready_rss_kib / 2048);
    t0 = now_ms();
    CHECK_MSG(triton_pool_take(pool, &c, &cause) == BW_OK, "%s", cause);
    CHECK_MSG(now_ms() - t0 < 100, "a ready compiler took %.0f ms to take", now_ms() - t0);
    if (c) {
        CHECK(triton_compiler_compile(c, &rq, &r, &cause) == BW_OK && r.ok);
        printf("  a warm compiler's compile: %.0f ms (the driver's: %.0f ms, CPU %.0f ms)\n", r.ms,
               r.driver_ms, r.cpu_ms);
        triton_result_release(&r);
        triton_compiler_free(c);
    }
    triton_pool_counts(pool, &n);
    for (t0 = now_ms(); now_ms() - t0 < 20000 && n.ready < 2; usleep(20000))
        triton_pool_counts(pool, &n);
    CHECK_MSG(n.ready == 2 && n.started == 3 && n.taken == 1 && n.waited == 0,
              "ready %d, started %lu, taken %lu, waited %lu", n.ready, n.started, n.taken,
              n.waited);
    CHECK(triton_pool_jobs(1) >= 1 && triton_pool_jobs(1) <= BW_TRITON_JOBS);
    CHECK_INT_EQ(triton_pool_jobs(1000), 1);
    /* The compiles in flight share the CPUs: the first takes them all, the second half. */
    int first = triton_pool_share(pool), second = triton_pool_share(pool);
    CHECK_INT_EQ(first, triton_pool_jobs(1));
    CHECK_INT_EQ(second, triton_pool_jobs(2));
    triton_pool_unshare(pool);
    triton_pool_unshare(pool);
    CHECK_INT_EQ(triton_pool_share(pool), triton_pool_jobs(1)); /* both given back */
    triton_pool_unshare(pool);
out:
    triton_pool_free(pool);
    free(cause);
}

/* The CPUs a compile may use: the machine's divided between the compiles in
 * flight, never under 1 nor over BW_TRITON_JOBS. */
TEST(triton_jobs_share_the_cpus)
{
    CHECK_INT_EQ(triton_jobs_for(16, 1), 16);
    CHECK_INT_EQ(triton_jobs_for(16, 2), 8);
    CHECK_INT_EQ(triton_jobs_for(16, 3), 5);
    CHECK_INT_EQ(triton_jobs_for(2, 3), 1);
    CHECK_INT_EQ(triton_jobs_for(128, 1), BW_TRITON_JOBS);
    CHECK_INT_EQ(triton_jobs_for(16, 0), 16);
    CHECK_INT_EQ(triton_jobs_for(0, 1), 1);
    CHECK_INT_EQ(triton_pool_share(NULL), triton_pool_jobs(1));
    triton_pool_unshare(NULL);
}

/* The compiler must refuse to run unsandboxed when namespaces are denied. */
TEST(sandbox_unavailable_is_reported)
{
    int fds[2];
    pid_t pid;

    NEED_TRITON();
    if (pipe(fds) < 0)
        SKIP("pipe failed");
    pid = fork();
    if (pid == 0) {
        /* In a child of the test: deny unshare(2) the way a locked-down host does. */
        struct triton_kernel_request k = kernel("add_kernel", add_args, 4, block_1024, 1, 1);
        struct triton_result r;
        char *cause = NULL;
        scmp_filter_ctx ctx = seccomp_init(SCMP_ACT_ALLOW);
        close(fds[0]);
        if (!ctx || seccomp_rule_add(ctx, SCMP_ACT_ERRNO(EPERM), SCMP_SYS(unshare), 0) < 0 ||
            prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) < 0 || seccomp_load(ctx) < 0)
            _exit(90);
        int rc = compile_ks(vector_add, &k, 1, false, &r, &cause);
        dprintf(fds[1], "%d|%d|%s", rc, r.ok, cause ? cause : "");
        _exit(0);
    }
    close(fds[1]);
    char msg[1024] = {0};
    ssize_t n = read(fds[0], msg, sizeof(msg) - 1);
    int status = 0;
    waitpid(pid, &status, 0);
    close(fds[0]);
    CHECK_MSG(n > 0, "no answer from the test child (status %d)", status);
    CHECK_CONTAINS(msg, "-10|0|Triton compile sandbox unavailable: unshare namespaces: "
                        "unshare(CLONE_NEWUSER): Operation not permitted");
}

/* ---- hostile programs -------------------------------------------------------------------- */

/* The header's keys of this corpus beyond the shared ones (hostile_header.h). */
struct hostile {
    struct hostile_header c;
    bool skip_real, non_root; /* real: skip; needs: non-root */
    char no_survivor[64];     /* no-survivor: */
};

static bool own_key(const char *line, void *ctx)
{
    struct hostile *h = ctx;
    char v[200];

    if (hostile_value(line, "no-survivor", h->no_survivor, sizeof(h->no_survivor)))
        return true;
    if (hostile_value(line, "needs", v, sizeof(v))) {
        if (strcmp(v, "non-root") != 0)
            return false;
        h->non_root = true;
    } else if (hostile_value(line, "real", v, sizeof(v))) {
        if (strcmp(v, "skip") != 0)
            return false;
        h->skip_real = true;
    }
    return true;
}

/* Reads the "# key: value" header of a hostile file. */
static bool parse_hostile(const char *src, struct hostile *h)
{
    memset(h, 0, sizeof(*h));
    return hostile_header_parse(src, "# ", &h->c, own_key, h);
}

static size_t count_errors(const struct triton_result *r)
{
    size_t n = 0;
    for (size_t i = 0; i < r->diags.n; i++)
        n += strncmp(r->diags.items[i].msg, "error: ", 7) == 0;
    return n;
}

/* r as the hostile header's checks see it. */
static struct hostile_result hostile_view(const struct triton_result *r)
{
    return (struct hostile_result){.ok = r->ok,
                                   .failure = r->failure,
                                   .log = r->log,
                                   .diags = &r->diags,
                                   .errors = count_errors(r),
                                   .ms = r->ms};
}

/* Live processes whose command line holds `marker` (a zombie's is empty). */
static int count_marked(const char *marker)
{
    DIR *proc = opendir("/proc");
    struct dirent *e;
    int n = 0;

    if (!proc)
        return -1;
    while ((e = readdir(proc)) != NULL) {
        char path[300], *cmd = NULL;
        size_t len = 0;
        if (e->d_name[0] < '1' || e->d_name[0] > '9')
            continue;
        snprintf(path, sizeof(path), "/proc/%s/cmdline", e->d_name);
        if (read_file(path, 1 << 16, &cmd, &len, NULL) == BW_OK) {
            for (size_t i = 0; i < len; i++)
                if (cmd[i] == '\0')
                    cmd[i] = ' ';
            n += strstr(cmd, marker) != NULL;
        }
        free(cmd);
    }
    closedir(proc);
    return n;
}

static void check_hostile(const char *name, const char *src, size_t len, const struct hostile *h)
{
    static const struct triton_arg args[] = {{"*fp32", true, false}, {"i32", true, false}};
    static const struct triton_constexpr cx[] = {{"BLOCK", 128}};
    struct triton_kernel_request k = kernel("k", args, 2, cx, 1, 1);
    struct triton_request rq = {.source = src,
                                .len = len,
                                .kernels = &k,
                                .n_kernels = 1,
                                .wall_ms = h->c.wall_ms,
                                .cpu_s = h->c.cpu_s,
                                .mem_bytes = (unsigned long long)h->c.mem_mb << 20,
                                .python = python(),
                                .compiler = compiler()};
    struct triton_result r;
    char *cause = NULL;

    int rc = triton_compile_run(&rq, &r, &cause);
    CHECK_MSG(rc == BW_OK, "%s: triton_compile_run: %s (%s)", name, bw_strerror(rc), cause);
    struct hostile_result view = hostile_view(&r);
    hostile_check(&h->c, name, "a build", CANARY, &view);
    if (h->no_survivor[0]) {
        int left = count_marked(h->no_survivor);
        for (int i = 0; i < 50 && left > 0; i++) {
            usleep(20000); /* the namespace's teardown is asynchronous */
            left = count_marked(h->no_survivor);
        }
        CHECK_MSG(left == 0, "%s: %d process(es) marked %s outlived the compile", name, left,
                  h->no_survivor);
    }
    if (test_failed())
        dump(&r);
    printf("  %-24s %-14s %7.0f ms  %s\n", name,
           r.ok        ? "ok"
           : r.failure ? "failure"
                       : "error",
           r.ms, r.failure ? r.failure : "");
    triton_result_release(&r);

    if (h->c.control_has[0]) {
        rq.no_sandbox = true;
        rc = triton_compile_run(&rq, &r, &cause);
        view = hostile_view(&r);
        CHECK_MSG(rc == BW_OK && hostile_anywhere(&view, h->c.control_has),
                  "%s: without the sandbox \"%s\" does not appear: the test proves nothing", name,
                  h->c.control_has);
        triton_result_release(&r);
    }
    free(cause);
}

TEST(hostile_compiles)
{
    DIR *dir;
    struct dirent *e;
    int n = 0;

    NEED_TRITON();
    setenv("BW_TRITON_SECRET_CANARY", CANARY, 1);
    {
        const char canary[] = CANARY "\n";
        CHECK(write_file_atomic(CANARY_FILE, canary, sizeof(canary) - 1, NULL) == BW_OK);
    }
    dir = opendir(HOSTILE_DIR);
    if (!dir)
        SKIP("run from the repository root (no " HOSTILE_DIR ")");
    while ((e = readdir(dir)) != NULL) {
        size_t len = strlen(e->d_name), src_len;
        char *path, *src = NULL, *cause = NULL;
        struct hostile h;
        if (len < 4 || strcmp(e->d_name + len - 3, ".py") != 0)
            continue;
        path = path_join(HOSTILE_DIR, e->d_name);
        if (read_file(path, BW_MAX_SOURCE_BYTES, &src, &src_len, &cause) != BW_OK) {
            CHECK_MSG(false, "%s: %s", path, cause);
        } else if (!parse_hostile(src, &h)) {
            CHECK_MSG(false, "%s: bad expectation header", path);
        } else if (h.non_root && geteuid() == 0) {
            printf("  %-24s skipped: as root, RLIMIT_NPROC does not bind\n", e->d_name);
        } else if (!(h.skip_real && real())) {
            check_hostile(e->d_name, src, src_len, &h);
            n++;
        }
        free(src);
        free(cause);
        free(path);
    }
    closedir(dir);
    unlink(CANARY_FILE);
    CHECK_MSG(n >= 15, "only %d hostile programs found", n);
}

/* ---- the real Triton (BW_TRITON_REAL=1, on the GPU machine) ---------------------------------- */

static const char matmul_src[] =
    "import triton\n"
    "import triton.language as tl\n"
    "\n"
    "\n"
    "@triton.jit\n"
    "def matmul(a_ptr, b_ptr, c_ptr, M, N, K, sam, sak, sbk, sbn, scm, scn,\n"
    "           BM: tl.constexpr, BN: tl.constexpr, BK: tl.constexpr):\n"
    "    pid_m = tl.program_id(0)\n"
    "    pid_n = tl.program_id(1)\n"
    "    rm = pid_m * BM + tl.arange(0, BM)\n"
    "    rn = pid_n * BN + tl.arange(0, BN)\n"
    "    rk = tl.arange(0, BK)\n"
    "    acc = tl.zeros((BM, BN), dtype=tl.float32)\n"
    "    for k in range(0, tl.cdiv(K, BK)):\n"
    "        a = tl.load(a_ptr + rm[:, None] * sam + (k * BK + rk)[None, :] * sak,\n"
    "                    mask=(rm[:, None] < M) & ((k * BK + rk)[None, :] < K), other=0.0)\n"
    "        b = tl.load(b_ptr + (k * BK + rk)[:, None] * sbk + rn[None, :] * sbn,\n"
    "                    mask=((k * BK + rk)[:, None] < K) & (rn[None, :] < N), other=0.0)\n"
    "        acc += tl.dot(a, b)\n"
    "    tl.store(c_ptr + rm[:, None] * scm + rn[None, :] * scn, acc,\n"
    "             mask=(rm[:, None] < M) & (rn[None, :] < N))\n";

/* A real Gluon kernel, warp-specialised: a default partition of 4 warps adding
 * 1 to a block of x, and a 1-warp worker that only reads n (Gluon's
 * partitions are rounded to whole warpgroups, so the build has 8 warps). */
static const char gluon_ws_src[] =
    "from triton.experimental import gluon\n"
    "from triton.experimental.gluon import language as gl\n"
    "\n"
    "\n"
    "@gluon.jit\n"
    "def _add_one(x_ptr, n):\n"
    "    layout: gl.constexpr = gl.BlockedLayout([1], [32], [4], [0])\n"
    "    offs = gl.program_id(0) * 128 + gl.arange(0, 128, layout)\n"
    "    x = gl.load(x_ptr + offs, mask=offs < n)\n"
    "    gl.store(x_ptr + offs, x + 1.0, mask=offs < n)\n"
    "\n"
    "\n"
    "@gluon.jit\n"
    "def _reader(x_ptr, n):\n"
    "    gl.static_assert(True)\n"
    "\n"
    "\n"
    "@gluon.jit\n"
    "def add_one(x_ptr, n):\n"
    "    gl.warp_specialize([(_add_one, (x_ptr, n)), (_reader, (x_ptr, n))], [1], [24])\n";

/* Writes a build's PTX to $BW_TRITON_DUMP_DIR/NAME.ptx (tests/gpu/triton.sh compares it). */
static void dump_ptx(const char *name, const struct triton_build *b)
{
    const char *dir = getenv("BW_TRITON_DUMP_DIR");
    char path[PATH_MAX];

    if (!dir || !b->ptx)
        return;
    snprintf(path, sizeof(path), "%s/%s.ptx", dir, name);
    CHECK(write_file_atomic(path, b->ptx, strlen(b->ptx), NULL) == BW_OK);
}

TEST(real_vector_add_and_matmul)
{
    /* fp32 4096x4096 (strides: 4096 divisible by 16; 1 folded), as kernel[grid](...) gives. */
    static const struct triton_arg mm_args[] = {
        {"*fp32", true, false}, {"*fp32", true, false}, {"*fp32", true, false},
        {"i32", true, false},   {"i32", true, false},   {"i32", true, false},
        {"i32", true, false},   {"i32", false, true},   {"i32", true, false},
        {"i32", false, true},   {"i32", true, false},   {"i32", false, true}};
    static const struct triton_constexpr mm_cx[] = {{"BM", 128}, {"BN", 128}, {"BK", 32}};
    static const struct triton_arg odd[] = {{"*fp32", true, false},
                                            {"*fp32", true, false},
                                            {"*fp32", true, false},
                                            {"i32", false, false}};
    struct triton_kernel_request ks[3] = {kernel("add_kernel", add_args, 4, block_1024, 1, 1),
                                          kernel("add_kernel", odd, 4, block_1024, 1, 1),
                                          kernel("matmul", mm_args, 12, mm_cx, 3, 1)};
    struct triton_result r;
    char *cause = NULL;

    if (!real())
        SKIP("the real Triton runs on the GPU machine (tests/gpu/triton.sh, BW_TRITON_REAL=1)");
    NEED_TRITON();
    CHECK_MSG(compile_ks(vector_add, ks, 2, false, &r, &cause) == BW_OK, "%s", cause);
    CHECK(r.ok);
    if (!r.ok)
        dump(&r);
    for (size_t i = 0; r.ok && i < 2; i++) {
        const struct triton_build *b = &r.builds[i];
        CHECK_STR_EQ(b->name, "add_kernel");
        CHECK_INT_EQ(b->num_warps, 4);
        CHECK_INT_EQ(b->num_ctas, 1);
        CHECK_INT_EQ(b->n_params, 4);
        CHECK(b->cubin_len > 1000);
        CHECK_INT_EQ(b->global_scratch_size, 0);
        printf("  add_kernel[%zu]: cubin %zu bytes, shared %d, scratch %llu/%llu\n", i,
               b->cubin_len, b->shared, (unsigned long long)b->global_scratch_size,
               (unsigned long long)b->profile_scratch_size);
        dump_ptx(i == 0 ? "add_kernel_div16" : "add_kernel_odd", b);
    }
    printf("  vector add, 2 variants: %.0f ms (driver %.0f ms), Triton %s\n", r.ms, r.driver_ms,
           r.triton_version);
    triton_result_release(&r);

    CHECK_MSG(compile_ks(matmul_src, &ks[2], 1, false, &r, &cause) == BW_OK, "%s", cause);
    CHECK(r.ok);
    if (!r.ok)
        dump(&r);
    if (r.ok) {
        const struct triton_build *b = &r.builds[0];
        CHECK_INT_EQ(b->n_params, 9); /* the three unit strides folded */
        CHECK(b->shared > 0);
        CHECK(b->ptx && strstr(b->ptx, "cp.async"));
        printf("  matmul: cubin %zu bytes, shared %d, %.0f ms\n", b->cubin_len, b->shared, r.ms);
        dump_ptx("matmul", b);
    }
    triton_result_release(&r);
    free(cause);
}

TEST(real_gluon_warp_specialised)
{
    static const struct triton_arg args[] = {{"*fp32", true, false}, {"i32", false, false}};
    struct triton_kernel_request k = kernel("add_one", args, 2, NULL, 0, 1);
    struct triton_result r;
    char *cause = NULL;

    if (!real())
        SKIP("the real Triton runs on the GPU machine (tests/gpu/triton.sh, BW_TRITON_REAL=1)");
    NEED_TRITON();
    k.maxnreg = 128;
    CHECK_MSG(compile_ks(gluon_ws_src, &k, 1, false, &r, &cause) == BW_OK, "%s", cause);
    CHECK(r.ok);
    if (!r.ok)
        dump(&r);
    if (r.ok) {
        const struct triton_build *b = &r.builds[0];
        CHECK_STR_EQ(b->name, "add_one");
        CHECK_MSG(b->num_warps > 4 && b->num_warps % 4 == 0, "num_warps %d", b->num_warps);
        CHECK_INT_EQ(b->n_params, 2);
        CHECK_MSG(b->ptx && strstr(b->ptx, ".maxnreg 128"), "no .maxnreg 128 in the PTX");
        printf("  gluon add_one: %d warps, cubin %zu bytes, %.0f ms\n", b->num_warps, b->cubin_len,
               r.ms);
    }
    triton_result_release(&r);
    free(cause);
}
