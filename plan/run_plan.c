#include "run_plan.h"

#include <stdio.h>
#include <string.h>

#include "common/banned.h"

static enum run_role role_of(enum plan_role r)
{
    switch (r) {
    case PLAN_IN:
        return RUN_ROLE_IN;
    case PLAN_INOUT:
        return RUN_ROLE_INOUT;
    case PLAN_OUT:
        return RUN_ROLE_OUT;
    case PLAN_SCRATCH:
        return RUN_ROLE_SCRATCH;
    case PLAN_DATA:
        return RUN_ROLE_DATA;
    }
    return RUN_ROLE_SCRATCH;
}

static enum run_arg_kind arg_kind_of(enum plan_arg_kind k)
{
    switch (k) {
    case PLAN_ARG_BUF:
        return RUN_ARG_BUF;
    case PLAN_ARG_I64:
        return RUN_ARG_I64;
    case PLAN_ARG_I32:
        return RUN_ARG_I32;
    case PLAN_ARG_U64:
        return RUN_ARG_U64;
    case PLAN_ARG_U32:
        return RUN_ARG_U32;
    case PLAN_ARG_F32:
        return RUN_ARG_F32;
    case PLAN_ARG_F64:
        return RUN_ARG_F64;
    case PLAN_ARG_INT:
        return RUN_ARG_INT;
    }
    return RUN_ARG_INT;
}

void run_plan_from_plan(const struct plan *pl, uint64_t seed, uint32_t case_index,
                        struct run_plan *out)
{
    memset(out, 0, sizeof(*out));
    out->seed = seed;
    out->case_index = case_index;
    out->n_buffers = (int)pl->n_buffers;
    for (size_t b = 0; b < pl->n_buffers; b++) {
        struct run_buffer *rb = &out->buffers[b];
        snprintf(rb->name, sizeof(rb->name), "%s", pl->buffers[b].name);
        rb->dtype = pl->buffers[b].dtype;
        rb->count = (uint64_t)pl->buffers[b].count;
        rb->role = role_of(pl->buffers[b].role);
        rb->gen = pl->buffers[b].gen;
        rb->gen.dtype = (uint32_t)rb->dtype;
    }
    out->n_launches = (int)pl->n_launches;
    for (size_t l = 0; l < pl->n_launches; l++) {
        const struct plan_launch *pln = &pl->launches[l];
        struct run_launch *rl = &out->launches[l];
        snprintf(rl->kernel, sizeof(rl->kernel), "%s", pln->kernel);
        memcpy(rl->grid, pln->grid, sizeof(rl->grid));
        memcpy(rl->block, pln->block, sizeof(rl->block));
        rl->smem = pln->smem;
        rl->n_args = (int)pln->n_args;
        for (size_t a = 0; a < pln->n_args; a++) {
            const struct plan_arg *pa = &pln->args[a];
            struct run_arg *ra = &rl->args[a];
            ra->kind = arg_kind_of(pa->kind);
            if (pa->name)
                snprintf(ra->name, sizeof(ra->name), "%s", pa->name);
            ra->buf = pa->buf;
            ra->i = pa->i;
            ra->u = (uint64_t)pa->i;
            ra->f = pa->f;
        }
    }
}
