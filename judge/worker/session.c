#include "session.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/random.h>
#include <unistd.h>

#include "runner_pool.h"
#include "common/error.h"
#include "common/util.h"
#include "common/banned.h"

void session_emit(const struct session *s, json_t *event)
{
    if (s->opts && s->opts->on_event && event)
        s->opts->on_event(event, s->opts->event_arg);
    json_decref(event);
}

struct program_target session_target(const struct session *s)
{
    struct program_target t = {
        .arch = s->cfg->gpu.arch[0] ? s->cfg->gpu.arch : s->cfg->arch,
        .no_sandbox = s->cfg->no_sandbox,
        .cache = s->cfg->builds,
        .gpu = &s->cfg->gpu,
        .triton_pool = s->cfg->triton_pool,
        .triton_jobs = s->cfg->triton_jobs,
        .tests_only = s->opts && s->opts->tests_only && !s->opts->profile,
    };

    if (sscanf(s->cfg->gpu.cc, "%d.%d", &t.cc_major, &t.cc_minor) != 2)
        t.cc_major = t.cc_minor = 0; /* no GPU: Triton's default target (9.0) */
    return t;
}

int session_start_runner(const struct session *s, struct runner **out, char **cause)
{
    struct runner_options opt = {.device = s->cfg->device, .no_sandbox = s->cfg->no_sandbox};

    if (s->cfg->pool)
        return runner_pool_take_submission(s->cfg->pool, out, cause);
    return runner_start(&opt, out, cause);
}

int session_take_reference(struct session *s, char **cause)
{
    struct runner_options opt = {.device = s->cfg->device, .no_sandbox = s->cfg->no_sandbox};

    if (s->cfg->pool)
        return runner_pool_take_reference(s->cfg->pool, &s->ref_runner, cause);
    return runner_start(&opt, &s->ref_runner, cause);
}

void session_return_reference(struct session *s)
{
    if (s->cfg->pool)
        runner_pool_return_reference(s->cfg->pool, s->ref_runner);
    else
        runner_discard(s->ref_runner);
    s->ref_runner = NULL;
}

void session_gate_enter(const struct session *s, bool exclusive)
{
    if (s->cfg->pool)
        runner_pool_gate_enter(s->cfg->pool, exclusive);
}

void session_gate_leave(const struct session *s, bool exclusive)
{
    if (s->cfg->pool)
        runner_pool_gate_leave(s->cfg->pool, exclusive);
}

int session_load_sub(struct session *s, const struct program *pg, size_t config,
                     struct run_failure *fail, char **cause)
{
    int rc;

    s->sub_loaded = 0;
    if (pg == &s->sub && pg->lang == LANG_TRITON && pg->triton.live)
        return triton_program_load_final(s->sub_runner, &pg->triton, config, &s->sub_loaded, fail,
                                         cause);
    rc = program_load(s->sub_runner, pg, config, fail, cause);
    if (rc == BW_OK && fail->status == RUN_OK)
        s->sub_loaded = ~0ull;
    return rc;
}

int session_fresh_sub_runner(struct session *s, const struct program *pg, size_t config,
                             struct run_failure *fail, char **cause)
{
    int rc;

    session_drop_sub_runner(s);
    rc = session_start_runner(s, &s->sub_runner, cause);
    if (rc == BW_OK)
        rc = session_load_sub(s, pg, config, fail, cause);
    return rc;
}

void session_drop_sub_runner(struct session *s)
{
    runner_discard(s->sub_runner);
    s->sub_runner = NULL;
    s->sub_loaded = 0;
}

bool session_cancelled(const struct session *s)
{
    return s->opts && s->opts->cancel && atomic_load(s->opts->cancel);
}

uint64_t session_fresh_seed(void)
{
    uint64_t seed = 0;

    while (seed == 0)
        if (getrandom(&seed, sizeof(seed), 0) != sizeof(seed))
            seed = now_ns() ^ ((uint64_t)getpid() << 32);
    return seed;
}

void session_set_line(char **msg, const char *fmt, ...)
{
    va_list ap;

    free(*msg);
    *msg = NULL;
    va_start(ap, fmt);
    if (vasprintf(msg, fmt, ap) < 0)
        *msg = NULL;
    va_end(ap);
}
