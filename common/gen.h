/*
 * gen.h - input generation: distributions as plain data, shared by host C and
 * the device generator kernels (judge/runner/kernels/harness.cu).
 *
 * Every input element is a pure function of (seed, case, stream, index):
 * Philox4x32-10 (philox.h) is keyed by the 64-bit per-submission secret seed
 * and counted by (index low, index high, stream, case), so the reference
 * runner and the submission runner build bit-identical inputs in separate
 * processes without sending them. `stream` is the tensor's index in the
 * problem, so tensors are independent; a "neg" input reuses another tensor's
 * stream with GEN_NEGATE, so y = -x exactly.
 *
 * The element value is computed in double and rounded once to the dtype.
 * struct gen_spec is POD with fixed-width fields so it can be copied to the
 * device as a kernel parameter.
 */
#ifndef BW_GEN_H
#define BW_GEN_H

#include <stdint.h>

#define GEN_MAX_SPECIALS 4

enum gen_kind {
    GEN_UNIFORM = 1,    /* U(a, b) */
    GEN_NORMAL = 2,     /* N(mean a, std b), Box-Muller */
    GEN_LOGUNIFORM = 3, /* exp(U(log a, log b)), 0 < a < b; random sign with GEN_SIGNED */
    GEN_CONST = 4,      /* a (may be +-inf or nan) */
    GEN_RANDINT = 5,    /* integer uniform in [ilo, ihi] inclusive */
};

enum gen_flags {
    GEN_NEGATE = 1u << 0,     /* negate the generated value (the "neg of" distribution) */
    GEN_SIGNED = 1u << 1,     /* loguniform: random sign */
    GEN_ROW_OFFSET = 1u << 2, /* add U(row_lo, row_hi), one draw per row of row_len elements */
    GEN_SPIKE = 1u << 3,      /* set one random element per row to `spike` */
};

struct gen_spec {
    uint32_t kind;         /* enum gen_kind */
    uint32_t dtype;        /* enum dtype (dtype.h) of the generated tensor */
    uint32_t stream;       /* Philox stream: the tensor index whose values are drawn */
    uint32_t flags;        /* enum gen_flags */
    double a, b;           /* distribution parameters, see enum gen_kind */
    int64_t ilo, ihi;      /* GEN_RANDINT bounds, inclusive */
    int64_t row_len;       /* elements per row (the last dimension); >= 1 */
    double row_lo, row_hi; /* GEN_ROW_OFFSET range */
    double spike;          /* GEN_SPIKE value */
    uint32_t n_specials;   /* specials replace a fraction of elements with a value */
    uint32_t pad;
    double special_value[GEN_MAX_SPECIALS];
    double special_fraction[GEN_MAX_SPECIALS]; /* each in [0, 1]; drawn independently in order */
};

/* Philox counter word 3 packs the case index and a purpose, so values drawn
 * for different purposes of one element never reuse a counter. */
enum gen_purpose {
    GEN_PURPOSE_VALUE = 0,   /* the element's base value */
    GEN_PURPOSE_ROW = 1,     /* the per-row offset / spike position (counter index = row) */
    GEN_PURPOSE_SPECIAL = 2, /* special replacement draws */
};
#define GEN_COUNTER_WORD3(case_index, purpose) (((uint32_t)(case_index) << 2) | (uint32_t)(purpose))

#endif
