#include "reference.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "checks.h"
#include "session.h"
#include "tests.h"
#include "common/error.h"
#include "common/limits.h"
#include "common/log.h"
#include "common/util.h"
#include "plan/run_plan.h"
#include "common/banned.h"

void expected_release(struct expected *e)
{
    if (!e->borrowed) {
        run_result_release(&e->res);
        if (e->checks)
            checks_release(e->checks);
        free(e->checks);
    }
    memset(e, 0, sizeof(*e));
}

int reference_prepare(struct session *s, char **source, size_t *len, char **cause)
{
    struct diag_list diags = {0};
    char *path = path_join(s->p->dir, "reference.cu");
    int rc;

    if (!path)
        return bw_fail(cause, BW_ERR_NOMEM, "out of memory");
    rc = read_file(path, BW_MAX_SOURCE_BYTES, source, len, cause);
    if (rc == BW_OK &&
        program_parse(&s->ref, s->p, LANG_CUDA, *source, *len, PLAN_REFERENCE, &diags))
        rc = bw_fail(cause, BW_ERR_INTERNAL, "%s:%d:%d: %s", path,
                     diags.n ? diags.items[0].line : 0, diags.n ? diags.items[0].column : 0,
                     diags.n ? diags.items[0].msg : "invalid directives");
    diag_list_release(&diags);
    free(path);
    return rc;
}

int reference_check(struct session *s, char **cause)
{
    struct diag_list diags = {0};
    const struct compile_result *cr = &s->ref.builds[0];
    int rc = BW_OK;

    if (!cr->ok)
        return bw_fail(cause, BW_ERR_INTERNAL, "reference.cu does not compile: %s",
                       cr->failure   ? cr->failure
                       : cr->diags.n ? cr->diags.items[0].msg
                                     : "see its log");
    if (program_check_signatures(s->p, &s->ref, cr, PLAN_REFERENCE, s->job, &diags))
        rc =
            bw_fail(cause, BW_ERR_INTERNAL, "reference.cu line %d: %s",
                    diags.n ? diags.items[0].line : 0, diags.n ? diags.items[0].msg : "bad launch");
    diag_list_release(&diags);
    return rc;
}

int reference_case(struct session *s, const struct problem_case *c, uint32_t ci, bool with_inputs,
                   struct plan *pl, struct expected *exp, char **cause)
{
    struct run_request rq = {.ret = RUN_RETURN_FULL};
    struct run_result *res = &exp->res;
    int rc;

    memset(exp, 0, sizeof(*exp));
    rc = plan_build(s->p, &s->ref.dirs, s->ref.tune_values[0], c, PLAN_REFERENCE, pl, cause);
    if (rc)
        return bw_wrap(cause, BW_ERR_INTERNAL, "reference.cu");
    /* An inout buffer is generated like an input and returned like an output. */
    for (size_t b = 0; with_inputs && b < pl->n_buffers; b++)
        if (pl->buffers[b].role == PLAN_IN)
            pl->buffers[b].role = PLAN_INOUT;
    run_plan_from_plan(pl, s->seed, ci, &rq.plan);
    double t_gate = now_ms();
    session_gate_enter(s, false);
    double t_run = now_ms();
    rc = runner_run(s->ref_runner, &rq, res,
                    s->p->run_ms * BW_REFERENCE_TIME_FACTOR + BW_REFERENCE_CASE_SLACK_MS +
                        (int)tests_harness_allowance_ms(&rq),
                    cause);
    session_gate_leave(s, false);
    if (ci < REFERENCE_AHEAD && rc == BW_OK) { /* where a judging's first expected outputs wait */
        double run = now_ms() - t_run, phases = 0;
        for (int k = 0; k < RUN_PHASES; k++)
            phases += res->reply.phase_ms[k];
        log_debug("%s: reference case %s: gate %.1f ms, run %.1f ms (setup %.1f, launch %.1f, "
                  "return %.1f; outside the phases %.1f)",
                  s->job, c->name, t_run - t_gate, run, res->reply.phase_ms[RUN_PHASE_SETUP],
                  res->reply.phase_ms[RUN_PHASE_LAUNCH], res->reply.phase_ms[RUN_PHASE_RETURN],
                  run - phases);
    }
    if (rc) {
        expected_release(exp);
        return bw_wrap(cause, BW_ERR_INTERNAL, "reference.cu on case %s", c->name);
    }
    if (res->reply.fail.status != RUN_OK) {
        rc = bw_fail(cause, BW_ERR_INTERNAL, "reference.cu failed on case %s: %s %s %s", c->name,
                     run_status_name(res->reply.fail.status), res->reply.fail.error,
                     res->reply.fail.message);
        expected_release(exp);
        return rc;
    }
    for (int o = 0; o < res->reply.n_outputs; o++) {
        const struct run_output *ro = &res->reply.outputs[o];
        if (ro->offset + ro->bytes > res->data_len || ro->buf < 0 ||
            (size_t)ro->buf >= pl->n_buffers) {
            expected_release(exp);
            return bw_fail(cause, BW_ERR_PROTOCOL,
                           "reference runner returned an output outside its data");
        }
        exp->buf[ro->buf] = res->data + ro->offset;
    }
    return BW_OK;
}

int reference_sampled(struct session *s, const struct problem_case *c, uint32_t ci, struct plan *pl,
                      struct expected *exp, char **cause)
{
    /* Its own stream, not the timing's (s->pick_state, read ahead by bench.c's thread):
     * secret with the seed, and the same elements for the same seed and case. */
    uint64_t pick = s->seed ^ 0x7E57CA5E5A3D1E5ull ^ ((uint64_t)ci * 0xD1B54A32D192ED03ull);
    double t0 = now_ms();
    int rc;

    memset(exp, 0, sizeof(*exp));
    rc = plan_build(s->p, &s->ref.dirs, s->ref.tune_values[0], c, PLAN_REFERENCE, pl, cause);
    if (rc)
        return bw_wrap(cause, BW_ERR_INTERNAL, "reference.cu");
    exp->checks = calloc(1, sizeof(*exp->checks));
    if (!exp->checks)
        return bw_fail(cause, BW_ERR_NOMEM, "out of memory");
    rc = checks_choose(s->p, pl, 1, CHECKS_PICK_TEST, &pick, exp->checks, cause);
    if (rc == BW_OK)
        rc = checks_reference(s, s->ref_runner, NULL, c, pl, ci, exp->checks, cause);
    if (rc) {
        expected_release(exp);
        return rc;
    }
    log_debug("%s: reference case %s: %llu elements checked by sample, %.1f ms", s->job, c->name,
              (unsigned long long)exp->checks->span, now_ms() - t0);
    return BW_OK;
}

int reference_buffer(const struct plan *ref_pl, int t, bool scale)
{
    for (size_t b = 0; b < ref_pl->n_buffers; b++)
        if (ref_pl->buffers[b].tensor == t && ref_pl->buffers[b].is_scale == scale &&
            ref_pl->buffers[b].role != PLAN_SCRATCH)
            return (int)b;
    return -1;
}

/* ---- kept across configurations ---------------------------------------------------- */

/* A test's expected outputs kept from the judging's first configuration. */
struct kept_case {
    bool have;
    struct plan plan;
    uint8_t *data;                   /* owned: the returned bytes of a whole case */
    size_t offset[PLAN_MAX_BUFFERS]; /* where buf[b] lies in data; SIZE_MAX: not returned */
    struct checks *checks;           /* owned: a sampled case's, or NULL */
};

struct reference_kept {
    size_t bytes; /* kept so far, of BW_REFERENCE_KEEP_BYTES */
    size_t n;
    struct kept_case cases[];
};

/* The bytes from the start of res's data that its outputs take (the reply located them). */
static size_t returned_bytes(const struct run_result *res)
{
    size_t end = 0;

    for (int k = 0; k < res->reply.n_outputs; k++) {
        const struct run_output *o = &res->reply.outputs[k];
        if (o->offset + o->bytes > end)
            end = (size_t)(o->offset + o->bytes);
    }
    return end < res->data_len ? end : res->data_len;
}

void reference_keep(struct session *s, size_t i, const struct plan *pl, struct expected *exp)
{
    size_t n = s->p->n_tests, bytes;
    struct kept_case *kc;

    if (exp->borrowed || i >= n)
        return;
    if (!s->ref_kept) {
        s->ref_kept = calloc(1, sizeof(*s->ref_kept) + n * sizeof(struct kept_case));
        if (!s->ref_kept)
            return;
        s->ref_kept->n = n;
    }
    kc = &s->ref_kept->cases[i];
    if (kc->have)
        return;
    /* a sampled case: per checked element, its index, value, scale and integer at most; a
     * whole one: its outputs, not the (lent, maybe far larger) buffer they were returned in */
    bytes = exp->checks ? exp->checks->span * exp->checks->sets * 4 * sizeof(double)
                        : returned_bytes(&exp->res);
    if (s->ref_kept->bytes + bytes > BW_REFERENCE_KEEP_BYTES) {
        log_debug("%s: test %s: its expected outputs (%zu bytes) are computed again for each "
                  "configuration: over BW_REFERENCE_KEEP_BYTES",
                  s->job, s->p->tests[i].name, bytes);
        return;
    }
    for (size_t b = 0; b < PLAN_MAX_BUFFERS; b++)
        kc->offset[b] = SIZE_MAX;
    if (exp->checks) {
        kc->checks = exp->checks;
        exp->checks = NULL;
    } else {
        if (bytes) {
            if (!(kc->data = malloc(bytes)))
                return;
            memcpy(kc->data, exp->res.data, bytes);
        }
        for (size_t b = 0; b < PLAN_MAX_BUFFERS; b++)
            if (exp->buf[b])
                kc->offset[b] = (size_t)((const uint8_t *)exp->buf[b] - exp->res.data);
    }
    plan_copy(&kc->plan, pl);
    kc->have = true;
    s->ref_kept->bytes += bytes;
}

size_t reference_kept_cases(const struct session *s, size_t *bytes)
{
    size_t n = 0;

    *bytes = s->ref_kept ? s->ref_kept->bytes : 0;
    for (size_t i = 0; s->ref_kept && i < s->ref_kept->n; i++)
        n += s->ref_kept->cases[i].have;
    return n;
}

/* Lends kept case i to *pl and *exp (borrowed); false when it was not kept. */
static bool kept_lend(struct reference_kept *k, size_t i, struct plan *pl, struct expected *exp)
{
    const struct kept_case *kc;

    if (!k || i >= k->n || !k->cases[i].have)
        return false;
    kc = &k->cases[i];
    memset(exp, 0, sizeof(*exp));
    exp->borrowed = true;
    exp->checks = kc->checks;
    for (size_t b = 0; b < PLAN_MAX_BUFFERS; b++)
        if (kc->offset[b] != SIZE_MAX)
            exp->buf[b] = kc->data + kc->offset[b];
    plan_copy(pl, &kc->plan);
    return true;
}

void reference_keep_release(struct session *s)
{
    struct reference_kept *k = s->ref_kept;

    if (!k)
        return;
    for (size_t i = 0; i < k->n; i++) {
        free(k->cases[i].data);
        if (k->cases[i].checks)
            checks_release(k->cases[i].checks);
        free(k->cases[i].checks);
    }
    free(k);
    s->ref_kept = NULL;
}

/* ---- running ahead ------------------------------------------------------------------ */

static void *pipe_thread(void *arg)
{
    struct reference_pipe *rp = arg;

    pthread_mutex_lock(&rp->lock);
    while (!rp->stop && rp->produced < rp->s->p->n_tests) {
        size_t i = rp->produced;
        struct reference_slot *slot = &rp->slots[i % REFERENCE_AHEAD];
        int rc;

        if (i - rp->consumed >= REFERENCE_AHEAD) {
            pthread_cond_wait(&rp->changed, &rp->lock);
            continue;
        }
        rp->produced++;
        pthread_mutex_unlock(&rp->lock);
        if (kept_lend(rp->kept, i, &slot->plan, &slot->exp))
            rc = BW_OK;
        else if (tests_case_sampled(rp->s->p, &rp->s->p->tests[i],
                                    rp->s->cfg->full_check_max_bytes))
            rc = reference_sampled(rp->s, &rp->s->p->tests[i], (uint32_t)i, &slot->plan, &slot->exp,
                                   &slot->cause);
        else
            rc = reference_case(rp->s, &rp->s->p->tests[i], (uint32_t)i, false, &slot->plan,
                                &slot->exp, &slot->cause);
        pthread_mutex_lock(&rp->lock);
        slot->rc = rc;
        slot->ready = true;
        pthread_cond_broadcast(&rp->changed);
        if (rc)
            break; /* the judge stops at this case */
    }
    pthread_mutex_unlock(&rp->lock);
    return NULL;
}

int reference_pipe_start(struct reference_pipe *rp, struct session *s, char **cause)
{
    /* The cases ahead, the one the submission runs and the one being compared
     * (tests.c) each hold a returned buffer. No buffer is sized ahead for the
     * largest case: the runner's lent buffers grow by doubling as the cases
     * do, in this thread, between cases. Sizing them ahead made a new
     * reference runner's first case wait for all of them: on the H200, 466-490 ms
     * of vector-add's while its submission compiled in 63-89 ms. */
    _Static_assert(REFERENCE_AHEAD + 2 <= BW_RUNNER_LENT_SLOTS, "a lent buffer for each");
    memset(rp, 0, sizeof(*rp));
    rp->s = s;
    rp->kept = s->ref_kept;
    rp->lent_ms0 = runner_lent_ms(s->ref_runner);
    rp->memory_wait_ms0 = runner_memory_wait_ms(s->ref_runner);
    pthread_mutex_init(&rp->lock, NULL);
    pthread_cond_init(&rp->changed, NULL);
    if (pthread_create(&rp->thread, NULL, pipe_thread, rp) != 0) {
        pthread_mutex_destroy(&rp->lock);
        pthread_cond_destroy(&rp->changed);
        return bw_fail(cause, BW_ERR_SYSTEM, "cannot start the reference thread");
    }
    return BW_OK;
}

int reference_pipe_take(struct reference_pipe *rp, size_t i, struct plan *plan,
                        struct expected *exp, char **cause)
{
    struct reference_slot *slot = &rp->slots[i % REFERENCE_AHEAD];
    int rc;

    pthread_mutex_lock(&rp->lock);
    while (!slot->ready)
        pthread_cond_wait(&rp->changed, &rp->lock);
    rc = slot->rc;
    if (rc) {
        bw_fail(cause, rc, "%s", slot->cause ? slot->cause : bw_strerror(rc));
        free(slot->cause);
        slot->cause = NULL;
    } else {
        plan_copy(plan, &slot->plan);
        *exp = slot->exp;
        rp->reused += exp->borrowed;
    }
    memset(&slot->exp, 0, sizeof(slot->exp));
    slot->ready = false;
    rp->consumed = i + 1;
    pthread_cond_broadcast(&rp->changed);
    pthread_mutex_unlock(&rp->lock);
    return rc;
}

size_t reference_pipe_ready(struct reference_pipe *rp)
{
    size_t n = 0;

    pthread_mutex_lock(&rp->lock);
    for (int k = 0; k < REFERENCE_AHEAD; k++)
        n += rp->slots[k].ready;
    pthread_mutex_unlock(&rp->lock);
    return n;
}

void reference_pipe_finish(struct reference_pipe *rp)
{
    pthread_mutex_lock(&rp->lock);
    rp->stop = true;
    pthread_cond_broadcast(&rp->changed);
    pthread_mutex_unlock(&rp->lock);
    pthread_join(rp->thread, NULL);
    rp->s->res->tests_reference_lend_ms += runner_lent_ms(rp->s->ref_runner) - rp->lent_ms0;
    rp->s->res->tests_memory_wait_ms +=
        runner_memory_wait_ms(rp->s->ref_runner) - rp->memory_wait_ms0;
    rp->s->res->tests_reference_reused += rp->reused;
    for (int k = 0; k < REFERENCE_AHEAD; k++) {
        expected_release(&rp->slots[k].exp);
        free(rp->slots[k].cause);
    }
    pthread_mutex_destroy(&rp->lock);
    pthread_cond_destroy(&rp->changed);
}
