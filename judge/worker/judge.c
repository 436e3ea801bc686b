/*
 * judge.c - the pipeline of judge.h: one step per function, in order, each
 * returning BW_OK to go on, STEP_STOP once the verdict is decided, or a
 * negative code with the cause for a Judge Error.
 */
#include "judge.h"

#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench.h"
#include "failure.h"
#include "goal_measure.h"
#include "goals.h"
#include "profile.h"
#include "reference.h"
#include "runner_pool.h"
#include "score.h"
#include "session.h"
#include "tests.h"
#include "triton_compile.h"
#include "common/error.h"
#include "common/log.h"
#include "common/util.h"
#include "common/banned.h"

#define STEP_STOP 1 /* a step's result: the verdict is set, skip the remaining steps */

/* The two compiles, each on a thread of its own while the runners start. */
struct build_job {
    struct session *s;
    const char *source, *ref_source; /* borrowed */
    size_t len, ref_len;
    int rc, ref_rc;
    char *cause, *ref_cause;     /* owned */
    double ms;                   /* the submission's compile */
    double started_at;           /* now_ms() when the submission's compile began */
    double done_at, ref_done_at; /* now_ms() when each compile ended */
};

/* One judging in progress: the session, the background build, the reference
 * made ready while the submission compiles, and what the steps leave for the
 * end. */
struct pipeline {
    struct session s;
    struct build_job build;
    char *ref_source; /* owned: reference.cu's text */
    int ref_rc;       /* the reference did not build or match its launches (the problem's fault) */
    char *ref_why;    /* owned: why (the build's cause, or reference_check's) */
    bool ref_loaded;  /* the reference runner holds reference.cu */
    char *load_why;   /* owned: why loading it failed */
    int fatal;        /* negative: the judge could not work at all (judge_submission fails) */
    /* A Triton submission tested while it compiles: its compile's thread, still to join
     * (finish_compile, or the end), and whether its builds were reviewed. */
    pthread_t sub_thread;
    bool sub_running, reviewed;
};

static void set_message(struct judge_result *r, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
static void set_message(struct judge_result *r, const char *fmt, ...)
{
    va_list ap;

    free(r->message);
    r->message = NULL;
    va_start(ap, fmt);
    if (vasprintf(&r->message, fmt, ap) < 0)
        r->message = NULL;
    va_end(ap);
}

static int init_result(struct judge_result *r, const struct problem *p,
                       const struct judge_config *cfg)
{
    memset(r, 0, sizeof(*r));
    r->gpu = cfg->gpu;
    r->tests = calloc(p->n_tests ? p->n_tests : 1, sizeof(*r->tests));
    r->benches = calloc(p->n_benchmarks ? p->n_benchmarks : 1, sizeof(*r->benches));
    if (!r->tests || !r->benches)
        return BW_ERR_NOMEM;
    r->n_tests = p->n_tests;
    for (size_t i = 0; i < p->n_tests; i++) {
        r->tests[i].name = strdup(p->tests[i].name);
        if (!r->tests[i].name)
            return BW_ERR_NOMEM;
    }
    return BW_OK;
}

/* ---- step 1: directives -------------------------------------------------------------- */

/* The submission's directives and names (Compile Error at their line and
 * column) and the reference's (the problem's fault: Judge Error). */
static int step_parse(struct pipeline *pl, char **why)
{
    struct session *s = &pl->s;
    struct judge_result *out = s->res;

    if (program_parse(&s->sub, s->p, s->lang, s->source, s->len, PLAN_SUBMISSION, &out->diags)) {
        out->verdict = VERDICT_COMPILE_ERROR;
        set_message(out, "%s",
                    out->diags.n ? out->diags.items[0].msg : "the directives are invalid");
        return STEP_STOP;
    }
    if (s->lang != LANG_CUDA && !s->cfg->languages[s->lang].available) {
        out->verdict = VERDICT_JUDGE_ERROR;
        set_message(out, "this judge cannot compile %s (%s)", language_title(s->lang),
                    s->cfg->languages[s->lang].reason[0] ? s->cfg->languages[s->lang].reason
                                                         : "not found here");
        return STEP_STOP;
    }
    if (reference_prepare(s, &pl->ref_source, &pl->build.ref_len, why)) {
        out->verdict = VERDICT_JUDGE_ERROR;
        set_message(out, "the problem's reference: %s", *why ? *why : "cannot be read");
        return STEP_STOP;
    }
    pl->build.ref_source = pl->ref_source;
    return BW_OK;
}

/* ---- step 2: compiling, while the runners start ----------------------------------- */

static void *build_reference(void *arg)
{
    struct build_job *j = arg;
    struct program_target t = session_target(j->s);

    j->ref_rc =
        program_compile(&j->s->ref, &t, j->ref_source, j->ref_len, "reference.cu", &j->ref_cause);
    j->ref_done_at = now_ms();
    return NULL;
}

static void *build_submission(void *arg)
{
    struct build_job *j = arg;
    struct program_target t = session_target(j->s);
    char filename[32];

    snprintf(filename, sizeof(filename), "submission%s", language_extension(j->s->lang));
    j->rc = program_compile(&j->s->sub, &t, j->source, j->len, filename, &j->cause);
    j->done_at = now_ms();
    j->ms = j->done_at - j->started_at;
    return NULL;
}

/* Runs fn(arg) on a new thread (true), or here when none starts (false). */
static bool in_background(pthread_t *thread, void *(*fn)(void *), void *arg)
{
    if (pthread_create(thread, NULL, fn, arg) == 0)
        return true;
    fn(arg);
    return false;
}

/*
 * Once reference.cu is built (a build-cache hit, usually, long before the
 * submission's compile ends): checks it, loads it into the reference runner
 * and starts the tests' reference pipe, so that the first cases' expected
 * outputs are ready when the submission is. Its failures are kept for the
 * steps that report them, in their usual order (a Compile Error first). The
 * pipe thread reads only the problem, s->ref, the seed and the reference
 * runner, none of which the submission's compile touches.
 */
static void prepare_reference(struct pipeline *pl)
{
    struct session *s = &pl->s;
    struct run_failure fail;
    char *why = NULL;
    double t0;

    if (pl->build.ref_rc) {
        pl->ref_rc = pl->build.ref_rc;
        pl->ref_why = pl->build.ref_cause;
        pl->build.ref_cause = NULL;
    } else {
        pl->ref_rc = reference_check(s, &pl->ref_why);
    }
    if (pl->ref_rc || !s->cfg->have_gpu || !s->ref_runner)
        return;
    t0 = now_ms();
    if (program_load(s->ref_runner, &s->ref, 0, &fail, &pl->load_why) == BW_OK) {
        pl->ref_loaded = fail.status == RUN_OK;
        if (!pl->ref_loaded) {
            free(pl->load_why);
            pl->load_why = strdup(fail.message);
        }
    }
    s->res->reference_load_ms = now_ms() - t0;
    /* A pipe that does not start here is started (or its failure reported) by tests_run. */
    if (pl->ref_loaded)
        s->ref_pipe_running = reference_pipe_start(&s->ref_pipe, s, &why) == BW_OK;
    free(why);
}

static void collect_kernels(struct judge_result *r, const struct compile_result *cr)
{
    json_decref(r->kernels);
    r->kernels = json_array();
    for (size_t k = 0; k < cr->n_kernels; k++) {
        const struct kernel_usage *u = &cr->kernels[k];
        json_array_append_new(r->kernels,
                              json_pack("{s:s, s:i, s:i, s:I, s:I, s:I, s:I}", "name", u->name,
                                        "registers", u->registers, "barriers", u->barriers,
                                        "smem_bytes", (json_int_t)u->smem_bytes, "stack_bytes",
                                        (json_int_t)u->stack_bytes, "spill_store_bytes",
                                        (json_int_t)u->spill_store_bytes, "spill_load_bytes",
                                        (json_int_t)u->spill_load_bytes));
    }
}

/* Copies the diagnostics of a compile into the result. */
static void take_diags(struct judge_result *r, const struct compile_result *cr)
{
    for (size_t i = 0; i < cr->diags.n; i++)
        diag_list_addf(&r->diags, cr->diags.items[i].line, cr->diags.items[i].column, "%s",
                       cr->diags.items[i].msg);
}

/* True when every configuration failed, with the same failure text or none: then the fault is
 * the source's (a Triton module that raises while it is imported fails every build), and naming
 * the first configuration, "with SPLIT_K=8", would say that it is that configuration's. */
static bool failed_alike(const struct program *pg)
{
    for (size_t c = 0; c < pg->n_configs; c++) {
        const struct compile_result *cr = &pg->builds[c];
        const char *f0 = pg->builds[0].failure;
        if (cr->ok || !cr->failure != !f0 || (f0 && strcmp(cr->failure, f0) != 0))
            return false;
    }
    return pg->n_configs > 0;
}

/* Checks every compiled configuration; sets Compile Error on the first bad one. */
static void review_builds(struct session *s)
{
    struct judge_result *out = s->res;

    if (s->lang == LANG_TRITON) {
        const struct triton_program *tp = &s->sub.triton;
        out->builds_cached = tp->n_cached;
        out->builds_compiled = tp->n_compiled;
        out->compiler_cpu_ms = tp->result.cpu_ms;
        out->compiler_wait_ms = tp->wait_ms;
    }
    out->compile_cached = s->sub.n_configs > 0;
    for (size_t c = 0; c < s->sub.n_configs; c++) {
        const struct compile_result *cr = &s->sub.builds[c];
        char cfgname[256];

        out->compile_cached &= cr->from_cache;
        if (!cr->from_cache)
            out->compiler_ms += cr->nvrtc_ms;
        if (c == 0) {
            free(out->compile_log);
            out->compile_log = strdup(cr->log ? cr->log : "");
            collect_kernels(out, cr);
            take_diags(out, cr);
        }
        program_describe_config(&s->sub, c, cfgname, sizeof(cfgname));
        if (!cr->ok) {
            if (c > 0)
                take_diags(out, cr);
            out->verdict = VERDICT_COMPILE_ERROR;
            const struct diag *first = NULL;
            if (failed_alike(&s->sub))
                cfgname[0] = '\0';
            for (size_t i = 0; i < out->diags.n && !first; i++)
                if (out->diags.items[i].line > 0 && compile_diag_is_error(&out->diags.items[i]))
                    first = &out->diags.items[i];
            if (!cr->failure && !cfgname[0] && s->lang == LANG_TRITON && first)
                /* Python's error at its line, e.g. "line 6: NameError: ..." (the diagnostics
                 * say "error: NameError: ...") */
                set_message(out, "line %d: %s", first->line,
                            strncmp(first->msg, "error: ", 7) == 0 ? first->msg + 7 : first->msg);
            else
                set_message(out, "%s%s%s",
                            cr->failure ? cr->failure : "the source does not compile",
                            cfgname[0] ? " with " : "", cfgname);
            return;
        }
        if (program_check_signatures(s->p, &s->sub, cr, PLAN_SUBMISSION, s->job, &out->diags)) {
            out->verdict = VERDICT_COMPILE_ERROR;
            set_message(out, "%s", out->diags.items[out->diags.n - 1].msg);
            return;
        }
    }
}

/*
 * Waits until the builds of the first test case (of the first configuration) are final,
 * while the rest may still compile: true when they all built, so the tests can start
 * (triton_program.h, "Builds as they come"); false when one did not, the compile ended
 * first, or the case cannot be planned: then the whole compile is waited for, as for CUDA.
 * A launcher's plans exist only once it is recorded: that is waited for first (the variants
 * are laid out then, and the configurations known).
 */
static bool compiled_enough(struct session *s)
{
    struct plan first;
    char *why = NULL;

    if (s->p->n_tests == 0 || !triton_program_wait_planned(&s->sub.triton) ||
        s->sub.n_configs == 0 || program_plan(&s->sub, 0, &s->p->tests[0], &first, &why)) {
        free(why);
        return false;
    }
    return triton_program_wait_case(&s->sub.triton, 0, &first);
}

/*
 * The end of a compile the tests ran beside (compile_streamed): waits for it,
 * then reviews every build as step_compile does for a compile waited for
 * whole, so a build that did not build is the Compile Error it always was
 * (STEP_STOP). A Submit's runner then gets the builds only its timing needs.
 */
static int finish_compile(struct pipeline *pl, char **why)
{
    struct session *s = &pl->s;
    struct judge_result *out = s->res;
    struct build_job *b = &pl->build;
    double t0 = now_ms();

    if (!pl->sub_running)
        return BW_OK;
    pthread_join(pl->sub_thread, NULL);
    pl->sub_running = false;
    log_debug("%s: the rest of the compile took %.0f ms more after the tests", s->job,
              now_ms() - t0);
    out->compile_ms = b->ms;
    if (b->rc) {
        pl->fatal = bw_fail(why, b->rc, "%s", b->cause ? b->cause : bw_strerror(b->rc));
        return STEP_STOP;
    }
    review_builds(s);
    pl->reviewed = true;
    if (out->verdict == VERDICT_COMPILE_ERROR) {
        session_emit(s, json_pack("{s:s, s:b, s:f}", "event", "compiled", "ok", false, "ms",
                                  out->compile_ms));
        return STEP_STOP;
    }
    if (s->builds_failed) { /* a case met a build that did not build, yet every build did */
        out->verdict = VERDICT_JUDGE_ERROR;
        set_message(out, "a Triton build the tests needed was missing, though the compile "
                         "built them all");
        return STEP_STOP;
    }
    if (!out->tests_only && s->sub_runner && s->sub_loaded != ~0ull) {
        struct run_failure fail;
        int rc = session_load_sub(s, &s->sub, s->sub.n_configs - 1, &fail, why);
        if (rc)
            return rc;
        if (fail.status != RUN_OK)
            session_drop_sub_runner(s); /* timing starts a fresh one, and reports it */
        s->sub_loaded = ~0ull;
    }
    return BW_OK;
}

/*
 * Compiles both programs in the background while this thread starts the two
 * runners (a runner dies with the thread that started it, so this thread,
 * which outlives the judging, starts them), then readies the reference
 * (prepare_reference) while the submission may still be compiling. A runner
 * that fails to start is reported by step_runners, after a Compile Error had
 * its chance.
 */
static int step_compile(struct pipeline *pl, char **why, char **start_why)
{
    struct session *s = &pl->s;
    struct judge_result *out = s->res;
    struct build_job *b = &pl->build;
    pthread_t sub_thread, ref_thread;
    /* A Triton submission's tests may start on its first builds (compiled_enough); a
     * launcher's once it is recorded and the first case's builds exist. */
    bool stream = s->lang == LANG_TRITON && s->cfg->have_gpu &&
                  triton_program_stream(&s->sub.triton) == BW_OK;
    bool sub_bg, ref_bg;
    char *sub_why = NULL;

    b->started_at = now_ms();
    sub_bg = in_background(&sub_thread, build_submission, b);
    ref_bg = in_background(&ref_thread, build_reference, b);

    if (s->cfg->have_gpu) {
        double t0 = now_ms();
        if (session_take_reference(s, start_why) == BW_OK &&
            session_start_runner(s, &s->sub_runner, &sub_why) != BW_OK) {
            free(*start_why);
            *start_why = sub_why ? sub_why : strdup("unknown");
        }
        out->runners_ms = now_ms() - t0;
    }
    if (ref_bg)
        pthread_join(ref_thread, NULL);
    prepare_reference(pl);
    if (pl->ref_loaded)
        bench_ahead_start(s); /* a Submit's checked elements, while the submission compiles */
    if (sub_bg && stream && compiled_enough(s)) {
        /* The tests start now, on the first case's builds; the rest stream in. */
        pl->sub_thread = sub_thread;
        pl->sub_running = true;
        out->compile_streamed = true;
        out->compile_first_ms = now_ms() - b->started_at;
        log_debug("%s: the first test case's builds are ready after %.0f ms; testing while the "
                  "rest compile",
                  s->job, out->compile_first_ms);
        session_emit(s, json_pack("{s:s, s:b, s:f, s:b}", "event", "compiled", "ok", true, "ms",
                                  out->compile_first_ms, "streaming", true));
        if (pl->ref_rc) {
            out->verdict = VERDICT_JUDGE_ERROR;
            set_message(out, "the problem's reference failed: %s",
                        pl->ref_why ? pl->ref_why : bw_strerror(pl->ref_rc));
            return STEP_STOP;
        }
        return BW_OK;
    }
    if (sub_bg)
        pthread_join(sub_thread, NULL);
    if (stream)
        out->compile_first_ms = now_ms() - b->started_at;
    log_debug("%s: compiled in %.0f ms (runners taken in %.1f ms); %zu expected outputs ready",
              s->job, b->ms, out->runners_ms,
              s->ref_pipe_running ? reference_pipe_ready(&s->ref_pipe) : 0);
    out->compile_ms = b->ms;
    out->build_wait_ms = b->ref_done_at > b->done_at ? b->ref_done_at - b->done_at : 0;
    if (b->rc) {
        pl->fatal = bw_fail(why, b->rc, "%s", b->cause ? b->cause : bw_strerror(b->rc));
        return STEP_STOP;
    }
    review_builds(s);
    pl->reviewed = true;
    session_emit(s, json_pack("{s:s, s:b, s:f, s:O}", "event", "compiled", "ok",
                              out->verdict != VERDICT_COMPILE_ERROR, "ms", out->compile_ms,
                              "kernels", out->kernels ? out->kernels : json_null()));
    if (out->verdict == VERDICT_COMPILE_ERROR)
        return STEP_STOP;
    if (pl->ref_rc) {
        out->verdict = VERDICT_JUDGE_ERROR;
        set_message(out, "the problem's reference failed: %s",
                    pl->ref_why ? pl->ref_why : bw_strerror(pl->ref_rc));
        return STEP_STOP;
    }
    if (!s->cfg->have_gpu) {
        out->executed = false;
        set_message(out, "compiled; running needs a GPU (%s)",
                    s->cfg->no_gpu_reason ? s->cfg->no_gpu_reason : "none here");
        return STEP_STOP;
    }
    return BW_OK;
}

/* ---- step 3: the runners ------------------------------------------------------------ */

/* Both runners up (a failure to start one is the judge's, not the learner's),
 * on the GPU whose figures the config holds, and the reference loaded (by
 * prepare_reference). */
static int step_runners(struct pipeline *pl, const char *start_why)
{
    struct session *s = &pl->s;
    struct judge_result *out = s->res;

    if (!s->ref_runner || !s->sub_runner) {
        out->verdict = VERDICT_JUDGE_ERROR;
        set_message(out, "could not start a GPU runner: %s", start_why ? start_why : "unknown");
        return STEP_STOP;
    }
    if (strcmp(runner_gpu(s->sub_runner)->uuid, s->cfg->gpu.uuid) != 0) {
        /* The cached figures belong to another GPU: keep judging, score nothing. */
        log_warn("%s: the GPU's cached figures are for %s but this is %s: run `judged calibrate`",
                 s->job, s->cfg->gpu.uuid, runner_gpu(s->sub_runner)->uuid);
        out->gpu.calibrated = false;
    }
    if (!pl->ref_loaded) {
        out->verdict = VERDICT_JUDGE_ERROR;
        set_message(out, "loading reference.cu failed: %s",
                    pl->load_why ? pl->load_why : "unknown");
        return STEP_STOP;
    }
    out->executed = true;
    return BW_OK;
}

/* ---- step 4: tests ---------------------------------------------------------------- */

/* The first test that failed decides the verdict. */
static void verdict_from_tests(struct judge_result *r, const struct program *sub, size_t config)
{
    char cfgname[256];

    for (size_t i = 0; i < r->n_tests; i++) {
        const struct test_outcome *t = &r->tests[i];
        if (t->verdict == VERDICT_ACCEPTED || t->verdict == VERDICT_NONE)
            continue;
        r->verdict = t->verdict;
        program_describe_config(sub, config, cfgname, sizeof(cfgname));
        set_message(r, "test %s%s%s: %s", t->name, cfgname[0] ? " with " : "", cfgname,
                    t->message ? t->message : verdict_name(t->verdict));
        return;
    }
}

/* Every test of every configuration, each configuration in a fresh
 * submission runner; the first failure decides. */
static int step_tests(struct pipeline *pl, char **why)
{
    struct session *s = &pl->s;
    struct judge_result *out = s->res;
    double t0 = now_ms();
    bool passed;
    int rc;

    for (size_t c = 0; c < s->sub.n_configs; c++) {
        if (c > 0)
            session_drop_sub_runner(s);
        if (s->sub_runner) {
            struct run_failure fail;
            rc = session_load_sub(s, &s->sub, c, &fail, why);
            if (rc)
                return rc;
            if (fail.status != RUN_OK) {
                struct plan none = {0};
                struct test_outcome *t = &out->tests[0];
                t->verdict = failure_verdict(&none, &fail, &t->message, &t->detail);
                verdict_from_tests(out, &s->sub, c);
                return STEP_STOP;
            }
        }
        rc = tests_run(s, c, &passed, why);
        out->tests_ms = now_ms() - t0;
        if (rc)
            return rc;
        if (!passed && s->builds_failed) { /* no case failed: the compile's end decides */
            rc = finish_compile(pl, why);
            return rc ? rc : bw_fail(why, BW_ERR_INTERNAL, "the tests stopped for a build");
        }
        if (!passed) {
            verdict_from_tests(out, &s->sub, c);
            return STEP_STOP;
        }
    }
    if ((rc = finish_compile(pl, why)))
        return rc;
    out->verdict = VERDICT_ACCEPTED;
    return BW_OK;
}

/* ---- steps 5 and 6: timing and goals (a Submit) ------------------------------------- */

static int step_timing(struct pipeline *pl, char **why)
{
    struct session *s = &pl->s;
    struct judge_result *out = s->res;
    double sols[BW_MAX_BENCHMARKS], t0 = now_ms();
    int rc;

    if (out->tests_only || s->p->n_benchmarks == 0)
        return BW_OK;
    rc = bench_run(s, why);
    out->bench_ms = now_ms() - t0;
    if (rc)
        return rc;
    if (out->verdict != VERDICT_ACCEPTED)
        return STEP_STOP;
    for (size_t b = 0; b < out->n_benches; b++)
        sols[b] = out->benches[b].sol_pct;
    out->score = out->gpu.calibrated ? score_problem(sols, out->n_benches) : 0;
    return BW_OK;
}

/* Beside the verdict, never changing it: a failure here is only logged. */
static void step_goals(struct pipeline *pl)
{
    struct session *s = &pl->s;
    struct judge_result *out = s->res;
    double t0 = now_ms();
    char *why = NULL;

    if (out->tests_only || s->p->n_goals == 0)
        return;
    if (goal_measure_all(s, &why))
        log_warn("%s: %s", s->job, why ? why : "learning goals failed");
    free(why);
    out->goals_ms = now_ms() - t0;
}

/* ---- step 7: the profile (a Profile) -------------------------------------------------- */

/* Beside the verdict, never changing it: the tests' outcome decides whether there is a plan
 * to profile (one that ran to its end: Accepted or Wrong Answer), profile.h the rest. */
static void step_profile(struct pipeline *pl)
{
    struct session *s = &pl->s;
    struct judge_result *out = s->res;
    char why[BW_PROFILE_WHY_BYTES];
    double t0 = now_ms();

    if (session_cancelled(s))
        return;
    why[0] = '\0';
    if (out->verdict == VERDICT_COMPILE_ERROR)
        snprintf(why, sizeof(why), "the source did not compile: there is nothing to profile");
    else if (!out->executed)
        snprintf(why, sizeof(why), "nothing ran here (%s)", out->message ? out->message : "no GPU");
    else if (out->verdict != VERDICT_ACCEPTED && out->verdict != VERDICT_WRONG_ANSWER)
        snprintf(why, sizeof(why),
                 "the tests did not run to their end (%s): a plan that %s is not profiled",
                 verdict_name(out->verdict),
                 out->verdict == VERDICT_TIME_LIMIT ? "does not finish" : "fails");
    else if (pl->sub_running)
        snprintf(why, sizeof(why),
                 "the Triton compile was stopped at the failing test: its builds are not all "
                 "there to profile");
    profile_run(s, why[0] ? why : NULL);
    log_debug("%s: the profile step took %.0f ms", s->job, now_ms() - t0);
}

/* ---- the whole ---------------------------------------------------------------------- */

int judge_submission(const struct judge_config *cfg, const struct problem *p, const char *source,
                     size_t len, const struct judge_options *opts, struct judge_result *out,
                     char **cause)
{
    struct pipeline pl = {
        .s = {.cfg = cfg, .p = p, .opts = opts, .res = out, .source = source, .len = len},
    };
    struct session *s = &pl.s;
    char *why = NULL, *start_why = NULL;
    double t0 = now_ms();
    int rc;

    pl.build = (struct build_job){.s = s, .source = source, .len = len};
    s->job = opts && opts->job ? opts->job : p->id;
    s->lang = opts ? opts->language : LANG_CUDA;
    if (init_result(out, p, cfg)) {
        judge_result_release(out);
        return bw_fail(cause, BW_ERR_NOMEM, "out of memory");
    }
    s->seed = opts && opts->seed ? opts->seed : session_fresh_seed();
    s->pick_state = s->seed ^ 0x5DEECE66Dull;
    out->seed = s->seed;
    out->profile_mode = opts && opts->profile;
    out->tests_only = opts && (opts->tests_only || opts->profile);
    if (cfg->pool) /* background work on the GPU (PyTorch's baseline) waits for it */
        runner_pool_judging_begin(cfg->pool);
    session_emit(s, json_pack("{s:s}", "event", "compiling"));

    rc = step_parse(&pl, &why);
    if (rc == BW_OK)
        rc = step_compile(&pl, &why, &start_why);
    if (rc == BW_OK)
        rc = step_runners(&pl, start_why);
    if (rc == BW_OK)
        rc = step_tests(&pl, &why);
    if (rc == BW_OK)
        rc = step_timing(&pl, &why);
    if (rc == BW_OK) {
        step_goals(&pl);
        set_message(out, "all %zu tests passed%s", p->n_tests,
                    out->tests_only || !p->n_benchmarks ? "" : " and every timed run was checked");
    } else if (rc < 0) {
        out->verdict = VERDICT_JUDGE_ERROR;
        set_message(out, "%s", why ? why : bw_strerror(rc));
    }
    if (out->profile_mode && !pl.fatal)
        step_profile(&pl);

    double t_finish = now_ms();
    /* A verdict reached while the submission still compiled (a failing test):
     * the compile is stopped, and only its log is kept. */
    if (pl.sub_running) {
        out->compile_stopped = !triton_program_compiled(&s->sub.triton);
        triton_program_stop(&s->sub.triton);
        pthread_join(pl.sub_thread, NULL);
        pl.sub_running = false;
        out->compile_ms = pl.build.ms;
    }
    if (!pl.reviewed && s->lang == LANG_TRITON && s->sub.n_configs > 0 && s->sub.builds &&
        !out->compile_log) {
        const struct triton_program *tp = &s->sub.triton;
        out->compile_log = strdup(tp->result.log ? tp->result.log : "");
        out->builds_cached = tp->n_cached;
        out->builds_compiled = tp->n_compiled;
        out->compiler_cpu_ms = tp->result.cpu_ms;
        out->compiler_wait_ms = tp->wait_ms;
    }
    /* The judging ended before its tests (a Compile Error, a runner that did
     * not start): the pipe's case in flight ends first, then the runner goes back. */
    if (s->ref_pipe_running) {
        reference_pipe_finish(&s->ref_pipe);
        s->ref_pipe_running = false;
    }
    bench_ahead_finish(s, false); /* it reads s->ref */
    session_return_reference(s);
    session_drop_sub_runner(s);
    program_release(&s->sub);
    program_release(&s->ref);
    free(s->cfg_ms);
    bench_release(s);
    reference_keep_release(s);
    free(pl.build.cause);
    free(pl.build.ref_cause);
    free(pl.ref_source);
    free(pl.ref_why);
    free(pl.load_why);
    free(start_why);
    if (cfg->pool)
        runner_pool_judging_end(cfg->pool);
    if (pl.fatal) {
        if (cause) {
            *cause = why;
            why = NULL;
        }
        free(why);
        judge_result_release(out);
        return pl.fatal;
    }
    free(why);
    out->finish_ms = now_ms() - t_finish;
    out->total_ms = now_ms() - t0;
    session_emit(s, json_pack("{s:s, s:s, s:s?}", "event", "done", "verdict",
                              verdict_code(out->verdict), "message", out->message));
    return BW_OK;
}

void judge_result_release(struct judge_result *r)
{
    for (size_t i = 0; i < r->n_tests; i++) {
        free(r->tests[i].name);
        free(r->tests[i].message);
        json_decref(r->tests[i].detail);
    }
    free(r->tests);
    for (size_t i = 0; i < r->n_benches; i++) {
        free(r->benches[i].name);
        free(r->benches[i].stop);
    }
    free(r->benches);
    for (size_t i = 0; i < r->n_goals; i++)
        goal_outcome_release(&r->goals[i]);
    free(r->goals);
    free(r->message);
    free(r->compile_log);
    json_decref(r->kernels);
    json_decref(r->profile);
    diag_list_release(&r->diags);
    free(r->pytorch.reason);
    memset(r, 0, sizeof(*r));
}
