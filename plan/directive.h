/*
 * directive.h - the submission contract: the directives of a source, as
 * parsed from its text. It owns struct directives and what it holds; the
 * first step of the launch language (plan/README.md: text -> directives ->
 * checked plan -> per-case plan -> runner form).
 *
 * A directive is a line whose first non-blank characters are "//" (in a .cu
 * file; "#" in a .py file), then optional blanks, then '@'. The rule is
 * purely lexical: such a line is a directive wherever it is (inside a block
 * comment, a raw string or an #if 0 too), and nothing else is (a "@launch"
 * after code, or after "/" "*", is not). Everything else in the file is CUDA
 * for NVRTC (or Python for Triton).
 * The directives (docs/submission-format.md is the learner-facing text):
 *
 *   // @launch KERNEL grid=(e[,e[,e]]) block=(e[,e[,e]]) [smem=e] args=(a, ...)
 *   // @scratch NAME TYPE[e]
 *   // @const NAME=INT
 *   // @tune NAME=(v1, v2, ...)
 *   // @tune (A, B, ...)=((a1, b1, ...), (a2, b2, ...), ...)
 *   // @let NAME = e
 *   // @flags OPTION ...
 *
 * A directive line ending in '\' (blanks after it allowed) continues on the
 * next line, which must be a comment line of the same kind; its text after
 * the comment marker and blanks is appended (directive.c). Every byte keeps
 * its line and column in the file for errors.
 *
 * @launch: KERNEL first, then the keys grid=, block=, smem= and args= in any
 * order, each at most once; grid, block and args are required (args=() is a
 * kernel without parameters). grid and block take 1 to 3 comma-separated
 * expressions in parentheses (commas inside cdiv/min/max calls do not split);
 * smem's value runs to the next blank outside parentheses (smem=4*BLOCK or
 * smem=(4 * BLOCK)). Blanks around '=' are allowed; nothing may follow the
 * last key on the line (no trailing comment).
 *
 * Expressions `e` are expr.h's (integer-valued here: a real literal is an
 * error); they may use the problem's size names, @const, @tune and @let
 * names. `args` entries are a name alone (a tensor, size or scalar of the
 * problem, a @scratch buffer, a @const, @tune or @let name), an integer
 * literal (possibly
 * negative), or any other integer expression `e` (N / 2, cdiv(N, 2), (N)),
 * evaluated per case like grid=. Literals and expressions take the width of
 * the kernel's parameter (int or long long), checked against the PTX.
 * Launches run in file order on one stream (at most BW_MAX_LAUNCHES).
 *
 * @scratch's TYPE is a dtype name of dtype.h (fp32, int32, ...) or the C
 * type a kernel declares for it, mapped to the dtype it means on the GPU
 * (NVRTC's LP64): float, double, half/__half, __nv_bfloat16/nv_bfloat16,
 * signed char, unsigned char, int/signed (int), unsigned (int), long long
 * (int), unsigned long long (int), and <stdint.h>'s int8_t ... uint64_t.
 * `long` is refused, saying why: it is 64-bit on Linux but 32-bit on Windows,
 * and a buffer's size must not depend on where the source was written; so
 * are `char` (signedness is the compiler's choice), `short` and `bool` (no
 * such dtype) and vector types (float4: write float[4 * n]).
 *
 * Names of @const, @tune, @scratch and @let are identifiers of at most
 * BW_MAX_NAME bytes, unique across the four. @const and @tune names also
 * become macros of the learner's code (-DNAME=VALUE), so they may not be C++
 * keywords, reserved identifiers (__x, _X), CUDA built-ins (threadIdx,
 * blockDim, ...) or cdiv/min/max/next_pow2. @tune values are distinct integer
 * literals; a tuple @tune's tuples are distinct, and its names vary together
 * (tune.h). A @let is evaluated per case in file order and may use only the
 * @let lines above it (one using itself or a later one is an error here), so
 * the language stays total; it is never a macro. Several @flags lines add up.
 * In a Triton file, a kernel's tl.constexpr parameter that args leave out is
 * passed by name when a @const, @tune or @let has its name (struct
 * launch_arg's by_name; triton_params.c).
 *
 * Parsing is purely syntactic plus what can be known from the file alone
 * (duplicate names, flags outside the allowlist: flags.h, expression syntax,
 * caps). Checking names against a problem is plan_check() and evaluating a
 * plan for one case plan_build() (plan.h); the @tune combinations are tune.h's.
 * The parser's own files share directive_parser.h.
 *
 * Every error is a struct diag with a 1-based line and column (columns count
 * bytes; a tab is one column) in the learner's file and a message saying what
 * was expected, so the editor can underline it: e.g. line 3, column 33:
 * "expected ')' to close grid=( at column 19 before block=". Errors about the
 * whole file have line 0.
 */
#ifndef BW_DIRECTIVE_H
#define BW_DIRECTIVE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "common/diag.h"
#include "common/dtype.h"
#include "common/expr.h"
#include "common/language.h"

enum launch_arg_kind {
    LAUNCH_ARG_NAME,    /* a tensor, size, scalar or scratch name: resolved per problem */
    LAUNCH_ARG_INTEGER, /* an integer literal; passed with the width of the kernel's parameter */
    LAUNCH_ARG_EXPR,    /* an integer expression, evaluated per case; passed like a literal */
};

struct launch_arg {
    enum launch_arg_kind kind;
    char *keyword;      /* owned; Triton: NAME of a keyword argument NAME=value (a tl.constexpr
                           parameter); NULL for a positional one (keywords come last) */
    char *name;         /* owned; LAUNCH_ARG_NAME */
    int64_t value;      /* LAUNCH_ARG_INTEGER */
    struct expr *expr;  /* owned; LAUNCH_ARG_EXPR (its text is expr_text()) */
    int line, column;   /* of the value (after "NAME=" for a keyword argument) */
    int keyword_column; /* of NAME in a keyword argument; 0 for a positional one */
    bool by_name;       /* Triton: not written, but NAME=NAME for a tl.constexpr parameter that a
                           @const, @tune or @let is named after (line: the @launch's, column 1) */
};

struct launch {
    char *kernel;            /* owned */
    struct expr *grid[3];    /* owned; missing dimensions are NULL (meaning 1) */
    struct expr *block[3];   /* owned; missing dimensions are NULL (meaning 1) */
    struct expr *smem;       /* owned; NULL means 0 bytes of dynamic shared memory */
    struct expr *num_warps;  /* owned; Triton: NULL means 4 (a block of 32 * num_warps threads) */
    struct expr *num_stages; /* owned; Triton: NULL means 3 (software pipelining depth) */
    struct expr *maxnreg;    /* owned; Triton: NULL means no cap on registers per thread */
    struct launch_arg *args; /* owned */
    size_t n_args;
    int line; /* of the @launch directive (its first line when continued) */
    /* 1-based lines and columns of the keys "grid=", "block=", "smem=" (0 if
     * absent), where the plan module reports errors; a key's line differs from
     * `line` only on a continuation line (0 means `line`) */
    int grid_column, block_column, smem_column;
    int num_warps_column, num_stages_column, maxnreg_column; /* Triton's keys, likewise */
    int grid_line, block_line, smem_line;
    int num_warps_line, num_stages_line, maxnreg_line;
};

/*
 * @rows (a problem's reference.cu only; docs/problem-format.md): the kernel
 * that computes chosen rows of every output, for the checks of timed runs.
 * It takes the @launch's arguments, then `const long long *rows, long long
 * n_rows`, and runs as grid (n_rows) with this block and shared memory; row r
 * of an output of E elements is its elements r*E/R .. (r+1)*E/R - 1, R being
 * rows=(...) for the case.
 */
struct rows_kernel {
    char *kernel;          /* owned */
    struct expr *rows;     /* owned: R, the number of rows of a case */
    struct expr *block[3]; /* owned; missing dimensions are NULL (meaning 1) */
    struct expr *smem;     /* owned; NULL means 0 bytes */
    int line;
    int rows_column, block_column, smem_column; /* 1-based columns of the keys */
    int rows_line, block_line, smem_line;       /* and lines (0 means `line`) */
};

struct scratch {
    char *name; /* owned */
    enum dtype dtype;
    struct expr *count; /* owned: number of elements */
    int line, column;
};

struct constant {
    char *name; /* owned */
    int64_t value;
    int line;
};

/* @let NAME = e: a named integer evaluated for each case, in file order. */
struct let {
    char *name;         /* owned */
    struct expr *value; /* owned */
    int line, column;   /* of NAME */
};

/* One @tune name. `@tune NAME=(v1, v2)` declares one, whose values multiply
 * with the other @tune lines'; `@tune (A, B)=((a1, b1), (a2, b2))` declares
 * one per name, sharing a group: value k of each is tuple k, and the group
 * varies as one (tune.h). */
struct tune_param {
    char *name;      /* owned */
    int64_t *values; /* owned; distinct, except within a tuple @tune (the tuples are) */
    size_t n_values;
    int line;
    int group; /* the @tune line, counted from 0: names of one tuple @tune share it */
};

struct directives {
    enum language lang; /* the comment syntax and the keys the file was parsed with */
    struct launch *launches;
    size_t n_launches;
    struct scratch *scratches;
    size_t n_scratches;
    struct constant *consts;
    size_t n_consts;
    struct tune_param *tunes;
    size_t n_tunes;
    struct let *lets; /* in file order: each may use the ones before it */
    size_t n_lets;
    char **flags; /* owned; each an allowed NVRTC option, in file order */
    size_t n_flags;
    struct rows_kernel *rows; /* owned; NULL without @rows */
};

/*
 * Parses every directive of `source` (`len` bytes; a NUL byte inside them is
 * an error). On success returns BW_OK and fills *out (release with
 * directives_release). On failure returns BW_ERR_INVALID, or BW_ERR_LIMIT if
 * any error was a limit of limits.h (source size, line count, directive line
 * length, a count cap), with every error found appended to *diags (parsing
 * continues past an error, up to BW_MAX_DIAGS of them) and *out left empty;
 * BW_ERR_NOMEM if memory ran out. A file with no @launch is an error: the
 * harness has nothing to run.
 */
int directives_parse(const char *source, size_t len, struct directives *out,
                     struct diag_list *diags);

/*
 * As directives_parse for a source in language `lang`. LANG_TRITON: the
 * directives are "#" comments (a line whose first non-blank characters are
 * '#', optional blanks, '@'); @launch takes grid=, num_warps=, num_stages=,
 * maxnreg= and args= (block= and smem= are refused: Triton decides them),
 * its args are the positional ones, then NAME=value keywords for tl.constexpr
 * parameters; @flags is refused; @const and @tune names are not macros, so
 * only the expression language's function names are reserved.
 * directives_parse() is directives_parse_as(LANG_CUDA, ...).
 */
int directives_parse_as(enum language lang, const char *source, size_t len, struct directives *out,
                        struct diag_list *diags);
void directives_release(struct directives *d);

#endif
