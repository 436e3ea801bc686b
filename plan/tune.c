/*
 * tune.c - the @tune configurations of a source (tune.h).
 */
#include "tune.h"

#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>

#include "common/banned.h"

/* True when d->tunes[i] is the first name of its @tune line. */
static bool group_starts(const struct directives *d, size_t i)
{
    return i == 0 || d->tunes[i].group != d->tunes[i - 1].group;
}

size_t directives_tune_count(const struct directives *d)
{
    size_t i, n = 1;

    for (i = 0; i < d->n_tunes; i++)
        if (group_starts(d, i))
            n *= d->tunes[i].n_values;
    return n;
}

void directives_tune_combo(const struct directives *d, size_t index, int64_t *values)
{
    size_t i, end = d->n_tunes;

    /* Each @tune line, the last first: its names [i, end) take value k. */
    for (i = d->n_tunes; i-- > 0;) {
        size_t k;
        if (!group_starts(d, i))
            continue;
        k = index % d->tunes[i].n_values;
        index /= d->tunes[i].n_values;
        for (size_t j = i; j < end; j++)
            values[j] = d->tunes[j].values[k];
        end = i;
    }
}

int64_t (*directives_tune_table(const struct directives *d, size_t *n))[BW_MAX_TUNE_PARAMS]
{
    int64_t(*values)[BW_MAX_TUNE_PARAMS];

    *n = directives_tune_count(d);
    values = calloc(*n, sizeof(*values));
    if (!values) {
        *n = 0;
        return NULL;
    }
    for (size_t c = 0; c < *n; c++)
        directives_tune_combo(d, c, values[c]);
    return values;
}

void directives_tune_describe(const struct directives *d, const int64_t *values, char *out,
                              size_t cap)
{
    size_t len = 0;

    out[0] = '\0';
    for (size_t k = 0; k < d->n_tunes && values; k++) {
        int n = snprintf(out + len, cap - len, "%s%s=%lld", k ? ", " : "", d->tunes[k].name,
                         (long long)values[k]);
        if (n < 0 || (size_t)n >= cap - len)
            return;
        len += (size_t)n;
    }
}
