/*
 * recorded.h - a Triton launcher's recording: what the learner's solve(...)
 * launched for each configuration and case, as the Triton compile child
 * reported it, and its one translation into struct plan (plan.h). It owns
 * struct recording; a pure module (no compiler, no GPU, no I/O).
 *
 * A Triton submission may hold a Python launcher instead of @launch lines
 * (docs/submission-format.md, "The launcher"): judge/triton/launcher.py
 * calls it inside the compile sandbox with stand-in tensors, once per case
 * and configuration (a configuration is one combination of the file's
 * @triton.autotune configs, as @tune's are), and records the launches.
 * Nothing the child says is trusted: recorded_plan_build() checks every
 * recorded launch against the problem and the case as plan_build() checks
 * a @launch -- buffer names, a view's offset and extent inside its buffer,
 * the grid within the GPU's limits, num_warps / num_stages / maxnreg, the
 * scratch buffers within the problem's cap, the counts within the caps --
 * and yields the same struct plan the directives would, so tests, poison,
 * guard bands, timing and goals are unchanged.
 *
 * Ownership: a struct recording owns every string its plans point to (names,
 * kernels, constexpr strings); a struct plan built from it borrows them, so
 * the recording must outlive its plans.
 */
#ifndef BW_RECORDED_H
#define BW_RECORDED_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "plan.h"
#include "common/limits.h"
#include "problem/problem.h"

enum recorded_arg_kind { RECORDED_BUF, RECORDED_INT, RECORDED_FLOAT };

/* One positional argument of a recorded launch. */
struct recorded_arg {
    enum recorded_arg_kind kind;
    const char *buf; /* RECORDED_BUF: a problem tensor or one of the plan's scratch buffers */
    int64_t offset;  /* RECORDED_BUF: the view's first element in the buffer */
    int64_t span;    /* RECORDED_BUF: elements from offset to the view's last one, + 1 (0: empty) */
    int64_t i;       /* RECORDED_INT (a Python int: i32 or i64 by value) */
    bool u64;        /* RECORDED_INT: 2^63 to 2^64 - 1, its bits in i (Triton's u64) */
    double f;        /* RECORDED_FLOAT (a Python float: Triton's fp32) */
};

struct recorded_launch {
    const char
        *kernel; /* a top-level @triton.jit (or @gluon.jit) of the file, possibly autotuned */
    int line;    /* the learner's line of the launch */
    uint32_t grid[3];
    int num_warps, num_stages, maxnreg; /* maxnreg 0: none */
    struct recorded_arg *args;          /* owned */
    size_t n_args;
    struct plan_constexpr *constexprs; /* owned; names and strings owned by the recording */
    size_t n_constexprs;
};

/* A buffer solve made (torch.empty, torch.zeros, *_like, new_empty): zeroed before every run. */
struct recorded_scratch {
    const char *name; /* "tmp1", ... */
    enum dtype dtype;
    int64_t count; /* elements */
    int line;      /* where solve allocated it */
};

struct recorded_plan {
    bool present; /* the child reported it */
    struct recorded_scratch scratch[BW_MAX_SCRATCH];
    size_t n_scratch;
    struct recorded_launch *launches; /* owned */
    size_t n_launches;
};

struct recording {
    size_t n_configs;            /* >= 1: every combination of the autotune configs */
    size_t n_cases;              /* the problem's tests, then its benchmarks */
    char **config_names;         /* owned: "BLOCK_SIZE=1024, num_warps=4, num_stages=3", or "" */
    struct recorded_plan *plans; /* owned: [config * n_cases + case] */
    char **strings;              /* owned: every name and string the plans point to */
    size_t n_strings, cap_strings;
    double record_ms; /* the child's time recording every case */
};

/* *r with n_configs x n_cases empty plans; BW_ERR_NOMEM, BW_ERR_LIMIT (over
 * BW_MAX_TUNE_CONFIGS or BW_MAX_CASES). Release *r whatever the result. */
int recording_init(struct recording *r, size_t n_configs, size_t n_cases, char **cause);

/* The plan of configuration `config` and case `c` (borrowed), or NULL when out of range. */
struct recorded_plan *recording_plan(struct recording *r, size_t config, size_t c);

/* A copy of `len` bytes of s kept by the recording (one copy per distinct
 * string; at most BW_LAUNCHER_MAX_STRINGS); NULL when out of memory or over. */
const char *recording_string(struct recording *r, const char *s, size_t len);

void recording_release(struct recording *r);

/*
 * The struct plan of recorded plan `rp` on case `c` of problem p (the
 * submission's side): the problem's tensors, then the recorded scratch
 * buffers, then the launches, each checked. Fails with BW_ERR_INVALID (or
 * BW_ERR_LIMIT for the scratch cap and counts) and a message naming the
 * learner's line and the case: what an honest recorder refuses already, so a
 * failure here is a forged or broken answer, the submission's Compile Error.
 */
int recorded_plan_build(const struct problem *p, const struct recorded_plan *rp,
                        const struct problem_case *c, struct plan *out, char **cause);

#endif
