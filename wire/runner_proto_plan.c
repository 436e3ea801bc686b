/*
 * runner_proto_plan.c - the runner codec's plans, run and bench replies and
 * calibration (runner_proto.h).
 */
#include "runner_proto.h"

#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "runner_proto_fields.h"
#include "common/error.h"
#include "common/util.h"
#include "common/banned.h"

/* --- plans --------------------------------------------------------------------------- */

static const char *const role_names[] = {
    [RUN_ROLE_IN] = "in",           [RUN_ROLE_INOUT] = "inout", [RUN_ROLE_OUT] = "out",
    [RUN_ROLE_SCRATCH] = "scratch", [RUN_ROLE_DATA] = "data",
};

/* Argument kinds and their JSON keys, in enum order. */
static const char *const arg_keys[] = {
    [RUN_ARG_BUF] = "buf", [RUN_ARG_I64] = "i64", [RUN_ARG_I32] = "i32", [RUN_ARG_U64] = "u64",
    [RUN_ARG_U32] = "u32", [RUN_ARG_F32] = "f32", [RUN_ARG_F64] = "f64", [RUN_ARG_INT] = "int",
};

uint64_t run_plan_gather_span(const struct run_plan *p)
{
    uint64_t span = 0;
    for (int k = 0; k < p->n_gather; k++)
        if (p->gather[k].offset + p->gather[k].count > span)
            span = p->gather[k].offset + p->gather[k].count;
    return span;
}

uint64_t run_plan_gather_bytes(const struct run_plan *p)
{
    uint64_t bytes = 0;
    for (int k = 0; k < p->n_gather; k++)
        bytes += p->gather[k].count * dtype_size(p->buffers[p->gather[k].buf].dtype);
    return bytes;
}

static json_t *dim3_json(const uint32_t v[3])
{
    return json_pack("[I, I, I]", (json_int_t)v[0], (json_int_t)v[1], (json_int_t)v[2]);
}

static json_t *arg_json(const struct run_arg *a)
{
    json_t *o = json_object(), *v = NULL;
    bool ok = o != NULL;

    if (!o)
        return NULL;
    switch (a->kind) {
    case RUN_ARG_BUF:
        v = json_integer(a->buf);
        break;
    case RUN_ARG_I64:
    case RUN_ARG_I32:
    case RUN_ARG_INT:
        v = json_integer(a->i);
        break;
    case RUN_ARG_U64:
    case RUN_ARG_U32:
        v = rp_u64(a->u);
        break;
    case RUN_ARG_F32:
    case RUN_ARG_F64:
        v = rp_double(a->f);
        break;
    default:
        ok = false;
        break;
    }
    if (ok)
        rp_put(o, arg_keys[a->kind], v, &ok);
    if (a->kind == RUN_ARG_BUF && a->offset)
        rp_put(o, "offset", rp_u64(a->offset), &ok);
    if (a->name[0])
        rp_put(o, "name", json_string(a->name), &ok);
    return rp_finish(o, ok);
}

/* Adds seed, case, buffers, launches and gather of plan p to o. */
void rp_put_plan(json_t *o, const struct run_plan *p, bool *ok)
{
    json_t *bufs = json_array(), *launches = json_array(), *gather = json_array();
    char seed[24];

    snprintf(seed, sizeof(seed), "%016" PRIx64, p->seed);
    rp_put(o, "seed", json_string(seed), ok);
    rp_put(o, "case", json_integer(p->case_index), ok);
    rp_put(o, "buffers", bufs, ok);
    rp_put(o, "launches", launches, ok);
    rp_put(o, "gather", gather, ok);
    if (!*ok)
        return;
    for (int i = 0; i < p->n_buffers; i++) {
        const struct run_buffer *b = &p->buffers[i];
        json_t *bo = json_object();
        bool bok = bo != NULL;
        if (bo) {
            rp_put(bo, "name", json_string(b->name), &bok);
            rp_put(bo, "dtype", json_string(dtype_name(b->dtype)), &bok);
            rp_put(bo, "count", rp_u64(b->count), &bok);
            rp_put(bo, "role",
                   json_string(b->role >= RUN_ROLE_IN && b->role <= RUN_ROLE_DATA
                                   ? role_names[b->role]
                                   : "invalid"),
                   &bok);
            if (b->role == RUN_ROLE_IN || b->role == RUN_ROLE_INOUT)
                rp_put(bo, "gen", gen_spec_to_json(&b->gen), &bok);
        }
        if (!bok) {
            json_decref(bo);
            *ok = false;
            return;
        }
        rp_push(bufs, bo, ok);
    }
    for (int l = 0; l < p->n_launches; l++) {
        const struct run_launch *L = &p->launches[l];
        json_t *lo = json_object(), *args = json_array();
        bool lok = lo && args;
        if (lo && args) {
            rp_put(lo, "kernel", json_string(L->kernel), &lok);
            rp_put(lo, "grid", dim3_json(L->grid), &lok);
            rp_put(lo, "block", dim3_json(L->block), &lok);
            rp_put(lo, "smem", json_integer(L->smem), &lok);
            for (int a = 0; a < L->n_args; a++)
                rp_push(args, arg_json(&L->args[a]), &lok);
            rp_put(lo, "args", args, &lok);
            args = NULL;
        }
        json_decref(args);
        if (!lok) {
            json_decref(lo);
            *ok = false;
            return;
        }
        rp_push(launches, lo, ok);
    }
    for (int k = 0; k < p->n_gather; k++)
        rp_push(gather,
                json_pack("{s:i, s:o, s:o}", "buf", p->gather[k].buf, "offset",
                          rp_u64(p->gather[k].offset), "count", rp_u64(p->gather[k].count)),
                ok);
}

static int get_dim3(const json_t *o, const char *key, const char *path, uint32_t v[3], char **cause)
{
    json_t *a;
    size_t n;
    int rc = rp_get_array(o, key, path, true, 3, &a, &n, cause);

    if (rc)
        return rc;
    if (n == 0)
        return rp_bad(cause, path, key, "expected 1 to 3 integers");
    v[0] = v[1] = v[2] = 1;
    for (size_t i = 0; i < n; i++) {
        uint64_t x;
        if (rp_value_u64(json_array_get(a, i), &x) || x > UINT32_MAX)
            return bw_fail(cause, BW_ERR_INVALID, "%s.%s[%zu]: expected an integer in [0, %u]",
                           path, key, i, UINT32_MAX);
        v[i] = (uint32_t)x;
    }
    return BW_OK;
}

static int get_arg(const json_t *j, const char *path, int n_buffers, struct run_arg *a,
                   char **cause)
{
    const char *key;
    json_t *v;
    int found = 0;
    int rc;

    memset(a, 0, sizeof(*a));
    if (!json_is_object(j))
        return bw_fail(cause, BW_ERR_INVALID, "%s: expected an object", path);
    if ((rc = rp_get_str(j, "name", path, false, a->name, sizeof(a->name), cause)))
        return rc;
    json_object_foreach ((json_t *)j, key, v) {
        if (strcmp(key, "name") == 0 || strcmp(key, "offset") == 0)
            continue;
        for (int k = RUN_ARG_BUF; k <= RUN_ARG_INT; k++) {
            if (strcmp(key, arg_keys[k]) != 0)
                continue;
            a->kind = (enum run_arg_kind)k;
            found++;
        }
    }
    if (found != 1)
        return bw_fail(cause, BW_ERR_INVALID,
                       "%s: expected exactly one of buf, i64, i32, u64, u32, f32, f64, int", path);
    if (a->kind != RUN_ARG_BUF && json_object_get(j, "offset"))
        return bw_fail(cause, BW_ERR_INVALID, "%s: offset is for a buf argument only", path);
    key = arg_keys[a->kind];
    switch (a->kind) {
    case RUN_ARG_BUF: {
        int64_t b = 0;
        rc = rp_get_i64(j, key, path, true, 0, n_buffers - 1, &b, cause);
        a->buf = (int)b;
        /* in elements; the runner checks it against the buffer's count */
        return rc ? rc
                  : rp_get_u64(j, "offset", path, false, BW_MAX_TENSOR_BYTES, &a->offset, cause);
    }
    case RUN_ARG_I64:
    case RUN_ARG_INT:
        return rp_get_i64(j, key, path, true, INT64_MIN, INT64_MAX, &a->i, cause);
    case RUN_ARG_I32:
        return rp_get_i64(j, key, path, true, INT32_MIN, INT32_MAX, &a->i, cause);
    case RUN_ARG_U64:
        return rp_get_u64(j, key, path, true, UINT64_MAX, &a->u, cause);
    case RUN_ARG_U32:
        return rp_get_u64(j, key, path, true, UINT32_MAX, &a->u, cause);
    case RUN_ARG_F32:
    case RUN_ARG_F64:
        return rp_get_f64(j, key, path, true, &a->f, cause);
    }
    return BW_ERR_INTERNAL;
}

int rp_get_plan(const json_t *j, const char *type, struct run_plan *p, char **cause)
{
    char seed[24] = "", path[96], role[16], dt[16];
    json_t *bufs, *launches, *gather;
    size_t n;
    uint64_t total = 0;
    int64_t v;
    int rc;

    memset(p, 0, sizeof(*p));
    if ((rc = rp_get_str(j, "seed", type, true, seed, sizeof(seed), cause)))
        return rc;
    if (!seed[0] || strlen(seed) > 16 || strspn(seed, "0123456789abcdefABCDEF") != strlen(seed))
        return bw_fail(cause, BW_ERR_INVALID, "%s.seed: \"%s\" is not 1 to 16 hex digits", type,
                       seed);
    p->seed = strtoull(seed, NULL, 16);
    v = 0;
    if ((rc = rp_get_i64(j, "case", type, true, 0, (1 << 30) - 1, &v, cause)))
        return rc;
    p->case_index = (uint32_t)v;

    if ((rc = rp_get_array(j, "buffers", type, true, BW_MAX_BUFFERS, &bufs, &n, cause)))
        return rc;
    p->n_buffers = (int)n;
    for (size_t i = 0; i < n; i++) {
        struct run_buffer *b = &p->buffers[i];
        json_t *bo = json_array_get(bufs, i), *gen;
        size_t es;

        snprintf(path, sizeof(path), "%s.buffers[%zu]", type, i);
        if (!json_is_object(bo))
            return bw_fail(cause, BW_ERR_INVALID, "%s: expected an object", path);
        if ((rc = rp_get_str(bo, "name", path, true, b->name, sizeof(b->name), cause)) ||
            (rc = rp_get_str(bo, "dtype", path, true, dt, sizeof(dt), cause)) ||
            (rc = rp_get_str(bo, "role", path, true, role, sizeof(role), cause)))
            return rc;
        if (!is_identifier(b->name))
            return bw_fail(cause, BW_ERR_INVALID, "%s.name: \"%s\" is not a name", path, b->name);
        b->dtype = dtype_parse(dt);
        if (b->dtype == DTYPE_INVALID)
            return bw_fail(cause, BW_ERR_INVALID, "%s.dtype: unknown dtype \"%s\" (expected %s)",
                           path, dt, dtype_all_names());
        es = dtype_size(b->dtype);
        if ((rc = rp_get_u64(bo, "count", path, true, UINT64_MAX, &b->count, cause)))
            return rc;
        if (b->count > BW_MAX_TENSOR_BYTES / es)
            return bw_fail(cause, BW_ERR_LIMIT,
                           "%s.count: %" PRIu64 " elements of %s are over BW_MAX_TENSOR_BYTES "
                           "(%llu bytes)",
                           path, b->count, dtype_name(b->dtype),
                           (unsigned long long)BW_MAX_TENSOR_BYTES);
        total += b->count * es;
        for (int r = RUN_ROLE_IN; r <= RUN_ROLE_DATA; r++)
            if (strcmp(role, role_names[r]) == 0)
                b->role = (enum run_role)r;
        if (!b->role)
            return bw_fail(cause, BW_ERR_INVALID,
                           "%s.role: unknown role \"%s\" (expected in, inout, out, scratch, data)",
                           path, role);
        if (b->role == RUN_ROLE_DATA && b->dtype != DTYPE_INT64)
            return bw_fail(cause, BW_ERR_INVALID, "%s.dtype: a data buffer is int64, not %s", path,
                           dtype_name(b->dtype));
        gen = json_object_get(bo, "gen");
        if (b->role == RUN_ROLE_IN || b->role == RUN_ROLE_INOUT) {
            char gpath[112];
            snprintf(gpath, sizeof(gpath), "%s.gen", path);
            if (!gen)
                return bw_fail(cause, BW_ERR_INVALID, "%s: missing (a generated buffer)", gpath);
            if ((rc = gen_spec_from_json(gen, &b->gen, gpath, cause)))
                return rc;
            if (b->gen.dtype != (uint32_t)b->dtype)
                return bw_fail(cause, BW_ERR_INVALID, "%s.dtype: %s differs from the buffer's %s",
                               gpath, dtype_name((enum dtype)b->gen.dtype), dtype_name(b->dtype));
        } else if (gen) {
            return bw_fail(cause, BW_ERR_INVALID,
                           "%s.gen: only in and inout buffers are "
                           "generated",
                           path);
        }
    }
    if (total > BW_MAX_CASE_BYTES)
        return bw_fail(cause, BW_ERR_LIMIT,
                       "%s: buffers of %" PRIu64 " bytes in all, over BW_MAX_CASE_BYTES (%llu)",
                       type, total, (unsigned long long)BW_MAX_CASE_BYTES);

    if ((rc = rp_get_array(j, "launches", type, true, BW_MAX_LAUNCHES, &launches, &n, cause)))
        return rc;
    if (n == 0)
        return bw_fail(cause, BW_ERR_INVALID, "%s.launches: a plan needs at least one launch",
                       type);
    p->n_launches = (int)n;
    for (size_t l = 0; l < n; l++) {
        struct run_launch *L = &p->launches[l];
        json_t *lo = json_array_get(launches, l), *args;
        size_t na;

        snprintf(path, sizeof(path), "%s.launches[%zu]", type, l);
        if (!json_is_object(lo))
            return bw_fail(cause, BW_ERR_INVALID, "%s: expected an object", path);
        if ((rc = rp_get_str(lo, "kernel", path, true, L->kernel, sizeof(L->kernel), cause)) ||
            (rc = get_dim3(lo, "grid", path, L->grid, cause)) ||
            (rc = get_dim3(lo, "block", path, L->block, cause)) ||
            (rc = rp_get_u32(lo, "smem", path, false, UINT32_MAX, &L->smem, cause)) ||
            (rc = rp_get_array(lo, "args", path, true, BW_MAX_LAUNCH_ARGS, &args, &na, cause)))
            return rc;
        if (!is_identifier(L->kernel))
            return bw_fail(cause, BW_ERR_INVALID, "%s.kernel: \"%s\" is not a kernel name", path,
                           L->kernel);
        L->n_args = (int)na;
        for (size_t a = 0; a < na; a++) {
            char apath[128];
            snprintf(apath, sizeof(apath), "%s.args[%zu]", path, a);
            if ((rc = get_arg(json_array_get(args, a), apath, p->n_buffers, &L->args[a], cause)))
                return rc;
        }
    }

    if ((rc = rp_get_array(j, "gather", type, false, BW_MAX_BUFFERS, &gather, &n, cause)))
        return rc;
    p->n_gather = (int)n;
    for (size_t k = 0; k < n; k++) {
        struct run_gather *g = &p->gather[k];
        json_t *go = json_array_get(gather, k);
        int64_t b = 0;

        snprintf(path, sizeof(path), "%s.gather[%zu]", type, k);
        if (!json_is_object(go))
            return bw_fail(cause, BW_ERR_INVALID, "%s: expected an object", path);
        if ((rc = rp_get_i64(go, "buf", path, true, 0, p->n_buffers - 1, &b, cause)) ||
            (rc = rp_get_u64(go, "offset", path, true, UINT32_MAX, &g->offset, cause)) ||
            (rc = rp_get_u64(go, "count", path, true, UINT32_MAX, &g->count, cause)))
            return rc;
        g->buf = (int)b;
        if (p->buffers[b].role != RUN_ROLE_OUT && p->buffers[b].role != RUN_ROLE_INOUT)
            return bw_fail(cause, BW_ERR_INVALID, "%s.buf: buffer %d (%s) is not an output", path,
                           g->buf, p->buffers[b].name);
    }
    return BW_OK;
}

json_t *run_request_to_json(const struct run_request *r)
{
    json_t *o = json_object();
    bool ok = o != NULL;

    if (!o)
        return NULL;
    rp_put(o, "type", json_string("run"), &ok);
    rp_put_plan(o, &r->plan, &ok);
    rp_put(o, "return", json_string(r->ret == RUN_RETURN_GATHER ? "gather" : "full"), &ok);
    if (r->scan)
        rp_put(o, "scan", json_true(), &ok);
    return rp_finish(o, ok);
}

int run_request_from_json(const json_t *j, struct run_request *r, char **cause)
{
    char ret[16] = "full";
    const json_t *into, *lend, *scan;
    int rc;

    memset(r, 0, sizeof(*r));
    if ((rc = rp_get_plan(j, "run", &r->plan, cause)) ||
        (rc = rp_get_str(j, "return", "run", false, ret, sizeof(ret), cause)))
        return rc;
    if (strcmp(ret, "full") == 0)
        r->ret = RUN_RETURN_FULL;
    else if (strcmp(ret, "gather") == 0)
        r->ret = RUN_RETURN_GATHER;
    else
        return bw_fail(cause, BW_ERR_INVALID, "run.return: expected full or gather, got \"%s\"",
                       ret);
    r->into = -1;
    into = json_object_get(j, "into");
    lend = json_object_get(j, "lend");
    if (into) {
        if (!json_is_integer(into) || json_integer_value(into) < 0 ||
            json_integer_value(into) >= BW_RUNNER_LENT_SLOTS)
            return bw_fail(cause, BW_ERR_INVALID, "run.into: expected a lent buffer 0..%d",
                           BW_RUNNER_LENT_SLOTS - 1);
        if (r->ret != RUN_RETURN_FULL)
            return bw_fail(cause, BW_ERR_INVALID,
                           "run.into: only a full return goes into a "
                           "lent buffer");
        r->into = (int)json_integer_value(into);
    }
    if (lend) {
        if (!json_is_boolean(lend))
            return bw_fail(cause, BW_ERR_INVALID, "run.lend: expected true or false");
        if (json_is_true(lend) && r->into < 0)
            return bw_fail(cause, BW_ERR_INVALID, "run.lend: lends a buffer without \"into\"");
        r->lend = json_is_true(lend);
    }
    scan = json_object_get(j, "scan");
    if (scan && !json_is_boolean(scan))
        return bw_fail(cause, BW_ERR_INVALID, "run.scan: expected true or false");
    r->scan = json_is_true(scan);
    return BW_OK;
}

uint64_t run_plan_return_bytes(const struct run_plan *p)
{
    uint64_t total = 0;

    for (int b = 0; b < p->n_buffers; b++)
        if (p->buffers[b].role == RUN_ROLE_OUT || p->buffers[b].role == RUN_ROLE_INOUT)
            total += p->buffers[b].count * dtype_size(p->buffers[b].dtype);
    return total;
}

uint64_t run_plan_device_bytes(const struct run_plan *p)
{
    return run_plan_device_bytes_sets(p, 1);
}

int run_buffer_copies(enum run_role role, uint32_t sets)
{
    return (role == RUN_ROLE_IN || role == RUN_ROLE_INOUT) && sets > 1 ? (int)sets : 1;
}

uint64_t run_plan_device_bytes_sets(const struct run_plan *p, uint32_t sets)
{
    uint64_t total = 0;

    for (int b = 0; b < p->n_buffers; b++)
        total += (uint64_t)run_buffer_copies(p->buffers[b].role, sets) *
                 (p->buffers[b].count * dtype_size(p->buffers[b].dtype) + 2ull * BW_GUARD_BYTES);
    return total;
}

json_t *bench_request_to_json(const struct bench_request *r)
{
    json_t *o = json_object();
    bool ok = o != NULL;

    if (!o)
        return NULL;
    rp_put(o, "type", json_string("bench"), &ok);
    rp_put_plan(o, &r->plan, &ok);
    rp_put(o, "sets", json_integer(r->sets), &ok);
    rp_put(o, "min_samples", json_integer(r->min_samples), &ok);
    rp_put(o, "max_samples", json_integer(r->max_samples), &ok);
    rp_put(o, "target_rse", rp_double(r->target_rse), &ok);
    rp_put(o, "budget_ms", rp_double(r->budget_ms), &ok);
    rp_put(o, "warmup_ms", rp_double(r->warmup_ms), &ok);
    if (r->warmup_runs)
        rp_put(o, "warmup_runs", json_integer(r->warmup_runs), &ok);
    rp_put(o, "l2_flush_bytes", rp_u64(r->l2_flush_bytes), &ok);
    return rp_finish(o, ok);
}

int bench_request_from_json(const json_t *j, struct bench_request *r, char **cause)
{
    int rc;

    memset(r, 0, sizeof(*r));
    r->sets = 1;
    if ((rc = rp_get_plan(j, "bench", &r->plan, cause)) ||
        (rc = rp_get_u32(j, "sets", "bench", false, BW_MAX_BENCH_SETS, &r->sets, cause)) ||
        (rc = rp_get_u32(j, "min_samples", "bench", true, BW_BENCH_MAX_SAMPLES, &r->min_samples,
                         cause)) ||
        (rc = rp_get_u32(j, "max_samples", "bench", true, BW_BENCH_MAX_SAMPLES, &r->max_samples,
                         cause)) ||
        (rc = rp_get_finite(j, "target_rse", "bench", true, 0, 1, &r->target_rse, cause)) ||
        (rc = rp_get_finite(j, "budget_ms", "bench", true, 0, 3600e3, &r->budget_ms, cause)) ||
        (rc = rp_get_finite(j, "warmup_ms", "bench", false, 0, 3600e3, &r->warmup_ms, cause)) ||
        (rc = rp_get_u32(j, "warmup_runs", "bench", false, BW_BENCH_MAX_WARMUP_RUNS,
                         &r->warmup_runs, cause)) ||
        (rc = rp_get_u64(j, "l2_flush_bytes", "bench", false, BW_MAX_TENSOR_BYTES,
                         &r->l2_flush_bytes, cause)))
        return rc;
    if (r->sets < 1)
        return bw_fail(cause, BW_ERR_INVALID, "bench.sets: at least 1 input set");
    if (r->min_samples < 1 || r->max_samples < r->min_samples)
        return bw_fail(cause, BW_ERR_INVALID,
                       "bench: need 1 <= min_samples (%u) <= max_samples (%u)", r->min_samples,
                       r->max_samples);
    if (r->plan.case_index + (uint64_t)r->sets > (1u << 30))
        return bw_fail(cause, BW_ERR_INVALID, "bench: case %u + %u sets passes 2^30",
                       r->plan.case_index, r->sets);
    return BW_OK;
}

/* --- run and bench replies -------------------------------------------------------- */

static const char *const run_phase_names[RUN_PHASES] = {
    [RUN_PHASE_ALLOC] = "alloc",   [RUN_PHASE_SETUP] = "setup",   [RUN_PHASE_LAUNCH] = "launch",
    [RUN_PHASE_CHECKS] = "checks", [RUN_PHASE_RETURN] = "return", [RUN_PHASE_FREE] = "free",
};

const char *run_phase_name(enum run_phase p)
{
    return (unsigned)p < RUN_PHASES ? run_phase_names[p] : "?";
}

json_t *run_reply_to_json(const struct run_reply *r)
{
    json_t *o = json_object(), *outs, *phases;
    bool ok = o != NULL;

    if (!o)
        return NULL;
    rp_put(o, "type", json_string("result"), &ok);
    rp_put_failure(o, &r->fail, &ok);
    if (r->fail.status != RUN_OK)
        return rp_finish(o, ok);
    rp_put(o, "ms", rp_double(r->ms), &ok);
    phases = json_object();
    rp_put(o, "phases", phases, &ok);
    for (int k = 0; phases && k < RUN_PHASES; k++)
        if (json_object_set_new(phases, run_phase_name((enum run_phase)k),
                                rp_double(r->phase_ms[k])))
            ok = false;
    outs = json_array();
    rp_put(o, "outputs", outs, &ok);
    for (int k = 0; outs && k < r->n_outputs; k++)
        rp_push(outs,
                json_pack("{s:i, s:o, s:o}", "buf", r->outputs[k].buf, "offset",
                          rp_u64(r->outputs[k].offset), "bytes", rp_u64(r->outputs[k].bytes)),
                &ok);
    if (r->n_poison > 0) { /* a scan's counts */
        json_t *pbufs = json_array(), *poison = json_array();
        rp_put(o, "poison_bufs", pbufs, &ok);
        rp_put(o, "poison", poison, &ok);
        for (int k = 0; pbufs && poison && k < r->n_poison; k++) {
            rp_push(pbufs, json_integer(r->poison_buf[k]), &ok);
            rp_push(poison, rp_u64(r->poison[k]), &ok);
        }
    }
    return rp_finish(o, ok);
}

/* A run reply's scan (optional: "poison_bufs" and "poison", one count each). */
static int get_run_poison(const json_t *j, struct run_reply *r, char **cause)
{
    json_t *pbufs, *poison;
    size_t n, np;
    int rc;

    if ((rc = rp_get_array(j, "poison_bufs", "result", false, BW_MAX_BUFFERS, &pbufs, &n, cause)) ||
        (rc = rp_get_array(j, "poison", "result", n > 0, BW_MAX_BUFFERS, &poison, &np, cause)))
        return rc;
    if (n > 0 && np != n)
        return bw_fail(cause, BW_ERR_INVALID, "result.poison: expected %zu counts", n);
    r->n_poison = (int)n;
    for (size_t k = 0; k < n; k++) {
        json_t *b = json_array_get(pbufs, k);
        if (!json_is_integer(b) || json_integer_value(b) < 0 ||
            json_integer_value(b) >= BW_MAX_BUFFERS)
            return bw_fail(cause, BW_ERR_INVALID,
                           "result.poison_bufs[%zu]: expected a buffer index", k);
        r->poison_buf[k] = (int)json_integer_value(b);
        if (rp_value_u64(json_array_get(poison, k), &r->poison[k]))
            return bw_fail(cause, BW_ERR_INVALID, "result.poison[%zu]: expected a count", k);
    }
    return BW_OK;
}

int run_reply_from_json(const json_t *j, struct run_reply *r, char **cause)
{
    json_t *outs, *phases;
    size_t n;
    int rc;

    memset(r, 0, sizeof(*r));
    rc = rp_get_failure(j, "result", &r->fail, cause);
    if (rc || r->fail.status != RUN_OK)
        return rc;
    if ((rc = rp_get_f64(j, "ms", "result", false, &r->ms, cause)) ||
        (rc = rp_get_array(j, "outputs", "result", true, BW_MAX_BUFFERS, &outs, &n, cause)))
        return rc;
    phases = json_object_get(j, "phases");
    if (phases && !json_is_object(phases))
        return bw_fail(cause, BW_ERR_INVALID, "result.phases: expected an object");
    for (int k = 0; phases && k < RUN_PHASES; k++)
        if ((rc = rp_get_finite(phases, run_phase_name((enum run_phase)k), "result.phases", false,
                                0, 1e12, &r->phase_ms[k], cause)))
            return rc;
    r->n_outputs = (int)n;
    for (size_t k = 0; k < n; k++) {
        json_t *oo = json_array_get(outs, k);
        char path[48];
        int64_t b = 0;
        snprintf(path, sizeof(path), "result.outputs[%zu]", k);
        if (!json_is_object(oo))
            return bw_fail(cause, BW_ERR_INVALID, "%s: expected an object", path);
        if ((rc = rp_get_i64(oo, "buf", path, true, 0, BW_MAX_BUFFERS - 1, &b, cause)) ||
            (rc = rp_get_u64(oo, "offset", path, true, BW_MAX_RETURN_BYTES, &r->outputs[k].offset,
                             cause)) ||
            (rc = rp_get_u64(oo, "bytes", path, true, BW_MAX_RETURN_BYTES, &r->outputs[k].bytes,
                             cause)))
            return rc;
        r->outputs[k].buf = (int)b;
    }
    return get_run_poison(j, r, cause);
}

static const char *const stop_names[] = {
    [BENCH_STOP_RSE] = "rse",
    [BENCH_STOP_MAX_SAMPLES] = "max",
    [BENCH_STOP_BUDGET] = "budget",
};

const char *bench_stop_name(enum bench_stop s)
{
    if ((unsigned)s > BENCH_STOP_BUDGET)
        return "invalid";
    return stop_names[s];
}

void bench_reply_release(struct bench_reply *r)
{
    free(r->samples_ms);
    free(r->poison);
    r->samples_ms = NULL;
    r->poison = NULL;
    r->n_samples = 0;
}

json_t *bench_reply_to_json(const struct bench_reply *r)
{
    json_t *o = json_object(), *samples, *poison, *pbufs, *clock;
    bool ok = o != NULL;

    if (!o)
        return NULL;
    rp_put(o, "type", json_string("bench_result"), &ok);
    rp_put_failure(o, &r->fail, &ok);
    if (r->fail.status == RUN_OK)
        rp_put(o, "stop", json_string(bench_stop_name(r->stop)), &ok);
    samples = json_array();
    rp_put(o, "samples_ms", samples, &ok);
    for (uint32_t s = 0; samples && s < r->n_samples; s++)
        rp_push(samples, rp_double(r->samples_ms[s]), &ok);
    pbufs = json_array();
    rp_put(o, "poison_bufs", pbufs, &ok);
    for (int k = 0; pbufs && k < r->n_poison; k++)
        rp_push(pbufs, json_integer(r->poison_buf[k]), &ok);
    poison = json_array();
    rp_put(o, "poison", poison, &ok);
    for (uint32_t s = 0; poison && r->poison && s < r->n_samples; s++) {
        json_t *row = json_array();
        rp_push(poison, row, &ok);
        for (int k = 0; row && k < r->n_poison; k++)
            rp_push(row, rp_u64(r->poison[(size_t)s * (size_t)r->n_poison + (size_t)k]), &ok);
    }
    clock = json_array();
    rp_put(o, "clock_mhz", clock, &ok);
    if (clock) {
        rp_push(clock, rp_double(r->clock_mhz[0]), &ok);
        rp_push(clock, rp_double(r->clock_mhz[1]), &ok);
    }
    rp_put(o, "gathered", json_pack("{s:o}", "bytes_per_sample", rp_u64(r->bytes_per_sample)), &ok);
    return rp_finish(o, ok);
}

int bench_reply_from_json(const json_t *j, struct bench_reply *r, char **cause)
{
    json_t *samples, *poison, *pbufs, *clock, *gathered;
    char stop[16] = "";
    size_t n, np;
    int rc;

    memset(r, 0, sizeof(*r));
    rc = rp_get_failure(j, "bench_result", &r->fail, cause);
    if (rc)
        return rc;
    if (r->fail.status == RUN_OK) {
        if ((rc = rp_get_str(j, "stop", "bench_result", true, stop, sizeof(stop), cause)))
            return rc;
        int found = -1;
        for (int s = BENCH_STOP_RSE; s <= BENCH_STOP_BUDGET; s++)
            if (strcmp(stop, stop_names[s]) == 0)
                found = s;
        if (found < 0)
            return bw_fail(cause, BW_ERR_INVALID, "bench_result.stop: unknown reason \"%s\"", stop);
        r->stop = (enum bench_stop)found;
    }
    if ((rc = rp_get_array(j, "samples_ms", "bench_result", r->fail.status == RUN_OK,
                           BW_BENCH_MAX_SAMPLES, &samples, &n, cause)) ||
        (rc = rp_get_array(j, "poison_bufs", "bench_result", false, BW_MAX_BUFFERS, &pbufs, &np,
                           cause)))
        return rc;
    r->n_poison = (int)np;
    for (size_t k = 0; k < np; k++) {
        json_t *b = json_array_get(pbufs, k);
        if (!json_is_integer(b) || json_integer_value(b) < 0 ||
            json_integer_value(b) >= BW_MAX_BUFFERS)
            return bw_fail(cause, BW_ERR_INVALID,
                           "bench_result.poison_bufs[%zu]: expected a "
                           "buffer index",
                           k);
        r->poison_buf[k] = (int)json_integer_value(b);
    }
    if (n > 0) {
        r->samples_ms = calloc(n, sizeof(double));
        r->poison = calloc(n * (np ? np : 1), sizeof(uint64_t));
        if (!r->samples_ms || !r->poison) {
            bench_reply_release(r);
            return bw_fail(cause, BW_ERR_NOMEM, "out of memory for %zu samples", n);
        }
    }
    r->n_samples = (uint32_t)n;
    for (size_t s = 0; s < n; s++) {
        if (rp_value_f64(json_array_get(samples, s), &r->samples_ms[s]) ||
            !isfinite(r->samples_ms[s]) || r->samples_ms[s] < 0)
            return bw_fail(cause, BW_ERR_INVALID,
                           "bench_result.samples_ms[%zu]: expected a time "
                           "in ms",
                           s);
    }
    poison = json_object_get(j, "poison");
    if (n > 0 && np > 0 && (!json_is_array(poison) || json_array_size(poison) != n))
        return bw_fail(cause, BW_ERR_INVALID, "bench_result.poison: expected %zu rows", n);
    for (size_t s = 0; s < n && np > 0; s++) {
        json_t *row = json_array_get(poison, s);
        if (!json_is_array(row) || json_array_size(row) != np)
            return bw_fail(cause, BW_ERR_INVALID, "bench_result.poison[%zu]: expected %zu counts",
                           s, np);
        for (size_t k = 0; k < np; k++)
            if (rp_value_u64(json_array_get(row, k), &r->poison[s * np + k]))
                return bw_fail(cause, BW_ERR_INVALID,
                               "bench_result.poison[%zu][%zu]: expected a "
                               "count",
                               s, k);
    }
    clock = json_object_get(j, "clock_mhz");
    if (clock) {
        if (!json_is_array(clock) || json_array_size(clock) != 2 ||
            rp_value_f64(json_array_get(clock, 0), &r->clock_mhz[0]) ||
            rp_value_f64(json_array_get(clock, 1), &r->clock_mhz[1]))
            return bw_fail(cause, BW_ERR_INVALID,
                           "bench_result.clock_mhz: expected [before, "
                           "after]");
    }
    gathered = json_object_get(j, "gathered");
    if (gathered && (rc = rp_get_u64(gathered, "bytes_per_sample", "bench_result.gathered", true,
                                     BW_MAX_RETURN_BYTES, &r->bytes_per_sample, cause)))
        return rc;
    return BW_OK;
}

/* --- calibration --------------------------------------------------------------------- */

json_t *calibration_to_json(const struct calibration *c, const struct run_failure *fail)
{
    json_t *o = json_object();
    bool ok = o != NULL;

    if (!o)
        return NULL;
    rp_put(o, "type", json_string("calibration"), &ok);
    rp_put_failure(o, fail, &ok);
    if (fail->status != RUN_OK)
        return rp_finish(o, ok);
    rp_put(o, "copy_gbps", rp_double(c->copy_gbps), &ok);
    rp_put(o, "fp32_tflops", rp_double(c->fp32_tflops), &ok);
    rp_put(o, "fp16_tensor_tflops", rp_double(c->fp16_tensor_tflops), &ok);
    rp_put(o, "bf16_tensor_tflops", rp_double(c->bf16_tensor_tflops), &ok);
    rp_put(o, "clock_mhz", rp_double(c->clock_mhz), &ok);
    return rp_finish(o, ok);
}

int calibration_from_json(const json_t *j, struct calibration *c, struct run_failure *fail,
                          char **cause)
{
    int rc;

    memset(c, 0, sizeof(*c));
    rc = rp_get_failure(j, "calibration", fail, cause);
    if (rc || fail->status != RUN_OK)
        return rc;
    if ((rc = rp_get_finite(j, "copy_gbps", "calibration", true, 0, 1e9, &c->copy_gbps, cause)) ||
        (rc = rp_get_finite(j, "fp32_tflops", "calibration", true, 0, 1e9, &c->fp32_tflops,
                            cause)) ||
        (rc = rp_get_finite(j, "fp16_tensor_tflops", "calibration", true, 0, 1e9,
                            &c->fp16_tensor_tflops, cause)) ||
        (rc = rp_get_finite(j, "bf16_tensor_tflops", "calibration", true, 0, 1e9,
                            &c->bf16_tensor_tflops, cause)) ||
        (rc = rp_get_finite(j, "clock_mhz", "calibration", false, 0, 1e6, &c->clock_mhz, cause)))
        return rc;
    return BW_OK;
}
