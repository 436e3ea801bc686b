/*
 * resolve.c - what a name used in a source's directives means (resolve.h).
 */
#include "resolve.h"

#include <string.h>

#include "common/banned.h"

/* If name is "<tensor>_scale" for an output tensor with an acc tolerance,
 * returns that tensor's index, else -1. */
static int scale_tensor(const struct problem *p, const char *name)
{
    size_t n = strlen(name);
    static const char suffix[] = "_scale";

    if (n <= sizeof(suffix) - 1 || strcmp(name + n - (sizeof(suffix) - 1), suffix) != 0)
        return -1;
    for (size_t t = 0; t < p->n_tensors; t++) {
        const struct tensor_spec *ts = &p->tensors[t];
        if (ts->role != ROLE_IN && ts->tol.acc > 0 &&
            strlen(ts->name) == n - (sizeof(suffix) - 1) &&
            strncmp(ts->name, name, n - (sizeof(suffix) - 1)) == 0)
            return (int)t;
    }
    return -1;
}

struct name_ref plan_resolve(const struct problem *p, const struct directives *d,
                             enum plan_side side, const char *name)
{
    struct name_ref r = {NAME_NONE, -1};
    int i;

    if ((i = problem_tensor_index(p, name)) >= 0)
        return (struct name_ref){NAME_TENSOR, i};
    if (side == PLAN_REFERENCE && (i = scale_tensor(p, name)) >= 0)
        return (struct name_ref){NAME_SCALE, i};
    if ((i = problem_size_index(p, name)) >= 0)
        return (struct name_ref){NAME_SIZE, i};
    if ((i = problem_scalar_index(p, name)) >= 0)
        return (struct name_ref){NAME_SCALAR, i};
    for (size_t k = 0; k < d->n_scratches; k++)
        if (strcmp(d->scratches[k].name, name) == 0)
            return (struct name_ref){NAME_SCRATCH, (int)k};
    for (size_t k = 0; k < d->n_consts; k++)
        if (strcmp(d->consts[k].name, name) == 0)
            return (struct name_ref){NAME_CONST, (int)k};
    for (size_t k = 0; k < d->n_tunes; k++)
        if (strcmp(d->tunes[k].name, name) == 0)
            return (struct name_ref){NAME_TUNE, (int)k};
    for (size_t k = 0; k < d->n_lets; k++)
        if (strcmp(d->lets[k].name, name) == 0)
            return (struct name_ref){NAME_LET, (int)k};
    return r;
}
