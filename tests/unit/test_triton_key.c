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
