#include "tests.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/error.h"
#include "common/util.h"
#include "judge/failure.h"
#include "judge/reference.h"
#include "judge/run_plan.h"
#include "judge/session.h"
#include "common/banned.h"

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
    else
        session_set_line(message, "%lld element%s of %s differ%s from the reference", bad,
                         bad == 1 ? "" : "s", name, bad == 1 ? "s" : "");
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

/* Runs case i of configuration `config` into s->res->tests[i]. */
static int run_case(struct session *s, size_t config, size_t i, struct reference_pipe *rp,
                    char **cause)
{
    const struct problem_case *c = &s->p->tests[i];
    struct test_outcome *t = &s->res->tests[i];
    struct plan ref_pl, sub_pl;
    struct expected exp;
    struct run_request rq = {.ret = RUN_RETURN_FULL};
    struct run_result res = {0};
    char *why = NULL;
    double t0;
    bool loaded;
    int rc;

    free(t->message);
    t->message = NULL;
    json_decref(t->detail);
    t->detail = NULL;
    t->ms = 0;

    t0 = now_ms();
    rc = reference_pipe_take(rp, i, &ref_pl, &exp, cause);
    s->res->tests_reference_wait_ms += now_ms() - t0;
    if (rc)
        return rc;
    if (plan_build(s->p, &s->sub.dirs, s->sub.tune_values[config], c, PLAN_SUBMISSION, &sub_pl,
                   &why)) {
        t->verdict = VERDICT_RUNTIME_ERROR;
        t->detail = json_pack("{s:s, s:s}", "kind", "plan", "message", why ? why : "");
        t->message = why;
        why = NULL;
        goto out;
    }
    rc = ensure_runner(s, config, &sub_pl, t, &loaded, cause);
    if (rc || !loaded)
        goto out;
    rc = program_run_plan(&s->sub, config, &sub_pl, s->seed, (uint32_t)i, &rq.plan, cause);
    if (rc)
        goto out;
    session_gate_enter(s, false);
    t0 = now_ms();
    rc = runner_run(s->sub_runner, &rq, &res, s->p->run_ms, &why);
    s->res->tests_submission_ms += now_ms() - t0;
    session_gate_leave(s, false);
    if (rc == BW_ERR_TIMEOUT) {
        t->verdict = failure_timeout(s->p->run_ms, &t->message, &t->detail);
        session_drop_sub_runner(s);
        rc = BW_OK;
        goto out;
    }
    if (rc) {
        bw_fail(cause, rc, "submission runner on case %s: %s", c->name,
                why ? why : bw_strerror(rc));
        goto out;
    }
    t->ms = res.reply.ms;
    if (res.reply.fail.status != RUN_OK) {
        t->verdict = failure_verdict(&sub_pl, &res.reply.fail, &t->message, &t->detail);
        if (res.reply.fail.status == RUN_CUDA_ERROR)
            session_drop_sub_runner(s); /* its context is lost */
        goto out;
    }
    t0 = now_ms();
    rc = compare_case(s, c, &sub_pl, &ref_pl, &exp, &res, t, cause);
    s->res->tests_compare_ms += now_ms() - t0;
out:
    free(why);
    run_result_release(&res);
    expected_release(&exp);
    return rc;
}

int tests_run(struct session *s, size_t config, bool *all_passed, char **cause)
{
    struct reference_pipe rp;
    int rc = reference_pipe_start(&rp, s, cause);

    *all_passed = false;
    if (rc)
        return rc;
    for (size_t i = 0; i < s->p->n_tests; i++) {
        const struct test_outcome *t = &s->res->tests[i];

        if (session_cancelled(s)) {
            rc = bw_fail(cause, BW_ERR_CANCELLED, "cancelled");
            break;
        }
        rc = run_case(s, config, i, &rp, cause);
        if (rc)
            break;
        session_emit(s, json_pack("{s:s, s:I, s:I, s:s, s:s, s:f}", "event", "test", "index",
                                  (json_int_t)i, "of", (json_int_t)s->p->n_tests, "name",
                                  s->p->tests[i].name, "verdict", verdict_code(t->verdict), "ms",
                                  t->ms));
        if (t->verdict != VERDICT_ACCEPTED)
            break;
        *all_passed = i + 1 == s->p->n_tests;
    }
    if (s->p->n_tests == 0)
        *all_passed = true;
    reference_pipe_finish(&rp);
    return rc;
}
