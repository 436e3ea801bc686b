#include "goal_measure.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench.h"
#include "goals.h"
#include "sass.h"
#include "session.h"
#include "common/error.h"
#include "common/limits.h"
#include "common/log.h"
#include "common/banned.h"

/* The name of each configuration ("BM=128, BN=64"; "" without @tune), for goal reports. */
struct config_names {
    char (*text)[256];
    const char **ptr;
};

static int config_names_make(const struct program *pg, struct config_names *cn)
{
    cn->text = calloc(pg->n_configs, sizeof(*cn->text));
    cn->ptr = calloc(pg->n_configs, sizeof(*cn->ptr));
    if (!cn->text || !cn->ptr)
        return BW_ERR_NOMEM;
    for (size_t c = 0; c < pg->n_configs; c++) {
        program_describe_config(pg, c, cn->text[c], sizeof(cn->text[c]));
        cn->ptr[c] = cn->text[c];
    }
    return BW_OK;
}

static void config_names_release(struct config_names *cn)
{
    free(cn->text);
    free(cn->ptr);
}

/* The configurations whose times the score uses (each benchmark's best), once
 * each, in benchmark order; config 0 when nothing was timed. */
static size_t scored_configs(const struct session *s, size_t *out)
{
    size_t n = 0;

    for (size_t b = 0; b < s->res->n_benches; b++) {
        bool seen = false;
        for (size_t k = 0; k < n; k++)
            seen |= out[k] == s->best_cfg[b];
        if (!seen)
            out[n++] = s->best_cfg[b];
    }
    if (n == 0)
        out[n++] = 0;
    return n;
}

static int goal_autotune(struct session *s, const struct goal_spec *g, struct goal_outcome *o)
{
    struct config_names cn;
    double *ms = s->cfg_ms;
    int rc = config_names_make(&s->sub, &cn);

    if (rc == BW_OK && !ms)
        ms = calloc(s->sub.n_configs * (s->p->n_benchmarks ? s->p->n_benchmarks : 1), sizeof(*ms));
    if (rc == BW_OK && ms)
        rc = goal_eval_autotune(g, s->p, s->sub.n_configs, cn.ptr, ms, o);
    else
        rc = BW_ERR_NOMEM;
    if (ms != s->cfg_ms)
        free(ms);
    config_names_release(&cn);
    return rc;
}

/* A Triton program's machine code: the build each timed shape ran (per launch, with its
 * best configuration), each scanned for the goal's patterns on its own. */
static int goal_sass_triton(struct session *s, const struct goal_spec *g, struct sass_tool *tool,
                            struct goal_outcome *o)
{
    const struct triton_program *tp = &s->sub.triton;
    struct sass_scan scans[BW_MAX_BENCHMARKS];
    const char *names[BW_MAX_BENCHMARKS], *entry[BW_MAX_BENCHMARKS];
    char text[BW_MAX_BENCHMARKS][256];
    int seen[BW_MAX_BENCHMARKS];
    size_t n = 0;
    char *why = NULL;
    struct plan pl;

    for (size_t b = 0; b < s->res->n_benches && n < BW_MAX_BENCHMARKS; b++) {
        size_t cfg = s->best_cfg[b];
        if (program_plan(&s->sub, cfg, &s->p->benchmarks[b], &pl, NULL))
            continue;
        for (size_t l = 0; l < pl.n_launches && n < BW_MAX_BENCHMARKS; l++) {
            int k = triton_program_build_of(tp, cfg, &pl, l);
            bool dup = k < 0;
            for (size_t j = 0; j < n && !dup; j++)
                dup = seen[j] == k;
            if (dup)
                continue;
            const struct triton_build *tb = &tp->result.builds[k];
            char cfgname[200], *listing = NULL;
            bool truncated;
            program_describe_config(&s->sub, cfg, cfgname, sizeof(cfgname));
            snprintf(text[n], sizeof(text[n]), "%s%sthe build of %s", cfgname,
                     cfgname[0] ? ", " : "", s->p->benchmarks[b].name);
            names[n] = text[n];
            entry[n] = tb->name;
            seen[n] = k;
            int rc =
                sass_disassemble(tool, tb->cubin, tb->cubin_len, 0, &listing, &truncated, &why);
            if (rc) {
                goal_outcome_set(o, GOAL_STATUS_SKIPPED, "cannot disassemble the cubin: %s",
                                 why ? why : bw_strerror(rc));
                free(why);
                return BW_OK;
            }
            scans[n] = (struct sass_scan){
                .patterns = (const char *const *)g->require,
                .n_patterns = g->n_require,
                .kernels = &entry[n],
                .n_kernels = 1,
                .entries = &entry[n],
                .n_entries = 1,
            };
            rc = sass_scan(listing, &scans[n], &why);
            free(listing);
            if (rc) {
                goal_outcome_set(o, GOAL_STATUS_SKIPPED, "%s", why ? why : bw_strerror(rc));
                free(why);
                return BW_OK;
            }
            n++;
        }
    }
    return goal_eval_sass(g, scans, n, names, o);
}

static int goal_sass(struct session *s, const struct goal_spec *g, struct goal_outcome *o)
{
    size_t cfgs[BW_MAX_BENCHMARKS], n = scored_configs(s, cfgs);
    struct sass_scan scans[BW_MAX_BENCHMARKS];
    const char *names[BW_MAX_BENCHMARKS], *launched[BW_MAX_LAUNCHES];
    char text[BW_MAX_BENCHMARKS][256];
    size_t n_launched = program_kernels(&s->sub, launched, BW_MAX_LAUNCHES);
    struct sass_tool tool;
    char *why = NULL;
    int rc = BW_OK;

    if (sass_find_tool(&tool, &why)) {
        goal_outcome_set(o, GOAL_STATUS_SKIPPED, "%s", why ? why : "no disassembler");
        free(why);
        return BW_OK;
    }
    if (s->sub.lang == LANG_TRITON)
        return goal_sass_triton(s, g, &tool, o);
    for (size_t i = 0; i < n; i++) {
        const struct compile_result *cr = &s->sub.builds[cfgs[i]];
        const char *entries[64];
        size_t n_entries = 0;
        char *listing = NULL;
        bool truncated;

        program_describe_config(&s->sub, cfgs[i], text[i], sizeof(text[i]));
        names[i] = text[i];
        rc = sass_disassemble(&tool, cr->cubin, cr->cubin_len, 0, &listing, &truncated, &why);
        if (rc) {
            goal_outcome_set(o, GOAL_STATUS_SKIPPED, "cannot disassemble the cubin: %s",
                             why ? why : bw_strerror(rc));
            free(why);
            return BW_OK;
        }
        for (size_t k = 0; k < cr->n_kernels && n_entries < 64; k++)
            entries[n_entries++] = cr->kernels[k].name;
        scans[i] = (struct sass_scan){
            .patterns = (const char *const *)g->require,
            .n_patterns = g->n_require,
            .kernels = g->n_kernels ? (const char *const *)g->kernels : launched,
            .n_kernels = g->n_kernels ? g->n_kernels : n_launched,
            .entries = entries,
            .n_entries = n_entries,
        };
        rc = sass_scan(listing, &scans[i], &why);
        free(listing);
        if (rc) {
            goal_outcome_set(o, GOAL_STATUS_SKIPPED, "%s", why ? why : bw_strerror(rc));
            free(why);
            return BW_OK;
        }
        if (truncated)
            log_warn("%s: the disassembly of %s was cut at %d bytes", s->job, s->p->id,
                     BW_SASS_OUTPUT_BYTES);
    }
    return goal_eval_sass(g, scans, n, names, o);
}

/* ---- rebuild ---------------------------------------------------------------------- */

/* What a rebuild goal measures: per benchmark the submission's time, the
 * rebuilt kernel's, and which rebuilt configuration times it. */
struct rebuild {
    const struct goal_spec *g;
    char defs[512];   /* "SPLIT_K=1, BM=64", for messages */
    struct program v; /* the rebuilt configurations */
    double submitted[BW_MAX_BENCHMARKS], rebuilt[BW_MAX_BENCHMARKS];
    size_t combo_of[BW_MAX_BENCHMARKS]; /* SIZE_MAX: the submission already is that build */
    const char *cfgnames[BW_MAX_BENCHMARKS];
    char cfgtext[BW_MAX_BENCHMARKS][256];
};

/* Does the rebuilt combination (consts overridden) differ from the submitted
 * configuration `cfg`? */
static bool rebuild_differs(const struct session *s, const struct goal_spec *g, size_t cfg)
{
    const struct directives *d = &s->sub.dirs;

    for (size_t k = 0; k < g->n_defines; k++) {
        for (size_t c = 0; c < d->n_consts; c++)
            if (strcmp(d->consts[c].name, g->defines[k].name) == 0 &&
                d->consts[c].value != g->defines[k].value)
                return true;
        for (size_t t = 0; t < d->n_tunes; t++)
            if (strcmp(d->tunes[t].name, g->defines[k].name) == 0 &&
                s->sub.tune_values[cfg][t] != g->defines[k].value)
                return true;
    }
    return false;
}

/* The first of the goal's names the submission does not declare, or NULL. */
static const char *rebuild_undeclared(const struct session *s, const struct goal_spec *g)
{
    for (size_t k = 0; k < g->n_defines; k++) {
        bool declared = false;
        for (size_t c = 0; c < s->sub.dirs.n_consts; c++)
            declared |= strcmp(s->sub.dirs.consts[c].name, g->defines[k].name) == 0;
        for (size_t t = 0; t < s->sub.dirs.n_tunes; t++)
            declared |= strcmp(s->sub.dirs.tunes[t].name, g->defines[k].name) == 0;
        if (!declared)
            return g->defines[k].name;
    }
    return NULL;
}

/* Re-parses the submission into rb->v with one configuration per distinct
 * best configuration that the goal's values change. */
static int rebuild_plan(struct session *s, struct rebuild *rb)
{
    const struct problem *p = s->p;
    const struct goal_spec *g = rb->g;
    struct diag_list diags = {0};
    size_t n_combos = 0;
    int rc;

    rc = program_parse(&rb->v, p, s->sub.lang, s->source, s->len, PLAN_SUBMISSION, &diags);
    diag_list_release(&diags);
    if (rc)
        return rc;
    free(rb->v.builds);
    free(rb->v.tune_values);
    rb->v.n_configs = 0;
    rb->v.builds = calloc(p->n_benchmarks ? p->n_benchmarks : 1, sizeof(*rb->v.builds));
    rb->v.tune_values = calloc(p->n_benchmarks ? p->n_benchmarks : 1, sizeof(*rb->v.tune_values));
    if (!rb->v.builds || !rb->v.tune_values)
        return BW_ERR_NOMEM;
    for (size_t c = 0; c < rb->v.dirs.n_consts; c++)
        for (size_t k = 0; k < g->n_defines; k++)
            if (strcmp(rb->v.dirs.consts[c].name, g->defines[k].name) == 0)
                rb->v.dirs.consts[c].value = g->defines[k].value;
    for (size_t b = 0; b < p->n_benchmarks; b++) {
        size_t cfg = s->best_cfg[b], k;
        int64_t want[BW_MAX_TUNE_PARAMS];

        if (!rb->submitted[b])
            continue;
        if (!rebuild_differs(s, g, cfg)) {
            rb->rebuilt[b] = rb->submitted[b];
            rb->combo_of[b] = SIZE_MAX;
            continue;
        }
        memcpy(want, s->sub.tune_values[cfg], sizeof(want));
        for (size_t t = 0; t < rb->v.dirs.n_tunes; t++)
            for (size_t d = 0; d < g->n_defines; d++)
                if (strcmp(rb->v.dirs.tunes[t].name, g->defines[d].name) == 0)
                    want[t] = g->defines[d].value;
        for (k = 0; k < n_combos; k++)
            if (memcmp(rb->v.tune_values[k], want, sizeof(want)) == 0)
                break;
        if (k == n_combos)
            memcpy(rb->v.tune_values[n_combos++], want, sizeof(want));
        rb->combo_of[b] = k;
    }
    rb->v.n_configs = n_combos;
    return BW_OK;
}

/* Compiles the rebuilt configurations; a build that fails is the goal's
 * outcome (*failed), not an error. */
static int rebuild_compile(struct session *s, struct rebuild *rb, struct goal_outcome *o,
                           bool *failed, char **why)
{
    struct program_target target = session_target(s);
    struct diag_list diags = {0};
    int rc;

    *failed = false;
    if (rb->v.n_configs == 0)
        return BW_OK;
    rc = program_compile(&rb->v, &target, s->source, s->len, "submission.cu", why);
    for (size_t k = 0; rc == BW_OK && k < rb->v.n_configs && !*failed; k++) {
        const struct compile_result *cr = &rb->v.builds[k];
        if (!cr->ok) {
            const char *first = cr->failure ? cr->failure : NULL;
            for (size_t i = 0; !first && i < cr->diags.n; i++)
                if (compile_diag_is_error(&cr->diags.items[i]))
                    first = cr->diags.items[i].msg;
            goal_outcome_set(o, GOAL_STATUS_FAILED, "the kernel does not compile with %s: %s",
                             rb->defs, first ? first : "see the compiler's log");
            *failed = true;
        } else if (program_check_signatures(s->p, &rb->v, cr, PLAN_SUBMISSION, s->job, &diags)) {
            goal_outcome_set(o, GOAL_STATUS_FAILED, "built with %s: %s", rb->defs,
                             diags.n ? diags.items[0].msg : "its kernels do not match @launch");
            *failed = true;
        }
    }
    diag_list_release(&diags);
    return rc;
}

/* Times each rebuilt configuration on the shapes it stands for; a failed
 * load or timed run is the goal's outcome (*failed). */
static int rebuild_time(struct session *s, struct rebuild *rb, struct goal_outcome *o, bool *failed,
                        char **why)
{
    *failed = false;
    for (size_t k = 0; k < rb->v.n_configs; k++) {
        struct run_failure fail;
        int rc = session_fresh_sub_runner(s, &rb->v, k, &fail, why);

        if (rc)
            return rc;
        if (fail.status != RUN_OK) {
            goal_outcome_set(o, GOAL_STATUS_FAILED,
                             "built with %s, the kernel cannot be loaded: %s", rb->defs,
                             fail.message);
            *failed = true;
            return BW_OK;
        }
        for (size_t b = 0; b < s->p->n_benchmarks; b++) {
            struct bench_outcome bo = {0};
            enum verdict verdict;
            char *fail_why = NULL;

            if (!rb->submitted[b] || rb->combo_of[b] != k)
                continue;
            rc = bench_shape(s, &rb->v, b, k, &bo, &verdict, &fail_why, why);
            free(bo.stop);
            if (rc == BW_OK && verdict != VERDICT_ACCEPTED) {
                goal_outcome_set(o, GOAL_STATUS_FAILED, "built with %s, %s: %s", rb->defs,
                                 verdict_name(verdict), fail_why ? fail_why : "a timed run failed");
                *failed = true;
            }
            free(fail_why);
            if (rc || *failed)
                return rc;
            rb->rebuilt[b] = bo.median_ms;
        }
    }
    return BW_OK;
}

/*
 * rebuild: compiles the submission again with g's macros in place of its own
 * @const / @tune values (each benchmark keeps its best configuration
 * otherwise), times it on g's shapes with the same checks of every timed
 * output, and compares with the submission's times.
 */
static int goal_rebuild(struct session *s, const struct goal_spec *g, struct goal_outcome *o)
{
    struct rebuild *rb = calloc(1, sizeof(*rb));
    const char *undeclared;
    char *why = NULL;
    bool failed = false;
    size_t len = 0;
    int rc;

    if (!rb)
        return BW_ERR_NOMEM;
    rb->g = g;
    for (size_t k = 0; k < g->n_defines; k++) {
        int w = snprintf(rb->defs + len, sizeof(rb->defs) - len, "%s%s=%lld", k ? ", " : "",
                         g->defines[k].name, (long long)g->defines[k].value);
        if (w > 0 && (size_t)w < sizeof(rb->defs) - len)
            len += (size_t)w;
    }
    undeclared = rebuild_undeclared(s, g);
    if (undeclared && s->sub.launcher) {
        /* A launcher computes its grids and constexprs in Python: no macro to override. */
        goal_outcome_set(o, GOAL_STATUS_FAILED,
                         "this goal rebuilds the kernel with %s, set by @const or @tune, which a "
                         "solve(...) launcher does not have: write the launch as # @launch "
                         "directives with # @const %s=... for this goal",
                         rb->defs, undeclared);
        free(rb);
        return BW_OK;
    }
    if (undeclared) {
        goal_outcome_set(o, GOAL_STATUS_FAILED,
                         "declare %s with @const or @tune: this goal rebuilds the kernel with "
                         "%s and compares the times",
                         undeclared, rb->defs);
        free(rb);
        return BW_OK;
    }
    for (size_t b = 0; b < s->p->n_benchmarks; b++) {
        if (!g->shapes[b] || b >= s->res->n_benches)
            continue;
        rb->submitted[b] = s->res->benches[b].median_ms;
        program_describe_config(&s->sub, s->best_cfg[b], rb->cfgtext[b], sizeof(rb->cfgtext[b]));
        rb->cfgnames[b] = rb->cfgtext[b];
    }
    rc = rebuild_plan(s, rb);
    if (rc == BW_OK)
        rc = rebuild_compile(s, rb, o, &failed, &why);
    if (rc == BW_OK && !failed)
        rc = rebuild_time(s, rb, o, &failed, &why);
    if (rc) {
        goal_outcome_set(o, GOAL_STATUS_SKIPPED, "the judge could not rebuild and time it: %s",
                         why ? why : bw_strerror(rc));
        rc = BW_OK;
    } else if (!failed) {
        rc = goal_eval_rebuild(g, s->p, rb->submitted, rb->rebuilt, rb->cfgnames, o);
    }
    free(why);
    program_release(&rb->v);
    free(rb);
    return rc;
}

/* ---- all goals ------------------------------------------------------------------------ */

int goal_measure_all(struct session *s, char **cause)
{
    const struct problem *p = s->p;
    struct judge_result *r = s->res;
    double medians[BW_MAX_BENCHMARKS], sols[BW_MAX_BENCHMARKS];
    int rc = BW_OK;

    r->goals = calloc(p->n_goals, sizeof(*r->goals));
    if (!r->goals)
        return bw_fail(cause, BW_ERR_NOMEM, "out of memory");
    for (size_t b = 0; b < p->n_benchmarks; b++) {
        medians[b] = b < r->n_benches ? r->benches[b].median_ms : 0;
        sols[b] = b < r->n_benches ? r->benches[b].sol_pct : 0;
    }
    for (size_t i = 0; i < p->n_goals && rc == BW_OK && !session_cancelled(s); i++) {
        const struct goal_spec *g = &p->goals[i];
        struct goal_outcome *o = &r->goals[i];

        rc = goal_outcome_init(o, g);
        if (rc)
            break;
        r->n_goals = i + 1;
        switch (g->kind) {
        case GOAL_AUTOTUNE:
            rc = goal_autotune(s, g, o);
            break;
        case GOAL_REBUILD:
            rc = goal_rebuild(s, g, o);
            break;
        case GOAL_SASS:
            rc = goal_sass(s, g, o);
            break;
        case GOAL_BANDWIDTH:
            rc = goal_eval_bandwidth(g, p, medians, r->gpu.calibrated ? r->gpu.copy_gbps : 0, o);
            break;
        case GOAL_COMPARE:
            rc = goal_eval_compare(g, p, medians, o);
            break;
        case GOAL_ROOFLINE:
            rc = goal_eval_roofline(g, p, sols, r->gpu.calibrated, o);
            break;
        }
        session_emit(s,
                     json_pack("{s:s, s:I, s:I, s:s, s:s, s:s}", "event", "goal", "index",
                               (json_int_t)i, "of", (json_int_t)p->n_goals, "name", o->name, "kind",
                               goal_kind_name(o->kind), "status", goal_status_name(o->status)));
    }
    if (rc)
        return bw_fail(cause, rc, "learning goals: %s", bw_strerror(rc));
    return BW_OK;
}
