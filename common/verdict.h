/*
 * verdict.h - the verdicts a submission (or one test of it) can get.
 *
 * Order matters only for display. Names are the product's words ("Wrong
 * Answer"); codes are the short forms used in JSON, the database and the CLI
 * ("WA").
 */
#ifndef BW_VERDICT_H
#define BW_VERDICT_H

#include <stdbool.h>

enum verdict {
    VERDICT_NONE = 0,      /* not judged (yet) */
    VERDICT_ACCEPTED,      /* AC: every test passed (and, on Submit, timing done) */
    VERDICT_WRONG_ANSWER,  /* WA: an output differs from the reference beyond tolerance */
    VERDICT_COMPILE_ERROR, /* CE: directives or NVRTC rejected the source */
    VERDICT_RUNTIME_ERROR, /* RE: a launch or the GPU reported an error (trap, illegal address) */
    VERDICT_TIME_LIMIT,    /* TLE: a plan run did not finish within the limit */
    VERDICT_MEMORY_VIOLATION, /* MV: a guard band around a buffer was written */
    VERDICT_INPUT_MODIFIED,   /* IM: an input tensor changed during the run */
    VERDICT_JUDGE_ERROR,      /* JE: the judge failed; never the learner's fault; retried */
};

const char *verdict_name(enum verdict v); /* "Wrong Answer" */
const char *verdict_code(enum verdict v); /* "WA" */
/* Accepts a code ("WA") or a name ("Wrong Answer"), case-insensitively. */
enum verdict verdict_parse(const char *s);

#endif
