#include "bench.h"

#include <math.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "checks.h"
#include "failure.h"
#include "reference.h"
#include "runner_pool.h"
#include "score.h"
#include "session.h"
#include "tests.h"
#include "common/error.h"
#include "common/limits.h"
#include "common/log.h"
#include "common/stats.h"
#include "common/util.h"
#include "plan/run_plan.h"
#include "common/banned.h"

/* Philox case indices of benchmark input sets: set r of benchmark b is
 * BENCH_CASE_BASE + b * BENCH_CASE_STRIDE + r, so no benchmark input repeats
 * a test's (tests count from 0, at most BW_MAX_CASES of them). */
#define BENCH_CASE_BASE   4096u
#define BENCH_CASE_STRIDE 16u

/* Phases 2 and 3 of each shape, once per judging (bench.h). */
struct bench_cache {
    bool have[BW_MAX_BENCHMARKS];
    struct checks k[BW_MAX_BENCHMARKS];
};

/* The thread computing phases 2 and 3 ahead (bench_ahead_start). */
struct bench_ahead {
    pthread_t thread;
    atomic_bool stop;  /* set by bench_ahead_finish when the timing will not run */
    unsigned computed; /* shapes it completed */
    double work_ms;    /* its time in the reference runner, from taking it to giving it back */
    int rc;            /* its failure, only logged: bench_shape computes the rest itself */
    char *why;
};

uint32_t bench_case_index(size_t b)
{
    return BENCH_CASE_BASE + (uint32_t)b * BENCH_CASE_STRIDE;
}

/* Ends the timing's kept runners (killed and torn down in the background). */
static void release_kept(struct session *s)
{
    for (size_t k = 0; k < BW_BENCH_KEPT_RUNNERS; k++) {
        runner_discard(s->kept[k].runner);
        s->kept[k] = (struct kept_runner){0};
    }
}

void bench_release(struct session *s)
{
    bench_ahead_finish(s, false);
    release_kept(s);
    if (!s->bench_cache)
        return;
    for (size_t b = 0; b < BW_MAX_BENCHMARKS; b++)
        checks_release(&s->bench_cache->k[b]);
    free(s->bench_cache);
    s->bench_cache = NULL;
}

/* Phase 4: the timed samples, gathering the checked elements of each. */
static int time_plan(struct session *s, const struct program *pg, size_t config, bool screen,
                     const struct problem_case *c, const struct plan *sub_pl, uint32_t base,
                     const struct checks *k, struct bench_result *bres, enum verdict *verdict,
                     char **why_out, char **cause)
{
    struct bench_request brq = {0};
    const struct bench_reply *brep = &bres->reply;
    char *why = NULL;
    int rc;

    rc = program_run_plan(pg, config, sub_pl, s->seed, base, &brq.plan, cause);
    if (rc)
        return rc;
    for (int o = 0; o < k->n; o++)
        brq.plan.gather[brq.plan.n_gather++] =
            (struct run_gather){k->sub_buf[o], k->offset[o], k->count[o]};
    brq.sets = BW_BENCH_SETS;
    /* A screening (bench_configs) takes a few samples: enough to tell a configuration that
     * cannot be the fastest from one that may. BW_BENCH_SCREEN_SAMPLES, or as many as fit
     * BW_BENCH_SCREEN_BUDGET_MS and at least BW_BENCH_SCREEN_MIN_SAMPLES: 10 samples of each
     * of flash-attention's 7 configurations on its longest shape (about 26 ms a run) come to
     * some 1.8 s, of the 4.2-4.3 s of samples its whole Submit took on the H200. It never
     * stops on the RSE rule, which is not meant for 3 samples. */
    brq.min_samples = screen ? BW_BENCH_SCREEN_MIN_SAMPLES : BW_BENCH_MIN_SAMPLES;
    brq.max_samples = screen ? BW_BENCH_SCREEN_SAMPLES : BW_BENCH_MAX_SAMPLES;
    brq.target_rse = screen ? 0 : BW_BENCH_TARGET_RSE;
    brq.budget_ms = screen ? BW_BENCH_SCREEN_BUDGET_MS : BW_BENCH_BUDGET_MS;
    /* The first shape of a judging warms the clocks up from idle; every later
     * shape, configuration or rebuild follows it on a busy GPU (and only needs
     * its own buffers touched: the 3 runs at least). */
    brq.warmup_ms = s->timed_once ? BW_BENCH_WARMUP_NEXT_MS : BW_BENCH_WARMUP_MS;
    /* A screening's warm-up runs each input set once: it follows the tests or another
     * configuration's timing on a warm GPU (Triton's autotuner warms up for 25 ms). */
    brq.warmup_runs = screen && s->timed_once ? BW_BENCH_SCREEN_WARMUP_RUNS : BW_BENCH_WARMUP_RUNS;
    s->timed_once = true;
    brq.l2_flush_bytes = BW_L2_FLUSH_BYTES;
    brq.indices = k->indices;
    brq.n_indices = BW_BENCH_SETS * k->span;
    rc = runner_bench(s->sub_runner, &brq, bres,
                      (int)(BW_BENCH_WARMUP_MS + BW_BENCH_BUDGET_MS) +
                          BW_BENCH_OVERRUN_RUNS * s->p->run_ms + BW_BENCH_CALL_SLACK_MS,
                      &why);
    if (rc == BW_ERR_TIMEOUT) {
        *verdict = VERDICT_TIME_LIMIT;
        session_set_line(why_out, "benchmark %s: a timed run did not finish within %d ms", c->name,
                         s->p->run_ms);
        session_drop_sub_runner(s);
        rc = BW_OK;
    } else if (rc) {
        bw_fail(cause, rc, "submission runner on benchmark %s: %s", c->name,
                why ? why : bw_strerror(rc));
    } else if (brep->fail.status != RUN_OK) {
        char *message = NULL;
        json_t *detail = NULL;
        *verdict = failure_verdict(sub_pl, &brep->fail, &message, &detail);
        session_set_line(why_out, "benchmark %s, timed run %lld: %s", c->name,
                         (long long)brep->fail.sample,
                         message ? message : run_status_name(brep->fail.status));
        if (brep->fail.status == RUN_CUDA_ERROR)
            session_drop_sub_runner(s);
        free(message);
        json_decref(detail);
    }
    free(why);
    return rc;
}

/* Phase 5, one output of one sample: its checked elements against the reference. */
static int verify_output(struct session *s, const struct problem_case *c, const struct plan *sub_pl,
                         const struct checks *k, int o, uint32_t smp, const unsigned char *got,
                         enum verdict *verdict, char **why_out, char **cause)
{
    const struct plan_buffer *pb = &sub_pl->buffers[k->sub_buf[o]];
    struct compare_report rep;
    int rc = checks_compare(s, c, k, o, smp % BW_BENCH_SETS, pb->count, got, &rep, cause);

    if (rc == BW_OK && !compare_passed(&rep)) {
        *verdict = VERDICT_WRONG_ANSWER;
        session_set_line(why_out,
                         "benchmark %s, timed run %u: %lld of %lld checked elements of %s wrong",
                         c->name, smp, (long long)rep.mismatches, (long long)rep.checked, pb->name);
    }
    return rc;
}

/* Phase 5: every timed output free of poison, and its checked elements right. */
static int verify_samples(struct session *s, const struct problem_case *c,
                          const struct plan *sub_pl, const struct checks *k,
                          const struct bench_result *bres, enum verdict *verdict, char **why_out,
                          char **cause)
{
    const struct bench_reply *brep = &bres->reply;

    for (uint32_t smp = 0; smp < brep->n_samples && *verdict == VERDICT_ACCEPTED; smp++) {
        const unsigned char *row = bres->gathered + (size_t)smp * brep->bytes_per_sample;
        size_t pos = 0;

        if ((size_t)(smp + 1) * brep->bytes_per_sample > bres->gathered_len)
            return bw_fail(cause, BW_ERR_PROTOCOL,
                           "runner returned fewer gathered samples than timed runs");
        for (int q = 0; q < brep->n_poison; q++) {
            const struct plan_buffer *pb = &sub_pl->buffers[brep->poison_buf[q]];
            uint64_t bad = brep->poison[(size_t)smp * brep->n_poison + q];
            if (bad && dtype_is_float(pb->dtype)) {
                *verdict = VERDICT_WRONG_ANSWER;
                session_set_line(
                    why_out, "benchmark %s, timed run %u: %llu element%s of %s never written",
                    c->name, smp, (unsigned long long)bad, bad == 1 ? "" : "s", pb->name);
            }
        }
        for (int o = 0; o < k->n && *verdict == VERDICT_ACCEPTED; o++) {
            int rc = verify_output(s, c, sub_pl, k, o, smp, row + pos, verdict, why_out, cause);
            if (rc)
                return rc;
            pos += k->count[o] * dtype_size(sub_pl->buffers[k->sub_buf[o]].dtype);
        }
    }
    return BW_OK;
}

/* Phase 6: statistics and scores, and the physical floor. */
static int score(struct session *s, const struct problem_case *c, const struct bench_reply *brep,
                 struct bench_outcome *bo, enum verdict *verdict, char **why_out, char **cause)
{
    const struct gpu_info *gpu = &s->cfg->gpu;
    struct roofline roof = {gpu->copy_gbps, gpu->fp32_tflops, gpu->fp16_tflops, gpu->bf16_tflops};
    struct expr_binding vars[BW_MAX_SIZES + BW_MAX_SCALARS];
    struct expr_scope scope;
    struct stats_summary st;
    struct shape_score sc;
    double bytes = 0, flops = 0;
    int rc;

    rc = stats_summarize(brep->samples_ms, (int)brep->n_samples, &st, cause);
    if (rc)
        return rc;
    problem_formula_scope(s->p, c, vars, &scope);
    if (expr_eval_real(s->p->bytes, &scope, &bytes, cause) ||
        expr_eval_real(s->p->flops, &scope, &flops, cause))
        return bw_wrap(cause, BW_ERR_INTERNAL, "problem.json bytes/flops for %s", c->name);
    bo->samples = st.n;
    bo->median_ms = st.median;
    bo->min_ms = st.min;
    bo->max_ms = st.max;
    bo->p10_ms = st.p10;
    bo->p90_ms = st.p90;
    bo->rse = st.rse_median;
    bo->gbps = score_gbps(bytes, st.median);
    bo->tflops = score_tflops(flops, st.median);
    bo->clock_mhz = (int)brep->clock_mhz[1];
    free(bo->stop);
    bo->stop = strdup(brep->stop == BENCH_STOP_RSE           ? "rse"
                      : brep->stop == BENCH_STOP_MAX_SAMPLES ? "max"
                                                             : "budget");
    if (s->res->gpu.calibrated &&
        score_shape(&roof, s->p->peak, bytes, flops, st.median, &sc, NULL) == BW_OK) {
        /* The physical floor uses the tensor peaks with headroom: the worker
         * measures them with mma.sync, which wgmma outruns on Hopper, so a
         * fast wgmma kernel must not look impossible. */
        struct roofline ceiling = roof;
        struct shape_score limit;
        ceiling.fp16_tflops *= BW_TENSOR_PEAK_HEADROOM;
        ceiling.bf16_tflops *= BW_TENSOR_PEAK_HEADROOM;
        bo->sol_pct = sc.sol_pct;
        if (score_shape(&ceiling, s->p->peak, bytes, flops, st.median, &limit, NULL) == BW_OK &&
            limit.impossible) {
            *verdict = VERDICT_WRONG_ANSWER;
            session_set_line(why_out,
                             "benchmark %s: %.4f ms is below the physical floor of %.4f ms for "
                             "this GPU: the kernel cannot have done the work",
                             c->name, st.median, limit.floor_ms);
        }
    }
    return BW_OK;
}

/* bench_shape, or (screen) its screening: a few samples (time_plan), as checked. */
static int time_shape(struct session *s, const struct program *pg, size_t b, size_t config,
                      bool screen, struct bench_outcome *bo, enum verdict *verdict, char **why_out,
                      char **cause)
{
    const struct problem_case *c = &s->p->benchmarks[b];
    uint32_t base = BENCH_CASE_BASE + (uint32_t)b * BENCH_CASE_STRIDE;
    struct plan sub_pl, ref_pl;
    struct checks *k;
    struct bench_result bres = {0};
    char *why = NULL;
    bool known;
    int rc;

    *verdict = VERDICT_ACCEPTED;
    if (b >= BW_MAX_BENCHMARKS)
        return bw_fail(cause, BW_ERR_INTERNAL, "benchmark %zu of at most %d", b + 1,
                       BW_MAX_BENCHMARKS);
    if (!s->bench_cache && !(s->bench_cache = calloc(1, sizeof(*s->bench_cache))))
        return bw_fail(cause, BW_ERR_NOMEM, "out of memory");
    k = &s->bench_cache->k[b];
    *why_out = NULL;
    /* 1. Plans: an impossible launch for this shape is the learner's. */
    if (program_plan(pg, config, c, &sub_pl, &why)) {
        *verdict = VERDICT_RUNTIME_ERROR;
        session_set_line(why_out, "benchmark %s: %s", c->name, why ? why : "invalid launch");
        free(why);
        return BW_OK;
    }
    rc = plan_build(s->p, &s->ref.dirs, s->ref.tune_values[0], c, PLAN_REFERENCE, &ref_pl, cause);
    if (rc)
        return bw_wrap(cause, BW_ERR_INTERNAL, "reference.cu");
    /* 2 and 3, unless computed ahead (bench_ahead_start) or by an earlier
     * configuration or rebuild of this judging. */
    known = s->bench_cache->have[b];
    s->bench_cache->have[b] = false;
    log_debug("%s: benchmark %s, configuration %zu: the checked elements' reference %s", s->job,
              c->name, config + 1, known ? "reused" : "computed");
    double t0 = now_ms();
    rc = BW_OK;
    if (!known) {
        checks_release(k);
        rc = checks_choose(s->p, &ref_pl, BW_BENCH_SETS, CHECKS_PICK_TIMED, &s->pick_state, k,
                           cause);
        if (rc == BW_OK)
            rc = checks_reference(s, s->ref_runner, NULL, c, &ref_pl, base, k, cause);
    }
    if (rc == BW_OK)
        rc = checks_bind(k, &sub_pl, &ref_pl, c->name, cause);
    if (rc == BW_OK)
        s->bench_cache->have[b] = true;
    double t1 = now_ms();
    s->res->bench_reference_ms += t1 - t0;
    session_gate_enter(s, true); /* the shape is timed with nothing else on the GPU */
    runner_discard_drain();      /* nor a discarded runner's context being torn down */
    double t2 = now_ms();
    s->res->bench_gate_ms += t2 - t1;
    if (rc == BW_OK)
        rc = time_plan(s, pg, config, screen, c, &sub_pl, base, k, &bres, verdict, why_out, cause);
    session_gate_leave(s, true);
    s->res->bench_runner_ms += now_ms() - t2;
    for (uint32_t i = 0; i < bres.reply.n_samples; i++)
        s->res->bench_samples_ms += bres.reply.samples_ms[i];
    t0 = now_ms();
    if (rc == BW_OK && *verdict == VERDICT_ACCEPTED)
        rc = verify_samples(s, c, &sub_pl, k, &bres, verdict, why_out, cause);
    s->res->bench_verify_ms += now_ms() - t0;
    if (rc == BW_OK && *verdict == VERDICT_ACCEPTED)
        rc = score(s, c, &bres.reply, bo, verdict, why_out, cause);
    bench_result_release(&bres);
    return rc;
}

int bench_shape(struct session *s, const struct program *pg, size_t b, size_t config,
                struct bench_outcome *bo, enum verdict *verdict, char **why_out, char **cause)
{
    return time_shape(s, pg, b, config, false, bo, verdict, why_out, cause);
}

/* Makes s->sub_runner hold configuration cfg: its runner kept from an earlier timing (its
 * screening, or an earlier shape), else a fresh one. The runner it replaces was parked
 * (keep_runner) or is discarded. */
static int take_runner(struct session *s, size_t b, size_t cfg, char **cause)
{
    struct run_failure fail;
    bool kept = cfg < BW_BENCH_KEPT_RUNNERS && s->kept[cfg].runner;

    log_debug("%s: benchmark %s, configuration %zu: %s", s->job, s->p->benchmarks[b].name, cfg + 1,
              kept ? "its kept runner" : "a fresh runner");
    session_drop_sub_runner(s);
    if (kept) {
        s->sub_runner = s->kept[cfg].runner;
        s->sub_loaded = s->kept[cfg].loaded;
        s->kept[cfg].runner = NULL;
        return BW_OK;
    }
    return session_fresh_sub_runner(s, &s->sub, cfg, &fail, cause);
}

/* Keeps configuration cfg's runner for its next timing (one dropped by a failure is gone).
 * Discarding it instead would cost a start for every timing of every configuration, and
 * its teardown (~90 ms on the H200), which the next timing waits for (bench_shape). */
static void keep_runner(struct session *s, size_t cfg)
{
    if (cfg >= BW_BENCH_KEPT_RUNNERS || !s->sub_runner)
        return;
    s->kept[cfg] = (struct kept_runner){s->sub_runner, s->sub_loaded};
    s->sub_runner = NULL;
    s->sub_loaded = 0;
}

/* Times configuration cfg on benchmark b (screen: its screening) in its own runner; a
 * failed timed run is the judging's verdict (false: stop). */
static bool time_config(struct session *s, size_t b, size_t cfg, bool screen,
                        struct bench_outcome *bo, int *rc, char **cause)
{
    struct judge_result *r = s->res;
    enum verdict v;
    char *why = NULL;

    if (s->sub.n_configs > 1) {
        double t0 = now_ms();
        *rc = take_runner(s, b, cfg, cause);
        r->bench_switch_ms += now_ms() - t0;
        if (*rc)
            return false;
    }
    *rc = time_shape(s, &s->sub, b, cfg, screen, bo, &v, &why, cause);
    if (s->sub.n_configs > 1)
        keep_runner(s, cfg);
    if (*rc || v != VERDICT_ACCEPTED) {
        r->verdict = v;
        if (why)
            session_set_line(&r->message, "%s", why);
        free(why);
        return false;
    }
    return true;
}

/*
 * Times every configuration on benchmark b; the fastest goes to *best. With
 * BW_BENCH_SCREEN_MIN_CONFIGS or more, each is screened first (every screened
 * sample checked as a timed one is) and only those within
 * BW_BENCH_SCREEN_MARGIN of the fastest screening are timed in full, as
 * Triton's autotuner times each config briefly before it keeps one: the
 * others' full timings would only confirm that they lose. Their screened
 * medians stand as their times (s->cfg_ms, for the autotune goal), and so does
 * a kept one's screening that already meets the full timing's stop rule.
 */
static int bench_configs(struct session *s, size_t b, struct bench_outcome *best, char **cause)
{
    size_t n = s->sub.n_configs, ns = s->p->n_benchmarks;
    bool screen = n >= BW_BENCH_SCREEN_MIN_CONFIGS, have = false;
    struct bench_outcome *screens = NULL; /* each configuration's screening */
    double fastest = 0;
    int rc = BW_OK, screened = 0;

    if (screen && !(screens = calloc(n, sizeof(*screens))))
        return bw_fail(cause, BW_ERR_NOMEM, "out of memory");
    for (size_t cfg = 0; screen && cfg < n; cfg++) {
        s->res->bench_screenings++;
        if (!time_config(s, b, cfg, true, &screens[cfg], &rc, cause))
            goto out;
        s->cfg_ms[cfg * ns + b] = screens[cfg].median_ms;
        if (cfg == 0 || screens[cfg].median_ms < fastest)
            fastest = screens[cfg].median_ms;
    }
    for (size_t cfg = 0; cfg < n; cfg++) {
        const char *shape = s->p->benchmarks[b].name;
        struct bench_outcome bo = {0};

        if (screen && s->cfg_ms[cfg * ns + b] > fastest * (1 + BW_BENCH_SCREEN_MARGIN)) {
            log_debug("%s: benchmark %s, configuration %zu: screened at %.4f ms, %.0f%% over the "
                      "fastest screening (%.4f ms): not timed in full",
                      s->job, shape, cfg + 1, s->cfg_ms[cfg * ns + b],
                      100 * (s->cfg_ms[cfg * ns + b] / fastest - 1), fastest);
            screened++;
            continue;
        }
        /* A screening that already meets the full timing's stop rule (BW_BENCH_MIN_SAMPLES
         * samples, every one checked, the median's RSE within BW_BENCH_TARGET_RSE) is the
         * timing that rule would have stopped at: it stands. */
        if (screen && screens[cfg].samples >= BW_BENCH_MIN_SAMPLES &&
            screens[cfg].rse <= BW_BENCH_TARGET_RSE) {
            bo = screens[cfg];
            screens[cfg] = (struct bench_outcome){0};
            free(bo.stop);
            bo.stop = strdup("rse");
            log_debug("%s: benchmark %s, configuration %zu: its screening meets the stop rule "
                      "(%d samples, RSE %.2f%%): its timing",
                      s->job, shape, cfg + 1, bo.samples, 100 * bo.rse);
            s->res->bench_screenings_stood++;
        } else {
            s->res->bench_timings++;
            if (!time_config(s, b, cfg, false, &bo, &rc, cause)) {
                free(bo.stop);
                goto out;
            }
        }
        s->cfg_ms[cfg * ns + b] = bo.median_ms;
        if (!have || bo.median_ms < best->median_ms) {
            free(best->stop);
            *best = bo;
            s->best_cfg[b] = cfg;
            have = true;
        } else {
            free(bo.stop);
        }
    }
    best->screened = screened;
out:
    for (size_t cfg = 0; screens && cfg < n; cfg++)
        free(screens[cfg].stop);
    free(screens);
    return rc;
}

/* ---- phases 2 and 3 ahead ---------------------------------------------------------- */

static void *ahead_thread(void *arg)
{
    struct session *s = arg;
    struct bench_ahead *a = s->bench_ahead;
    struct runner *runner = NULL;
    struct run_failure fail;
    double t0 = now_ms();
    int rc;

    /* A start (~340 ms on the H200) would cost a cheap shape more than computing
     * it in line: only an idle runner is used (one is started for next time). */
    if (!runner_pool_try_take_reference(s->cfg->pool, &runner)) {
        log_debug("%s: the benchmarks' reference in line: no idle reference runner", s->job);
        return NULL;
    }
    rc = program_load(runner, &s->ref, 0, &fail, &a->why);
    if (rc == BW_OK && fail.status != RUN_OK)
        rc = bw_fail(&a->why, BW_ERR_INTERNAL, "loading reference.cu: %s", fail.message);
    for (size_t b = 0; rc == BW_OK && b < s->p->n_benchmarks && b < BW_MAX_BENCHMARKS; b++) {
        const struct problem_case *c = &s->p->benchmarks[b];
        struct checks *k = &s->bench_cache->k[b];
        struct plan ref_pl;

        rc = plan_build(s->p, &s->ref.dirs, s->ref.tune_values[0], c, PLAN_REFERENCE, &ref_pl,
                        &a->why);
        if (rc == BW_OK)
            rc = checks_choose(s->p, &ref_pl, BW_BENCH_SETS, CHECKS_PICK_TIMED, &s->pick_state, k,
                               &a->why);
        if (rc == BW_OK)
            rc = checks_reference(s, runner, &a->stop, c, &ref_pl,
                                  BENCH_CASE_BASE + (uint32_t)b * BENCH_CASE_STRIDE, k, &a->why);
        if (rc == BW_OK) {
            s->bench_cache->have[b] = true;
            a->computed++;
            log_debug("%s: benchmark %s: the checked elements' reference computed ahead", s->job,
                      c->name);
        } else {
            checks_release(k);
        }
    }
    runner_pool_return_reference(s->cfg->pool, runner);
    a->rc = rc;
    a->work_ms = now_ms() - t0;
    return NULL;
}

void bench_ahead_start(struct session *s)
{
    struct bench_ahead *a;

    if (s->bench_ahead || !s->cfg->pool || s->res->tests_only || s->p->n_benchmarks == 0)
        return;
    if (!s->bench_cache && !(s->bench_cache = calloc(1, sizeof(*s->bench_cache))))
        return;
    a = calloc(1, sizeof(*a));
    if (!a)
        return;
    atomic_init(&a->stop, false);
    s->bench_ahead = a;
    if (pthread_create(&a->thread, NULL, ahead_thread, s) != 0) {
        s->bench_ahead = NULL;
        free(a);
    }
}

double bench_ahead_finish(struct session *s, bool needed)
{
    struct bench_ahead *a = s->bench_ahead;
    double t0 = now_ms(), waited;

    if (!a)
        return 0;
    if (!needed)
        atomic_store(&a->stop, true);
    pthread_join(a->thread, NULL);
    waited = now_ms() - t0;
    if (!needed)
        log_debug("%s: the benchmarks' reference ahead stopped after %u of %zu shapes (%.0f ms "
                  "waited): the timing will not run",
                  s->job, a->computed, s->p->n_benchmarks, waited);
    else if (a->rc && a->rc != BW_ERR_CANCELLED)
        log_warn("%s: the benchmarks' reference ahead: %s (computed in line instead)", s->job,
                 a->why ? a->why : bw_strerror(a->rc));
    s->res->bench_reference_ms += a->work_ms;
    free(a->why);
    free(a);
    s->bench_ahead = NULL;
    return waited;
}

int bench_run(struct session *s, char **cause)
{
    struct judge_result *r = s->res;

    r->bench_reference_wait_ms = bench_ahead_finish(s, true);

    free(s->cfg_ms);
    s->cfg_ms = calloc(s->sub.n_configs * (s->p->n_benchmarks ? s->p->n_benchmarks : 1),
                       sizeof(*s->cfg_ms));
    if (!s->cfg_ms)
        return bw_fail(cause, BW_ERR_NOMEM, "out of memory");

    for (size_t b = 0; b < s->p->n_benchmarks; b++) {
        struct bench_outcome best = {0};
        int rc = session_cancelled(s) ? bw_fail(cause, BW_ERR_CANCELLED, "cancelled")
                                      : bench_configs(s, b, &best, cause);

        if (rc || r->verdict != VERDICT_ACCEPTED) {
            free(best.stop);
            release_kept(s);
            return rc;
        }
        best.name = strdup(s->p->benchmarks[b].name);
        r->benches[b] = best;
        r->n_benches = b + 1;
        session_emit(s, json_pack("{s:s, s:I, s:I, s:s, s:f, s:f, s:f, s:f}", "event", "bench",
                                  "index", (json_int_t)b, "of", (json_int_t)s->p->n_benchmarks,
                                  "name", best.name, "median_ms", best.median_ms, "gbps", best.gbps,
                                  "tflops", best.tflops, "sol_pct", best.sol_pct));
    }
    release_kept(s); /* the goals time rebuilds in runners of their own */
    return BW_OK;
}
