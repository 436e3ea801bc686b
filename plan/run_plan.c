/*
 * run_plan.c - a concrete plan in the runner protocol's form (run_plan.h).
 */
#include "run_plan.h"

#include <stdio.h>
#include <string.h>

#include "common/error.h"
#include "common/banned.h"

/* The alignment the runner gives every buffer (runner_exec.c lays them out at 256 bytes). */
#define BUFFER_ALIGN 256

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
            ra->offset = pa->kind == PLAN_ARG_BUF ? (uint64_t)pa->offset : 0;
            ra->i = pa->i;
            ra->u = (uint64_t)pa->i;
            ra->f = pa->f;
        }
    }
}

/* ---- a Triton launch, as its build takes it ------------------------------------- */

/* The run argument kind of a Triton parameter type as a build takes it. */
static bool triton_arg_kind(const char *type, enum run_arg_kind *out)
{
    static const struct {
        const char *type;
        enum run_arg_kind kind;
    } kinds[] = {{"i32", RUN_ARG_I32}, {"i64", RUN_ARG_I64},  {"u32", RUN_ARG_U32},
                 {"u64", RUN_ARG_U64}, {"fp32", RUN_ARG_F32}, {"fp64", RUN_ARG_F64}};

    if (type[0] == '*') {
        *out = RUN_ARG_BUF;
        return true;
    }
    for (size_t i = 0; i < sizeof(kinds) / sizeof(kinds[0]); i++)
        if (strcmp(type, kinds[i].type) == 0) {
            *out = kinds[i].kind;
            return true;
        }
    return false;
}

/* A trailing scratch pointer: a zeroed buffer of `per_program` bytes for each
 * of the launch's programs, or NULL (8 zero bytes) when the build needs none. */
static int scratch_arg(struct run_plan *out, const struct run_launch *rl, size_t l,
                       const char *what, uint64_t per_program, uint64_t align, struct run_arg *arg,
                       char **cause)
{
    uint64_t programs = (uint64_t)rl->grid[0] * rl->grid[1] * rl->grid[2];
    struct run_buffer *b;

    memset(arg, 0, sizeof(*arg));
    snprintf(arg->name, sizeof(arg->name), "%s", what);
    if (per_program == 0) {
        arg->kind = RUN_ARG_U64;
        return BW_OK;
    }
    if (align > BUFFER_ALIGN)
        return bw_fail(cause, BW_ERR_INTERNAL,
                       "launch %zu: the build asks %s aligned at %llu bytes, more than %d", l + 1,
                       what, (unsigned long long)align, BUFFER_ALIGN);
    if (programs > BW_MAX_TENSOR_BYTES / per_program)
        return bw_fail(cause, BW_ERR_LIMIT,
                       "launch %zu: %llu programs of %llu bytes of Triton %s are more than "
                       "BW_MAX_TENSOR_BYTES",
                       l + 1, (unsigned long long)programs, (unsigned long long)per_program, what);
    if (out->n_buffers >= BW_MAX_BUFFERS)
        return bw_fail(cause, BW_ERR_LIMIT, "launch %zu: no room for a Triton %s buffer", l + 1,
                       what);
    b = &out->buffers[out->n_buffers];
    memset(b, 0, sizeof(*b));
    snprintf(b->name, sizeof(b->name), "%s_%zu", what, l + 1);
    b->dtype = DTYPE_UINT8;
    b->count = programs * per_program;
    b->role = RUN_ROLE_SCRATCH;
    arg->kind = RUN_ARG_BUF;
    arg->buf = out->n_buffers++;
    return BW_OK;
}

int run_plan_triton_launch(struct run_plan *out, size_t l, const struct triton_callee *callee,
                           char **cause)
{
    struct run_launch *rl = &out->launches[l];
    struct run_arg given[BW_MAX_LAUNCH_ARGS];
    int rc;

    if (callee->n_params + 2 > BW_MAX_LAUNCH_ARGS)
        return bw_fail(cause, BW_ERR_LIMIT,
                       "launch %zu: %zu parameters and two scratch pointers are more than "
                       "%d (BW_MAX_LAUNCH_ARGS)",
                       l + 1, callee->n_params, BW_MAX_LAUNCH_ARGS);
    memcpy(given, rl->args, sizeof(given));
    snprintf(rl->kernel, sizeof(rl->kernel), "%s", callee->name);
    rl->block[0] = (uint32_t)(32 * callee->num_warps);
    rl->block[1] = rl->block[2] = 1;
    rl->smem = (uint32_t)callee->shared;
    rl->n_args = 0;
    for (size_t k = 0; k < callee->n_params; k++) {
        struct run_arg a = given[callee->params[k]];
        if (!triton_arg_kind(callee->param_types[k], &a.kind))
            return bw_fail(cause, BW_ERR_INTERNAL, "launch %zu: parameter type %s", l + 1,
                           callee->param_types[k]);
        rl->args[rl->n_args++] = a;
    }
    rc = scratch_arg(out, rl, l, "global_scratch", callee->global_scratch_size,
                     callee->global_scratch_align, &rl->args[rl->n_args], cause);
    if (rc)
        return rc;
    rl->n_args++;
    rc = scratch_arg(out, rl, l, "profile_scratch", callee->profile_scratch_size, 1,
                     &rl->args[rl->n_args], cause);
    if (rc)
        return rc;
    rl->n_args++;
    return BW_OK;
}
