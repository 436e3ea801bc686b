/*
 * triton_variant.h - Triton's JIT specialisation as the judge reproduces it:
 * the type each argument of a case gets, the kernel variant a case's launch
 * selects, and the variants a source needs over a problem's cases. It owns
 * struct triton_variant and struct triton_variants; pure functions of plans,
 * with no compiler and no GPU (the builds themselves are
 * judge/worker/triton_program.h's).
 *
 * Why variants: `kernel[grid](...)` at home types each argument by its value
 * and specialises the compiled code on it. An integer is i32 when its value
 * fits in 32 bits, else i64; it is marked divisible by 16 when it is
 * (tt.divisibility=16, which enables vector loads), and folded into the code
 * when it equals 1; a pointer is always divisible by 16 (the runner's
 * buffers are 256-byte aligned). Every constexpr value, num_warps,
 * num_stages and maxnreg is part of the code too. So a case with N = 4096
 * and one with N = 4099 run different builds, and one @tune configuration is
 * one build per distinct variant over the problem's cases.
 *
 * The judge specialises integers that way on the benchmark shapes only: those
 * builds are the ones a Submit times, so they are the ones Triton would run at
 * home (and every timed run is checked too). A test case's integers are typed
 * (i32 / i64) but not specialised, as `do_not_specialize` would leave them:
 * the same code for every value, correct where a specialised build is
 * (a specialisation only adds facts about the value), and one build per
 * configuration and constexpr set instead of one per size class -- the
 * tests of flash-attention's 7 configurations take 14 builds, not 98
 * (docs/submission-format.md, "Types and specialisation").
 *
 * One exception keeps every kernel that compiles at home compiling here: an
 * integer that is 1 in every test case of a build is folded in that build,
 * as at home. Some code compiles only with the constant (a tensor
 * descriptor's last stride, `tl.make_tensor_descriptor(..., strides=[s, t])`
 * with t == 1, is refused as a run-time value), and at home it is the
 * constant in every call; an integer that is 1 in some cases only is a
 * run-time value at home in the others, so the code compiles without the
 * constant. The fold follows the cases a build serves, so it adds no build.
 */
#ifndef BW_TRITON_VARIANT_H
#define BW_TRITON_VARIANT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "directive.h"
#include "plan.h"
#include "common/limits.h"
#include "problem/problem.h"

/* One positional argument of a launch, as kernel[grid](...) would type it. */
struct triton_arg {
    const char *type; /* "*fp32", "*fp16", "*bf16", "*fp64", "*i32", ... (a pointer), "i32",
                         "i64" (an integer), "fp32" (a scalar); the compile request checks
                         it (judge/worker/triton_compile.h: triton_arg_type_valid) */
    bool div16;       /* a pointer (always) or an integer divisible by 16: tt.divisibility=16 */
    bool equal1;      /* an integer equal to 1: becomes a constant (dropped from the parameters) */
    bool is1;         /* an integer whose value is 1, specialised or not (a test build's fold) */
};

/* A keyword argument: a tl.constexpr parameter's value (the fields of plan.h's
 * struct plan_constexpr: an integer, or from a launcher a bool, None, a float
 * or a string). */
struct triton_constexpr {
    const char *name;
    int64_t value; /* CONSTEXPR_INT; CONSTEXPR_BOOL: 0 or 1 */
    enum constexpr_kind kind;
    double f;      /* CONSTEXPR_FLOAT */
    const char *s; /* CONSTEXPR_STR */
};

/* The value as Triton's source spells it (plan_constexpr_literal): 128, True,
 * None, 0.5, 'relu'. Writes into out (cap >= 80). */
void triton_constexpr_literal(const struct triton_constexpr *c, char *out, size_t cap);

/*
 * The Triton type that `kernel[grid](...)` gives positional argument `a` of
 * plan `pl` at home: "*fp32" (a pointer to the buffer's dtype) for a buffer,
 * "fp32" for a scalar (a Python float: fp64 scalars too), and for an integer
 * "i32" when its value fits in 32 bits, else "i64" ("u64" at 2^63 and above),
 * as Triton types a Python int. Writes into out (cap >= 16).
 */
void plan_arg_triton_type(const struct plan *pl, const struct plan_arg *a, char *out, size_t cap);

/* An integer argument Triton specialises on: divisible by 16, equal to 1. */
bool plan_arg_is_integer(const struct plan_arg *a);

/* One kernel variant: a kernel with the argument types, specialisation and
 * constexpr values of some cases' launches. */
struct triton_variant {
    size_t launch;      /* the launch (of the plan) it was first seen at */
    const char *kernel; /* borrowed from the plan: the @launch's, or a recorded launch's */
    int line;           /* that launch's line: errors about the binding go there */
    struct triton_arg args[BW_MAX_LAUNCH_ARGS];
    char types[BW_MAX_LAUNCH_ARGS][16]; /* storage of args[k].type */
    size_t n_args;
    struct triton_constexpr constexprs[BW_MAX_LAUNCH_ARGS]; /* names borrowed from the directives */
    size_t n_constexprs;
    int num_warps, num_stages;
    int maxnreg; /* 0: no cap */
    bool tests;  /* a test case's: its integers typed, not specialised; as a build, equal1 marks
                    the integers that are 1 in every test case it serves (folded) */
};

/* The variant launch l of plan pl selects: Triton's JIT specialisation of its
 * arguments (a pointer is divisible by 16 when its buffer's base, 256-byte
 * aligned, plus its offset is; an integer is specialised only in a benchmark
 * shape's plan, pl->benchmark: a test case's variant is v->tests, its
 * integers' is1 set, equal1 not). v->args[k].type points into v->types: a
 * copy of v must point its own. */
void triton_variant_of(const struct plan *pl, size_t l, struct triton_variant *v);

/* True when a and b are the same build: kernel, types, specialisation,
 * constexpr values and options. */
bool triton_variant_same(const struct triton_variant *a, const struct triton_variant *b);

/* True when build b (a test build: b->tests) serves test case variant v: the
 * same build but for the integers b folds, each of which is 1 in v. */
bool triton_variant_serves_test(const struct triton_variant *b, const struct triton_variant *v);

/*
 * The variant as one line of text, which the Triton driver writes the same way
 * for the builds of a launcher request (judge/triton/launcher.py,
 * variant_key): KERNEL(TYPE:FLAG,...)[NAME=LITERAL,...]{WARPS,STAGES,MAXNREG},
 * FLAG "D" divisible by 16, "1" equal to 1, "-" neither; LITERAL as
 * triton_constexpr_literal. False when it does not fit `cap`.
 */
bool triton_variant_key(const struct triton_variant *v, char *out, size_t cap);

/* The variants of one @tune configuration. */
struct triton_config {
    struct triton_variant *variants; /* owned */
    size_t n_variants;
    size_t first; /* variants[i] is build first + i of all the configurations' */
};

/* The variants of every @tune configuration: the builds a source needs. */
struct triton_variants {
    struct triton_config *configs; /* owned: one per @tune configuration */
    size_t n_configs;
    size_t n_builds; /* the variants of every configuration */
};

/* Adds the variants plan pl's launches select to configuration tc (whose
 * variants array holds BW_TRITON_MAX_VARIANTS); BW_ERR_LIMIT at the launch's
 * line when there would be more. A test case's launch joins the test build
 * that serves it, which then folds only the integers that are 1 in this
 * case too; so add every test case before any benchmark shape (whose
 * launches match builds exactly, test builds included, as their final keys). */
int triton_config_add_plan(struct triton_config *tc, const struct plan *pl, char **cause);

/* *tv with n_configs empty configurations, each able to hold
 * BW_TRITON_MAX_VARIANTS variants; BW_ERR_NOMEM. Release *tv whatever the result. */
int triton_variants_init(struct triton_variants *tv, size_t n_configs, char **cause);

/*
 * Finds, for each of the n_configs @tune configurations (tune_values[c], one
 * value per d->tunes[i]; NULL without @tune), the variants its launches need
 * over every test case of p, and every benchmark shape when with_benchmarks
 * (a Submit or a Profile; a Run needs none), into *tv (zeroed first). A case
 * whose plan cannot be built is skipped: it fails with its own message when
 * it runs; when no case can be planned, BW_ERR_LIMIT with the first one's
 * message (nothing could be compiled). BW_ERR_LIMIT with the reason, at the
 * @launch line, when a configuration needs more than BW_TRITON_MAX_VARIANTS
 * builds or the source more than BW_TRITON_MAX_KERNELS (the learner's to
 * fix: constexpr values that follow every size). Release *tv whatever the
 * result.
 */
int triton_variants_plan(struct triton_variants *tv, const struct problem *p,
                         const struct directives *d,
                         const int64_t (*tune_values)[BW_MAX_TUNE_PARAMS], size_t n_configs,
                         bool with_benchmarks, char **cause);

/* The build (an index over every configuration's variants, from 0 to
 * tv->n_builds) that launch `launch` of plan pl, built for configuration
 * `config`, selects; -1 when the configuration has no such variant. */
int triton_variants_find(const struct triton_variants *tv, size_t config, const struct plan *pl,
                         size_t launch);

void triton_variants_release(struct triton_variants *tv);

#endif
