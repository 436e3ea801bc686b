#include "judge.h"

#include <errno.h>
#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "common/error.h"
#include "common/limits.h"
#include "common/log.h"
#include "common/philox.h"
#include "common/util.h"
#include "judge/compare.h"
#include "judge/compile.h"
#include "judge/plan.h"
#include "judge/ptx.h"
#include "judge/runner_client.h"
#include "judge/score.h"
#include "judge/stats.h"
#include "common/banned.h"

/* Case indices of the Philox counter: tests count from 0, benchmark input
 * sets from BENCH_CASE_BASE (set r of benchmark b is BASE + b*16 + r), so no
 * benchmark input repeats a test's. */
#define BENCH_CASE_BASE 4096u
#define BENCH_SETS      2u

/* How far above the measured (mma.sync) tensor peak a kernel may run before
 * its time counts as impossible: wgmma reaches about 1.25x mma.sync on an
 * H100/H200; 1.6 leaves room without letting a skipped computation pass. */
#define TENSOR_PEAK_HEADROOM 1.6

/* ---- small helpers ------------------------------------------------------------ */

static void emit(const struct judge_options *o, json_t *event)
{
    if (o && o->on_event && event)
        o->on_event(event, o->event_arg);
    json_decref(event);
}

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

static void set_why(char **why, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* Replaces *why with a *new* formatted line. */
static void set_why(char **why, const char *fmt, ...)
{
    va_list ap;
    free(*why);
    *why = NULL;
    va_start(ap, fmt);
    if (vasprintf(why, fmt, ap) < 0)
        *why = NULL;
    va_end(ap);
}

/* What a CUDA error most likely means, for learners. */
static const char *cuda_hint(const char *error)
{
    static const struct {
        const char *name, *hint;
    } hints[] = {
        {"CUDA_ERROR_ILLEGAL_ADDRESS",
         "a thread read or wrote memory outside every buffer: usually an index past "
         "the end (a missing tail check such as `if (i < n)`) or a wrong stride"},
        {"CUDA_ERROR_MISALIGNED_ADDRESS",
         "a vector access (float4, int2, ...) at an address not aligned to its "
         "size: vectorize only from aligned offsets and handle the rest as scalars"},
        {"CUDA_ERROR_ASSERT", "a device-side assert() failed"},
        {"CUDA_ERROR_ILLEGAL_INSTRUCTION",
         "the kernel executed an illegal instruction or __trap()"},
        {"CUDA_ERROR_LAUNCH_FAILED",
         "the kernel stopped with an exception (often __trap() or a bad pointer)"},
        {"CUDA_ERROR_HARDWARE_STACK_ERROR",
         "stack overflow: deep recursion or very large local arrays"},
        {"CUDA_ERROR_INVALID_PC",
         "the kernel jumped to an invalid address (corrupted stack or function pointer)"},
        {"CUDA_ERROR_OUT_OF_RESOURCES",
         "the block needs more registers or shared memory than a multiprocessor "
         "has: use fewer threads per block, __launch_bounds__ or less shared memory"},
        {"CUDA_ERROR_INVALID_VALUE",
         "the launch configuration is invalid for this GPU: block size, grid size or "
         "dynamic shared memory over the device's limits"},
        {"CUDA_ERROR_LAUNCH_OUT_OF_RESOURCES",
         "the block needs more registers than a multiprocessor has for this "
         "many threads: use fewer threads per block or __launch_bounds__"},
    };
    for (size_t i = 0; i < sizeof(hints) / sizeof(hints[0]); i++)
        if (strcmp(error, hints[i].name) == 0)
            return hints[i].hint;
    return NULL;
}

static uint64_t fresh_seed(void)
{
    uint64_t s = 0;
    while (s == 0) {
        if (getrandom(&s, sizeof(s), 0) != sizeof(s))
            s = now_ns() ^ ((uint64_t)getpid() << 32);
    }
    return s;
}

/* splitmix64: the judge's private stream for choosing checked elements. */
static uint64_t mix64(uint64_t *state)
{
    uint64_t z = (*state += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}

/* ---- plan conversion ---------------------------------------------------------- */

static enum run_role run_role_of(enum plan_role r)
{
    switch (r) {
    case PLAN_IN:
        return RUN_ROLE_IN;
    case PLAN_INOUT:
        return RUN_ROLE_INOUT;
    case PLAN_OUT:
        return RUN_ROLE_OUT;
    case PLAN_SCRATCH:
        return RUN_ROLE_SCRATCH;
    }
    return RUN_ROLE_SCRATCH;
}

static enum run_arg_kind run_arg_of(enum plan_arg_kind k)
{
    switch (k) {
    case PLAN_ARG_BUF:
        return RUN_ARG_BUF;
    case PLAN_ARG_I64:
        return RUN_ARG_I64;
    case PLAN_ARG_I32:
        return RUN_ARG_I32;
    case PLAN_ARG_U64:
        return RUN_ARG_U64;
    case PLAN_ARG_U32:
        return RUN_ARG_U32;
    case PLAN_ARG_F32:
        return RUN_ARG_F32;
    case PLAN_ARG_F64:
        return RUN_ARG_F64;
    case PLAN_ARG_INT:
        return RUN_ARG_INT;
    }
    return RUN_ARG_INT;
}

/* Copies a concrete plan into the runner protocol's form. */
static void to_run_plan(const struct plan *pl, uint64_t seed, uint32_t case_index,
                        struct run_plan *out)
{
    memset(out, 0, sizeof(*out));
    out->seed = seed;
    out->case_index = case_index;
    out->n_buffers = (int)pl->n_buffers;
    for (size_t b = 0; b < pl->n_buffers; b++) {
        struct run_buffer *rb = &out->buffers[b];
        snprintf(rb->name, sizeof(rb->name), "%s", pl->buffers[b].name);
        rb->dtype = pl->buffers[b].dtype;
        rb->count = (uint64_t)pl->buffers[b].count;
        rb->role = run_role_of(pl->buffers[b].role);
        rb->gen = pl->buffers[b].gen;
        rb->gen.dtype = (uint32_t)rb->dtype;
    }
    out->n_launches = (int)pl->n_launches;
    for (size_t l = 0; l < pl->n_launches; l++) {
        const struct plan_launch *pln = &pl->launches[l];
        struct run_launch *rl = &out->launches[l];
        snprintf(rl->kernel, sizeof(rl->kernel), "%s", pln->kernel);
        memcpy(rl->grid, pln->grid, sizeof(rl->grid));
        memcpy(rl->block, pln->block, sizeof(rl->block));
        rl->smem = pln->smem;
        rl->n_args = (int)pln->n_args;
        for (size_t a = 0; a < pln->n_args; a++) {
            const struct plan_arg *pa = &pln->args[a];
            struct run_arg *ra = &rl->args[a];
            ra->kind = run_arg_of(pa->kind);
            if (pa->name)
                snprintf(ra->name, sizeof(ra->name), "%s", pa->name);
            ra->buf = pa->buf;
            ra->i = pa->i;
            ra->u = (uint64_t)pa->i;
            ra->f = pa->f;
        }
    }
}

/* ---- one source: directives, compilation, signatures -------------------------- */

/* A source made ready to run: its directives, one cubin per @tune
 * combination, and its kernels' signatures. */
struct program {
    struct directives dirs;
    size_t n_configs;              /* @tune combinations (1 without @tune) */
    struct compile_result *builds; /* one per configuration */
    int64_t (*tune_values)[BW_MAX_TUNE_PARAMS];
};

static void program_release(struct program *pg)
{
    for (size_t i = 0; i < pg->n_configs && pg->builds; i++)
        compile_result_release(&pg->builds[i]);
    free(pg->builds);
    free(pg->tune_values);
    directives_release(&pg->dirs);
    memset(pg, 0, sizeof(*pg));
}

/* "BLOCK=128, SPLIT=2" for messages. */
static void describe_config(const struct program *pg, size_t cfg, char *out, size_t cap)
{
    size_t len = 0;
    out[0] = '\0';
    for (size_t k = 0; k < pg->dirs.n_tunes; k++) {
        int n = snprintf(out + len, cap - len, "%s%s=%lld", k ? ", " : "", pg->dirs.tunes[k].name,
                         (long long)pg->tune_values[cfg][k]);
        if (n < 0 || (size_t)n >= cap - len)
            return;
        len += (size_t)n;
    }
}

struct compile_job_arg {
    const struct judge_config *cfg;
    const char *source;
    size_t len;
    const char *filename;
    const struct program *pg;
    size_t config;
    struct compile_result *out;
    int rc;
    char *cause;
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
    rq.arch = j->cfg->gpu.arch[0] ? j->cfg->gpu.arch : j->cfg->arch;
    rq.options = opts;
    rq.n_options = n;
    rq.no_sandbox = j->cfg->no_sandbox;
    j->rc = compile_run(&rq, j->out, &j->cause);
    return NULL;
}

/*
 * Parses a source's directives (into pg) and compiles every configuration.
 * Directive errors go to *diags and give BW_ERR_INVALID. Compile results stay
 * in pg->builds for the caller to inspect.
 */
static int program_parse(struct program *pg, const struct problem *p, const char *source,
                         size_t len, enum plan_side side, struct diag_list *diags)
{
    int rc;

    memset(pg, 0, sizeof(*pg));
    rc = directives_parse(source, len, &pg->dirs, diags);
    if (rc)
        return rc;
    rc = plan_check(p, &pg->dirs, side, diags);
    if (rc)
        return rc;
    pg->n_configs = directives_tune_count(&pg->dirs);
    pg->builds = calloc(pg->n_configs, sizeof(*pg->builds));
    pg->tune_values = calloc(pg->n_configs, sizeof(*pg->tune_values));
    if (!pg->builds || !pg->tune_values)
        return BW_ERR_NOMEM;
    for (size_t c = 0; c < pg->n_configs; c++)
        directives_tune_combo(&pg->dirs, c, pg->tune_values[c]);
    return BW_OK;
}

/*
 * Checks each @launch against the kernel signatures in the compiled PTX: the
 * kernel exists (extern "C"), the argument count matches, and each
 * argument's width and kind fit the parameter. Problems go to *diags.
 */
static int check_signatures(const struct problem *p, const struct program *pg,
                            const struct compile_result *cr, enum plan_side side,
                            struct diag_list *diags)
{
    struct ptx_entries entries;
    char *cause = NULL;
    int rc = BW_OK;

    if (!cr->ptx)
        return BW_OK;
    if (ptx_parse_entries(cr->ptx, &entries, &cause)) {
        log_warn("cannot read kernel signatures from PTX: %s", cause ? cause : "?");
        free(cause);
        return BW_OK; /* the runner checks parameter sizes again before launching */
    }
    for (size_t l = 0; l < pg->dirs.n_launches; l++) {
        const struct launch *ln = &pg->dirs.launches[l];
        const struct ptx_entry *e = ptx_find(&entries, ln->kernel);
        struct plan pl;

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
        /* The kinds of arguments do not depend on the case: use the first test. */
        if (p->n_tests == 0 ||
            plan_build(p, &pg->dirs, pg->tune_values[0], &p->tests[0], side, &pl, &cause)) {
            free(cause);
            cause = NULL;
            continue;
        }
        for (size_t a = 0; a < ln->n_args; a++) {
            const struct plan_arg *pa = &pl.launches[l].args[a];
            const struct ptx_param *pp = &e->params[a];
            const char *want = NULL;
            int size = 8;

            switch (pa->kind) {
            case PLAN_ARG_BUF:
                size = 8;
                want = "a pointer";
                break;
            case PLAN_ARG_I64:
            case PLAN_ARG_U64:
                size = 8;
                want = "a 64-bit integer (long long)";
                break;
            case PLAN_ARG_I32:
            case PLAN_ARG_U32:
                size = 4;
                want = "a 32-bit integer (int)";
                break;
            case PLAN_ARG_F32:
                size = 4;
                want = "a float";
                break;
            case PLAN_ARG_F64:
                size = 8;
                want = "a double";
                break;
            case PLAN_ARG_INT:
                continue; /* literals take the parameter's width */
            }
            bool arg_float = pa->kind == PLAN_ARG_F32 || pa->kind == PLAN_ARG_F64;
            bool kind_bad = (pp->kind == PTX_PARAM_FLOAT && !arg_float) ||
                            (pp->kind == PTX_PARAM_INT && arg_float);
            if (pp->size != size || kind_bad) {
                diag_list_addf(diags, ln->args[a].line, ln->args[a].column,
                               "argument %zu '%s' of kernel '%s' is %s (%d bytes) but the "
                               "parameter is %d bytes%s",
                               a + 1, pa->name ? pa->name : "?", ln->kernel, want, size, pp->size,
                               pp->kind == PTX_PARAM_FLOAT ? " of floating point" : "");
                rc = BW_ERR_INVALID;
            }
        }
    }
    ptx_entries_release(&entries);
    return rc;
}

/* ---- the GPU side --------------------------------------------------------------- */

/* One judging session: everything a submission's judging holds. */
struct session {
    const struct judge_config *cfg;
    const struct problem *p;
    const struct judge_options *opts;
    struct judge_result *res;
    struct program sub, ref;
    struct runner *ref_runner, *sub_runner;
    uint64_t seed;
    uint64_t pick_state; /* private stream for choosing checked elements */
    double t0;
    const char *source; /* borrowed: the submission, for the goals that rebuild it */
    size_t len;
    double *cfg_ms; /* owned: median of configuration c on benchmark b at [c * n_benchmarks + b] */
    size_t best_cfg[BW_MAX_BENCHMARKS]; /* the configuration kept for each benchmark */
};

/* Where the expected outputs of one case live: the reference runner's
 * returned bytes, one pointer per plan buffer (NULL for non-outputs). */
struct expected {
    struct run_result res;             /* owns the mapping of the runner's returned outputs */
    const void *buf[PLAN_MAX_BUFFERS]; /* into res.data; NULL for buffers not returned */
};

static void expected_release(struct expected *e)
{
    run_result_release(&e->res);
    memset(e, 0, sizeof(*e));
}

/* Starts a runner; BW_ERR_NODEVICE etc. with the runner's reason in *cause. */
static int start_runner(const struct judge_config *cfg, struct runner **out, char **cause)
{
    struct runner_options opt = {.device = cfg->device, .no_sandbox = cfg->no_sandbox};
    return runner_start(&opt, out, cause);
}

/* Loads one configuration's cubin with the kernels its launches name. */
static int load_program(struct runner *r, const struct program *pg, size_t config,
                        struct run_failure *fail, char **cause)
{
    const char *kernels[BW_MAX_LAUNCHES];
    struct load_reply reply;
    int n = 0, rc;

    for (size_t l = 0; l < pg->dirs.n_launches; l++) {
        bool seen = false;
        for (int k = 0; k < n; k++)
            seen |= strcmp(kernels[k], pg->dirs.launches[l].kernel) == 0;
        if (!seen)
            kernels[n++] = pg->dirs.launches[l].kernel;
    }
    rc = runner_load(r, pg->builds[config].cubin, pg->builds[config].cubin_len, kernels, n, &reply,
                     30000, cause);
    if (rc)
        return rc;
    *fail = reply.fail;
    return BW_OK;
}

/* Runs the reference on case `c` (index ci) and keeps its outputs. */
static int reference_case(struct session *s, const struct problem_case *c, uint32_t ci,
                          bool with_inputs, struct plan *pl, struct expected *exp, char **cause)
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
    to_run_plan(pl, s->seed, ci, &rq.plan);
    rc = runner_run(s->ref_runner, &rq, res, s->p->run_ms * 10 + 10000, cause);
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

/*
 * The reference runs ahead of the submission: a thread computes the expected
 * outputs of the next REF_AHEAD cases while the submission runs the current
 * one, so the two runners (two processes, one GPU) overlap.
 */
#define REF_AHEAD 2

struct ref_slot {
    bool ready;
    int rc;
    char *cause;
    struct plan plan;
    struct expected exp;
};

struct ref_pipe {
    struct session *s;
    pthread_t thread;
    pthread_mutex_t lock;
    pthread_cond_t changed;
    size_t produced, consumed; /* cases started by the thread, taken by the judge */
    bool stop;
    struct ref_slot slots[REF_AHEAD];
};

static void *ref_pipe_thread(void *arg)
{
    struct ref_pipe *rp = arg;

    pthread_mutex_lock(&rp->lock);
    while (!rp->stop && rp->produced < rp->s->p->n_tests) {
        size_t i = rp->produced;
        struct ref_slot *slot = &rp->slots[i % REF_AHEAD];
        int rc;

        if (i - rp->consumed >= REF_AHEAD) {
            pthread_cond_wait(&rp->changed, &rp->lock);
            continue;
        }
        rp->produced++;
        pthread_mutex_unlock(&rp->lock);
        rc = reference_case(rp->s, &rp->s->p->tests[i], (uint32_t)i, false, &slot->plan, &slot->exp,
                            &slot->cause);
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

static int ref_pipe_start(struct ref_pipe *rp, struct session *s)
{
    memset(rp, 0, sizeof(*rp));
    rp->s = s;
    pthread_mutex_init(&rp->lock, NULL);
    pthread_cond_init(&rp->changed, NULL);
    if (pthread_create(&rp->thread, NULL, ref_pipe_thread, rp) != 0) {
        pthread_mutex_destroy(&rp->lock);
        pthread_cond_destroy(&rp->changed);
        return BW_ERR_SYSTEM;
    }
    return BW_OK;
}

/* Waits for case i's expected outputs and moves them to *plan and *exp. */
static int ref_pipe_take(struct ref_pipe *rp, size_t i, struct plan *plan, struct expected *exp,
                         char **cause)
{
    struct ref_slot *slot = &rp->slots[i % REF_AHEAD];
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
        *plan = slot->plan;
        *exp = slot->exp;
    }
    memset(&slot->exp, 0, sizeof(slot->exp));
    slot->ready = false;
    rp->consumed = i + 1;
    pthread_cond_broadcast(&rp->changed);
    pthread_mutex_unlock(&rp->lock);
    return rc;
}

/* Stops the thread and frees what it computed that nobody took. */
static void ref_pipe_finish(struct ref_pipe *rp)
{
    pthread_mutex_lock(&rp->lock);
    rp->stop = true;
    pthread_cond_broadcast(&rp->changed);
    pthread_mutex_unlock(&rp->lock);
    pthread_join(rp->thread, NULL);
    for (int k = 0; k < REF_AHEAD; k++) {
        expected_release(&rp->slots[k].exp);
        free(rp->slots[k].cause);
    }
    pthread_mutex_destroy(&rp->lock);
    pthread_cond_destroy(&rp->changed);
}

/* The reference buffer index holding the expected values (or the scale) of tensor t. */
static int ref_buffer(const struct plan *ref_pl, int t, bool scale)
{
    for (size_t b = 0; b < ref_pl->n_buffers; b++)
        if (ref_pl->buffers[b].tensor == t && ref_pl->buffers[b].is_scale == scale &&
            ref_pl->buffers[b].role != PLAN_SCRATCH)
            return (int)b;
    return -1;
}

/* Fills a comparison spec for output tensor t in case c. */
static int compare_spec_for(const struct problem *p, size_t t, const struct problem_case *c,
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

/* A test's verdict from a runner failure; fills the outcome's message and detail. */
static enum verdict verdict_of_failure(const struct plan *pl, const struct run_failure *f,
                                       struct test_outcome *t)
{
    const char *name =
        (f->buf >= 0 && (size_t)f->buf < pl->n_buffers) ? pl->buffers[f->buf].name : "?";
    const char *kernel = (f->launch >= 0 && (size_t)f->launch < pl->n_launches)
                             ? pl->launches[f->launch].kernel
                             : NULL;
    const char *hint;

    switch (f->status) {
    case RUN_OK:
        return VERDICT_ACCEPTED;
    case RUN_CUDA_ERROR:
    case RUN_LAUNCH_ERROR:
        hint = cuda_hint(f->error);
        if (asprintf(&t->message, "%s%s%s%s", f->error, kernel ? " in kernel " : "",
                     kernel ? kernel : "",
                     f->status == RUN_LAUNCH_ERROR ? " (the launch was refused)" : "") < 0)
            t->message = NULL;
        t->detail = json_pack("{s:s, s:s, s:s, s:i, s:s?, s:s?}", "kind",
                              f->status == RUN_CUDA_ERROR ? "cuda_error" : "launch_error", "error",
                              f->error, "message", f->message, "launch", f->launch, "kernel",
                              kernel, "hint", hint);
        return VERDICT_RUNTIME_ERROR;
    case RUN_GUARD_VIOLATION:
        if (asprintf(&t->message, "wrote %s the %s of %s (byte %lld %s it)",
                     f->after ? "past" : "before", f->after ? "end" : "start", name,
                     (long long)(f->after ? f->offset : -f->offset),
                     f->after ? "after the start of" : "before") < 0)
            t->message = NULL;
        t->detail = json_pack(
            "{s:s, s:s, s:s, s:I, s:s}", "kind", "guard", "buffer", name, "where",
            f->after ? "after" : "before", "offset", (json_int_t)f->offset, "hint",
            "an index past the end of a buffer: check the tail (if (i < n)) of every access");
        return VERDICT_MEMORY_VIOLATION;
    case RUN_INPUT_MODIFIED:
        if (asprintf(&t->message, "the input %s was changed by the kernel", name) < 0)
            t->message = NULL;
        t->detail = json_pack("{s:s, s:s, s:s}", "kind", "input_modified", "buffer", name, "hint",
                              "inputs are read-only: write only to outputs and @scratch buffers");
        return VERDICT_INPUT_MODIFIED;
    case RUN_ARG_MISMATCH:
        t->message = strdup(f->message);
        t->detail = json_pack("{s:s, s:s}", "kind", "arg_mismatch", "message", f->message);
        return VERDICT_COMPILE_ERROR;
    case RUN_ERROR:
        break;
    }
    if (asprintf(&t->message, "the runner failed: %s", f->message) < 0)
        t->message = NULL;
    return VERDICT_JUDGE_ERROR;
}

/* Compares every output of a submission run with the expected outputs. */
static int compare_case(struct session *s, const struct problem_case *c, const struct plan *sub_pl,
                        const struct plan *ref_pl, const struct expected *exp,
                        const struct run_reply *reply, const unsigned char *data, size_t len,
                        struct test_outcome *t, char **cause)
{
    json_t *outputs = json_array();
    bool ok = true;
    int rc = BW_OK;
    int64_t worst = 0;
    const char *worst_name = NULL;

    for (int o = 0; o < reply->n_outputs; o++) {
        const struct run_output *ro = &reply->outputs[o];
        const struct plan_buffer *pb;
        struct compare_spec spec;
        struct compare_report rep;
        int64_t dims[BW_MAX_DIMS];
        int rb, sb;

        if (ro->buf < 0 || (size_t)ro->buf >= sub_pl->n_buffers || ro->offset + ro->bytes > len) {
            rc = bw_fail(cause, BW_ERR_PROTOCOL, "runner returned an output outside its data");
            break;
        }
        pb = &sub_pl->buffers[ro->buf];
        if (pb->tensor < 0)
            continue;
        rb = ref_buffer(ref_pl, pb->tensor, false);
        sb = ref_buffer(ref_pl, pb->tensor, true);
        if (rb < 0 || !exp->buf[rb]) {
            rc = bw_fail(cause, BW_ERR_INTERNAL, "no expected values for output %s", pb->name);
            break;
        }
        rc = compare_spec_for(s->p, (size_t)pb->tensor, c, dims, &spec, cause);
        if (rc)
            break;
        rc = compare_output(&spec, data + ro->offset, exp->buf[rb], sb >= 0 ? exp->buf[sb] : NULL,
                            pb->count, &rep, cause);
        if (rc)
            break;
        json_array_append_new(outputs, compare_report_json(&rep, pb->name));
        if (!compare_passed(&rep)) {
            ok = false;
            if (rep.mismatches > worst) {
                worst = rep.mismatches;
                worst_name = pb->name;
            }
        }
    }
    if (rc) {
        json_decref(outputs);
        return rc;
    }
    t->detail = json_pack("{s:s, s:o}", "kind", ok ? "match" : "mismatch", "outputs", outputs);
    if (!ok) {
        t->verdict = VERDICT_WRONG_ANSWER;
        if (asprintf(&t->message, "%lld element%s of %s differ from the reference",
                     (long long)worst, worst == 1 ? "" : "s", worst_name) < 0)
            t->message = NULL;
    } else {
        t->verdict = VERDICT_ACCEPTED;
    }
    return BW_OK;
}

/* The tests of one configuration, with the reference running ahead in rp;
 * stops at the first failure. */
static int run_tests_piped(struct session *s, size_t config, struct ref_pipe *rp, bool *all_passed,
                           char **cause)
{
    struct judge_result *r = s->res;
    int rc;

    *all_passed = false;
    for (size_t i = 0; i < s->p->n_tests; i++) {
        const struct problem_case *c = &s->p->tests[i];
        struct test_outcome *t = &r->tests[i];
        struct plan ref_pl, sub_pl;
        struct expected exp;
        struct run_request rq = {.ret = RUN_RETURN_FULL};
        struct run_result res = {0};
        char *why = NULL;

        free(t->message);
        t->message = NULL;
        json_decref(t->detail);
        t->detail = NULL;

        rc = ref_pipe_take(rp, i, &ref_pl, &exp, cause);
        if (rc)
            return rc;
        if (plan_build(s->p, &s->sub.dirs, s->sub.tune_values[config], c, PLAN_SUBMISSION, &sub_pl,
                       &why)) {
            t->verdict = VERDICT_RUNTIME_ERROR;
            t->message = why;
            t->detail = json_pack("{s:s, s:s}", "kind", "plan", "message", why ? why : "");
            expected_release(&exp);
            break;
        }
        to_run_plan(&sub_pl, s->seed, (uint32_t)i, &rq.plan);
        if (!s->sub_runner) {
            rc = start_runner(s->cfg, &s->sub_runner, cause);
            if (rc == BW_OK) {
                struct run_failure fail;
                rc = load_program(s->sub_runner, &s->sub, config, &fail, cause);
                if (rc == BW_OK && fail.status != RUN_OK) {
                    t->verdict = verdict_of_failure(&sub_pl, &fail, t);
                    expected_release(&exp);
                    break;
                }
            }
            if (rc) {
                expected_release(&exp);
                return rc;
            }
        }
        rc = runner_run(s->sub_runner, &rq, &res, s->p->run_ms, &why);
        if (rc == BW_ERR_TIMEOUT) {
            run_result_release(&res);
            t->verdict = VERDICT_TIME_LIMIT;
            if (asprintf(&t->message, "the plan did not finish within %d ms", s->p->run_ms) < 0)
                t->message = NULL;
            t->detail =
                json_pack("{s:s, s:i, s:s}", "kind", "timeout", "limit_ms", s->p->run_ms, "hint",
                          "a loop that never ends (check its bounds and exit condition) or far too "
                          "much work");
            runner_free(s->sub_runner);
            s->sub_runner = NULL;
            free(why);
            expected_release(&exp);
            break;
        }
        if (rc) {
            run_result_release(&res);
            expected_release(&exp);
            bw_fail(cause, rc, "submission runner on case %s: %s", c->name,
                    why ? why : bw_strerror(rc));
            free(why);
            return rc;
        }
        t->ms = res.reply.ms;
        if (res.reply.fail.status != RUN_OK) {
            t->verdict = verdict_of_failure(&sub_pl, &res.reply.fail, t);
            if (res.reply.fail.status == RUN_CUDA_ERROR) {
                runner_free(s->sub_runner); /* its context is lost */
                s->sub_runner = NULL;
            }
            run_result_release(&res);
            expected_release(&exp);
            break;
        }
        rc = compare_case(s, c, &sub_pl, &ref_pl, &exp, &res.reply, res.data, res.data_len, t,
                          cause);
        run_result_release(&res);
        expected_release(&exp);
        if (rc)
            return rc;
        emit(s->opts, json_pack("{s:s, s:I, s:I, s:s, s:s, s:f}", "event", "test", "index",
                                (json_int_t)i, "of", (json_int_t)s->p->n_tests, "name", c->name,
                                "verdict", verdict_code(t->verdict), "ms", t->ms));
        if (t->verdict != VERDICT_ACCEPTED)
            return BW_OK;
    }
    for (size_t i = 0; i < s->p->n_tests; i++)
        if (r->tests[i].verdict != VERDICT_ACCEPTED) {
            /* the failing test stopped the loop above (break) without its event */
            emit(s->opts,
                 json_pack("{s:s, s:I, s:I, s:s, s:s}", "event", "test", "index", (json_int_t)i,
                           "of", (json_int_t)s->p->n_tests, "name", r->tests[i].name, "verdict",
                           verdict_code(r->tests[i].verdict)));
            return BW_OK;
        }
    *all_passed = true;
    return BW_OK;
}

/* Runs every test of one configuration; stops at the first failure. */
static int run_tests(struct session *s, size_t config, bool *all_passed, char **cause)
{
    struct ref_pipe rp;
    int rc = ref_pipe_start(&rp, s);

    if (rc)
        return bw_fail(cause, rc, "cannot start the reference thread");
    rc = run_tests_piped(s, config, &rp, all_passed, cause);
    ref_pipe_finish(&rp);
    return rc;
}

/* Chooses the elements checked after every timed run of an output of `count`
 * elements: all of them when few, else the first, the last and random others. */
static void pick_indices(struct session *s, int64_t count, int64_t *out, uint64_t n)
{
    if ((uint64_t)count <= n) {
        for (uint64_t j = 0; j < n; j++)
            out[j] = (int64_t)j;
        return;
    }
    out[0] = 0;
    out[1] = count - 1;
    for (uint64_t j = 2; j < n; j++)
        out[j] = (int64_t)(mix64(&s->pick_state) % (uint64_t)count);
}

/* Gathered element j of output k, for the samples compared against the reference. */
struct gather_layout {
    int n; /* outputs checked */
    int tensor[PLAN_MAX_BUFFERS];
    int sub_buf[PLAN_MAX_BUFFERS], ref_buf[PLAN_MAX_BUFFERS], scale_buf[PLAN_MAX_BUFFERS];
    uint64_t offset[PLAN_MAX_BUFFERS], count[PLAN_MAX_BUFFERS];
    uint64_t span; /* indices per input set */
};

/*
 * Times configuration `config` of `pg` (the submission, or a rebuild of it) on
 * benchmark b in s->sub_runner, which holds that configuration's cubin. A
 * timed run that failed its checks sets *verdict and a *new* one-line *why;
 * a judge failure returns a negative code with the cause.
 */
static int bench_one(struct session *s, const struct program *pg, size_t b, size_t config,
                     struct bench_outcome *bo, enum verdict *verdict, char **why_out, char **cause)
{
    const struct problem_case *c = &s->p->benchmarks[b];
    struct plan sub_pl, ref_pl;
    struct gather_layout g = {0};
    struct bench_request brq = {0};
    struct bench_result bres = {0};
    struct bench_reply *brep = &bres.reply;
    int64_t *indices = NULL;
    double *ref_values = NULL, *ref_scales = NULL; /* [set][span] */
    int64_t *ref_ints = NULL;
    uint32_t base = BENCH_CASE_BASE + (uint32_t)b * 16;
    struct test_outcome fake = {0};
    char *why = NULL;
    int rc;

    *verdict = VERDICT_ACCEPTED;
    *why_out = NULL;
    rc = plan_build(s->p, &pg->dirs, pg->tune_values[config], c, PLAN_SUBMISSION, &sub_pl, &why);
    if (rc) {
        *verdict = VERDICT_RUNTIME_ERROR;
        set_why(why_out, "benchmark %s: %s", c->name, why ? why : "invalid launch");
        free(why);
        return BW_OK;
    }
    rc = plan_build(s->p, &s->ref.dirs, s->ref.tune_values[0], c, PLAN_REFERENCE, &ref_pl, cause);
    if (rc)
        return bw_wrap(cause, BW_ERR_INTERNAL, "reference.cu");

    /* The outputs to check and where their indices lie. */
    for (size_t k = 0; k < sub_pl.n_buffers; k++) {
        const struct plan_buffer *pb = &sub_pl.buffers[k];
        if (pb->tensor < 0 || pb->role == PLAN_IN || pb->role == PLAN_SCRATCH)
            continue;
        g.tensor[g.n] = pb->tensor;
        g.sub_buf[g.n] = (int)k;
        g.ref_buf[g.n] = ref_buffer(&ref_pl, pb->tensor, false);
        g.scale_buf[g.n] = ref_buffer(&ref_pl, pb->tensor, true);
        g.count[g.n] =
            (uint64_t)pb->count < BW_CHECK_SAMPLES ? (uint64_t)pb->count : BW_CHECK_SAMPLES;
        g.offset[g.n] = g.span;
        g.span += g.count[g.n];
        g.n++;
    }
    indices = calloc(BENCH_SETS * g.span, sizeof(*indices));
    ref_values = calloc(BENCH_SETS * g.span, sizeof(*ref_values));
    ref_scales = calloc(BENCH_SETS * g.span, sizeof(*ref_scales));
    ref_ints = calloc(BENCH_SETS * g.span, sizeof(*ref_ints));
    if (!indices || !ref_values || !ref_scales || !ref_ints) {
        rc = bw_fail(cause, BW_ERR_NOMEM, "out of memory for benchmark checks");
        goto out;
    }
    for (uint32_t r = 0; r < BENCH_SETS; r++)
        for (int k = 0; k < g.n; k++)
            pick_indices(s, sub_pl.buffers[g.sub_buf[k]].count, indices + r * g.span + g.offset[k],
                         g.count[k]);

    /* The reference's values at those indices, per input set. */
    for (uint32_t r = 0; r < BENCH_SETS; r++) {
        struct run_request rq = {.ret = RUN_RETURN_GATHER};
        struct run_result res = {0};
        size_t pos = 0;

        to_run_plan(&ref_pl, s->seed, base + r, &rq.plan);
        for (int k = 0; k < g.n; k++) {
            rq.plan.gather[rq.plan.n_gather++] =
                (struct run_gather){g.ref_buf[k], g.offset[k], g.count[k]};
            if (g.scale_buf[k] >= 0)
                rq.plan.gather[rq.plan.n_gather++] =
                    (struct run_gather){g.scale_buf[k], g.offset[k], g.count[k]};
        }
        rq.indices = indices + r * g.span;
        rq.n_indices = g.span;
        rc = runner_run(s->ref_runner, &rq, &res, s->p->run_ms * 10 + 30000, cause);
        if (rc) {
            run_result_release(&res);
            bw_wrap(cause, BW_ERR_INTERNAL, "reference.cu on benchmark %s", c->name);
            rc = BW_ERR_INTERNAL;
            goto out;
        }
        if (res.reply.fail.status != RUN_OK) {
            rc = bw_fail(cause, BW_ERR_INTERNAL, "reference.cu failed on benchmark %s: %s %s",
                         c->name, res.reply.fail.error, res.reply.fail.message);
            run_result_release(&res);
            goto out;
        }
        for (int k = 0; k < g.n && rc == BW_OK; k++) {
            size_t bytes = g.count[k] * 8;
            if (pos + bytes > res.data_len) {
                rc = bw_fail(cause, BW_ERR_PROTOCOL,
                             "reference runner returned too few gathered values");
                break;
            }
            if (dtype_is_float(s->p->tensors[g.tensor[k]].dtype))
                memcpy(ref_values + r * g.span + g.offset[k], res.data + pos, bytes);
            else
                memcpy(ref_ints + r * g.span + g.offset[k], res.data + pos, bytes);
            pos += bytes;
            if (g.scale_buf[k] >= 0) {
                if (pos + bytes > res.data_len) {
                    rc = bw_fail(cause, BW_ERR_PROTOCOL,
                                 "reference runner returned too few gathered scales");
                    break;
                }
                memcpy(ref_scales + r * g.span + g.offset[k], res.data + pos, bytes);
                pos += bytes;
            }
        }
        run_result_release(&res);
        if (rc)
            goto out;
    }

    /* Time the submission. */
    to_run_plan(&sub_pl, s->seed, base, &brq.plan);
    for (int k = 0; k < g.n; k++)
        brq.plan.gather[brq.plan.n_gather++] =
            (struct run_gather){g.sub_buf[k], g.offset[k], g.count[k]};
    brq.sets = BENCH_SETS;
    brq.min_samples = BW_BENCH_MIN_SAMPLES;
    brq.max_samples = BW_BENCH_MAX_SAMPLES;
    brq.target_rse = BW_BENCH_TARGET_RSE;
    brq.budget_ms = BW_BENCH_BUDGET_MS;
    brq.warmup_ms = BW_BENCH_WARMUP_MS;
    brq.l2_flush_bytes = BW_L2_FLUSH_BYTES;
    brq.indices = indices;
    brq.n_indices = BENCH_SETS * g.span;
    rc = runner_bench(s->sub_runner, &brq, &bres,
                      (int)(BW_BENCH_WARMUP_MS + BW_BENCH_BUDGET_MS) + 4 * s->p->run_ms + 20000,
                      &why);
    if (rc == BW_ERR_TIMEOUT) {
        *verdict = VERDICT_TIME_LIMIT;
        set_why(why_out, "benchmark %s: a timed run did not finish within %d ms", c->name,
                s->p->run_ms);
        runner_free(s->sub_runner);
        s->sub_runner = NULL;
        rc = BW_OK;
        goto out;
    }
    if (rc) {
        bw_fail(cause, rc, "submission runner on benchmark %s: %s", c->name,
                why ? why : bw_strerror(rc));
        goto out;
    }
    if (brep->fail.status != RUN_OK) {
        *verdict = verdict_of_failure(&sub_pl, &brep->fail, &fake);
        set_why(why_out, "benchmark %s, timed run %lld: %s", c->name, (long long)brep->fail.sample,
                fake.message ? fake.message : run_status_name(brep->fail.status));
        if (brep->fail.status == RUN_CUDA_ERROR) {
            runner_free(s->sub_runner);
            s->sub_runner = NULL;
        }
        goto out;
    }

    /* Every timed output: no poison left, and the sampled elements right. */
    for (uint32_t smp = 0; smp < brep->n_samples && *verdict == VERDICT_ACCEPTED; smp++) {
        uint32_t set = smp % BENCH_SETS;
        const unsigned char *row = bres.gathered + (size_t)smp * brep->bytes_per_sample;
        size_t pos = 0;

        if ((size_t)(smp + 1) * brep->bytes_per_sample > bres.gathered_len) {
            rc = bw_fail(cause, BW_ERR_PROTOCOL,
                         "runner returned fewer gathered samples than timed runs");
            goto out;
        }
        for (int q = 0; q < brep->n_poison; q++) {
            const struct plan_buffer *pb = &sub_pl.buffers[brep->poison_buf[q]];
            uint64_t bad = brep->poison[(size_t)smp * brep->n_poison + q];
            if (bad && dtype_is_float(pb->dtype)) {
                *verdict = VERDICT_WRONG_ANSWER;
                set_why(why_out, "benchmark %s, timed run %u: %llu element%s of %s never written",
                        c->name, smp, (unsigned long long)bad, bad == 1 ? "" : "s", pb->name);
            }
        }
        for (int k = 0; k < g.n && *verdict == VERDICT_ACCEPTED; k++) {
            const struct plan_buffer *pb = &sub_pl.buffers[g.sub_buf[k]];
            size_t esize = dtype_size(pb->dtype);
            struct compare_sample *samples = calloc(g.count[k], sizeof(*samples));
            struct compare_spec spec;
            struct compare_report rep;
            int64_t dims[BW_MAX_DIMS];

            if (!samples) {
                rc = bw_fail(cause, BW_ERR_NOMEM, "out of memory");
                goto out;
            }
            for (uint64_t j = 0; j < g.count[k]; j++) {
                uint64_t at = set * g.span + g.offset[k] + j;
                samples[j].index = indices[at];
                memcpy(samples[j].got, row + pos + j * esize, esize);
                samples[j].ref = ref_values[at];
                samples[j].ref_i = ref_ints[at];
                samples[j].scale = ref_scales[at];
            }
            pos += g.count[k] * esize;
            rc = compare_spec_for(s->p, (size_t)g.tensor[k], c, dims, &spec, cause);
            if (rc == BW_OK)
                rc = compare_samples(&spec, samples, g.count[k], pb->count, &rep, cause);
            free(samples);
            if (rc)
                goto out;
            if (!compare_passed(&rep)) {
                *verdict = VERDICT_WRONG_ANSWER;
                set_why(why_out,
                        "benchmark %s, timed run %u: %lld of %lld checked elements of %s wrong",
                        c->name, smp, (long long)rep.mismatches, (long long)rep.checked, pb->name);
            }
        }
    }
    if (*verdict != VERDICT_ACCEPTED)
        goto out;

    /* Statistics and scores. */
    {
        struct stats_summary st;
        struct shape_score sc;
        struct roofline roof = {s->cfg->gpu.copy_gbps, s->cfg->gpu.fp32_tflops,
                                s->cfg->gpu.fp16_tflops, s->cfg->gpu.bf16_tflops};
        struct expr_binding vars[BW_MAX_SIZES + BW_MAX_SCALARS];
        struct expr_scope scope;
        double bytes = 0, flops = 0;

        rc = stats_summarize(brep->samples_ms, (int)brep->n_samples, &st, cause);
        if (rc)
            goto out;
        problem_formula_scope(s->p, c, vars, &scope);
        if (expr_eval_real(s->p->bytes, &scope, &bytes, cause) ||
            expr_eval_real(s->p->flops, &scope, &flops, cause)) {
            rc = bw_wrap(cause, BW_ERR_INTERNAL, "problem.json bytes/flops for %s", c->name);
            goto out;
        }
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
            /* The physical floor uses the tensor peaks with headroom: the
             * worker measures them with mma.sync, which wgmma outruns on
             * Hopper, so a fast wgmma kernel must not look impossible. */
            struct roofline ceiling = roof;
            struct shape_score limit;
            ceiling.fp16_tflops *= TENSOR_PEAK_HEADROOM;
            ceiling.bf16_tflops *= TENSOR_PEAK_HEADROOM;
            bo->sol_pct = sc.sol_pct;
            if (score_shape(&ceiling, s->p->peak, bytes, flops, st.median, &limit, NULL) == BW_OK &&
                limit.impossible) {
                *verdict = VERDICT_WRONG_ANSWER;
                set_why(why_out,
                        "benchmark %s: %.4f ms is below the physical floor of %.4f ms for this "
                        "GPU: the kernel cannot have done the work",
                        c->name, st.median, limit.floor_ms);
            }
        }
    }
    rc = BW_OK;
out:
    free(fake.message);
    json_decref(fake.detail);
    free(why);
    free(indices);
    free(ref_values);
    free(ref_scales);
    free(ref_ints);
    bench_result_release(&bres);
    return rc;
}

static int run_benchmarks(struct session *s, char **cause)
{
    struct judge_result *r = s->res;
    char *why = NULL;
    int rc;

    free(s->cfg_ms);
    s->cfg_ms = calloc(s->sub.n_configs * (s->p->n_benchmarks ? s->p->n_benchmarks : 1),
                       sizeof(*s->cfg_ms));
    if (!s->cfg_ms)
        return bw_fail(cause, BW_ERR_NOMEM, "out of memory");

    for (size_t b = 0; b < s->p->n_benchmarks; b++) {
        struct bench_outcome best = {0};
        bool have = false;

        for (size_t cfg = 0; cfg < s->sub.n_configs; cfg++) {
            struct bench_outcome bo = {0};
            enum verdict v;

            if (s->sub.n_configs > 1) {
                struct run_failure fail;
                runner_free(s->sub_runner);
                s->sub_runner = NULL;
                rc = start_runner(s->cfg, &s->sub_runner, cause);
                if (rc == BW_OK)
                    rc = load_program(s->sub_runner, &s->sub, cfg, &fail, cause);
                if (rc)
                    return rc;
            }
            rc = bench_one(s, &s->sub, b, cfg, &bo, &v, &why, cause);
            if (rc || v != VERDICT_ACCEPTED) {
                free(bo.stop);
                free(best.stop);
                r->verdict = v;
                if (why)
                    set_message(r, "%s", why);
                free(why);
                return rc;
            }
            s->cfg_ms[cfg * s->p->n_benchmarks + b] = bo.median_ms;
            if (!have || bo.median_ms < best.median_ms) {
                free(best.stop);
                best = bo;
                s->best_cfg[b] = cfg;
                have = true;
            } else {
                free(bo.stop);
            }
        }
        best.name = strdup(s->p->benchmarks[b].name);
        r->benches[b] = best;
        r->n_benches = b + 1;
        emit(s->opts, json_pack("{s:s, s:I, s:I, s:s, s:f, s:f, s:f, s:f}", "event", "bench",
                                "index", (json_int_t)b, "of", (json_int_t)s->p->n_benchmarks,
                                "name", best.name, "median_ms", best.median_ms, "gbps", best.gbps,
                                "tflops", best.tflops, "sol_pct", best.sol_pct));
    }
    return BW_OK;
}

/* ---- the pipeline ------------------------------------------------------------- */

/* Compiles every configuration of `pg`, two compilers at a time. */
static int compile_all(const struct judge_config *cfg, struct program *pg, const char *source,
                       size_t len, const char *filename, char **cause)
{
    struct compile_job_arg *jobs = calloc(pg->n_configs, sizeof(*jobs));
    pthread_t *threads = calloc(pg->n_configs, sizeof(*threads));
    bool *started = calloc(pg->n_configs, sizeof(*started));
    int rc = BW_OK;

    if (!jobs || !threads || !started) {
        free(jobs);
        free(threads);
        free(started);
        return bw_fail(cause, BW_ERR_NOMEM, "out of memory");
    }
    for (size_t c = 0; c < pg->n_configs; c += 2) {
        for (size_t k = c; k < c + 2 && k < pg->n_configs; k++) {
            jobs[k] = (struct compile_job_arg){cfg, source,         len, filename, pg,
                                               k,   &pg->builds[k], 0,   NULL};
            started[k] = pthread_create(&threads[k], NULL, compile_one, &jobs[k]) == 0;
            if (!started[k])
                compile_one(&jobs[k]);
        }
        for (size_t k = c; k < c + 2 && k < pg->n_configs; k++)
            if (started[k])
                pthread_join(threads[k], NULL);
    }
    for (size_t k = 0; k < pg->n_configs; k++) {
        if (jobs[k].rc && rc == BW_OK) {
            rc = jobs[k].rc;
            bw_fail(cause, rc, "%s", jobs[k].cause ? jobs[k].cause : bw_strerror(rc));
        }
        free(jobs[k].cause);
    }
    free(jobs);
    free(threads);
    free(started);
    return rc;
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

/* Everything compiled in the background while the runners start. */
struct build_job {
    struct session *s;
    const char *source, *ref_source;
    size_t len, ref_len;
    int rc, ref_rc;
    char *cause, *ref_cause;
    double ms;
};

static void *build_reference(void *arg)
{
    struct build_job *j = arg;
    j->ref_rc = compile_all(j->s->cfg, &j->s->ref, j->ref_source, j->ref_len, "reference.cu",
                            &j->ref_cause);
    return NULL;
}

/* Compiles the submission and, at the same time, the reference. */
static void *build_thread(void *arg)
{
    struct build_job *j = arg;
    double t = now_ms();
    pthread_t ref;
    bool ref_started = pthread_create(&ref, NULL, build_reference, j) == 0;

    j->rc = compile_all(j->s->cfg, &j->s->sub, j->source, j->len, "submission.cu", &j->cause);
    j->ms = now_ms() - t;
    if (ref_started)
        pthread_join(ref, NULL);
    else
        build_reference(j);
    return NULL;
}

/* Reads and parses reference.cu; a problem in it is the problem's fault (Judge Error). */
static int reference_prepare(struct session *s, char **source, size_t *len, char **cause)
{
    struct diag_list diags = {0};
    char *path = path_join(s->p->dir, "reference.cu");
    int rc;

    if (!path)
        return bw_fail(cause, BW_ERR_NOMEM, "out of memory");
    rc = read_file(path, BW_MAX_SOURCE_BYTES, source, len, cause);
    if (rc == BW_OK && program_parse(&s->ref, s->p, *source, *len, PLAN_REFERENCE, &diags))
        rc = bw_fail(cause, BW_ERR_INTERNAL, "%s:%d:%d: %s", path,
                     diags.n ? diags.items[0].line : 0, diags.n ? diags.items[0].column : 0,
                     diags.n ? diags.items[0].msg : "invalid directives");
    diag_list_release(&diags);
    free(path);
    return rc;
}

/* After compiling: the reference must have compiled and match its kernels. */
static int reference_check(struct session *s, char **cause)
{
    struct diag_list diags = {0};
    const struct compile_result *cr = &s->ref.builds[0];
    int rc = BW_OK;

    if (!cr->ok)
        return bw_fail(cause, BW_ERR_INTERNAL, "reference.cu does not compile: %s",
                       cr->failure   ? cr->failure
                       : cr->diags.n ? cr->diags.items[0].msg
                                     : "see its log");
    if (check_signatures(s->p, &s->ref, cr, PLAN_REFERENCE, &diags))
        rc =
            bw_fail(cause, BW_ERR_INTERNAL, "reference.cu line %d: %s",
                    diags.n ? diags.items[0].line : 0, diags.n ? diags.items[0].msg : "bad launch");
    diag_list_release(&diags);
    return rc;
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

/* The first test that failed decides the verdict. */
static void verdict_from_tests(struct judge_result *r, const struct program *sub, size_t config)
{
    char cfgname[256];

    for (size_t i = 0; i < r->n_tests; i++) {
        const struct test_outcome *t = &r->tests[i];
        if (t->verdict == VERDICT_ACCEPTED || t->verdict == VERDICT_NONE)
            continue;
        r->verdict = t->verdict;
        describe_config(sub, config, cfgname, sizeof(cfgname));
        set_message(r, "test %s%s%s: %s", t->name, cfgname[0] ? " with " : "", cfgname,
                    t->message ? t->message : verdict_name(t->verdict));
        return;
    }
}

/* Checks every compiled configuration; sets Compile Error on the first bad one. */
static void review_builds(struct session *s)
{
    struct judge_result *out = s->res;

    for (size_t c = 0; c < s->sub.n_configs; c++) {
        const struct compile_result *cr = &s->sub.builds[c];
        char cfgname[256];

        if (c == 0) {
            free(out->compile_log);
            out->compile_log = strdup(cr->log ? cr->log : "");
            collect_kernels(out, cr);
            take_diags(out, cr);
        }
        describe_config(&s->sub, c, cfgname, sizeof(cfgname));
        if (!cr->ok) {
            if (c > 0)
                take_diags(out, cr);
            out->verdict = VERDICT_COMPILE_ERROR;
            set_message(out, "%s%s%s", cr->failure ? cr->failure : "the source does not compile",
                        cfgname[0] ? " with " : "", cfgname);
            return;
        }
        if (check_signatures(s->p, &s->sub, cr, PLAN_SUBMISSION, &out->diags)) {
            out->verdict = VERDICT_COMPILE_ERROR;
            set_message(out, "%s", out->diags.items[out->diags.n - 1].msg);
            return;
        }
    }
}

/* ---- learning goals ------------------------------------------------------------- */

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
        describe_config(pg, c, cn->text[c], sizeof(cn->text[c]));
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

static void bench_medians(const struct session *s, double *ms)
{
    for (size_t b = 0; b < s->p->n_benchmarks; b++)
        ms[b] = b < s->res->n_benches ? s->res->benches[b].median_ms : 0;
}

static int goal_sass(struct session *s, const struct goal_spec *g, struct goal_outcome *o)
{
    size_t cfgs[BW_MAX_BENCHMARKS], n = scored_configs(s, cfgs);
    struct sass_scan scans[BW_MAX_BENCHMARKS];
    const char *names[BW_MAX_BENCHMARKS], *launched[BW_MAX_LAUNCHES];
    char text[BW_MAX_BENCHMARKS][256];
    size_t n_launched = 0;
    struct sass_tool tool;
    char *why = NULL;
    int rc = BW_OK;

    if (sass_find_tool(&tool, &why)) {
        goal_outcome_set(o, GOAL_STATUS_SKIPPED, "%s", why ? why : "no disassembler");
        free(why);
        return BW_OK;
    }
    for (size_t l = 0; l < s->sub.dirs.n_launches; l++) {
        bool seen = false;
        for (size_t k = 0; k < n_launched; k++)
            seen |= strcmp(launched[k], s->sub.dirs.launches[l].kernel) == 0;
        if (!seen)
            launched[n_launched++] = s->sub.dirs.launches[l].kernel;
    }
    for (size_t i = 0; i < n; i++) {
        const struct compile_result *cr = &s->sub.builds[cfgs[i]];
        const char *entries[64];
        size_t n_entries = 0;
        char *listing = NULL;
        bool truncated;

        describe_config(&s->sub, cfgs[i], text[i], sizeof(text[i]));
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
            log_warn("the disassembly of %s was cut at %d bytes", s->p->id, BW_SASS_OUTPUT_BYTES);
    }
    return goal_eval_sass(g, scans, n, names, o);
}

/* Does the rebuilt combination (consts overridden, tune values `tv`) differ
 * from the submitted configuration `cfg`? */
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

/*
 * rebuild: compiles the submission again with g's macros in place of its own
 * @const / @tune values (each benchmark keeps its best configuration
 * otherwise), times it on g's shapes with the same checks of every timed
 * output, and compares with the submission's times.
 */
static int goal_rebuild(struct session *s, const struct goal_spec *g, struct goal_outcome *o)
{
    const struct problem *p = s->p;
    double submitted[BW_MAX_BENCHMARKS] = {0}, rebuilt[BW_MAX_BENCHMARKS] = {0};
    const char *cfgnames[BW_MAX_BENCHMARKS] = {0};
    char cfgtext[BW_MAX_BENCHMARKS][256], defs[512];
    size_t combo_of[BW_MAX_BENCHMARKS], n_combos = 0, len = 0;
    struct program v;
    struct diag_list diags = {0};
    char *why = NULL;
    int rc = BW_OK;

    memset(&v, 0, sizeof(v));
    defs[0] = '\0';
    for (size_t k = 0; k < g->n_defines; k++) {
        int w = snprintf(defs + len, sizeof(defs) - len, "%s%s=%lld", k ? ", " : "",
                         g->defines[k].name, (long long)g->defines[k].value);
        if (w > 0 && (size_t)w < sizeof(defs) - len)
            len += (size_t)w;
    }
    for (size_t k = 0; k < g->n_defines; k++) {
        bool declared = false;
        for (size_t c = 0; c < s->sub.dirs.n_consts; c++)
            declared |= strcmp(s->sub.dirs.consts[c].name, g->defines[k].name) == 0;
        for (size_t t = 0; t < s->sub.dirs.n_tunes; t++)
            declared |= strcmp(s->sub.dirs.tunes[t].name, g->defines[k].name) == 0;
        if (!declared) {
            goal_outcome_set(o, GOAL_STATUS_FAILED,
                             "declare %s with @const or @tune: this goal rebuilds the kernel with "
                             "%s and compares the times",
                             g->defines[k].name, defs);
            return BW_OK;
        }
    }
    for (size_t b = 0; b < p->n_benchmarks; b++) {
        if (!g->shapes[b] || b >= s->res->n_benches)
            continue;
        submitted[b] = s->res->benches[b].median_ms;
        describe_config(&s->sub, s->best_cfg[b], cfgtext[b], sizeof(cfgtext[b]));
        cfgnames[b] = cfgtext[b];
    }

    /* One rebuilt configuration per distinct best configuration that the macros change. */
    rc = program_parse(&v, p, s->source, s->len, PLAN_SUBMISSION, &diags);
    diag_list_release(&diags);
    if (rc)
        goto judge_side;
    free(v.builds);
    free(v.tune_values);
    v.builds = calloc(p->n_benchmarks ? p->n_benchmarks : 1, sizeof(*v.builds));
    v.tune_values = calloc(p->n_benchmarks ? p->n_benchmarks : 1, sizeof(*v.tune_values));
    v.n_configs = 0;
    if (!v.builds || !v.tune_values) {
        rc = BW_ERR_NOMEM;
        goto judge_side;
    }
    for (size_t c = 0; c < v.dirs.n_consts; c++)
        for (size_t k = 0; k < g->n_defines; k++)
            if (strcmp(v.dirs.consts[c].name, g->defines[k].name) == 0)
                v.dirs.consts[c].value = g->defines[k].value;
    for (size_t b = 0; b < p->n_benchmarks; b++) {
        size_t cfg = s->best_cfg[b], k;
        int64_t want[BW_MAX_TUNE_PARAMS];
        if (!submitted[b])
            continue;
        if (!rebuild_differs(s, g, cfg)) {
            rebuilt[b] = submitted[b]; /* the submission already is that build */
            combo_of[b] = SIZE_MAX;
            continue;
        }
        memcpy(want, s->sub.tune_values[cfg], sizeof(want));
        for (size_t t = 0; t < v.dirs.n_tunes; t++)
            for (size_t d = 0; d < g->n_defines; d++)
                if (strcmp(v.dirs.tunes[t].name, g->defines[d].name) == 0)
                    want[t] = g->defines[d].value;
        for (k = 0; k < n_combos; k++)
            if (memcmp(v.tune_values[k], want, sizeof(want)) == 0)
                break;
        if (k == n_combos)
            memcpy(v.tune_values[n_combos++], want, sizeof(want));
        combo_of[b] = k;
    }
    v.n_configs = n_combos;
    if (n_combos > 0) {
        rc = compile_all(s->cfg, &v, s->source, s->len, "submission.cu", &why);
        if (rc)
            goto judge_side;
    }
    for (size_t k = 0; k < n_combos; k++) {
        const struct compile_result *cr = &v.builds[k];
        if (!cr->ok) {
            const char *first = cr->failure ? cr->failure : NULL;
            for (size_t i = 0; !first && i < cr->diags.n; i++)
                if (compile_diag_is_error(&cr->diags.items[i]))
                    first = cr->diags.items[i].msg;
            goal_outcome_set(o, GOAL_STATUS_FAILED, "the kernel does not compile with %s: %s", defs,
                             first ? first : "see the compiler's log");
            goto out;
        }
        if (check_signatures(p, &v, cr, PLAN_SUBMISSION, &diags)) {
            goal_outcome_set(o, GOAL_STATUS_FAILED, "built with %s: %s", defs,
                             diags.n ? diags.items[0].msg : "its kernels do not match @launch");
            goto out;
        }
    }
    for (size_t k = 0; k < n_combos; k++) {
        struct run_failure fail;

        runner_free(s->sub_runner);
        s->sub_runner = NULL;
        rc = start_runner(s->cfg, &s->sub_runner, &why);
        if (rc == BW_OK)
            rc = load_program(s->sub_runner, &v, k, &fail, &why);
        if (rc)
            goto judge_side;
        if (fail.status != RUN_OK) {
            goal_outcome_set(o, GOAL_STATUS_FAILED,
                             "built with %s, the kernel cannot be loaded: %s", defs, fail.message);
            goto out;
        }
        for (size_t b = 0; b < p->n_benchmarks; b++) {
            struct bench_outcome bo = {0};
            enum verdict verdict;
            char *fail_why = NULL;

            if (!submitted[b] || combo_of[b] != k)
                continue;
            rc = bench_one(s, &v, b, k, &bo, &verdict, &fail_why, &why);
            free(bo.stop);
            if (rc) {
                free(fail_why);
                goto judge_side;
            }
            if (verdict != VERDICT_ACCEPTED) {
                goal_outcome_set(o, GOAL_STATUS_FAILED, "built with %s, %s: %s", defs,
                                 verdict_name(verdict), fail_why ? fail_why : "a timed run failed");
                free(fail_why);
                goto out;
            }
            rebuilt[b] = bo.median_ms;
        }
    }
    rc = goal_eval_rebuild(g, p, submitted, rebuilt, cfgnames, o);
    goto out;

judge_side:
    goal_outcome_set(o, GOAL_STATUS_SKIPPED, "the judge could not rebuild and time it: %s",
                     why ? why : bw_strerror(rc));
    rc = BW_OK;
out:
    diag_list_release(&diags);
    free(why);
    program_release(&v);
    return rc;
}

/* Runs every goal of the problem into s->res->goals. A goal the judge cannot
 * check here is skipped with the reason; only running out of memory fails. */
static int run_goals(struct session *s, char **cause)
{
    const struct problem *p = s->p;
    struct judge_result *r = s->res;
    double medians[BW_MAX_BENCHMARKS], sols[BW_MAX_BENCHMARKS];
    int rc = BW_OK;

    r->goals = calloc(p->n_goals, sizeof(*r->goals));
    if (!r->goals)
        return bw_fail(cause, BW_ERR_NOMEM, "out of memory");
    bench_medians(s, medians);
    for (size_t b = 0; b < p->n_benchmarks; b++)
        sols[b] = b < r->n_benches ? r->benches[b].sol_pct : 0;
    for (size_t i = 0; i < p->n_goals && rc == BW_OK; i++) {
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
        emit(s->opts,
             json_pack("{s:s, s:I, s:I, s:s, s:s, s:s}", "event", "goal", "index", (json_int_t)i,
                       "of", (json_int_t)p->n_goals, "name", o->name, "kind",
                       goal_kind_name(o->kind), "status", goal_status_name(o->status)));
    }
    if (rc)
        return bw_fail(cause, rc, "learning goals: %s", bw_strerror(rc));
    return BW_OK;
}

int judge_submission(const struct judge_config *cfg, const struct problem *p, const char *source,
                     size_t len, const struct judge_options *opts, struct judge_result *out,
                     char **cause)
{
    struct session s = {.cfg = cfg, .p = p, .opts = opts, .res = out};
    struct build_job build = {.s = &s, .source = source, .len = len};
    char *ref_source = NULL, *why = NULL, *ref_why = NULL, *sub_why = NULL;
    int ref_start = BW_OK, sub_start = BW_OK, rc;
    pthread_t builder;
    bool building = false, passed;
    double tests_t0;

    s.t0 = now_ms();
    s.source = source;
    s.len = len;
    rc = init_result(out, p, cfg);
    if (rc) {
        judge_result_release(out);
        return bw_fail(cause, rc, "out of memory");
    }
    s.seed = opts && opts->seed ? opts->seed : fresh_seed();
    s.pick_state = s.seed ^ 0x5DEECE66Dull;
    out->seed = s.seed;
    emit(opts, json_pack("{s:s}", "event", "compiling"));

    /* 1. Directives and names: a Compile Error at its line and column. */
    if (program_parse(&s.sub, p, source, len, PLAN_SUBMISSION, &out->diags)) {
        out->verdict = VERDICT_COMPILE_ERROR;
        set_message(out, "%s",
                    out->diags.n ? out->diags.items[0].msg : "the directives are invalid");
        goto done;
    }
    rc = reference_prepare(&s, &ref_source, &build.ref_len, &why);
    if (rc) {
        out->verdict = VERDICT_JUDGE_ERROR;
        set_message(out, "the problem's reference: %s", why ? why : bw_strerror(rc));
        goto done;
    }
    build.ref_source = ref_source;

    /* 2. Compile in the background while the runners start CUDA here (a
     * runner dies with the thread that started it, so this thread starts them). */
    building = pthread_create(&builder, NULL, build_thread, &build) == 0;
    if (!building)
        build_thread(&build);
    if (cfg->have_gpu) {
        double t = now_ms();
        ref_start = start_runner(cfg, &s.ref_runner, &ref_why);
        sub_start = start_runner(cfg, &s.sub_runner, &sub_why);
        out->runners_ms = now_ms() - t;
    }
    if (building)
        pthread_join(builder, NULL);
    building = false;
    out->compile_ms = build.ms;
    if (build.rc) {
        rc = build.rc;
        bw_fail(cause, rc, "%s", build.cause ? build.cause : bw_strerror(rc));
        goto fail;
    }
    review_builds(&s);
    emit(opts, json_pack("{s:s, s:b, s:f, s:O}", "event", "compiled", "ok",
                         out->verdict != VERDICT_COMPILE_ERROR, "ms", out->compile_ms, "kernels",
                         out->kernels ? out->kernels : json_null()));
    if (out->verdict == VERDICT_COMPILE_ERROR)
        goto done;
    if (build.ref_rc || reference_check(&s, &why)) {
        out->verdict = VERDICT_JUDGE_ERROR;
        set_message(out, "the problem's reference failed: %s",
                    build.ref_rc ? (build.ref_cause ? build.ref_cause : bw_strerror(build.ref_rc))
                                 : why);
        goto done;
    }
    if (!cfg->have_gpu) {
        out->executed = false;
        set_message(out, "compiled; running needs a GPU (%s)",
                    cfg->no_gpu_reason ? cfg->no_gpu_reason : "none here");
        goto done;
    }

    /* 3. Runners: a failure to start one is the judge's, not the learner's. */
    if (ref_start || sub_start) {
        out->verdict = VERDICT_JUDGE_ERROR;
        set_message(out, "could not start a GPU runner: %s",
                    ref_why   ? ref_why
                    : sub_why ? sub_why
                              : "unknown");
        goto done;
    }
    if (strcmp(runner_gpu(s.sub_runner)->uuid, cfg->gpu.uuid) != 0) {
        /* The cached figures belong to another GPU: keep judging, score nothing. */
        log_warn("the GPU's cached figures are for %s but this is %s: run `judged calibrate`",
                 cfg->gpu.uuid, runner_gpu(s.sub_runner)->uuid);
        out->gpu.calibrated = false;
    }
    {
        struct run_failure fail;
        rc = load_program(s.ref_runner, &s.ref, 0, &fail, &why);
        if (rc || fail.status != RUN_OK) {
            out->verdict = VERDICT_JUDGE_ERROR;
            set_message(out, "loading reference.cu failed: %s",
                        rc ? (why ? why : bw_strerror(rc)) : fail.message);
            goto done;
        }
    }
    out->executed = true;

    /* 4. Tests, for every configuration, each in a fresh submission runner. */
    tests_t0 = now_ms();
    for (size_t c = 0; c < s.sub.n_configs; c++) {
        if (c > 0) {
            runner_free(s.sub_runner);
            s.sub_runner = NULL;
        }
        if (s.sub_runner) {
            struct run_failure fail;
            rc = load_program(s.sub_runner, &s.sub, c, &fail, &why);
            if (rc)
                goto judge_error;
            if (fail.status != RUN_OK) {
                struct plan none = {0};
                out->tests[0].verdict = verdict_of_failure(&none, &fail, &out->tests[0]);
                verdict_from_tests(out, &s.sub, c);
                goto done;
            }
        }
        rc = run_tests(&s, c, &passed, &why);
        out->tests_ms = now_ms() - tests_t0;
        if (rc)
            goto judge_error;
        if (!passed) {
            verdict_from_tests(out, &s.sub, c);
            goto done;
        }
    }

    /* 5. Timing (Submit). */
    out->verdict = VERDICT_ACCEPTED;
    if (!(opts && opts->tests_only) && p->n_benchmarks > 0) {
        double sols[BW_MAX_BENCHMARKS], bench_t0 = now_ms();
        rc = run_benchmarks(&s, &why);
        out->bench_ms = now_ms() - bench_t0;
        if (rc)
            goto judge_error;
        if (out->verdict != VERDICT_ACCEPTED)
            goto done;
        for (size_t b = 0; b < out->n_benches; b++)
            sols[b] = out->benches[b].sol_pct;
        out->score = out->gpu.calibrated ? score_problem(sols, out->n_benches) : 0;
    }

    /* 6. Learning goals (Submit, Accepted): beside the verdict, never changing it. */
    if (!(opts && opts->tests_only) && p->n_goals > 0) {
        double goals_t0 = now_ms();
        if (run_goals(&s, &why)) {
            log_warn("%s: %s", p->id, why ? why : "learning goals failed");
            free(why);
            why = NULL;
        }
        out->goals_ms = now_ms() - goals_t0;
    }
    set_message(
        out, "all %zu tests passed%s", p->n_tests,
        (opts && opts->tests_only) || !p->n_benchmarks ? "" : " and every timed run was checked");
    goto done;

judge_error:
    out->verdict = VERDICT_JUDGE_ERROR;
    set_message(out, "%s", why ? why : bw_strerror(rc));
done:
    rc = BW_OK;
fail:
    if (building)
        pthread_join(builder, NULL);
    runner_free(s.ref_runner);
    runner_free(s.sub_runner);
    program_release(&s.sub);
    program_release(&s.ref);
    free(s.cfg_ms);
    free(build.cause);
    free(build.ref_cause);
    free(ref_source);
    free(ref_why);
    free(sub_why);
    free(why);
    if (rc) {
        judge_result_release(out);
        return rc;
    }
    out->total_ms = now_ms() - s.t0;
    emit(opts, json_pack("{s:s, s:s, s:s?}", "event", "done", "verdict", verdict_code(out->verdict),
                         "message", out->message));
    return BW_OK;
}

/* ---- dumping cases for the independent oracle -------------------------------------- */

static const char *dump_role(const struct plan_buffer *b, const struct problem *p)
{
    if (b->is_scale)
        return "scale";
    if (b->tensor >= 0 && p->tensors[b->tensor].role == ROLE_IN)
        return "in";
    return b->tensor >= 0 && p->tensors[b->tensor].role == ROLE_INOUT ? "inout" : "out";
}

/* Writes case i's inputs (as generated) and the reference's outputs to dir. */
static int dump_case(struct session *s, size_t i, const char *dir, char **cause)
{
    const struct problem_case *c = &s->p->tests[i];
    struct plan pl;
    struct expected exp;
    json_t *meta = NULL, *tensors = json_array(), *sizes = json_object(), *scalars = json_object();
    char *text = NULL;
    int rc;

    rc = reference_case(s, c, (uint32_t)i, true, &pl, &exp, cause);
    if (rc)
        goto out;
    if (mkdir(dir, 0755) < 0 && errno != EEXIST) {
        rc = bw_fail(cause, BW_ERR_IO, "cannot create %s: %s", dir, strerror(errno));
        goto out;
    }
    for (size_t b = 0; b < pl.n_buffers; b++) {
        const struct plan_buffer *pb = &pl.buffers[b];
        int64_t dims[BW_MAX_DIMS];
        json_t *shape = json_array();
        char file[BW_MAX_NAME + 16], *path;

        if (pb->tensor < 0 || !exp.buf[b]) {
            json_decref(shape);
            continue;
        }
        rc = problem_tensor_shape(s->p, (size_t)pb->tensor, c, dims, cause);
        for (int d = 0; rc == BW_OK && d < s->p->tensors[pb->tensor].ndim; d++)
            json_array_append_new(shape, json_integer(dims[d]));
        snprintf(file, sizeof(file), "%s.bin", pb->name);
        path = path_join(dir, file);
        if (rc == BW_OK && !path)
            rc = bw_fail(cause, BW_ERR_NOMEM, "out of memory");
        if (rc == BW_OK)
            rc = write_file_atomic(path, exp.buf[b], plan_buffer_bytes(pb), cause);
        free(path);
        if (rc) {
            json_decref(shape);
            goto out;
        }
        json_array_append_new(tensors, json_pack("{s:s, s:s, s:o, s:s, s:s}", "name", pb->name,
                                                 "dtype", dtype_name(pb->dtype), "shape", shape,
                                                 "role", dump_role(pb, s->p), "file", file));
    }
    for (size_t k = 0; k < s->p->n_sizes; k++)
        json_object_set_new(sizes, s->p->size_names[k], json_integer(c->sizes[k]));
    for (size_t k = 0; k < s->p->n_scalars; k++)
        json_object_set_new(scalars, s->p->scalars[k].name, json_real(c->scalars[k]));
    meta = json_pack("{s:s, s:I, s:O, s:O, s:O}", "name", c->name, "index", (json_int_t)i, "sizes",
                     sizes, "scalars", scalars, "tensors", tensors);
    text = meta ? json_dumps(meta, JSON_INDENT(2)) : NULL;
    {
        char *path = path_join(dir, "case.json");
        rc = text && path ? write_file_atomic(path, text, strlen(text), cause)
                          : bw_fail(cause, BW_ERR_NOMEM, "out of memory");
        free(path);
    }
out:
    free(text);
    json_decref(meta);
    json_decref(tensors);
    json_decref(sizes);
    json_decref(scalars);
    expected_release(&exp);
    return rc;
}

int judge_dump(const struct judge_config *cfg, const struct problem *p, uint64_t seed,
               const char *out_dir, uint64_t max_case_bytes, size_t *dumped, char **cause)
{
    struct session s = {.cfg = cfg, .p = p};
    char *ref_source = NULL;
    size_t ref_len = 0;
    struct run_failure fail;
    int rc;

    *dumped = 0;
    if (!cfg->have_gpu)
        return bw_fail(cause, BW_ERR_NODEVICE,
                       "dumping cases runs the reference: it needs a GPU (%s)",
                       cfg->no_gpu_reason ? cfg->no_gpu_reason : "none here");
    s.seed = seed ? seed : fresh_seed();
    rc = reference_prepare(&s, &ref_source, &ref_len, cause);
    if (rc == BW_OK)
        rc = compile_all(cfg, &s.ref, ref_source, ref_len, "reference.cu", cause);
    if (rc == BW_OK)
        rc = reference_check(&s, cause);
    if (rc == BW_OK)
        rc = start_runner(cfg, &s.ref_runner, cause);
    if (rc == BW_OK)
        rc = load_program(s.ref_runner, &s.ref, 0, &fail, cause);
    if (rc == BW_OK && fail.status != RUN_OK)
        rc = bw_fail(cause, BW_ERR_INTERNAL, "loading reference.cu: %s", fail.message);
    if (rc == BW_OK && mkdir(out_dir, 0755) < 0 && errno != EEXIST)
        rc = bw_fail(cause, BW_ERR_IO, "cannot create %s: %s", out_dir, strerror(errno));
    for (size_t i = 0; rc == BW_OK && i < p->n_tests; i++) {
        struct plan pl;
        uint64_t bytes = 0;
        char name[32], *dir;

        if (plan_build(p, &s.ref.dirs, s.ref.tune_values[0], &p->tests[i], PLAN_REFERENCE, &pl,
                       NULL))
            continue;
        for (size_t b = 0; b < pl.n_buffers; b++)
            bytes += plan_buffer_bytes(&pl.buffers[b]);
        if (bytes > max_case_bytes)
            continue;
        snprintf(name, sizeof(name), "case-%03zu", i);
        dir = path_join(out_dir, name);
        rc = dir ? dump_case(&s, i, dir, cause) : bw_fail(cause, BW_ERR_NOMEM, "out of memory");
        free(dir);
        if (rc == BW_OK)
            (*dumped)++;
    }
    runner_free(s.ref_runner);
    program_release(&s.ref);
    free(ref_source);
    return rc;
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
    diag_list_release(&r->diags);
    memset(r, 0, sizeof(*r));
}

/* ---- the GPU: properties and calibration -------------------------------------- */

/* The NVRTC target of a compute capability: the arch-specific "a" variant on
 * Hopper and later (wgmma, setmaxnreg need it), plain before. */
static void arch_for(int major, int minor, char *out, size_t cap)
{
    snprintf(out, cap, "sm_%d%d%s", major, minor, major >= 9 ? "a" : "");
}

/*
 * The GPU's properties and measured limits are cached in
 * cache_dir/gpu-<device>.json for a day, so a one-shot `judged check` does not
 * start a runner (and measure the GPU) before judging: it only starts the two
 * it judges with, and judge_submission() compares their GPU's UUID with the
 * cached one.
 */
#define GPU_CACHE_SECONDS 86400

static char *gpu_cache_path(const struct judge_config *cfg)
{
    char name[64];
    if (!cfg->cache_dir)
        return NULL;
    snprintf(name, sizeof(name), "gpu-%d.json", cfg->device);
    return path_join(cfg->cache_dir, name);
}

static void copy_string(char *dst, size_t cap, json_t *v)
{
    snprintf(dst, cap, "%s", json_string_value(v) ? json_string_value(v) : "");
}

static bool gpu_cache_load(struct judge_config *cfg)
{
    char *path = gpu_cache_path(cfg), *text = NULL;
    struct gpu_info *g = &cfg->gpu;
    json_t *j = NULL;
    bool ok = false;

    if (!path || read_file(path, 65536, &text, NULL, NULL))
        goto out;
    j = json_loads(text, 0, NULL);
    if (!j ||
        time(NULL) - json_integer_value(json_object_get(j, "measured_at")) > GPU_CACHE_SECONDS)
        goto out;
    copy_string(g->name, sizeof(g->name), json_object_get(j, "name"));
    copy_string(g->uuid, sizeof(g->uuid), json_object_get(j, "uuid"));
    copy_string(g->cc, sizeof(g->cc), json_object_get(j, "cc"));
    copy_string(g->driver, sizeof(g->driver), json_object_get(j, "driver"));
    copy_string(g->arch, sizeof(g->arch), json_object_get(j, "arch"));
    g->sm_count = (int)json_integer_value(json_object_get(j, "sm_count"));
    g->memory_bytes = (uint64_t)json_integer_value(json_object_get(j, "memory_bytes"));
    g->l2_bytes = (uint64_t)json_integer_value(json_object_get(j, "l2_bytes"));
    g->max_clock_mhz = (int)json_integer_value(json_object_get(j, "max_clock_mhz"));
    g->copy_gbps = json_number_value(json_object_get(j, "copy_gbps"));
    g->fp32_tflops = json_number_value(json_object_get(j, "fp32_tflops"));
    g->fp16_tflops = json_number_value(json_object_get(j, "fp16_tflops"));
    g->bf16_tflops = json_number_value(json_object_get(j, "bf16_tflops"));
    g->calibrated = g->copy_gbps > 0 && g->fp32_tflops > 0;
    ok = g->name[0] && g->uuid[0] && g->arch[0] && g->calibrated;
    if (cfg->arch)
        snprintf(g->arch, sizeof(g->arch), "%s", cfg->arch);
out:
    if (!ok)
        memset(&cfg->gpu, 0, sizeof(cfg->gpu));
    json_decref(j);
    free(text);
    free(path);
    return ok;
}

static void gpu_cache_save(const struct judge_config *cfg)
{
    const struct gpu_info *g = &cfg->gpu;
    char *path = gpu_cache_path(cfg), *text;
    json_t *j;

    if (!path)
        return;
    mkdir(cfg->cache_dir, 0755);
    j = json_pack("{s:s, s:s, s:s, s:s, s:s, s:i, s:I, s:I, s:i, s:I, s:f, s:f, s:f, s:f}", "name",
                  g->name, "uuid", g->uuid, "cc", g->cc, "driver", g->driver, "arch", g->arch,
                  "sm_count", g->sm_count, "memory_bytes", (json_int_t)g->memory_bytes, "l2_bytes",
                  (json_int_t)g->l2_bytes, "max_clock_mhz", g->max_clock_mhz, "measured_at",
                  (json_int_t)time(NULL), "copy_gbps", g->copy_gbps, "fp32_tflops", g->fp32_tflops,
                  "fp16_tflops", g->fp16_tflops, "bf16_tflops", g->bf16_tflops);
    text = j ? json_dumps(j, JSON_INDENT(2)) : NULL;
    if (text && write_file_atomic(path, text, strlen(text), NULL) != BW_OK)
        log_warn("cannot cache the GPU's figures in %s", path);
    free(text);
    json_decref(j);
    free(path);
}

int judge_probe_gpu(struct judge_config *cfg, bool recalibrate, char **cause)
{
    struct runner *r = NULL;
    const struct gpu_props *g;
    struct calibration cal;
    struct run_failure fail;
    char *why = NULL;
    int rc;

    cfg->have_gpu = false;
    free(cfg->no_gpu_reason);
    cfg->no_gpu_reason = NULL;
    memset(&cfg->gpu, 0, sizeof(cfg->gpu));
    if (!recalibrate && gpu_cache_load(cfg)) {
        cfg->have_gpu = true;
        return BW_OK;
    }
    snprintf(cfg->gpu.arch, sizeof(cfg->gpu.arch), "%s", cfg->arch ? cfg->arch : "sm_90a");

    rc = start_runner(cfg, &r, &why);
    if (rc == BW_ERR_NODEVICE) {
        cfg->no_gpu_reason = why ? why : strdup("no GPU");
        return BW_OK;
    }
    if (rc) {
        rc = bw_fail(cause, rc, "cannot start the GPU runner: %s", why ? why : bw_strerror(rc));
        free(why);
        return rc;
    }
    g = runner_gpu(r);
    snprintf(cfg->gpu.name, sizeof(cfg->gpu.name), "%s", g->name);
    snprintf(cfg->gpu.uuid, sizeof(cfg->gpu.uuid), "%s", g->uuid);
    snprintf(cfg->gpu.cc, sizeof(cfg->gpu.cc), "%d.%d", g->cc_major, g->cc_minor);
    snprintf(cfg->gpu.driver, sizeof(cfg->gpu.driver), "%d.%d", g->driver_version / 1000,
             (g->driver_version % 1000) / 10);
    if (cfg->arch)
        snprintf(cfg->gpu.arch, sizeof(cfg->gpu.arch), "%s", cfg->arch);
    else
        arch_for(g->cc_major, g->cc_minor, cfg->gpu.arch, sizeof(cfg->gpu.arch));
    cfg->gpu.sm_count = g->sm_count;
    cfg->gpu.memory_bytes = g->memory_bytes;
    cfg->gpu.l2_bytes = g->l2_bytes;
    cfg->gpu.max_clock_mhz = g->max_clock_mhz;
    cfg->have_gpu = true;

    rc = runner_calibrate(r, &cal, &fail, BW_RUNNER_CALIBRATE_MS, &why);
    runner_free(r);
    if (rc || fail.status != RUN_OK) {
        log_warn("GPU calibration failed: %s", rc ? (why ? why : bw_strerror(rc)) : fail.message);
        free(why);
        return BW_OK; /* judging still works; scores are left out */
    }
    cfg->gpu.copy_gbps = cal.copy_gbps;
    cfg->gpu.fp32_tflops = cal.fp32_tflops;
    cfg->gpu.fp16_tflops = cal.fp16_tensor_tflops;
    cfg->gpu.bf16_tflops = cal.bf16_tensor_tflops;
    cfg->gpu.calibrated = true;
    gpu_cache_save(cfg);
    return BW_OK;
}

void judge_config_release(struct judge_config *cfg)
{
    free(cfg->no_gpu_reason);
    cfg->no_gpu_reason = NULL;
}

/* ---- JSON ------------------------------------------------------------------------ */

static json_t *gpu_json(const struct gpu_info *g)
{
    if (!g->name[0])
        return json_null();
    return json_pack("{s:s, s:s, s:s, s:s, s:s, s:i, s:I, s:I, s:b, s:f, s:f, s:f, s:f}", "name",
                     g->name, "uuid", g->uuid, "cc", g->cc, "driver", g->driver, "arch", g->arch,
                     "sm_count", g->sm_count, "memory_bytes", (json_int_t)g->memory_bytes,
                     "l2_bytes", (json_int_t)g->l2_bytes, "calibrated", g->calibrated, "copy_gbps",
                     g->copy_gbps, "fp32_tflops", g->fp32_tflops, "fp16_tflops", g->fp16_tflops,
                     "bf16_tflops", g->bf16_tflops);
}

json_t *judge_result_json(const struct judge_result *r)
{
    json_t *j = json_object(), *tests = json_array(), *benches = json_array(),
           *diags = json_array(), *goals = json_array();
    char seed[24];

    for (size_t i = 0; i < r->diags.n; i++)
        json_array_append_new(diags, json_pack("{s:i, s:i, s:s}", "line", r->diags.items[i].line,
                                               "column", r->diags.items[i].column, "message",
                                               r->diags.items[i].msg));
    for (size_t i = 0; i < r->n_tests; i++) {
        const struct test_outcome *t = &r->tests[i];
        json_t *tj = json_pack("{s:s, s:s, s:f}", "name", t->name, "verdict",
                               verdict_code(t->verdict), "ms", t->ms);
        if (t->message)
            json_object_set_new(tj, "message", json_string(t->message));
        if (t->detail)
            json_object_set(tj, "detail", t->detail);
        json_array_append_new(tests, tj);
    }
    for (size_t i = 0; i < r->n_benches; i++) {
        const struct bench_outcome *b = &r->benches[i];
        json_array_append_new(
            benches,
            json_pack("{s:s, s:i, s:f, s:f, s:f, s:f, s:f, s:f, s:f, s:f, s:f, s:i, s:s}", "name",
                      b->name, "samples", b->samples, "median_ms", b->median_ms, "min_ms",
                      b->min_ms, "max_ms", b->max_ms, "p10_ms", b->p10_ms, "p90_ms", b->p90_ms,
                      "rse", b->rse, "gbps", b->gbps, "tflops", b->tflops, "sol_pct", b->sol_pct,
                      "clock_mhz", b->clock_mhz, "stop", b->stop ? b->stop : ""));
    }
    for (size_t i = 0; i < r->n_goals; i++)
        json_array_append_new(goals, goal_outcome_json(&r->goals[i]));
    snprintf(seed, sizeof(seed), "%016llx", (unsigned long long)r->seed);
    json_object_set_new(j, "verdict", json_string(verdict_code(r->verdict)));
    json_object_set_new(j, "verdict_name", json_string(verdict_name(r->verdict)));
    json_object_set_new(j, "message", r->message ? json_string(r->message) : json_null());
    json_object_set_new(j, "executed", json_boolean(r->executed));
    json_object_set_new(j, "diagnostics", diags);
    json_object_set_new(j, "compile_log", json_string(r->compile_log ? r->compile_log : ""));
    json_object_set_new(j, "kernels", r->kernels ? json_incref(r->kernels) : json_array());
    json_object_set_new(j, "tests", tests);
    json_object_set_new(j, "benches", benches);
    json_object_set_new(j, "score", json_real(r->score));
    json_object_set_new(j, "goals", goals);
    json_object_set_new(j, "gpu", gpu_json(&r->gpu));
    json_object_set_new(j, "compile_ms", json_real(r->compile_ms));
    json_object_set_new(j, "total_ms", json_real(r->total_ms));
    json_object_set_new(j, "timing",
                        json_pack("{s:f, s:f, s:f, s:f, s:f, s:f}", "compile_ms", r->compile_ms,
                                  "runners_ms", r->runners_ms, "tests_ms", r->tests_ms, "bench_ms",
                                  r->bench_ms, "goals_ms", r->goals_ms, "total_ms", r->total_ms));
    json_object_set_new(j, "seed", json_string(seed));
    return j;
}
