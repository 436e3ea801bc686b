#include "profile.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench.h"
#include "failure.h"
#include "profile_summary.h"
#include "runner_client.h"
#include "session.h"
#include "tests.h"
#include "common/error.h"
#include "common/log.h"
#include "common/util.h"
#include "common/banned.h"

/* What one profiling step holds while it works. */
struct profiling {
    struct session *s;
    const struct problem_case *c; /* the case profiled */
    size_t bench;                 /* its index among the problem's benchmarks */
    double model_bytes;           /* its bytes by the problem's model */
    struct plan pl;
    struct profile_request *req; /* owned */
    struct profile_reply *reply; /* owned */
    struct runner *runner;       /* owned */
    double t0;                   /* now_ms() at the start */
};

/* {"available": false, "why": ..., "case": ..., "wall_ms": ...}: a *new* object. */
static json_t *unavailable(const struct profiling *pf, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
static json_t *unavailable(const struct profiling *pf, const char *fmt, ...)
{
    char why[BW_PROFILE_WHY_BYTES];
    va_list ap;

    va_start(ap, fmt);
    vsnprintf(why, sizeof(why), fmt, ap);
    va_end(ap);
    return json_pack("{s:b, s:s, s:s?, s:f}", "available", false, "why", why, "case",
                     pf->c ? pf->c->name : NULL, "wall_ms", now_ms() - pf->t0);
}

/* The benchmark case with the most bytes by the problem's model (the first of equals). */
static int largest_case(struct profiling *pf, char **why)
{
    const struct problem *p = pf->s->p;
    bool found = false;

    for (size_t b = 0; b < p->n_benchmarks; b++) {
        struct expr_binding vars[BW_MAX_SIZES + BW_MAX_SCALARS];
        struct expr_scope scope;
        double bytes = 0;

        problem_formula_scope(p, &p->benchmarks[b], vars, &scope);
        if (expr_eval_real(p->bytes, &scope, &bytes, why))
            return bw_wrap(why, BW_ERR_INTERNAL, "problem.json bytes for %s",
                           p->benchmarks[b].name);
        if (!found || bytes > pf->model_bytes) {
            pf->bench = b;
            pf->model_bytes = bytes;
            found = true;
        }
    }
    if (!found)
        return bw_fail(why, BW_ERR_NOTFOUND, "the problem has no benchmark shape to profile");
    pf->c = &p->benchmarks[pf->bench];
    return BW_OK;
}

/* The named barriers the compile report gives kernel `name` (CUDA; 0 otherwise). */
static int barriers_of(const struct program *pg, const char *name)
{
    const struct compile_result *cr = pg->n_configs > 0 && pg->builds ? &pg->builds[0] : NULL;

    for (size_t k = 0; cr && pg->lang == LANG_CUDA && k < cr->n_kernels; k++)
        if (cr->kernels[k].name && strcmp(cr->kernels[k].name, name) == 0)
            return cr->kernels[k].barriers;
    return 0;
}

/* The runner's figures summarised, as the contract's "profile" object (*new*). */
static json_t *summarise(struct profiling *pf)
{
    const struct profile_reply *r = pf->reply;
    struct profile_kernel k[BW_MAX_LAUNCHES];
    char profiler[160], reading[PROFILE_READING_BYTES + 160];
    json_t *kernels = json_array(), *o;
    int n = r->n_ranges < (int)pf->pl.n_launches ? r->n_ranges : (int)pf->pl.n_launches;

    for (int i = 0; i < n; i++) {
        const char *name = pf->pl.launches[i].kernel;
        struct profile_launch_info info = {name, barriers_of(&pf->s->sub, name)};
        profile_summarize(&r->ranges[i], &r->device, &info, pf->model_bytes, &k[i]);
        json_array_append_new(kernels, profile_kernel_json(&k[i]));
    }
    profile_plan_reading(k, n, reading, sizeof(reading));
    profile_profiler_text(r, profiler, sizeof(profiler));
    o = json_pack("{s:b, s:s, s:s, s:f, s:o, s:s, s:o}", "available", true, "case", pf->c->name,
                  "profiler", profiler, "wall_ms", now_ms() - pf->t0, "kernels", kernels, "reading",
                  reading, "raw", profile_raw_json(r, k, n));
    if (o && n > 0)
        log_info("%s: profile of %s: %s", pf->s->job, pf->c->name, reading);
    return o;
}

/* Steps 2 and 3: a runner with the profiler, the configuration loaded, the call, all inside
 * the exclusive GPU gate: CUPTI takes the GPU's counters as it comes up in the runner, before
 * any launch, and they serve one client, so the runner lives and is reaped (its counters given
 * back) between entering and leaving the gate; nothing is timed on this GPU meanwhile. A
 * failure the profile reports is returned as a *new* "unavailable" object in *out. */
static int profile_in_gate(struct profiling *pf, json_t **out, char **cause)
{
    struct session *s = pf->s;
    struct runner_options opt = {
        .device = s->cfg->device,
        .no_sandbox = s->cfg->no_sandbox,
        .cupti = s->cfg->cupti_path,
        .start_ms = BW_PROFILE_START_MS,
    };
    struct run_failure fail;
    uint64_t device_bytes = 0;
    char *why = NULL;
    int rc, deadline;

    if ((rc = runner_start(&opt, &pf->runner, &why))) {
        *out =
            unavailable(pf, "could not start a profiling runner: %s", why ? why : bw_strerror(rc));
        free(why);
        return BW_OK;
    }
    if ((rc = program_load(pf->runner, &s->sub, 0, &fail, cause)))
        return rc;
    if (fail.status != RUN_OK) {
        *out = unavailable(pf, "the profiling runner could not load the kernels: %s", fail.message);
        return BW_OK;
    }
    if ((rc = program_run_plan(&s->sub, 0, &pf->pl, s->seed, bench_case_index(pf->bench),
                               &pf->req->plan, cause)))
        return rc;
    for (int b = 0; b < pf->req->plan.n_buffers; b++)
        device_bytes +=
            pf->req->plan.buffers[b].count * dtype_size(pf->req->plan.buffers[b].dtype) +
            2ull * BW_GUARD_BYTES;
    deadline = (int)(BW_PROFILE_PLAN_MS + tests_allowance_ms(device_bytes, 0));
    rc = runner_profile(pf->runner, pf->req, pf->reply, deadline, &why);
    if (rc == BW_ERR_TIMEOUT) {
        *out = unavailable(pf, "the plan did not finish on %s under the profiler within %d ms",
                           pf->c->name, deadline);
        rc = BW_OK;
    } else if (rc) {
        *out = unavailable(pf, "the profiling runner failed on %s: %s", pf->c->name,
                           why ? why : bw_strerror(rc));
        rc = BW_OK;
    }
    free(why);
    return rc;
}

static int profile_call(struct profiling *pf, json_t **out, char **cause)
{
    session_gate_enter(pf->s, true); /* never beside a timing; one profile at a time per GPU */
    runner_discard_drain();          /* the tests' runners gone, their memory with them */
    int rc = profile_in_gate(pf, out, cause);
    runner_free(pf->runner); /* a profiling runner serves one profile; reaped inside the gate */
    pf->runner = NULL;
    session_gate_leave(pf->s, true);
    return rc;
}

void profile_run(struct session *s, const char *why_not)
{
    struct profiling pf = {.s = s, .t0 = now_ms()};
    json_t *out = NULL;
    char *why = NULL;
    int rc;

    if (why_not) {
        out = unavailable(&pf, "%s", why_not);
        goto done;
    }
    if (largest_case(&pf, &why)) {
        out = unavailable(&pf, "%s", why ? why : "no benchmark shape");
        goto done;
    }
    if (!s->cfg->cupti_path[0]) {
        out = unavailable(&pf, "%s", s->cfg->cupti_why ? s->cfg->cupti_why : "no CUPTI library");
        goto done;
    }
    if (program_plan(&s->sub, 0, pf.c, &pf.pl, &why)) {
        out = unavailable(&pf, "the plan cannot run on %s: %s", pf.c->name,
                          why ? why : "invalid launch");
        goto done;
    }
    pf.req = calloc(1, sizeof(*pf.req));
    pf.reply = calloc(1, sizeof(*pf.reply));
    if (!pf.req || !pf.reply) {
        out = unavailable(&pf, "out of memory");
        goto done;
    }
    log_debug("%s: profiling %s (%.0f bytes by the problem's model) with %s", s->job, pf.c->name,
              pf.model_bytes, s->cfg->cupti_path);
    {
        char message[BW_MAX_NAME + 128];
        snprintf(message, sizeof(message),
                 "profiling the plan on %s under the GPU's profiler (CUPTI, kernel replay)",
                 pf.c->name);
        session_emit(s, json_pack("{s:s, s:s, s:s}", "event", "profiling", "case", pf.c->name,
                                  "message", message));
    }
    rc = profile_call(&pf, &out, &why);
    if (rc) {
        out = unavailable(&pf, "the profile could not be made: %s", why ? why : bw_strerror(rc));
    } else if (!out && pf.reply->fail.status != RUN_OK) {
        char *message = NULL;
        json_t *detail = NULL;
        enum verdict v = failure_verdict(&pf.pl, &pf.reply->fail, &message, &detail);
        out = unavailable(&pf, "the plan failed on %s under the profiler (%s): %s", pf.c->name,
                          verdict_name(v), message ? message : pf.reply->fail.message);
        free(message);
        json_decref(detail);
    } else if (!out && !pf.reply->available) {
        out = unavailable(&pf, "%s", pf.reply->why);
    } else if (!out) {
        out = summarise(&pf);
    }

done:
    s->res->profile_ms = now_ms() - pf.t0;
    json_decref(s->res->profile);
    s->res->profile = out;
    if (out && !json_is_true(json_object_get(out, "available")))
        log_info("%s: no profile: %s", s->job,
                 json_string_value(json_object_get(out, "why")) ?: "?");
    session_emit(s, json_pack("{s:s, s:b, s:s?, s:f}", "event", "profile", "available",
                              out && json_is_true(json_object_get(out, "available")), "case",
                              pf.c ? pf.c->name : NULL, "ms", s->res->profile_ms));
    free(pf.req);
    free(pf.reply);
    free(why);
}
