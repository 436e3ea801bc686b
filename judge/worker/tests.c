#include "tests.h"

#include <limits.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "checks.h"
#include "failure.h"
#include "reference.h"
#include "session.h"
#include "common/error.h"
#include "common/limits.h"
#include "common/util.h"
#include "plan/run_plan.h"
#include "common/banned.h"

_Static_assert(RUN_PHASES ==
                   sizeof(((struct judge_result *)0)->tests_submission_phase_ms) / sizeof(double),
               "judge_result keeps one sum per runner phase");

int tests_compare_spec(const struct problem *p, size_t t, const struct problem_case *c,
                       int64_t *dims, struct compare_spec *spec, char **cause)
{
    const struct tensor_spec *ts = &p->tensors[t];
    int rc;

    memset(spec, 0, sizeof(*spec));
    spec->dtype = ts->dtype;
    spec->ref_dtype = dtype_is_float(ts->dtype) ? DTYPE_FP64 : DTYPE_INT64;
    spec->exact = ts->tol.exact;
    spec->acc = ts->tol.acc;
    rc = problem_tolerance(p, t, c, &spec->atol, &spec->rtol, cause);
    if (rc)
        return rc;
    rc = problem_tensor_shape(p, t, c, dims, cause);
    if (rc)
        return rc;
    spec->dims = dims;
    spec->ndim = ts->ndim;
    return BW_OK;
}

void tests_mismatch_line(const struct compare_report *r, const char *name, char **message)
{
    long long bad = (long long)r->mismatches, count = (long long)r->count;

    if (r->unwritten == r->count && count == 1)
        session_set_line(message,
                         "%s was never written (its element still holds the judge's "
                         "0xFF poison)",
                         name);
    else if (r->unwritten == r->count)
        session_set_line(message,
                         "%s was never written (all %lld elements still hold the "
                         "judge's 0xFF poison)",
                         name, count);
    else if (r->unwritten == r->mismatches)
        session_set_line(message, "%lld of %lld elements of %s %s never written", bad, count, name,
                         bad == 1 ? "was" : "were");
    else if (r->checked > 0 && r->checked < r->count)
        session_set_line(message, "%lld of %lld checked elements of %s differ%s from the reference",
                         bad, (long long)r->checked, name, bad == 1 ? "s" : "");
    else
        session_set_line(message, "%lld element%s of %s differ%s from the reference", bad,
                         bad == 1 ? "" : "s", name, bad == 1 ? "s" : "");
}

bool tests_case_sampled(const struct problem *p, const struct problem_case *c, uint64_t max_bytes)
{
    uint64_t bytes = 0;

    if (max_bytes == 0)
        max_bytes = BW_FULL_CHECK_MAX_BYTES;
    for (size_t t = 0; t < p->n_tensors; t++) {
        int64_t count = 0;
        char *why = NULL;
        if (p->tensors[t].role == ROLE_IN)
            continue;
        if (problem_tensor_count(p, t, c, &count, &why) || count < 0) {
            free(why);
            return false;
        }
        bytes += (uint64_t)count * dtype_size(p->tensors[t].dtype);
    }
    return bytes > max_bytes;
}

uint64_t tests_allowance_ms(uint64_t device_bytes, uint64_t host_bytes)
{
    /* In microseconds first, so the two terms round up once, together. */
    uint64_t us = device_bytes / (BW_HARNESS_DEVICE_BYTES_PER_MS / 1000) +
                  host_bytes / (BW_HARNESS_HOST_BYTES_PER_MS / 1000);
    return BW_HARNESS_BASE_MS + (us + 999) / 1000;
}

uint64_t tests_harness_allowance_ms(const struct run_request *rq)
{
    const struct run_plan *p = &rq->plan;
    uint64_t host;

    if (rq->ret == RUN_RETURN_GATHER)
        host = rq->n_indices * sizeof(int64_t) + run_plan_gather_bytes(p);
    else
        host = run_plan_return_bytes(p);
    return tests_allowance_ms(run_plan_device_bytes(p), host);
}

int tests_run_deadline_ms(int run_ms, const struct run_request *rq)
{
    uint64_t ms = (uint64_t)(run_ms > 0 ? run_ms : 0) + tests_harness_allowance_ms(rq);
    return ms > INT_MAX ? INT_MAX : (int)ms;
}

/* Compares every output of a submission run with the expected outputs into t. */
static int compare_case(struct session *s, const struct problem_case *c, const struct plan *sub_pl,
                        const struct plan *ref_pl, const struct expected *exp,
                        const struct run_result *res, struct test_outcome *t, char **cause)
{
    json_t *outputs = json_array();
    bool ok = true;
    int rc = BW_OK;
    struct compare_report worst = {0};
    const char *worst_name = NULL;

    for (int o = 0; o < res->reply.n_outputs; o++) {
        const struct run_output *ro = &res->reply.outputs[o];
        const struct plan_buffer *pb;
        struct compare_spec spec;
        struct compare_report rep;
        int64_t dims[BW_MAX_DIMS];
        int rb, sb;

        if (ro->buf < 0 || (size_t)ro->buf >= sub_pl->n_buffers ||
            ro->offset + ro->bytes > res->data_len) {
            rc = bw_fail(cause, BW_ERR_PROTOCOL, "runner returned an output outside its data");
            break;
        }
        pb = &sub_pl->buffers[ro->buf];
        if (pb->tensor < 0)
            continue;
        rb = reference_buffer(ref_pl, pb->tensor, false);
        sb = reference_buffer(ref_pl, pb->tensor, true);
        if (rb < 0 || !exp->buf[rb]) {
            rc = bw_fail(cause, BW_ERR_INTERNAL, "no expected values for output %s", pb->name);
            break;
        }
        rc = tests_compare_spec(s->p, (size_t)pb->tensor, c, dims, &spec, cause);
        if (rc)
            break;
        rc = compare_output(&spec, res->data + ro->offset, exp->buf[rb],
                            sb >= 0 ? exp->buf[sb] : NULL, pb->count, &rep, cause);
        if (rc)
            break;
        json_array_append_new(outputs, compare_report_json(&rep, pb->name));
        if (!compare_passed(&rep)) {
            ok = false;
            if (rep.mismatches > worst.mismatches) {
                worst = rep;
                worst_name = pb->name;
            }
        }
    }
    if (rc) {
        json_decref(outputs);
        return rc;
    }
    t->detail = json_pack("{s:s, s:o}", "kind", ok ? "match" : "mismatch", "outputs", outputs);
    t->verdict = ok ? VERDICT_ACCEPTED : VERDICT_WRONG_ANSWER;
    if (!ok)
        tests_mismatch_line(&worst, worst_name, &t->message);
    return BW_OK;
}

/* The all-0xFF count of buffer b in a scanned reply; -1 when b was not scanned. */
static int64_t scanned_poison(const struct run_reply *r, int b)
{
    for (int q = 0; q < r->n_poison; q++)
        if (r->poison_buf[q] == b)
            return (int64_t)r->poison[q];
    return -1;
}

/*
 * Compares a case checked by sample into t: the runner returned each
 * output's checked elements (k's order, the request's gather list) and
 * scanned all of them for poison. An unwritten element of a float output is
 * a failure wherever it lies (integer outputs may hold -1: only their checked
 * elements count, as in the timing); then the checked elements against the
 * reference's values there.
 */
static int compare_sampled(struct session *s, const struct problem_case *c,
                           const struct plan *sub_pl, const struct checks *k,
                           const struct run_result *res, struct test_outcome *t, char **cause)
{
    json_t *outputs = json_array();
    char *worst_line = NULL;
    uint64_t worst = 0;
    bool ok = true;
    int rc = BW_OK;

    for (int o = 0; o < k->n && rc == BW_OK; o++) {
        const struct plan_buffer *pb = &sub_pl->buffers[k->sub_buf[o]];
        const struct run_output *ro = o < res->reply.n_outputs ? &res->reply.outputs[o] : NULL;
        int64_t poison = scanned_poison(&res->reply, k->sub_buf[o]);
        struct compare_report rep;
        char *line = NULL;
        uint64_t bad;
        json_t *j;

        if (!ro || ro->buf != k->sub_buf[o] || ro->bytes != k->count[o] * dtype_size(pb->dtype) ||
            ro->offset + ro->bytes > res->data_len || poison < 0) {
            rc =
                bw_fail(cause, BW_ERR_PROTOCOL,
                        "runner returned output %s of a sampled case unlike the request", pb->name);
            break;
        }
        rc = checks_compare(s, c, k, o, 0, pb->count, res->data + ro->offset, &rep, cause);
        if (rc)
            break;
        if (dtype_is_float(pb->dtype) && poison > rep.unwritten) {
            /* The scan saw every element: the report counts the unwritten ones it found
             * outside the sample too, so it reads "P of N elements never written". */
            rep.mismatches += poison - rep.unwritten;
            rep.unwritten = poison;
        }
        j = compare_report_json(&rep, pb->name);
        if (j && dtype_is_float(pb->dtype))
            json_object_set_new(j, "scanned_unwritten", json_integer(poison));
        json_array_append_new(outputs, j);
        if (poison > 0 && dtype_is_float(pb->dtype)) {
            struct compare_report all = {.count = pb->count,
                                         .checked = pb->count,
                                         .mismatches = poison,
                                         .unwritten = poison};
            tests_mismatch_line(&all, pb->name, &line);
            bad = (uint64_t)poison;
        } else if (!compare_passed(&rep)) {
            tests_mismatch_line(&rep, pb->name, &line);
            bad = (uint64_t)rep.mismatches;
        } else {
            continue;
        }
        ok = false;
        if (!worst_line || bad > worst) {
            free(worst_line);
            worst_line = line;
            worst = bad;
        } else {
            free(line);
        }
    }
    if (rc) {
        json_decref(outputs);
        free(worst_line);
        return rc;
    }
    t->detail = json_pack("{s:s, s:b, s:o}", "kind", ok ? "match" : "mismatch", "sampled", 1,
                          "outputs", outputs);
    t->verdict = ok ? VERDICT_ACCEPTED : VERDICT_WRONG_ANSWER;
    t->message = worst_line;
    return BW_OK;
}

/* Makes sure a submission runner holds configuration `config`; a cubin that
 * does not load is the case's verdict (*loaded false). */
static int ensure_runner(struct session *s, size_t config, const struct plan *sub_pl,
                         struct test_outcome *t, bool *loaded, char **cause)
{
    struct run_failure fail;
    int rc;

    *loaded = true;
    if (s->sub_runner)
        return BW_OK;
    rc = session_fresh_sub_runner(s, &s->sub, config, &fail, cause);
    if (rc == BW_OK && fail.status != RUN_OK) {
        t->verdict = failure_verdict(sub_pl, &fail, &t->message, &t->detail);
        *loaded = false;
    }
    return rc;
}

/*
 * One case between its submission run and its place in s->res->tests: the
 * outcome so far and, when the run succeeded, what its comparison needs. The
 * comparison runs on a thread of its own (compare_thread) while the
 * submission runner runs the next case; the outcome lands in tests[i] only
 * when every earlier case has landed (tests_run), so the verdict is the first
 * failure in order, as if one case ran at a time.
 */
struct pending_case {
    size_t i;
    struct test_outcome t; /* the outcome, without its name */
    bool compare;          /* the run succeeded: res and exp wait for compare_case */
    struct plan ref_pl, sub_pl;
    struct expected exp;
    bool keep; /* a later configuration runs this case: its expected outputs are kept */
    struct run_result res;
    pthread_t thread;
    bool threaded; /* compare_case runs on `thread` */
    int rc;        /* compare_case's */
    char *cause;
    double compare_ms;
};

static void pending_free(struct pending_case *pc)
{
    if (!pc)
        return;
    free(pc->t.message);
    json_decref(pc->t.detail);
    run_result_release(&pc->res);
    expected_release(&pc->exp);
    free(pc->cause);
    free(pc);
}

struct compare_job {
    struct session *s;
    struct pending_case *pc;
};

static void compare_pending(struct session *s, struct pending_case *pc)
{
    double t0 = now_ms();
    if (pc->exp.checks)
        pc->rc = compare_sampled(s, &s->p->tests[pc->i], &pc->sub_pl, pc->exp.checks, &pc->res,
                                 &pc->t, &pc->cause);
    else
        pc->rc = compare_case(s, &s->p->tests[pc->i], &pc->sub_pl, &pc->ref_pl, &pc->exp, &pc->res,
                              &pc->t, &pc->cause);
    pc->compare_ms = now_ms() - t0;
}

static void *compare_thread(void *arg)
{
    struct compare_job *job = arg;
    compare_pending(job->s, job->pc);
    free(job);
    return NULL;
}

/* Starts pc's comparison on a thread, or does it here when no thread starts. */
static void compare_start(struct session *s, struct pending_case *pc)
{
    struct compare_job *job = malloc(sizeof(*job));

    if (job) {
        *job = (struct compare_job){.s = s, .pc = pc};
        pc->threaded = pthread_create(&pc->thread, NULL, compare_thread, job) == 0;
        if (pc->threaded)
            return;
        free(job);
    }
    compare_pending(s, pc);
}

/* Waits for pc's comparison; returns its rc (its cause moved to *cause). */
static int compare_wait(struct pending_case *pc, char **cause)
{
    if (pc->threaded)
        pthread_join(pc->thread, NULL);
    pc->threaded = false;
    if (pc->rc && cause) {
        free(*cause);
        *cause = pc->cause;
        pc->cause = NULL;
    }
    return pc->rc;
}

/* Runs case i of configuration `config` in the submission runner into *pc:
 * its outcome, or what its comparison needs (pc->compare). */
static int run_case(struct session *s, size_t config, size_t i, struct reference_pipe *rp,
                    struct pending_case *pc, char **cause)
{
    const struct problem_case *c = &s->p->tests[i];
    struct test_outcome *t = &pc->t;
    struct run_request rq = {.ret = RUN_RETURN_FULL};
    char *why = NULL;
    double t0;
    bool loaded;
    int rc;

    pc->i = i;
    pc->keep = config + 1 < s->sub.n_configs;
    t0 = now_ms();
    rc = reference_pipe_take(rp, i, &pc->ref_pl, &pc->exp, cause);
    s->res->tests_reference_wait_ms += now_ms() - t0;
    if (rc)
        return rc;
    if (program_plan(&s->sub, config, c, &pc->sub_pl, &why)) {
        t->verdict = VERDICT_RUNTIME_ERROR;
        t->detail = json_pack("{s:s, s:s}", "kind", "plan", "message", why ? why : "");
        t->message = why;
        return BW_OK;
    }
    if (s->lang == LANG_TRITON && s->sub.triton.live) {
        /* Its builds as the compile gives them out; one that did not build stops here. */
        t0 = now_ms();
        bool built = triton_program_wait_case(&s->sub.triton, config, &pc->sub_pl);
        s->res->tests_build_wait_ms += now_ms() - t0;
        if (!built) {
            s->builds_failed = true;
            return BW_OK;
        }
    }
    rc = ensure_runner(s, config, &pc->sub_pl, t, &loaded, cause);
    if (rc || !loaded)
        return rc;
    if (s->lang == LANG_TRITON && s->sub.triton.live) {
        uint64_t need = triton_program_case_variants(&s->sub.triton, config, &pc->sub_pl);
        if ((s->sub_loaded & need) != need) { /* builds final since the last load */
            struct run_failure fail;
            if ((rc = session_load_sub(s, &s->sub, config, &fail, cause)))
                return rc;
            if (fail.status != RUN_OK) {
                t->verdict = failure_verdict(&pc->sub_pl, &fail, &t->message, &t->detail);
                return BW_OK;
            }
        }
    }
    rc = program_run_plan(&s->sub, config, &pc->sub_pl, s->seed, (uint32_t)i, &rq.plan, cause);
    if (rc)
        return rc;
    if (pc->exp.checks) { /* checked by sample: every output scanned, the checked elements back */
        const struct checks *k = pc->exp.checks;
        if ((rc = checks_bind(pc->exp.checks, &pc->sub_pl, &pc->ref_pl, c->name, cause)))
            return rc;
        for (int o = 0; o < k->n; o++)
            rq.plan.gather[rq.plan.n_gather++] =
                (struct run_gather){k->sub_buf[o], k->offset[o], k->count[o]};
        rq.ret = RUN_RETURN_GATHER;
        rq.indices = k->indices;
        rq.n_indices = k->span;
        rq.scan = true;
    }
    int deadline_ms = tests_run_deadline_ms(s->p->run_ms, &rq);
    session_gate_enter(s, false);
    t0 = now_ms();
    double lent0 = runner_lent_ms(s->sub_runner), wait0 = runner_memory_wait_ms(s->sub_runner);
    rc = runner_run(s->sub_runner, &rq, &pc->res, deadline_ms, &why);
    s->res->tests_submission_ms += now_ms() - t0;
    s->res->tests_submission_lend_ms += runner_lent_ms(s->sub_runner) - lent0;
    s->res->tests_memory_wait_ms += runner_memory_wait_ms(s->sub_runner) - wait0;
    session_gate_leave(s, false);
    if (rc == BW_ERR_TIMEOUT) {
        t->verdict = failure_timeout(s->p->run_ms, deadline_ms, &t->message, &t->detail);
        session_drop_sub_runner(s);
        rc = BW_OK;
    } else if (rc) {
        bw_fail(cause, rc, "submission runner on case %s: %s", c->name,
                why ? why : bw_strerror(rc));
    } else {
        t->ms = pc->res.reply.ms;
        s->res->tests_submission_plan_ms += t->ms;
        for (int k = 0; k < RUN_PHASES; k++)
            s->res->tests_submission_phase_ms[k] += pc->res.reply.phase_ms[k];
        if (pc->res.reply.phase_ms[RUN_PHASE_LAUNCH] > s->p->run_ms) {
            /* The runner's own measure of the plan (its launches, each waited for). */
            t->verdict = failure_overrun(s->p->run_ms, pc->res.reply.phase_ms[RUN_PHASE_LAUNCH],
                                         &t->message, &t->detail);
            if (pc->res.reply.fail.status == RUN_CUDA_ERROR)
                session_drop_sub_runner(s); /* its context is lost */
        } else if (pc->res.reply.fail.status != RUN_OK) {
            t->verdict = failure_verdict(&pc->sub_pl, &pc->res.reply.fail, &t->message, &t->detail);
            if (pc->res.reply.fail.status == RUN_CUDA_ERROR)
                session_drop_sub_runner(s); /* its context is lost */
        } else {
            pc->compare = true;
        }
    }
    free(why);
    return rc;
}

/* Puts pc's outcome into s->res->tests and says so in a "test" event, once its
 * comparison (if any) is done; false when the judging stops here. A failed
 * comparison sets *rc (and *cause) unless *rc already holds a failure (the
 * judging was cancelled). Frees pc. */
static bool land_case(struct session *s, struct pending_case *pc, int *rc, char **cause)
{
    struct test_outcome *t = &s->res->tests[pc->i];
    int crc = BW_OK;
    bool go_on;

    if (pc->compare) {
        crc = compare_wait(pc, *rc == BW_OK ? cause : NULL);
        s->res->tests_compare_ms += pc->compare_ms;
        if (*rc == BW_OK)
            *rc = crc;
    }
    if (crc == BW_OK) {
        free(t->message);
        json_decref(t->detail);
        t->verdict = pc->t.verdict;
        t->message = pc->t.message;
        t->detail = pc->t.detail;
        t->ms = pc->t.ms;
        pc->t.message = NULL;
        pc->t.detail = NULL;
        session_emit(s, json_pack("{s:s, s:I, s:I, s:s, s:s, s:f}", "event", "test", "index",
                                  (json_int_t)pc->i, "of", (json_int_t)s->p->n_tests, "name",
                                  s->p->tests[pc->i].name, "verdict", verdict_code(t->verdict),
                                  "ms", t->ms));
    }
    go_on = *rc == BW_OK && crc == BW_OK && t->verdict == VERDICT_ACCEPTED;
    if (go_on && pc->keep)
        reference_keep(s, pc->i, &pc->ref_pl, &pc->exp);
    pending_free(pc);
    return go_on;
}

/* Would case i wait for builds still compiling (judge.c streams a Triton compile)? */
static bool builds_pending(struct session *s, size_t config, size_t i)
{
    struct plan pl;
    char *why = NULL;
    bool pending;

    if (s->lang != LANG_TRITON || !s->sub.triton.live)
        return false;
    if (program_plan(&s->sub, config, &s->p->tests[i], &pl, &why)) {
        free(why);
        return false;
    }
    pending = !triton_program_case_final(&s->sub.triton, config, &pl);
    return pending;
}

int tests_run(struct session *s, size_t config, bool *all_passed, char **cause)
{
    struct reference_pipe *rp = &s->ref_pipe;
    struct pending_case *comparing = NULL; /* the previous case, its comparison under way */
    bool stopped = false;                  /* a case failed, or the judging did */
    int rc = BW_OK;

    *all_passed = false;
    /* Started by judge.c while the submission compiled (configuration 0), or now. */
    if (s->ref_pipe_running)
        s->res->tests_reference_ready = reference_pipe_ready(rp);
    else
        rc = reference_pipe_start(rp, s, cause);
    if (rc)
        return rc;
    s->ref_pipe_running = true;
    for (size_t i = 0; i < s->p->n_tests && !stopped; i++) {
        struct pending_case *pc;
        int run_rc;

        if (session_cancelled(s)) {
            rc = bw_fail(cause, BW_ERR_CANCELLED, "cancelled");
            break;
        }
        /* A case that must wait for its builds lets the previous one land first: a
         * failure there is the verdict, without waiting for a compile it does not need. */
        if (comparing && builds_pending(s, config, i)) {
            stopped = !land_case(s, comparing, &rc, cause);
            comparing = NULL;
            if (stopped)
                break;
        }
        pc = calloc(1, sizeof(*pc));
        if (!pc) {
            rc = bw_fail(cause, BW_ERR_NOMEM, "out of memory");
            break;
        }
        pc->t.verdict = VERDICT_ACCEPTED;
        run_rc = run_case(s, config, i, rp, pc, cause);
        /* The previous case lands first: its failure stops the judging before
         * this one counts (this one's run is wasted, never reported). */
        if (comparing) {
            stopped = !land_case(s, comparing, &rc, cause);
            comparing = NULL;
        }
        if (stopped)
            s->builds_failed = false; /* an earlier case's verdict comes first */
        if (stopped || run_rc || s->builds_failed) {
            if (!stopped)
                rc = run_rc;
            stopped = true;
            pending_free(pc);
        } else if (pc->compare) {
            compare_start(s, pc);
            comparing = pc;
        } else {
            stopped = !land_case(s, pc, &rc, cause);
        }
    }
    if (comparing)
        stopped |= !land_case(s, comparing, &rc, cause);
    *all_passed = rc == BW_OK && !stopped;
    reference_pipe_finish(rp);
    s->ref_pipe_running = false;
    return rc;
}
