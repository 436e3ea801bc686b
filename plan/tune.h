/*
 * tune.h - the @tune configurations of a source: every combination of its
 * @tune values, in one fixed order, and how one is named for people.
 *
 * A source is built once per configuration, like triton.autotune: with
 * `@tune A=(1, 2)` and `@tune B=(8, 16, 32)` there are 6, and configuration
 * c gives each @tune one of its values, the last @tune varying fastest (c = 0
 * is A=1, B=8; c = 1 is A=1, B=16). A tuple @tune, `@tune (BM, BN)=((64,
 * 128), (128, 64))`, is one line with one value per tuple: its names take
 * the values of one tuple together, so it adds 2 configurations, not 4
 * (struct tune_param's group). A source without @tune has one configuration
 * and no values. Everything downstream takes a configuration
 * as one row of values, one per d->tunes[i]: the per-case plan (plan.h's
 * plan_build), Triton's variants (triton_variant.h), the judge's builds
 * (judge/worker/program.h), the messages that name a build ("BLOCK=128").
 */
#ifndef BW_TUNE_H
#define BW_TUNE_H

#include <stddef.h>
#include <stdint.h>

#include "directive.h"
#include "common/limits.h"

/* Number of @tune combinations (1 when there is no @tune): the product of
 * each @tune line's count of values (or tuples). */
size_t directives_tune_count(const struct directives *d);
/* Fills values[i] (one per d->tunes[i]) for combination `index` (0-based,
 * the last @tune line varying fastest; the names of a tuple @tune together). */
void directives_tune_combo(const struct directives *d, size_t index, int64_t *values);

/* Every combination: a *new* array of directives_tune_count(d) rows, row c
 * holding directives_tune_combo(d, c), with the count in *n; NULL (and *n =
 * 0) when memory runs out. */
int64_t (*directives_tune_table(const struct directives *d, size_t *n))[BW_MAX_TUNE_PARAMS];

/* "BM=128, BN=64": the @tune values `values` (one per d->tunes[i]) into out,
 * cut to fit `cap` and always terminated; "" without @tune or when values is
 * NULL. */
void directives_tune_describe(const struct directives *d, const int64_t *values, char *out,
                              size_t cap);

#endif
