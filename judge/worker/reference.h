/*
 * reference.h - the problem's side of a judging: reference.cu read, checked
 * and run in the trusted reference runner, and its expected outputs kept.
 *
 * The reference is trusted code in fp64 (docs/problem-format.md §4). Anything
 * wrong with it — it does not parse, compile or match its @launch lines, or
 * it fails on a case — is the problem's fault and ends in Judge Error, never
 * the learner's verdict.
 *
 * During the tests the reference runs ahead of the submission: a thread
 * computes the expected outputs of the next REFERENCE_AHEAD cases while the
 * submission runs the current one, so the two runner processes overlap on
 * the GPU (struct reference_pipe). A test too large to compare whole
 * (tests_case_sampled) gets its reference at the checked elements only.
 *
 * A submission with several configurations (@tune, @triton.autotune) runs the
 * same tests on the same inputs in each: the expected outputs of the first
 * are kept for the others (reference_keep, at most BW_REFERENCE_KEEP_BYTES),
 * so the reference runs each case once per judging.
 */
#ifndef BW_REFERENCE_H
#define BW_REFERENCE_H

#include <pthread.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "runner_client.h"
#include "plan/plan.h"

struct session;

struct checks;

/* Where the expected outputs of one case live: the reference runner's
 * returned bytes, one pointer per plan buffer (NULL for non-outputs); or, for
 * a test checked by sample (tests_case_sampled), the checked elements and
 * the reference's values there. */
struct expected {
    struct run_result res;             /* owns the mapping of the runner's returned outputs */
    const void *buf[PLAN_MAX_BUFFERS]; /* into res.data; NULL for buffers not returned */
    struct checks *checks; /* owned: a sampled test's (checks.h); NULL: the outputs are whole */
    bool borrowed; /* buf and checks belong to the session's kept outputs (reference_keep) */
};

void expected_release(struct expected *e);

/* Reads problem_dir/reference.cu into *source (new, *len bytes) and parses it
 * into s->ref; a problem in it is BW_ERR_INTERNAL naming file:line:column. */
int reference_prepare(struct session *s, char **source, size_t *len, char **cause);

/* After compiling: the reference must have compiled and match its kernels. */
int reference_check(struct session *s, char **cause);

/*
 * Runs the reference on case `c` (Philox case index ci) in s->ref_runner and
 * keeps its outputs in *exp, the plan it ran in *pl. with_inputs: the inputs
 * come back too (for dumping). Failures are the problem's: BW_ERR_INTERNAL.
 */
int reference_case(struct session *s, const struct problem_case *c, uint32_t ci, bool with_inputs,
                   struct plan *pl, struct expected *exp, char **cause);

/*
 * The reference of a test checked by sample (tests_case_sampled): the plan
 * it ran in *pl, and in exp->checks the elements checked (CHECKS_PICK_TEST,
 * secret: from the judging's seed and ci) with the reference's values there,
 * gathered by s->ref_runner (nothing else comes back). Failures are the
 * problem's: BW_ERR_INTERNAL.
 */
int reference_sampled(struct session *s, const struct problem_case *c, uint32_t ci, struct plan *pl,
                      struct expected *exp, char **cause);

/* The reference buffer holding the expected values (scale: the "<out>_scale")
 * of tensor t in plan ref_pl, or -1. */
int reference_buffer(const struct plan *ref_pl, int t, bool scale);

/*
 * Keeps test i's expected outputs (and the plan they ran in) for the judging's
 * next configurations: exp's checks move (exp->checks becomes NULL), its
 * returned bytes are copied, as long as the kept bytes stay within
 * BW_REFERENCE_KEEP_BYTES; exp is still the caller's to release. Borrowed
 * outputs, or a case already kept, are left as they are. Called by the
 * judge's thread, for a case the reference pipe has already produced: a pipe
 * reads an entry only before producing its case (and only a pipe started
 * after the entry was written looks at the kept outputs at all).
 */
void reference_keep(struct session *s, size_t i, const struct plan *pl, struct expected *exp);

/* Frees the kept outputs (at the end of a judging). */
void reference_keep_release(struct session *s);

/* The cases whose expected outputs are kept, and the bytes they take (tests). */
size_t reference_kept_cases(const struct session *s, size_t *bytes);

#define REFERENCE_AHEAD 2 /* test cases the reference computes ahead of the submission */

struct reference_slot {
    bool ready;
    int rc;
    char *cause; /* owned */
    struct plan plan;
    struct expected exp;
};

struct reference_pipe {
    struct session *s;
    pthread_t thread;
    pthread_mutex_t lock;
    pthread_cond_t changed;
    size_t produced, consumed;   /* cases started by the thread, taken by the judge */
    struct reference_kept *kept; /* the session's kept outputs when the pipe started, or NULL */
    size_t reused;               /* cases taken from kept, not computed */
    bool stop;
    double lent_ms0;        /* runner_lent_ms(ref_runner) at the start: the finish adds the rest */
    double memory_wait_ms0; /* runner_memory_wait_ms(ref_runner) at the start, likewise */
    struct reference_slot slots[REFERENCE_AHEAD];
};

/* Starts the thread computing the tests' expected outputs in order. */
int reference_pipe_start(struct reference_pipe *rp, struct session *s, char **cause);

/* Waits for test i's expected outputs and moves them to *plan and *exp
 * (the caller releases *exp); tests must be taken in order. */
int reference_pipe_take(struct reference_pipe *rp, size_t i, struct plan *plan,
                        struct expected *exp, char **cause);

/* How many cases' expected outputs are ready and not yet taken. */
size_t reference_pipe_ready(struct reference_pipe *rp);

/* Stops the thread and frees what it computed that nobody took. */
void reference_pipe_finish(struct reference_pipe *rp);

#endif
