/*
 * Tests of judge/compile and judge/sandbox: the wire format, the log parsers
 * on canned NVRTC logs, and real compiles through the sandboxed
 * blockwise-compile (NVRTC, no GPU): cubins, resource usage, located
 * diagnostics, headers, options, limits, and the hostile programs of
 * tests/hostile/compile/ with the expectations written in their first lines:
 *
 *   // expect: ok | compile-error | failure   the verdict of the compile
 *   // failure: TEXT          result.failure contains TEXT
 *   // log-has: TEXT          the log contains TEXT (repeatable)
 *   // log-lacks: TEXT        the log, diags and failure lack TEXT (repeatable)
 *   // log-max: N             the kept log is at most N bytes
 *   // diag: LINE:COL TEXT    a diagnostic at LINE:COL contains TEXT
 *   // control-log-has: TEXT  compiled again with --no-sandbox, the log has TEXT
 *                             (proof that the attack is real without the sandbox)
 *   // limits: wall_ms=N cpu_s=N mem_mb=N
 *   // mode: no-sandbox       compile without the sandbox (diagnosis mode)
 *   // setup: fifo PATH       a FIFO at PATH, made before the compile
 *   // max-ms: N              the whole compile ends within N ms
 *
 * Every hostile compile is also checked for the canary (a host file and an
 * environment variable of this process) and for /etc/passwd's first line.
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
#include "judge/sandbox/sandbox.h"
#include "judge/worker/compile.h"
#include "plan/directive.h"
#include "common/banned.h"

#include "tests/fuzz/fuzz_compile_log.c"

#define HOSTILE_DIR "tests/hostile/compile"
#define CANARY      "bw-canary-5b1e0d9c"
#define CANARY_FILE "/tmp/bw-secret-canary.h"

/* ---- helpers ------------------------------------------------------------------ */

/* blockwise-compile: $BLOCKWISE_COMPILE, beside this binary's build, or build/bin. */
static const char *compiler(void)
{
    static char path[PATH_MAX];
    static bool looked;

    if (!looked) {
        looked = true;
        built_tool(BW_COMPILE_ENV, "blockwise-compile", path, sizeof(path));
    }
    return path[0] ? path : NULL;
}

/* Compiles src with rq's other fields; fills *r; returns compile_run's code. */
static int compile_with(struct compile_request rq, const char *src, struct compile_result *r,
                        char **cause)
{
    rq.source = src;
    rq.len = strlen(src);
    rq.compiler = compiler();
    return compile_run(&rq, r, cause);
}

/* Skips the calling test when no compiler is built or the sandbox cannot run here. */
#define NEED_COMPILER()                                                                            \
    do {                                                                                           \
        if (!compiler())                                                                           \
            SKIP("blockwise-compile is not built (make first)");                                   \
        if (!sandbox_works())                                                                      \
            SKIP("the compile sandbox cannot run on this host (see sandbox_works)");               \
    } while (0)

static bool sandbox_works(void)
{
    static int state; /* 0 unknown, 1 works, -1 not */
    if (state == 0) {
        struct compile_request rq = {0};
        struct compile_result r;
        char *cause = NULL;
        int rc = compile_with(rq, "extern \"C\" __global__ void k() {}\n", &r, &cause);
        if (rc == BW_ERR_SANDBOX)
            printf("  compile sandbox unavailable: %s\n", cause);
        state = rc == BW_ERR_SANDBOX ? -1 : 1;
        compile_result_release(&r);
        free(cause);
    }
    return state > 0;
}

static void dump_diags(const struct compile_result *r)
{
    for (size_t i = 0; i < r->diags.n; i++)
        printf("    diag %d:%d %s\n", r->diags.items[i].line, r->diags.items[i].column,
               r->diags.items[i].msg);
}

static const struct kernel_usage *find_kernel(const struct compile_result *r, const char *name)
{
    for (size_t i = 0; i < r->n_kernels; i++)
        if (strcmp(r->kernels[i].name, name) == 0)
            return &r->kernels[i];
    return NULL;
}

static size_t count_errors(const struct compile_result *r)
{
    size_t n = 0;
    for (size_t i = 0; i < r->diags.n; i++)
        n += compile_diag_is_error(&r->diags.items[i]);
    return n;
}

/* ---- wire format ------------------------------------------------------------------- */

TEST(wire_request_round_trip)
{
    static const char *const opts[] = {"-DBLOCK=256", "--use_fast_math"};
    const char src[] = "a\nb\0c 3\nend 0\n"; /* bytes that look like the framing */
    struct compile_request rq = {.source = src,
                                 .len = sizeof(src) - 1,
                                 .filename = "x.cu",
                                 .arch = "sm_80",
                                 .options = opts,
                                 .n_options = 2,
                                 .cpu_s = 7,
                                 .mem_bytes = 123456789};
    struct compile_job job;
    struct buf b;
    char *cause = NULL;

    buf_init(&b, 1 << 20);
    CHECK_INT_EQ(compile_request_encode(&rq, &b, &cause), BW_OK);
    size_t truncated = b.len - 1;
    CHECK_INT_EQ(compile_job_decode(&job, buf_detach(&b), truncated, &cause), BW_ERR_PROTOCOL);
    compile_job_release(&job);
    free(cause);
    cause = NULL;

    CHECK_INT_EQ(compile_request_encode(&rq, &b, &cause), BW_OK);
    size_t len = b.len;
    CHECK_INT_EQ(compile_job_decode(&job, buf_detach(&b), len, &cause), BW_OK);
    CHECK_INT_EQ(job.rq.len, sizeof(src) - 1);
    CHECK(job.rq.source && memcmp(job.rq.source, src, sizeof(src) - 1) == 0);
    CHECK_STR_EQ(job.rq.filename, "x.cu");
    CHECK_STR_EQ(job.rq.arch, "sm_80");
    CHECK_INT_EQ(job.rq.n_options, 2);
    CHECK_STR_EQ(job.rq.options[0], "-DBLOCK=256");
    CHECK_STR_EQ(job.rq.options[1], "--use_fast_math");
    CHECK_INT_EQ(job.rq.cpu_s, 7);
    CHECK_INT_EQ(job.rq.mem_bytes, 123456789);
    compile_job_release(&job);
    free(cause);
}

TEST(wire_write_matches_put)
{
    static const char cubin[] = "\177ELF\0\n binary \nend 0\n";
    struct compile_field f;
    struct buf b;
    char data[256];
    size_t pos = 0;
    int fds[2];

    CHECK(pipe(fds) == 0);
    CHECK_INT_EQ(compile_wire_write(fds[1], "nvrtc", "NVRTC_SUCCESS", 13), BW_OK);
    CHECK_INT_EQ(compile_wire_write(fds[1], "cubin", cubin, sizeof(cubin) - 1), BW_OK);
    CHECK_INT_EQ(compile_wire_write(fds[1], "end", "", 0), BW_OK);
    close(fds[1]);
    ssize_t n = read(fds[0], data, sizeof(data));
    close(fds[0]);
    buf_init(&b, 256);
    compile_wire_puts(&b, "nvrtc", "NVRTC_SUCCESS");
    compile_wire_put(&b, "cubin", cubin, sizeof(cubin) - 1);
    compile_wire_end(&b);
    CHECK(n > 0 && (size_t)n == b.len && memcmp(data, b.data, b.len) == 0);
    CHECK_INT_EQ(compile_wire_next(data, (size_t)n, &pos, &f, NULL), 1);
    CHECK_STR_EQ(f.key, "nvrtc");
    CHECK_INT_EQ(compile_wire_next(data, (size_t)n, &pos, &f, NULL), 1);
    CHECK(f.len == sizeof(cubin) - 1 && memcmp(f.value, cubin, f.len) == 0);
    CHECK_INT_EQ(compile_wire_next(data, (size_t)n, &pos, &f, NULL), 0);
    CHECK_INT_EQ(pos, (size_t)n);
    buf_release(&b);
}

TEST(wire_rejects_malformed_records)
{
    static const char *const bad[] = {
        "",                             /* no end */
        "source 3\nabc\n",              /* no end */
        "source 5\nabc\nend 0\n\n",     /* length past the data */
        "source 3\nabcXend 0\n\n",      /* no newline after the value */
        "Source 3\nabc\nend 0\n\n",     /* upper case key */
        "source x\nabc\nend 0\n\n",     /* bad length */
        "source 3abc\nend 0\n\n",       /* no newline after the length */
        "source 99999999999999\nabc\n", /* absurd length */
        "end 0\n",                      /* end truncated */
        "filename 4\nx.cu\nend 0\n\n",  /* no source */
        "bogus 1\nx\nend 0\n\n",        /* unknown field */
        "cpu_s 2\n-1\nsource 0\n\nfilename 1\nx\narch 5\nsm_90\nend 0\n\n", /* bad value */
    };
    for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
        struct compile_job job;
        char *cause = NULL;
        char *data = strdup(bad[i]);
        int rc = compile_job_decode(&job, data, strlen(bad[i]), &cause);
        CHECK_MSG(rc < 0, "record %zu decoded", i);
        CHECK_MSG(cause != NULL, "record %zu: no cause", i);
        compile_job_release(&job);
        free(cause);
    }
}

/* A record read as it arrives: a field is whole, not yet, or cannot be one. */
TEST(wire_complete_tells_a_whole_field)
{
    static const struct {
        const char *data;
        int want;
    } cases[] = {
        {"", 0},
        {"build", 0},
        {"build ", 0},
        {"build 1", 0},
        {"build 1\n", 0},
        {"build 1\n0", 0},
        {"build 1\n0\n", 1},
        {"build 1\n0\nname 3\nab", 1}, /* the first field is whole */
        {"end 0\n\n", 1},
        {"Build 1\n0\n", -1},
        {"build x\n", -1},
        {"build 1x", -1},
        {" build", -1},
        {"abcdefghijklmnopqrstuvwxyzabcdefg", -1}, /* a key over 32 bytes */
        {"cubin 1234567890123", -1},               /* a length over 12 digits */
    };
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++)
        CHECK_MSG(compile_wire_complete(cases[i].data, strlen(cases[i].data), 0) == cases[i].want,
                  "case %zu \"%s\": %d", i, cases[i].data,
                  compile_wire_complete(cases[i].data, strlen(cases[i].data), 0));
    CHECK_INT_EQ(compile_wire_complete("build 1\n0\nname 3\nab", 20, 10), 0);
    CHECK_INT_EQ(compile_wire_complete("build 1\n0\nname 3\nabc\n", 22, 10), 1);
}

/* ---- options ------------------------------------------------------------------------ */

TEST(option_check)
{
    static const char *const reserved[] = {
        "-I/etc",
        "-I",
        "--include-path=/etc",
        "--gpu-architecture=sm_80",
        "-arch=sm_80",
        "-arch",
        "-include",
        "--pre-include=/etc/passwd",
        "-rdc=true",
        "--relocatable-device-code=true",
        "-dlto",
        "--dlink-time-opt",
        "--time=/tmp/x",
        "--fdevice-time-trace=/tmp/x",
        "--split-compile=4",
    };
    static const char *const fine[] = {
        "-DBLOCK=256", "--use_fast_math", "--maxrregcount=32",
        "-std=c++20",  "-lineinfo",       "--extra-device-vectorization",
        "-U_X",        "--fmad=false"};
    char *cause = NULL;

    for (size_t i = 0; i < sizeof(reserved) / sizeof(reserved[0]); i++) {
        CHECK_MSG(compile_option_check(reserved[i], &cause) == BW_ERR_INVALID, "%s allowed",
                  reserved[i]);
        CHECK_CONTAINS(cause, "reserved");
    }
    for (size_t i = 0; i < sizeof(fine) / sizeof(fine[0]); i++)
        CHECK_MSG(compile_option_check(fine[i], &cause) == BW_OK, "%s refused: %s", fine[i], cause);
    CHECK_INT_EQ(compile_option_check("DBLOCK", &cause), BW_ERR_INVALID);
    CHECK_INT_EQ(compile_option_check("", &cause), BW_ERR_INVALID);
    CHECK_INT_EQ(compile_option_check("-DX=\n#include", &cause), BW_ERR_INVALID);
    free(cause);
}

/* ---- log parsers on canned logs ------------------------------------------------------- */

static const char canned_errors[] =
    "submission.cu(6): error: expected a \";\"\n"
    "      if (i < n) x[i] = undefined_thing;\n"
    "      ^\n"
    "\n"
    "submission.cu(4): warning #177-D: variable \"y\" was declared but never referenced\n"
    "  \tint y;\n"
    "  \t    ^\n"
    "\n"
    "Remark: The warnings can be suppressed with \"-diag-suppress <warning-number>\"\n"
    "\n"
    "submission.cu(3): remark #20200-D: #pragma message: \"hello\"\n"
    "  #pragma message(\"hello\")\n"
    "                          ^\n"
    "\n"
    "/cuda/include/cuda_fp16.hpp(120): error: identifier \"x\" is undefined\n"
    "      return x;\n"
    "             ^\n"
    "          detected during instantiation of \"f\" at line 9 of submission.cu\n"
    "\n"
    "submission.cu(12): catastrophic error: cannot open source file \"/etc/passwd\"\n"
    "  #include \"/etc/passwd\"\n"
    "                        ^\n"
    "\n"
    "submission.cu(2): error: no echo line follows this one\n"
    "ptxas error   : Entry function 'k' uses too much shared data (0x10040 bytes, 0xc000 max)\n"
    "ptxas warning : Registers are spilled to local memory in function 'k', 8 bytes spill stores\n"
    "nvrtc: error: unrecognized option --foo found\n"
    "a(file) with(parens)(7): warning: odd file name\n"
    "3 errors detected in the compilation of \"submission.cu\".\n";

TEST(log_diags_canned)
{
    struct diag_list l = {0};
    struct compile_result r = {0};

    CHECK_INT_EQ(compile_log_diags(canned_errors, "submission.cu", &l), BW_OK);
    r.diags = l;
    CHECK_INT_EQ(l.n, 10);
    CHECK(hostile_find_diag(&r.diags, 6, 5, "error: expected a \";\""));
    CHECK(hostile_find_diag(&r.diags, 4, 6,
                            "warning: variable \"y\" was declared but never referenced"));
    CHECK(hostile_find_diag(&r.diags, 3, 25, "remark: #pragma message: \"hello\""));
    CHECK(hostile_find_diag(
        &r.diags, 0, 0,
        "error: in /cuda/include/cuda_fp16.hpp line 120: identifier \"x\" is undefined"));
    CHECK(hostile_find_diag(&r.diags, 12, 23, "error: cannot open source file \"/etc/passwd\""));
    CHECK(hostile_find_diag(&r.diags, 2, 0, "error: no echo line follows this one"));
    CHECK(hostile_find_diag(&r.diags, 0, 0,
                            "error: ptxas: Entry function 'k' uses too much shared data"));
    CHECK(hostile_find_diag(&r.diags, 0, 0, "warning: ptxas: Registers are spilled"));
    CHECK(hostile_find_diag(&r.diags, 0, 0, "error: unrecognized option --foo found"));
    CHECK(hostile_find_diag(&r.diags, 0, 0,
                            "warning: in a(file) with(parens) line 7: odd file name"));
    CHECK_INT_EQ(count_errors(&r), 6);
    if (test_failed())
        dump_diags(&r);
    diag_list_release(&l);
}

TEST(log_diags_other_filename_and_empty)
{
    struct diag_list l = {0};

    CHECK_INT_EQ(compile_log_diags(canned_errors, "other.cu", &l), BW_OK);
    for (size_t i = 0; i < l.n; i++)
        CHECK_MSG(l.items[i].line == 0, "diag %zu has line %d", i, l.items[i].line);
    diag_list_release(&l);
    CHECK_INT_EQ(compile_log_diags("", "submission.cu", &l), BW_OK);
    CHECK_INT_EQ(compile_log_diags(NULL, "submission.cu", &l), BW_OK);
    CHECK_INT_EQ(compile_log_diags("submission.cu(", "submission.cu", &l), BW_OK);
    CHECK_INT_EQ(compile_log_diags("submission.cu(1): ", "submission.cu", &l), BW_OK);
    CHECK_INT_EQ(compile_log_diags("submission.cu(1): error:", "submission.cu", &l), BW_OK);
    CHECK_INT_EQ(compile_log_diags("(1): error: x\n", "submission.cu", &l), BW_OK);
    CHECK_INT_EQ(l.n, 0);
    diag_list_release(&l);
}

TEST(log_diags_capped_errors_first)
{
    struct buf b;
    struct diag_list l = {0};

    buf_init(&b, 1 << 20);
    for (int i = 1; i <= 150; i++)
        buf_addf(&b, "submission.cu(%d): warning: w%d\n", i, i);
    buf_addf(&b, "submission.cu(200): error: the one error\n");
    CHECK_INT_EQ(compile_log_diags(b.data, "submission.cu", &l), BW_OK);
    CHECK_INT_EQ(l.n, BW_MAX_DIAGS + 1);
    if (l.n == BW_MAX_DIAGS + 1) {
        CHECK_STR_EQ(l.items[0].msg, "error: the one error");
        CHECK_INT_EQ(l.items[0].line, 200);
        CHECK_STR_EQ(l.items[1].msg, "warning: w1");
        CHECK_CONTAINS(l.items[BW_MAX_DIAGS].msg, "51 more diagnostics are in the log");
    }
    diag_list_release(&l);
    buf_release(&b);
}

static const char canned_ptxas[] =
    "ptxas warning : For profile sm_90a adjusting per thread register count of 16 to lower bound "
    "of 24\n"
    "ptxas info    : 0 bytes gmem\n"
    "ptxas info    : Compiling entry function 'usec' for 'sm_90a'\n"
    "ptxas info    : Function properties for usec\n"
    "ptxas         .     0 bytes stack frame, 0 bytes spill stores, 0 bytes spill loads\n"
    "ptxas info    : Used 10 registers, used 0 barriers, 380 bytes cmem[0]\n"
    "ptxas info    : Compile time = 2.717 ms\n"
    "ptxas info    : Compiling entry function '_Z5spillPfi' for 'sm_90a'\n"
    "ptxas info    : Function properties for _Z5spillPfi\n"
    "ptxas         .     232 bytes stack frame, 424 bytes spill stores, 428 bytes spill loads\n"
    "ptxas info    : Used 24 registers, used 0 barriers, 232 bytes cumulative stack size\n"
    "ptxas info    : Compiling entry function 'sm' for 'sm_90a'\n"
    "ptxas info    : Function properties for sm\n"
    "ptxas         .     608 bytes stack frame, 4 bytes spill stores, 4 bytes spill loads\n"
    "ptxas info    : Used 24 registers, used 1 barriers, 608 bytes cumulative stack size, "
    "1024 bytes smem, 384 bytes cmem[0], 8 bytes cmem[2]\n"
    "ptxas info    : Function properties for _Z6helperPfi\n"
    "ptxas         .     0 bytes stack frame, 376 bytes spill stores, 376 bytes spill loads\n";

TEST(log_usage_canned)
{
    struct kernel_usage *k = NULL;
    size_t n = 0;

    CHECK_INT_EQ(compile_log_usage(canned_ptxas, &k, &n), BW_OK);
    CHECK_INT_EQ(n, 3);
    if (n == 3) {
        CHECK_STR_EQ(k[0].name, "usec");
        CHECK_INT_EQ(k[0].registers, 10);
        CHECK_INT_EQ(k[0].cmem0_bytes, 380);
        CHECK_INT_EQ(k[0].spill_store_bytes, 0);
        CHECK_STR_EQ(k[1].name, "_Z5spillPfi");
        CHECK_INT_EQ(k[1].registers, 24);
        CHECK_INT_EQ(k[1].stack_bytes, 232);
        CHECK_INT_EQ(k[1].spill_store_bytes, 424);
        CHECK_INT_EQ(k[1].spill_load_bytes, 428);
        CHECK_INT_EQ(k[1].smem_bytes, 0);
        CHECK_STR_EQ(k[2].name, "sm");
        CHECK_INT_EQ(k[2].barriers, 1);
        CHECK_INT_EQ(k[2].smem_bytes, 1024);
        CHECK_INT_EQ(k[2].cmem0_bytes, 384);
        CHECK_INT_EQ(k[2].stack_bytes, 608);
        /* the non-entry helper's 376-byte spills are not sm's */
        CHECK_INT_EQ(k[2].spill_store_bytes, 4);
    }
    compile_usage_free(k, n);

    CHECK_INT_EQ(compile_log_usage("no ptxas here\n", &k, &n), BW_OK);
    CHECK(k == NULL && n == 0);
    CHECK_INT_EQ(compile_log_usage("ptxas info    : Compiling entry function 'unterminated\n"
                                   "ptxas info    : Used 99999999999999999999 registers\n",
                                   &k, &n),
                 BW_OK);
    CHECK_INT_EQ(n, 0);
    compile_usage_free(k, n);
}

TEST(log_cap_keeps_ptxas)
{
    struct buf log, out;
    struct kernel_usage *k = NULL;
    size_t n = 0;

    buf_init(&log, 1 << 22);
    buf_init(&out, 1 << 22);
    CHECK_INT_EQ(compile_log_cap("short\n", 6, 100, &out), BW_OK);
    CHECK_STR_EQ(out.data, "short\n");
    buf_reset(&out);

    for (int i = 0; i < 20000; i++)
        buf_addf(&log, "submission.cu(%d): remark: line %d of a flood\n", i + 1, i);
    size_t front = log.len;
    buf_puts(&log, canned_ptxas);
    CHECK_INT_EQ(compile_log_cap(log.data, log.len, 4096, &out), BW_OK);
    CHECK(out.len <= 2 * 4096 + 100);
    CHECK_CONTAINS(out.data, "bytes of the log cut ...]\n");
    CHECK(strncmp(out.data, "submission.cu(1): remark: line 0 of a flood\n", 44) == 0);
    CHECK_CONTAINS(out.data, "Compiling entry function 'sm'");
    /* the cut falls at a line end */
    const char *cut = strstr(out.data, "[... ");
    CHECK(cut && cut > out.data && cut[-1] == '\n');
    CHECK_INT_EQ(compile_log_usage(out.data, &k, &n), BW_OK);
    CHECK_INT_EQ(n, 3);
    compile_usage_free(k, n);
    (void)front;

    /* a log with no ptxas part is cut once */
    buf_reset(&out);
    CHECK_INT_EQ(compile_log_cap(log.data, front, 1000, &out), BW_OK);
    CHECK(out.len <= 1000 + 100);
    CHECK_CONTAINS(out.data, "bytes of the log cut");
    buf_release(&log);
    buf_release(&out);
}

/* The fuzz corpus (seeds and whatever the fuzzer found) keeps its properties. */
TEST(log_fuzz_corpus_replay)
{
    const char *dir = "tests/fuzz/corpus/compile_log";
    DIR *d = opendir(dir);
    struct dirent *e;
    int count = 0;

    if (!d)
        SKIP("run from the repository root");
    while ((e = readdir(d)) != NULL) {
        char *path, *data = NULL, *cause = NULL;
        size_t len;
        if (e->d_name[0] == '.')
            continue;
        path = path_join(dir, e->d_name);
        if (path && read_file(path, 1 << 20, &data, &len, &cause) == BW_OK) {
            CHECK_MSG(fuzz_compile_log_one((const uint8_t *)data, len) == 0,
                      "%s violates a fuzz property", path);
            count++;
        } else {
            CHECK_MSG(false, "cannot read %s: %s", e->d_name, cause ? cause : "?");
        }
        free(data);
        free(cause);
        free(path);
    }
    closedir(d);
    CHECK(count >= 10);
}

/* ---- real compiles ---------------------------------------------------------------------- */

static const char vector_add[] =
    "// @launch vector_add grid=(cdiv(n, 256)) block=(256) args=(x, y, out, n)\n"
    "extern \"C\" __global__ void vector_add(const float *x, const float *y, float *out, long n)\n"
    "{\n"
    "    long i = blockIdx.x * (long)blockDim.x + threadIdx.x;\n"
    "    if (i < n)\n"
    "        out[i] = x[i] + y[i];\n"
    "}\n";

TEST(compile_vector_add)
{
    struct compile_request rq = {0};
    struct compile_result r;
    char *cause = NULL;

    NEED_COMPILER();
    CHECK_INT_EQ(compile_with(rq, vector_add, &r, &cause), BW_OK);
    CHECK_MSG(r.ok, "not ok: %s / %s", r.failure ? r.failure : "-", r.log ? r.log : "-");
    CHECK(r.cubin && r.cubin_len > 64 && memcmp(r.cubin, "\177ELF", 4) == 0);
    CHECK_INT_EQ(count_errors(&r), 0);
    CHECK(r.failure == NULL);
    CHECK_INT_EQ(r.n_kernels, 1);
    const struct kernel_usage *k = find_kernel(&r, "vector_add");
    CHECK(k && k->registers > 0 && k->registers <= 64 && k->spill_store_bytes == 0);
    CHECK(r.ms > 0 && r.nvrtc_ms > 0 && r.nvrtc_ms <= r.ms);
    printf("  vector_add: %.1f ms in all, %.1f ms in NVRTC\n", r.ms, r.nvrtc_ms);
    compile_result_release(&r);
    free(cause);
}

TEST(compile_reports_spills)
{
    static const char src[] =
        "extern \"C\" __global__ void spill(float *x, int n)\n"
        "{\n"
        "    float acc[48];\n"
        "#pragma unroll\n"
        "    for (int k = 0; k < 48; k++) acc[k] = x[threadIdx.x + k * n];\n"
        "    for (int it = 0; it < n; it++) {\n"
        "#pragma unroll\n"
        "        for (int k = 0; k < 48; k++) acc[k] = acc[k] * acc[(k + 1) % 48] + x[it + k];\n"
        "    }\n"
        "    float s = 0;\n"
        "#pragma unroll\n"
        "    for (int k = 0; k < 48; k++) s += acc[k];\n"
        "    x[threadIdx.x] = s;\n"
        "}\n";
    static const char *const opts[] = {"--maxrregcount=16"};
    struct compile_request rq = {.options = opts, .n_options = 1};
    struct compile_result r;
    char *cause = NULL;

    NEED_COMPILER();
    CHECK_INT_EQ(compile_with(rq, src, &r, &cause), BW_OK);
    CHECK(r.ok);
    const struct kernel_usage *k = find_kernel(&r, "spill");
    CHECK(k != NULL);
    if (k) {
        CHECK(k->registers <= 24);
        CHECK_MSG(k->spill_store_bytes > 0 && k->spill_load_bytes > 0, "spills %ld/%ld",
                  k->spill_store_bytes, k->spill_load_bytes);
        CHECK(k->stack_bytes > 0);
    }
    /* sm_90a raises 16 to 24 and says so */
    CHECK(hostile_find_diag(&r.diags, 0, 0, "warning: ptxas: For profile sm_90a adjusting"));
    compile_result_release(&r);

    rq.n_options = 0;
    CHECK_INT_EQ(compile_with(rq, src, &r, &cause), BW_OK);
    k = find_kernel(&r, "spill");
    CHECK(k && k->spill_store_bytes == 0 && k->registers > 24);
    compile_result_release(&r);
    free(cause);
}

TEST(compile_shared_memory_and_barriers)
{
    static const char src[] = "extern \"C\" __global__ void rev(float *x)\n"
                              "{\n"
                              "    __shared__ float t[256];\n"
                              "    t[threadIdx.x] = x[threadIdx.x];\n"
                              "    __syncthreads();\n"
                              "    x[threadIdx.x] = t[255 - threadIdx.x];\n"
                              "}\n";
    struct compile_request rq = {0};
    struct compile_result r;
    char *cause = NULL;

    NEED_COMPILER();
    CHECK_INT_EQ(compile_with(rq, src, &r, &cause), BW_OK);
    const struct kernel_usage *k = find_kernel(&r, "rev");
    CHECK(r.ok && k && k->smem_bytes == 1024 && k->barriers == 1);
    compile_result_release(&r);
    free(cause);
}

TEST(compile_syntax_error_located)
{
    static const char src[] = "extern \"C\" __global__ void k(float *x, long n)\n"
                              "{\n"
                              "\tlong i = blockIdx.x * (long)blockDim.x + threadIdx.x\n"
                              "    if (i < n) x[i] = 2.0f * x[i];\n"
                              "}\n";
    struct compile_request rq = {0};
    struct compile_result r;
    char *cause = NULL;

    NEED_COMPILER();
    CHECK_INT_EQ(compile_with(rq, src, &r, &cause), BW_OK);
    CHECK(!r.ok && r.cubin == NULL && r.failure == NULL);
    CHECK(hostile_find_diag(&r.diags, 4, 5, "error: expected a \";\""));
    CHECK_CONTAINS(r.log, "submission.cu(4): error");
    CHECK_INT_EQ(r.n_kernels, 0);
    if (test_failed())
        dump_diags(&r);
    compile_result_release(&r);

    rq.filename = "mine.cu";
    CHECK_INT_EQ(compile_with(rq, src, &r, &cause), BW_OK);
    CHECK(hostile_find_diag(&r.diags, 4, 5, "error: expected a \";\""));
    CHECK_CONTAINS(r.log, "mine.cu(4): error");
    compile_result_release(&r);
    free(cause);
}

TEST(compile_warning_is_a_warning)
{
    static const char src[] = "extern \"C\" __global__ void k(float *x)\n"
                              "{\n"
                              "    int unused = 3;\n"
                              "    x[threadIdx.x] = 1.0f;\n"
                              "}\n";
    struct compile_request rq = {0};
    struct compile_result r;
    char *cause = NULL;

    NEED_COMPILER();
    CHECK_INT_EQ(compile_with(rq, src, &r, &cause), BW_OK);
    CHECK(r.ok);
    const struct diag *d =
        hostile_find_diag(&r.diags, 3, 9, "warning: variable \"unused\" was declared");
    CHECK(d && !compile_diag_is_error(d));
    CHECK_INT_EQ(count_errors(&r), 0);
    compile_result_release(&r);
    free(cause);
}

TEST(compile_headers_fp16_bf16_mma_cg)
{
    static const char src[] =
        "#include <cuda_fp16.h>\n"
        "#include <cuda_bf16.h>\n"
        "#include <mma.h>\n"
        "#include <cooperative_groups.h>\n"
        "#include <cooperative_groups/reduce.h>\n"
        "#include <cuda/std/cstdint>\n"
        "#include <cuda/std/limits>\n"
        "namespace cg = cooperative_groups;\n"
        "using namespace nvcuda;\n"
        "extern \"C\" __global__ void k(const __half *a, const __half *b, float *c,\n"
        "                              __nv_bfloat16 *d, float *e)\n"
        "{\n"
        "    wmma::fragment<wmma::matrix_a, 16, 16, 16, __half, wmma::row_major> fa;\n"
        "    wmma::fragment<wmma::matrix_b, 16, 16, 16, __half, wmma::col_major> fb;\n"
        "    wmma::fragment<wmma::accumulator, 16, 16, 16, float> fc;\n"
        "    wmma::fill_fragment(fc, 0.0f);\n"
        "    wmma::load_matrix_sync(fa, a, 16);\n"
        "    wmma::load_matrix_sync(fb, b, 16);\n"
        "    wmma::mma_sync(fc, fa, fb, fc);\n"
        "    wmma::store_matrix_sync(c, fc, 16, wmma::mem_row_major);\n"
        "    d[threadIdx.x] = __float2bfloat16(__half2float(a[threadIdx.x]));\n"
        "    cg::thread_block_tile<32> tile = cg::tiled_partition<32>(cg::this_thread_block());\n"
        "    float v = cg::reduce(tile, e[threadIdx.x], cg::plus<float>());\n"
        "    cuda::std::uint32_t u = cuda::std::numeric_limits<cuda::std::uint32_t>::max();\n"
        "    if (tile.thread_rank() == 0) e[0] = v + (float)(u & 1u);\n"
        "}\n";
    struct compile_request rq = {0};
    struct compile_result r;
    char *cause = NULL;

    NEED_COMPILER();
    CHECK_INT_EQ(compile_with(rq, src, &r, &cause), BW_OK);
    CHECK_MSG(r.ok, "headers did not compile: %s", r.log);
    CHECK(find_kernel(&r, "k") != NULL);
    compile_result_release(&r);
    free(cause);
}

TEST(compile_options_reach_nvrtc)
{
    static const char src[] = "#if BLOCK != 256\n"
                              "#error BLOCK is not 256\n"
                              "#endif\n"
                              "template <class T> concept Small = sizeof(T) <= 4;\n"
                              "template <Small T> __device__ T twice(T v) { return v + v; }\n"
                              "extern \"C\" __global__ void k(float *x) { x[0] = twice(x[0]); }\n";
    static const char *const cxx20[] = {"-DBLOCK=256", "-std=c++20"};
    static const char *const cxx17[] = {"-DBLOCK=256"};
    static const char *const wrong_block[] = {"-DBLOCK=128", "-std=c++20"};
    struct compile_request rq = {.options = cxx20, .n_options = 2};
    struct compile_result r;
    char *cause = NULL;

    NEED_COMPILER();
    CHECK_INT_EQ(compile_with(rq, src, &r, &cause), BW_OK);
    CHECK_MSG(r.ok, "-std=c++20 did not replace the default: %s", r.log);
    compile_result_release(&r);

    rq.options = cxx17; /* the default is C++17: no concepts */
    rq.n_options = 1;
    CHECK_INT_EQ(compile_with(rq, src, &r, &cause), BW_OK);
    CHECK(!r.ok);
    compile_result_release(&r);

    rq.options = wrong_block;
    rq.n_options = 2;
    CHECK_INT_EQ(compile_with(rq, src, &r, &cause), BW_OK);
    CHECK(!r.ok && hostile_find_diag(&r.diags, 2, 2, "BLOCK is not 256"));
    compile_result_release(&r);

    /* an option NVRTC rejects is the source's compile error, reported as such */
    static const char *const bogus[] = {"--maxrregcount=many"};
    rq.options = bogus;
    rq.n_options = 1;
    CHECK_INT_EQ(compile_with(rq, vector_add, &r, &cause), BW_OK);
    CHECK(!r.ok && r.diags.n >= 1 && count_errors(&r) >= 1);
    compile_result_release(&r);
    free(cause);
}

TEST(compile_request_errors_are_judge_errors)
{
    static const char *const reserved[] = {"-I/etc"};
    struct compile_request rq = {0};
    struct compile_result r;
    char *cause = NULL;

    rq.arch = "sm_9x";
    CHECK_INT_EQ(compile_with(rq, vector_add, &r, &cause), BW_ERR_INVALID);
    CHECK_CONTAINS(cause, "sm_9x");
    compile_result_release(&r);
    rq.arch = "sm_90a; rm";
    CHECK_INT_EQ(compile_with(rq, vector_add, &r, &cause), BW_ERR_INVALID);
    compile_result_release(&r);
    if (compiler() && sandbox_works()) {
        rq.arch = "sm_10"; /* well formed, but no NVRTC of ours knows it */
        CHECK_INT_EQ(compile_with(rq, vector_add, &r, &cause), BW_ERR_INVALID);
        CHECK_CONTAINS(cause, "NVRTC refused the architecture");
        compile_result_release(&r);
    }
    rq.arch = NULL;
    rq.options = reserved;
    rq.n_options = 1;
    CHECK_INT_EQ(compile_with(rq, vector_add, &r, &cause), BW_ERR_INVALID);
    CHECK_CONTAINS(cause, "-I/etc");
    compile_result_release(&r);
    rq.n_options = 0;
    rq.filename = "../x.cu";
    CHECK_INT_EQ(compile_with(rq, vector_add, &r, &cause), BW_ERR_INVALID);
    compile_result_release(&r);
    rq.filename = NULL;

    rq.source = vector_add;
    rq.len = strlen(vector_add);
    rq.compiler = "/nonexistent/blockwise-compile";
    CHECK_INT_EQ(compile_run(&rq, &r, &cause), BW_ERR_NOTFOUND);
    CHECK_CONTAINS(cause, "/nonexistent/blockwise-compile");
    compile_result_release(&r);
    free(cause);
}

TEST(compile_refuses_oversized_source)
{
    struct compile_request rq = {0};
    struct compile_result r;
    char *cause = NULL;
    char *big = malloc(BW_MAX_SOURCE_BYTES + 2);

    memset(big, ' ', BW_MAX_SOURCE_BYTES + 1);
    big[BW_MAX_SOURCE_BYTES + 1] = '\0';
    rq.source = big;
    rq.len = BW_MAX_SOURCE_BYTES + 1;
    rq.compiler = "/nonexistent/never-started";
    CHECK_INT_EQ(compile_run(&rq, &r, &cause), BW_OK);
    CHECK(!r.ok && r.diags.n == 1 && r.log && r.log[0] == '\0');
    CHECK(r.diags.n == 1 && strstr(r.diags.items[0].msg, "over the limit of 262144 bytes"));
    compile_result_release(&r);
    free(big);
    free(cause);
}

/* The compile child must refuse to run unsandboxed when namespaces are denied. */
TEST(compile_sandbox_unavailable_is_reported)
{
    int fds[2];
    pid_t pid;

    NEED_COMPILER();
    if (pipe(fds) < 0)
        SKIP("pipe failed");
    pid = fork();
    if (pid == 0) {
        /* In a child of the test: deny unshare(2) the way a locked-down host does. */
        struct compile_request rq = {0};
        struct compile_result r;
        char *cause = NULL;
        scmp_filter_ctx ctx = seccomp_init(SCMP_ACT_ALLOW);
        close(fds[0]);
        if (!ctx || seccomp_rule_add(ctx, SCMP_ACT_ERRNO(EPERM), SCMP_SYS(unshare), 0) < 0 ||
            prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) < 0 || seccomp_load(ctx) < 0)
            _exit(90);
        int rc = compile_with(rq, vector_add, &r, &cause);
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
    CHECK_CONTAINS(msg, "-10|0|compile sandbox unavailable: unshare namespaces: "
                        "unshare(CLONE_NEWUSER): Operation not permitted");
}

/* Counts live processes whose argv[0] is `exe` (compile_run passes the full path). Reads
 * cmdline, not the exe link: the compile child is not dumpable, so only root could read that. */
static int count_processes(const char *exe)
{
    DIR *proc = opendir("/proc");
    struct dirent *e;
    int n = 0;

    if (!proc)
        return -1;
    while ((e = readdir(proc)) != NULL) {
        char path[300], argv0[PATH_MAX] = {0};
        FILE *f;
        if (e->d_name[0] < '1' || e->d_name[0] > '9')
            continue;
        snprintf(path, sizeof(path), "/proc/%s/cmdline", e->d_name);
        f = fopen(path, "re");
        if (!f)
            continue;
        size_t len = fread(argv0, 1, sizeof(argv0) - 1, f);
        fclose(f);
        n += len > 0 && strcmp(argv0, exe) == 0;
    }
    closedir(proc);
    return n;
}

/* A judge that dies mid-compile takes its compile child (and the pid namespace) along. */
TEST(compile_child_dies_with_the_judge)
{
    static const char burn[] =
        "__device__ constexpr unsigned long spin(unsigned long n)\n"
        "{ unsigned long s = 0; for (unsigned long i = 0; i < n; i++) s += i * i ^ s; return s; }\n"
        "template <int I> struct Burn { static_assert(spin((1UL << 18) + I) != 1, \"\");\n"
        "    static constexpr int v = Burn<I - 1>::v + 1; };\n"
        "template <> struct Burn<0> { static constexpr int v = 0; };\n"
        "__device__ int z = Burn<190>::v;\n";
    int before, during, after;
    pid_t judge;

    NEED_COMPILER();
    /* Several rounds: the kill lands at a different point of the child's set-up each time. */
    for (int round = 0; round < 4; round++) {
        during = 0;
        after = -1;
        before = count_processes(compiler());
        judge = fork();
        if (judge == 0) {
            struct compile_request rq = {.wall_ms = 60000, .cpu_s = 60};
            struct compile_result r;
            compile_with(rq, burn, &r, NULL);
            _exit(0);
        }
        for (int i = 0; i < 200 && during < before + 2; i++) {
            usleep(round * 1000);
            during = count_processes(compiler());
        }
        kill(judge, SIGKILL);
        waitpid(judge, NULL, 0);
        for (int i = 0; i < 100; i++) {
            after = count_processes(compiler());
            if (after <= before)
                break;
            usleep(20000);
        }
        CHECK_MSG(during >= before + 2,
                  "the compile child and its pid-namespace child never ran "
                  "(%d before, %d during)",
                  before, during);
        CHECK_MSG(after <= before, "%d compile processes outlived the judge", after - before);
    }
}

/* ---- hostile programs -------------------------------------------------------------------- */

/* The header's keys of this corpus beyond the shared ones (hostile_header.h). */
struct hostile {
    struct hostile_header c;
    bool no_sandbox; /* mode: no-sandbox */
    char fifo[200];  /* setup: fifo PATH */
};

static bool own_key(const char *line, void *ctx)
{
    struct hostile *h = ctx;
    char v[200];

    if (hostile_value(line, "mode", v, sizeof(v))) {
        if (strcmp(v, "no-sandbox") != 0)
            return false;
        h->no_sandbox = true;
    } else if (hostile_value(line, "setup", v, sizeof(v))) {
        if (strncmp(v, "fifo ", 5) != 0)
            return false;
        snprintf(h->fifo, sizeof(h->fifo), "%s", v + 5);
    }
    return true;
}

/* Reads the "// key: value" header of a hostile file. */
static bool parse_hostile(const char *src, struct hostile *h)
{
    memset(h, 0, sizeof(*h));
    return hostile_header_parse(src, "// ", &h->c, own_key, h);
}

/* r as the hostile header's checks see it. */
static struct hostile_result hostile_view(const struct compile_result *r)
{
    return (struct hostile_result){.ok = r->ok,
                                   .failure = r->failure,
                                   .log = r->log,
                                   .diags = &r->diags,
                                   .errors = count_errors(r),
                                   .ms = r->ms};
}

static void check_hostile(const char *name, const char *src, size_t len, const struct hostile *h)
{
    struct compile_request rq = {.source = src,
                                 .len = len,
                                 .wall_ms = h->c.wall_ms,
                                 .cpu_s = h->c.cpu_s,
                                 .mem_bytes = (unsigned long long)h->c.mem_mb << 20,
                                 .compiler = compiler(),
                                 .no_sandbox = h->no_sandbox};
    struct compile_result r;
    char *cause = NULL;
    if (h->fifo[0]) {
        unlink(h->fifo);
        CHECK_MSG(mkfifo(h->fifo, 0600) == 0, "%s: mkfifo %s: %s", name, h->fifo, strerror(errno));
    }
    int rc = compile_run(&rq, &r, &cause);
    CHECK_MSG(rc == BW_OK, "%s: compile_run: %s (%s)", name, bw_strerror(rc), cause);
    struct hostile_result view = hostile_view(&r);
    hostile_check(&h->c, name, "a cubin", CANARY, &view);
    if (h->c.diag[0] && test_failed())
        dump_diags(&r);
    printf("  %-28s %-14s %7.0f ms  %s\n", name,
           r.ok        ? "ok"
           : r.failure ? "failure"
                       : "error",
           r.ms, r.failure ? r.failure : "");
    compile_result_release(&r);

    if (h->c.control_has[0]) {
        rq.no_sandbox = true;
        rc = compile_run(&rq, &r, &cause);
        view = hostile_view(&r);
        CHECK_MSG(rc == BW_OK && hostile_anywhere(&view, h->c.control_has),
                  "%s: without the sandbox \"%s\" does not appear: the test proves nothing", name,
                  h->c.control_has);
        compile_result_release(&r);
    }
    if (h->fifo[0])
        unlink(h->fifo);
    free(cause);
}

TEST(hostile_compiles)
{
    DIR *dir;
    struct dirent *e;
    int n = 0;

    NEED_COMPILER();
    setenv("BW_SECRET_CANARY", CANARY, 1);
    {
        const char canary[] = CANARY " = 1;\n";
        CHECK(write_file_atomic(CANARY_FILE, canary, sizeof(canary) - 1, NULL) == BW_OK);
    }
    dir = opendir(HOSTILE_DIR);
    if (!dir)
        SKIP("run from the repository root (no " HOSTILE_DIR ")");
    while ((e = readdir(dir)) != NULL) {
        size_t len = strlen(e->d_name), src_len;
        char *path, *src = NULL, *cause = NULL;
        struct hostile h;
        if (len < 4 || strcmp(e->d_name + len - 3, ".cu") != 0)
            continue;
        path = path_join(HOSTILE_DIR, e->d_name);
        if (read_file(path, BW_MAX_SOURCE_BYTES, &src, &src_len, &cause) != BW_OK) {
            CHECK_MSG(false, "%s: %s", path, cause);
        } else if (!parse_hostile(src, &h)) {
            CHECK_MSG(false, "%s: bad expectation header", path);
        } else {
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
