/* Tests of judge/worker/triton_key: what a Triton build's cache key covers (the module but its
 * launch lines, the variant, the target, Triton's version), and which lines are launch lines. */
#include "tests/test.h"

#include <stdlib.h>
#include <string.h>

#include "common/buf.h"
#include "common/error.h"
#include "common/limits.h"
#include "judge/worker/triton_key.h"
#include "common/banned.h"

/* The module text of src (a *new* string) and how many lines were blanked. */
static char *text_of(const char *src, size_t *blanked)
{
    struct buf b;
    char *out;

    buf_init(&b, BW_MAX_SOURCE_BYTES + 1);
    if (triton_key_module_text(src, strlen(src), &b, blanked) != BW_OK) {
        buf_release(&b);
        return NULL;
    }
    out = buf_detach(&b);
    return out ? out : strdup("");
}

static const char add_py[] =
    "# @const BLOCK=256\n"
    "# @launch add grid=(cdiv(N, BLOCK)) num_warps=4 args=(x, y, out, N, BLOCK=BLOCK)\n"
    "import triton\n"
    "import triton.language as tl\n"
    "\n"
    "\n"
    "@triton.jit\n"
    "def add(x, y, out, n, BLOCK: tl.constexpr):\n"
    "    # a comment the learner wrote: part of the key\n"
    "    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)\n"
    "    tl.store(out + offs, tl.load(x + offs) + tl.load(y + offs))\n";

TEST(launch_lines_are_blanked_and_lines_keep_their_numbers)
{
    size_t blanked;
    char *t = text_of(add_py, &blanked);

    CHECK(t != NULL);
    CHECK_INT_EQ(blanked, 2);
    CHECK(strncmp(t, "\n\nimport triton\n", 16) == 0);
    CHECK_CONTAINS(t, "# a comment the learner wrote");
    CHECK_INT_EQ(strlen(t), strlen(add_py) - strlen("# @const BLOCK=256") -
                                strlen("# @launch add grid=(cdiv(N, BLOCK)) num_warps=4 args=(x, "
                                       "y, out, N, BLOCK=BLOCK)"));
    free(t);
    /* indented, tabs, "#@", CRLF */
    t = text_of("x = 1\n\t#@tune B=(1, 2)\r\n    #  @launch k grid=(1) args=()\ny = 2", &blanked);
    CHECK_STR_EQ(t, "x = 1\n\n\ny = 2");
    CHECK_INT_EQ(blanked, 2);
    free(t);
}

TEST(only_lines_python_reads_as_comments_are_launch_lines)
{
    static const char *const kept[] = {
        /* inside a triple-quoted string */
        "s = '''\n# @launch k grid=(1) args=()\n'''\n",
        "s = \"\"\"doc\n  # @const A=1\n\"\"\"\n",
        "s = rb'''\n# @const A=1\n'''\n",
        /* a single-quoted string continued with a backslash */
        "s = 'a\\\n# @const A=1'\n",
        /* after a backslash continuation (Python would join the lines) */
        "x = 1 + \\\n# @const A=1\n",
        /* code before the '#' */
        "x = 1  # @const A=1\n",
        /* an f-string whose replacement field holds a quote: not followed, nothing blanked */
        "s = f\"{d[\"k\"]}\"\n# @const A=1\n",
        "s = f'''{x[\n'a']}'''\n# @const A=1\n",
    };
    for (size_t i = 0; i < sizeof(kept) / sizeof(kept[0]); i++) {
        size_t blanked = 99;
        char *t = text_of(kept[i], &blanked);
        CHECK_MSG(t && strcmp(t, kept[i]) == 0 && blanked == 0, "case %zu: %zu blanked: %s", i,
                  blanked, t ? t : "(null)");
        free(t);
    }
    static const char *const blank[][2] = {
        /* strings that end before the line */
        {"s = '''a''' + \"b\" + 'c\\'d'\n# @const A=1\n", "s = '''a''' + \"b\" + 'c\\'d'\n\n"},
        {"s = f'{x}{{' + f\"{y!r}\"\n# @const A=1\n", "s = f'{x}{{' + f\"{y!r}\"\n\n"},
        {"t = (1,\n  # @const A=1\n  2)\n", "t = (1,\n\n  2)\n"}, /* inside brackets: a comment */
        {"x = '#'\n# @const A=1", "x = '#'\n"},
    };
    for (size_t i = 0; i < sizeof(blank) / sizeof(blank[0]); i++) {
        char *t = text_of(blank[i][0], NULL);
        CHECK_MSG(t && strcmp(t, blank[i][1]) == 0, "case %zu: %s", i, t ? t : "(null)");
        free(t);
    }
}

static void module_key(const char *src, const char *version, char key[65])
{
    struct triton_request rq = {.source = src, .len = strlen(src), .cc_major = 9};

    CHECK(triton_key_module(&rq, version, key));
}

TEST(a_launch_only_edit_keeps_the_module_key)
{
    char *edited = strdup(add_py), *commented = NULL, *code = NULL;
    char k0[65], k1[65], k2[65], k3[65], k4[65];

    module_key(add_py, "3.6.0", k0);
    /* the grid and a non-constexpr argument */
    memcpy(strstr(edited, "grid=(cdiv(N, BLOCK))"), "grid=(cdiv(N, 256)) ", 20);
    module_key(edited, "3.6.0", k1);
    CHECK_STR_EQ(k0, k1);
    /* a comment appended (what the bench's fresh edit does) is code's business */
    CHECK(asprintf(&commented, "%s# edit 1\n", add_py) > 0);
    module_key(commented, "3.6.0", k2);
    CHECK(strcmp(k0, k2) != 0);
    /* the kernel */
    code = strdup(add_py);
    *strstr(code, "+ tl.load(y") = '-';
    module_key(code, "3.6.0", k3);
    CHECK(strcmp(k0, k3) != 0);
    /* Triton's version */
    module_key(add_py, "3.5.0", k4);
    CHECK(strcmp(k0, k4) != 0);
    /* the target, the file name, the sandbox */
    struct triton_request rq = {.source = add_py, .len = strlen(add_py), .cc_major = 10};
    CHECK(triton_key_module(&rq, "3.6.0", k4) && strcmp(k0, k4) != 0);
    rq.cc_major = 9;
    rq.filename = "other.py";
    CHECK(triton_key_module(&rq, "3.6.0", k4) && strcmp(k0, k4) != 0);
    rq.filename = NULL;
    rq.no_sandbox = true;
    CHECK(triton_key_module(&rq, "3.6.0", k4) && strcmp(k0, k4) != 0);
    rq.no_sandbox = false;
    CHECK(triton_key_module(&rq, "3.6.0", k4) && strcmp(k0, k4) == 0);
    free(edited);
    free(commented);
    free(code);
}

TEST(the_build_key_names_the_variant_in_full)
{
    struct triton_arg args[] = {{"*fp32", true, false}, {"i32", true, false}};
    struct triton_constexpr cx[] = {{"BLOCK", 256}};
    struct triton_kernel_request k = {.kernel = "add",
                                      .args = args,
                                      .n_args = 2,
                                      .constexprs = cx,
                                      .n_constexprs = 1,
                                      .num_warps = 4,
                                      .num_stages = 3};
    char m[65], m2[65], base[65], other[65];

    module_key(add_py, "3.6.0", m);
    module_key("import triton\n", "3.6.0", m2);
    triton_key_build(m, &k, base);
    triton_key_build(m2, &k, other);
    CHECK(strcmp(base, other) != 0);
#define CHANGED(stmt, undo)                                                                        \
    do {                                                                                           \
        stmt;                                                                                      \
        triton_key_build(m, &k, other);                                                            \
        CHECK_MSG(strcmp(base, other) != 0, "%s keeps the key", #stmt);                            \
        undo;                                                                                      \
    } while (0)
    CHANGED(k.kernel = "add2", k.kernel = "add");
    CHANGED(args[1].type = "i64", args[1].type = "i32");
    CHANGED(args[1].div16 = false, args[1].div16 = true);
    CHANGED((args[1].div16 = false, args[1].equal1 = true),
            (args[1].div16 = true, args[1].equal1 = false));
    CHANGED(cx[0].value = 512, cx[0].value = 256);
    CHANGED(cx[0].name = "B", cx[0].name = "BLOCK");
    CHANGED(k.num_warps = 8, k.num_warps = 4);
    CHANGED(k.num_stages = 2, k.num_stages = 3);
    CHANGED(k.maxnreg = 168, k.maxnreg = 0);
    CHANGED(k.n_constexprs = 0, k.n_constexprs = 1);
#undef CHANGED
    k.line = 7; /* where a binding error would be reported: no part of a build */
    triton_key_build(m, &k, other);
    CHECK_STR_EQ(base, other);
}

/* ---- a launcher's launch code ------------------------------------------------------ */

/* The launcher text of src (a *new* string) and how many lines were blanked. */
static char *launcher_text(const char *src, size_t *blanked)
{
    struct buf b;
    char *out;

    buf_init(&b, BW_MAX_SOURCE_BYTES + 1);
    if (triton_key_launcher_text(src, strlen(src), &b, blanked) != BW_OK) {
        buf_release(&b);
        return NULL;
    }
    out = buf_detach(&b);
    return out ? out : strdup("");
}

static size_t count_lines(const char *s)
{
    size_t n = 0;
    for (; *s; s++)
        n += *s == '\n';
    return n;
}

static const char softmax_py[] =
    "# The judge calls solve(X, Y, M, N) for every case.\n" /* 1: solve in a comment */
    "\"\"\"and in a docstring: solve(X, Y, M, N)\"\"\"\n"   /* 2 */
    "import triton\n"                                       /* 3 */
    "import triton.language as tl\n"                        /* 4 */
    "\n"                                                    /* 5 */
    "TILE = 4096\n"                                         /* 6 */
    "\n"                                                    /* 7 */
    "\n"                                                    /* 8 */
    "@triton.jit\n"                                         /* 9 */
    "def softmax(X, Y, M, N, BLOCK_N: tl.constexpr, ROWS: tl.constexpr):\n"
    "    pid = tl.program_id(0)\n"         /* 11 */
    "\n"                                   /* 12 */
    "\n"                                   /* 13 */
    "def grid_of(M, rows):\n"              /* 14 */
    "    return (triton.cdiv(M, rows),)\n" /* 15 */
    "\n"                                   /* 16 */
    "\n"                                   /* 17 */
    "def solve(X, Y, M, N):\n"             /* 18 */
    "    '''The launcher: its docstring is launch code.'''\n"
    "    block_n = max(16, triton.next_power_of_2(N))\n" /* 20 */
    "# a comment at column 0 inside the body\n"          /* 21 */
    "    rows = max(1, TILE // block_n)\n"               /* 22 */
    "    softmax[grid_of(M, rows)](X, Y, M, N, BLOCK_N=block_n,\n"
    "ROWS=rows)\n"                   /* 24: column 0 inside brackets */
    "\n"                             /* 25 */
    "\n"                             /* 26 */
    "if __name__ == \"__main__\":\n" /* 27 */
    "    solve(None, None, 1, 1)\n"; /* 28 */

TEST(launcher_bodies_are_blanked_and_lines_keep_their_numbers)
{
    size_t blanked = 0;
    char *t = launcher_text(softmax_py, &blanked);

    CHECK(t != NULL);
    if (!t)
        return;
    CHECK_INT_EQ(count_lines(t), count_lines(softmax_py));
    /* solve's body (19-24), grid_of's (only solve calls it: 15), the __main__ block (28) */
    CHECK_INT_EQ(blanked, 6 + 1 + 1);
    CHECK_CONTAINS(t, "def grid_of(M, rows):\n    pass\n\n\ndef solve(X, Y, M, N):\n    pass\n"
                      "\n\n\n\n\n\n\nif __name__ == \"__main__\":\n    pass\n");
    /* what the kernels are compiled from stays: the kernel, the constant, the comments */
    CHECK_CONTAINS(t, "    pid = tl.program_id(0)\n");
    CHECK_CONTAINS(t, "TILE = 4096\n");
    CHECK_CONTAINS(t, "# The judge calls solve(X, Y, M, N)");
    CHECK(!strstr(t, "next_power_of_2"));
    free(t);
}

TEST(launcher_key_ignores_solve_edits_but_not_kernel_edits)
{
    char *grid = strdup(softmax_py), *arg = strdup(softmax_py), *kernel = strdup(softmax_py);
    char *t0 = launcher_text(softmax_py, NULL), *t1, *t2, *t3;
    char k0[65], k1[65], k2[65], k3[65], k4[65];

    memcpy(strstr(grid, "max(1, TILE"), "max(2, TILE", 11); /* the grid's rows */
    memcpy(strstr(arg, "max(16, "), "max(32, ", 8);         /* a constexpr value */
    memcpy(strstr(kernel, "program_id(0)"), "program_id(1)", 13);
    t1 = launcher_text(grid, NULL);
    t2 = launcher_text(arg, NULL);
    t3 = launcher_text(kernel, NULL);
    CHECK(t0 && t1 && t2 && t3);
    if (t0 && t1 && t2 && t3) {
        CHECK_STR_EQ(t0, t1);
        CHECK_STR_EQ(t0, t2); /* the constexpr value is in the variant's key, not the module's */
        CHECK(strcmp(t0, t3) != 0);
        triton_key_launcher_module(t0, strlen(t0), NULL, 9, 0, "3.6.0", true, "name=H200", k0);
        triton_key_launcher_module(t1, strlen(t1), NULL, 9, 0, "3.6.0", true, "name=H200", k1);
        triton_key_launcher_module(t3, strlen(t3), NULL, 9, 0, "3.6.0", true, "name=H200", k2);
        triton_key_launcher_module(t0, strlen(t0), NULL, 9, 0, "3.6.0", true, "name=H100", k3);
        triton_key_launcher_module(t0, strlen(t0), NULL, 9, 0, "3.6.0", false, "name=H200", k4);
        CHECK_STR_EQ(k0, k1);
        CHECK(strcmp(k0, k2) != 0);
        CHECK(strcmp(k0, k3) != 0); /* the GPU's figures: the module may read them at import */
        CHECK(strcmp(k0, k4) != 0);
        /* a launcher module's key is never a directive module's, nor a variant's */
        triton_key_variant(k0, "softmax(*fp32:D)[]{4,3,0}", k1);
        triton_key_variant(k0, "softmax(*fp32:D)[]{8,3,0}", k2);
        CHECK(strcmp(k1, k2) != 0 && strcmp(k0, k1) != 0);
    }
    free(grid);
    free(arg);
    free(kernel);
    free(t0);
    free(t1);
    free(t2);
    free(t3);
}

TEST(launcher_keyed_whole_when_solve_is_not_only_launch_code)
{
    static const char *const whole[] = {
        /* solve decorated: the decorator receives its body */
        "import functools\n\n@functools.lru_cache\ndef solve(A):\n    k[(1,)](A)\n",
        /* used at the top level */
        "def solve(A):\n    k[(1,)](A)\n\n\nrun = solve\n",
        /* used by a kernel's body (a name the module needs) */
        "@triton.jit\ndef k(x):\n    solve(x)\n\n\ndef solve(A):\n    k[(1,)](A)\n",
        /* defined twice */
        "def solve(A):\n    pass\n\n\ndef solve(A):\n    k[(1,)](A)\n",
        /* a one-liner */
        "def solve(A): k[(1,)](A)\n",
        /* a string this reader cannot follow */
        "s = f\"{d[\"k\"]}\"\n\n\ndef solve(A):\n    k[(1,)](A)\n",
        /* async */
        "async def solve(A):\n    k[(1,)](A)\n",
        /* none */
        "import triton\n",
    };
    for (size_t i = 0; i < sizeof(whole) / sizeof(whole[0]); i++) {
        size_t blanked = 99;
        char *t = launcher_text(whole[i], &blanked);
        CHECK_MSG(t && strcmp(t, whole[i]) == 0 && blanked == 0, "case %zu: %zu blanked: %s", i,
                  blanked, t ? t : "(null)");
        free(t);
    }
}

TEST(launcher_helpers_used_by_the_module_are_kept)
{
    static const char src[] = "import triton\n"
                              "\n"
                              "def configs():\n" /* 3: used by the autotune decorator: kept */
                              "    return [1, 2]\n"
                              "\n"
                              "def inner():\n" /* 6: used by configs (kept): kept */
                              "    return 3\n"
                              "\n"
                              "@triton.autotune(configs=configs(), key=['N'])\n"
                              "@triton.jit\n"
                              "def k(x, N):\n"
                              "    pass\n"
                              "\n"
                              "def launch(x, N):\n" /* 14: only solve calls it: blanked */
                              "    k[(1,)](x, N, inner2())\n"
                              "\n"
                              "def inner2():\n" /* 17: only launch calls it: blanked */
                              "    return configs()\n"
                              "\n"
                              "def solve(X, N):\n"
                              "    launch(X, N)\n"
                              "\n"
                              "if __name__ == '__main__':\n"
                              "    print(1)\n"
                              "else:\n" /* a __main__ test with else: run, kept */
                              "    inner()\n";
    size_t blanked = 0;
    char *t = launcher_text(src, &blanked);

    CHECK(t != NULL);
    if (!t)
        return;
    CHECK_INT_EQ(blanked, 3);
    CHECK_CONTAINS(t, "def configs():\n    return [1, 2]\n");
    CHECK_CONTAINS(t, "def inner():\n    return 3\n");
    CHECK_CONTAINS(t, "def launch(x, N):\n    pass\n\ndef inner2():\n    pass\n\n"
                      "def solve(X, N):\n    pass\n");
    CHECK_CONTAINS(t, "if __name__ == '__main__':\n    print(1)\nelse:\n    inner()\n");
    free(t);
}
