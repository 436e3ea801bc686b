#include "program.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ptx.h"
#include "common/error.h"
#include "common/log.h"
#include "plan/run_plan.h"
#include "common/banned.h"

/* Compiles at once: NVRTC is single-threaded per compile, and the judge's
 * machine also runs the runners. */
#define COMPILES_AT_ONCE 2

int program_parse(struct program *pg, const struct problem *p, enum language lang,
                  const char *source, size_t len, enum plan_side side, struct diag_list *diags)
{
    int rc;

    memset(pg, 0, sizeof(*pg));
    pg->p = p;
    pg->lang = lang;
    rc = directives_parse_as(lang, source, len, &pg->dirs, diags);
    if (rc)
        return rc;
    rc = plan_check(p, &pg->dirs, side, diags);
    if (rc)
        return rc;
    pg->tune_values = directives_tune_table(&pg->dirs, &pg->n_configs);
    pg->builds = calloc(pg->n_configs, sizeof(*pg->builds));
    if (!pg->builds || !pg->tune_values)
        return BW_ERR_NOMEM;
    return BW_OK;
}

void program_release(struct program *pg)
{
    for (size_t i = 0; i < pg->n_configs && pg->builds; i++)
        compile_result_release(&pg->builds[i]);
    free(pg->builds);
    free(pg->tune_values);
    triton_program_release(&pg->triton);
    directives_release(&pg->dirs);
    memset(pg, 0, sizeof(*pg));
}

void program_describe_config(const struct program *pg, size_t cfg, char *out, size_t cap)
{
    directives_tune_describe(&pg->dirs, pg->tune_values[cfg], out, cap);
}

size_t program_kernels(const struct program *pg, const char **out, size_t cap)
{
    size_t n = 0;

    for (size_t l = 0; l < pg->dirs.n_launches && n < cap; l++) {
        bool seen = false;
        for (size_t k = 0; k < n; k++)
            seen |= strcmp(out[k], pg->dirs.launches[l].kernel) == 0;
        if (!seen)
            out[n++] = pg->dirs.launches[l].kernel;
    }
    if (pg->dirs.rows && n < cap) /* a reference's rows kernel is loaded beside its @launch's */
        out[n++] = pg->dirs.rows->kernel;
    return n;
}

/* ---- compiling ------------------------------------------------------------------ */

struct compile_job_arg {
    const struct program_target *target;
    const char *source;
    size_t len;
    const char *filename;
    struct program *pg;
    size_t config;
    int rc;
    char *cause; /* owned */
};

/* Compiles one configuration: @const and @tune as -D macros, @flags as given. */
static void *compile_one(void *arg)
{
    struct compile_job_arg *j = arg;
    const struct directives *d = &j->pg->dirs;
    char defs[BW_MAX_CONSTS + BW_MAX_TUNE_PARAMS][BW_MAX_NAME + 32];
    const char *opts[BW_MAX_CONSTS + BW_MAX_TUNE_PARAMS + BW_MAX_FLAGS];
    size_t n = 0;
    struct compile_request rq = {0};

    for (size_t k = 0; k < d->n_consts; k++) {
        snprintf(defs[n], sizeof(defs[n]), "-D%s=%lld", d->consts[k].name,
                 (long long)d->consts[k].value);
        opts[n] = defs[n];
        n++;
    }
    for (size_t k = 0; k < d->n_tunes; k++) {
        snprintf(defs[n], sizeof(defs[n]), "-D%s=%lld", d->tunes[k].name,
                 (long long)j->pg->tune_values[j->config][k]);
        opts[n] = defs[n];
        n++;
    }
    for (size_t k = 0; k < d->n_flags; k++)
        opts[n++] = d->flags[k];
    rq.source = j->source;
    rq.len = j->len;
    rq.filename = j->filename;
    rq.arch = j->target->arch;
    rq.options = opts;
    rq.n_options = n;
    rq.no_sandbox = j->target->no_sandbox;
    if (j->target->cache) {
        char key[65];
        build_cache_key(&rq, key);
        if (build_cache_get(j->target->cache, key, &j->pg->builds[j->config]))
            return NULL;
        j->rc = compile_run(&rq, &j->pg->builds[j->config], &j->cause);
        if (j->rc == BW_OK)
            build_cache_put(j->target->cache, key, &j->pg->builds[j->config]);
        return NULL;
    }
    j->rc = compile_run(&rq, &j->pg->builds[j->config], &j->cause);
    return NULL;
}

static int compile_cuda(struct program *pg, const struct program_target *t, const char *source,
                        size_t len, const char *filename, char **cause)
{
    struct compile_job_arg *jobs = calloc(pg->n_configs, sizeof(*jobs));
    pthread_t *threads = calloc(pg->n_configs, sizeof(*threads));
    bool *started = calloc(pg->n_configs, sizeof(*started));
    int rc = BW_OK;

    if (!jobs || !threads || !started) {
        rc = bw_fail(cause, BW_ERR_NOMEM, "out of memory");
        goto out;
    }
    for (size_t c = 0; c < pg->n_configs; c += COMPILES_AT_ONCE) {
        for (size_t k = c; k < c + COMPILES_AT_ONCE && k < pg->n_configs; k++) {
            jobs[k] = (struct compile_job_arg){t, source, len, filename, pg, k, 0, NULL};
            started[k] = pthread_create(&threads[k], NULL, compile_one, &jobs[k]) == 0;
            if (!started[k])
                compile_one(&jobs[k]);
        }
        for (size_t k = c; k < c + COMPILES_AT_ONCE && k < pg->n_configs; k++)
            if (started[k])
                pthread_join(threads[k], NULL);
    }
    for (size_t k = 0; k < pg->n_configs; k++) {
        if (jobs[k].rc && rc == BW_OK)
            rc = bw_fail(cause, jobs[k].rc, "%s",
                         jobs[k].cause ? jobs[k].cause : bw_strerror(jobs[k].rc));
        free(jobs[k].cause);
    }
out:
    free(jobs);
    free(threads);
    free(started);
    return rc;
}

/* Copies diagnostics from one list to another; BW_ERR_NOMEM if it cannot. */
static int copy_diags(struct diag_list *to, const struct diag_list *from)
{
    for (size_t i = 0; i < from->n; i++)
        if (diag_list_addf(to, from->items[i].line, from->items[i].column, "%s",
                           from->items[i].msg))
            return BW_ERR_NOMEM;
    return BW_OK;
}

/* Summarises the Triton compile per configuration in pg->builds (see
 * program.h): the log goes to configuration 0, the diagnostics to the first
 * configuration that failed (or 0), as review_builds reads them. */
static int summarise_triton(struct program *pg, const char *failure)
{
    const struct triton_program *tp = &pg->triton;
    size_t diags_to = 0;
    bool found = false;

    for (size_t c = 0; c < pg->n_configs; c++) {
        struct compile_result *cr = &pg->builds[c];
        const struct triton_config *tc =
            c < tp->variants.n_configs ? &tp->variants.configs[c] : NULL;

        cr->ok = !failure && tc && tc->n_variants > 0;
        for (size_t i = 0; cr->ok && i < tc->n_variants; i++)
            cr->ok = tc->first + i < tp->result.n_builds && tp->result.builds[tc->first + i].ok;
        if (!cr->ok && !found) {
            diags_to = c;
            found = true;
        }
        cr->ms = tp->result.ms;
        cr->nvrtc_ms = c == 0 ? tp->result.driver_ms : 0; /* one compile for every configuration */
        cr->from_cache = tp->from_cache;
        cr->log = strdup(c == 0 && tp->result.log ? tp->result.log : "");
        if (!cr->log)
            return BW_ERR_NOMEM;
        if (!cr->ok) {
            const char *why = failure ? failure : tp->result.failure;
            if (why && !(cr->failure = strdup(why)))
                return BW_ERR_NOMEM;
        }
    }
    return pg->n_configs ? copy_diags(&pg->builds[diags_to].diags, &tp->result.diags) : BW_OK;
}

/* Plans every variant of a Triton program (plan/triton_variant.h) and compiles
 * them in one request. */
static int compile_triton_builds(struct program *pg, const struct program_target *t,
                                 const char *source, size_t len, const char *filename, char **cause)
{
    struct triton_target tt = {
        .cc_major = t->cc_major,
        .cc_minor = t->cc_minor,
        .no_sandbox = t->no_sandbox,
        .cache = t->cache,
        .pool = t->triton_pool,
        .jobs = t->triton_jobs,
    };
    char *why = NULL;
    int rc;

    rc = triton_variants_plan(&pg->triton.variants, pg->p, &pg->dirs, pg->tune_values,
                              pg->n_configs, &why);
    if (rc == BW_ERR_LIMIT) { /* too many variants, or no case can launch: the learner's to fix */
        rc = summarise_triton(pg, why ? why : bw_strerror(rc));
        free(why);
        return rc ? bw_fail(cause, rc, "out of memory") : BW_OK;
    }
    if (rc) {
        rc = bw_fail(cause, rc, "%s", why ? why : bw_strerror(rc));
        free(why);
        return rc;
    }
    rc = triton_program_compile(&pg->triton, &pg->dirs, source, len, filename, &tt, cause);
    if (rc)
        return rc;
    rc = summarise_triton(pg, NULL);
    return rc ? bw_fail(cause, rc, "out of memory") : BW_OK;
}

/* compile_triton_builds, then every build final for a pipeline reading them as they come. */
static int compile_triton(struct program *pg, const struct program_target *t, const char *source,
                          size_t len, const char *filename, char **cause)
{
    int rc = compile_triton_builds(pg, t, source, len, filename, cause);

    triton_program_stream_end(&pg->triton);
    return rc;
}

int program_compile(struct program *pg, const struct program_target *t, const char *source,
                    size_t len, const char *filename, char **cause)
{
    if (pg->lang == LANG_TRITON)
        return compile_triton(pg, t, source, len, filename, cause);
    return compile_cuda(pg, t, source, len, filename, cause);
}

/* ---- signatures ------------------------------------------------------------------ */

/* The width and kind a plan argument needs from its parameter; false for a
 * literal, which takes the parameter's width. */
static bool arg_needs(const struct plan_arg *pa, int *size, const char **want)
{
    switch (pa->kind) {
    case PLAN_ARG_BUF:
        *size = 8;
        *want = "a pointer";
        return true;
    case PLAN_ARG_I64:
    case PLAN_ARG_U64:
        *size = 8;
        *want = "a 64-bit integer (long long)";
        return true;
    case PLAN_ARG_I32:
    case PLAN_ARG_U32:
        *size = 4;
        *want = "a 32-bit integer (int)";
        return true;
    case PLAN_ARG_F32:
        *size = 4;
        *want = "a float";
        return true;
    case PLAN_ARG_F64:
        *size = 8;
        *want = "a double";
        return true;
    case PLAN_ARG_INT:
        break;
    }
    return false;
}

/* Checks the arguments of launch l (built as pl) against entry e. */
static int check_args(const struct problem *p, const struct program *pg, enum plan_side side,
                      size_t l, const struct plan_launch *pl, const struct ptx_entry *e,
                      struct diag_list *diags)
{
    const struct launch *ln = &pg->dirs.launches[l];
    int rc = BW_OK;

    for (size_t a = 0; a < ln->n_args; a++) {
        const struct plan_arg *pa = &pl->args[a];
        const struct ptx_param *pp = &e->params[a];
        const char *want = NULL;
        int size = 8;

        if (!arg_needs(pa, &size, &want)) {
            /* It takes the parameter's width: does it fit in every case? */
            if (plan_check_int_arg(p, &pg->dirs, side, pg->tune_values, pg->n_configs, l, a,
                                   pp->size, pp->kind == PTX_PARAM_FLOAT, diags))
                rc = BW_ERR_INVALID;
            continue;
        }
        bool arg_float = pa->kind == PLAN_ARG_F32 || pa->kind == PLAN_ARG_F64;
        bool kind_bad =
            (pp->kind == PTX_PARAM_FLOAT && !arg_float) || (pp->kind == PTX_PARAM_INT && arg_float);
        if (pp->size != size || kind_bad) {
            diag_list_addf(diags, ln->args[a].line, ln->args[a].column,
                           "argument %zu '%s' of kernel '%s' is %s (%d bytes) but the "
                           "parameter is %d bytes%s",
                           a + 1, pa->name ? pa->name : "?", ln->kernel, want, size, pp->size,
                           pp->kind == PTX_PARAM_FLOAT ? " of floating point" : "");
            rc = BW_ERR_INVALID;
        }
    }
    return rc;
}

int program_check_signatures(const struct problem *p, const struct program *pg,
                             const struct compile_result *cr, enum plan_side side, const char *job,
                             struct diag_list *diags)
{
    struct ptx_entries entries;
    struct plan pl;
    bool have_plan;
    char *cause = NULL;
    int rc = BW_OK;

    if (pg->lang == LANG_TRITON || !cr->ptx)
        return BW_OK;
    if (ptx_parse_entries(cr->ptx, &entries, &cause)) {
        log_warn("%s: cannot read kernel signatures from PTX: %s", job ? job : "judge",
                 cause ? cause : "?");
        free(cause);
        return BW_OK;
    }
    have_plan = p->n_tests > 0 &&
                plan_build(p, &pg->dirs, pg->tune_values[0], &p->tests[0], side, &pl, &cause) == 0;
    free(cause);
    for (size_t l = 0; l < pg->dirs.n_launches; l++) {
        const struct launch *ln = &pg->dirs.launches[l];
        const struct ptx_entry *e = ptx_find(&entries, ln->kernel);

        if (!e) {
            if (ptx_find_mangled(&entries, ln->kernel))
                diag_list_addf(
                    diags, ln->line, 1,
                    "kernel '%s' has a C++ (mangled) name: declare it extern \"C\" __global__",
                    ln->kernel);
            else
                diag_list_addf(diags, ln->line, 1,
                               "no __global__ function named '%s' in the source", ln->kernel);
            rc = BW_ERR_INVALID;
            continue;
        }
        if ((size_t)e->n_params != ln->n_args) {
            diag_list_addf(diags, ln->line, 1,
                           "kernel '%s' takes %d parameter%s but @launch passes %zu argument%s",
                           ln->kernel, e->n_params, e->n_params == 1 ? "" : "s", ln->n_args,
                           ln->n_args == 1 ? "" : "s");
            rc = BW_ERR_INVALID;
            continue;
        }
        if (have_plan && check_args(p, pg, side, l, &pl.launches[l], e, diags))
            rc = BW_ERR_INVALID;
    }
    if (pg->dirs.rows && pg->dirs.n_launches == 1) {
        const struct rows_kernel *rk = pg->dirs.rows;
        const struct ptx_entry *e = ptx_find(&entries, rk->kernel);
        size_t want = pg->dirs.launches[0].n_args + 2;
        if (!e) {
            diag_list_addf(diags, rk->line, 1, "no __global__ function named '%s' in the source",
                           rk->kernel);
            rc = BW_ERR_INVALID;
        } else if ((size_t)e->n_params != want) {
            diag_list_addf(diags, rk->line, 1,
                           "rows kernel '%s' takes %d parameters but gets %zu: the @launch's "
                           "arguments, then rows and n_rows",
                           rk->kernel, e->n_params, want);
            rc = BW_ERR_INVALID;
        }
    }
    ptx_entries_release(&entries);
    return rc;
}

/* ---- loading ----------------------------------------------------------------------- */

int program_load(struct runner *r, const struct program *pg, size_t config,
                 struct run_failure *fail, char **cause)
{
    const char *kernels[BW_MAX_LAUNCHES];
    size_t n = program_kernels(pg, kernels, BW_MAX_LAUNCHES);
    struct load_reply reply;
    int rc;

    if (pg->lang == LANG_TRITON)
        return triton_program_load(r, &pg->triton, config, fail, cause);
    rc = runner_load(r, pg->builds[config].cubin, pg->builds[config].cubin_len, kernels, (int)n,
                     &reply, BW_RUNNER_LOAD_MS, cause);
    if (rc)
        return rc;
    *fail = reply.fail;
    return BW_OK;
}

int program_run_plan(const struct program *pg, size_t config, const struct plan *pl, uint64_t seed,
                     uint32_t case_index, struct run_plan *out, char **cause)
{
    if (pg->lang == LANG_TRITON)
        return triton_program_run_plan(&pg->triton, config, pl, seed, case_index, out, cause);
    run_plan_from_plan(pl, seed, case_index, out);
    return BW_OK;
}
