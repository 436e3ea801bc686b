/*
 * Tests of plan/directive*.c (the parser), plan/flags and plan/tune: the
 * parsed plan's contents, every cap, the flag allowlist, @tune
 * combinations, and the golden files of
 * tests/golden/directives/ (NAME.cu parsed as CUDA, NAME.py as Triton;
 * NAME.expected holds the exact diagnostics "LINE:COL: message", or for a
 * valid file the dump of its plan).
 * BW_UPDATE_GOLDEN=1 rewrites the .expected files instead (review the diff).
 */
#include "tests/test.h"

#include <dirent.h>
#include <nvrtc.h>
#include <stdlib.h>

#include "common/buf.h"
#include "common/error.h"
#include "common/limits.h"
#include "common/util.h"
#include "plan/directive.h"
#include "plan/flags.h"
#include "plan/tune.h"
#include "common/banned.h"

static int parse(const char *src, struct directives *d, struct diag_list *l)
{
    return directives_parse(src, strlen(src), d, l);
}

/* Parses src expecting failure with exactly one diagnostic at line:col
 * containing msg; returns the code. */
static int one_error(const char *src, int line, int col, const char *msg)
{
    struct directives d;
    struct diag_list l = {0};
    int rc = parse(src, &d, &l);

    CHECK_MSG(rc != BW_OK, "parsed: %s", src);
    CHECK_MSG(l.n == 1, "%zu diagnostics for %s (first: %s)", l.n, src,
              l.n ? l.items[0].msg : "none");
    if (l.n >= 1) {
        CHECK_MSG(l.items[0].line == line && l.items[0].column == col,
                  "at %d:%d, expected %d:%d (%s)", l.items[0].line, l.items[0].column, line, col,
                  l.items[0].msg);
        CHECK_CONTAINS(l.items[0].msg, msg);
    }
    CHECK(d.n_launches == 0 && d.launches == NULL);
    diag_list_release(&l);
    return rc;
}

#define LAUNCH "// @launch k grid=(1) block=(1) args=(x)\n"

TEST(directive_parse_full_plan)
{
    const char *src = "// @const BLOCK=256\n"
                      "// @tune TILE=(16, 32)\n"
                      "// @scratch partial fp32[cdiv(n, BLOCK)]\n"
                      "// @flags --use_fast_math\n"
                      "// @launch reduce grid=(cdiv(n, BLOCK), 2) block=(BLOCK, TILE, 1) "
                      "smem=4*BLOCK args=(x, partial, n, -7)\n"
                      "extern \"C\" __global__ void reduce() {}\n"
                      "// @launch finish grid=(1) block=(1024) args=()\n";
    struct directives d;
    struct diag_list l = {0};
    int64_t v;

    CHECK_INT_EQ(parse(src, &d, &l), BW_OK);
    CHECK_INT_EQ(l.n, 0);
    CHECK_INT_EQ(d.n_launches, 2);
    if (d.n_launches != 2)
        return;
    struct launch *a = &d.launches[0], *b = &d.launches[1];
    CHECK_STR_EQ(a->kernel, "reduce");
    CHECK_INT_EQ(a->line, 5);
    CHECK_STR_EQ(expr_text(a->grid[0]), "cdiv(n, BLOCK)");
    CHECK_STR_EQ(expr_text(a->grid[1]), "2");
    CHECK(a->grid[2] == NULL);
    CHECK_STR_EQ(expr_text(a->block[1]), "TILE");
    CHECK_STR_EQ(expr_text(a->block[2]), "1");
    CHECK_STR_EQ(expr_text(a->smem), "4*BLOCK");
    CHECK_INT_EQ(a->grid_column, 19);
    CHECK_INT_EQ(a->block_column, 44);
    CHECK_INT_EQ(a->smem_column, 67);
    CHECK_INT_EQ(a->n_args, 4);
    CHECK(a->args[0].kind == LAUNCH_ARG_NAME);
    CHECK_STR_EQ(a->args[1].name, "partial");
    CHECK_INT_EQ(a->args[1].column, 89);
    CHECK_INT_EQ(a->args[1].line, 5);
    CHECK(a->args[3].kind == LAUNCH_ARG_INTEGER && a->args[3].value == -7);
    CHECK(a->args[3].name == NULL);
    CHECK_STR_EQ(b->kernel, "finish");
    CHECK_INT_EQ(b->line, 7);
    CHECK_INT_EQ(b->n_args, 0);
    CHECK(b->smem == NULL && b->block[1] == NULL);

    CHECK_INT_EQ(d.n_scratches, 1);
    CHECK_STR_EQ(d.scratches[0].name, "partial");
    CHECK(d.scratches[0].dtype == DTYPE_FP32);
    CHECK_INT_EQ(d.scratches[0].line, 3);
    CHECK_INT_EQ(d.scratches[0].column, 13);
    struct expr_binding vars[] = {{"n", 1000}, {"BLOCK", 256}};
    struct expr_scope scope = {vars, 2};
    CHECK_INT_EQ(expr_eval_int(d.scratches[0].count, &scope, &v, NULL), BW_OK);
    CHECK_INT_EQ(v, 4);

    CHECK_INT_EQ(d.n_consts, 1);
    CHECK_STR_EQ(d.consts[0].name, "BLOCK");
    CHECK_INT_EQ(d.consts[0].value, 256);
    CHECK_INT_EQ(d.n_tunes, 1);
    CHECK_INT_EQ(d.tunes[0].n_values, 2);
    CHECK_INT_EQ(d.n_flags, 1);
    CHECK_STR_EQ(d.flags[0], "--use_fast_math");
    directives_release(&d);
    CHECK(d.launches == NULL && d.n_launches == 0);
    directives_release(&d); /* released twice is harmless */
}

TEST(directive_recognition_rule)
{
    struct directives d;
    struct diag_list l = {0};

    /* Blanks before and after //, tabs, a block comment around it. */
    CHECK_INT_EQ(parse("/*\n \t//\t @launch k grid=(1) block=(1) args=(x)\n*/\n", &d, &l), BW_OK);
    CHECK_INT_EQ(d.n_launches, 1);
    directives_release(&d);
    /* Not directives: after code, inside a block comment opener, a third slash. */
    CHECK_INT_EQ(parse(LAUNCH "int a; // @bogus\n/* // @bogus */\n/// @bogus\n// x @bogus\n"
                              "//@\t\n",
                       &d, &l),
                 BW_ERR_INVALID);
    CHECK_INT_EQ(l.n, 1); /* only the last line: '@' then nothing */
    CHECK_INT_EQ(l.items[0].line, 6);
    diag_list_release(&l);
    /* CRLF line ends; no final newline. */
    CHECK_INT_EQ(parse("// @const A=1\r\n// @launch k grid=(A) block=(1) args=(x)", &d, &l), BW_OK);
    CHECK_STR_EQ(expr_text(d.launches[0].grid[0]), "A");
    directives_release(&d);
}

TEST(directive_no_launch)
{
    struct directives d;
    struct diag_list l = {0};

    CHECK_INT_EQ(directives_parse("", 0, &d, &l), BW_ERR_INVALID);
    CHECK_INT_EQ(l.n, 1);
    CHECK_INT_EQ(l.items[0].line, 0);
    CHECK_INT_EQ(l.items[0].column, 0);
    CHECK_CONTAINS(l.items[0].msg, "no @launch directive: the judge has nothing to run (add e.g. "
                                   "// @launch");
    diag_list_release(&l);
    /* A broken @launch is reported as itself, without "no @launch". */
    one_error("// @launch k grid=(1) block=(1)\n", 1, 4, "@launch needs args=(...)");
}

/* Issue 12: the C type names a kernel declares are the dtypes they mean. */
TEST(directive_scratch_c_types)
{
    static const struct {
        const char *type;
        enum dtype dtype;
    } cases[] = {
        {"float", DTYPE_FP32},
        {"double", DTYPE_FP64},
        {"half", DTYPE_FP16},
        {"__half", DTYPE_FP16},
        {"__nv_bfloat16", DTYPE_BF16},
        {"nv_bfloat16", DTYPE_BF16},
        {"signed char", DTYPE_INT8},
        {"int8_t", DTYPE_INT8},
        {"unsigned char", DTYPE_UINT8},
        {"uint8_t", DTYPE_UINT8},
        {"int", DTYPE_INT32},
        {"signed", DTYPE_INT32},
        {"signed int", DTYPE_INT32},
        {"int32_t", DTYPE_INT32},
        {"unsigned", DTYPE_UINT32},
        {"unsigned int", DTYPE_UINT32},
        {"uint32_t", DTYPE_UINT32},
        {"long long", DTYPE_INT64},
        {"long long int", DTYPE_INT64},
        {"signed long long", DTYPE_INT64},
        {"signed long long int", DTYPE_INT64},
        {"int64_t", DTYPE_INT64},
        {"unsigned long long", DTYPE_UINT64},
        {"unsigned long long int", DTYPE_UINT64},
        {"uint64_t", DTYPE_UINT64},
        {"unsigned\t long  long ", DTYPE_UINT64}, /* any blanks between words and before '[' */
        {"fp32", DTYPE_FP32},                     /* the dtype names still work */
        {"bf16", DTYPE_BF16},
    };
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        char src[256];
        struct directives d;
        struct diag_list l = {0};
        snprintf(src, sizeof(src), LAUNCH "// @scratch stats %s[2 * M]\n", cases[i].type);
        int rc = parse(src, &d, &l);
        CHECK_MSG(rc == BW_OK, "'%s': %s", cases[i].type, l.n ? l.items[0].msg : "?");
        if (rc == BW_OK) {
            CHECK_MSG(d.scratches[0].dtype == cases[i].dtype, "'%s' is %s", cases[i].type,
                      dtype_name(d.scratches[0].dtype));
            CHECK_STR_EQ(expr_text(d.scratches[0].count), "2 * M");
            directives_release(&d);
        }
        diag_list_release(&l);
    }
}

/* Types that are no dtype are refused at the type, saying why and what to write. */
TEST(directive_scratch_refused_types)
{
    one_error(LAUNCH "// @scratch s long[n]\n", 2, 15,
              "'long' is not accepted: it is 64-bit on Linux but 32-bit on Windows");
    one_error(LAUNCH "// @scratch s long[n]\n", 2, 15, "write long long (int64) or int (int32)");
    one_error(LAUNCH "// @scratch s unsigned long[n]\n", 2, 15,
              "write unsigned long long (uint64) or unsigned (uint32)");
    one_error(LAUNCH "// @scratch s char[n]\n", 2, 15,
              "write signed char (int8) or unsigned char (uint8)");
    one_error(LAUNCH "// @scratch s short[n]\n", 2, 15, "no 16-bit integer dtype");
    one_error(LAUNCH "// @scratch s float4[n]\n", 2, 15, "write float[4 * COUNT]");
    one_error(LAUNCH "// @scratch s flaot[n]\n", 2, 15,
              "unknown dtype 'flaot' (expected a dtype: fp32, fp16, bf16, fp64, int8, uint8, "
              "int32, int64, uint32, uint64; or a C type: float, double, half, __half, "
              "__nv_bfloat16, signed char, unsigned char, int, unsigned, long long, unsigned "
              "long long, int8_t ... uint64_t)");
    /* Only C's type words continue a type: "int n" is int, then a stray n. */
    one_error(LAUNCH "// @scratch s int n[n]\n", 2, 19, "expected '[' after the dtype");
}

/* Issue 12: args=(A, B, C, 0, N / 2) - integer expressions in args, as in grid. */
TEST(directive_args_expressions)
{
    const char *src = "// @launch k grid=(1) block=(1) args=(A, B, C, 0, N / 2, cdiv(N, 2), (N), "
                      "-N, -3)\n";
    struct directives d;
    struct diag_list l = {0};

    CHECK_INT_EQ(parse(src, &d, &l), BW_OK);
    CHECK_INT_EQ(l.n, 0);
    if (d.n_launches != 1)
        return;
    const struct launch *a = &d.launches[0];
    CHECK_INT_EQ(a->n_args, 9);
    CHECK(a->args[2].kind == LAUNCH_ARG_NAME && a->args[2].expr == NULL);
    CHECK(a->args[3].kind == LAUNCH_ARG_INTEGER && a->args[3].value == 0);
    CHECK(a->args[4].kind == LAUNCH_ARG_EXPR && a->args[4].name == NULL);
    CHECK_STR_EQ(expr_text(a->args[4].expr), "N / 2");
    CHECK_INT_EQ(a->args[4].column, 51);
    CHECK_STR_EQ(expr_text(a->args[5].expr), "cdiv(N, 2)"); /* its comma does not split */
    CHECK(a->args[6].kind == LAUNCH_ARG_EXPR);              /* (N): an expression, not a name */
    CHECK(a->args[7].kind == LAUNCH_ARG_EXPR);
    CHECK_STR_EQ(expr_text(a->args[7].expr), "-N");
    CHECK(a->args[8].kind == LAUNCH_ARG_INTEGER && a->args[8].value == -3);
    struct expr_binding vars[] = {{"N", 7}};
    struct expr_scope scope = {vars, 1};
    int64_t v = 0;
    CHECK_INT_EQ(expr_eval_int(a->args[4].expr, &scope, &v, NULL), BW_OK);
    CHECK_INT_EQ(v, 3);
    directives_release(&d);

    /* Errors point into the argument. */
    one_error("// @launch k grid=(1) block=(1) args=(x, n / 2.5)\n", 1, 42,
              "an argument in args=(...) must be an integer expression, got 'n / 2.5'");
    one_error("// @launch k grid=(1) block=(1) args=(x, n + * 2)\n", 1, 46,
              "expected a number, a name or '(', got '*'");
    one_error("// @launch k grid=(1) block=(1) args=(x[1])\n", 1, 40,
              "expected an operator (+ - * / %, a comparison, && || or ?:) or the end, got '['");
}

TEST(directive_error_positions)
{
    /* An unclosed '(' points before the next key, where the ')' is missing,
     * or at the end of the line when no key follows. */
    one_error("// @launch k grid=(cdiv(n, 256) block=(256) args=(x)\n", 1, 33,
              "expected ')' to close grid=( at column 19 before block=");
    one_error("// @launch k grid=(1) block=(1) args=(x, (n\n", 1, 44,
              "expected ')' to close args=( at column 38, got the end of the line");
    /* A key-like word inside the value without a blank before it is not a key. */
    one_error("// @launch k grid=(f(1,grid=2) block=(1) args=(x)\n", 1, 32,
              "expected ')' to close grid=( at column 19 before block=");
    one_error("// @launch k grd=(1) block=(1) args=(x)\n", 1, 14,
              "unknown key 'grd' in @launch (expected grid=, block=, smem=, args=)");
    one_error("// @launch k grid=(1) args=(x)\n", 1, 4, "@launch needs block=(...)");
    /* An expression error points into the expression. */
    one_error("// @launch k grid=(n + * 2) block=(1) args=(x)\n", 1, 24,
              "expected a number, a name or '(', got '*'");
    one_error("// @launch k grid=(min(n, 4) + foo(2)) block=(1) args=(x)\n", 1, 32,
              "unknown function 'foo'");
    /* Tabs count as one column. */
    one_error("\t//\t@launch k grid=(1) block=(1)\targs=(x)\tsmem=(\n", 1, 49,
              "expected ')' to close the '(' of smem=");
    one_error(LAUNCH "// @scratch ws fp8[n]\n", 2, 16,
              "unknown dtype 'fp8' (expected a dtype: fp32");
    one_error(LAUNCH "// @const A=1\n// @tune A=(1, 2)\n", 3, 10,
              "duplicate name 'A': already defined by @const on line 2");
    one_error(
        LAUNCH "// @lanch\n", 2, 4,
        "unknown directive '@lanch' (expected @launch, @scratch, @const, @tune, @let or @flags)");
}

TEST(directive_grid_commas_inside_calls)
{
    struct directives d;
    struct diag_list l = {0};

    CHECK_INT_EQ(parse("// @launch k grid=(cdiv(n, 2), max(1, min(m, 3), 2)) block=(min(n, 1024)) "
                       "args=(x)\n",
                       &d, &l),
                 BW_OK);
    CHECK_STR_EQ(expr_text(d.launches[0].grid[0]), "cdiv(n, 2)");
    CHECK_STR_EQ(expr_text(d.launches[0].grid[1]), "max(1, min(m, 3), 2)");
    CHECK(d.launches[0].grid[2] == NULL);
    CHECK_STR_EQ(expr_text(d.launches[0].block[0]), "min(n, 1024)");
    directives_release(&d);
}

TEST(directive_several_errors_reported)
{
    struct directives d;
    struct diag_list l = {0};
    const char *src = "// @const A=x\n"
                      "// @launch k grid=(1) block=(1) args=(x)\n"
                      "// @scratch 1 fp32[1]\n"
                      "// @flags -G\n";

    CHECK_INT_EQ(parse(src, &d, &l), BW_ERR_INVALID);
    CHECK_INT_EQ(l.n, 3);
    CHECK_INT_EQ(l.items[0].line, 1);
    CHECK_INT_EQ(l.items[1].line, 3);
    CHECK_INT_EQ(l.items[2].line, 4);
    CHECK_CONTAINS(l.items[2].msg, "allowed: --use_fast_math");
    CHECK(d.n_launches == 0 && d.n_consts == 0);
    diag_list_release(&l);
}

TEST(directive_too_many_errors_stop)
{
    struct buf b;
    struct directives d;
    struct diag_list l = {0};

    buf_init(&b, 1 << 20);
    buf_puts(&b, LAUNCH);
    for (int i = 0; i < 3 * BW_MAX_DIAGS; i++)
        buf_puts(&b, "// @nope\n");
    CHECK_INT_EQ(directives_parse(b.data, b.len, &d, &l), BW_ERR_INVALID);
    CHECK_INT_EQ(l.n, BW_MAX_DIAGS + 1);
    CHECK_CONTAINS(l.items[BW_MAX_DIAGS].msg, "too many errors");
    diag_list_release(&l);
    buf_release(&b);
}

/* Writes into buf a first line of `len` bytes starting with `head` and
 * padded with blanks, then LAUNCH. */
static void directive_line(char *buf, size_t len, const char *head)
{
    memset(buf, ' ', len);
    memcpy(buf, head, strlen(head));
    buf[len] = '\n';
    memcpy(buf + len + 1, LAUNCH, strlen(LAUNCH) + 1);
}

TEST(directive_source_limits)
{
    struct directives d;
    struct diag_list l = {0};
    char *big;
    size_t n;

    /* Size. */
    big = malloc(BW_MAX_SOURCE_BYTES + 2);
    memset(big, ' ', BW_MAX_SOURCE_BYTES + 1);
    memcpy(big, LAUNCH, strlen(LAUNCH));
    big[BW_MAX_SOURCE_BYTES + 1] = '\0';
    CHECK_INT_EQ(directives_parse(big, BW_MAX_SOURCE_BYTES + 1, &d, &l), BW_ERR_LIMIT);
    CHECK_INT_EQ(l.n, 1);
    CHECK_CONTAINS(l.items[0].msg, "(BW_MAX_SOURCE_BYTES)");
    diag_list_release(&l);
    CHECK_INT_EQ(directives_parse(big, BW_MAX_SOURCE_BYTES, &d, &l), BW_OK);
    directives_release(&d);

    /* Lines. */
    n = strlen(LAUNCH);
    memset(big + n, '\n', BW_MAX_SOURCE_LINES);
    big[n + BW_MAX_SOURCE_LINES] = '\0';
    CHECK_INT_EQ(directives_parse(big, n + BW_MAX_SOURCE_LINES - 1, &d, &l), BW_OK);
    directives_release(&d);
    CHECK_INT_EQ(directives_parse(big, n + BW_MAX_SOURCE_LINES, &d, &l), BW_ERR_LIMIT);
    CHECK_INT_EQ(l.n, 1);
    CHECK_CONTAINS(l.items[0].msg, "more than 10000 lines (BW_MAX_SOURCE_LINES)");
    diag_list_release(&l);

    /* Directive line length: exactly BW_MAX_DIRECTIVE_LINE bytes parse. */
    directive_line(big, BW_MAX_DIRECTIVE_LINE, "// @const A=1");
    CHECK_INT_EQ(parse(big, &d, &l), BW_OK);
    directives_release(&d);
    directive_line(big, BW_MAX_DIRECTIVE_LINE + 1, "// @const A=1");
    CHECK_INT_EQ(parse(big, &d, &l), BW_ERR_LIMIT);
    CHECK_INT_EQ(l.n, 1);
    CHECK_INT_EQ(l.items[0].line, 1);
    CHECK_INT_EQ(l.items[0].column, BW_MAX_DIRECTIVE_LINE + 1);
    CHECK_CONTAINS(l.items[0].msg, "1025 bytes, more than 1024 (BW_MAX_DIRECTIVE_LINE)");
    diag_list_release(&l);
    /* A long line that is not a directive is fine. */
    directive_line(big, BW_MAX_DIRECTIVE_LINE * 4, "int x; // @const A=1");
    CHECK_INT_EQ(parse(big, &d, &l), BW_OK);
    directives_release(&d);
    /* A too-long @launch line is not also "no @launch". */
    directive_line(big, BW_MAX_DIRECTIVE_LINE + 1, "// @launch k");
    big[BW_MAX_DIRECTIVE_LINE + 1] = '\0';
    CHECK_INT_EQ(parse(big, &d, &l), BW_ERR_LIMIT);
    CHECK_INT_EQ(l.n, 1);
    diag_list_release(&l);
    free(big);
}

TEST(directive_nul_byte)
{
    struct directives d;
    struct diag_list l = {0};
    const char src[] = LAUNCH "// @const A=1\0 // @launch evil grid=(1) block=(1) args=(x)\n";

    CHECK_INT_EQ(directives_parse(src, sizeof(src) - 1, &d, &l), BW_ERR_INVALID);
    CHECK_INT_EQ(l.n, 1);
    CHECK_INT_EQ(l.items[0].line, 2);
    CHECK_INT_EQ(l.items[0].column, 14);
    CHECK_CONTAINS(l.items[0].msg, "NUL byte");
    diag_list_release(&l);
}

TEST(directive_count_caps)
{
    struct buf b;
    struct directives d;
    struct diag_list l = {0};
    int i;

    /* Exactly at every cap parses. */
    buf_init(&b, 1 << 20);
    for (i = 0; i < BW_MAX_LAUNCHES; i++)
        buf_puts(&b, LAUNCH);
    for (i = 0; i < BW_MAX_SCRATCH; i++)
        buf_addf(&b, "// @scratch s%d fp32[1]\n", i);
    for (i = 0; i < BW_MAX_CONSTS; i++)
        buf_addf(&b, "// @const C%d=%d\n", i, i);
    buf_puts(&b, "// @tune T0=(1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16)\n");
    buf_puts(&b, "// @tune T1=(1, 2, 3, 4)\n// @tune T2=(1)\n// @tune T3=(7)\n");
    buf_puts(&b, "// @tune (T4, T5, T6, T7)=((1, 2, 3, 4))\n");
    for (i = 0; i < BW_MAX_LETS; i++)
        buf_addf(&b, "// @let L%d = %d\n", i, i);
    for (i = 0; i < BW_MAX_FLAGS; i++)
        buf_puts(&b, "// @flags -lineinfo\n");
    buf_puts(&b, "// @launch k grid=(1) block=(1) args=(a1, a2, a3, a4, a5, a6, a7, a8, a9, a10, "
                 "a11, a12, a13, a14, a15, a16, a17, a18, a19, a20, a21, a22, a23, a24, a25, a26, "
                 "a27, a28, a29, a30, a31, a32)\n");
    CHECK_INT_EQ(directives_parse(b.data, b.len, &d, &l), BW_ERR_LIMIT); /* 9 launches */
    CHECK_INT_EQ(l.n, 1);
    CHECK_CONTAINS(l.items[0].msg, "more than 8 @launch directives (BW_MAX_LAUNCHES)");
    diag_list_release(&l);
    /* Without the first launch, all caps are met exactly. */
    CHECK_INT_EQ(directives_parse(b.data + strlen(LAUNCH), b.len - strlen(LAUNCH), &d, &l), BW_OK);
    CHECK_INT_EQ(d.n_launches, BW_MAX_LAUNCHES);
    CHECK_INT_EQ(d.launches[BW_MAX_LAUNCHES - 1].n_args, BW_MAX_LAUNCH_ARGS);
    CHECK_INT_EQ(d.n_scratches, BW_MAX_SCRATCH);
    CHECK_INT_EQ(d.n_consts, BW_MAX_CONSTS);
    CHECK_INT_EQ(d.n_tunes, BW_MAX_TUNE_PARAMS);
    CHECK_INT_EQ(d.n_flags, BW_MAX_FLAGS);
    CHECK_INT_EQ(directives_tune_count(&d), BW_MAX_TUNE_CONFIGS);
    directives_release(&d);

    /* One more of each. */
    buf_reset(&b);
    buf_puts(&b, LAUNCH);
    for (i = 0; i <= BW_MAX_SCRATCH; i++)
        buf_addf(&b, "// @scratch s%d fp32[1]\n", i);
    for (i = 0; i <= BW_MAX_CONSTS; i++)
        buf_addf(&b, "// @const C%d=%d\n", i, i);
    for (i = 0; i <= BW_MAX_TUNE_PARAMS; i++)
        buf_addf(&b, "// @tune T%d=(1)\n", i);
    for (i = 0; i <= BW_MAX_FLAGS; i++)
        buf_puts(&b, "// @flags -lineinfo\n");
    for (i = 0; i <= BW_MAX_LETS; i++)
        buf_addf(&b, "// @let L%d = %d\n", i, i);
    buf_puts(&b, "// @tune (U1, U2)=((1, 2))\n");
    CHECK_INT_EQ(directives_parse(b.data, b.len, &d, &l), BW_ERR_LIMIT);
    CHECK_INT_EQ(l.n, 6);
    if (l.n == 6) {
        CHECK_CONTAINS(l.items[0].msg, "(BW_MAX_SCRATCH)");
        CHECK_CONTAINS(l.items[1].msg, "(BW_MAX_CONSTS)");
        CHECK_CONTAINS(l.items[2].msg, "(BW_MAX_TUNE_PARAMS)");
        CHECK_CONTAINS(l.items[3].msg, "(BW_MAX_FLAGS)");
        CHECK_CONTAINS(l.items[4].msg, "more than 32 @let names (BW_MAX_LETS)");
        CHECK_CONTAINS(l.items[5].msg, "more than 8 @tune names (BW_MAX_TUNE_PARAMS)");
    }
    diag_list_release(&l);
    buf_release(&b);

    CHECK_INT_EQ(one_error(LAUNCH "// @tune A=(1, 2, 3, 4, 5, 6, 7, 8)\n// @tune B=(1, 2, 3, 4, 5, "
                                  "6, 7, 8, 9)\n",
                           3, 4, "@tune makes 72 combinations, more than 64 (BW_MAX_TUNE_CONFIGS)"),
                 BW_ERR_LIMIT);
    CHECK_INT_EQ(one_error(LAUNCH "// @tune A=(1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, "
                                  "16, 17)\n",
                           2, 66, "more than 16 values for @tune A (BW_MAX_TUNE_VALUES)"),
                 BW_ERR_LIMIT);
}

TEST(directive_expression_caps)
{
    struct buf b;

    buf_init(&b, 4096);
    buf_puts(&b, "// @launch k grid=(");
    for (int i = 0; i < 300; i++)
        buf_puts(&b, "1+");
    buf_puts(&b, "1) block=(1) args=(x)\n");
    CHECK_INT_EQ(one_error(b.data, 1, 20, "expression in grid=(...) is longer than 512 bytes"),
                 BW_ERR_LIMIT);
    buf_reset(&b);
    buf_puts(&b, "// @launch k grid=(");
    for (int i = 0; i < 200; i++)
        buf_puts(&b, "1+");
    buf_puts(&b, "1) block=(1) args=(x)\n");
    CHECK_INT_EQ(one_error(b.data, 1, 275, "more than 256 nodes (BW_MAX_EXPR_NODES)"),
                 BW_ERR_LIMIT);
    buf_release(&b);
}

TEST(directive_names)
{
    one_error(LAUNCH "// @const int=1\n", 2, 11, "@const name 'int' cannot be used");
    one_error(LAUNCH "// @tune __x=(1)\n", 2, 10, "@tune name '__x' is reserved");
    one_error(LAUNCH "// @const blockDim=1\n", 2, 11, "'blockDim' cannot be used");
    one_error(LAUNCH "// @const cdiv=1\n", 2, 11, "'cdiv' cannot be used");
    one_error(LAUNCH "// @scratch ws fp32[1]\n// @scratch ws fp16[1]\n", 3, 13,
              "duplicate name 'ws': already defined by @scratch on line 2");
    one_error(LAUNCH "// @tune T=(1)\n// @scratch T fp16[1]\n", 3, 13,
              "already defined by @tune on line 2");
    /* A @scratch name is not a macro: keywords are merely odd there. */
    struct directives d;
    struct diag_list l = {0};
    CHECK_INT_EQ(parse(LAUNCH "// @scratch _Tmp fp16[1]\n", &d, &l), BW_OK);
    directives_release(&d);
    /* BW_MAX_NAME bytes is the longest name. */
    char src[256];
    snprintf(src, sizeof(src), "%s// @const %.*s=1\n", LAUNCH, BW_MAX_NAME,
             "AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA");
    CHECK_INT_EQ(parse(src, &d, &l), BW_OK);
    directives_release(&d);
    snprintf(src, sizeof(src), "%s// @const %.*s=1\n", LAUNCH, BW_MAX_NAME + 1,
             "AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA");
    CHECK_INT_EQ(one_error(src, 2, 11, "is longer than 64 bytes (BW_MAX_NAME)"), BW_ERR_LIMIT);
}

TEST(directive_flags_allowed)
{
    static const char *const ok[] = {
        "--use_fast_math",    "-use_fast_math",       "--ftz=true",
        "-ftz=false",         "--prec-div=true",      "--prec-sqrt=false",
        "--fmad=false",       "-fmad=true",           "--maxrregcount=1",
        "--maxrregcount=255", "-maxrregcount=64",     "--extra-device-vectorization",
        "-lineinfo",          "--generate-line-info", "--restrict",
        "-std=c++17",         "-std=c++20",           "--std=c++14",
    };
    static const char *const bad[] = {
        "-I/etc",
        "-I",
        "-DX=1",
        "--define-macro=X",
        "--include-path=/",
        "-include",
        "--pre-include=x",
        "-arch=sm_90",
        "--gpu-architecture=sm_90",
        "-G",
        "--device-debug",
        "-rdc=true",
        "--relocatable-device-code=true",
        "--dopt=on",
        "-Xptxas",
        "-Xptxas=-v",
        "--maxrregcount=0",
        "--maxrregcount=256",
        "--maxrregcount=064",
        "--maxrregcount=",
        "--maxrregcount=+5",
        "--maxrregcount",
        "--ftz=yes",
        "--ftz",
        "--ftz=true=false",
        "-std=c++98",
        "--std=gnu++17",
        "use_fast_math",
        "---use_fast_math",
        "",
        "-",
        "--",
        "--use_fast_math=1",
        "-lineinfo=1",
        "--fmad=TRUE",
        NULL,
    };
    for (size_t i = 0; i < sizeof(ok) / sizeof(ok[0]); i++)
        CHECK_MSG(directive_flag_allowed(ok[i]), "'%s' should be allowed", ok[i]);
    for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
        CHECK_MSG(!directive_flag_allowed(bad[i]), "'%s' should be rejected", bad[i]);
    CHECK_CONTAINS(directive_flag_allowlist(), "--maxrregcount=N");
    one_error(LAUNCH "// @flags --use_fast_math -DX=1\n", 2, 27,
              "option '-DX=1' is not allowed in @flags; use @const NAME=VALUE");
    one_error(LAUNCH "// @flags --use_fast_math \x01x\n", 2, 27, "option '\\x01x' is not allowed");
}

/* Every spelling the allowlist accepts is one NVRTC accepts: an allowed
 * option must never turn a learner's compile into NVRTC_ERROR_INVALID_OPTION. */
TEST(directive_flags_accepted_by_nvrtc)
{
    static const char *const names[] = {
        "use_fast_math",
        "extra-device-vectorization",
        "restrict",
        "lineinfo",
        "generate-line-info",
        "ftz=true",
        "ftz=false",
        "prec-div=true",
        "prec-div=false",
        "prec-sqrt=true",
        "prec-sqrt=false",
        "fmad=true",
        "fmad=false",
        "maxrregcount=1",
        "maxrregcount=32",
        "maxrregcount=255",
        "std=c++11",
        "std=c++14",
        "std=c++17",
        "std=c++20",
        "std=c++03",
        "device-debug",
        "G",
        "include-path=/",
        "pre-include=x",
    };
    const char *src = "extern \"C\" __global__ void k(float *x) { x[0] = 1.0f / x[1]; }";
    int allowed = 0;

    for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
        for (int dashes = 1; dashes <= 2; dashes++) {
            char opt[64];
            const char *opts[1] = {opt};
            nvrtcProgram prog;
            nvrtcResult r;

            snprintf(opt, sizeof(opt), "%s%s", dashes == 2 ? "--" : "-", names[i]);
            if (!directive_flag_allowed(opt))
                continue;
            allowed++;
            CHECK(nvrtcCreateProgram(&prog, src, "k.cu", 0, NULL, NULL) == NVRTC_SUCCESS);
            r = nvrtcCompileProgram(prog, 1, opts);
            CHECK_MSG(r == NVRTC_SUCCESS, "allowed option %s: %s", opt, nvrtcGetErrorString(r));
            nvrtcDestroyProgram(&prog);
        }
    }
    CHECK_INT_EQ(allowed, 38);
}

TEST(directive_tune_combinations)
{
    struct directives d;
    struct diag_list l = {0};
    int64_t v[3];

    CHECK_INT_EQ(parse(LAUNCH, &d, &l), BW_OK);
    CHECK_INT_EQ(directives_tune_count(&d), 1);
    directives_tune_combo(&d, 0, v); /* no @tune: writes nothing */
    directives_release(&d);

    CHECK_INT_EQ(
        parse(LAUNCH "// @tune A=(1, 2)\n// @tune B=(10, 20, 30)\n// @tune C=(-5, 5)\n", &d, &l),
        BW_OK);
    CHECK_INT_EQ(directives_tune_count(&d), 12);
    directives_tune_combo(&d, 0, v);
    CHECK(v[0] == 1 && v[1] == 10 && v[2] == -5);
    directives_tune_combo(&d, 1, v);
    CHECK(v[0] == 1 && v[1] == 10 && v[2] == 5);
    directives_tune_combo(&d, 2, v);
    CHECK(v[0] == 1 && v[1] == 20 && v[2] == -5);
    directives_tune_combo(&d, 11, v);
    CHECK(v[0] == 2 && v[1] == 30 && v[2] == 5);
    /* Every combination appears once. */
    int seen[2][3][2] = {{{0}}};
    for (size_t i = 0; i < 12; i++) {
        directives_tune_combo(&d, i, v);
        seen[v[0] - 1][v[1] / 10 - 1][v[2] > 0]++;
    }
    for (int a = 0; a < 2; a++)
        for (int b = 0; b < 3; b++)
            for (int c = 0; c < 2; c++)
                CHECK_INT_EQ(seen[a][b][c], 1);
    directives_release(&d);
}

TEST(directive_diag_list)
{
    struct diag_list l = {0};

    CHECK_INT_EQ(diag_list_addf(&l, 3, 7, "bad %s", "thing"), BW_OK);
    CHECK_INT_EQ(diag_list_addf(&l, 0, 0, "%d", 42), BW_OK);
    CHECK_INT_EQ(l.n, 2);
    CHECK_STR_EQ(l.items[0].msg, "bad thing");
    CHECK_INT_EQ(l.items[0].column, 7);
    CHECK_STR_EQ(l.items[1].msg, "42");
    diag_list_release(&l);
    CHECK(l.items == NULL && l.n == 0);
    diag_list_release(&l);
}

/* ------------------------------------------------------------------------ */
/* Golden files                                                              */

static void dump_plan(const struct directives *d, struct buf *b)
{
    size_t i, j;
    int k;

    for (i = 0; i < d->n_launches; i++) {
        const struct launch *l = &d->launches[i];
        buf_addf(b, "launch %s (line %d) grid=(", l->kernel, l->line);
        for (k = 0; k < 3 && l->grid[k]; k++)
            buf_addf(b, "%s%s", k ? ", " : "", expr_text(l->grid[k]));
        if (d->lang == LANG_CUDA) {
            buf_puts(b, ") block=(");
            for (k = 0; k < 3 && l->block[k]; k++)
                buf_addf(b, "%s%s", k ? ", " : "", expr_text(l->block[k]));
        }
        buf_puts(b, ")");
        if (l->smem)
            buf_addf(b, " smem=%s", expr_text(l->smem));
        if (l->num_warps)
            buf_addf(b, " num_warps=%s", expr_text(l->num_warps));
        if (l->num_stages)
            buf_addf(b, " num_stages=%s", expr_text(l->num_stages));
        if (l->maxnreg)
            buf_addf(b, " maxnreg=%s", expr_text(l->maxnreg));
        buf_puts(b, " args=(");
        for (j = 0; j < l->n_args; j++) {
            if (l->args[j].keyword)
                buf_addf(b, "%s%s%s=", j ? ", " : "", l->args[j].by_name ? "(by name) " : "",
                         l->args[j].keyword);
            if (l->args[j].keyword && l->args[j].kind == LAUNCH_ARG_NAME)
                buf_addf(b, "%s", l->args[j].name);
            else if (l->args[j].keyword && l->args[j].kind == LAUNCH_ARG_EXPR)
                buf_addf(b, "expr{%s}", expr_text(l->args[j].expr));
            else if (l->args[j].keyword)
                buf_addf(b, "%lld", (long long)l->args[j].value);
            else if (l->args[j].kind == LAUNCH_ARG_NAME)
                buf_addf(b, "%s%s", j ? ", " : "", l->args[j].name);
            else if (l->args[j].kind == LAUNCH_ARG_EXPR)
                buf_addf(b, "%sexpr{%s}", j ? ", " : "", expr_text(l->args[j].expr));
            else
                buf_addf(b, "%s%lld", j ? ", " : "", (long long)l->args[j].value);
        }
        buf_puts(b, ")\n");
    }
    for (i = 0; i < d->n_scratches; i++)
        buf_addf(b, "scratch %s %s[%s] (line %d)\n", d->scratches[i].name,
                 dtype_name(d->scratches[i].dtype), expr_text(d->scratches[i].count),
                 d->scratches[i].line);
    for (i = 0; i < d->n_consts; i++)
        buf_addf(b, "const %s=%lld (line %d)\n", d->consts[i].name, (long long)d->consts[i].value,
                 d->consts[i].line);
    for (i = 0; i < d->n_tunes; i++) {
        buf_addf(b, "tune %s=(", d->tunes[i].name);
        for (j = 0; j < d->tunes[i].n_values; j++)
            buf_addf(b, "%s%lld", j ? ", " : "", (long long)d->tunes[i].values[j]);
        buf_addf(b, ") (line %d, group %d)\n", d->tunes[i].line, d->tunes[i].group);
    }
    for (i = 0; i < d->n_lets; i++)
        buf_addf(b, "let %s = %s (line %d, column %d)\n", d->lets[i].name,
                 expr_text(d->lets[i].value), d->lets[i].line, d->lets[i].column);
    for (i = 0; i < d->n_flags; i++)
        buf_addf(b, "flag %s\n", d->flags[i]);
    buf_addf(b, "tune combinations %zu\n", directives_tune_count(d));
    for (i = 0; i < directives_tune_count(d) && d->n_tunes; i++) {
        int64_t v[BW_MAX_TUNE_PARAMS];
        char name[256];
        directives_tune_combo(d, i, v);
        directives_tune_describe(d, v, name, sizeof(name));
        buf_addf(b, "  %zu: %s\n", i, name);
    }
}

static int golden_filter(const struct dirent *e)
{
    size_t n = strlen(e->d_name);
    return n > 3 &&
           (strcmp(e->d_name + n - 3, ".cu") == 0 || strcmp(e->d_name + n - 3, ".py") == 0);
}

TEST(directive_golden_files)
{
    const char *dir = "tests/golden/directives";
    struct dirent **names;
    bool update = getenv("BW_UPDATE_GOLDEN") != NULL;
    int n = scandir(dir, &names, golden_filter, alphasort);
    int checked = 0;

    CHECK_MSG(n >= 20, "expected at least 20 golden files in %s, found %d", dir, n);
    for (int i = 0; i < n; i++) {
        char *cu = NULL, *expected = NULL, *src = NULL, *want = NULL, *cause = NULL;
        size_t len, base = strlen(names[i]->d_name) - 3;
        struct directives d;
        struct diag_list l = {0};
        struct buf got;
        int rc;

        cu = path_join(dir, names[i]->d_name);
        if (asprintf(&expected, "%s/%.*s.expected", dir, (int)base, names[i]->d_name) < 0)
            expected = NULL;
        if (!cu || !expected || read_file(cu, 1 << 20, &src, &len, &cause) != BW_OK) {
            CHECK_MSG(false, "cannot read %s: %s", names[i]->d_name, cause ? cause : "?");
            goto next;
        }
        buf_init(&got, 1 << 20);
        rc = directives_parse_as(strcmp(cu + strlen(cu) - 3, ".py") == 0 ? LANG_TRITON : LANG_CUDA,
                                 src, len, &d, &l);
        CHECK_MSG((rc == BW_OK) == (l.n == 0), "%s: rc %d with %zu diagnostics", cu, rc, l.n);
        for (size_t j = 0; j < l.n; j++)
            buf_addf(&got, "%d:%d: %s\n", l.items[j].line, l.items[j].column, l.items[j].msg);
        if (rc == BW_OK) {
            dump_plan(&d, &got);
            directives_release(&d);
        }
        diag_list_release(&l);
        if (update) {
            CHECK(write_file_atomic(expected, got.data ? got.data : "", got.len, NULL) == BW_OK);
        } else if (read_file(expected, 1 << 20, &want, &len, &cause) != BW_OK) {
            CHECK_MSG(false, "%s: %s", cu, cause);
        } else {
            CHECK_MSG(strcmp(want, got.data ? got.data : "") == 0,
                      "%s: diagnostics differ\n--- expected\n%s--- got\n%s", cu, want,
                      got.data ? got.data : "");
            checked++;
        }
        buf_release(&got);
    next:
        free(want);
        free(src);
        free(cause);
        free(expected);
        free(cu);
        free(names[i]);
    }
    if (n >= 0)
        free(names);
    if (update)
        SKIP("golden files rewritten");
    CHECK_INT_EQ(checked, n);
}

/* ---- Triton: # directives, its launch keys, keyword arguments ---------------------- */

static int parse_triton(const char *src, struct directives *d, struct diag_list *l)
{
    return directives_parse_as(LANG_TRITON, src, strlen(src), d, l);
}

/* Parses a Triton src expecting exactly one diagnostic at line:col containing msg. */
static void triton_error(const char *src, int line, int col, const char *msg)
{
    struct directives d;
    struct diag_list l = {0};

    CHECK_MSG(parse_triton(src, &d, &l) != BW_OK, "parsed: %s", src);
    CHECK_MSG(l.n == 1, "%zu diagnostics for %s (first: %s)", l.n, src,
              l.n ? l.items[0].msg : "none");
    if (l.n >= 1) {
        CHECK_MSG(l.items[0].line == line && l.items[0].column == col,
                  "at %d:%d, expected %d:%d (%s)", l.items[0].line, l.items[0].column, line, col,
                  l.items[0].msg);
        CHECK_CONTAINS(l.items[0].msg, msg);
    }
    diag_list_release(&l);
}

TEST(triton_directives_parse)
{
    const char *src = "# @tune BLOCK=(512, 1024)\n"
                      "#@const NW=8\n"
                      "import triton  # @launch in a comment after code is not a directive\n"
                      "  # @launch add grid=(cdiv(N, BLOCK)) num_warps=NW num_stages=(2 + 1) "
                      "args=(A, B, C, N - 1, BLOCK=BLOCK, EVEN=next_pow2(N))\n"
                      "# @scratch part int32[cdiv(N, BLOCK)]\n"
                      "// @launch not_a_directive_in_python grid=(1) block=(1) args=()\n";
    struct directives d;
    struct diag_list l = {0};

    CHECK_INT_EQ(parse_triton(src, &d, &l), BW_OK);
    CHECK_INT_EQ(l.n, 0);
    CHECK(d.lang == LANG_TRITON);
    CHECK_INT_EQ(d.n_launches, 1);
    CHECK_INT_EQ(d.n_tunes, 1);
    CHECK_INT_EQ(d.n_consts, 1);
    CHECK_INT_EQ(d.n_scratches, 1);
    if (d.n_launches == 1) {
        const struct launch *ln = &d.launches[0];
        CHECK_STR_EQ(ln->kernel, "add");
        CHECK(ln->num_warps && ln->num_stages && !ln->block[0] && !ln->smem);
        CHECK_INT_EQ(ln->n_args, 6);
        CHECK(ln->args[0].keyword == NULL && ln->args[3].kind == LAUNCH_ARG_EXPR);
        CHECK_STR_EQ(ln->args[4].keyword, "BLOCK");
        CHECK(ln->args[4].kind == LAUNCH_ARG_NAME);
        CHECK_STR_EQ(ln->args[5].keyword, "EVEN");
        CHECK(ln->args[5].kind == LAUNCH_ARG_EXPR);
        CHECK_INT_EQ(ln->args[5].column, 111); /* the value's column, after "EVEN=" */
        CHECK_INT_EQ(ln->args[5].keyword_column, 106);
    }
    directives_release(&d);
    /* @const names are not macros in Python: a C++ keyword is a fine name there */
    CHECK_INT_EQ(parse_triton("# @const int=4\n# @launch k grid=(1) args=(A, X=int)\n", &d, &l),
                 BW_OK);
    directives_release(&d);
}

/* Issue 28: "# @launch" on a line of a docstring was read as a directive. In
 * Python, directives are comments: a line inside a triple-quoted string is
 * text, whichever quotes, prefixes and escapes it has. */
TEST(triton_directives_not_in_strings)
{
    const char *src = "\"\"\"A module docstring that shows the directives:\n"
                      "# @launch wrong grid=(1) args=(A)\n"
                      "# @const NOT=1\n"
                      "\"\"\"\n"
                      "# @launch add grid=(cdiv(N, 1024)) args=(A, B, C, N, BLOCK=1024)\n"
                      "S = '\"\"\"'  # a one-quoted string holding three quotes opens nothing\n"
                      "T = r'\\''\n" /* a raw string's escaped quote does not close it */
                      "def f():\n"
                      "    r'''raw, with an escaped \\''' quote\n"
                      "    # @tune NOT_EITHER=(1, 2)\n"
                      "    '''\n"
                      "    return \"a \\\"quoted\\\" # @const NOR=3\"  # still code\n"
                      "U = b\"\"\"bytes \"\"\"; V = f'''\n"
                      "# @scratch nor_this float[4]\n"
                      "'''\n"
                      "# @const AFTER=2\n";
    struct directives d;
    struct diag_list l = {0};

    CHECK_MSG(parse_triton(src, &d, &l) == BW_OK, "%s", l.n ? l.items[0].msg : "");
    CHECK_INT_EQ(l.n, 0);
    CHECK_INT_EQ(d.n_launches, 1);
    if (d.n_launches == 1)
        CHECK_STR_EQ(d.launches[0].kernel, "add");
    CHECK_INT_EQ(d.n_tunes, 0);
    CHECK_INT_EQ(d.n_scratches, 0);
    CHECK_INT_EQ(d.n_consts, 1);
    if (d.n_consts == 1)
        CHECK_STR_EQ(d.consts[0].name, "AFTER");
    directives_release(&d);
    diag_list_release(&l);
    /* a @launch only in a docstring is none */
    triton_error("def k():\n    \"\"\"\n    # @launch k grid=(1) args=(A)\n    \"\"\"\n", 0, 0,
                 "no @launch directive");
    /* a CUDA file stays purely lexical: a // @ line inside a block comment counts */
    CHECK_INT_EQ(parse("/*\n// @launch k grid=(1) block=(1) args=(x)\n*/\n", &d, &l), BW_OK);
    CHECK_INT_EQ(d.n_launches, 1);
    directives_release(&d);
    diag_list_release(&l);
}

/* @rows: a reference's rows kernel (docs/problem-format.md). */
TEST(directive_rows_kernel)
{
    const char *src = LAUNCH "// @rows k_rows rows=(B*H) block=(128) smem=(8*D)\n";
    struct directives d;
    struct diag_list l = {0};

    CHECK_INT_EQ(parse(src, &d, &l), BW_OK);
    CHECK(d.rows != NULL);
    if (d.rows) {
        CHECK_STR_EQ(d.rows->kernel, "k_rows");
        CHECK_STR_EQ(expr_text(d.rows->rows), "(B*H)");
        CHECK(d.rows->block[0] && !d.rows->block[1] && d.rows->smem);
        CHECK_INT_EQ(d.rows->line, 2);
    }
    directives_release(&d);
    diag_list_release(&l);
    one_error(LAUNCH "// @rows k_rows rows=(N) block=(32) grid=(N)\n", 2, 37,
              "grid= in @rows: the judge launches one block per row");
    one_error(LAUNCH "// @rows k_rows rows=(N) block=(32) args=(x)\n", 2, 37, "args= in @rows");
    one_error(LAUNCH "// @rows k_rows block=(32)\n", 2, 4, "@rows needs rows=(...)");
    one_error(LAUNCH "// @rows k_rows rows=(N)\n", 2, 4, "@rows needs block=(...)");
    one_error(LAUNCH "// @rows a rows=(N) block=(1)\n// @rows b rows=(N) block=(1)\n", 3, 4,
              "a second @rows");
    one_error(LAUNCH "// @rows k rows=(N) block=(1) depth=(2)\n", 2, 31, "unknown key 'depth'");
}

TEST(triton_directive_errors)
{
    triton_error("# @launch k grid=(1) block=(256) args=(A)\n", 1, 22,
                 "block= in a Triton @launch: Triton decides the block");
    triton_error("# @launch k grid=(1) smem=1024 args=(A)\n", 1, 22, "smem= in a Triton @launch");
    triton_error("# @flags --use_fast_math\n# @launch k grid=(1) args=(A)\n", 1, 3,
                 "@flags is for CUDA");
    triton_error("# @launch k grid=(1) args=(A, BLOCK=64, N)\n", 1, 41,
                 "positional argument after the keyword argument 'BLOCK='");
    triton_error("# @launch k grid=(1) args=(A, B=1, B=2)\n", 1, 36,
                 "duplicate keyword argument 'B='");
    triton_error("# @launch k grid=(1) args=(A, B=)\n", 1, 33, "expected a value after 'B='");
    triton_error("# @launch k grid=(1) num_warps= args=(A)\n", 1, 33,
                 "expected an expression after num_warps=");
    triton_error("# @tune next_pow2=(1, 2)\n# @launch k grid=(1) args=(A)\n", 1, 9,
                 "is a function of the expression language");
    triton_error("import triton\n", 0, 0,
                 "no @launch directive: the judge has nothing to run "
                 "(add e.g. # @launch");
    /* the same keys in a CUDA file */
    CHECK_INT_EQ(one_error("// @launch k grid=(1) block=(1) num_warps=4 args=(A)\n", 1, 33,
                           "num_warps= is a Triton launch option"),
                 BW_ERR_INVALID);
    CHECK_INT_EQ(one_error("// @launch k grid=(1) block=(1) args=(A, BLOCK=64)\n", 1, 42,
                           "keyword argument 'BLOCK=' in a CUDA @launch"),
                 BW_ERR_INVALID);
}

/* maxnreg=: Triton's cap on registers per thread, parsed like num_stages=. */
TEST(triton_launch_maxnreg)
{
    struct directives d;
    struct diag_list l = {0};

    CHECK_INT_EQ(parse_triton("# @tune R=(168, 232)\n"
                              "# @launch k grid=(1) num_warps=4 maxnreg=R args=(A)\n"
                              "# @launch k grid=(1) maxnreg=(8 * 21) args=(A)\n"
                              "# @launch k grid=(1) args=(A)\n",
                              &d, &l),
                 BW_OK);
    CHECK_INT_EQ(l.n, 0);
    CHECK_INT_EQ(d.n_launches, 3);
    if (d.n_launches == 3) {
        CHECK(d.launches[0].maxnreg != NULL);
        CHECK_STR_EQ(expr_text(d.launches[0].maxnreg), "R");
        CHECK_INT_EQ(d.launches[0].maxnreg_column, 34);
        CHECK(d.launches[1].maxnreg != NULL);
        CHECK_STR_EQ(expr_text(d.launches[1].maxnreg), "(8 * 21)");
        CHECK_INT_EQ(d.launches[1].maxnreg_column, 22);
        CHECK(d.launches[2].maxnreg == NULL && d.launches[2].maxnreg_column == 0);
    }
    directives_release(&d);

    triton_error("# @launch k grid=(1) maxnreg= args=(A)\n", 1, 31,
                 "expected an expression after maxnreg=");
    triton_error("# @launch k grid=(1) maxnreg=128 maxnreg=64 args=(A)\n", 1, 34,
                 "duplicate maxnreg= in @launch (first at column 22)");
    triton_error("# @launch k grid=(1 maxnreg=128 args=(A)\n", 1, 21,
                 "expected ')' to close grid=( at column 18 before maxnreg=");
    triton_error("# @launch k grid=(1) maxregs=128 args=(A)\n", 1, 22,
                 "unknown key 'maxregs' in @launch (expected grid=, num_warps=, num_stages=, "
                 "maxnreg=, args=)");
    triton_error("# @flags --maxrregcount=128\n# @launch k grid=(1) args=(A)\n", 1, 3,
                 "options are num_warps=, num_stages= and maxnreg= on its @launch");
    CHECK_INT_EQ(one_error("// @launch k grid=(1) block=(1) maxnreg=128 args=(A)\n", 1, 33,
                           "maxnreg= is a Triton launch option"),
                 BW_ERR_INVALID);
}

/* ---- continuation lines --------------------------------------------------------------- */

TEST(directive_continuation_keeps_file_positions)
{
    const char *src = "// @launch k grid=(cdiv(n, 256)) \\\n"
                      "  //   block=(256) smem=(4 * 256) \\\n"
                      "//args=(x,\\\r\n"
                      "//    out, n / 2)\n";
    const char *py = "# @const B=64\n"
                     "# @launch k grid=(cdiv(N, B)) \\\n"
                     "#     num_warps=4 args=(A, N, \\\n"
                     "#     B=B)\n";
    struct directives d;
    struct diag_list l = {0};

    CHECK_INT_EQ(parse(src, &d, &l), BW_OK);
    if (d.n_launches == 1) {
        const struct launch *a = &d.launches[0];
        CHECK_INT_EQ(a->line, 1);
        CHECK_INT_EQ(a->grid_line, 1);
        CHECK_INT_EQ(a->grid_column, 14);
        CHECK_INT_EQ(a->block_line, 2);
        CHECK_INT_EQ(a->block_column, 8);
        CHECK_INT_EQ(a->smem_line, 2);
        CHECK_INT_EQ(a->smem_column, 20);
        CHECK_INT_EQ(a->n_args, 3);
        CHECK_STR_EQ(expr_text(a->block[0]), "256");
        CHECK(a->args[0].line == 3 && a->args[0].column == 9);
        CHECK(a->args[1].line == 4 && a->args[1].column == 7);
        CHECK(a->args[2].line == 4 && a->args[2].column == 12);
        CHECK_STR_EQ(expr_text(a->args[2].expr), "n / 2");
        directives_release(&d);
    }
    CHECK_INT_EQ(parse_triton(py, &d, &l), BW_OK);
    if (d.n_launches == 1) {
        CHECK_INT_EQ(d.launches[0].n_args, 3);
        CHECK_STR_EQ(d.launches[0].args[2].keyword, "B");
        CHECK(d.launches[0].args[2].line == 4 && d.launches[0].args[2].keyword_column == 7);
        directives_release(&d);
    }
    /* An error on a continuation line is at its own line and column. */
    one_error("// @launch k grid=(1) \\\n//   block=(1) args=(x, 2 +)\n", 2, 28,
              "got end of expression");
    one_error("// @launch k grid=(1) \\\n//   block=(1) args=(x) grid=(2)\n", 2, 25,
              "duplicate grid= in @launch (first at line 1, column 14)");
    one_error("// @launch k grid=(1) block=(1) args=(x) \\\n#   oops\n", 1, 42,
              "onto a line that is not a // comment");
    one_error("// @launch k grid=(1) block=(1) args=(x) \\ \t\n", 1, 42,
              "onto the end of the file");
    triton_error("# @launch k grid=(1) args=(x) \\\n// more\n", 1, 31,
                 "onto a line that is not a # comment");
    /* Diagnostics of a directive over several lines come in the file's order. */
    CHECK(parse("// @launch k grid=(1) \\\n//   args=(1 +) bad\n", &d, &l) != BW_OK);
    CHECK_INT_EQ(l.n, 2);
    if (l.n == 2) {
        CHECK(l.items[0].line == 2 && l.items[1].line == 2);
        CHECK_CONTAINS(l.items[1].msg, "expected '=' after 'bad'");
    }
    diag_list_release(&l);
}

TEST(directive_continuation_limits)
{
    struct directives d;
    struct diag_list l = {0};
    struct buf b;

    /* BW_MAX_CONT_LINES lines parse; one more is a limit. */
    buf_init(&b, 1 << 20);
    buf_puts(&b, "// @launch k grid=(1) block=(1) args=(x \\\n");
    for (int i = 2; i < BW_MAX_CONT_LINES; i++)
        buf_puts(&b, "// , x \\\n");
    buf_puts(&b, "// )\n");
    CHECK_INT_EQ(parse(b.data, &d, &l), BW_OK);
    if (l.n == 0) {
        CHECK_INT_EQ(d.launches[0].n_args, BW_MAX_CONT_LINES - 1);
        directives_release(&d);
    }
    b.len -= 5;
    buf_puts(&b, "// , x \\\n// )\n");
    CHECK_INT_EQ(parse(b.data, &d, &l), BW_ERR_LIMIT);
    CHECK(l.n >= 1 && l.items[0].line == BW_MAX_CONT_LINES);
    if (l.n >= 1)
        CHECK_CONTAINS(l.items[0].msg, "more than 16 lines (BW_MAX_CONT_LINES)");
    diag_list_release(&l);
    buf_release(&b);
    /* BW_MAX_JOINED_BYTES joined. */
    buf_init(&b, 1 << 20);
    buf_puts(&b, "// @launch k grid=(1) block=(1) args=(x) smem=(1 \\\n");
    for (int i = 0; i < 5; i++) {
        buf_puts(&b, "// ");
        for (int k = 0; k < 500; k++)
            buf_puts(&b, "+1");
        buf_puts(&b, "\\\n");
    }
    buf_puts(&b, "// )\n");
    CHECK_INT_EQ(parse(b.data, &d, &l), BW_ERR_LIMIT);
    if (l.n >= 1)
        CHECK_CONTAINS(l.items[0].msg, "more than 4096 bytes with its continuation lines "
                                       "(BW_MAX_JOINED_BYTES)");
    diag_list_release(&l);
    buf_release(&b);
}

/* ---- Triton: tl.constexpr parameters passed by name --------------------------------- */

TEST(triton_constexpr_by_name)
{
    const char *src = "# @const BLOCK=128\n# @tune W=(4, 8)\n# @let ROWS = next_pow2(N)\n"
                      "# @launch k grid=(1) num_warps=W args=(x, BLOCK=64)\n"
                      "# @launch g grid=(1) args=(x)\n"
                      "# @launch absent grid=(1) args=(x)\n"
                      "from triton.experimental import gluon\n"
                      "def k(x, BLOCK: tl.constexpr, W: tl.constexpr, N: tl.constexpr,\n"
                      "      ROWS: 'tl.constexpr' = 2, OTHER: tl.constexpr = 1):\n"
                      "    def absent(x, BLOCK: tl.constexpr):  # nested: not a kernel\n"
                      "        pass\n"
                      "def g(x, W,  # not a constexpr: positional\n"
                      "      BLOCK: gl.constexpr, ROWS: gl.constexpr = (1, 2)[0]):\n"
                      "    pass\n";
    struct directives d;
    struct diag_list l = {0};

    CHECK_INT_EQ(parse_triton(src, &d, &l), BW_OK);
    if (d.n_launches == 3) {
        const struct launch *k = &d.launches[0], *g = &d.launches[1];
        CHECK_INT_EQ(k->n_args, 4); /* x, BLOCK=64 as written, then W and ROWS by name */
        CHECK(!k->args[1].by_name && k->args[1].kind == LAUNCH_ARG_INTEGER);
        CHECK(k->args[2].by_name && strcmp(k->args[2].keyword, "W") == 0);
        CHECK_STR_EQ(k->args[2].name, "W");
        CHECK(k->args[3].by_name && strcmp(k->args[3].keyword, "ROWS") == 0);
        CHECK_INT_EQ(k->args[3].line, 4);
        CHECK_INT_EQ(g->n_args, 3);
        CHECK(g->args[1].by_name && strcmp(g->args[1].keyword, "BLOCK") == 0);
        CHECK(g->args[2].by_name && strcmp(g->args[2].keyword, "ROWS") == 0);
        CHECK_INT_EQ(d.launches[2].n_args, 1);
        directives_release(&d);
    }
    diag_list_release(&l);
}

TEST(triton_constexpr_by_name_cap)
{
    struct buf b;
    struct directives d;
    struct diag_list l = {0};

    buf_init(&b, 1 << 16);
    buf_puts(&b, "# @launch k grid=(1) args=(x0");
    for (int i = 1; i < BW_MAX_LAUNCH_ARGS; i++)
        buf_addf(&b, ", x%d", i);
    buf_puts(&b, ")\n# @const C=1\ndef k(C: tl.constexpr):\n    pass\n");
    CHECK_INT_EQ(parse_triton(b.data, &d, &l), BW_ERR_LIMIT);
    CHECK_INT_EQ(l.n, 1);
    if (l.n == 1) {
        CHECK(l.items[0].line == 1 && l.items[0].column == 1);
        CHECK_CONTAINS(l.items[0].msg, "@launch k: with its tl.constexpr parameters passed by "
                                       "name, more than 32 arguments (BW_MAX_LAUNCH_ARGS)");
    }
    diag_list_release(&l);
    buf_release(&b);
}
