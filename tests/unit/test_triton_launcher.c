/*
 * Tests of a Triton launcher, solve(...) recorded in the Triton compile
 * sandbox (judge/worker/triton_launcher.h, plan/recorded.h,
 * plan/launcher_form.h, judge/triton/launcher.py):
 *
 *   - the request's encoding and the answer's decoding, on hand-made records
 *     (every field, and malformed ones: the submission's failure);
 *   - recorded_plan_build, on hand-made recordings (every check: buffer
 *     names, a view's offset and extent, grids, options, scratch, counts);
 *   - the variant keys (triton_variant_key), which judge/triton/launcher.py
 *     writes the same way;
 *   - the golden files of tests/golden/launcher/: NAME.py recorded for the
 *     problem its first line names (`# problem: DIR`, default
 *     tests/fixtures/problems/launcher-rows), NAME.expected holding the
 *     recorded plans (each launch's grid, arguments with their offsets, and
 *     variant key) or the errors at their lines (BW_UPDATE_GOLDEN=1 rewrites
 *     them);
 *   - a launcher compiled whole: every configuration's builds found by key;
 *   - the build cache: edits of the launch code alone (the grid, arguments that are
 *     not tl.constexpr, a helper only solve calls) compile nothing or only the new
 *     variants, a kernel edit compiles again; two learners whose modules differ only
 *     in solve share builds, and a module that reads its own file builds the same for
 *     both (the compile imports the keyed text); a process solve leaves behind cannot
 *     reach the compile;
 *   - the hostile launchers of tests/hostile/triton/launcher/, each with its
 *     expectation in its first lines (hostile_header.h's keys; `# diag:`
 *     LINE:COL TEXT; the canary and /etc/passwd nowhere in the result);
 *   - what recording costs per case (printed).
 *
 * Through the sandboxed blockwise-triton-compile with the FAKE triton
 * package (tests/fake/triton); with BW_TRITON_REAL=1 (tests/gpu/triton.sh on
 * the GPU machine) the golden files, the compile and the hostile launchers
 * run against the real Triton of $BLOCKWISE_PYTHON instead.
 */
#include "tests/test.h"

#include <dirent.h>
#include <limits.h>
#include <math.h>
#include <stdlib.h>
#include <unistd.h>

#include "built_tool.h"
#include "fake_python.h"
#include "hostile_header.h"
#include "common/buf.h"
#include "common/error.h"
#include "common/util.h"
#include "judge/worker/build_cache.h"
#include "judge/worker/program.h"
#include "judge/worker/python.h"
#include "judge/worker/triton_launcher.h"
#include "plan/launcher_form.h"
#include "plan/recorded.h"
#include "plan/triton_variant.h"
#include "problem/problem.h"
#include "wire/compile_wire.h"
#include "common/banned.h"

#define ROWS        "tests/fixtures/problems/launcher-rows"
#define GOLDEN_DIR  "tests/golden/launcher"
#define HOSTILE_DIR "tests/hostile/triton/launcher"
#define CANARY      "bw-triton-canary-7c2e91"

/* ---- helpers ------------------------------------------------------------------ */

static struct problem *rows_problem(void)
{
    char *cause = NULL;
    struct problem *p = problem_load(ROWS, &cause);

    CHECK_MSG(p != NULL, "cannot load %s: %s", ROWS, cause ? cause : "?");
    free(cause);
    return p;
}

/* The environment a launcher compile needs: the fake (or real) Python, the built compiler. */
static const char *need_triton(void)
{
    static char tool[PATH_MAX];
    const char *py = fake_python();

    if (!built_tool(BW_TRITON_COMPILE_ENV, "blockwise-triton-compile", tool, sizeof(tool)))
        return "blockwise-triton-compile is not built (make first)";
    if (!py)
        return "no Python for the fake triton venv (set BW_TEST_PYTHON)";
    setenv(BW_TRITON_COMPILE_ENV, tool, 1);
    setenv(BW_PYTHON_ENV, py, 1);
    return NULL;
}

#define NEED_TRITON()                                                                              \
    do {                                                                                           \
        const char *why_ = need_triton();                                                          \
        if (why_)                                                                                  \
            SKIP(why_);                                                                            \
    } while (0)

/* Parses and records (record_only) or compiles a launcher source for problem p. Returns
 * program_compile's code (BW_OK: pg->builds say whether it recorded); a parse error puts its
 * diags in *diags and returns BW_ERR_INVALID. */
static int run_launcher_for(const struct problem *p, const char *src, size_t len, bool record_only,
                            int case_ms, struct program *pg, struct diag_list *diags, char **cause)
{
    struct program_target t = {.record_only = record_only, .launcher_case_ms = case_ms};
    int rc = program_parse(pg, p, LANG_TRITON, src, len, PLAN_SUBMISSION, diags);

    if (rc)
        return rc;
    return program_compile(pg, &t, src, len, "submission.py", cause);
}

static int run_launcher(const struct problem *p, const char *src, size_t len, bool record_only,
                        struct program *pg, struct diag_list *diags, char **cause)
{
    return run_launcher_for(p, src, len, record_only, 0, pg, diags, cause);
}

/* A plan's launches as the golden files show them. */
static void render_plan(const struct plan *pl, struct buf *b)
{
    for (size_t k = 0; k < pl->n_buffers; k++)
        if (pl->buffers[k].role == PLAN_SCRATCH)
            buf_addf(b, "    scratch %s %s[%lld]\n", pl->buffers[k].name,
                     dtype_name(pl->buffers[k].dtype), (long long)pl->buffers[k].count);
    for (size_t l = 0; l < pl->n_launches; l++) {
        const struct plan_launch *L = &pl->launches[l];
        struct triton_variant v;
        char key[4096];

        buf_addf(b, "    line %d: %s grid=(%u, %u, %u) args=(", L->line, L->kernel, L->grid[0],
                 L->grid[1], L->grid[2]);
        for (size_t a = 0; a < L->n_args; a++) {
            const struct plan_arg *pa = &L->args[a];
            const char *sep = a ? ", " : "";
            if (pa->kind == PLAN_ARG_BUF)
                buf_addf(b, pa->offset ? "%s%s+%lld" : "%s%s", sep, pl->buffers[pa->buf].name,
                         (long long)pa->offset);
            else if (pa->kind == PLAN_ARG_F32)
                buf_addf(b, "%s%g", sep, pa->f);
            else if (pa->kind == PLAN_ARG_U64)
                buf_addf(b, "%s%llu", sep, (unsigned long long)pa->i);
            else
                buf_addf(b, "%s%lld", sep, (long long)pa->i);
        }
        triton_variant_of(pl, l, &v);
        triton_variant_key(&v, key, sizeof(key));
        buf_addf(b, ")\n      %s\n", key);
    }
}

/* A recorded program's configurations and plans, or its errors, as the golden files hold them. */
static void render(const struct program *pg, int rc, const char *cause,
                   const struct diag_list *parse_diags, struct buf *b)
{
    const struct problem *p = pg->p;
    const struct diag_list *d = rc == BW_ERR_INVALID ? parse_diags : &pg->triton.result.diags;
    struct plan *pl = calloc(1, sizeof(*pl));

    if (rc && rc != BW_ERR_INVALID)
        buf_addf(b, "judge error %s: %s\n", bw_strerror(rc), cause ? cause : "?");
    for (size_t i = 0; d && i < d->n; i++)
        buf_addf(b, "%d:%d: %s\n", d->items[i].line, d->items[i].column, d->items[i].msg);
    if (rc || !pl || !pg->builds || !pg->builds[0].ok) {
        if (rc == BW_OK && pg->triton.result.failure)
            buf_addf(b, "failure: %s\n", pg->triton.result.failure);
        free(pl);
        return;
    }
    for (size_t c = 0; c < pg->n_configs; c++) {
        char name[512];
        program_describe_config(pg, c, name, sizeof(name));
        buf_addf(b, "config %zu: %s\n", c, name);
        for (size_t k = 0; k < p->n_tests + p->n_benchmarks; k++) {
            const struct problem_case *pc =
                k < p->n_tests ? &p->tests[k] : &p->benchmarks[k - p->n_tests];
            char *why = NULL;
            buf_addf(b, "  %s\n", pc->name);
            if (program_plan(pg, c, pc, pl, &why) == BW_OK)
                render_plan(pl, b);
            else
                buf_addf(b, "    error: %s\n", why ? why : "?");
            free(why);
        }
    }
    free(pl);
}

/* The value of "# KEY: value" among the first lines of src, into out; false when absent. */
static bool header(const char *src, const char *key, char *out, size_t cap)
{
    char want[64];
    const char *at;

    snprintf(want, sizeof(want), "# %s: ", key);
    at = strstr(src, want);
    if (!at)
        return false;
    at += strlen(want);
    snprintf(out, cap, "%.*s", (int)strcspn(at, "\n"), at);
    return true;
}

/* ---- the request and the answer (pure) ------------------------------------------- */

TEST(request_encodes_problem_cases_device_limits)
{
    struct problem *p = rows_problem();
    struct triton_launch_request rq = {.source = "def solve(): pass\n", .len = 18, .p = p};
    struct buf out;
    struct compile_field f;
    char *cause = NULL;
    size_t pos = 0, n_cases = 0, n_shapes = 0;
    bool mode = false, record_only = false, sm = false, cap = false, alpha = false;

    if (!p)
        return;
    buf_init(&out, 1 << 20);
    rq.record_only = true;
    CHECK_INT_EQ(triton_launch_encode(&rq, &out, &cause), BW_OK);
    while (compile_wire_next(out.data, out.len, &pos, &f, &cause) == 1) {
        mode |= strcmp(f.key, "mode") == 0 && strcmp(f.value, "launch") == 0;
        record_only |= strcmp(f.key, "record_only") == 0 && strcmp(f.value, "1") == 0;
        sm |= strcmp(f.key, "device") == 0 && strcmp(f.value, "sm_count=132") == 0;
        cap |= strcmp(f.key, "scratch_limit") == 0 && strcmp(f.value, "316") == 0; /* 4*3*5+256 */
        alpha |= strcmp(f.key, "value") == 0 && strcmp(f.value, "alpha 0.5") == 0;
        n_cases += strcmp(f.key, "case") == 0;
        n_shapes += strcmp(f.key, "shape") == 0;
        if (strcmp(f.key, "case") == 0 && n_cases == 1)
            CHECK_STR_EQ(f.value, "0 test M=3,N=5");
        if (strcmp(f.key, "case") == 0 && n_cases == 3)
            CHECK_STR_EQ(f.value, "2 bench big");
        if (strcmp(f.key, "shape") == 0 && n_shapes == 1)
            CHECK_STR_EQ(f.value, "X 3 5");
        if (strcmp(f.key, "tensor") == 0 && strncmp(f.value, "W ", 2) == 0)
            CHECK_STR_EQ(f.value, "W fp16 in");
    }
    CHECK(mode && record_only && sm && cap && alpha);
    CHECK_INT_EQ(n_cases, 3);
    CHECK_INT_EQ(n_shapes, 9);
    buf_release(&out);
    free(cause);
    problem_free(p);
}

/* A record of fields: key, value, ... NULL (values as C strings). */
static char *record(size_t *len, ...)
{
    struct buf b;
    va_list ap;
    const char *k;

    buf_init(&b, 1 << 20);
    va_start(ap, len);
    while ((k = va_arg(ap, const char *)))
        compile_wire_puts(&b, k, va_arg(ap, const char *));
    va_end(ap);
    compile_wire_end(&b);
    *len = b.len;
    return buf_detach(&b);
}

static const char good_ptx[] =
    ".visible .entry k(\n\t.param .u64 p0,\n\t.param .u64 p1,\n\t.param .u64 p2,\n"
    "\t.param .u64 p3\n)\n{\n\tret;\n}\n";

TEST(answer_decodes_plans_kinds_and_builds)
{
    size_t len;
    char *data = record(
        &len, "ready", "3.6.0", "accepted", "", "record_ms", "4.5", "record_cases", "3", "configs",
        "2", "config", "0 BLOCK=64, num_warps=4", "config", "1 BLOCK=128, num_warps=8", "record",
        "1 2", "scratch", "tmp1 fp32 15 7", "launch", "k 9", "grid", "3 2 1", "options", "8 4 168",
        "arg", "buf X 5 10", "arg", "buf tmp1 0 15", "arg", "int 7", "arg",
        "int 18446744073709551615", "arg", "float 0.5", "arg", "float -inf", "constexpr",
        "BLOCK=128", "constexpr", "ACT='leaky_relu'", "constexpr", "EVEN=True", "constexpr",
        "NONE=None", "constexpr", "EPS=1e-05", "variant",
        "0 k(*fp32:D,*fp32:D)[BLOCK=128]{8,4,168}", "planned", "1", "build", "0", "name", "k",
        "cubin", "\177ELF k", "ptx", good_ptx, "num_warps", "8", "num_ctas", "1", "shared", "0",
        "global_scratch_size", "0", "global_scratch_align", "1", "profile_scratch_size", "0",
        "params", "0,1", "types", "*fp32,*fp32", "ptx_params", "4", "driver_ms", "12", NULL);
    struct triton_launch_result r;
    struct recorded_plan *rp;
    bool accepted, complete;
    char *cause = NULL;

    CHECK_INT_EQ(triton_launch_decode(data, len, 3, &r, &accepted, &complete, &cause), BW_OK);
    CHECK(accepted && complete);
    CHECK_MSG(!r.compiled.failure, "failure: %s", r.compiled.failure);
    CHECK_INT_EQ(r.rec.n_configs, 2);
    CHECK(fabs(r.rec.record_ms - 4.5) < 1e-9);
    CHECK_STR_EQ(r.rec.config_names[1], "BLOCK=128, num_warps=8");
    rp = recording_plan(&r.rec, 1, 2);
    CHECK(rp && rp->present && !recording_plan(&r.rec, 0, 0)->present);
    if (rp && rp->n_launches == 1) {
        const struct recorded_launch *L = &rp->launches[0];
        CHECK_STR_EQ(rp->scratch[0].name, "tmp1");
        CHECK_INT_EQ(rp->scratch[0].count, 15);
        CHECK_STR_EQ(L->kernel, "k");
        CHECK_INT_EQ(L->line, 9);
        CHECK(L->grid[0] == 3 && L->grid[1] == 2 && L->grid[2] == 1);
        CHECK(L->num_warps == 8 && L->num_stages == 4 && L->maxnreg == 168);
        CHECK_INT_EQ(L->n_args, 6);
        CHECK(L->args[0].kind == RECORDED_BUF && L->args[0].offset == 5 && L->args[0].span == 10);
        CHECK(L->args[3].kind == RECORDED_INT && L->args[3].u64 && L->args[3].i == -1);
        CHECK(L->args[4].kind == RECORDED_FLOAT && L->args[4].f == 0.5);
        CHECK(isinf(L->args[5].f) && L->args[5].f < 0);
        CHECK_INT_EQ(L->n_constexprs, 5);
        CHECK(L->constexprs[0].kind == CONSTEXPR_INT && L->constexprs[0].value == 128);
        CHECK(L->constexprs[1].kind == CONSTEXPR_STR);
        CHECK_STR_EQ(L->constexprs[1].s, "leaky_relu");
        CHECK(L->constexprs[2].kind == CONSTEXPR_BOOL && L->constexprs[2].value == 1);
        CHECK(L->constexprs[3].kind == CONSTEXPR_NONE);
        CHECK(L->constexprs[4].kind == CONSTEXPR_FLOAT && L->constexprs[4].f == 1e-05);
    } else {
        CHECK_MSG(false, "the plan has %zu launches", rp ? rp->n_launches : 0);
    }
    CHECK_INT_EQ(r.n_keys, 1);
    CHECK_INT_EQ(triton_launch_find(&r, "k(*fp32:D,*fp32:D)[BLOCK=128]{8,4,168}"), 0);
    CHECK(r.compiled.n_builds == 1 && r.compiled.builds[0].ok);
    triton_launch_result_release(&r);
    free(data);
    free(cause);
}

/* An answer whose launcher part is malformed: the submission's failure, naming why. */
static void expect_malformed(const char *what, const char *k1, const char *v1, const char *k2,
                             const char *v2, const char *k3, const char *v3)
{
    size_t len;
    char *data = record(&len, "ready", "3.6.0", "accepted", "", "configs", "1", k1, v1, k2, v2, k3,
                        v3, NULL);
    struct triton_launch_result r;
    bool accepted, complete;
    char *cause = NULL;
    int rc = triton_launch_decode(data, len, 2, &r, &accepted, &complete, &cause);

    CHECK_MSG(rc == BW_OK && accepted, "%s: rc %d (%s)", what, rc, cause ? cause : "");
    CHECK_MSG(r.compiled.failure && strstr(r.compiled.failure, "malformed"), "%s: failure %s", what,
              r.compiled.failure ? r.compiled.failure : "(none)");
    triton_launch_result_release(&r);
    free(data);
    free(cause);
}

TEST(answer_malformed_is_the_submissions_failure)
{
    expect_malformed("case out of range", "record", "0 2", "launch", "k 1", "grid", "1 1 1");
    expect_malformed("config out of range", "record", "1 0", "launch", "k 1", "grid", "1 1 1");
    expect_malformed("repeated", "record", "0 0", "record", "0 0", "launch", "k 1");
    expect_malformed("launch before record", "launch", "k 1", "grid", "1 1 1", "options", "4 3 0");
    expect_malformed("bad kernel name", "record", "0 0", "launch", "k; rm 1", "grid", "1 1 1");
    expect_malformed("bad arg kind", "record", "0 0", "launch", "k 1", "arg", "ptr X 0 1");
    expect_malformed("negative offset", "record", "0 0", "launch", "k 1", "arg", "buf X -1 1");
    expect_malformed("bad float", "record", "0 0", "launch", "k 1", "arg", "float 1x");
    expect_malformed("int over u64", "record", "0 0", "launch", "k 1", "arg",
                     "int 18446744073709551616");
    expect_malformed("bad literal", "record", "0 0", "launch", "k 1", "constexpr", "A=\"x\"");
    expect_malformed("unsafe string", "record", "0 0", "launch", "k 1", "constexpr", "A='a;b'");
    expect_malformed("scratch dtype", "record", "0 0", "scratch", "tmp1 fp128 4 1", "launch",
                     "k 1");
    expect_malformed("variant out of order", "variant", "1 k()[]{4,3,0}", "record", "0 0", "launch",
                     "k 1");
    expect_malformed("variant type", "variant", "0 k(*fp33:D)[]{4,3,0}", "record", "0 0", "launch",
                     "k 1");
    expect_malformed("a second configs", "configs", "1", "record", "0 0", "launch", "k 1");
}

/* ---- recorded plans (pure) -------------------------------------------------------- */

/* A recorded plan of one launch of `kernel` over (X, W, Y): the caller changes one thing. */
struct one {
    struct recorded_plan rp;
    struct recorded_launch L;
    struct recorded_arg args[4];
    struct plan_constexpr cx[2];
};

static void one_init(struct one *o)
{
    memset(o, 0, sizeof(*o));
    o->rp.present = true;
    o->rp.launches = &o->L;
    o->rp.n_launches = 1;
    o->L = (struct recorded_launch){.kernel = "k",
                                    .line = 12,
                                    .grid = {3, 1, 1},
                                    .num_warps = 4,
                                    .num_stages = 3,
                                    .args = o->args,
                                    .n_args = 4,
                                    .constexprs = o->cx,
                                    .n_constexprs = 1};
    o->args[0] = (struct recorded_arg){.kind = RECORDED_BUF, .buf = "X", .offset = 5, .span = 10};
    o->args[1] = (struct recorded_arg){.kind = RECORDED_BUF, .buf = "W", .span = 5};
    o->args[2] = (struct recorded_arg){.kind = RECORDED_BUF, .buf = "Y", .span = 15};
    o->args[3] = (struct recorded_arg){.kind = RECORDED_INT, .i = 5};
    o->cx[0] = (struct plan_constexpr){.name = "BLOCK", .value = 8};
}

static void expect_refused(const struct problem *p, struct one *o, const char *text)
{
    struct plan *pl = calloc(1, sizeof(*pl));
    char *cause = NULL;
    int rc = recorded_plan_build(p, &o->rp, &p->tests[0], pl, &cause);

    CHECK_MSG(rc != BW_OK && cause && strstr(cause, text), "wanted \"%s\", got rc %d: %s", text, rc,
              cause ? cause : "(none)");
    free(cause);
    free(pl);
}

TEST(recorded_plan_checks_every_launch)
{
    struct problem *p = rows_problem();
    struct plan *pl = calloc(1, sizeof(*pl));
    struct recorded_launch nine[BW_MAX_LAUNCHES + 1];
    struct one o;
    char *cause = NULL;

    if (!p || !pl)
        goto out;
    one_init(&o);
    CHECK_INT_EQ(recorded_plan_build(p, &o.rp, &p->tests[0], pl, &cause), BW_OK);
    CHECK_INT_EQ(pl->n_launches, 1);
    CHECK(pl->launches[0].args[0].kind == PLAN_ARG_BUF && pl->launches[0].args[0].offset == 5);
    CHECK(pl->launches[0].block[0] == 128 && pl->launches[0].n_constexprs == 1);
    CHECK(pl->launches[0].args[3].kind == PLAN_ARG_I64 && pl->launches[0].args[3].i == 5);

    one_init(&o);
    o.args[0].buf = "Z";
    expect_refused(p, &o, "neither a tensor of the problem nor a buffer solve made");
    one_init(&o);
    o.args[0].offset = 6; /* 6 + 10 > 15 */
    expect_refused(p, &o, "outside its 15 elements");
    one_init(&o);
    o.args[1].offset = 6; /* W has 5 */
    o.args[1].span = 0;
    expect_refused(p, &o, "outside its 5 elements");
    one_init(&o);
    o.L.grid[0] = 0;
    expect_refused(p, &o, "outside the GPU's limits");
    one_init(&o);
    o.L.grid[1] = 65536;
    expect_refused(p, &o, "outside the GPU's limits");
    one_init(&o);
    o.L.num_warps = 3;
    expect_refused(p, &o, "num_warps=3");
    one_init(&o);
    o.L.num_stages = 0;
    expect_refused(p, &o, "num_stages=0");
    one_init(&o);
    o.L.maxnreg = 300;
    expect_refused(p, &o, "maxnreg=300");
    one_init(&o);
    o.rp.scratch[0] = (struct recorded_scratch){"tmp1", DTYPE_FP32, 80, 4}; /* 320 > 316 */
    o.rp.n_scratch = 1;
    expect_refused(p, &o, "cap of 316 bytes");
    one_init(&o);
    o.rp.scratch[0] = (struct recorded_scratch){"X", DTYPE_FP32, 4, 4};
    o.rp.n_scratch = 1;
    expect_refused(p, &o, "the name of another buffer");
    one_init(&o);
    o.cx[0] = (struct plan_constexpr){.name = "ACT", .kind = CONSTEXPR_STR, .s = "a'b"};
    expect_refused(p, &o, "malformed");
    one_init(&o);
    o.rp.n_launches = 0;
    expect_refused(p, &o, "launched no kernel");
    one_init(&o);
    for (size_t l = 0; l <= BW_MAX_LAUNCHES; l++)
        nine[l] = o.L;
    o.rp.launches = nine;
    o.rp.n_launches = BW_MAX_LAUNCHES + 1;
    expect_refused(p, &o, "more than 8 kernels");
    one_init(&o);
    o.rp.present = false;
    expect_refused(p, &o, "was not recorded");
    /* scratch within the cap is a buffer of the plan, named by arguments */
    one_init(&o);
    o.rp.scratch[0] = (struct recorded_scratch){"tmp1", DTYPE_INT32, 79, 4};
    o.rp.n_scratch = 1;
    o.args[2] = (struct recorded_arg){.kind = RECORDED_BUF, .buf = "tmp1", .offset = 78, .span = 1};
    CHECK_INT_EQ(recorded_plan_build(p, &o.rp, &p->tests[0], pl, &cause), BW_OK);
    CHECK(pl->n_buffers == 4 && pl->buffers[3].role == PLAN_SCRATCH);
    CHECK(pl->launches[0].args[2].buf == 3 && pl->launches[0].args[2].offset == 78);
out:
    free(cause);
    free(pl);
    problem_free(p);
}

/* ---- variant keys (pure) ----------------------------------------------------------- */

TEST(variant_keys_are_the_recorders)
{
    struct problem *p = rows_problem();
    struct plan *pl = calloc(1, sizeof(*pl));
    struct triton_variant v;
    struct one o;
    char key[512], *cause = NULL;

    if (!p || !pl)
        goto out;
    one_init(&o);
    o.args[3].i = 1;
    o.cx[1] = (struct plan_constexpr){.name = "ACT", .kind = CONSTEXPR_STR, .s = ""};
    o.L.n_constexprs = 2;
    CHECK_INT_EQ(recorded_plan_build(p, &o.rp, &p->benchmarks[0], pl, &cause), BW_OK);
    triton_variant_of(pl, 0, &v);
    CHECK(triton_variant_key(&v, key, sizeof(key)));
    /* X + 5 floats: 20 bytes, not 16-byte aligned; W and Y at their start; 1 folded (a
     * benchmark shape's launch: specialised as at home) */
    CHECK_STR_EQ(key, "k(*fp32:-,*fp16:D,*fp32:D,i32:1)[BLOCK=8,ACT='']{4,3,0}");
    CHECK_INT_EQ(recorded_plan_build(p, &o.rp, &p->tests[0], pl, &cause), BW_OK);
    triton_variant_of(pl, 0, &v);
    CHECK(triton_variant_key(&v, key, sizeof(key)));
    CHECK_STR_EQ(key, "k(*fp32:-,*fp16:D,*fp32:D,i32:-)[BLOCK=8,ACT='']{4,3,0}"); /* a test's */
    one_init(&o);
    o.args[0].offset = 4;
    o.args[3] = (struct recorded_arg){.kind = RECORDED_INT, .i = 1LL << 33};
    o.cx[0] = (struct plan_constexpr){.name = "EPS", .kind = CONSTEXPR_FLOAT, .f = 0.5};
    o.cx[1] = (struct plan_constexpr){.name = "EVEN", .kind = CONSTEXPR_BOOL, .value = 0};
    o.L.n_constexprs = 2;
    o.L.maxnreg = 128;
    CHECK_INT_EQ(recorded_plan_build(p, &o.rp, &p->benchmarks[0], pl, &cause), BW_OK);
    triton_variant_of(pl, 0, &v);
    CHECK(triton_variant_key(&v, key, sizeof(key)));
    CHECK_STR_EQ(key, "k(*fp32:D,*fp16:D,*fp32:D,i64:D)[EPS=0.5,EVEN=False]{4,3,128}");
    CHECK_INT_EQ(recorded_plan_build(p, &o.rp, &p->tests[0], pl, &cause), BW_OK);
    triton_variant_of(pl, 0, &v);
    CHECK(triton_variant_key(&v, key, sizeof(key)));
    CHECK_STR_EQ(key, "k(*fp32:D,*fp16:D,*fp32:D,i64:-)[EPS=0.5,EVEN=False]{4,3,128}");
    one_init(&o);
    o.args[3] = (struct recorded_arg){.kind = RECORDED_FLOAT, .f = 2.0};
    o.cx[0] = (struct plan_constexpr){.name = "ONE", .kind = CONSTEXPR_FLOAT, .f = 1.0};
    o.cx[1] = (struct plan_constexpr){.name = "NOTHING", .kind = CONSTEXPR_NONE};
    o.L.n_constexprs = 2;
    CHECK_INT_EQ(recorded_plan_build(p, &o.rp, &p->tests[0], pl, &cause), BW_OK);
    triton_variant_of(pl, 0, &v);
    CHECK(triton_variant_key(&v, key, sizeof(key)));
    CHECK_STR_EQ(key, "k(*fp32:-,*fp16:D,*fp32:D,fp32:-)[ONE=1.0,NOTHING=None]{4,3,0}");
    CHECK(!triton_variant_key(&v, key, 10)); /* does not fit: said, not cut silently */
out:
    free(cause);
    free(pl);
    problem_free(p);
}

/* ---- the form of a source (pure) --------------------------------------------------- */

TEST(launcher_form_finds_solve_directives_kernels)
{
    static const char both[] = "# @launch k grid=(1) args=()\nimport triton\n\n"
                               "@triton.autotune(configs=[], key=[])\n@triton.jit\n"
                               "def k(x):\n    pass\n\ndef solve(A):\n    k[(1,)](A)\n";
    static const char inner[] = "def helper():\n    def solve(x):\n        pass\n"
                                "@gluon.jit(do_not_specialize=[0])\ndef g(x):\n    pass\n";
    struct launcher_form f;

    launcher_form_scan(both, strlen(both), &f);
    CHECK(f.solve_line == 9 && f.directive_line == 1 && f.kernel_line == 6);
    CHECK_STR_EQ(f.kernel, "k");
    launcher_form_scan(inner, strlen(inner), &f);
    CHECK(f.solve_line == 0 && f.directive_line == 0 && f.kernel_line == 5);
    CHECK_STR_EQ(f.kernel, "g");
}

/* ---- through the sandbox: golden files ------------------------------------------------ */

static int py_filter(const struct dirent *e)
{
    size_t n = strlen(e->d_name);
    return n > 3 && strcmp(e->d_name + n - 3, ".py") == 0;
}

/* Records src for the problem its header names (default launcher-rows) into got. */
static void record_into(const char *src, size_t len, struct buf *got)
{
    char dir[256] = ROWS, *cause = NULL;
    struct diag_list diags = {0};
    struct program pg = {0};
    struct problem *p;
    int rc;

    header(src, "problem", dir, sizeof(dir));
    if (!(p = problem_load(dir, &cause))) {
        buf_addf(got, "cannot load %s: %s\n", dir, cause ? cause : "?");
        free(cause);
        return;
    }
    rc = run_launcher(p, src, len, true, &pg, &diags, &cause);
    render(&pg, rc, cause, &diags, got);
    program_release(&pg);
    diag_list_release(&diags);
    free(cause);
    problem_free(p);
}

TEST(golden_launchers)
{
    struct dirent **names;
    bool update = getenv("BW_UPDATE_GOLDEN") != NULL;
    int n, checked = 0;

    NEED_TRITON();
    if (fake_python_real())
        SKIP("the golden files hold the fake triton's specialisation and register counts");
    n = scandir(GOLDEN_DIR, &names, py_filter, alphasort);
    CHECK_MSG(n >= 30, "expected at least 30 golden launchers in %s, found %d", GOLDEN_DIR, n);
    for (int i = 0; i < n; i++) {
        char *py = path_join(GOLDEN_DIR, names[i]->d_name), *expected = NULL, *src = NULL;
        char *want = NULL, *cause = NULL;
        size_t len, base = strlen(names[i]->d_name) - 3;
        struct buf got;

        buf_init(&got, 1 << 22);
        if (asprintf(&expected, "%s/%.*s.expected", GOLDEN_DIR, (int)base, names[i]->d_name) < 0)
            expected = NULL;
        if (!py || !expected || read_file(py, 1 << 20, &src, &len, &cause) != BW_OK) {
            CHECK_MSG(false, "cannot read %s: %s", names[i]->d_name, cause ? cause : "?");
            goto next;
        }
        record_into(src, len, &got);
        if (update) {
            CHECK(write_file_atomic(expected, got.data ? got.data : "", got.len, NULL) == BW_OK);
        } else if (read_file(expected, 1 << 22, &want, &len, &cause) != BW_OK) {
            CHECK_MSG(false, "%s: %s", py, cause);
        } else {
            CHECK_MSG(strcmp(want, got.data ? got.data : "") == 0,
                      "%s: the recording differs\n--- expected\n%s--- got\n%s", py, want,
                      got.data ? got.data : "");
            checked++;
        }
    next:
        buf_release(&got);
        free(want);
        free(src);
        free(cause);
        free(expected);
        free(py);
        free(names[i]);
    }
    if (n >= 0)
        free(names);
    if (update)
        SKIP("golden files rewritten");
    CHECK_INT_EQ(checked, n);
}

/* ---- through the sandbox: a whole compile ---------------------------------------------- */

static const char autotuned[] =
    "import torch\n"
    "import triton\n"
    "import triton.language as tl\n"
    "\n"
    "\n"
    "@triton.autotune(configs=[triton.Config({'BLOCK': 64}, num_warps=4),\n"
    "                          triton.Config({'BLOCK': 128}, num_warps=8, num_stages=2)],\n"
    "                 key=['N'])\n"
    "@triton.heuristics({'EVEN': lambda args: args['N'] % args['BLOCK'] == 0})\n"
    "@triton.jit\n"
    "def rows(x, w, y, alpha, N, BLOCK: tl.constexpr, EVEN: tl.constexpr):\n"
    "    m = tl.program_id(0)\n"
    "    offs = tl.program_id(1) * BLOCK + tl.arange(0, BLOCK)\n"
    "    mask = offs < N\n"
    "    v = alpha * tl.load(x + m * N + offs, mask=mask) + tl.load(w + offs, mask=mask)\n"
    "    tl.store(y + m * N + offs, v, mask=mask)\n"
    "\n"
    "\n"
    "def solve(X, W, Y, alpha, M, N):\n"
    "    rows[lambda meta: (M, triton.cdiv(N, meta['BLOCK']))](X, W, Y, alpha, N)\n";

TEST(launcher_compiles_every_configuration)
{
    struct problem *p = rows_problem();
    struct diag_list diags = {0};
    struct program pg = {0};
    char *cause = NULL;
    int rc;

    NEED_TRITON();
    if (!p)
        return;
    rc = run_launcher(p, autotuned, strlen(autotuned), false, &pg, &diags, &cause);
    CHECK_MSG(rc == BW_OK, "rc %d: %s", rc, cause ? cause : "");
    if (rc == BW_OK) {
        const struct triton_program *tp = &pg.triton;
        CHECK_INT_EQ(pg.n_configs, 2);
        CHECK_MSG(pg.builds[0].ok && pg.builds[1].ok, "builds: %s",
                  pg.builds[0].failure ? pg.builds[0].failure : "?");
        CHECK_INT_EQ(tp->variants.n_configs, 2);
        /* per configuration, the tests': N = 5 (EVEN False), N = 128 (EVEN True), integers
         * unspecialised; the benchmark's: N = 4096 (EVEN True, divisible by 16): 3 + 3 */
        CHECK_INT_EQ(tp->variants.configs[0].n_variants, 3);
        CHECK_INT_EQ(tp->variants.n_builds, 6);
        CHECK_INT_EQ(tp->result.n_builds, 6);
        for (size_t i = 0; i < tp->result.n_builds; i++)
            CHECK(tp->result.builds[i].ok && tp->result.builds[i].cubin_len > 64);
        CHECK_INT_EQ(tp->result.builds[3].num_warps, 8);
        for (size_t c = 0; c < 2; c++) {
            struct plan pl;
            for (size_t k = 0; k < 3; k++) {
                const struct problem_case *pc = k < 2 ? &p->tests[k] : &p->benchmarks[0];
                CHECK(program_plan(&pg, c, pc, &pl, NULL) == BW_OK &&
                      triton_program_build_of(tp, c, &pl, 0) >= (int)tp->variants.configs[c].first);
            }
        }
        printf("  2 configurations x 3 cases: %zu builds, recorded in %.1f ms, compiled in %.0f "
               "ms (driver %.0f ms)\n",
               tp->result.n_builds, pg.rec.record_ms, tp->result.ms, tp->result.driver_ms);
    }
    program_release(&pg);
    diag_list_release(&diags);
    free(cause);
    problem_free(p);
}

/* What recording costs per case: vector-add's 39 test cases and 2 benchmarks, one configuration. */
TEST(recording_cost_per_case)
{
    static const char src[] = "import triton\nimport triton.language as tl\n\n\n@triton.jit\n"
                              "def add(x, y, out, n, BLOCK: tl.constexpr):\n    pass\n\n\n"
                              "def solve(x, y, out, N):\n"
                              "    add[(triton.cdiv(N, 1024),)](x, y, out, N, BLOCK=1024)\n";
    char *cause = NULL;
    struct problem *p;
    struct diag_list diags = {0};
    struct program pg = {0};
    int rc;

    NEED_TRITON();
    if (!(p = problem_load("problems/vector-add", &cause))) {
        CHECK_MSG(false, "vector-add: %s", cause);
        free(cause);
        return;
    }
    rc = run_launcher(p, src, strlen(src), true, &pg, &diags, &cause);
    CHECK_MSG(rc == BW_OK && pg.builds[0].ok, "rc %d: %s", rc, cause ? cause : "");
    if (rc == BW_OK) {
        size_t cases = p->n_tests + p->n_benchmarks;
        printf("  recorded %zu cases in %.1f ms: %.2f ms a case (a fork each, %d at once at most), "
               "the whole request %.0f ms\n",
               cases, pg.rec.record_ms, pg.rec.record_ms / (double)cases, BW_TRITON_JOBS,
               pg.triton.result.ms);
    }
    program_release(&pg);
    diag_list_release(&diags);
    free(cause);
    problem_free(p);
}

/* ---- through the sandbox: hostile launchers ---------------------------------------------- */

/* The hostile corpus's own key: "case-ms: N", one case's recording budget (default 2000). */
static bool own_key(const char *line, void *ctx)
{
    char v[32];
    int64_t ms;

    if (hostile_value(line, "case-ms", v, sizeof(v)))
        return parse_i64(v, &ms) && ms > 0 && ms < 60000 && (*(int *)ctx = (int)ms, true);
    return true;
}

#define CANARY_FILE "/tmp/bw-triton-secret-canary.txt"

TEST(hostile_launchers)
{
    struct dirent **names;
    int n;

    NEED_TRITON();
    n = scandir(HOSTILE_DIR, &names, py_filter, alphasort);
    CHECK_MSG(n >= 10, "expected at least 10 hostile launchers in %s, found %d", HOSTILE_DIR, n);
    setenv("BW_TRITON_CANARY", CANARY, 1);
    CHECK(write_file_atomic(CANARY_FILE, CANARY "\n", strlen(CANARY) + 1, NULL) == BW_OK);
    for (int i = 0; i < n; i++) {
        char *path = path_join(HOSTILE_DIR, names[i]->d_name), *src = NULL, *cause = NULL;
        char dir[256] = ROWS, real_ok[16] = "";
        int case_ms = 2000;
        struct hostile_header h;
        struct diag_list diags = {0};
        struct program pg = {0};
        struct problem *p = NULL;
        size_t len;
        int rc;

        if (!path || read_file(path, 1 << 20, &src, &len, &cause) != BW_OK ||
            !hostile_header_parse(src, "# ", &h, own_key, &case_ms)) {
            CHECK_MSG(false, "%s: cannot read its header", names[i]->d_name);
            goto next;
        }
        if (fake_python_real() && header(src, "real", real_ok, sizeof(real_ok)) &&
            strcmp(real_ok, "skip") == 0)
            goto next;
        header(src, "problem", dir, sizeof(dir));
        if (!(p = problem_load(dir, &cause))) {
            CHECK_MSG(false, "%s: %s", names[i]->d_name, cause);
            goto next;
        }
        double t0 = now_ms();
        rc = run_launcher_for(p, src, len, false, case_ms, &pg, &diags, &cause);
        double ms = now_ms() - t0;
        CHECK_MSG(rc == BW_OK || rc == BW_ERR_INVALID, "%s: a judge error %d: %s", names[i]->d_name,
                  rc, cause ? cause : "");
        if (rc == BW_OK || rc == BW_ERR_INVALID) {
            const struct triton_result *r = &pg.triton.result;
            size_t errors = 0;
            const struct diag_list *d = rc == BW_OK ? &r->diags : &diags;
            for (size_t k = 0; k < d->n; k++)
                errors +=
                    strncmp(d->items[k].msg, "error: ", 7) == 0 || !strchr(d->items[k].msg, ':');
            struct hostile_result view = {.ok = rc == BW_OK && pg.builds && pg.builds[0].ok,
                                          .failure = rc == BW_OK ? r->failure : NULL,
                                          .log = rc == BW_OK ? r->log : NULL,
                                          .diags = d,
                                          .errors = rc == BW_OK ? errors : d->n,
                                          .ms = ms};
            hostile_check(&h, names[i]->d_name, "a recorded, compiled launcher", CANARY, &view);
            printf("  %-28s %-14s %7.0f ms  %s%d:%d %s\n", names[i]->d_name,
                   view.ok        ? "ok"
                   : view.failure ? "failure"
                                  : "compile error",
                   ms, view.failure ? view.failure : "", d->n ? d->items[0].line : 0,
                   d->n ? d->items[0].column : 0, d->n ? d->items[0].msg : "");
        }
    next:
        program_release(&pg);
        diag_list_release(&diags);
        problem_free(p);
        free(src);
        free(cause);
        free(path);
        free(names[i]);
    }
    if (n >= 0)
        free(names);
}

/* ---- through the sandbox: the build cache ---------------------------------------------------- */

/* Parses and compiles launcher `src` for p with build cache c (NULL: none) into *pg; true when
 * every configuration built. */
/* A Submit's builds (tests_only: a Run's) of src, through cache c; false, said, when any
 * configuration fails. */
static bool compile_for(const struct problem *p, const char *src, struct build_cache *c,
                        bool tests_only, struct program *pg)
{
    struct program_target t = {.cache = c, .tests_only = tests_only};
    struct diag_list diags = {0};
    char *cause = NULL;
    int rc = program_parse(pg, p, LANG_TRITON, src, strlen(src), PLAN_SUBMISSION, &diags);

    if (rc == BW_OK)
        rc = program_compile(pg, &t, src, strlen(src), "submission.py", &cause);
    CHECK_MSG(rc == BW_OK, "rc %d: %s %s", rc, cause ? cause : "",
              diags.n ? diags.items[0].msg : "");
    free(cause);
    diag_list_release(&diags);
    for (size_t k = 0; rc == BW_OK && k < pg->n_configs; k++)
        if (!pg->builds[k].ok) {
            CHECK_MSG(false, "configuration %zu: %s %s", k,
                      pg->builds[k].failure ? pg->builds[k].failure : "",
                      pg->triton.result.diags.n ? pg->triton.result.diags.items[0].msg : "");
            return false;
        }
    return rc == BW_OK;
}

static bool compile_with(const struct problem *p, const char *src, struct build_cache *c,
                         struct program *pg)
{
    return compile_for(p, src, c, false, pg);
}

/* src with the first `from` replaced by `to` (*new*). */
static char *edited(const char *src, const char *from, const char *to)
{
    const char *at = strstr(src, from);
    char *out = NULL;

    CHECK_MSG(at != NULL, "no \"%s\" to edit", from);
    if (!at || asprintf(&out, "%.*s%s%s", (int)(at - src), src, to, at + strlen(from)) < 0)
        return strdup(src);
    return out;
}

/* The builds of two programs are the same bytes, build by build. */
static bool same_builds(const struct program *a, const struct program *b)
{
    const struct triton_result *x = &a->triton.result, *y = &b->triton.result;

    if (x->n_builds != y->n_builds)
        return false;
    for (size_t g = 0; g < x->n_builds; g++)
        if (!x->builds[g].ok || !y->builds[g].ok ||
            x->builds[g].cubin_len != y->builds[g].cubin_len ||
            memcmp(x->builds[g].cubin, y->builds[g].cubin, x->builds[g].cubin_len) != 0)
            return false;
    return true;
}

static const char cached_rows[] =
    "import triton\n"
    "import triton.language as tl\n"
    "\n"
    "\n"
    "@triton.jit\n"
    "def rows(x, w, y, alpha, N, BLOCK: tl.constexpr):\n"
    "    m = tl.program_id(0)\n"
    "    offs = tl.program_id(1) * BLOCK + tl.arange(0, BLOCK)\n"
    "    tl.store(y + m * N + offs, alpha * tl.load(x + m * N + offs), mask=offs < N)\n"
    "\n"
    "\n"
    "def block_of(N):\n"
    "    return 64 if N < 100 else 128\n"
    "\n"
    "\n"
    "def solve(X, W, Y, alpha, M, N):\n"
    "    rows[(M, triton.cdiv(N, block_of(N)))](X, W, Y, alpha, N, BLOCK=block_of(N))\n";

/* Issue 27's promise, for launchers: an edit of the launch code alone compiles nothing. */
TEST(launcher_builds_cached_across_launch_code_edits)
{
    NEED_TRITON();
    struct problem *p = rows_problem();
    struct build_cache *c = build_cache_new();
    struct program first = {0}, pg = {0};
    char *grid =
        edited(cached_rows, "triton.cdiv(N, block_of(N))", "(N + block_of(N) - 1) // block_of(N)");
    char *arg = edited(cached_rows, "(X, W, Y, alpha, N,", "(X[:, :], W, Y, alpha * 2.0, N,");
    char *helper = edited(cached_rows, "else 128", "else 256");
    char *kernel =
        edited(cached_rows, "    m = tl.program_id(0)\n", "    m = tl.program_id(0) + 0\n");

    NEED_TRITON();
    if (!p || !c)
        goto out;
    /* A Run builds the tests' variants: N = 5 (BLOCK 64) and N = 128 (BLOCK 128), integers
     * unspecialised. */
    if (compile_for(p, cached_rows, c, true, &pg)) {
        CHECK_MSG(pg.triton.n_compiled == 2 && pg.triton.n_cached == 0, "%zu compiled, %zu cached",
                  pg.triton.n_compiled, pg.triton.n_cached);
        printf("  a first Run: %zu builds compiled in %.0f ms\n", pg.triton.n_compiled,
               pg.triton.result.ms);
    }
    program_release(&pg);
    /* A Submit of the same file adds the benchmark's, N = 4096 (BLOCK 128, divisible by 16). */
    if (compile_with(p, cached_rows, c, &first))
        CHECK_MSG(first.triton.n_compiled == 1 && first.triton.n_cached == 2,
                  "%zu compiled, %zu cached", first.triton.n_compiled, first.triton.n_cached);
    if (compile_with(p, grid, c, &pg)) { /* the grid: solve's */
        CHECK_MSG(pg.triton.n_compiled == 0 && pg.triton.n_cached == 3, "%zu compiled, %zu cached",
                  pg.triton.n_compiled, pg.triton.n_cached);
        CHECK(same_builds(&first, &pg) && pg.triton.from_cache);
        printf("  the grid edited: 0 compiled, 3 from the cache, in %.0f ms\n",
               pg.triton.result.ms);
    }
    program_release(&pg);
    if (compile_with(p, arg, c, &pg)) /* arguments that are not tl.constexpr: views, a scalar */
        CHECK_MSG(pg.triton.n_compiled == 0 && pg.triton.n_cached == 3, "%zu compiled, %zu cached",
                  pg.triton.n_compiled, pg.triton.n_cached);
    program_release(&pg);
    if (compile_with(p, helper, c, &pg)) /* a helper only solve calls: a new BLOCK for N >= 100 */
        CHECK_MSG(pg.triton.n_compiled == 2 && pg.triton.n_cached == 1, "%zu compiled, %zu cached",
                  pg.triton.n_compiled, pg.triton.n_cached);
    program_release(&pg);
    if (compile_with(p, kernel, c, &pg)) /* the kernel: the module's key changes, all compile */
        CHECK_MSG(pg.triton.n_compiled == 3 && pg.triton.n_cached == 0, "%zu compiled, %zu cached",
                  pg.triton.n_compiled, pg.triton.n_cached);
out:
    program_release(&pg);
    program_release(&first);
    free(grid);
    free(arg);
    free(helper);
    free(kernel);
    build_cache_free(c);
    problem_free(p);
}

/* X.stride(1) is 1 in every case: the tests' build folds it, as Triton folds it at home (a
 * tensor descriptor's last stride compiles only as the constant). */
static const char unit_stride[] =
    "import triton\n"
    "import triton.language as tl\n"
    "\n"
    "\n"
    "@triton.jit\n"
    "def rows(x, w, y, alpha, N, sx, BLOCK: tl.constexpr):\n"
    "    m = tl.program_id(0)\n"
    "    offs = tl.program_id(1) * BLOCK + tl.arange(0, BLOCK)\n"
    "    tl.store(y + m * N + offs, alpha * tl.load(x + m * N + offs * sx), mask=offs < N)\n"
    "\n"
    "\n"
    "def solve(X, W, Y, alpha, M, N):\n"
    "    rows[(M, triton.cdiv(N, 64))](X, W, Y, alpha, N, X.stride(1), BLOCK=64)\n";

TEST(launcher_test_builds_fold_what_every_test_case_passes_as_1)
{
    NEED_TRITON();
    struct problem *p = rows_problem();
    struct build_cache *c = build_cache_new();
    struct program pg = {0};
    char key[4096];

    if (!p || !c)
        goto out;
    /* A Run: N = 5 and 128 share one build; sx = 1 in both, folded; N is a value. The
     * recorder's key and the judge's agree, or the layout would find no build. */
    if (compile_for(p, unit_stride, c, true, &pg)) {
        const struct triton_variant *v = &pg.triton.variants.configs[0].variants[0];
        CHECK_MSG(pg.triton.n_compiled == 1, "%zu compiled", pg.triton.n_compiled);
        CHECK(triton_variant_key(v, key, sizeof(key)));
        CHECK_STR_EQ(key, "rows(*fp32:D,*fp16:D,*fp32:D,fp32:-,i32:-,i32:1)[BLOCK=64]{4,3,0}");
        CHECK_INT_EQ(pg.triton.result.builds[0].n_params, 5); /* sx is the constant */
    }
    program_release(&pg);
    /* A Submit adds the benchmark's (N = 4096: divisible by 16; sx folded there too). */
    if (compile_with(p, unit_stride, c, &pg)) {
        CHECK_MSG(pg.triton.n_compiled == 1 && pg.triton.n_cached == 1, "%zu compiled, %zu cached",
                  pg.triton.n_compiled, pg.triton.n_cached);
        CHECK(triton_variant_key(&pg.triton.variants.configs[0].variants[1], key, sizeof(key)));
        CHECK_STR_EQ(key, "rows(*fp32:D,*fp16:D,*fp32:D,fp32:-,i32:D,i32:1)[BLOCK=64]{4,3,0}");
    }
out:
    program_release(&pg);
    build_cache_free(c);
    problem_free(p);
}

/* The value of global G the fake triton baked into build g ("G": V in its record), or -1. */
static int baked_g(const struct program *pg, size_t g)
{
    const struct triton_build *b = &pg->triton.result.builds[g];
    const char *at = b->ok ? memmem(b->cubin, b->cubin_len, "\"G\": ", 5) : NULL;

    return at ? at[5] - '0' : -1;
}

/* A module that reads its own file at import: the compile imports the keyed text, so the
 * marker in solve is not there, whoever's module it is. */
static const char reads_itself[] = "import triton\n"
                                   "import triton.language as tl\n"
                                   "\n"
                                   "G = 1 if 'learner-' + 'a' in open(__file__).read() else 2\n"
                                   "\n"
                                   "\n"
                                   "@triton.jit\n"
                                   "def rows(x, w, y, alpha, N, BLOCK: tl.constexpr):\n"
                                   "    offs = tl.arange(0, BLOCK)\n"
                                   "    tl.store(y + offs, G * tl.load(x + offs))\n"
                                   "\n"
                                   "\n"
                                   "def solve(X, W, Y, alpha, M, N):\n"
                                   "    LEARNER\n"
                                   "    rows[(M,)](X, W, Y, alpha, N, BLOCK=16)\n";

TEST(launcher_cache_isolates_learners)
{
    NEED_TRITON();
    if (fake_python_real()) /* Triton refuses a plain global in a kernel: G is the fake's */
        SKIP("the fake triton's cubin says the globals it baked in; the real one's does not");
    struct problem *p = rows_problem();
    struct build_cache *shared = build_cache_new(), *own = build_cache_new();
    struct program a = {0}, b = {0}, alone = {0};
    char *src_a = edited(reads_itself, "LEARNER", "print('learner-a')");
    char *src_b = edited(reads_itself, "LEARNER", "grid = (M,)  # another learner's solve");

    if (!p || !shared || !own)
        goto out;
    /* the tests' (N = 5 and 128, unspecialised) and the benchmark's (N = 4096, divisible by 16) */
    if (compile_with(p, src_a, shared, &a)) {
        CHECK_INT_EQ(a.triton.n_compiled, 2);
        CHECK_MSG(baked_g(&a, 0) == 2 && baked_g(&a, 1) == 2,
                  "G = %d: the compile read the whole file", baked_g(&a, 0));
    }
    if (compile_with(p, src_b, shared, &b)) { /* the same keyed text: A's builds serve B */
        CHECK(b.triton.n_compiled == 0 && b.triton.n_cached == 2);
        CHECK(same_builds(&a, &b));
    }
    if (compile_with(p, src_b, own, &alone)) /* and they are the builds B's own module gives */
        CHECK(alone.triton.n_compiled == 2 && same_builds(&a, &alone) && baked_g(&alone, 0) == 2);
out:
    program_release(&a);
    program_release(&b);
    program_release(&alone);
    free(src_a);
    free(src_b);
    build_cache_free(shared);
    build_cache_free(own);
    problem_free(p);
}

/* A process solve leaves behind, free of its case's process group, that rewrites every copy of
 * the module it finds: killed before the compile starts, and the compile's files are new. */
static const char survivor[] =
    "import glob\n"
    "import os\n"
    "import time\n"
    "import triton\n"
    "import triton.language as tl\n"
    "\n"
    "time.sleep(0.5)  # a survivor has time to strike while the module is imported\n"
    "G = 3 if 'poi' + 'soned' in open(__file__).read() else 2\n"
    "\n"
    "\n"
    "@triton.jit\n"
    "def rows(x, w, y, alpha, N, BLOCK: tl.constexpr):\n"
    "    offs = tl.arange(0, BLOCK)\n"
    "    tl.store(y + offs, G * tl.load(x + offs))\n"
    "\n"
    "\n"
    "def solve(X, W, Y, alpha, M, N):\n"
    "    if os.fork() == 0:\n"
    "        os.setsid()\n"
    "        if os.fork() == 0:\n"
    "            end = time.time() + 30\n"
    "            while time.time() < end:\n"
    "                for path in glob.glob('/tmp/**/submission.py', recursive=True):\n"
    "                    try:\n"
    "                        with open(path, 'a') as f:\n"
    "                            f.write('# poisoned\\n')\n"
    "                    except OSError:\n"
    "                        pass\n"
    "                time.sleep(0.002)\n"
    "        os._exit(0)\n"
    "    rows[(M,)](X, W, Y, alpha, N, BLOCK=16)\n";

TEST(launcher_survivors_cannot_reach_the_compile)
{
    NEED_TRITON();
    if (fake_python_real())
        SKIP("the fake triton's cubin says the globals it baked in; the real one's does not");
    struct problem *p = rows_problem();
    struct program pg = {0};

    if (p && compile_with(p, survivor, NULL, &pg))
        CHECK_MSG(baked_g(&pg, 0) == 2, "G = %d: a process of the recording reached the compile",
                  baked_g(&pg, 0));
    program_release(&pg);
    problem_free(p);
}

/* ---- the fuzz corpus of a launcher's answer ------------------------------------------------ */

#include "tests/fuzz/fuzz_launcher.c"

TEST(fuzz_launcher_corpus)
{
    const char *dir = "tests/fuzz/corpus/launcher";
    struct dirent **names;
    int n = scandir(dir, &names, NULL, alphasort), replayed = 0;

    for (int i = 0; i < n; i++) {
        char *path = NULL, *data = NULL, *cause = NULL;
        size_t len;
        if (names[i]->d_name[0] != '.' && (path = path_join(dir, names[i]->d_name)) &&
            read_file(path, 1 << 20, &data, &len, &cause) == BW_OK) {
            CHECK_MSG(fuzz_launcher_one((const uint8_t *)data, len) == 0,
                      "%s violates a fuzz property", path);
            replayed++;
        }
        free(path);
        free(data);
        free(cause);
        free(names[i]);
    }
    if (n >= 0)
        free(names);
    CHECK_MSG(replayed >= 7, "replayed %d inputs of %s", replayed, dir);
}
