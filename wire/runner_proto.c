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

/* --- ready --------------------------------------------------------------------------- */

static const char *const ready_error_names[] = {
    [READY_OK] = "ok",     [READY_NO_DEVICE] = "no_device", [READY_SANDBOX] = "sandbox",
    [READY_CUDA] = "cuda", [READY_USAGE] = "usage",
};

json_t *ready_to_json(const struct ready_msg *r)
{
    json_t *o = json_object(), *g;
    bool ok = o != NULL;
    char cc[16];

    if (!o)
        return NULL;
    rp_put(o, "type", json_string("ready"), &ok);
    if (r->error != READY_OK) {
        rp_put(o, "error",
               json_pack("{s:s, s:s}", "kind", ready_error_names[r->error], "message", r->message),
               &ok);
        return rp_finish(o, ok);
    }
    g = json_object();
    rp_put(o, "gpu", g, &ok);
    if (!g)
        return rp_finish(o, false);
    snprintf(cc, sizeof(cc), "%d.%d", r->gpu.cc_major, r->gpu.cc_minor);
    rp_put(g, "name", json_string(r->gpu.name), &ok);
    rp_put(g, "cc", json_string(cc), &ok);
    rp_put(g, "sm_count", json_integer(r->gpu.sm_count), &ok);
    rp_put(g, "memory_bytes", rp_u64(r->gpu.memory_bytes), &ok);
    rp_put(g, "l2_bytes", rp_u64(r->gpu.l2_bytes), &ok);
    rp_put(g, "driver_version", json_integer(r->gpu.driver_version), &ok);
    rp_put(g, "uuid", json_string(r->gpu.uuid), &ok);
    rp_put(g, "max_clock_mhz", json_integer(r->gpu.max_clock_mhz), &ok);
    rp_put(g, "smem_per_block_optin", json_integer(r->gpu.smem_per_block_optin), &ok);
    rp_put(g, "nvml", json_boolean(r->gpu.nvml), &ok);
    return rp_finish(o, ok);
}

int ready_from_json(const json_t *j, struct ready_msg *r, char **cause)
{
    json_t *err, *g;
    char kind[32] = "", cc[16] = "";
    int64_t v;
    int rc;

    memset(r, 0, sizeof(*r));
    if (strcmp(msg_type(j), "ready") != 0)
        return bw_fail(cause, BW_ERR_PROTOCOL, "expected a ready message, got type \"%s\"",
                       msg_type(j));
    err = json_object_get(j, "error");
    if (err) {
        if (!json_is_object(err))
            return rp_bad(cause, "ready", "error", "expected an object");
        rc = rp_get_str(err, "kind", "ready.error", true, kind, sizeof(kind), cause);
        if (!rc)
            rc = rp_get_str(err, "message", "ready.error", true, r->message, sizeof(r->message),
                            cause);
        if (rc)
            return rc;
        for (int k = READY_NO_DEVICE; k <= READY_USAGE; k++)
            if (strcmp(kind, ready_error_names[k]) == 0)
                r->error = (enum ready_error)k;
        if (r->error == READY_OK)
            return bw_fail(cause, BW_ERR_INVALID, "ready.error.kind: unknown kind \"%s\"", kind);
        return BW_OK;
    }
    g = json_object_get(j, "gpu");
    if (!json_is_object(g))
        return rp_bad(cause, "ready", "gpu", "expected an object");
    if ((rc = rp_get_str(g, "name", "ready.gpu", true, r->gpu.name, sizeof(r->gpu.name), cause)) ||
        (rc = rp_get_str(g, "cc", "ready.gpu", true, cc, sizeof(cc), cause)) ||
        (rc = rp_get_str(g, "uuid", "ready.gpu", false, r->gpu.uuid, sizeof(r->gpu.uuid), cause)) ||
        (rc = rp_get_u64(g, "memory_bytes", "ready.gpu", true, UINT64_MAX, &r->gpu.memory_bytes,
                         cause)) ||
        (rc = rp_get_u64(g, "l2_bytes", "ready.gpu", true, UINT64_MAX, &r->gpu.l2_bytes, cause)) ||
        (rc = rp_get_bool(g, "nvml", "ready.gpu", &r->gpu.nvml, cause)))
        return rc;
    if (sscanf(cc, "%d.%d", &r->gpu.cc_major, &r->gpu.cc_minor) != 2)
        return bw_fail(cause, BW_ERR_INVALID, "ready.gpu.cc: \"%s\" is not MAJOR.MINOR", cc);
    v = 0;
    if ((rc = rp_get_i64(g, "sm_count", "ready.gpu", true, 1, 1 << 20, &v, cause)))
        return rc;
    r->gpu.sm_count = (int)v;
    v = 0;
    if ((rc = rp_get_i64(g, "driver_version", "ready.gpu", false, 0, INT32_MAX, &v, cause)))
        return rc;
    r->gpu.driver_version = (int)v;
    v = 0;
    if ((rc = rp_get_i64(g, "max_clock_mhz", "ready.gpu", false, 0, INT32_MAX, &v, cause)))
        return rc;
    r->gpu.max_clock_mhz = (int)v;
    v = 0;
    if ((rc = rp_get_i64(g, "smem_per_block_optin", "ready.gpu", false, 0, INT32_MAX, &v, cause)))
        return rc;
    r->gpu.smem_per_block_optin = (int)v;
    return BW_OK;
}

/* --- gen_spec ------------------------------------------------------------------------ */

static const char *const gen_kind_names[] = {
    [GEN_UNIFORM] = "uniform", [GEN_NORMAL] = "normal",   [GEN_LOGUNIFORM] = "loguniform",
    [GEN_CONST] = "const",     [GEN_RANDINT] = "randint",
};

#define GEN_ALL_FLAGS (GEN_NEGATE | GEN_SIGNED | GEN_ROW_OFFSET | GEN_SPIKE)

json_t *gen_spec_to_json(const struct gen_spec *g)
{
    json_t *o = json_object(), *sp;
    bool ok = o != NULL;
    const char *kind =
        g->kind >= GEN_UNIFORM && g->kind <= GEN_RANDINT ? gen_kind_names[g->kind] : "invalid";

    if (!o)
        return NULL;
    rp_put(o, "kind", json_string(kind), &ok);
    rp_put(o, "dtype", json_string(dtype_name((enum dtype)g->dtype)), &ok);
    rp_put(o, "stream", json_integer(g->stream), &ok);
    rp_put(o, "flags", json_integer(g->flags), &ok);
    rp_put(o, "a", rp_double(g->a), &ok);
    rp_put(o, "b", rp_double(g->b), &ok);
    rp_put(o, "ilo", json_integer(g->ilo), &ok);
    rp_put(o, "ihi", json_integer(g->ihi), &ok);
    rp_put(o, "row_len", json_integer(g->row_len), &ok);
    rp_put(o, "row_lo", rp_double(g->row_lo), &ok);
    rp_put(o, "row_hi", rp_double(g->row_hi), &ok);
    rp_put(o, "spike", rp_double(g->spike), &ok);
    sp = json_array();
    rp_put(o, "specials", sp, &ok);
    for (uint32_t i = 0; sp && i < g->n_specials && i < GEN_MAX_SPECIALS; i++) {
        json_t *pair = json_array();
        rp_push(sp, pair, &ok);
        if (pair) {
            rp_push(pair, rp_double(g->special_value[i]), &ok);
            rp_push(pair, rp_double(g->special_fraction[i]), &ok);
        }
    }
    return rp_finish(o, ok);
}

int gen_spec_from_json(const json_t *j, struct gen_spec *g, const char *path, char **cause)
{
    char kind[16] = "", dt[16] = "";
    int64_t v;
    json_t *sp;
    size_t n;
    int rc;

    memset(g, 0, sizeof(*g));
    g->row_len = 1;
    if (!json_is_object(j))
        return bw_fail(cause, BW_ERR_INVALID, "%s: expected an object", path);
    if ((rc = rp_get_str(j, "kind", path, true, kind, sizeof(kind), cause)) ||
        (rc = rp_get_str(j, "dtype", path, true, dt, sizeof(dt), cause)))
        return rc;
    for (uint32_t k = GEN_UNIFORM; k <= GEN_RANDINT; k++)
        if (strcmp(kind, gen_kind_names[k]) == 0)
            g->kind = k;
    if (!g->kind)
        return bw_fail(cause, BW_ERR_INVALID, "%s.kind: unknown distribution \"%s\"", path, kind);
    g->dtype = (uint32_t)dtype_parse(dt);
    if (g->dtype == DTYPE_INVALID)
        return bw_fail(cause, BW_ERR_INVALID, "%s.dtype: unknown dtype \"%s\" (expected %s)", path,
                       dt, dtype_all_names());
    if ((rc = rp_get_u32(j, "stream", path, false, UINT32_MAX, &g->stream, cause)) ||
        (rc = rp_get_u32(j, "flags", path, false, GEN_ALL_FLAGS, &g->flags, cause)))
        return rc;
    if (g->flags & ~(uint32_t)GEN_ALL_FLAGS)
        return bw_fail(cause, BW_ERR_INVALID, "%s.flags: unknown flag bits 0x%x", path, g->flags);
    if ((rc = rp_get_f64(j, "a", path, false, &g->a, cause)) ||
        (rc = rp_get_f64(j, "b", path, false, &g->b, cause)) ||
        (rc = rp_get_i64(j, "ilo", path, false, INT64_MIN, INT64_MAX, &g->ilo, cause)) ||
        (rc = rp_get_i64(j, "ihi", path, false, INT64_MIN, INT64_MAX, &g->ihi, cause)) ||
        (rc = rp_get_f64(j, "spike", path, false, &g->spike, cause)))
        return rc;
    v = 1;
    if ((rc = rp_get_i64(j, "row_len", path, false, 1, INT64_MAX, &v, cause)))
        return rc;
    g->row_len = v;
    if (g->flags & GEN_ROW_OFFSET) {
        if ((rc = rp_get_finite(j, "row_lo", path, true, -1e300, 1e300, &g->row_lo, cause)) ||
            (rc = rp_get_finite(j, "row_hi", path, true, -1e300, 1e300, &g->row_hi, cause)))
            return rc;
    }
    switch (g->kind) {
    case GEN_UNIFORM:
        if (!isfinite(g->a) || !isfinite(g->b) || g->a > g->b)
            return bw_fail(cause, BW_ERR_INVALID, "%s: uniform needs finite a <= b (a=%g, b=%g)",
                           path, g->a, g->b);
        break;
    case GEN_NORMAL:
        if (!isfinite(g->a) || !isfinite(g->b) || g->b < 0)
            return bw_fail(cause, BW_ERR_INVALID,
                           "%s: normal needs a finite mean a and std b >= 0 (a=%g, b=%g)", path,
                           g->a, g->b);
        break;
    case GEN_LOGUNIFORM:
        if (!isfinite(g->a) || !isfinite(g->b) || !(g->a > 0) || g->a > g->b)
            return bw_fail(cause, BW_ERR_INVALID,
                           "%s: loguniform needs finite 0 < a <= b (a=%g, b=%g)", path, g->a, g->b);
        break;
    case GEN_RANDINT:
        if (g->ilo > g->ihi)
            return bw_fail(cause, BW_ERR_INVALID,
                           "%s: randint needs ilo <= ihi (ilo=%" PRId64 ", ihi=%" PRId64 ")", path,
                           g->ilo, g->ihi);
        break;
    default:
        break;
    }
    if ((rc = rp_get_array(j, "specials", path, false, GEN_MAX_SPECIALS, &sp, &n, cause)))
        return rc;
    for (size_t i = 0; i < n; i++) {
        json_t *pair = json_array_get(sp, i);
        double f;
        if (!json_is_array(pair) || json_array_size(pair) != 2 ||
            rp_value_f64(json_array_get(pair, 0), &g->special_value[i]) ||
            rp_value_f64(json_array_get(pair, 1), &f) || !(f >= 0 && f <= 1))
            return bw_fail(cause, BW_ERR_INVALID,
                           "%s.specials[%zu]: expected [value, fraction] with fraction in [0, 1]",
                           path, i);
        g->special_fraction[i] = f;
    }
    g->n_specials = (uint32_t)n;
    return BW_OK;
}

/* --- load -------------------------------------------------------------------------- */

json_t *load_request_to_json(const struct load_request *r)
{
    json_t *o = json_object(), *k = json_array();
    bool ok = o && k;

    if (!o || !k) {
        json_decref(o);
        json_decref(k);
        return NULL;
    }
    rp_put(o, "type", json_string("load"), &ok);
    rp_put(o, "kernels", k, &ok);
    for (int i = 0; i < r->n_kernels; i++)
        rp_push(k, json_string(r->kernels[i]), &ok);
    if (r->n_images > 0) {
        json_t *im = json_array();
        rp_put(o, "images", im, &ok);
        for (int i = 0; ok && i < r->n_images; i++)
            rp_push(im,
                    json_pack("{s:I, s:I, s:s}", "offset", (json_int_t)r->images[i].offset, "bytes",
                              (json_int_t)r->images[i].bytes, "symbol", r->images[i].symbol),
                    &ok);
    }
    return rp_finish(o, ok);
}

int load_request_from_json(const json_t *j, struct load_request *r, char **cause)
{
    json_t *k;
    size_t n;
    int rc;

    memset(r, 0, sizeof(*r));
    rc = rp_get_array(j, "kernels", "load", true, BW_MAX_LOADED_KERNELS, &k, &n, cause);
    if (rc)
        return rc;
    if (n == 0)
        return bw_fail(cause, BW_ERR_INVALID, "load.kernels: no kernel named");
    for (size_t i = 0; i < n; i++) {
        const char *s = json_string_value(json_array_get(k, i));
        if (!s || !is_identifier(s))
            return bw_fail(cause, BW_ERR_INVALID, "load.kernels[%zu]: expected a kernel name", i);
        snprintf(r->kernels[i], sizeof(r->kernels[i]), "%s", s);
    }
    r->n_kernels = (int)n;
    if (json_object_get(j, "images")) {
        json_t *im;
        size_t ni;
        rc = rp_get_array(j, "images", "load", true, BW_MAX_LOADED_KERNELS, &im, &ni, cause);
        if (rc)
            return rc;
        if (ni != n)
            return bw_fail(cause, BW_ERR_INVALID,
                           "load.images: %zu images for %zu kernels (one image per kernel)", ni, n);
        for (size_t i = 0; i < ni; i++) {
            json_t *e = json_array_get(im, i);
            json_t *off = json_object_get(e, "offset"), *bytes = json_object_get(e, "bytes");
            const char *sym = json_string_value(json_object_get(e, "symbol"));
            if (!json_is_integer(off) || json_integer_value(off) < 0 ||
                json_integer_value(off) % 8 != 0)
                return bw_fail(cause, BW_ERR_INVALID,
                               "load.images[%zu].offset: expected a multiple of 8, >= 0", i);
            if (!json_is_integer(bytes) || json_integer_value(bytes) < 1 ||
                json_integer_value(bytes) > BW_MAX_CUBIN_BYTES)
                return bw_fail(cause, BW_ERR_INVALID,
                               "load.images[%zu].bytes: expected an integer in [1, %d]", i,
                               BW_MAX_CUBIN_BYTES);
            if (!sym || !is_identifier(sym))
                return bw_fail(cause, BW_ERR_INVALID,
                               "load.images[%zu].symbol: expected a kernel name", i);
            r->images[i].offset = (uint64_t)json_integer_value(off);
            r->images[i].bytes = (uint64_t)json_integer_value(bytes);
            snprintf(r->images[i].symbol, sizeof(r->images[i].symbol), "%s", sym);
        }
        r->n_images = (int)ni;
    }
    return BW_OK;
}

/* --- failures and statuses --------------------------------------------------------- */

static const char *const run_status_names[] = {
    [RUN_OK] = "ok",
    [RUN_CUDA_ERROR] = "cuda_error",
    [RUN_LAUNCH_ERROR] = "launch_error",
    [RUN_GUARD_VIOLATION] = "guard_violation",
    [RUN_INPUT_MODIFIED] = "input_modified",
    [RUN_ARG_MISMATCH] = "arg_mismatch",
    [RUN_ERROR] = "error",
};

const char *run_status_name(enum run_status s)
{
    if ((unsigned)s > RUN_ERROR)
        return "invalid";
    return run_status_names[s];
}

void run_failure_init(struct run_failure *f)
{
    memset(f, 0, sizeof(*f));
    f->status = RUN_OK;
    f->launch = -1;
    f->buf = -1;
    f->sample = -1;
}

/* Adds the status and the failure's fields to reply o. */
void rp_put_failure(json_t *o, const struct run_failure *f, bool *ok)
{
    rp_put(o, "status", json_string(run_status_name(f->status)), ok);
    if (f->status == RUN_OK)
        return;
    if (f->error[0])
        rp_put(o, "error", json_string(f->error), ok);
    rp_put(o, "message", json_string(f->message), ok);
    if (f->launch >= 0)
        rp_put(o, "launch", json_integer(f->launch), ok);
    if (f->buf >= 0)
        rp_put(o, "buf", json_integer(f->buf), ok);
    if (f->status == RUN_GUARD_VIOLATION) {
        rp_put(o, "where", json_string(f->after ? "after" : "before"), ok);
        rp_put(o, "offset", json_integer(f->offset), ok);
    }
    if (f->sample >= 0)
        rp_put(o, "sample", json_integer(f->sample), ok);
    if (f->in_warmup)
        rp_put(o, "warmup", json_true(), ok);
}

/* Reads status and failure fields from reply j of the expected type. */
int rp_get_failure(const json_t *j, const char *type, struct run_failure *f, char **cause)
{
    char status[32] = "", where[16] = "";
    int64_t v;
    int rc, found;

    run_failure_init(f);
    if (strcmp(msg_type(j), type) != 0)
        return bw_fail(cause, BW_ERR_PROTOCOL, "expected a %s reply, got type \"%s\"", type,
                       msg_type(j));
    if ((rc = rp_get_str(j, "status", type, true, status, sizeof(status), cause)))
        return rc;
    found = -1;
    for (int s = RUN_OK; s <= RUN_ERROR; s++)
        if (strcmp(status, run_status_names[s]) == 0)
            found = s;
    if (found < 0)
        return bw_fail(cause, BW_ERR_INVALID, "%s.status: unknown status \"%s\"", type, status);
    f->status = (enum run_status)found;
    if (f->status == RUN_OK)
        return BW_OK;
    if ((rc = rp_get_str(j, "error", type, false, f->error, sizeof(f->error), cause)))
        return rc;
    /* A message longer than ours is cut, not refused: it is only words. */
    snprintf(f->message, sizeof(f->message), "%s",
             json_string_value(json_object_get(j, "message"))
                 ? json_string_value(json_object_get(j, "message"))
                 : "");
    v = -1;
    if ((rc = rp_get_i64(j, "launch", type, false, -1, BW_MAX_LAUNCHES - 1, &v, cause)))
        return rc;
    f->launch = (int)v;
    v = -1;
    if ((rc = rp_get_i64(j, "buf", type, false, -1, BW_MAX_BUFFERS - 1, &v, cause)))
        return rc;
    f->buf = (int)v;
    if ((rc = rp_get_i64(j, "sample", type, false, -1, INT32_MAX, &f->sample, cause)) ||
        (rc = rp_get_bool(j, "warmup", type, &f->in_warmup, cause)))
        return rc;
    if (f->status == RUN_GUARD_VIOLATION) {
        if ((rc = rp_get_str(j, "where", type, true, where, sizeof(where), cause)) ||
            (rc = rp_get_i64(j, "offset", type, true, INT64_MIN, INT64_MAX, &f->offset, cause)))
            return rc;
        if (strcmp(where, "before") != 0 && strcmp(where, "after") != 0)
            return bw_fail(cause, BW_ERR_INVALID, "%s.where: expected before or after, got \"%s\"",
                           type, where);
        f->after = strcmp(where, "after") == 0;
        if (f->buf < 0)
            return rp_bad(cause, type, "buf", "missing for a guard violation");
    }
    if (f->status == RUN_INPUT_MODIFIED && f->buf < 0)
        return rp_bad(cause, type, "buf", "missing for a modified input");
    return BW_OK;
}

json_t *error_reply_to_json(const char *type, const char *error, const char *message)
{
    struct run_failure f;
    json_t *o = json_object();
    bool ok = o != NULL;

    if (!o)
        return NULL;
    run_failure_init(&f);
    f.status = RUN_ERROR;
    snprintf(f.message, sizeof(f.message), "%s", message ? message : "unknown error");
    snprintf(f.error, sizeof(f.error), "%s", error ? error : "");
    rp_put(o, "type", json_string(type), &ok);
    rp_put_failure(o, &f, &ok);
    return rp_finish(o, ok);
}

json_t *load_reply_to_json(const struct load_reply *r)
{
    json_t *o = json_object(), *ks;
    bool ok = o != NULL;

    if (!o)
        return NULL;
    rp_put(o, "type", json_string("loaded"), &ok);
    rp_put_failure(o, &r->fail, &ok);
    if (r->fail.status != RUN_OK)
        return rp_finish(o, ok);
    ks = json_object();
    rp_put(o, "kernels", ks, &ok);
    for (int i = 0; ks && i < r->n_kernels; i++) {
        const struct kernel_info *k = &r->kernels[i];
        json_t *ko = json_object(), *params = json_array();
        bool kok = ko && params;
        if (!kok) {
            json_decref(ko);
            json_decref(params);
            ok = false;
            break;
        }
        rp_put(ko, "params", params, &kok);
        for (int p = 0; p < k->n_params; p++)
            rp_push(params, json_integer(k->param_bytes[p]), &kok);
        rp_put(ko, "regs", json_integer(k->regs), &kok);
        rp_put(ko, "static_smem", json_integer(k->static_smem), &kok);
        rp_put(ko, "local_bytes", json_integer(k->local_bytes), &kok);
        rp_put(ko, "max_threads", json_integer(k->max_threads), &kok);
        if (!kok) {
            json_decref(ko);
            ok = false;
            break;
        }
        rp_put(ks, k->name, ko, &ok);
    }
    return rp_finish(o, ok);
}

int load_reply_from_json(const json_t *j, struct load_reply *r, char **cause)
{
    const char *name;
    json_t *ks, *ko;
    int rc;

    memset(r, 0, sizeof(*r));
    rc = rp_get_failure(j, "loaded", &r->fail, cause);
    if (rc || r->fail.status != RUN_OK)
        return rc;
    ks = json_object_get(j, "kernels");
    if (!json_is_object(ks))
        return rp_bad(cause, "loaded", "kernels", "expected an object");
    if (json_object_size(ks) > BW_MAX_LOADED_KERNELS)
        return bw_fail(cause, BW_ERR_INVALID, "loaded.kernels: %zu kernels, more than asked for",
                       json_object_size(ks));
    json_object_foreach (ks, name, ko) {
        struct kernel_info *k = &r->kernels[r->n_kernels];
        json_t *params;
        size_t n;
        int64_t v;

        if (!is_identifier(name))
            return bw_fail(cause, BW_ERR_INVALID, "loaded.kernels: invalid kernel name");
        if (!json_is_object(ko))
            return rp_bad(cause, "loaded.kernels", name, "expected an object");
        snprintf(k->name, sizeof(k->name), "%s", name);
        if ((rc = rp_get_array(ko, "params", "loaded.kernels", true, BW_MAX_LAUNCH_ARGS, &params,
                               &n, cause)))
            return rc;
        for (size_t p = 0; p < n; p++) {
            json_t *pv = json_array_get(params, p);
            if (!json_is_integer(pv) || json_integer_value(pv) < 1 ||
                json_integer_value(pv) > 32764)
                return bw_fail(cause, BW_ERR_INVALID,
                               "loaded.kernels.%s.params[%zu]: expected a "
                               "size in bytes",
                               name, p);
            k->param_bytes[p] = (uint32_t)json_integer_value(pv);
        }
        k->n_params = (int)n;
        v = 0;
        if ((rc = rp_get_i64(ko, "regs", "loaded.kernels", true, 0, 1 << 16, &v, cause)))
            return rc;
        k->regs = (int)v;
        if ((rc = rp_get_i64(ko, "static_smem", "loaded.kernels", true, 0, INT32_MAX, &v, cause)))
            return rc;
        k->static_smem = (int)v;
        if ((rc = rp_get_i64(ko, "local_bytes", "loaded.kernels", true, 0, INT32_MAX, &v, cause)))
            return rc;
        k->local_bytes = (int)v;
        if ((rc = rp_get_i64(ko, "max_threads", "loaded.kernels", true, 0, 1 << 16, &v, cause)))
            return rc;
        k->max_threads = (int)v;
        r->n_kernels++;
    }
    return BW_OK;
}
