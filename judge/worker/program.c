#include "program.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ptx.h"
#include "triton_key.h"
#include "triton_launcher.h"
#include "common/error.h"
#include "common/log.h"
#include "plan/launcher_form.h"
#include "plan/run_plan.h"
#include "plan/triton_variant.h"
#include "common/banned.h"

/* Compiles at once: NVRTC is single-threaded per compile, and the judge's
 * machine also runs the runners. */
#define COMPILES_AT_ONCE 2

/* The canonical order of solve's parameters, "A, B, C, N" (tensors, scalars, sizes). */
static void canonical_signature(const struct problem *p, char *out, size_t cap)
{
    size_t used = 0;

    out[0] = '\0';
    for (size_t i = 0; i < p->n_tensors + p->n_scalars + p->n_sizes; i++) {
        const char *name = i < p->n_tensors ? p->tensors[i].name
                           : i < p->n_tensors + p->n_scalars
                               ? p->scalars[i - p->n_tensors].name
                               : p->size_names[i - p->n_tensors - p->n_scalars];
        int w = snprintf(out + used, cap - used, "%s%s", i ? ", " : "", name);
        if (w < 0 || (size_t)w >= cap - used)
            return;
        used += (size_t)w;
    }
}

/* A Triton source's form (plan/launcher_form.h): a launcher (pg->launcher), directives (BW_OK,
 * left to the directive parser), or refused with a diag (BW_ERR_INVALID). */
static int parse_launcher_form(struct program *pg, const char *source, size_t len,
                               struct diag_list *diags)
{
    struct launcher_form form;
    char signature[512];

    launcher_form_scan(source, len, &form);
    canonical_signature(pg->p, signature, sizeof(signature));
    if (form.solve_line && form.directive_line) {
        diag_list_addf(diags, form.directive_line, 1,
                       "this file has a solve(...) launcher (line %d) and directives (line %d): "
                       "the judge runs one or the other; keep solve and delete the # @ lines, or "
                       "the reverse",
                       form.solve_line, form.directive_line);
        return BW_ERR_INVALID;
    }
    if (form.solve_line) {
        pg->launcher = true;
        pg->solve_line = form.solve_line;
        return BW_OK;
    }
    if (!form.directive_line && form.kernel_line) {
        diag_list_addf(diags, form.kernel_line, 1,
                       "kernel `%s` is defined but nothing launches it: define solve(%s), which "
                       "launches it as at home (kernel[grid](...)), or write # @launch lines "
                       "(docs/submission-format.md)",
                       form.kernel, signature);
        return BW_ERR_INVALID;
    }
    return BW_OK;
}

int program_parse(struct program *pg, const struct problem *p, enum language lang,
                  const char *source, size_t len, enum plan_side side, struct diag_list *diags)
{
    int rc;

    memset(pg, 0, sizeof(*pg));
    pg->p = p;
    pg->lang = lang;
    pg->side = side;
    if (lang == LANG_TRITON && side == PLAN_SUBMISSION) {
        rc = parse_launcher_form(pg, source, len, diags);
        if (rc != BW_OK || pg->launcher)
            return rc;
    }
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
    recording_release(&pg->rec);
    directives_release(&pg->dirs);
    memset(pg, 0, sizeof(*pg));
}

void program_describe_config(const struct program *pg, size_t cfg, char *out, size_t cap)
{
    if (pg->launcher) {
        const char *name =
            cfg < pg->rec.n_configs && pg->rec.config_names[cfg] ? pg->rec.config_names[cfg] : "";
        snprintf(out, cap, "%s", name);
        return;
    }
    directives_tune_describe(&pg->dirs, pg->tune_values ? pg->tune_values[cfg] : NULL, out, cap);
}

int program_plan(const struct program *pg, size_t config, const struct problem_case *c,
                 struct plan *out, char **cause)
{
    if (pg->launcher) {
        struct recorded_plan *rp =
            recording_plan((struct recording *)&pg->rec, config, problem_case_index(pg->p, c));
        return recorded_plan_build(pg->p, rp, c, out, cause);
    }
    return plan_build(pg->p, &pg->dirs, pg->tune_values ? pg->tune_values[config] : NULL, c,
                      pg->side, out, cause);
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
                              pg->n_configs, !t->tests_only, &why);
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
    rc = triton_program_compile(&pg->triton, source, len, filename, &tt, cause);
    if (rc)
        return rc;
    rc = summarise_triton(pg, NULL);
    return rc ? bw_fail(cause, rc, "out of memory") : BW_OK;
}

/* ---- a launcher: recorded and compiled in one request -------------------------------- */

/* "line N: " at the start of a plan's error message: N, else 0. */
static int line_of(const char *msg)
{
    int line = 0;
    return msg && sscanf(msg, "line %d:", &line) == 1 ? line : 0;
}

/* The first error diag's message (without "error: "), for the Compile Error's message. */
static const char *first_error(const struct diag_list *d)
{
    for (size_t i = 0; i < d->n; i++)
        if (strncmp(d->items[i].msg, "error: ", 7) == 0)
            return d->items[i].msg + 7;
    return NULL;
}

/* A launcher's compile as the answer comes (triton_launch_stream), on the compiling thread. */
struct launcher_job {
    struct program *pg;
    struct triton_launch_result *lr;
    const struct cached_variant *held; /* borrowed: the builds the cache holds for the module */
    size_t n_held;
    long *answer_of; /* owned, per build g of the layout: the answer's build, or -1 */
    bool *from_held; /* owned, per build g: a copy of a held build */
    bool tests_only; /* a Run: the test cases' variants only */
    bool planned;    /* on_planned ran: pg->rec is the recording */
    char *failure;   /* owned: why the plans do not check (the compile is stopped) */
    bool out_of_memory;
};

/* The held build of variant `key`, or -1. */
static long held_index(const struct launcher_job *j, const char *key)
{
    for (size_t h = 0; h < j->n_held; h++)
        if (strcmp(j->held[h].variant, key) == 0)
            return (long)h;
    return -1;
}

/* pg's recording (from the answer, moved) and its per-configuration summaries. */
static bool take_recording(struct program *pg, struct triton_launch_result *lr)
{
    pg->rec = lr->rec;
    memset(&lr->rec, 0, sizeof(lr->rec));
    pg->n_configs = pg->rec.n_configs ? pg->rec.n_configs : 1;
    pg->builds = calloc(pg->n_configs, sizeof(*pg->builds));
    pg->tune_values = calloc(pg->n_configs, sizeof(*pg->tune_values));
    return pg->builds && pg->tune_values;
}

/*
 * Checks every recorded plan (recorded_plan_build; a Run's benchmark shapes too, so that a
 * launcher a Submit would refuse is refused by the Run) and lays out the variants they select
 * per configuration (tp->variants, triton_program.h's layout; a Run's test cases' only, as the
 * request asked), each found among the answer's variants by key; a held build is copied in at
 * once. The first failure is the submission's: its message in *why (*new*), a diag at its
 * line. False when out of memory.
 */
static bool lay_out(struct launcher_job *j, char **why)
{
    struct program *pg = j->pg;
    const struct problem *p = pg->p;
    struct triton_program *tp = &pg->triton;
    struct plan *pl = malloc(sizeof(*pl));
    char *cause = NULL;

    if (!pl || triton_variants_init(&tp->variants, pg->rec.n_configs, &cause)) {
        free(pl);
        free(cause);
        return false;
    }
    for (size_t c = 0; c < pg->rec.n_configs && !*why; c++) {
        struct triton_config *tc = &tp->variants.configs[c];
        for (size_t k = 0; k < p->n_tests + p->n_benchmarks && !*why; k++) {
            const struct problem_case *pc =
                k < p->n_tests ? &p->tests[k] : &p->benchmarks[k - p->n_tests];
            if (recorded_plan_build(p, recording_plan(&pg->rec, c, k), pc, pl, why) == BW_OK &&
                (k < p->n_tests || !j->tests_only))
                triton_config_add_plan(tc, pl, why);
        }
        tc->first = tp->variants.n_builds;
        tp->variants.n_builds += tc->n_variants;
    }
    free(pl);
    if (!*why && tp->variants.n_builds > BW_TRITON_MAX_KERNELS &&
        asprintf(why,
                 "line %d: the autotune configurations need %zu builds over this problem's "
                 "cases, more than %d (BW_TRITON_MAX_KERNELS): fewer configurations, or "
                 "constexpr values that do not follow every size",
                 pg->solve_line, tp->variants.n_builds, BW_TRITON_MAX_KERNELS) < 0)
        return false;
    if (*why)
        return true;
    size_t n = tp->variants.n_builds;
    tp->result.builds = calloc(n ? n : 1, sizeof(*tp->result.builds));
    tp->result.n_builds = n;
    j->answer_of = calloc(n ? n : 1, sizeof(*j->answer_of));
    j->from_held = calloc(n ? n : 1, sizeof(*j->from_held));
    if (!tp->result.builds || !j->answer_of || !j->from_held)
        return false;
    for (size_t c = 0; c < tp->variants.n_configs && !*why; c++) {
        const struct triton_config *tc = &tp->variants.configs[c];
        for (size_t i = 0; i < tc->n_variants && !*why; i++) {
            size_t g = tc->first + i;
            char key[4096];
            long h;
            j->answer_of[g] = triton_variant_key(&tc->variants[i], key, sizeof(key))
                                  ? triton_launch_find(j->lr, key)
                                  : -1;
            if (j->answer_of[g] < 0) {
                if (asprintf(why,
                             "line %d: the Triton compiler has no build of `%s` for the "
                             "variant %s",
                             tc->variants[i].line, tc->variants[i].kernel, key) < 0)
                    return false;
                break;
            }
            if ((h = held_index(j, key)) >= 0) {
                if (!triton_build_copy(&tp->result.builds[g], &j->held[h].build))
                    return false;
                j->from_held[g] = true;
            }
        }
    }
    return true;
}

/* The recording and its variants are whole: check, lay out, and let the tests start. */
static const char *launcher_planned(void *arg, struct triton_launch_result *lr)
{
    struct launcher_job *j = arg;
    struct program *pg = j->pg;
    char *why = NULL;

    j->planned = true;
    if (!take_recording(pg, lr) || !lay_out(j, &why) ||
        (!why && triton_program_planned(&pg->triton, j->from_held))) {
        j->out_of_memory = true;
        free(why);
        return "the judge ran out of memory laying out the builds";
    }
    if (why) {
        diag_list_addf(&pg->triton.result.diags, line_of(why), 1, "error: %s", why);
        j->failure = why;
    }
    return why;
}

/* Build i of the answer is final: every build of the layout that is that variant gets a copy
 * (the held ones are final already). */
static void launcher_built(void *arg, size_t i)
{
    struct launcher_job *j = arg;
    struct triton_program *tp = &j->pg->triton;
    const struct triton_build *b = &j->lr->compiled.builds[i];

    for (size_t g = 0; j->answer_of && g < tp->result.n_builds; g++) {
        struct triton_build copy = {0};
        if (j->answer_of[g] != (long)i || j->from_held[g])
            continue;
        if (b->ok && !triton_build_copy(&copy, b))
            j->out_of_memory = true;
        triton_program_give(tp, g, &copy);
    }
}

/*
 * Records a launcher and compiles what it launches (one request: triton_launcher.h), the
 * builds its module has in the cache not compiled again (the key: triton_key.h's launcher
 * rule), its plans checked and its builds laid out as soon as it is recorded, each build final
 * as it comes (triton_program_stream). A program that does not record or check is the
 * learner's Compile Error.
 */
static int compile_launcher(struct program *pg, const struct program_target *t, const char *source,
                            size_t len, const char *filename, char **cause)
{
    struct triton_launch_request rq = {
        .source = source,
        .len = len,
        .filename = filename,
        .p = pg->p,
        .gpu = t->gpu,
        .cc_major = t->cc_major,
        .cc_minor = t->cc_minor,
        .record_only = t->record_only,
        .tests_only = t->tests_only,
        .case_ms = t->launcher_case_ms,
        .jobs = t->triton_jobs,
        .pool = t->triton_pool,
        .no_sandbox = t->no_sandbox,
    };
    struct cached_variant *held = calloc(BW_TRITON_MAX_KERNELS, sizeof(*held));
    const char **have = calloc(BW_TRITON_MAX_KERNELS, sizeof(*have));
    struct triton_launch_result lr = {0};
    struct launcher_job job = {.pg = pg, .lr = &lr, .held = held, .tests_only = t->tests_only};
    struct triton_launch_stream st = {
        .on_planned = launcher_planned, .on_build = launcher_built, .arg = &job, .cancel_fd = -1};
    struct triton_program *tp = &pg->triton;
    struct triton_result *res = &tp->result;
    struct buf text;
    char module_key[65], device[512], *version = NULL, *failure = NULL;
    bool keyed = false;
    int rc;

    buf_init(&text, BW_MAX_SOURCE_BYTES + 1);
    if (!held || !have) {
        rc = bw_fail(cause, BW_ERR_NOMEM, "out of memory");
        goto release;
    }
    if (!t->record_only) {
        /* The builds are compiled from the module with its launch code blanked: exactly what
         * their key covers, whether or not a cache keeps them. */
        if ((rc = triton_key_launcher_text(source, len, &text, NULL))) {
            rc = bw_fail(cause, rc, "the Triton module does not fit in memory");
            goto release;
        }
        rq.compile_source = text.data ? text.data : "";
        rq.compile_len = text.len;
        triton_launch_device(&rq, device, sizeof(device));
        keyed = t->cache && triton_probe(NULL, &version, NULL) == BW_OK;
        if (keyed) {
            triton_key_launcher_module(rq.compile_source, rq.compile_len, filename, t->cc_major,
                                       t->cc_minor, version, !t->no_sandbox, device, module_key);
            job.n_held =
                build_cache_get_variants(t->cache, module_key, held, BW_TRITON_MAX_KERNELS);
            for (size_t h = 0; h < job.n_held; h++)
                have[h] = held[h].variant;
            rq.have = have;
            rq.n_have = job.n_held;
        }
    }
    if (tp->live)
        st.cancel_fd = triton_program_cancel_fd(tp);
    rc = triton_launch_run(&rq, &st, &lr, cause);
    if (rc)
        goto release;
    if (job.out_of_memory) {
        rc = bw_fail(cause, BW_ERR_NOMEM, "out of memory laying out the Triton builds");
        goto release;
    }
    /* the compile's own record: diagnostics (the checks' first), log, failure, times */
    for (size_t i = 0; i < lr.compiled.diags.n; i++)
        if (diag_list_addf(&res->diags, lr.compiled.diags.items[i].line,
                           lr.compiled.diags.items[i].column, "%s",
                           lr.compiled.diags.items[i].msg)) {
            rc = bw_fail(cause, BW_ERR_NOMEM, "out of memory");
            goto release;
        }
    res->log = lr.compiled.log;
    res->failure = job.failure ? NULL : lr.compiled.failure;
    res->triton_version = lr.compiled.triton_version;
    lr.compiled.log = lr.compiled.triton_version = NULL;
    if (res->failure)
        lr.compiled.failure = NULL;
    res->ms = lr.compiled.ms;
    res->driver_ms = lr.compiled.driver_ms;
    res->cpu_ms = lr.compiled.cpu_ms;
    tp->wait_ms = lr.wait_ms;
    if (!job.planned && !take_recording(pg, &lr)) {
        rc = bw_fail(cause, BW_ERR_NOMEM, "out of memory");
        goto release;
    }
    if (!job.failure && !res->failure && !lr.record_failed && pg->rec.n_configs == 0 &&
        !(failure = strdup("the Triton compiler sent no recording of solve"))) {
        rc = bw_fail(cause, BW_ERR_NOMEM, "out of memory");
        goto release;
    }
    if (!job.failure && !res->failure && !lr.record_failed && !t->record_only && !failure &&
        !job.planned && !(failure = strdup("the Triton compiler sent no plans ready to build"))) {
        rc = bw_fail(cause, BW_ERR_NOMEM, "out of memory");
        goto release;
    }
    /* A build neither built, held nor explained by an error at the learner's line: the answer
     * named a variant it did not build (a forged "cached"). */
    for (size_t g = 0; job.planned && !job.failure && !failure && !res->failure &&
                       !first_error(&res->diags) && g < res->n_builds;
         g++)
        if (!res->builds[g].ok &&
            asprintf(&failure, "the Triton compiler has no build of variant %s",
                     lr.keys[job.answer_of[g]]) < 0) {
            failure = NULL;
            rc = bw_fail(cause, BW_ERR_NOMEM, "out of memory");
            goto release;
        }
    /* what was compiled is kept; what was held and used, counted */
    for (size_t i = 0; job.planned && !job.failure && i < lr.n_keys; i++) {
        bool used = false;
        for (size_t g = 0; g < res->n_builds; g++)
            used = used || (job.answer_of[g] == (long)i && job.from_held[g]);
        if (used) {
            tp->n_cached++;
            if (keyed)
                build_cache_touch_variant(t->cache, module_key, lr.keys[i]);
        } else if (held_index(&job, lr.keys[i]) < 0) {
            tp->n_compiled++;
            if (keyed && lr.compiled.builds[i].ok)
                build_cache_put_variant(t->cache, module_key, lr.keys[i], &lr.compiled.builds[i]);
        }
    }
    tp->from_cache = tp->n_cached > 0 && tp->n_compiled == 0;
    res->ok = job.planned && !job.failure && !failure && !res->failure && res->n_builds > 0;
    for (size_t g = 0; res->ok && g < res->n_builds; g++)
        res->ok = res->builds[g].ok;
    if (t->record_only && (res->failure || lr.record_failed))
        pg->rec.n_configs = 0; /* nothing to print: the diags say why */
    {
        const char *why = job.failure        ? job.failure
                          : failure          ? failure
                          : res->failure     ? res->failure
                          : lr.record_failed ? first_error(&res->diags)
                                             : NULL;
        if (lr.record_failed && !why)
            why = "solve could not be recorded";
        if (failure && !res->failure) /* the build missing: said at solve */
            diag_list_addf(&res->diags, pg->solve_line, 1, "error: %s", failure);
        rc = summarise_triton(pg, t->record_only && !why ? NULL : why);
        if (t->record_only && !why)
            for (size_t c = 0; c < pg->n_configs; c++)
                pg->builds[c].ok = true; /* recorded: nothing was to be built */
        if (rc)
            rc = bw_fail(cause, rc, "out of memory");
    }
release:
    for (size_t h = 0; held && h < job.n_held; h++)
        cached_variant_release(&held[h]);
    free(held);
    free(have);
    free(job.answer_of);
    free(job.from_held);
    free(job.failure);
    free(failure);
    free(version);
    buf_release(&text);
    triton_launch_result_release(&lr);
    return rc;
}

/* compile_triton_builds, then every build final for a pipeline reading them as they come. */
static int compile_triton(struct program *pg, const struct program_target *t, const char *source,
                          size_t len, const char *filename, char **cause)
{
    int rc = pg->launcher ? compile_launcher(pg, t, source, len, filename, cause)
                          : compile_triton_builds(pg, t, source, len, filename, cause);

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
