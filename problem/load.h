/*
 * load.h - private to problem/: the loader of problem.json, shared by the
 * files that each load one concern of it. Nothing outside problem/ includes
 * this header; the folder's public API is problem.h.
 *
 * problem_load() (problem.c) walks problem.json top-down and hands each part
 * to its file:
 *   problem.c    the file itself: JSON syntax and depth, top-level keys, id,
 *                number, title, step, the order of the checks; problem_free
 *   tensors.c    sizes, scalars and tensors, and the names they share
 *   tolerance.c  a tensor's "tolerance" object, the dtype defaults and the
 *                per-case evaluation (problem_tolerance)
 *   data.c       data profiles and their distributions, values that must fit
 *                a dtype, and the per-case generator spec (problem_gen_spec)
 *   formulas.c   expressions of the sizes; the bytes and FLOPs formulas,
 *                "peak" and "limits"
 *   cases.c      tests and benchmarks expanded into cases, and the checks
 *                that run every per-case helper once per case
 *   goals.c      learning goals
 *   controls.c   the files of the directory: standard files, controls and
 *                the verdicts they declare, wrong/
 *
 * Every loader_* function taking a struct loader returns 0 or a negative
 * BW_ERR_* code. A failure inside problem.json is recorded in ld->r (the
 * message says the field's path; problem_load prefixes the file); a failure
 * about another file of the directory goes straight to *ld->cause.
 * While loading, the struct problem is filled in place; its arrays are sized
 * up front and zeroed, so problem_free() can release a half-built one.
 */
#ifndef BW_PROBLEM_LOAD_H
#define BW_PROBLEM_LOAD_H

#include <stdbool.h>
#include <stddef.h>

#include <jansson.h>

#include "problem.h"
#include "common/json_reader.h"

struct loader {
    struct problem *p;               /* borrowed: the problem being filled */
    char *file;                      /* owned: "<dir>/problem.json", the prefix of every message */
    char **cause;                    /* failures outside problem.json: the files of the directory */
    struct json_reader r;            /* failures inside problem.json: "<file>: <path>: <message>" */
    size_t test_entry[BW_MAX_CASES]; /* tests[i] entry each case came from */
    size_t bench_entry[BW_MAX_BENCHMARKS]; /* benchmarks[i] entry each case came from */
};

/* Records "out of memory" and returns BW_ERR_NOMEM (problem.c). */
int loader_nomem(struct loader *ld);

/* ---- tensors.c ---------------------------------------------------------------------------- */

int loader_sizes(struct loader *ld, json_t *v);
int loader_scalars(struct loader *ld, json_t *v);
int loader_tensors(struct loader *ld, json_t *v);
/* A scalar's value (its default, or a case's) must be representable in its dtype. */
int loader_scalar_value(struct loader *ld, const char *path, enum dtype t, double v);
/* "x, y, out" (only inputs, in and inout, if inputs_only) for messages. */
struct json_list loader_tensor_list(const struct problem *p, bool inputs_only);

/* ---- tolerance.c -------------------------------------------------------------------------- */

/* The "tolerance" object of output tensor t, at path. */
int loader_tolerance(struct loader *ld, const char *path, json_t *v, struct tensor_spec *t);

/* ---- data.c ------------------------------------------------------------------------------- */

/* "data": every profile, each giving every input a distribution. Needs the tensors. */
int loader_profiles(struct loader *ld, json_t *v);
/* Index of a profile by name, or -1. */
int loader_profile_index(const struct problem *p, const char *name);
/* A value generated into dtype t must be representable: a finite float within
 * range (inf and nan are given explicitly), or an exact integer. */
int loader_value_fits(struct loader *ld, const char *path, enum dtype t, double v);
/* A profile or goal name: [A-Za-z0-9_-]+, at most BW_MAX_NAME bytes. */
bool loader_is_label(const char *s);

/* ---- formulas.c --------------------------------------------------------------------------- */

/* An expression of the sizes: a string or a JSON integer (any number when
 * `real`); integer expressions hold no real literal. A *new* expr in *out. */
int loader_expr(struct loader *ld, const char *path, json_t *v, bool real, struct expr **out);
/* A bytes or FLOPs formula: real, of the sizes and the integer scalars. */
int loader_formula(struct loader *ld, const char *path, json_t *v, struct expr **out);
/* "bytes", "flops", "peak" and "limits" of the top-level object. */
int loader_formulas(struct loader *ld, json_t *root);
/* "M, N" for messages. */
struct json_list loader_size_list(const struct problem *p);

/* ---- cases.c ------------------------------------------------------------------------------ */

/* "tests" or "benchmarks" (`fieldname`) expanded into *new* cases; entry_of[c]
 * is the entry case c came from. Needs the sizes, scalars and profiles. */
int loader_cases(struct loader *ld, const char *fieldname, json_t *v, bool bench,
                 struct problem_case **out, size_t *n_out, size_t *entry_of);
/* Runs every per-case helper once on case c (its entry at path), so that
 * judging cannot fail on it later. Needs everything but goals and controls. */
int loader_check_case(struct loader *ld, const char *path, const struct problem_case *c,
                      bool bench);

/* ---- goals.c ------------------------------------------------------------------------------ */

/* "goals". Needs the benchmarks. */
int loader_goals(struct loader *ld, json_t *v);

/* ---- controls.c --------------------------------------------------------------------------- */

/* statement.md, starter.cu, reference.cu and solution.cu are regular files under their caps. */
int loader_standard_files(struct loader *ld);
/* "controls": each file exists and declares a verdict; the languages of the problem. */
int loader_controls(struct loader *ld, json_t *v);
/* Every wrong/NAME.cu and wrong/NAME.py has a control entry. */
int loader_wrong_dir(struct loader *ld);

#endif
