/*
 * problem.h - a problem directory, loaded and validated.
 *
 * A problem is a directory problems/<id>/ holding problem.json, statement.md,
 * starter.cu, reference.cu, solution.cu and the controls in wrong/ (docs/problem-format.md
 * is the instructor-facing description). problem_load() reads problem.json,
 * checks everything that can be checked without compiling, and either returns
 * a complete struct problem or rejects the directory with "FILE: FIELD: reason"
 * (e.g. "problems/softmax/problem.json: tensors[1].shape[0]: unknown size
 * name \"K\" (sizes are M, N)"). A problem is never half-loaded. The loader
 * is one file per part of problem.json, read through common/json_reader.h;
 * problem/load.h, private to the folder, lists the files.
 *
 * problem.json, by example (every field is required unless marked optional):
 *
 * {
 *   "id": "vector-add",              // equals the directory name; [a-z0-9-]+
 *   "number": 1,                     // position on the path, 1..99
 *   "title": "Vector Addition",
 *   "step": 1,                       // 1..8
 *   "sizes": ["N"],                  // size names; int64 per case; passed to kernels as int64
 *   "scalars": [                     // optional: other kernel parameters
 *     {"name": "eps", "dtype": "fp32", "value": 1e-5}   // default value, per case overridable
 *   ],
 *   "tensors": [
 *     {"name": "x", "dtype": "fp32", "shape": ["N"], "role": "in"},
 *     {"name": "y", "dtype": "fp32", "shape": ["N"], "role": "in"},
 *     {"name": "out", "dtype": "fp32", "shape": ["N"], "role": "out",
 *      "tolerance": {"exact": true}}                     // optional; default per dtype
 *   ],
 *   "data": {                        // named input profiles: a distribution per input tensor
 *     "uniform": {"x": {"dist": "uniform", "lo": -1000, "hi": 1000},
 *                 "y": {"dist": "neg", "of": "x"}}
 *   },
 *   "tests": [                       // expanded into cases, at most BW_MAX_CASES
 *     {"sizes": {"N": [1, 2, 127, 128, 129]}, "data": "uniform"},     // lists: cartesian product
 *     {"name": "small", "sizes": [{"N": 3}, {"N": 33}], "data": "uniform",
 *      "scalars": {"eps": 1e-6}}     // optional per-case scalar values
 *   ],
 *   "benchmarks": [ {"name": "2^28", "sizes": {"N": 268435456}, "data": "uniform"} ],
 *   "bytes": "12*N",                 // compulsory traffic per run (sizes, integer scalars)
 *   "flops": "N",                    // arithmetic per run (sizes, integer scalars)
 *   "peak": "fp32",                  // "fp32", "fp16_tensor", "bf16_tensor" or "none"
 *   "limits": {                      // optional
 *     "run_ms": 2000,                // wall limit of one plan run
 *     "scratch_bytes": "4*N + 4096"  // cap on all @scratch bytes (expression of sizes)
 *   },
 *   "controls": {                    // expected verdict of each control file
 *     "solution.cu": "Accepted", "starter.cu": "Wrong Answer",
 *     "wrong/noop.cu": "Wrong Answer", "wrong/tail.cu": "Memory Violation"
 *   },
 *   "goals": [                       // optional: learning goals, reported beside the verdict
 *     {"kind": "bandwidth", "name": "coalesced", "bytes": "12*N", "min_pct": 80}
 *   ]
 * }
 *
 * Distributions: {"dist": "uniform", "lo", "hi"}, {"dist": "normal", "mean",
 * "std"}, {"dist": "loguniform", "lo", "hi", "signed": bool},
 * {"dist": "const", "value": number | "inf" | "-inf" | "nan"},
 * {"dist": "randint", "lo": expr, "hi": expr} (inclusive, integer tensors),
 * {"dist": "neg", "of": TENSOR} (exactly minus another input). Optional
 * modifiers on float distributions: "row_offset": {"lo", "hi"} (one offset per
 * row of the last dimension), "spike": number (one element per row set to it),
 * "specials": [{"value": number|"inf"|"-inf"|"nan", "fraction": f}, ...].
 *
 * Tolerances: {"exact": true} compares bitwise after rounding the reference to
 * the dtype (+0 equals -0; integer dtypes are always exact); otherwise
 * |got - ref| <= atol + rtol*|ref| + acc*S, where atol and rtol are numbers or
 * expressions of the sizes (default per dtype: torch.testing.assert_close's
 * table) and acc > 0 requires the reference to produce a scale tensor S named
 * "<output>_scale". NaN and +-Inf must match in position and sign.
 *
 * The reference (reference.cu) is compiled and launched like a submission
 * (same directives), with the same argument names, except that every float
 * output is passed as double* (fp64) and every integer output as long long*;
 * outputs with an acc tolerance also have "<name>_scale" (double*).
 *
 * Rules beyond the example: unknown fields are errors (with a "did you mean");
 * size, scalar and tensor names are identifiers, unique across all three, and
 * none ends in "_scale"; a profile gives every input (in/inout) a distribution
 * and nothing else, and every profile is used by some case; test names default
 * to the sizes ("M=7,N=33"), a named entry that expands to several cases gets
 * "name M=7,N=33", benchmarks need a "name", case names are unique; the
 * controls include solution.cu (Accepted) and starter.cu, and every
 * wrong/NAME.cu. problem.json is checked completely before the other files.
 *
 * Goals (docs/problem-format.md §9) check what output alone cannot: each has
 * a "kind", a "name" ([A-Za-z0-9_-]+, unique among the goals), an optional
 * "description" for learners, and the fields of its kind:
 *   autotune   optional "min_configs" (integer >= 2, default 2) and
 *              "min_gain" (number >= 1): the submission's @tune sweep;
 *   rebuild    "const" {NAME: integer, ...} (the -D overrides), "min_speedup"
 *              (> 0), optional "shapes";
 *   sass       "require" [PATTERN, ...] (opcode with modifiers, e.g.
 *              "LDG.E.128"), optional "kernels" [NAME, ...];
 *   bandwidth  "bytes" (a real expression of the sizes and integer scalars,
 *              > 0 on every shape it looks at), "min_pct" (0 < p <= 1000),
 *              optional "shapes";
 *   compare    "pairs" [{"shape": BENCH, "baseline": BENCH}, ...], "min_speedup";
 *   roofline   "min_pct" (0 < p <= 100): speed of light (the score's own
 *              figure: bytes, flops and peak of the problem), optional "shapes".
 * "shapes" lists benchmark case names (default: every benchmark).
 */
#ifndef BW_PROBLEM_H
#define BW_PROBLEM_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "common/dtype.h"
#include "common/expr.h"
#include "common/gen.h"
#include "common/language.h"
#include "common/limits.h"
#include "common/verdict.h"

enum tensor_role { ROLE_IN, ROLE_OUT, ROLE_INOUT };
enum peak_kind { PEAK_NONE, PEAK_FP32, PEAK_FP16_TENSOR, PEAK_BF16_TENSOR };

struct tolerance {
    bool exact;        /* bitwise; also set by the loader for every integer output */
    struct expr *atol; /* owned; NULL: the dtype's default */
    struct expr *rtol; /* owned; NULL: the dtype's default */
    double acc;        /* coefficient of the reference's scale tensor; 0: none */
};

struct tensor_spec {
    char *name; /* owned */
    enum dtype dtype;
    enum tensor_role role;
    struct expr *shape[BW_MAX_DIMS]; /* owned */
    int ndim;                        /* 1..BW_MAX_DIMS */
    struct tolerance tol;            /* outputs only */
};

struct scalar_spec {
    char *name;       /* owned */
    enum dtype dtype; /* fp32, fp64, int32, int64, uint32, uint64 */
    double value;     /* default value */
};

/* A distribution as written in problem.json; made concrete per case by
 * problem_gen_spec() (randint bounds are expressions of the sizes). */
struct dist_spec {
    struct gen_spec gen;    /* all but row_len and ilo/ihi, which depend on the case */
    struct expr *ilo, *ihi; /* owned; GEN_RANDINT only */
    int neg_of;             /* "neg": the source tensor (gen is its spec, negated); else -1 */
    bool set;               /* false: the profile gives this tensor no distribution */
};

struct data_profile {
    char *name;              /* owned */
    struct dist_spec *dists; /* owned; one per tensor (index = tensor index); inputs only set */
};

struct problem_case {
    char *name;                     /* owned, e.g. "N=127" or "rows M=7,N=33" */
    int64_t sizes[BW_MAX_SIZES];    /* by size index */
    double scalars[BW_MAX_SCALARS]; /* by scalar index */
    int profile;                    /* index into problem.profiles */
};

struct control {
    char *file; /* owned, relative to the problem directory, e.g. "wrong/noop.cu" */
    enum verdict expect;
    enum language lang; /* by the file's extension: .cu CUDA, .py Triton */
};

enum goal_kind {
    GOAL_AUTOTUNE,
    GOAL_REBUILD,
    GOAL_SASS,
    GOAL_BANDWIDTH,
    GOAL_COMPARE,
    GOAL_ROOFLINE
};

/* A macro a rebuild goal compiles the submission with (-DNAME=VALUE). */
struct goal_define {
    char *name; /* owned; an identifier */
    int64_t value;
};

/* Two benchmark shapes a compare goal times against each other. */
struct goal_pair {
    size_t shape;    /* index into problem.benchmarks: the one that must be faster */
    size_t baseline; /* index into problem.benchmarks */
};

/* One learning goal as problem.json states it; the fields of other kinds are zero. */
struct goal_spec {
    char *name; /* owned */
    enum goal_kind kind;
    char *description;              /* owned; NULL when absent */
    bool shapes[BW_MAX_BENCHMARKS]; /* rebuild, bandwidth, roofline: the benchmarks it looks at */
    int min_configs;                /* autotune: @tune combinations required (>= 2) */
    double min_gain;                /* autotune: 0, or the gain required (>= 1) */
    struct goal_define defines[BW_MAX_GOAL_DEFINES]; /* rebuild */
    size_t n_defines;
    double min_speedup; /* rebuild, compare */
    char **require;     /* sass: owned patterns */
    size_t n_require;
    char **kernels; /* sass: owned kernel names; NULL: every launched kernel */
    size_t n_kernels;
    struct expr *bytes; /* bandwidth: owned bytes model */
    double min_pct; /* bandwidth: % of the measured copy bandwidth; roofline: speed of light % */
    struct goal_pair pairs[BW_MAX_GOAL_PAIRS]; /* compare */
    size_t n_pairs;
};

/* "autotune", "rebuild", ... */
const char *goal_kind_name(enum goal_kind k);

struct problem {
    char *dir;   /* owned: the directory as given to problem_load */
    char *id;    /* owned */
    char *title; /* owned */
    int number, step;
    char *size_names[BW_MAX_SIZES]; /* owned */
    size_t n_sizes;
    struct scalar_spec *scalars; /* owned, n_scalars of them (and so below) */
    size_t n_scalars;
    struct tensor_spec *tensors;
    size_t n_tensors;
    struct data_profile *profiles;
    size_t n_profiles;
    struct problem_case *tests;
    size_t n_tests;
    struct problem_case *benchmarks;
    size_t n_benchmarks;
    struct expr *bytes, *flops; /* owned */
    enum peak_kind peak;
    int run_ms;                 /* limits.run_ms or BW_RUN_WALL_MS_DEFAULT */
    struct expr *scratch_bytes; /* owned; NULL: BW_MAX_SCRATCH_BYTES */
    struct control *controls;   /* in problem.json's order */
    size_t n_controls;
    struct goal_spec *goals; /* owned; in problem.json's order */
    size_t n_goals;
    bool languages[LANG_COUNT]; /* the languages it can be solved in: CUDA always; Triton
                                   when starter.py and solution.py are there */
};

/*
 * Loads and validates problems/<id>/ at `dir`. Returns a *new* problem or NULL
 * with *cause set ("<dir>/problem.json: field.path: reason"). Checks: JSON
 * syntax (with line), depth, types, every name unique and an identifier,
 * every expression parses and uses only size names, every input has a
 * distribution in every profile a case uses, shapes evaluate to >= 1 and the
 * per-case bytes stay under BW_MAX_TENSOR_BYTES / BW_MAX_CASE_BYTES, tolerance
 * fields only on outputs, the standard files exist, every .cu file in wrong/ has a
 * control entry and every control file exists.
 */
struct problem *problem_load(const char *dir, char **cause);
void problem_free(struct problem *p);

/* The index of case c among p's tests, then its benchmarks (a benchmark's is
 * p->n_tests + its index); p->n_tests + p->n_benchmarks when c is neither (a
 * copy of a case is neither). */
size_t problem_case_index(const struct problem *p, const struct problem_case *c);

/* Index of a tensor / size / scalar by name, or -1. */
int problem_tensor_index(const struct problem *p, const char *name);
int problem_size_index(const struct problem *p, const char *name);
int problem_scalar_index(const struct problem *p, const char *name);

/* The scope of a case's size names, for expr evaluation. `vars` must have
 * room for p->n_sizes bindings; the scope borrows names from p. */
void problem_case_scope(const struct problem *p, const struct problem_case *c,
                        struct expr_binding *vars, struct expr_scope *scope);

/* The scope of the bytes and FLOPs formulas (and bandwidth goals' bytes):
 * the case's sizes and its integer scalars (e.g. causal = 0 or 1, so causal
 * attention is charged the work it does). `vars` must have room for
 * BW_MAX_SIZES + BW_MAX_SCALARS bindings. */
void problem_formula_scope(const struct problem *p, const struct problem_case *c,
                           struct expr_binding *vars, struct expr_scope *scope);

/* Number of elements of tensor t in case c (product of its shape). */
int problem_tensor_count(const struct problem *p, size_t t, const struct problem_case *c,
                         int64_t *out, char **cause);

/* Shape of tensor t in case c: dims[0..ndim). */
int problem_tensor_shape(const struct problem *p, size_t t, const struct problem_case *c,
                         int64_t dims[BW_MAX_DIMS], char **cause);

/* The concrete generator spec for input (in/inout) tensor t in case c: the
 * profile's spec with stream = t (a "neg": its source's index, GEN_NEGATE set),
 * dtype = the tensor's, row_len = the last dimension in this case, and the
 * randint bounds evaluated (checked lo <= hi and within the dtype). */
int problem_gen_spec(const struct problem *p, size_t t, const struct problem_case *c,
                     struct gen_spec *out, char **cause);

/* Effective atol and rtol of output (out/inout) tensor t in case c: 0 and 0
 * when exact (see tol.exact), else the expressions evaluated (checked finite
 * and >= 0) or the dtype's defaults. The acc term is tensors[t].tol.acc. */
int problem_tolerance(const struct problem *p, size_t t, const struct problem_case *c, double *atol,
                      double *rtol, char **cause);

/* The default atol and rtol of a dtype (torch.testing.assert_close's table). */
void dtype_default_tolerance(enum dtype t, double *atol, double *rtol);

#endif
