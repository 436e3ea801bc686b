#include "triton_program.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/error.h"
#include "plan/run_plan.h"
#include "common/banned.h"

/* The name a configuration's variant i is loaded under, and called by. */
static void variant_name(size_t i, char *out, size_t cap)
{
    snprintf(out, cap, "v%zu", i);
}

void triton_program_release(struct triton_program *tp)
{
    triton_variants_release(&tp->variants);
    triton_result_release(&tp->result);
    memset(tp, 0, sizeof(*tp));
}

int triton_program_compile(struct triton_program *tp, const char *source, size_t len,
                           const char *filename, const struct triton_target *t, char **cause)
{
    const struct triton_variants *tv = &tp->variants;
    struct triton_kernel_request *ks = calloc(tv->n_builds ? tv->n_builds : 1, sizeof(*ks));
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
    for (size_t c = 0; c < tv->n_configs; c++) {
        const struct triton_config *tc = &tv->configs[c];
        for (size_t i = 0; i < tc->n_variants; i++) {
            const struct triton_variant *v = &tc->variants[i];
            ks[tc->first + i] = (struct triton_kernel_request){
                .kernel = v->kernel,
                .args = v->args,
                .n_args = v->n_args,
                .constexprs = v->constexprs,
                .n_constexprs = v->n_constexprs,
                .num_warps = v->num_warps,
                .num_stages = v->num_stages,
                .maxnreg = v->maxnreg,
                .line = v->line,
            };
        }
    }
    rq.kernels = ks;
    rq.n_kernels = tv->n_builds;
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
    const struct triton_config *tc = &tp->variants.configs[config];
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
        variant_name(i, text[i], sizeof(text[i]));
        names[i] = text[i];
    }
    rc = runner_load_images(r, images, lens, symbols, names, (int)tc->n_variants, &reply,
                            BW_RUNNER_LOAD_MS, cause);
    if (rc == BW_OK)
        *fail = reply.fail;
    return rc;
}

int triton_program_build_of(const struct triton_program *tp, size_t config, const struct plan *pl,
                            size_t launch)
{
    int g = triton_variants_find(&tp->variants, config, pl, launch);

    if (g < 0 || (size_t)g >= tp->result.n_builds)
        return -1;
    return g;
}

int triton_program_run_plan(const struct triton_program *tp, size_t config, const struct plan *pl,
                            uint64_t seed, uint32_t case_index, struct run_plan *out, char **cause)
{
    const struct triton_config *tc = &tp->variants.configs[config];

    run_plan_from_plan(pl, seed, case_index, out);
    for (size_t l = 0; l < pl->n_launches; l++) {
        int g = triton_program_build_of(tp, config, pl, l);
        const struct triton_build *b;
        char name[24];
        int rc;

        if (g < 0 || !tp->result.builds[g].ok)
            return bw_fail(cause, BW_ERR_INTERNAL, "no Triton build for launch %zu of this case",
                           l + 1);
        b = &tp->result.builds[g];
        variant_name((size_t)g - tc->first, name, sizeof(name));
        rc = run_plan_triton_launch(out, l,
                                    &(struct triton_callee){
                                        .name = name,
                                        .num_warps = b->num_warps,
                                        .shared = b->shared,
                                        .global_scratch_size = b->global_scratch_size,
                                        .global_scratch_align = b->global_scratch_align,
                                        .profile_scratch_size = b->profile_scratch_size,
                                        .params = b->params,
                                        .param_types = b->param_types,
                                        .n_params = b->n_params,
                                    },
                                    cause);
        if (rc)
            return rc;
    }
    return BW_OK;
}
