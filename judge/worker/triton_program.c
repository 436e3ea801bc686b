#include "triton_program.h"

#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "triton_key.h"
#include "triton_pool.h"
#include "common/error.h"
#include "common/util.h"
#include "plan/run_plan.h"
#include "common/banned.h"

/* The name a configuration's variant i is loaded under, and called by. */
static void variant_name(size_t i, char *out, size_t cap)
{
    snprintf(out, cap, "v%zu", i);
}

/* What another thread may read of a compile in progress (triton_program.h). */
struct triton_stream_state {
    pthread_mutex_t lock;
    pthread_cond_t changed; /* planned, a build final, ended */
    bool planned;           /* tp->variants and tp->result.builds exist */
    bool ended;             /* the compile is over: every build final */
    bool stopped;           /* triton_program_stop: no compile starts, one running is killed */
    bool *final;            /* owned: per build, once planned */
    int cancel_r, cancel_w; /* the compile's cancel pipe */
};

void triton_program_release(struct triton_program *tp)
{
    struct triton_stream_state *st = tp->live;

    if (st) {
        pthread_mutex_destroy(&st->lock);
        pthread_cond_destroy(&st->changed);
        free(st->final);
        close(st->cancel_r);
        close(st->cancel_w);
        free(st);
    }
    triton_variants_release(&tp->variants);
    triton_result_release(&tp->result);
    memset(tp, 0, sizeof(*tp));
}

int triton_program_stream(struct triton_program *tp)
{
    struct triton_stream_state *st = calloc(1, sizeof(*st));
    int fds[2];

    if (!st)
        return BW_ERR_NOMEM;
    if (pipe2(fds, O_CLOEXEC | O_NONBLOCK) < 0) {
        free(st);
        return BW_ERR_SYSTEM;
    }
    st->cancel_r = fds[0];
    st->cancel_w = fds[1];
    pthread_mutex_init(&st->lock, NULL);
    pthread_cond_init(&st->changed, NULL);
    tp->live = st;
    return BW_OK;
}

/* Build g is final (from the cache, or as the compiler gave it out). */
static void make_final(struct triton_program *tp, size_t g)
{
    struct triton_stream_state *st = tp->live;

    if (!st)
        return;
    pthread_mutex_lock(&st->lock);
    if (st->final && g < tp->result.n_builds)
        st->final[g] = true;
    pthread_cond_broadcast(&st->changed);
    pthread_mutex_unlock(&st->lock);
}

void triton_program_stream_end(struct triton_program *tp)
{
    struct triton_stream_state *st = tp->live;

    if (!st)
        return;
    pthread_mutex_lock(&st->lock);
    st->ended = true;
    for (size_t g = 0; st->final && g < tp->result.n_builds; g++)
        st->final[g] = true;
    pthread_cond_broadcast(&st->changed);
    pthread_mutex_unlock(&st->lock);
}

bool triton_program_compiled(struct triton_program *tp)
{
    bool ended;

    if (!tp->live)
        return true;
    pthread_mutex_lock(&tp->live->lock);
    ended = tp->live->ended;
    pthread_mutex_unlock(&tp->live->lock);
    return ended;
}

void triton_program_stop(struct triton_program *tp)
{
    struct triton_stream_state *st = tp->live;

    if (!st)
        return;
    pthread_mutex_lock(&st->lock);
    st->stopped = true;
    pthread_mutex_unlock(&st->lock);
    if (write(st->cancel_w, "x", 1) < 0) { /* a full pipe is readable already */
    }
}

bool triton_program_wait_case(struct triton_program *tp, size_t config, const struct plan *pl)
{
    struct triton_stream_state *st = tp->live;
    bool ok = true;

    if (st) {
        pthread_mutex_lock(&st->lock);
        while (!st->planned && !st->ended)
            pthread_cond_wait(&st->changed, &st->lock);
        ok = st->planned;
        pthread_mutex_unlock(&st->lock);
    }
    if (!ok || config >= tp->variants.n_configs)
        return false;
    for (size_t l = 0; l < pl->n_launches && ok; l++) {
        int g = triton_program_build_of(tp, config, pl, l);
        if (g < 0)
            return false;
        if (st) {
            pthread_mutex_lock(&st->lock);
            while (!st->final[g])
                pthread_cond_wait(&st->changed, &st->lock);
            pthread_mutex_unlock(&st->lock);
        }
        ok = tp->result.builds[g].ok;
    }
    return ok;
}

int triton_program_cancel_fd(const struct triton_program *tp)
{
    return tp->live ? tp->live->cancel_r : -1;
}

bool triton_program_wait_planned(struct triton_program *tp)
{
    struct triton_stream_state *st = tp->live;
    bool planned;

    if (!st)
        return tp->variants.n_configs > 0;
    pthread_mutex_lock(&st->lock);
    while (!st->planned && !st->ended)
        pthread_cond_wait(&st->changed, &st->lock);
    planned = st->planned;
    pthread_mutex_unlock(&st->lock);
    return planned;
}

int triton_program_planned(struct triton_program *tp, const bool *final)
{
    struct triton_stream_state *st = tp->live;
    size_t n = tp->result.n_builds;

    if (!st)
        return BW_OK;
    pthread_mutex_lock(&st->lock);
    st->final = calloc(n ? n : 1, sizeof(*st->final));
    for (size_t g = 0; st->final && final && g < n; g++)
        st->final[g] = final[g];
    st->planned = st->final != NULL;
    pthread_cond_broadcast(&st->changed);
    pthread_mutex_unlock(&st->lock);
    return st->planned ? BW_OK : BW_ERR_NOMEM;
}

void triton_program_give(struct triton_program *tp, size_t g, struct triton_build *b)
{
    struct triton_stream_state *st = tp->live;

    if (st)
        pthread_mutex_lock(&st->lock);
    if (g < tp->result.n_builds) {
        triton_build_release(&tp->result.builds[g]);
        tp->result.builds[g] = *b;
        memset(b, 0, sizeof(*b));
        if (st && st->final)
            st->final[g] = true;
    }
    if (st) {
        pthread_cond_broadcast(&st->changed);
        pthread_mutex_unlock(&st->lock);
    }
    triton_build_release(b);
}

bool triton_program_case_final(struct triton_program *tp, size_t config, const struct plan *pl)
{
    struct triton_stream_state *st = tp->live;
    bool final = true;

    if (!st)
        return true;
    pthread_mutex_lock(&st->lock);
    if (!st->planned)
        final = st->ended;
    for (size_t l = 0; st->planned && l < pl->n_launches && final; l++) {
        int g = config < tp->variants.n_configs ? triton_program_build_of(tp, config, pl, l) : -1;
        final = g < 0 || st->final[g];
    }
    pthread_mutex_unlock(&st->lock);
    return final;
}

uint64_t triton_program_case_variants(const struct triton_program *tp, size_t config,
                                      const struct plan *pl)
{
    uint64_t mask = 0;

    for (size_t l = 0; l < pl->n_launches; l++) {
        int g = triton_program_build_of(tp, config, pl, l);
        if (g >= 0)
            mask |= 1ull << ((size_t)g - tp->variants.configs[config].first);
    }
    return mask;
}

/* ---- compiling -------------------------------------------------------------------- */

/* A compile of the builds the cache did not have: request kernel i is build map[i]. */
struct misses {
    struct triton_program *tp;
    const size_t *map;
    struct triton_result *got; /* the compile's result: its builds lent to tp->result */
    bool *given;               /* request kernel i was given out (and lent) */
};

/* The compiler gave build i out: it is tp's build map[i] now (its memory lent from got). */
static void on_build(void *arg, size_t i)
{
    struct misses *m = arg;
    struct triton_program *tp = m->tp;
    size_t g = m->map[i];

    if (tp->live)
        pthread_mutex_lock(&tp->live->lock);
    tp->result.builds[g] = m->got->builds[i];
    m->given[i] = true;
    if (tp->live) {
        tp->live->final[g] = true;
        pthread_cond_broadcast(&tp->live->changed);
        pthread_mutex_unlock(&tp->live->lock);
    }
}

/* A compiler for the request: the pool's (warm), or one started now. */
static int take_compiler(const struct triton_target *t, struct triton_compiler **c, char **cause)
{
    struct triton_options o = {.no_sandbox = t->no_sandbox};

    if (t->pool)
        return triton_pool_take(t->pool, c, cause);
    return triton_compiler_start(&o, c, cause);
}

/* Compiles the builds of `ks` that map[0..n) names into tp->result (the module text is the
 * source with its launch lines blanked: what the builds' keys cover). */
static int compile_misses(struct triton_program *tp, const struct triton_kernel_request *ks,
                          const size_t *map, size_t n, const struct buf *text, const char *filename,
                          const struct triton_target *t, char **cause)
{
    struct triton_kernel_request *sub = calloc(n, sizeof(*sub));
    bool *given = calloc(n, sizeof(*given));
    struct triton_result got = {0};
    struct misses m = {.tp = tp, .map = map, .got = &got, .given = given};
    struct triton_stream st = {.on_build = on_build, .arg = &m, .cancel_fd = -1};
    struct triton_request rq = {
        .source = text->data ? text->data : "",
        .len = text->len,
        .filename = filename,
        .cc_major = t->cc_major,
        .cc_minor = t->cc_minor,
        .no_sandbox = t->no_sandbox,
        .jobs = t->pool ? triton_pool_share(t->pool) : t->jobs,
    };
    struct triton_compiler *c = NULL;
    double t0 = now_ms();
    int rc;

    if (!sub || !given) {
        rc = bw_fail(cause, BW_ERR_NOMEM, "out of memory");
        goto out;
    }
    for (size_t i = 0; i < n; i++)
        sub[i] = ks[map[i]];
    rq.kernels = sub;
    rq.n_kernels = n;
    if (tp->live)
        st.cancel_fd = tp->live->cancel_r;
    if ((rc = take_compiler(t, &c, cause)))
        goto out;
    tp->wait_ms = now_ms() - t0;
    rc = triton_compiler_compile_stream(c, &rq, &st, &got, cause);
    triton_compiler_free(c);
    if (rc)
        goto out;
    for (size_t i = 0; i < n; i++)
        if (!given[i]) /* every build is given out by a compile that ended: kept safe anyway */
            on_build(&m, i);
    tp->result.driver_ms = got.driver_ms;
    tp->result.cpu_ms = got.cpu_ms;
    tp->result.log = got.log;
    tp->result.failure = got.failure;
    tp->result.triton_version = got.triton_version;
    tp->result.diags = got.diags;
    got.log = got.failure = got.triton_version = NULL;
    memset(&got.diags, 0, sizeof(got.diags));
out:
    if (t->pool)
        triton_pool_unshare(t->pool); /* the share rq.jobs took */
    for (size_t i = 0; got.builds && i < n; i++)
        if (given && given[i]) /* lent to tp->result: not got's to free */
            memset(&got.builds[i], 0, sizeof(got.builds[i]));
    triton_result_release(&got);
    free(sub);
    free(given);
    return rc;
}

int triton_program_compile(struct triton_program *tp, const char *source, size_t len,
                           const char *filename, const struct triton_target *t, char **cause)
{
    const struct triton_variants *tv = &tp->variants;
    size_t n = tv->n_builds;
    struct triton_kernel_request *ks = calloc(n ? n : 1, sizeof(*ks));
    size_t *map = calloc(n ? n : 1, sizeof(*map));
    char(*keys)[65] = calloc(n ? n : 1, sizeof(*keys));
    struct triton_request whole = {
        .source = source,
        .len = len,
        .filename = filename,
        .cc_major = t->cc_major,
        .cc_minor = t->cc_minor,
        .no_sandbox = t->no_sandbox,
    };
    struct buf text;
    char module_key[65], *version = NULL;
    size_t n_miss = 0;
    bool keyed = false;
    double t0 = now_ms();
    int rc = BW_OK;

    buf_init(&text, BW_MAX_SOURCE_BYTES + 1);
    tp->result.builds = calloc(n ? n : 1, sizeof(*tp->result.builds));
    if (!ks || !map || !keys || !tp->result.builds) {
        rc = bw_fail(cause, BW_ERR_NOMEM, "out of memory");
        goto out;
    }
    tp->result.n_builds = n;
    for (size_t c = 0; c < tv->n_configs; c++) {
        const struct triton_config *tc = &tv->configs[c];
        for (size_t i = 0; i < tc->n_variants; i++) {
            const struct triton_variant *v = &tc->variants[i];
            ks[tc->first + i] = (struct triton_kernel_request){
                .kernel = v->kernel,
                .args = v->args,
                .n_args = v->n_args,
                .constexprs = v->constexprs,
                .n_constexprs = v->n_constexprs,
                .num_warps = v->num_warps,
                .num_stages = v->num_stages,
                .maxnreg = v->maxnreg,
                .line = v->line,
            };
        }
    }
    if (tp->live) {
        pthread_mutex_lock(&tp->live->lock);
        tp->live->final = calloc(n ? n : 1, sizeof(*tp->live->final));
        tp->live->planned = tp->live->final != NULL;
        pthread_cond_broadcast(&tp->live->changed);
        pthread_mutex_unlock(&tp->live->lock);
        if (!tp->live->final) {
            rc = bw_fail(cause, BW_ERR_NOMEM, "out of memory");
            goto out;
        }
    }
    /* Triton's version is part of each key: a judge upgraded under its cache compiles again. */
    keyed = t->cache && triton_probe(NULL, &version, NULL) == BW_OK &&
            triton_key_module(&whole, version, module_key);
    for (size_t g = 0; g < n; g++) {
        if (keyed) {
            triton_key_build(module_key, &ks[g], keys[g]);
            if (build_cache_get_triton(t->cache, keys[g], &tp->result.builds[g])) {
                tp->n_cached++;
                make_final(tp, g);
                continue;
            }
        }
        map[n_miss++] = g;
    }
    tp->n_compiled = n_miss;
    tp->from_cache = n > 0 && n_miss == 0;
    if (n_miss == 0) {
        tp->result.ok = n > 0;
        if (!(tp->result.log = strdup("")))
            rc = bw_fail(cause, BW_ERR_NOMEM, "out of memory");
        goto out;
    }
    if ((rc = triton_key_module_text(source, len, &text, NULL))) {
        rc = bw_fail(cause, rc, "the Triton module does not fit in memory");
        goto out;
    }
    if (tp->live) {
        bool stopped;
        pthread_mutex_lock(&tp->live->lock);
        stopped = tp->live->stopped;
        pthread_mutex_unlock(&tp->live->lock);
        if (stopped) { /* the verdict came from the cached builds' cases */
            tp->result.failure = strdup("the compile was stopped: the judging no longer needed it");
            tp->result.log = strdup("");
            goto out;
        }
    }
    if ((rc = compile_misses(tp, ks, map, n_miss, &text, filename, t, cause)))
        goto out;
    tp->result.ok = !tp->result.failure;
    for (size_t g = 0; g < n; g++) {
        tp->result.ok = tp->result.ok && tp->result.builds[g].ok;
        if (keyed && tp->result.builds[g].ok)
            build_cache_put_triton(t->cache, keys[g], &tp->result.builds[g]);
    }
out:
    if (tp->result.ms == 0)
        tp->result.ms = now_ms() - t0;
    buf_release(&text);
    free(version);
    free(ks);
    free(map);
    free(keys);
    return rc;
}

int triton_program_load(struct runner *r, const struct triton_program *tp, size_t config,
                        struct run_failure *fail, char **cause)
{
    const struct triton_config *tc = &tp->variants.configs[config];
    const void *images[BW_MAX_LOADED_KERNELS];
    const char *symbols[BW_MAX_LOADED_KERNELS], *names[BW_MAX_LOADED_KERNELS];
    char text[BW_MAX_LOADED_KERNELS][24];
    size_t lens[BW_MAX_LOADED_KERNELS];
    struct load_reply reply;
    int rc;

    if (tc->n_variants == 0 || tc->n_variants > BW_MAX_LOADED_KERNELS ||
        tc->first + tc->n_variants > tp->result.n_builds)
        return bw_fail(cause, BW_ERR_INTERNAL,
                       "configuration %zu has %zu Triton builds of the %zu compiled", config + 1,
                       tc->n_variants, tp->result.n_builds);
    for (size_t i = 0; i < tc->n_variants; i++) {
        const struct triton_build *b = &tp->result.builds[tc->first + i];
        images[i] = b->cubin;
        lens[i] = b->cubin_len;
        symbols[i] = b->name;
        variant_name(i, text[i], sizeof(text[i]));
        names[i] = text[i];
    }
    rc = runner_load_images(r, images, lens, symbols, names, (int)tc->n_variants, &reply,
                            BW_RUNNER_LOAD_MS, cause);
    if (rc == BW_OK)
        *fail = reply.fail;
    return rc;
}

/* A configuration's builds are one runner load, and which are loaded is a 64-bit mask. */
_Static_assert(BW_TRITON_MAX_VARIANTS <= BW_MAX_LOADED_KERNELS && BW_TRITON_MAX_VARIANTS <= 64,
               "BW_TRITON_MAX_VARIANTS: one runner load, one bit each");

int triton_program_load_final(struct runner *r, const struct triton_program *tp, size_t config,
                              uint64_t *loaded, struct run_failure *fail, char **cause)
{
    const struct triton_config *tc = &tp->variants.configs[config];
    const void *images[BW_MAX_LOADED_KERNELS];
    const char *symbols[BW_MAX_LOADED_KERNELS], *names[BW_MAX_LOADED_KERNELS];
    char text[BW_MAX_LOADED_KERNELS][24];
    size_t lens[BW_MAX_LOADED_KERNELS];
    struct load_reply reply;
    int n = 0, rc;

    *loaded = 0;
    run_failure_init(fail);
    if (tc->n_variants > BW_MAX_LOADED_KERNELS || tc->n_variants > 64 /* *loaded's bits */ ||
        tc->first + tc->n_variants > tp->result.n_builds)
        return bw_fail(cause, BW_ERR_INTERNAL,
                       "configuration %zu has %zu Triton builds of the %zu compiled", config + 1,
                       tc->n_variants, tp->result.n_builds);
    if (tp->live)
        pthread_mutex_lock(&tp->live->lock);
    for (size_t i = 0; i < tc->n_variants; i++) {
        const struct triton_build *b = &tp->result.builds[tc->first + i];
        if ((tp->live && (!tp->live->final || !tp->live->final[tc->first + i])) || !b->ok)
            continue;
        images[n] = b->cubin;
        lens[n] = b->cubin_len;
        symbols[n] = b->name;
        variant_name(i, text[n], sizeof(text[n]));
        names[n] = text[n];
        *loaded |= 1ull << i;
        n++;
    }
    if (tp->live)
        pthread_mutex_unlock(&tp->live->lock);
    if (n == 0)
        return BW_OK;
    rc = runner_load_images(r, images, lens, symbols, names, n, &reply, BW_RUNNER_LOAD_MS, cause);
    if (rc == BW_OK)
        *fail = reply.fail;
    if (rc || fail->status != RUN_OK)
        *loaded = 0;
    return rc;
}

int triton_program_build_of(const struct triton_program *tp, size_t config, const struct plan *pl,
                            size_t launch)
{
    int g = triton_variants_find(&tp->variants, config, pl, launch);

    if (g < 0 || (size_t)g >= tp->result.n_builds)
        return -1;
    return g;
}

int triton_program_run_plan(const struct triton_program *tp, size_t config, const struct plan *pl,
                            uint64_t seed, uint32_t case_index, struct run_plan *out, char **cause)
{
    const struct triton_config *tc = &tp->variants.configs[config];

    run_plan_from_plan(pl, seed, case_index, out);
    for (size_t l = 0; l < pl->n_launches; l++) {
        int g = triton_program_build_of(tp, config, pl, l);
        const struct triton_build *b;
        char name[24];
        int rc;

        if (g < 0 || !tp->result.builds[g].ok)
            return bw_fail(cause, BW_ERR_INTERNAL, "no Triton build for launch %zu of this case",
                           l + 1);
        b = &tp->result.builds[g];
        variant_name((size_t)g - tc->first, name, sizeof(name));
        rc = run_plan_triton_launch(out, l,
                                    &(struct triton_callee){
                                        .name = name,
                                        .num_warps = b->num_warps,
                                        .shared = b->shared,
                                        .global_scratch_size = b->global_scratch_size,
                                        .global_scratch_align = b->global_scratch_align,
                                        .profile_scratch_size = b->profile_scratch_size,
                                        .params = b->params,
                                        .param_types = b->param_types,
                                        .n_params = b->n_params,
                                    },
                                    cause);
        if (rc)
            return rc;
    }
    return BW_OK;
}
