#include "gpu_info.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "compile.h"
#include "runner_client.h"
#include "common/error.h"
#include "common/limits.h"
#include "common/log.h"
#include "common/util.h"
#include "common/banned.h"

json_t *gpu_info_json(const struct gpu_info *g)
{
    if (!g->name[0])
        return json_null();
    return json_pack("{s:s, s:s, s:s, s:s, s:s, s:i, s:I, s:I, s:i, s:b, s:f, s:f, s:f, s:f}",
                     "name", g->name, "uuid", g->uuid, "cc", g->cc, "driver", g->driver, "arch",
                     g->arch, "sm_count", g->sm_count, "memory_bytes", (json_int_t)g->memory_bytes,
                     "l2_bytes", (json_int_t)g->l2_bytes, "max_clock_mhz", g->max_clock_mhz,
                     "calibrated", g->calibrated, "copy_gbps", g->copy_gbps, "fp32_tflops",
                     g->fp32_tflops, "fp16_tflops", g->fp16_tflops, "bf16_tflops", g->bf16_tflops);
}

static void copy_string(char *dst, size_t cap, json_t *obj, const char *key)
{
    const char *s = json_string_value(json_object_get(obj, key));
    snprintf(dst, cap, "%s", s ? s : "");
}

bool gpu_info_from_json(json_t *j, struct gpu_info *g)
{
    memset(g, 0, sizeof(*g));
    if (!json_is_object(j))
        return false;
    copy_string(g->name, sizeof(g->name), j, "name");
    copy_string(g->uuid, sizeof(g->uuid), j, "uuid");
    copy_string(g->cc, sizeof(g->cc), j, "cc");
    copy_string(g->driver, sizeof(g->driver), j, "driver");
    copy_string(g->arch, sizeof(g->arch), j, "arch");
    g->sm_count = (int)json_integer_value(json_object_get(j, "sm_count"));
    g->memory_bytes = (uint64_t)json_integer_value(json_object_get(j, "memory_bytes"));
    g->l2_bytes = (uint64_t)json_integer_value(json_object_get(j, "l2_bytes"));
    g->max_clock_mhz = (int)json_integer_value(json_object_get(j, "max_clock_mhz"));
    g->copy_gbps = json_number_value(json_object_get(j, "copy_gbps"));
    g->fp32_tflops = json_number_value(json_object_get(j, "fp32_tflops"));
    g->fp16_tflops = json_number_value(json_object_get(j, "fp16_tflops"));
    g->bf16_tflops = json_number_value(json_object_get(j, "bf16_tflops"));
    g->calibrated = g->copy_gbps > 0 && g->fp32_tflops > 0;
    if (!g->name[0] || !g->uuid[0] || !g->arch[0]) {
        memset(g, 0, sizeof(*g));
        return false;
    }
    return true;
}

void gpu_info_arch_for(int cc_major, int cc_minor, char *out, size_t cap)
{
    snprintf(out, cap, "sm_%d%d%s", cc_major, cc_minor, cc_major >= 9 ? "a" : "");
}

/*
 * The figures are cached in cache_dir/gpu-<device>.json (gpu_info_json plus
 * "measured_at", seconds since the epoch) for BW_GPU_CACHE_SECONDS, so a
 * one-shot `judged check` does not measure the GPU before judging: it only
 * starts the runners it judges with, and the pipeline compares their GPU's
 * UUID with the cached one (judge.c).
 */
static char *cache_path(const struct gpu_probe *q)
{
    char name[64];
    if (!q->cache_dir)
        return NULL;
    snprintf(name, sizeof(name), "gpu-%d.json", q->device);
    return path_join(q->cache_dir, name);
}

/* Today's calibrated figures of this device from the cache, or false. */
static bool cache_load(const struct gpu_probe *q, struct gpu_info *gi)
{
    char *path = cache_path(q), *text = NULL;
    json_t *j = NULL;
    bool ok = false;

    if (!path || read_file(path, 65536, &text, NULL, NULL))
        goto out;
    j = json_loads(text, 0, NULL);
    if (!j ||
        time(NULL) - json_integer_value(json_object_get(j, "measured_at")) > BW_GPU_CACHE_SECONDS)
        goto out;
    ok = gpu_info_from_json(j, gi) && gi->calibrated;
    if (ok && q->arch)
        snprintf(gi->arch, sizeof(gi->arch), "%s", q->arch);
out:
    if (!ok)
        memset(gi, 0, sizeof(*gi));
    json_decref(j);
    free(text);
    free(path);
    return ok;
}

static void cache_save(const struct gpu_probe *q, const struct gpu_info *gi)
{
    char *path = cache_path(q), *text = NULL;
    json_t *j;

    if (!path || mkdirs(q->cache_dir, NULL)) {
        log_warn("cannot cache the GPU's figures in %s", q->cache_dir ? q->cache_dir : "?");
        free(path);
        return;
    }
    j = gpu_info_json(gi);
    if (json_is_object(j) &&
        json_object_set_new(j, "measured_at", json_integer((json_int_t)time(NULL))) == 0)
        text = json_dumps(j, JSON_INDENT(2));
    if (text && write_file_atomic(path, text, strlen(text), NULL) != BW_OK)
        log_warn("cannot cache the GPU's figures in %s", path);
    free(text);
    json_decref(j);
    free(path);
}

/* The device's properties, as the runner read them, into *gi. */
static void take_properties(const struct gpu_probe *q, const struct gpu_props *g,
                            struct gpu_info *gi)
{
    snprintf(gi->name, sizeof(gi->name), "%s", g->name);
    snprintf(gi->uuid, sizeof(gi->uuid), "%s", g->uuid);
    snprintf(gi->cc, sizeof(gi->cc), "%d.%d", g->cc_major, g->cc_minor);
    snprintf(gi->driver, sizeof(gi->driver), "%d.%d", g->driver_version / 1000,
             (g->driver_version % 1000) / 10);
    if (q->arch)
        snprintf(gi->arch, sizeof(gi->arch), "%s", q->arch);
    else
        gpu_info_arch_for(g->cc_major, g->cc_minor, gi->arch, sizeof(gi->arch));
    gi->sm_count = g->sm_count;
    gi->memory_bytes = g->memory_bytes;
    gi->l2_bytes = g->l2_bytes;
    gi->max_clock_mhz = g->max_clock_mhz;
}

int gpu_info_probe(const struct gpu_probe *q, struct gpu_info *gi, char **no_gpu_reason,
                   char **cause)
{
    struct runner_options opt = {.device = q->device, .no_sandbox = q->no_sandbox};
    struct runner *r = NULL;
    struct calibration cal;
    struct run_failure fail;
    char *why = NULL;
    int rc;

    *no_gpu_reason = NULL;
    memset(gi, 0, sizeof(*gi));
    if (!q->recalibrate && cache_load(q, gi))
        return BW_OK;
    snprintf(gi->arch, sizeof(gi->arch), "%s", q->arch ? q->arch : BW_COMPILE_DEFAULT_ARCH);

    rc = runner_start(&opt, &r, &why);
    if (rc == BW_ERR_NODEVICE) {
        *no_gpu_reason = why ? why : strdup("no GPU");
        return BW_OK;
    }
    if (rc) {
        rc = bw_fail(cause, rc, "cannot start the GPU runner: %s", why ? why : bw_strerror(rc));
        free(why);
        return rc;
    }
    take_properties(q, runner_gpu(r), gi);

    rc = runner_calibrate(r, &cal, &fail, BW_RUNNER_CALIBRATE_MS, &why);
    runner_free(r);
    if (rc || fail.status != RUN_OK) {
        log_warn("GPU calibration failed: %s", rc ? (why ? why : bw_strerror(rc)) : fail.message);
        free(why);
        return BW_OK;
    }
    gi->copy_gbps = cal.copy_gbps;
    gi->fp32_tflops = cal.fp32_tflops;
    gi->fp16_tflops = cal.fp16_tensor_tflops;
    gi->bf16_tflops = cal.bf16_tensor_tflops;
    gi->calibrated = true;
    cache_save(q, gi);
    return BW_OK;
}
