/*
 * resolve.h - private to plan/: what a name used in a source's directives
 * means for a problem. Shared by checking a source against its problem
 * (plan_check.c) and evaluating it for a case (plan.c); callers outside plan/
 * use plan.h.
 *
 * A name is looked up in this order: a tensor of the problem, the
 * reference's "<out>_scale" buffer (PLAN_REFERENCE only), a size, a scalar,
 * then the source's own @scratch, @const, @tune and @let names. plan_check
 * refuses a @scratch, @const, @tune or @let name that an earlier kind already
 * takes, so each name has one meaning.
 */
#ifndef BW_RESOLVE_H
#define BW_RESOLVE_H

#include "directive.h"
#include "plan.h"
#include "problem/problem.h"

enum name_kind {
    NAME_NONE,
    NAME_TENSOR,
    NAME_SCALE,
    NAME_SIZE,
    NAME_SCALAR,
    NAME_SCRATCH,
    NAME_CONST,
    NAME_TUNE,
    NAME_LET
};

struct name_ref {
    enum name_kind kind;
    int index; /* into p->tensors (NAME_TENSOR, NAME_SCALE), p->size_names, p->scalars,
                  d->scratches, d->consts, d->tunes or d->lets; -1 for NAME_NONE */
};

/* What `name` means for `side` of problem p with the directives d. */
struct name_ref plan_resolve(const struct problem *p, const struct directives *d,
                             enum plan_side side, const char *name);

#endif
