#include "triton_program.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/error.h"
#include "plan/run_plan.h"
#include "common/banned.h"

/* The alignment the runner gives every buffer (runner_exec.c lays them out at 256 bytes). */
#define BUFFER_ALIGN 256

void triton_program_release(struct triton_program *tp)
{
    for (size_t c = 0; tp->configs && c < tp->n_configs; c++)
        free(tp->configs[c].variants);
    free(tp->configs);
    triton_result_release(&tp->result);
    memset(tp, 0, sizeof(*tp));
}

/* The variant launch l of plan pl needs: Triton's JIT specialisation of its
 * arguments (a pointer is always divisible by 16: the runner's buffers are
 * 256-byte aligned). v->args[k].type points into v->types: a copy of v must
 * point its own. */
static void variant_of(const struct plan *pl, size_t l, struct triton_variant *v)
{
    const struct plan_launch *L = &pl->launches[l];

    memset(v, 0, sizeof(*v));
    v->launch = l;
    v->n_args = L->n_args;
    for (size_t k = 0; k < L->n_args; k++) {
        const struct plan_arg *a = &L->args[k];
        plan_arg_triton_type(pl, a, v->types[k], sizeof(v->types[k]));
        v->args[k].type = v->types[k];
        if (a->kind == PLAN_ARG_BUF) {
            v->args[k].div16 = true;
        } else if (plan_arg_is_integer(a)) {
            v->args[k].div16 = a->i % 16 == 0;
            v->args[k].equal1 = a->i == 1;
        }
    }
    v->n_constexprs = L->n_constexprs;
    for (size_t k = 0; k < L->n_constexprs; k++)
        v->constexprs[k] = (struct triton_constexpr){L->constexprs[k].name, L->constexprs[k].value};
    v->num_warps = L->num_warps;
    v->num_stages = L->num_stages;
    v->maxnreg = L->maxnreg;
}

static bool same_variant(const struct triton_variant *a, const struct triton_variant *b)
{
    if (a->launch != b->launch || a->n_args != b->n_args || a->n_constexprs != b->n_constexprs ||
        a->num_warps != b->num_warps || a->num_stages != b->num_stages || a->maxnreg != b->maxnreg)
        return false;
    for (size_t k = 0; k < a->n_args; k++)
        if (strcmp(a->types[k], b->types[k]) != 0 || a->args[k].div16 != b->args[k].div16 ||
            a->args[k].equal1 != b->args[k].equal1)
            return false;
    for (size_t k = 0; k < a->n_constexprs; k++)
        if (strcmp(a->constexprs[k].name, b->constexprs[k].name) != 0 ||
            a->constexprs[k].value != b->constexprs[k].value)
            return false;
    return true;
}

/* The index of v among tc's variants, or -1. */
static int find_variant(const struct triton_config *tc, const struct triton_variant *v)
{
    for (size_t i = 0; i < tc->n_variants; i++)
        if (same_variant(&tc->variants[i], v))
            return (int)i;
    return -1;
}

/* Adds the variants configuration tune_values needs over every case of p to tc. */
static int plan_config(struct triton_config *tc, const struct problem *p,
                       const struct directives *d, const int64_t *tune_values, struct plan *pl,
                       char **cause)
{
    char *first_why = NULL; /* owned: why the first case that cannot be planned cannot */
    int rc = BW_OK;

    for (size_t i = 0; i < p->n_tests + p->n_benchmarks && rc == BW_OK; i++) {
        const struct problem_case *c =
            i < p->n_tests ? &p->tests[i] : &p->benchmarks[i - p->n_tests];
        char *why = NULL;

        if (plan_build(p, d, tune_values, c, PLAN_SUBMISSION, pl, &why)) {
            if (!first_why)
                first_why = why;
            else
                free(why);
            continue;
        }
        for (size_t l = 0; l < pl->n_launches && rc == BW_OK; l++) {
            struct triton_variant v;
            variant_of(pl, l, &v);
            if (find_variant(tc, &v) >= 0)
                continue;
            if (tc->n_variants == BW_TRITON_MAX_VARIANTS) {
                rc = bw_fail(cause, BW_ERR_LIMIT,
                             "line %d: kernel %s needs more than %d builds over this problem's "
                             "cases (BW_TRITON_MAX_VARIANTS): one per distinct set of constexpr "
                             "values and argument types; keep constexpr values from following "
                             "every size (say, BLOCK=next_pow2(N) over many sizes of N)",
                             d->launches[l].line, d->launches[l].kernel, BW_TRITON_MAX_VARIANTS);
                break;
            }
            tc->variants[tc->n_variants] = v;
            for (size_t k = 0; k < v.n_args; k++) /* its types point into its own storage */
                tc->variants[tc->n_variants].args[k].type = tc->variants[tc->n_variants].types[k];
            tc->n_variants++;
        }
    }
    if (rc == BW_OK && tc->n_variants == 0) /* nothing to compile: say why */
        rc = bw_fail(cause, BW_ERR_LIMIT, "no case of this problem can be launched: %s",
                     first_why ? first_why : "the problem has no cases");
    free(first_why);
    return rc;
}

int triton_program_plan(struct triton_program *tp, const struct problem *p,
                        const struct directives *d,
                        const int64_t (*tune_values)[BW_MAX_TUNE_PARAMS], size_t n_configs,
                        char **cause)
{
    struct plan *pl = malloc(sizeof(*pl));
    int rc = BW_OK;

    memset(tp, 0, sizeof(*tp));
    tp->configs = calloc(n_configs ? n_configs : 1, sizeof(*tp->configs));
    if (!pl || !tp->configs) {
        free(pl);
        return bw_fail(cause, BW_ERR_NOMEM, "out of memory");
    }
    tp->n_configs = n_configs;
    for (size_t c = 0; c < n_configs && rc == BW_OK; c++) {
        struct triton_config *tc = &tp->configs[c];
        tc->variants = calloc(BW_TRITON_MAX_VARIANTS, sizeof(*tc->variants));
        if (!tc->variants) {
            rc = bw_fail(cause, BW_ERR_NOMEM, "out of memory");
            break;
        }
        rc = plan_config(tc, p, d, tune_values ? tune_values[c] : NULL, pl, cause);
        tc->first = tp->n_builds;
        tp->n_builds += tc->n_variants;
        if (rc == BW_OK && tp->n_builds > BW_TRITON_MAX_KERNELS)
            rc = bw_fail(cause, BW_ERR_LIMIT,
                         "the @tune configurations need %zu or more builds over this problem's "
                         "cases, more than %d (BW_TRITON_MAX_KERNELS): fewer configurations, or "
                         "constexpr values that do not follow every size",
                         tp->n_builds, BW_TRITON_MAX_KERNELS);
    }
    free(pl);
    return rc;
}

int triton_program_compile(struct triton_program *tp, const struct directives *d,
                           const char *source, size_t len, const char *filename,
                           const struct triton_target *t, char **cause)
{
    struct triton_kernel_request *ks = calloc(tp->n_builds ? tp->n_builds : 1, sizeof(*ks));
    struct triton_request rq = {
        .source = source,
        .len = len,
        .filename = filename,
        .cc_major = t->cc_major,
        .cc_minor = t->cc_minor,
        .no_sandbox = t->no_sandbox,
    };
    char key[65];
    bool keyed;
    int rc;

    if (!ks)
        return bw_fail(cause, BW_ERR_NOMEM, "out of memory");
    for (size_t c = 0; c < tp->n_configs; c++) {
        const struct triton_config *tc = &tp->configs[c];
        for (size_t i = 0; i < tc->n_variants; i++) {
            const struct triton_variant *v = &tc->variants[i];
            ks[tc->first + i] = (struct triton_kernel_request){
                .kernel = d->launches[v->launch].kernel,
                .args = v->args,
                .n_args = v->n_args,
                .constexprs = v->constexprs,
                .n_constexprs = v->n_constexprs,
                .num_warps = v->num_warps,
                .num_stages = v->num_stages,
                .maxnreg = v->maxnreg,
                .line = d->launches[v->launch].line,
            };
        }
    }
    rq.kernels = ks;
    rq.n_kernels = tp->n_builds;
    keyed = t->cache && build_cache_triton_key(&rq, key);
    if (keyed && build_cache_get_triton(t->cache, key, &tp->result)) {
        tp->from_cache = true;
        free(ks);
        return BW_OK;
    }
    rc = triton_compile_run(&rq, &tp->result, cause);
    if (rc == BW_OK && keyed)
        build_cache_put_triton(t->cache, key, &tp->result);
    free(ks);
    return rc;
}

int triton_program_load(struct runner *r, const struct triton_program *tp, size_t config,
                        struct run_failure *fail, char **cause)
{
    const struct triton_config *tc = &tp->configs[config];
    const void *images[BW_MAX_LOADED_KERNELS];
    const char *symbols[BW_MAX_LOADED_KERNELS], *names[BW_MAX_LOADED_KERNELS];
    char text[BW_MAX_LOADED_KERNELS][24];
    size_t lens[BW_MAX_LOADED_KERNELS];
    struct load_reply reply;
    int rc;

    if (tc->n_variants == 0 || tc->n_variants > BW_MAX_LOADED_KERNELS ||
        tc->first + tc->n_variants > tp->result.n_builds)
        return bw_fail(cause, BW_ERR_INTERNAL,
                       "configuration %zu has %zu Triton builds of the %zu compiled", config + 1,
                       tc->n_variants, tp->result.n_builds);
    for (size_t i = 0; i < tc->n_variants; i++) {
        const struct triton_build *b = &tp->result.builds[tc->first + i];
        images[i] = b->cubin;
        lens[i] = b->cubin_len;
        symbols[i] = b->name;
        snprintf(text[i], sizeof(text[i]), "v%zu", i);
        names[i] = text[i];
    }
    rc = runner_load_images(r, images, lens, symbols, names, (int)tc->n_variants, &reply,
                            BW_RUNNER_LOAD_MS, cause);
    if (rc == BW_OK)
        *fail = reply.fail;
    return rc;
}

/* The run argument kind of a Triton parameter type as a build takes it. */
static bool arg_kind_of(const char *type, enum run_arg_kind *out)
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

int triton_program_build_of(const struct triton_program *tp, size_t config, const struct plan *pl,
                            size_t launch)
{
    const struct triton_config *tc = &tp->configs[config];
    struct triton_variant v;
    int i;

    variant_of(pl, launch, &v);
    i = find_variant(tc, &v);
    if (i < 0 || tc->first + (size_t)i >= tp->result.n_builds)
        return -1;
    return (int)(tc->first + (size_t)i);
}

int triton_program_run_plan(const struct triton_program *tp, size_t config, const struct plan *pl,
                            uint64_t seed, uint32_t case_index, struct run_plan *out, char **cause)
{
    const struct triton_config *tc = &tp->configs[config];

    run_plan_from_plan(pl, seed, case_index, out);
    for (size_t l = 0; l < pl->n_launches; l++) {
        struct run_launch *rl = &out->launches[l];
        struct run_arg given[BW_MAX_LAUNCH_ARGS];
        const struct triton_build *b;
        int i, rc;

        int g = triton_program_build_of(tp, config, pl, l);
        if (g < 0 || !tp->result.builds[g].ok)
            return bw_fail(cause, BW_ERR_INTERNAL, "no Triton build for launch %zu of this case",
                           l + 1);
        b = &tp->result.builds[g];
        i = g - (int)tc->first;
        if (b->n_params + 2 > BW_MAX_LAUNCH_ARGS)
            return bw_fail(cause, BW_ERR_LIMIT,
                           "launch %zu: %zu parameters and two scratch pointers are more than "
                           "%d (BW_MAX_LAUNCH_ARGS)",
                           l + 1, b->n_params, BW_MAX_LAUNCH_ARGS);
        memcpy(given, rl->args, sizeof(given));
        snprintf(rl->kernel, sizeof(rl->kernel), "v%d", i);
        rl->block[0] = (uint32_t)(32 * b->num_warps);
        rl->block[1] = rl->block[2] = 1;
        rl->smem = (uint32_t)b->shared;
        rl->n_args = 0;
        for (size_t k = 0; k < b->n_params; k++) {
            struct run_arg a = given[b->params[k]];
            if (!arg_kind_of(b->param_types[k], &a.kind))
                return bw_fail(cause, BW_ERR_INTERNAL, "launch %zu: parameter type %s", l + 1,
                               b->param_types[k]);
            rl->args[rl->n_args++] = a;
        }
        rc = scratch_arg(out, rl, l, "global_scratch", b->global_scratch_size,
                         b->global_scratch_align, &rl->args[rl->n_args], cause);
        if (rc)
            return rc;
        rl->n_args++;
        rc = scratch_arg(out, rl, l, "profile_scratch", b->profile_scratch_size, 1,
                         &rl->args[rl->n_args], cause);
        if (rc)
            return rc;
        rl->n_args++;
    }
    return BW_OK;
}
