/*
 * plan.h - a launch plan made concrete: the directives of one source, bound
 * to a problem and evaluated for one case. It owns struct plan, the judge's
 * form of one case's buffers and launches; the middle steps of the launch
 * language (plan/README.md): checked plan (plan_check.c, names through
 * resolve.h) -> per-case plan (plan.c).
 *
 * plan_check() resolves every name a source's directives use against the
 * problem once (a tensor, a size, a scalar, a @scratch buffer, a @const,
 * @tune or @let name in expressions), so an unknown name is a compile-time
 * error at its line and column. plan_build() then evaluates every expression
 * for one case (the @let values first, in file order) and yields the buffers
 * and launches a runner executes; an expression that fails or gives an
 * impossible launch for that case (grid 0, block over 1024 threads, scratch
 * over the cap) is reported with the case's sizes, naming the @let involved
 * ("line 3: Kp = cdiv(K, 32) * 32 is 0 for case K=0, and grid.x on line 7
 * must be 1..2147483647") rather than echoing a long expression.
 * plan_check_int_arg() checks, once the PTX is known, that an integer
 * argument (literal, @const/@tune name, expression) fits its parameter in
 * every case.
 *
 * A Triton source's launches (d->lang) have no block= or smem=: the block is
 * 32 x num_warps threads, num_warps, num_stages and maxnreg are evaluated
 * from @const and @tune names and @let names that depend on no size only
 * (they change the compiled code), and the
 * keyword arguments become constexpr values, evaluated per case like any
 * integer argument (each distinct value is a build of its own:
 * triton_variant.h).
 *
 * The two sides differ only in output buffers: a submission's outputs have
 * the tensor's dtype; the reference's float outputs are fp64, its integer
 * outputs int64, and an output with an accumulation tolerance has a second
 * buffer "<name>_scale" (fp64) for the scale S.
 */
#ifndef BW_PLAN_H
#define BW_PLAN_H

#include <stdbool.h>
#include <stdint.h>

#include <jansson.h>

#include "directive.h"
#include "tune.h"
#include "common/gen.h"
#include "common/limits.h"
#include "problem/problem.h"

enum plan_side { PLAN_SUBMISSION, PLAN_REFERENCE };
enum plan_role {
    PLAN_IN,
    PLAN_INOUT,
    PLAN_OUT,
    PLAN_SCRATCH,
    PLAN_DATA /* int64 values the judge supplies: the rows of a @rows plan */
};

#define PLAN_MAX_BUFFERS (2 * BW_MAX_TENSORS + BW_MAX_SCRATCH)

struct plan_buffer {
    const char
        *name; /* borrowed from the problem or the directives; "<out>_scale" is owned by the plan */
    enum dtype dtype;
    enum plan_role role;
    int64_t count;       /* elements */
    int tensor;          /* problem tensor index, or -1 for scratch */
    bool is_scale;       /* the reference's "<out>_scale" of tensor `tensor` */
    struct gen_spec gen; /* PLAN_IN / PLAN_INOUT only */
};

enum plan_arg_kind {
    PLAN_ARG_BUF,
    PLAN_ARG_I64,
    PLAN_ARG_I32,
    PLAN_ARG_U64,
    PLAN_ARG_U32,
    PLAN_ARG_F32,
    PLAN_ARG_F64,
    PLAN_ARG_INT, /* an integer literal: 4 or 8 bytes, as the kernel's parameter */
};

struct plan_arg {
    enum plan_arg_kind kind;
    int buf;          /* PLAN_ARG_BUF: index into plan.buffers */
    int64_t offset;   /* PLAN_ARG_BUF: elements from the buffer's start (a Triton launcher's view;
                         0 for every directive): the pointer is base + offset * dtype size */
    int64_t i;        /* integer kinds */
    double f;         /* float kinds */
    const char *name; /* borrowed: the name written in @launch, or NULL for a literal */
};

/* What a constexpr value is: an integer (every directive's), or, from a Triton
 * launcher, a bool, None, a float or a string (the matmul tutorial's ACTIVATION=""). */
enum constexpr_kind {
    CONSTEXPR_INT,
    CONSTEXPR_BOOL,
    CONSTEXPR_NONE,
    CONSTEXPR_FLOAT,
    CONSTEXPR_STR
};

/* A Triton kernel's tl.constexpr argument, NAME=value in @launch args (or recorded). */
struct plan_constexpr {
    const char *name; /* borrowed from the directives or the recording */
    int64_t value;    /* CONSTEXPR_INT; CONSTEXPR_BOOL: 0 or 1 */
    enum constexpr_kind kind;
    double f;      /* CONSTEXPR_FLOAT */
    const char *s; /* CONSTEXPR_STR: borrowed from the recording */
};

/* The value as Triton's source would spell it, as the compile request and the
 * variant keys write it: 128, True, None, 0.5, 'leaky_relu' (out: cap >= 80). */
void plan_constexpr_literal(const struct plan_constexpr *c, char *out, size_t cap);

/* True when a and b are the same value of the same kind. */
bool plan_constexpr_same(const struct plan_constexpr *a, const struct plan_constexpr *b);

struct plan_launch {
    const char *kernel;                       /* borrowed from the directives */
    uint32_t grid[3], block[3];               /* Triton: block is (32 * num_warps, 1, 1) */
    uint32_t smem;                            /* Triton: 0 here; the build says how much it needs */
    struct plan_arg args[BW_MAX_LAUNCH_ARGS]; /* the positional ones */
    size_t n_args;
    int line;
    int num_warps, num_stages;                            /* Triton only (0 for CUDA) */
    int maxnreg;                                          /* Triton only: 0 when not given */
    struct plan_constexpr constexprs[BW_MAX_LAUNCH_ARGS]; /* Triton only, in @launch order */
    size_t n_constexprs;
};

struct plan {
    bool benchmark; /* built for one of the problem's benchmark shapes (the ones a Submit times;
                       the case given points into p->benchmarks), not a test case: Triton
                       specialises its integers as at home only then (plan/triton_variant.h) */
    struct plan_buffer buffers[PLAN_MAX_BUFFERS];
    size_t n_buffers;
    struct plan_launch launches[BW_MAX_LAUNCHES];
    size_t n_launches;
    char scale_names[BW_MAX_TENSORS][BW_MAX_NAME + 8]; /* storage of "<out>_scale" names */
};

/*
 * Checks that every name used by `d` resolves for `side` of problem `p`
 * (args, expressions of grid/block/smem/scratch) and that names of @const,
 * @tune and @scratch do not collide with the problem's names. Appends one diag per problem to
 * *diags; returns BW_OK or BW_ERR_INVALID.
 */
int plan_check(const struct problem *p, const struct directives *d, enum plan_side side,
               struct diag_list *diags);

/* Copies *src to *dst, whose "<out>_scale" buffer names then lie in dst's own storage
 * (a plain struct copy would leave them pointing into src's). */
void plan_copy(struct plan *dst, const struct plan *src);

/*
 * Builds the concrete plan of `d` for case `c` with @tune values
 * `tune_values` (one per d->tunes[i]; NULL if there is no @tune). Assumes
 * plan_check passed. On failure returns BW_ERR_INVALID or BW_ERR_LIMIT with a
 * message in *cause naming the directive's line and the case.
 */
int plan_build(const struct problem *p, const struct directives *d, const int64_t *tune_values,
               const struct problem_case *c, enum plan_side side, struct plan *out, char **cause);

/*
 * Checks argument `a` of d->launches[l] when it is passed with the width of
 * the kernel's parameter (plan kind PLAN_ARG_INT: an integer literal, a
 * @const or @tune name, or an expression) against that parameter as the PTX
 * declares it: `param_bytes` wide, floating point when `param_float`. Such an
 * argument is an int (4 bytes, -2^31..2^31-1) or a long long (8 bytes); it is
 * evaluated for every test and benchmark case of `p` under each of the
 * `n_configs` @tune combinations (tune_values[k], one value per d->tunes[i];
 * NULL without @tune), so an overflow of a 4-byte parameter is an error at
 * the argument's line and column before anything runs, never a truncation.
 * Other arguments pass. Appends one diag and returns BW_ERR_INVALID at the
 * first problem; BW_OK otherwise.
 */
int plan_check_int_arg(const struct problem *p, const struct directives *d, enum plan_side side,
                       const int64_t (*tune_values)[BW_MAX_TUNE_PARAMS], size_t n_configs, size_t l,
                       size_t a, int param_bytes, bool param_float, struct diag_list *diags);

/* Bytes of buffer b (count * dtype size). */
uint64_t plan_buffer_bytes(const struct plan_buffer *b);

/*
 * The first buffers of every plan of case c, for `side`: one per problem
 * tensor (plus the reference's "<out>_scale" buffers), as plan_build makes
 * them, into *out (zeroed first); and in *scratch_cap the bytes this
 * problem lets a plan's scratch buffers take for c (limits.scratch_bytes, or
 * BW_MAX_SCRATCH_BYTES). A Triton launcher's recorded plans start from them
 * (recorded.h). Failures are the problem's (BW_ERR_INVALID, BW_ERR_INTERNAL).
 */
int plan_build_tensors(const struct problem *p, const struct problem_case *c, enum plan_side side,
                       struct plan *out, int64_t *scratch_cap, char **cause);

/*
 * The plan of a @rows kernel (directive.h: struct rows_kernel) on case c for
 * `n_rows` rows: the reference's plan (one @launch) whose launch becomes the
 * rows kernel, grid (n_rows), with @rows's block and smem, the same
 * arguments and then the rows (a PLAN_DATA buffer of n_rows int64, whose
 * values the caller sends) and n_rows. *row_count is R, the case's rows=
 * (plan_rows_count alone evaluates it).
 * Failures are the problem's (BW_ERR_INVALID naming the line and the case).
 */
int plan_rows_count(const struct problem *p, const struct directives *d,
                    const struct problem_case *c, int64_t *row_count, char **cause);
int plan_build_rows(const struct problem *p, const struct directives *d,
                    const struct problem_case *c, int64_t n_rows, struct plan *out,
                    int64_t *row_count, char **cause);

/* The plan as a *new* JSON object (what `judged plan` prints, and the CPU
 * Triton interpreter reads): {"buffers": [{"name", "dtype", "count", "role"}],
 * "launches": [{"kernel", "grid": [x, y, z], "args": [...]} plus "block" and
 * "smem" for CUDA, or "num_warps", "num_stages", "maxnreg" (only when given)
 * and "constexprs": {NAME: V} for Triton (V a JSON integer, true/false, null,
 * number or string)]}; an argument is {"buffer": NAME} (with "offset": K, in
 * elements, when a launcher's view starts K elements into it), {"int": V,
 * "type": T} or {"float": V, "type": T} (T a Triton type for Triton, the C
 * kind for CUDA). */
json_t *plan_json(const struct plan *pl, enum language lang);

#endif
