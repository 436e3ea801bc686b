/*
 * checks.h - sampled checks: outputs checked at chosen elements instead of
 * returned whole. It owns which elements (secret, chosen from the
 * reference's plan, so before the submission has compiled), the fp64
 * reference's values there (gathered by a reference runner: RUN_RETURN_GATHER,
 * and with @rows only the rows that hold them computed), the binding of the
 * submission's plan to them, and the comparison of a run's gathered elements
 * with the problem's tolerances (compare.h's compare_samples).
 *
 * Two users, one machinery:
 *   - the timing (bench.h): every timed run of a benchmark shape is checked
 *     at CHECKS_PICK_TIMED elements, per input set;
 *   - the tests (tests.h): a test case whose outputs are over the judge's
 *     full-check limit (BW_FULL_CHECK_MAX_BYTES; tests_case_sampled) is
 *     checked at CHECKS_PICK_TEST elements, and the submission runner scans
 *     every element of it for the judge's poison (runner_proto.h, "scan").
 */
#ifndef BW_CHECKS_H
#define BW_CHECKS_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "compare.h"
#include "plan/plan.h"
#include "problem/problem.h"

struct session;
struct runner;

/* How an output's checked elements are chosen. */
enum checks_pick {
    /* BW_CHECK_SAMPLES: the first, the last and random others (all of them when fewer) */
    CHECKS_PICK_TIMED,
    /* checks_test_positions(): the head, the tail, windows around every 2^31 bytes, random */
    CHECKS_PICK_TEST,
};

/*
 * The checked elements of one case and the reference's values there. Output
 * k's indices for input set r are indices[r * span + offset[k] .. + count[k]);
 * the reference's values lie at the same places of ref_values (float outputs),
 * ref_ints (integer outputs) and ref_scales (outputs with an acc tolerance).
 */
struct checks {
    int n;     /* outputs checked: the problem's output tensors, in the reference plan's order */
    bool test; /* a test case's (CHECKS_PICK_TEST), else a benchmark's: for messages */
    int tensor[PLAN_MAX_BUFFERS];
    int sub_buf[PLAN_MAX_BUFFERS]; /* the submission plan's buffer (checks_bind); -1 before */
    int ref_buf[PLAN_MAX_BUFFERS], scale_buf[PLAN_MAX_BUFFERS]; /* the reference plan's; -1 */
    uint64_t offset[PLAN_MAX_BUFFERS], count[PLAN_MAX_BUFFERS];
    uint32_t sets;      /* input sets: BW_BENCH_SETS for a benchmark, 1 for a test */
    uint64_t span;      /* indices per input set */
    int64_t *indices;   /* owned: [sets][span] */
    double *ref_values; /* owned */
    double *ref_scales; /* owned */
    int64_t *ref_ints;  /* owned */
};

/* Frees what k owns and zeroes it. */
void checks_release(struct checks *k);

/* The next number of a splitmix64 stream (*state advances): the secret
 * random elements come from one seeded by the judging's secret seed. */
uint64_t checks_pick(uint64_t *state);

/*
 * Chooses the checked elements of every output of reference plan ref_pl
 * (problem p's output tensors) into *k (zeroed first; checks_release it even
 * after a failure): for `sets` input sets, the way `how` says, random
 * numbers from *pick. The submission's buffers are bound later
 * (checks_bind), so this needs only the reference's plan.
 */
int checks_choose(const struct problem *p, const struct plan *ref_pl, uint32_t sets,
                  enum checks_pick how, uint64_t *pick, struct checks *k, char **cause);

/*
 * The elements CHECKS_PICK_TEST checks in an output of `count` elements of
 * `esize` bytes (the submission's dtype), sorted, each once, into *out
 * (*new*, *n of them): every element when there are at most
 * checks_test_positions_max(count, esize); else the first BW_SAMPLED_HEAD,
 * the last BW_SAMPLED_TAIL (the tail past the last full block of every
 * launch whose blocks cover at most that many elements), BW_SAMPLED_WINDOW
 * each side of every multiple of 2^31 bytes (so of 2^31 elements too: where
 * 32-bit byte offsets and indices wrap) and BW_CHECK_SAMPLES random ones from
 * *pick. Pure: no GPU, no session.
 */
int checks_test_positions(int64_t count, size_t esize, uint64_t *pick, int64_t **out, uint64_t *n,
                          char **cause);

/* The most elements checks_test_positions() may choose (before duplicates go). */
uint64_t checks_test_positions_max(int64_t count, size_t esize);

/*
 * Finds each checked output's buffer in the submission's plan (k->sub_buf):
 * the same tensors, of the same sizes, and no other output. Both plans come
 * from the problem's tensors, so a mismatch is the judge's fault
 * (BW_ERR_INTERNAL naming case_name).
 */
int checks_bind(struct checks *k, const struct plan *sub_pl, const struct plan *ref_pl,
                const char *case_name, char **cause);

/*
 * The reference's values at every set's elements into k: set r from Philox
 * case index base + r, in `runner` (a reference runner holding reference.cu
 * s->ref), each set holding the GPU gate shared. With @rows, only the rows
 * that hold the elements are computed (BLOCKWISE_CHECK_ROWS=1: and compared
 * with the full reference's). `stop` (optional): once set, the work stops
 * between sets with BW_ERR_CANCELLED. Failures are the problem's:
 * BW_ERR_INTERNAL.
 */
int checks_reference(struct session *s, struct runner *runner, const atomic_bool *stop,
                     const struct problem_case *c, const struct plan *ref_pl, uint32_t base,
                     struct checks *k, char **cause);

/*
 * Output o's gathered elements `got` (its dtype's bytes, back to back, in
 * k's order for input set `set`) against the reference's values into *rep
 * (compare_samples: checked = count[o], mismatches in sample order), for
 * case c of s->p; `elements` is the output's size.
 */
int checks_compare(const struct session *s, const struct problem_case *c, const struct checks *k,
                   int o, uint32_t set, int64_t elements, const unsigned char *got,
                   struct compare_report *rep, char **cause);

#endif
