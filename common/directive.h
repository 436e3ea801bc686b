/*
 * directive.h - the submission contract: parsing the // @directives of a .cu file.
 *
 * A directive is a line whose first non-blank characters are "//", then
 * optional blanks, then '@'. Everything else in the file is CUDA for NVRTC.
 * The directives (docs/submission-format.md is the learner-facing text):
 *
 *   // @launch KERNEL grid=(e[,e[,e]]) block=(e[,e[,e]]) [smem=e] args=(a, ...)
 *   // @scratch NAME DTYPE[e]
 *   // @const NAME=INT
 *   // @tune NAME=(v1, v2, ...)
 *   // @flags OPTION ...
 *
 * Expressions `e` are expr.h's; they may use the problem's size names, @const
 * and @tune names. `args` entries name the problem's tensors, sizes and
 * scalars, @scratch buffers, or are integer literals (possibly negative).
 * Launches run in file order on one stream (at most BW_MAX_LAUNCHES).
 *
 * Parsing is purely syntactic plus what can be known from the file alone
 * (duplicate names, flags outside the allowlist, expression syntax, caps).
 * Checking names against a problem is directive_check(); evaluating a plan
 * for one test case is the judge's plan module.
 *
 * Every error is a struct diag with a 1-based line and column in the
 * learner's file and a message saying what was expected, so the editor can
 * underline it: e.g. line 3, column 40: "expected ')' to close grid=(".
 */
#ifndef BW_DIRECTIVE_H
#define BW_DIRECTIVE_H

#include <stddef.h>
#include <stdint.h>

#include "dtype.h"
#include "expr.h"

/* A located message (an error in a learner's file). */
struct diag {
    int line;   /* 1-based; 0 when not tied to a line */
    int column; /* 1-based; 0 when not tied to a column */
    char *msg;  /* owned */
};

struct diag_list {
    struct diag *items; /* owned */
    size_t n;
};
void diag_list_release(struct diag_list *l);
/* Appends a formatted diagnostic; returns BW_OK or BW_ERR_NOMEM. */
int diag_list_addf(struct diag_list *l, int line, int column, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));

enum launch_arg_kind {
    LAUNCH_ARG_NAME,    /* a tensor, size, scalar or scratch name: resolved per problem */
    LAUNCH_ARG_INTEGER, /* an integer literal; passed with the width of the kernel's parameter */
};

struct launch_arg {
    enum launch_arg_kind kind;
    char *name;    /* owned; LAUNCH_ARG_NAME */
    int64_t value; /* LAUNCH_ARG_INTEGER */
    int line, column;
};

struct launch {
    char *kernel;           /* owned */
    struct expr *grid[3];   /* owned; missing dimensions are NULL (meaning 1) */
    struct expr *block[3];  /* owned; missing dimensions are NULL (meaning 1) */
    struct expr *smem;      /* owned; NULL means 0 bytes of dynamic shared memory */
    struct launch_arg *args; /* owned */
    size_t n_args;
    int line;               /* of the @launch directive */
    int grid_column, block_column, smem_column; /* for evaluation errors */
};

struct scratch {
    char *name;        /* owned */
    enum dtype dtype;
    struct expr *count; /* owned: number of elements */
    int line, column;
};

struct constant {
    char *name; /* owned */
    int64_t value;
    int line;
};

struct tune_param {
    char *name;      /* owned */
    int64_t *values; /* owned */
    size_t n_values;
    int line;
};

struct directives {
    struct launch *launches;   size_t n_launches;
    struct scratch *scratches; size_t n_scratches;
    struct constant *consts;   size_t n_consts;
    struct tune_param *tunes;  size_t n_tunes;
    char **flags;              size_t n_flags; /* owned; each an allowed NVRTC option */
};

/*
 * Parses every directive of `source` (NUL-terminated, `len` bytes). On success
 * returns BW_OK and fills *out (release with directives_release). On failure
 * returns BW_ERR_INVALID (or BW_ERR_LIMIT) with every error found appended to
 * *diags (parsing continues past an error to report as many as possible) and
 * *out left empty. A file with no @launch is an error: the harness has
 * nothing to run.
 */
int directives_parse(const char *source, size_t len, struct directives *out, struct diag_list *diags);
void directives_release(struct directives *d);

/* The @flags allowlist: true if `option` (one token) may be passed to NVRTC. */
bool directive_flag_allowed(const char *option);
/* Human-readable list of allowed flags, for error messages and docs. */
const char *directive_flag_allowlist(void);

/* Number of @tune combinations (1 when there is no @tune). */
size_t directives_tune_count(const struct directives *d);
/* Fills values[i] (one per d->tunes[i]) for combination `index` (0-based,
 * the last @tune varying fastest). */
void directives_tune_combo(const struct directives *d, size_t index, int64_t *values);

#endif
