/*
 * baseline.c - PyTorch's figures (baseline.h): their JSON, the disk cache, the driver's
 * request, and putting them beside a result's benches. The pure parts; the process and the
 * worker's service are baseline_run.c.
 */
#include "baseline.h"

#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "judge_config.h"
#include "common/error.h"
#include "common/gen.h"
#include "common/limits.h"
#include "common/util.h"
#include "common/banned.h"

#define CACHE_FORMAT 1

const char baseline_method_text[] =
    "PyTorch's time: the problem's baseline.py (the PyTorch a learner would otherwise call) run "
    "by this worker on the same GPU and shapes with the judge's own timing (L2 flushed before "
    "each sample, two rotated input sets, CUDA events around the call, median until its "
    "relative standard error is below 0.5%, or 500 samples, or 1.5 s), each shape after 1 s of "
    "rest and 0.5 s of warm-up (its sustained time); measured once per problem version and GPU. "
    "x PyTorch = PyTorch's median / yours: above 1 is faster.";

void baseline_figures_release(struct baseline_figures *f)
{
    for (size_t i = 0; i < f->n_shapes; i++) {
        free(f->shapes[i].name);
        free(f->shapes[i].error);
    }
    free(f->shapes);
    json_decref(f->method);
    memset(f, 0, sizeof(*f));
}

json_t *baseline_method_json(void)
{
    return json_pack("{s:i, s:i, s:i, s:f, s:i, s:i, s:i, s:I, s:i}", "sets", BW_BENCH_SETS,
                     "min_samples", BW_BENCH_MIN_SAMPLES, "max_samples", BW_BENCH_MAX_SAMPLES,
                     "target_rse", BW_BENCH_TARGET_RSE, "budget_ms", BW_BENCH_BUDGET_MS,
                     "warmup_ms", BW_BASELINE_WARMUP_MS, "rest_ms", BW_BASELINE_REST_MS,
                     "l2_flush_bytes", (json_int_t)BW_L2_FLUSH_BYTES, "l2_flush_word",
                     BW_L2_FLUSH_WORD);
}

json_t *baseline_figures_json(const struct baseline_figures *f)
{
    json_t *shapes = json_array();
    json_t *j;

    for (size_t i = 0; shapes && i < f->n_shapes; i++) {
        const struct baseline_shape *s = &f->shapes[i];
        json_t *o =
            s->error ? json_pack("{s:s, s:s}", "name", s->name, "error", s->error)
                     : json_pack("{s:s, s:f, s:f, s:f, s:i, s:f, s:s}", "name", s->name,
                                 "median_ms", s->median_ms, "p10_ms", s->p10_ms, "p90_ms",
                                 s->p90_ms, "samples", s->samples, "rse", s->rse, "stop", s->stop);
        if (!o || json_array_append_new(shapes, o)) {
            json_decref(shapes);
            return NULL;
        }
    }
    if (!shapes)
        return NULL;
    j = json_pack("{s:i, s:s, s:s, s:s, s:s, s:s, s:I, s:O?, s:o}", "format", CACHE_FORMAT,
                  "bundle", f->bundle, "gpu_uuid", f->gpu_uuid, "gpu_name", f->gpu_name, "torch",
                  f->torch, "python", f->python_ver, "measured_at", (json_int_t)f->measured_at,
                  "method", f->method, "shapes", shapes);
    return j;
}

static bool copy_text(json_t *j, const char *key, char *out, size_t cap)
{
    const char *s = json_string_value(json_object_get(j, key));
    if (!s || strlen(s) >= cap)
        return false;
    snprintf(out, cap, "%s", s);
    return true;
}

bool baseline_figures_from_json(json_t *j, struct baseline_figures *f, char **why)
{
    json_t *shapes = json_object_get(j, "shapes"), *o;
    size_t i;

    memset(f, 0, sizeof(*f));
    if (!json_is_object(j) || json_integer_value(json_object_get(j, "format")) != CACHE_FORMAT ||
        !copy_text(j, "bundle", f->bundle, sizeof(f->bundle)) ||
        !copy_text(j, "gpu_uuid", f->gpu_uuid, sizeof(f->gpu_uuid)) ||
        !copy_text(j, "gpu_name", f->gpu_name, sizeof(f->gpu_name)) ||
        !copy_text(j, "torch", f->torch, sizeof(f->torch)) ||
        !copy_text(j, "python", f->python_ver, sizeof(f->python_ver)) || !json_is_array(shapes) ||
        json_array_size(shapes) > BW_MAX_BENCHMARKS) {
        bw_fail(why, BW_ERR_INVALID, "not a baseline figures file of format %d", CACHE_FORMAT);
        return false;
    }
    f->measured_at = json_integer_value(json_object_get(j, "measured_at"));
    f->method = json_incref(json_object_get(j, "method"));
    f->shapes = calloc(json_array_size(shapes) + 1, sizeof(*f->shapes));
    if (!f->shapes) {
        bw_fail(why, BW_ERR_NOMEM, "out of memory");
        goto bad;
    }
    json_array_foreach (shapes, i, o) {
        struct baseline_shape *s = &f->shapes[i];
        const char *name = json_string_value(json_object_get(o, "name"));
        const char *err = json_string_value(json_object_get(o, "error"));
        const char *stop = json_string_value(json_object_get(o, "stop"));
        f->n_shapes = i + 1;
        if (!name || !(s->name = strdup(name)) || (err && !(s->error = strdup(err)))) {
            bw_fail(why, BW_ERR_INVALID, "shapes[%zu]: no name", i);
            goto bad;
        }
        if (err)
            continue;
        s->median_ms = json_number_value(json_object_get(o, "median_ms"));
        s->p10_ms = json_number_value(json_object_get(o, "p10_ms"));
        s->p90_ms = json_number_value(json_object_get(o, "p90_ms"));
        s->rse = json_number_value(json_object_get(o, "rse"));
        s->samples = (int)json_integer_value(json_object_get(o, "samples"));
        snprintf(s->stop, sizeof(s->stop), "%s", stop ? stop : "");
        if (!(s->median_ms > 0) || !isfinite(s->median_ms) || s->samples < 1) {
            bw_fail(why, BW_ERR_INVALID, "shapes[%zu]: no median time", i);
            goto bad;
        }
    }
    return true;
bad:
    baseline_figures_release(f);
    return false;
}

/* A name fit for a file name: letters, digits, '-', '_', '.', not starting with '.'. */
static bool plain(const char *s)
{
    if (!*s || *s == '.' || strlen(s) > 100)
        return false;
    for (; *s; s++)
        if (!((*s >= 'a' && *s <= 'z') || (*s >= 'A' && *s <= 'Z') || (*s >= '0' && *s <= '9') ||
              *s == '-' || *s == '_' || *s == '.'))
            return false;
    return true;
}

char *baseline_cache_path(const char *cache_dir, const char *bundle, const char *gpu_uuid)
{
    char *path = NULL;

    if (!cache_dir || !plain(bundle) || !plain(gpu_uuid))
        return NULL;
    if (asprintf(&path, "%s/baselines/%s.%s.json", cache_dir, bundle, gpu_uuid) < 0)
        return NULL;
    return path;
}

bool baseline_cache_load(const char *cache_dir, const char *bundle, const char *gpu_uuid,
                         const char *torch, struct baseline_figures *f)
{
    char *path = baseline_cache_path(cache_dir, bundle, gpu_uuid), *text = NULL;
    json_t *j = NULL, *method = NULL;
    bool ok = false;

    memset(f, 0, sizeof(*f));
    if (!path || read_file(path, BW_BASELINE_CACHE_BYTES, &text, NULL, NULL) != BW_OK)
        goto out;
    j = json_loads(text, 0, NULL);
    method = baseline_method_json();
    ok = j && method && baseline_figures_from_json(j, f, NULL);
    /* Another version, GPU, PyTorch or timing method: measured again. */
    if (ok && (strcmp(f->bundle, bundle) != 0 || strcmp(f->gpu_uuid, gpu_uuid) != 0 ||
               (torch && strcmp(f->torch, torch) != 0) || !json_equal(f->method, method))) {
        baseline_figures_release(f);
        ok = false;
    }
out:
    json_decref(method);
    json_decref(j);
    free(text);
    free(path);
    return ok;
}

int baseline_cache_store(const char *cache_dir, const struct baseline_figures *f, char **cause)
{
    char *path = baseline_cache_path(cache_dir, f->bundle, f->gpu_uuid), *dir = NULL;
    char *text = NULL;
    json_t *j = NULL;
    int rc;

    if (!path)
        return bw_fail(cause, BW_ERR_INVALID, "no cache file for bundle %.12s on GPU %.40s",
                       f->bundle, f->gpu_uuid);
    dir = path_join(cache_dir, "baselines");
    j = baseline_figures_json(f);
    text = j ? json_dumps(j, JSON_INDENT(1)) : NULL;
    rc = dir && text ? mkdirs(dir, cause) : bw_fail(cause, BW_ERR_NOMEM, "out of memory");
    if (rc == BW_OK)
        rc = write_file_atomic(path, text, strlen(text), cause);
    free(text);
    json_decref(j);
    free(dir);
    free(path);
    return rc;
}

/* ---- the driver's request ------------------------------------------------------------------ */

/* A double as JSON, with the special values as the strings Python's float() reads. */
static json_t *number(double v)
{
    if (isnan(v))
        return json_string("nan");
    if (isinf(v))
        return json_string(v > 0 ? "inf" : "-inf");
    return json_real(v);
}

static const char *gen_kind_name(uint32_t k)
{
    switch (k) {
    case GEN_UNIFORM:
        return "uniform";
    case GEN_NORMAL:
        return "normal";
    case GEN_LOGUNIFORM:
        return "loguniform";
    case GEN_CONST:
        return "const";
    case GEN_RANDINT:
        return "randint";
    default:
        return "?";
    }
}

/* The sizes and typed scalars of case c, as the keyword arguments baseline() gets. */
static int case_args(const struct problem *p, const struct problem_case *c, json_t *o)
{
    json_t *sizes = json_object(), *scalars = json_object();

    for (size_t k = 0; sizes && k < p->n_sizes; k++)
        json_object_set_new(sizes, p->size_names[k], json_integer(c->sizes[k]));
    for (size_t k = 0; scalars && k < p->n_scalars; k++)
        json_object_set_new(scalars, p->scalars[k].name,
                            dtype_is_float(p->scalars[k].dtype)
                                ? number(c->scalars[k])
                                : json_integer((json_int_t)c->scalars[k]));
    if (!sizes || !scalars || json_object_set_new(o, "sizes", sizes) ||
        json_object_set_new(o, "scalars", scalars))
        return BW_ERR_NOMEM;
    return BW_OK;
}

/* Tensor t of case c: name, dtype, shape, role and (inputs) its distribution. */
static json_t *tensor_json(const struct problem *p, size_t t, const struct problem_case *c,
                           char **cause)
{
    const struct tensor_spec *ts = &p->tensors[t];
    int64_t dims[BW_MAX_DIMS];
    json_t *shape = json_array(), *o;
    struct gen_spec g;

    if (problem_tensor_shape(p, t, c, dims, cause)) {
        json_decref(shape);
        return NULL;
    }
    for (int d = 0; shape && d < ts->ndim; d++)
        json_array_append_new(shape, json_integer(dims[d]));
    o = json_pack("{s:s, s:s, s:o, s:s}", "name", ts->name, "dtype", dtype_name(ts->dtype), "shape",
                  shape, "role",
                  ts->role == ROLE_IN      ? "in"
                  : ts->role == ROLE_INOUT ? "inout"
                                           : "out");
    if (!o || ts->role == ROLE_OUT)
        return o;
    if (problem_gen_spec(p, t, c, &g, cause)) {
        json_decref(o);
        return NULL;
    }
    json_t *gen = json_pack("{s:s, s:o, s:o, s:I, s:I, s:b}", "kind", gen_kind_name(g.kind), "a",
                            number(g.a), "b", number(g.b), "ilo", (json_int_t)g.ilo, "ihi",
                            (json_int_t)g.ihi, "signed", (g.flags & GEN_SIGNED) != 0);
    if (gen && (g.flags & GEN_NEGATE) && g.stream < p->n_tensors)
        json_object_set_new(gen, "neg_of", json_string(p->tensors[g.stream].name));
    if (gen && (g.flags & GEN_ROW_OFFSET))
        json_object_set_new(gen, "row_offset", json_pack("[f, f]", g.row_lo, g.row_hi));
    json_object_set_new(o, "gen", gen);
    return o;
}

json_t *baseline_case_json(const struct problem *p, const struct problem_case *c, char **cause)
{
    json_t *o = json_pack("{s:s, s:[]}", "name", c->name, "tensors");

    if (!o || case_args(p, c, o)) {
        json_decref(o);
        bw_fail(cause, BW_ERR_NOMEM, "out of memory");
        return NULL;
    }
    for (size_t t = 0; t < p->n_tensors; t++) {
        json_t *tj = tensor_json(p, t, c, cause);
        if (!tj) {
            json_decref(o);
            bw_wrap(cause, BW_ERR_INVALID, "%s", c->name);
            return NULL;
        }
        json_array_append_new(json_object_get(o, "tensors"), tj);
    }
    return o;
}

json_t *baseline_request_json(const struct problem *p, const struct judge_config *jc,
                              const char *mode, char **cause)
{
    char dir[PATH_MAX];
    json_t *rq, *shapes = json_array();

    if (!realpath(p->dir, dir))
        snprintf(dir, sizeof(dir), "%s", p->dir);
    for (size_t b = 0; shapes && strcmp(mode, "measure") == 0 && b < p->n_benchmarks; b++) {
        json_t *o = baseline_case_json(p, &p->benchmarks[b], cause);
        if (!o) {
            json_decref(shapes);
            return NULL;
        }
        json_array_append_new(shapes, o);
    }
    rq = json_pack("{s:s, s:s, s:{s:i, s:s}, s:I, s:o, s:o}", "mode", mode, "problem_dir", dir,
                   "device", "ordinal", jc ? jc->device : 0, "uuid", jc ? jc->gpu.uuid : "",
                   "gpu_mem_bytes", (json_int_t)BW_BASELINE_GPU_MEM_BYTES, "method",
                   baseline_method_json(), "shapes", shapes);
    if (!rq)
        bw_fail(cause, BW_ERR_NOMEM, "out of memory");
    return rq;
}

/* ---- beside the result ------------------------------------------------------------------- */

void baseline_attach_figures(const struct baseline_figures *f, struct judge_result *r)
{
    char *missing = NULL;
    size_t have = 0;

    r->pytorch.attached = true;
    snprintf(r->pytorch.torch, sizeof(r->pytorch.torch), "%s", f->torch);
    r->pytorch.measured_at = f->measured_at;
    for (size_t b = 0; b < r->n_benches; b++) {
        const struct baseline_shape *s = NULL;
        r->benches[b].pytorch_ms = 0;
        for (size_t k = 0; k < f->n_shapes && !s; k++)
            if (r->benches[b].name && strcmp(f->shapes[k].name, r->benches[b].name) == 0)
                s = &f->shapes[k];
        if (s && !s->error && s->median_ms > 0) {
            r->benches[b].pytorch_ms = s->median_ms;
            have++;
        } else if (!missing) {
            if (asprintf(&missing, "PyTorch's baseline has no time on %s: %s",
                         r->benches[b].name ? r->benches[b].name : "?",
                         s ? s->error : "the shape was not measured") < 0)
                missing = NULL;
        }
    }
    r->pytorch.measured = r->n_benches > 0 && have == r->n_benches;
    free(r->pytorch.reason);
    r->pytorch.reason = missing;
}

double baseline_speedup(const struct judge_result *r)
{
    double sum = 0;

    if (r->n_benches == 0)
        return 0;
    for (size_t b = 0; b < r->n_benches; b++) {
        if (!(r->benches[b].pytorch_ms > 0) || !(r->benches[b].median_ms > 0))
            return 0;
        sum += log(r->benches[b].pytorch_ms / r->benches[b].median_ms);
    }
    return exp(sum / (double)r->n_benches);
}
