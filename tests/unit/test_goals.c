/*
 * Tests of the learning goals without a GPU: the SASS scan on nvdisasm and
 * cuobjdump listings, the disassembler's child process (with a stand-in tool
 * that shows its arguments, limits and failures), real NVRTC cubins of a
 * float4 and a scalar copy (when a disassembler is installed), each goal's
 * evaluation from synthetic measurements, and the JSON and report forms of
 * the outcomes. The loader's checks of "goals" are in test_problem.c
 * (tests/golden/problems/bad-goal-*); tests/gpu/goals.sh runs the goals of
 * tests/golden/problems/ok-goals for real.
 */
#include "tests/test.h"

#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <jansson.h>

#include "common/error.h"
#include "common/util.h"
#include "judge/worker/compile.h"
#include "judge/worker/goals.h"
#include "judge/worker/judge.h"
#include "judge/worker/report.h"
#include "judge/worker/sass.h"
#include "problem/problem.h"
#include "common/banned.h"

#define OK_GOALS "tests/golden/problems/ok-goals"

/* ---- listings --------------------------------------------------------------------------- */

/* nvdisasm's form: sections, data in address comments, predicates, a device function. */
static const char nvdisasm_listing[] =
    "\t.headerflags\t@\"EF_CUDA_TEXMODE_UNIFIED EF_CUDA_64BIT_ADDRESS EF_CUDA_SM90 "
    "EF_CUDA_VIRTUAL_SM(EF_CUDA_SM90)\"\n"
    "\t.elftype\t@\"ET_EXEC\"\n"
    "\n"
    "//--------------------- .debug_frame              --------------------------\n"
    "\t.section\t.debug_frame,\"\",@progbits\n"
    ".debug_frame:\n"
    "        /*0000*/ \t.byte\t0xff, 0xff, 0xff, 0xff, 0x24, 0x00, 0x00, 0x00\n"
    "//--------------------- .nv.info.copy4           --------------------------\n"
    "\t.section\t.nv.info.copy4,\"\",@\"SHT_CUDA_INFO\"\n"
    "\t.align\t4\n"
    "        /*0000*/ \t.byte\t0x04, 0x2f\n"
    "        /*0004*/ \t.word\tindex@(copy4)\n"
    "//--------------------- .text.copy4              --------------------------\n"
    "\t.section\t.text.copy4,\"ax\",@progbits\n"
    "\t.sectioninfo\t@\"SHI_REGISTERS=12\"\n"
    "\t.align\t128\n"
    "        .global         copy4\n"
    "        .type           copy4,@function\n"
    "        .other          copy4,@\"STO_CUDA_ENTRY STV_DEFAULT\"\n"
    "copy4:\n"
    ".text.copy4:\n"
    "        /*0000*/                   LDC R1, c[0x0][0x28] ;\n"
    "        /*0010*/                   S2R R0, SR_TID.X ;\n"
    "        /*0020*/                   ISETP.GE.AND P0, PT, R0, UR4, PT ;\n"
    "        /*0030*/               @P0 EXIT ;\n"
    "        /*0040*/                   LDG.E.128.CONSTANT R4, desc[UR4][R2.64] ;\n"
    "        /*0050*/               @!P1 STG.E.128 desc[UR4][R6.64], R4 ;\n"
    "        /*0060*/                   CALL.REL.NOINC `(helper) ;\n"
    "        /*0070*/                   EXIT ;\n"
    ".L_x_0:\n"
    "        /*0080*/                   BRA `(.L_x_0);\n"
    "        /*0090*/                   NOP;\n"
    "//--------------------- .text.unused             --------------------------\n"
    "\t.section\t.text.unused,\"ax\",@progbits\n"
    "        /*0000*/                   LDG.E.128 R4, desc[UR4][R2.64] ;\n"
    "        /*0010*/                   STG.E.128 desc[UR4][R6.64], R4 ;\n"
    "        /*0020*/                   EXIT ;\n"
    "//--------------------- .text.helper             --------------------------\n"
    "\t.section\t.text.helper,\"ax\",@progbits\n"
    "        /*0000*/                   LDG.E.64 R2, desc[UR4][R8.64] ;\n"
    "        /*0010*/                   RET.REL.NODEC R20 `(copy4) ;\n";

/* cuobjdump --dump-sass's form: "Function :" headers, encodings in trailing comments. */
static const char cuobjdump_listing[] =
    "\n"
    "\tcode for sm_90a\n"
    "\t\tFunction : copy1\n"
    "\t.headerflags\t@\"EF_CUDA_TEXMODE_UNIFIED EF_CUDA_64BIT_ADDRESS EF_CUDA_SM90\"\n"
    "        /*0000*/                   LDC R1, c[0x0][0x28] ;        /* 0x00000a00ff017b82 */\n"
    "                                                                 /* 0x000fe40000000800 */\n"
    "        /*0010*/                   LDG.E R2, desc[UR4][R2.64] ;  /* 0x0000000402027981 */\n"
    "                                                                 /* 0x000ea2000c1e1900 */\n"
    "        /*0020*/                   STG.E desc[UR4][R4.64], R2 ;  /* 0x0000000204007986 */\n"
    "        /*0030*/                   EXIT ;                        /* 0x000000000000794d */\n"
    "\t\t..........\n"
    "\n"
    "\t\tFunction : copy4\n"
    "        /*0000*/                   LDG.E.128 R4, desc[UR4][R2.64] ;\n"
    "        /*0010*/                   STG.E.128 desc[UR4][R6.64], R4 ;\n";

TEST(sass_opcode_matching)
{
    CHECK(sass_opcode_matches("LDG.E.128", "LDG.E.128"));
    CHECK(sass_opcode_matches("LDG.E.128.CONSTANT", "LDG.E.128"));
    CHECK(sass_opcode_matches("LDG.E.EF.128.CONSTANT", "LDG.E.128"));
    CHECK(sass_opcode_matches("LDG.E.128", "LDG"));
    CHECK(sass_opcode_matches("HMMA.16816.F32", "HMMA"));
    CHECK(!sass_opcode_matches("LDG.E.64", "LDG.E.128"));
    CHECK(!sass_opcode_matches("LDG.E.128", "LDG.E.12"));
    CHECK(!sass_opcode_matches("LDGSTS.E.128", "LDG.E.128"));
    CHECK(!sass_opcode_matches("LDG.128.E", "LDG.E.128")); /* the order counts */
    CHECK(!sass_opcode_matches("LDG", "LDG.E"));
    CHECK(!sass_opcode_matches("STG.E.128", "LDG.E.128"));
    CHECK(!sass_opcode_matches("", "LDG"));
}

TEST(sass_scan_nvdisasm)
{
    const char *patterns[] = {"LDG.E.128", "STG.E.128", "LDG.E.64", "EXIT", "HMMA"};
    const char *entries[] = {"copy4", "unused"};
    const char *launched[] = {"copy4"};
    struct sass_scan scan = {.patterns = patterns,
                             .n_patterns = 5,
                             .kernels = launched,
                             .n_kernels = 1,
                             .entries = entries,
                             .n_entries = 2};
    char *cause = NULL;

    CHECK_INT_EQ(sass_scan(nvdisasm_listing, &scan, &cause), BW_OK);
    /* copy4 and the device function it calls count; the kernel nobody launches does not;
     * the .byte lines of .debug_frame and .nv.info are data */
    CHECK_INT_EQ(scan.matches[0], 1);
    CHECK_INT_EQ(scan.matches[1], 1); /* predicated */
    CHECK_INT_EQ(scan.matches[2], 1); /* in helper */
    CHECK_INT_EQ(scan.matches[3], 2); /* "@P0 EXIT" and "EXIT" */
    CHECK_INT_EQ(scan.matches[4], 0);
    CHECK_INT_EQ(scan.instructions, 12);
    CHECK_INT_EQ(scan.functions, 3);
    CHECK(scan.kernel_seen[0]);

    /* Without a kernel list every function counts. */
    scan.kernels = NULL;
    scan.n_kernels = 0;
    CHECK_INT_EQ(sass_scan(nvdisasm_listing, &scan, &cause), BW_OK);
    CHECK_INT_EQ(scan.matches[0], 2);
    CHECK_INT_EQ(scan.instructions, 15);

    /* A kernel that is not in the listing is not seen. */
    const char *missing[] = {"copy8"};
    scan.kernels = missing;
    scan.n_kernels = 1;
    CHECK_INT_EQ(sass_scan(nvdisasm_listing, &scan, &cause), BW_OK);
    CHECK(!scan.kernel_seen[0]);
    CHECK_INT_EQ(scan.matches[0], 0);
    CHECK_INT_EQ(scan.matches[2], 1); /* the device function still counts */
    free(cause);
}

TEST(sass_scan_cuobjdump)
{
    const char *patterns[] = {"LDG.E", "LDG.E.128", "STG.E.128"};
    const char *entries[] = {"copy1", "copy4"};
    const char *only1[] = {"copy1"};
    struct sass_scan scan = {.patterns = patterns,
                             .n_patterns = 3,
                             .kernels = only1,
                             .n_kernels = 1,
                             .entries = entries,
                             .n_entries = 2};
    char *cause = NULL;

    CHECK_INT_EQ(sass_scan(cuobjdump_listing, &scan, &cause), BW_OK);
    CHECK_INT_EQ(scan.instructions, 4); /* the encoding lines are not instructions */
    CHECK_INT_EQ(scan.matches[0], 1);
    CHECK_INT_EQ(scan.matches[1], 0);
    CHECK_INT_EQ(scan.matches[2], 0);
    CHECK_INT_EQ(scan.functions, 2);
    CHECK(scan.kernel_seen[0]);

    const char *only4[] = {"copy4"};
    scan.kernels = only4;
    CHECK_INT_EQ(sass_scan(cuobjdump_listing, &scan, &cause), BW_OK);
    CHECK_INT_EQ(scan.instructions, 2);
    CHECK_INT_EQ(scan.matches[0], 1); /* LDG.E matches LDG.E.128 too */
    CHECK_INT_EQ(scan.matches[1], 1);
    CHECK_INT_EQ(scan.matches[2], 1);

    /* Nothing to read: no instruction, no failure. */
    CHECK_INT_EQ(sass_scan("", &scan, &cause), BW_OK);
    CHECK_INT_EQ(scan.instructions, 0);
    scan.n_patterns = BW_MAX_GOAL_PATTERNS + 1;
    CHECK_INT_EQ(sass_scan("", &scan, &cause), BW_ERR_INVALID);
    free(cause);
}

/* ---- the disassembler's child process -------------------------------------------------- */

/* Writes an executable shell script standing in for the disassembler; a *new* path. */
static char *fake_tool(const char *dir, const char *name, const char *body)
{
    char *path = path_join(dir, name);
    FILE *f = fopen(path, "w");

    CHECK(f != NULL);
    if (f) {
        fprintf(f, "#!/bin/sh\n%s", body);
        fclose(f);
        chmod(path, 0755);
    }
    return path;
}

static void remove_tool(char *path)
{
    unlink(path);
    free(path);
}

TEST(sass_disassemble_child)
{
    char tmpl[] = "/tmp/bw-test-sass.XXXXXX", *dir = mkdtemp(tmpl), *cause = NULL, *listing;
    const char cubin[] = "0123456789abcdef0123"; /* 20 bytes: the tool only counts them */
    struct sass_tool tool = {0};
    bool truncated;
    char *path;
    int rc;

    CHECK(dir != NULL);
    if (!dir)
        return;

    /* The tool gets the cubin as a file, an empty environment and the limits. */
    path = fake_tool(dir, "nvdisasm",
                     "echo \"args: $#\"\n"
                     "echo \"file: $1\"\n"
                     "echo \"bytes: $(/usr/bin/wc -c < \"$1\")\"\n"
                     "echo \"env: $(/usr/bin/env | /usr/bin/tr '\\n' ' ')\"\n"
                     "echo \"as: $(ulimit -v)\"\n"
                     "echo \"cpu: $(ulimit -t)\"\n"
                     "echo \"fsize: $(ulimit -f)\"\n");
    setenv(BW_SASS_TOOL_ENV, path, 1);
    CHECK_INT_EQ(sass_find_tool(&tool, &cause), BW_OK);
    CHECK_STR_EQ(tool.path, path);
    CHECK(!tool.cuobjdump);
    rc = sass_disassemble(&tool, cubin, 20, 10000, &listing, &truncated, &cause);
    CHECK_MSG(rc == BW_OK, "%s", cause ? cause : "");
    if (rc == BW_OK) {
        char file[PATH_MAX] = "";
        const char *at = strstr(listing, "file: ");
        CHECK_CONTAINS(listing, "args: 1\n");
        CHECK_CONTAINS(listing, "bytes: 20\n");
        CHECK_CONTAINS(listing, "env: ");
        CHECK(!strstr(listing, "HOME=") && !strstr(listing, "PATH=")); /* an empty environment */
        CHECK_CONTAINS(listing, "as: 4194304\n");
        CHECK_CONTAINS(listing, "cpu: 20\n");
        CHECK_CONTAINS(listing, "fsize: 0\n");
        CHECK(!truncated);
        if (at)
            sscanf(at, "file: %4095s", file);
        CHECK_CONTAINS(file, "kernel.cubin");
        CHECK_MSG(file[0] && access(file, F_OK) != 0, "the temporary cubin %s was left", file);
    }
    free(listing);
    remove_tool(path);

    /* cuobjdump is told apart by its name and gets --dump-sass. */
    path = fake_tool(dir, "my-cuobjdump", "echo \"$1 $#\"\n");
    setenv(BW_SASS_TOOL_ENV, path, 1);
    CHECK_INT_EQ(sass_find_tool(&tool, &cause), BW_OK);
    CHECK(tool.cuobjdump);
    rc = sass_disassemble(&tool, cubin, 20, 10000, &listing, &truncated, &cause);
    CHECK_INT_EQ(rc, BW_OK);
    if (rc == BW_OK)
        CHECK_STR_EQ(listing, "--dump-sass 2\n");
    free(listing);
    remove_tool(path);

    /* A failing tool: its status and the start of what it printed. */
    path =
        fake_tool(dir, "nvdisasm", "echo 'nvdisasm fatal   : Input file is not an ELF'\nexit 3\n");
    setenv(BW_SASS_TOOL_ENV, path, 1);
    CHECK_INT_EQ(sass_find_tool(&tool, &cause), BW_OK);
    free(cause);
    cause = NULL;
    CHECK_INT_EQ(sass_disassemble(&tool, cubin, 20, 10000, &listing, &truncated, &cause),
                 BW_ERR_INVALID);
    CHECK_CONTAINS(cause, "exited with status 3: nvdisasm fatal   : Input file is not an ELF");
    CHECK(listing == NULL);
    remove_tool(path);

    /* One that hangs is killed at the wall limit. */
    path = fake_tool(dir, "nvdisasm", "exec /bin/sleep 20\n");
    setenv(BW_SASS_TOOL_ENV, path, 1);
    CHECK_INT_EQ(sass_find_tool(&tool, &cause), BW_OK);
    free(cause);
    cause = NULL;
    double t0 = now_ms();
    CHECK_INT_EQ(sass_disassemble(&tool, cubin, 20, 300, &listing, &truncated, &cause),
                 BW_ERR_TIMEOUT);
    CHECK_CONTAINS(cause, "did not finish within 300 ms");
    CHECK(now_ms() - t0 < 5000);
    remove_tool(path);

    /* A tool that is not there. */
    setenv(BW_SASS_TOOL_ENV, "/nonexistent/nvdisasm", 1);
    free(cause);
    cause = NULL;
    CHECK_INT_EQ(sass_find_tool(&tool, &cause), BW_ERR_NOTFOUND);
    CHECK_CONTAINS(cause, "BLOCKWISE_NVDISASM=/nonexistent/nvdisasm");
    unsetenv(BW_SASS_TOOL_ENV);
    free(cause);
    rmdir(dir);
}

/* ---- real cubins -------------------------------------------------------------------------- */

static const char copy4_src[] =
    "extern \"C\" __global__ void copy(const float4 *__restrict__ in, float4 *__restrict__ out,\n"
    "                                 long long n)\n"
    "{\n"
    "    long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x;\n"
    "    if (i < n)\n"
    "        out[i] = in[i];\n"
    "}\n";

static const char copy1_src[] =
    "extern \"C\" __global__ void copy(const float *__restrict__ in, float *__restrict__ out,\n"
    "                                 long long n)\n"
    "{\n"
    "    long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x;\n"
    "    if (i < n)\n"
    "        out[i] = in[i];\n"
    "}\n";

/* blockwise-compile beside this binary's build, or build/bin; NULL when not built. */
static const char *compiler(void)
{
    static char path[PATH_MAX];
    char *dir = exe_dir(), *candidate = dir ? path_join(dir, "../bin/blockwise-compile") : NULL;

    free(dir);
    if (!candidate || access(candidate, X_OK) != 0) {
        free(candidate);
        candidate = strdup("build/bin/blockwise-compile");
    }
    if (!candidate || access(candidate, X_OK) != 0 || !realpath(candidate, path))
        path[0] = '\0';
    free(candidate);
    return path[0] ? path : NULL;
}

/* Compiles src for sm_90a into *r; false (and a SKIP reason) when this host cannot. */
static bool compile_src(const char *src, struct compile_result *r, const char **skip)
{
    struct compile_request rq = {.source = src, .len = strlen(src), .compiler = compiler()};
    char *cause = NULL;
    int rc;

    memset(r, 0, sizeof(*r));
    if (!rq.compiler) {
        *skip = "blockwise-compile is not built";
        return false;
    }
    rc = compile_run(&rq, r, &cause);
    if (rc == BW_ERR_SANDBOX) {
        *skip = "the compile sandbox cannot run on this host";
        free(cause);
        return false;
    }
    CHECK_MSG(rc == BW_OK && r->ok, "compile: %s %s", bw_strerror(rc), cause ? cause : "");
    free(cause);
    return rc == BW_OK && r->ok;
}

/* Disassembles and scans r's cubin for LDG.E.128 and STG.E.128 (and LDG.E). */
static void scan_cubin(const struct sass_tool *tool, const struct compile_result *r,
                       struct sass_scan *scan)
{
    static const char *patterns[] = {"LDG.E.128", "STG.E.128", "LDG.E"};
    static const char *kernels[] = {"copy"};
    char *listing = NULL, *cause = NULL;
    bool truncated;
    int rc = sass_disassemble(tool, r->cubin, r->cubin_len, 0, &listing, &truncated, &cause);

    *scan = (struct sass_scan){.patterns = patterns,
                               .n_patterns = 3,
                               .kernels = kernels,
                               .n_kernels = 1,
                               .entries = kernels,
                               .n_entries = 1};
    CHECK_MSG(rc == BW_OK, "%s: %s", tool->path, cause ? cause : "");
    if (rc == BW_OK)
        CHECK_INT_EQ(sass_scan(listing, scan, &cause), BW_OK);
    free(listing);
    free(cause);
}

TEST(sass_real_cubins)
{
    struct compile_result r4, r1;
    struct sass_scan s4, s1;
    struct sass_tool tool;
    const char *skip = NULL;
    char *cause = NULL;

    unsetenv(BW_SASS_TOOL_ENV);
    if (sass_find_tool(&tool, &cause) != BW_OK) {
        printf("  %s\n", cause ? cause : "no disassembler");
        /* On the GPU machine the toolkit has one: there it must run. */
        CHECK_MSG(!getenv("BLOCKWISE_GPU_TESTS"), "no disassembler on the GPU machine: %s",
                  cause ? cause : "");
        free(cause);
        if (getenv("BLOCKWISE_GPU_TESTS"))
            return;
        SKIP("no nvdisasm or cuobjdump here (tests/gpu/goals.sh runs this check on the GPU "
             "machine)");
    }
    if (!compile_src(copy4_src, &r4, &skip)) {
        compile_result_release(&r4);
        if (skip)
            SKIP(skip);
        return;
    }
    if (!compile_src(copy1_src, &r1, &skip)) {
        compile_result_release(&r4);
        compile_result_release(&r1);
        if (skip)
            SKIP(skip);
        return;
    }
    scan_cubin(&tool, &r4, &s4);
    scan_cubin(&tool, &r1, &s1);
    printf("  info: %s: float4 copy %ld instructions, scalar copy %ld\n", tool.path,
           s4.instructions, s1.instructions);
    CHECK(s4.kernel_seen[0] && s1.kernel_seen[0]);
    CHECK(s4.matches[0] >= 1 && s4.matches[1] >= 1);
    CHECK(s1.matches[0] == 0 && s1.matches[1] == 0);
    CHECK(s1.matches[2] >= 1); /* the scalar copy still loads, 32 bits at a time */
    compile_result_release(&r4);
    compile_result_release(&r1);
}

/* ---- evaluations ---------------------------------------------------------------------------- */

static struct problem *load_goals_problem(void)
{
    char *cause = NULL;
    struct problem *p = problem_load(OK_GOALS, &cause);

    CHECK_MSG(p != NULL, "%s", cause ? cause : "");
    free(cause);
    return p;
}

/* The goal of p named `name`. */
static const struct goal_spec *goal_named(const struct problem *p, const char *name)
{
    for (size_t i = 0; i < p->n_goals; i++)
        if (strcmp(p->goals[i].name, name) == 0)
            return &p->goals[i];
    CHECK_MSG(0, "no goal %s", name);
    return &p->goals[0];
}

static json_t *shape_row(const struct goal_outcome *o, const char *array, size_t i)
{
    return json_array_get(json_object_get(o->data, array), i);
}

static double field_num(json_t *obj, const char *key)
{
    return json_number_value(json_object_get(obj, key));
}

TEST(eval_autotune)
{
    struct problem *p = load_goals_problem();
    struct goal_outcome o;
    const char *names[] = {"BLOCK=128", "BLOCK=256", "BLOCK=512"};
    /* [config][shape]: 128 wins the first shape, 512 the second, 256 is the best single one. */
    const double ms[] = {1.0, 4.0, 1.5, 1.5, 4.0, 1.0};
    const double one_missing[] = {1.0, 4.0, 1.5, 0, 4.0, 1.0};
    struct goal_spec g;

    if (!p)
        return;
    g = *goal_named(p, "sweep");
    CHECK_INT_EQ(goal_outcome_init(&o, &g), BW_OK);
    CHECK_INT_EQ(goal_eval_autotune(&g, p, 3, names, ms, &o), BW_OK);
    CHECK_INT_EQ(o.status, GOAL_STATUS_PASSED);
    /* best single: 256 with geomean 1.5; per-shape best geomean sqrt(1*1) = 1: gain 1.5 */
    CHECK(fabs(field_num(o.data, "gain") - 1.5) < 1e-12);
    CHECK_STR_EQ(json_string_value(json_object_get(o.data, "best_fixed")), "BLOCK=256");
    CHECK_STR_EQ(o.detail, "3 configurations: autotune gain 1.500x over the best single "
                           "configuration (BLOCK=256)");
    CHECK_STR_EQ(json_string_value(json_object_get(shape_row(&o, "shapes", 0), "best")),
                 "BLOCK=128");
    CHECK_STR_EQ(json_string_value(json_object_get(shape_row(&o, "shapes", 0), "worst")),
                 "BLOCK=512");
    CHECK(field_num(shape_row(&o, "shapes", 1), "gain") == 4.0);
    CHECK_STR_EQ(json_string_value(json_object_get(shape_row(&o, "shapes", 1), "shape")), "2^25+3");
    goal_outcome_release(&o);

    /* A required gain the sweep does not reach. */
    g.min_gain = 2.5;
    goal_outcome_init(&o, &g);
    goal_eval_autotune(&g, p, 3, names, ms, &o);
    CHECK_INT_EQ(o.status, GOAL_STATUS_FAILED);
    CHECK_CONTAINS(o.detail, "below the 2.500x required");
    goal_outcome_release(&o);
    g.min_gain = 0;

    /* No @tune, or too few combinations. */
    goal_outcome_init(&o, &g);
    goal_eval_autotune(&g, p, 1, names, ms, &o);
    CHECK_INT_EQ(o.status, GOAL_STATUS_FAILED);
    CHECK_STR_EQ(o.detail, "declare @tune with at least 2 combinations (this submission has no "
                           "@tune)");
    goal_outcome_release(&o);
    g.min_configs = 4;
    goal_outcome_init(&o, &g);
    goal_eval_autotune(&g, p, 3, names, ms, &o);
    CHECK_INT_EQ(o.status, GOAL_STATUS_FAILED);
    CHECK_CONTAINS(o.detail, "at least 4 combinations (this submission has 3)");
    goal_outcome_release(&o);
    g.min_configs = 2;

    /* A time that is missing: not the learner's fault. */
    goal_outcome_init(&o, &g);
    goal_eval_autotune(&g, p, 3, names, one_missing, &o);
    CHECK_INT_EQ(o.status, GOAL_STATUS_SKIPPED);
    goal_outcome_release(&o);
    problem_free(p);
}

TEST(eval_rebuild)
{
    struct problem *p = load_goals_problem();
    struct goal_outcome o;
    const char *configs[] = {"BLOCK=256", "BLOCK=128"};
    double submitted[] = {0.05, 0.1}, rebuilt[] = {0.2, 0.12};
    struct goal_spec g;

    if (!p)
        return;
    g = *goal_named(p, "delay"); /* DELAY=100000 on 2^24 only, at least 2.5x */
    goal_outcome_init(&o, &g);
    CHECK_INT_EQ(goal_eval_rebuild(&g, p, submitted, rebuilt, configs, &o), BW_OK);
    CHECK_INT_EQ(o.status, GOAL_STATUS_PASSED);
    CHECK_STR_EQ(o.detail, "speedup 4.00x over the same kernel built with DELAY=100000 (2.50x "
                           "required)");
    CHECK_INT_EQ(json_array_size(json_object_get(o.data, "shapes")), 1);
    CHECK_STR_EQ(json_string_value(json_object_get(shape_row(&o, "shapes", 0), "config")),
                 "BLOCK=256");
    CHECK_INT_EQ(json_integer_value(json_object_get(json_object_get(o.data, "const"), "DELAY")),
                 100000);
    goal_outcome_release(&o);

    /* Every shape: the worst one decides. */
    g.shapes[1] = true;
    goal_outcome_init(&o, &g);
    goal_eval_rebuild(&g, p, submitted, rebuilt, configs, &o);
    CHECK_INT_EQ(o.status, GOAL_STATUS_FAILED);
    CHECK_STR_EQ(o.detail, "speedup 1.20x on 2^25+3 over the same kernel built with DELAY=100000 "
                           "(2.50x required)");
    goal_outcome_release(&o);
    g.min_speedup = 1.1;
    goal_outcome_init(&o, &g);
    goal_eval_rebuild(&g, p, submitted, rebuilt, configs, &o);
    CHECK_INT_EQ(o.status, GOAL_STATUS_PASSED);
    CHECK_CONTAINS(o.detail, "speedup 1.20x to 4.00x");
    goal_outcome_release(&o);

    /* A shape without a time. */
    rebuilt[1] = 0;
    goal_outcome_init(&o, &g);
    goal_eval_rebuild(&g, p, submitted, rebuilt, configs, &o);
    CHECK_INT_EQ(o.status, GOAL_STATUS_SKIPPED);
    goal_outcome_release(&o);
    problem_free(p);
}

TEST(eval_bandwidth)
{
    struct problem *p = load_goals_problem();
    struct goal_outcome o;
    /* 12*N bytes: 2^24 -> 201326592 bytes in 0.05 ms = 4026.5 GB/s */
    const double ms[] = {0.05, 0.2};
    const struct goal_spec *g;

    if (!p)
        return;
    g = goal_named(p, "bandwidth"); /* >= 30% on both shapes */
    goal_outcome_init(&o, g);
    CHECK_INT_EQ(goal_eval_bandwidth(g, p, ms, 4000, &o), BW_OK);
    CHECK_INT_EQ(o.status, GOAL_STATUS_PASSED);
    CHECK(fabs(field_num(shape_row(&o, "shapes", 0), "gbps") - 4026.531840) < 1e-3);
    CHECK(fabs(field_num(shape_row(&o, "shapes", 0), "pct") - 100.663296) < 1e-4);
    /* 2^25+3: 402653220 bytes in 0.2 ms = 2013.3 GB/s: 50.3% */
    CHECK_STR_EQ(o.detail, "at least 50.3% of the copy bandwidth (4000 GB/s) under the bytes "
                           "model 12*N (30% required)");
    goal_outcome_release(&o);

    g = goal_named(p, "impossible"); /* >= 500% on 2^25+3 */
    goal_outcome_init(&o, g);
    goal_eval_bandwidth(g, p, ms, 4000, &o);
    CHECK_INT_EQ(o.status, GOAL_STATUS_FAILED);
    CHECK_STR_EQ(o.detail, "50.3% of the copy bandwidth (4000 GB/s) on 2^25+3 under the bytes "
                           "model 12*N (500% required)");
    CHECK_INT_EQ(json_array_size(json_object_get(o.data, "shapes")), 1);
    goal_outcome_release(&o);

    /* An uncalibrated worker cannot tell. */
    goal_outcome_init(&o, g);
    goal_eval_bandwidth(g, p, ms, 0, &o);
    CHECK_INT_EQ(o.status, GOAL_STATUS_SKIPPED);
    CHECK_CONTAINS(o.detail, "judged calibrate");
    goal_outcome_release(&o);
    problem_free(p);
}

TEST(eval_compare)
{
    struct problem *p = load_goals_problem();
    struct goal_outcome o;
    const double fast[] = {0.05, 0.1}, slow[] = {0.08, 0.1};
    const struct goal_spec *g;

    if (!p)
        return;
    g = goal_named(p, "half-size"); /* 2^24 at least 1.5x as fast as 2^25+3 */
    goal_outcome_init(&o, g);
    CHECK_INT_EQ(goal_eval_compare(g, p, fast, &o), BW_OK);
    CHECK_INT_EQ(o.status, GOAL_STATUS_PASSED);
    CHECK_STR_EQ(o.detail, "2^24 runs 2.00x as fast as 2^25+3 (1.50x required)");
    CHECK(field_num(shape_row(&o, "pairs", 0), "speedup") == 2.0);
    goal_outcome_release(&o);
    goal_outcome_init(&o, g);
    goal_eval_compare(g, p, slow, &o);
    CHECK_INT_EQ(o.status, GOAL_STATUS_FAILED);
    CHECK_STR_EQ(o.detail, "2^24 runs 1.25x as fast as 2^25+3 (1.50x required)");
    goal_outcome_release(&o);
    problem_free(p);
}

TEST(eval_roofline)
{
    struct problem *p = load_goals_problem();
    struct goal_outcome o;
    double sol[] = {88.5, 19.25};
    const struct goal_spec *g;

    if (!p)
        return;
    g = goal_named(p, "speed"); /* >= 20% on both shapes */
    goal_outcome_init(&o, g);
    CHECK_INT_EQ(goal_eval_roofline(g, p, sol, true, &o), BW_OK);
    CHECK_INT_EQ(o.status, GOAL_STATUS_FAILED);
    CHECK_STR_EQ(o.detail, "19.2% of the speed of light on 2^25+3 (20% required)");
    CHECK(field_num(shape_row(&o, "shapes", 0), "sol_pct") == 88.5);
    goal_outcome_release(&o);
    sol[1] = 40;
    goal_outcome_init(&o, g);
    goal_eval_roofline(g, p, sol, true, &o);
    CHECK_INT_EQ(o.status, GOAL_STATUS_PASSED);
    CHECK_STR_EQ(o.detail, "at least 40.0% of the speed of light (20% required)");
    goal_outcome_release(&o);
    goal_outcome_init(&o, g);
    goal_eval_roofline(g, p, sol, false, &o);
    CHECK_INT_EQ(o.status, GOAL_STATUS_SKIPPED);
    goal_outcome_release(&o);
    problem_free(p);
}

TEST(eval_sass)
{
    struct problem *p = load_goals_problem();
    struct goal_outcome o;
    struct sass_scan scans[2] = {0};
    const char *names[] = {"BLOCK=128", "BLOCK=256"};
    const struct goal_spec *g;

    if (!p)
        return;
    g = goal_named(p, "vector-access"); /* LDG.E.128, STG.E.128 */
    scans[0].instructions = scans[1].instructions = 20;
    scans[0].matches[0] = 2;
    scans[0].matches[1] = 1;
    scans[1].matches[0] = 4;
    scans[1].matches[1] = 2;
    goal_outcome_init(&o, g);
    CHECK_INT_EQ(goal_eval_sass(g, scans, 2, names, &o), BW_OK);
    CHECK_INT_EQ(o.status, GOAL_STATUS_PASSED);
    CHECK_STR_EQ(o.detail,
                 "found LDG.E.128 (2), STG.E.128 (1) in every configuration's machine code");
    goal_outcome_release(&o);

    scans[1].matches[1] = 0;
    goal_outcome_init(&o, g);
    goal_eval_sass(g, scans, 2, names, &o);
    CHECK_INT_EQ(o.status, GOAL_STATUS_FAILED);
    CHECK_STR_EQ(o.detail, "no STG.E.128 in the machine code of BLOCK=256 (found LDG.E.128 (2))");
    CHECK_INT_EQ(json_integer_value(json_object_get(shape_row(&o, "require", 1), "count")), 0);
    goal_outcome_release(&o);

    /* One cubin without @tune: no configuration name. */
    const char *plain[] = {""};
    scans[0].matches[1] = 0;
    goal_outcome_init(&o, g);
    goal_eval_sass(g, scans, 1, plain, &o);
    CHECK_STR_EQ(o.detail, "no STG.E.128 in the machine code (found LDG.E.128 (2))");
    goal_outcome_release(&o);

    /* A named kernel that is not there, and a listing the judge could not read. */
    g = goal_named(p, "tensor-cores");
    goal_outcome_init(&o, g);
    goal_eval_sass(g, scans, 1, plain, &o);
    CHECK_STR_EQ(o.detail, "no kernel named vector_add in the machine code");
    goal_outcome_release(&o);
    scans[0].instructions = 0;
    goal_outcome_init(&o, g);
    goal_eval_sass(g, scans, 1, plain, &o);
    CHECK_INT_EQ(o.status, GOAL_STATUS_SKIPPED);
    goal_outcome_release(&o);
    problem_free(p);
}

/* ---- JSON and report ------------------------------------------------------------------------- */

/* Two synthetic outcomes: a passed bandwidth goal and a skipped sass goal. */
static void synthetic_outcomes(const struct problem *p, struct goal_outcome *o)
{
    const double ms[] = {0.05, 0.1};

    goal_outcome_init(&o[0], goal_named(p, "bandwidth"));
    goal_eval_bandwidth(goal_named(p, "bandwidth"), p, ms, 4000, &o[0]);
    goal_outcome_init(&o[1], goal_named(p, "vector-access"));
    goal_outcome_set(&o[1], GOAL_STATUS_SKIPPED, "no disassembler: %s", "none here");
}

TEST(outcome_json)
{
    struct problem *p = load_goals_problem();
    struct goal_outcome o[2];
    json_t *j;

    if (!p)
        return;
    synthetic_outcomes(p, o);
    j = goal_outcome_json(&o[0]);
    CHECK_STR_EQ(json_string_value(json_object_get(j, "name")), "bandwidth");
    CHECK_STR_EQ(json_string_value(json_object_get(j, "kind")), "bandwidth");
    CHECK_STR_EQ(json_string_value(json_object_get(j, "status")), "passed");
    CHECK(json_is_true(json_object_get(j, "passed")));
    CHECK_CONTAINS(json_string_value(json_object_get(j, "detail")), "of the copy bandwidth");
    CHECK(json_object_get(j, "description") == NULL);
    CHECK_STR_EQ(json_string_value(json_object_get(j, "bytes")), "12*N");
    CHECK(json_number_value(json_object_get(j, "min_pct")) == 30);
    CHECK_INT_EQ(json_array_size(json_object_get(j, "shapes")), 2);
    json_decref(j);
    j = goal_outcome_json(&o[1]);
    CHECK_STR_EQ(json_string_value(json_object_get(j, "status")), "skipped");
    CHECK(json_is_false(json_object_get(j, "passed")));
    CHECK_STR_EQ(json_string_value(json_object_get(j, "detail")), "no disassembler: none here");
    json_decref(j);

    /* A description travels with the outcome. */
    struct goal_outcome d;
    goal_outcome_init(&d, goal_named(p, "sweep"));
    j = goal_outcome_json(&d);
    CHECK_STR_EQ(json_string_value(json_object_get(j, "description")),
                 "declare at least two block sizes with @tune");
    CHECK_STR_EQ(json_string_value(json_object_get(j, "status")), "failed");
    json_decref(j);
    goal_outcome_release(&d);
    goal_outcome_release(&o[0]);
    goal_outcome_release(&o[1]);
    problem_free(p);
}

/* What f printed, as a *new* string (f is a tmpfile). */
static char *printed(FILE *f)
{
    long n = ftell(f);
    char *text = calloc(1, (size_t)(n > 0 ? n : 0) + 1);

    rewind(f);
    if (text && n > 0 && fread(text, 1, (size_t)n, f) != (size_t)n)
        text[0] = '\0';
    fclose(f);
    return text;
}

TEST(outcome_report_lines)
{
    struct problem *p = load_goals_problem();
    struct goal_outcome o[2];
    FILE *f;
    char *text;

    if (!p)
        return;
    synthetic_outcomes(p, o);
    f = tmpfile();
    goal_outcomes_print(f, o, 2, false);
    text = printed(f);
    CHECK_CONTAINS(text, "goals     1 of 2 passed, 1 not checked here (learning goals: reported "
                         "beside the verdict, never changing it)\n");
    CHECK_CONTAINS(text, "  ok   bandwidth (bandwidth): at least 100.7% of the copy bandwidth");
    CHECK_CONTAINS(text, "         2^24                   0.0500 ms, 4027 GB/s: 100.7% of copy\n");
    CHECK_CONTAINS(text, "  skip vector-access (sass): no disassembler: none here\n");
    free(text);

    /* Nothing at all without goals. */
    f = tmpfile();
    goal_outcomes_print(f, o, 0, false);
    text = printed(f);
    CHECK_STR_EQ(text, "");
    free(text);
    goal_outcome_release(&o[0]);
    goal_outcome_release(&o[1]);
    problem_free(p);
}

TEST(result_json_and_report)
{
    struct problem *p = load_goals_problem();
    struct judge_result r;
    json_t *j, *goals;
    FILE *f;
    char *text, *timing, *goal_line, *verdict;

    if (!p)
        return;
    memset(&r, 0, sizeof(r));
    r.verdict = VERDICT_ACCEPTED;
    r.executed = true;
    r.message = strdup("all 8 tests passed and every timed run was checked");
    r.benches = calloc(1, sizeof(*r.benches));
    r.n_benches = 1;
    r.benches[0].name = strdup("2^24");
    r.benches[0].median_ms = 0.05;
    r.goals = calloc(2, sizeof(*r.goals));
    r.n_goals = 2;
    synthetic_outcomes(p, r.goals);

    j = judge_result_json(&r);
    goals = json_object_get(j, "goals");
    CHECK_INT_EQ(json_array_size(goals), 2);
    CHECK_STR_EQ(json_string_value(json_object_get(json_array_get(goals, 0), "name")), "bandwidth");
    CHECK_STR_EQ(json_string_value(json_object_get(json_array_get(goals, 1), "status")), "skipped");
    CHECK(json_object_get(json_object_get(j, "timing"), "goals_ms") != NULL);
    CHECK_STR_EQ(json_string_value(json_object_get(j, "verdict")), "AC");
    json_decref(j);

    f = tmpfile();
    report_print(f, p, "solution.cu", &r, false);
    text = printed(f);
    timing = strstr(text, "timing    ");
    goal_line = strstr(text, "goals     1 of 2 passed");
    verdict = strstr(text, "verdict   Accepted");
    CHECK(timing && goal_line && verdict);
    CHECK_MSG(timing < goal_line && goal_line < verdict,
              "goals belong after the timing table and before the verdict:\n%s", text);
    free(text);
    judge_result_release(&r);

    /* A result without goals (Run, or a verdict other than Accepted) says nothing of them. */
    memset(&r, 0, sizeof(r));
    r.verdict = VERDICT_WRONG_ANSWER;
    r.executed = true;
    j = judge_result_json(&r);
    CHECK_INT_EQ(json_array_size(json_object_get(j, "goals")), 0);
    json_decref(j);
    f = tmpfile();
    report_print(f, p, "wrong.cu", &r, false);
    text = printed(f);
    CHECK(strstr(text, "goals     ") == NULL);
    free(text);
    judge_result_release(&r);
    problem_free(p);
}
