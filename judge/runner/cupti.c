#include "cupti.h"

#include <dlfcn.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cupti_host.h"
#include "common/error.h"
#include "common/limits.h"
#include "common/log.h"
#include "common/banned.h"

/* Every CUPTI entry point the profiler uses, resolved with dlsym; each has
 * exactly the prototype its header declares. */
#define CUPTI_FUNCTIONS(X)                                                                         \
    X(cuptiGetVersion)                                                                             \
    X(cuptiGetResultString)                                                                        \
    X(cuptiProfilerInitialize)                                                                     \
    X(cuptiProfilerDeInitialize)                                                                   \
    X(cuptiProfilerDeviceSupported)                                                                \
    X(cuptiDeviceGetChipName)                                                                      \
    X(cuptiProfilerGetCounterAvailability)                                                         \
    X(cuptiProfilerHostInitialize)                                                                 \
    X(cuptiProfilerHostDeinitialize)                                                               \
    X(cuptiProfilerHostGetMetricProperties)                                                        \
    X(cuptiProfilerHostConfigAddMetrics)                                                           \
    X(cuptiProfilerHostGetConfigImageSize)                                                         \
    X(cuptiProfilerHostGetConfigImage)                                                             \
    X(cuptiProfilerHostGetNumOfPasses)                                                             \
    X(cuptiProfilerHostEvaluateToGpuValues)                                                        \
    X(cuptiRangeProfilerEnable)                                                                    \
    X(cuptiRangeProfilerDisable)                                                                   \
    X(cuptiRangeProfilerGetCounterDataSize)                                                        \
    X(cuptiRangeProfilerCounterDataImageInitialize)                                                \
    X(cuptiRangeProfilerSetConfig)                                                                 \
    X(cuptiRangeProfilerStart)                                                                     \
    X(cuptiRangeProfilerStop)                                                                      \
    X(cuptiRangeProfilerDecodeData)                                                                \
    X(cuptiRangeProfilerGetCounterDataInfo)

struct cupti_api {
#define CUPTI_DECLARE_FN(name) __typeof__(name) *name;
    CUPTI_FUNCTIONS(CUPTI_DECLARE_FN)
#undef CUPTI_DECLARE_FN
    /* optional (CUDA 12.5 on): a sentence for a result */
    CUptiResult (*cuptiGetErrorMessage)(CUptiResult result, const char **str);
};

struct cupti {
    void *lib, *nvperf[2];
    struct cupti_api api;
    CUcontext ctx;
    char version[16], chip[32];
    const char *used[PM_COUNT];  /* the name each metric is read under, NULL: unknown (borrowed
                                    from profile_metric_table) */
    const char *names[PM_COUNT]; /* the known ones, packed, in table order */
    int map[PM_COUNT];           /* names[k] is metric map[k] */
    int n_names;
    CUpti_Profiler_Host_Object *host;
    uint8_t *avail;  /* the counter availability image (owned) */
    uint8_t *config; /* the configuration image of the metric set (owned) */
    size_t config_size;
    int passes;
    CUpti_RangeProfiler_Object *rp; /* the range profiler on ctx, enabled */
    bool initialized;               /* cuptiProfilerInitialize succeeded */
    uint8_t *data;                  /* a profile's counter data image (owned), between begin/end */
    size_t data_size;
    bool started;
};

/* The name of a result ("CUPTI_ERROR_INSUFFICIENT_PRIVILEGES") and CUPTI's
 * sentence for it, when it has one. */
static void describe_result(const struct cupti *c, CUptiResult rc, char *out, size_t cap)
{
    const char *name = NULL, *text = NULL;

    if (c->api.cuptiGetResultString && c->api.cuptiGetResultString(rc, &name) != CUPTI_SUCCESS)
        name = NULL;
    if (c->api.cuptiGetErrorMessage && c->api.cuptiGetErrorMessage(rc, &text) != CUPTI_SUCCESS)
        text = NULL;
    if (text && name && strcmp(text, name) == 0)
        text = NULL; /* CUPTI's sentence for some results is only their name again */
    snprintf(out, cap, "%s (%d)%s%s", name ? name : "CUPTI error", (int)rc, text ? ": " : "",
             text ? text : "");
}

/*
 * Stores "WHAT: NAME (N): sentence" in *cause and returns BW_ERR_PROFILER;
 * CUPTI_ERROR_INSUFFICIENT_PRIVILEGES becomes the one sentence a learner
 * and an operator need instead (docs/profile.md, "Where it is unavailable").
 */
static int cupti_fail(const struct cupti *c, char **cause, CUptiResult rc, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
static int cupti_fail(const struct cupti *c, char **cause, CUptiResult rc, const char *fmt, ...)
{
    char what[160], result[256];
    va_list ap;

    if (rc == CUPTI_ERROR_INSUFFICIENT_PRIVILEGES)
        return bw_fail(cause, BW_ERR_PROFILER,
                       "the GPU driver restricts its performance counters to administrators "
                       "(NVreg_RestrictProfilingToAdminUsers=1), and the sandboxed runner is not "
                       "one: the machine's operator must allow profiling (docs/profile.md)");
    va_start(ap, fmt);
    vsnprintf(what, sizeof(what), fmt, ap);
    va_end(ap);
    describe_result(c, rc, result, sizeof(result));
    return bw_fail(cause, BW_ERR_PROFILER, "CUPTI: %s: %s", what, result);
}

/* --- opening ------------------------------------------------------------------------------- */

/* Loads libnvperf_host.so and libnvperf_target.so from the folder of `path`, when they are
 * there, so that CUPTI's own dlopen of them by name finds them loaded. */
static void preload_nvperf(struct cupti *c, const char *path)
{
    static const char *const libs[2] = {"libnvperf_host.so", "libnvperf_target.so"};
    const char *slash = strrchr(path, '/');
    int dir = slash ? (int)(slash - path) : 0;

    for (int i = 0; i < 2; i++) {
        char file[4096];
        if (snprintf(file, sizeof(file), "%.*s%s%s", dir, path, slash ? "/" : "", libs[i]) >=
            (int)sizeof(file))
            continue;
        c->nvperf[i] = dlopen(file, RTLD_NOW | RTLD_GLOBAL);
        if (!c->nvperf[i])
            log_debug("CUPTI: %s not preloaded: %s", libs[i], dlerror());
    }
}

static int load_library(struct cupti *c, const char *path, char **why)
{
    struct {
        const char *name;
        void **slot;
    } fns[] = {
#define CUPTI_SYMBOL(fn) {#fn, (void **)&c->api.fn},
        CUPTI_FUNCTIONS(CUPTI_SYMBOL)
#undef CUPTI_SYMBOL
    };

    preload_nvperf(c, path);
    c->lib = dlopen(path, RTLD_NOW | RTLD_LOCAL);
    if (!c->lib) {
        const char *e = dlerror();
        return bw_fail(why, BW_ERR_PROFILER, "cannot load CUPTI: %s", e ? e : path);
    }
    for (size_t i = 0; i < sizeof(fns) / sizeof(fns[0]); i++) {
        *fns[i].slot = dlsym(c->lib, fns[i].name);
        if (!*fns[i].slot)
            return bw_fail(why, BW_ERR_PROFILER,
                           "%s has no %s: the range profiler needs CUPTI from CUDA 12.6 or newer",
                           path, fns[i].name);
    }
    {
        void *sym = dlsym(c->lib, "cuptiGetErrorMessage");
        memcpy(&c->api.cuptiGetErrorMessage, &sym, sizeof(sym));
    }
    return BW_OK;
}

/* Why the profiler says the device cannot be profiled, from its support flags. */
static int check_device(struct cupti *c, int device, char **why)
{
    CUpti_Profiler_DeviceSupported_Params p = {CUpti_Profiler_DeviceSupported_Params_STRUCT_SIZE};
    CUptiResult rc;

    p.cuDevice = (CUdevice)device;
    p.api = CUPTI_PROFILER_RANGE_PROFILING;
    if ((rc = c->api.cuptiProfilerDeviceSupported(&p)) != CUPTI_SUCCESS)
        return cupti_fail(c, why, rc, "cuptiProfilerDeviceSupported");
    if (p.isSupported == CUPTI_PROFILER_CONFIGURATION_SUPPORTED)
        return BW_OK;
    return bw_fail(why, BW_ERR_PROFILER, "CUPTI cannot profile this GPU (%s)",
                   p.architecture != CUPTI_PROFILER_CONFIGURATION_SUPPORTED ? "its architecture"
                   : p.vGpu != CUPTI_PROFILER_CONFIGURATION_SUPPORTED
                       ? "a virtual GPU without profiling enabled"
                   : p.confidentialCompute != CUPTI_PROFILER_CONFIGURATION_SUPPORTED
                       ? "confidential computing is on"
                   : p.sli != CUPTI_PROFILER_CONFIGURATION_SUPPORTED ? "SLI"
                   : p.cmp != CUPTI_PROFILER_CONFIGURATION_SUPPORTED ? "a crypto-mining processor"
                   : p.wsl != CUPTI_PROFILER_CONFIGURATION_SUPPORTED ? "WSL"
                                                                     : "for a reason it does "
                                                                       "not give");
}

static int counter_availability(struct cupti *c, char **why)
{
    CUpti_Profiler_GetCounterAvailability_Params p = {
        CUpti_Profiler_GetCounterAvailability_Params_STRUCT_SIZE};
    CUptiResult rc;

    p.ctx = c->ctx;
    if ((rc = c->api.cuptiProfilerGetCounterAvailability(&p)) != CUPTI_SUCCESS)
        return cupti_fail(c, why, rc, "cuptiProfilerGetCounterAvailability (size)");
    c->avail = calloc(1, p.counterAvailabilityImageSize ? p.counterAvailabilityImageSize : 1);
    if (!c->avail)
        return bw_fail(why, BW_ERR_NOMEM, "out of memory");
    p.pCounterAvailabilityImage = c->avail;
    if ((rc = c->api.cuptiProfilerGetCounterAvailability(&p)) != CUPTI_SUCCESS)
        return cupti_fail(c, why, rc, "cuptiProfilerGetCounterAvailability");
    return BW_OK;
}

/* A fresh host object for the chip (the configuration it builds starts empty). */
static int host_object(struct cupti *c, char **why)
{
    CUpti_Profiler_Host_Initialize_Params host = {
        CUpti_Profiler_Host_Initialize_Params_STRUCT_SIZE};
    CUptiResult rc;

    if (c->host) {
        CUpti_Profiler_Host_Deinitialize_Params d = {
            CUpti_Profiler_Host_Deinitialize_Params_STRUCT_SIZE};
        d.pHostObject = c->host;
        c->api.cuptiProfilerHostDeinitialize(&d);
        c->host = NULL;
    }
    host.profilerType = CUPTI_PROFILER_TYPE_RANGE_PROFILER;
    host.pChipName = c->chip;
    host.pCounterAvailabilityImage = c->avail;
    if ((rc = c->api.cuptiProfilerHostInitialize(&host)) != CUPTI_SUCCESS)
        return cupti_fail(c, why, rc, "cuptiProfilerHostInitialize (chip %s)", c->chip);
    c->host = host.pHostObject;
    return BW_OK;
}

static CUptiResult add_metrics(struct cupti *c, const char **names, size_t n)
{
    CUpti_Profiler_Host_ConfigAddMetrics_Params a = {
        CUpti_Profiler_Host_ConfigAddMetrics_Params_STRUCT_SIZE};

    a.pHostObject = c->host;
    a.ppMetricNames = names;
    a.numMetrics = n;
    return c->api.cuptiProfilerHostConfigAddMetrics(&a);
}

/*
 * Every metric under the first of its names the chip knows
 * (cuptiProfilerHostGetMetricProperties), all added to the configuration in
 * one call, as NVIDIA's range-profiling sample does. Should that call refuse
 * the set, the configuration is built again one metric at a time, so that a
 * name the properties query accepts and the configuration refuses costs
 * that metric only.
 */
static int choose_metrics(struct cupti *c, char **why)
{
    const char *candidates[PM_COUNT];
    int metric[PM_COUNT], n = 0, rc;
    CUptiResult crc;

    for (int m = 0; m < PM_COUNT; m++) {
        if (profile_metric_table[m].driver)
            continue; /* the runner's own figure (runner_profile.c), not CUPTI's */
        for (int k = 0; k < 3 && profile_metric_table[m].names[k]; k++) {
            CUpti_Profiler_Host_GetMetricProperties_Params q = {
                CUpti_Profiler_Host_GetMetricProperties_Params_STRUCT_SIZE};
            q.pHostObject = c->host;
            q.pMetricName = profile_metric_table[m].names[k];
            if (c->api.cuptiProfilerHostGetMetricProperties(&q) == CUPTI_SUCCESS) {
                candidates[n] = q.pMetricName;
                metric[n++] = m;
                break;
            }
            log_info("CUPTI %s on %s does not know %s", c->version, c->chip, q.pMetricName);
        }
    }
    if (n == 0)
        return bw_fail(why, BW_ERR_PROFILER, "CUPTI on %s knows none of the profile's metrics",
                       c->chip);
    crc = add_metrics(c, candidates, (size_t)n);
    if (crc == CUPTI_SUCCESS) {
        for (int i = 0; i < n; i++) {
            c->used[metric[i]] = candidates[i];
            c->names[i] = candidates[i];
            c->map[i] = metric[i];
        }
        c->n_names = n;
        return BW_OK;
    }
    {
        char result[256];
        describe_result(c, crc, result, sizeof(result));
        log_warn("CUPTI: %s refused the metric set (%s): adding the metrics one at a time", c->chip,
                 result);
    }
    if ((rc = host_object(c, why)))
        return rc;
    for (int i = 0; i < n; i++) {
        if ((crc = add_metrics(c, &candidates[i], 1)) != CUPTI_SUCCESS) {
            char result[256];
            describe_result(c, crc, result, sizeof(result));
            log_warn("CUPTI: %s: cannot add %s to the configuration: %s", c->chip, candidates[i],
                     result);
            continue;
        }
        c->used[metric[i]] = candidates[i];
        c->names[c->n_names] = candidates[i];
        c->map[c->n_names++] = metric[i];
    }
    if (c->n_names == 0)
        return bw_fail(why, BW_ERR_PROFILER, "CUPTI on %s refused every metric of the profile",
                       c->chip);
    return BW_OK;
}

static int build_config(struct cupti *c, char **why)
{
    CUpti_Profiler_Host_GetConfigImageSize_Params s = {
        CUpti_Profiler_Host_GetConfigImageSize_Params_STRUCT_SIZE};
    CUpti_Profiler_Host_GetConfigImage_Params g = {
        CUpti_Profiler_Host_GetConfigImage_Params_STRUCT_SIZE};
    CUpti_Profiler_Host_GetNumOfPasses_Params n = {
        CUpti_Profiler_Host_GetNumOfPasses_Params_STRUCT_SIZE};
    CUptiResult rc;

    s.pHostObject = c->host;
    if ((rc = c->api.cuptiProfilerHostGetConfigImageSize(&s)) != CUPTI_SUCCESS)
        return cupti_fail(c, why, rc, "cuptiProfilerHostGetConfigImageSize");
    c->config_size = s.configImageSize;
    c->config = calloc(1, c->config_size ? c->config_size : 1);
    if (!c->config)
        return bw_fail(why, BW_ERR_NOMEM, "out of memory");
    g.pHostObject = c->host;
    g.configImageSize = c->config_size;
    g.pConfigImage = c->config;
    if ((rc = c->api.cuptiProfilerHostGetConfigImage(&g)) != CUPTI_SUCCESS)
        return cupti_fail(c, why, rc, "cuptiProfilerHostGetConfigImage");
    n.configImageSize = c->config_size;
    n.pConfigImage = c->config;
    if ((rc = c->api.cuptiProfilerHostGetNumOfPasses(&n)) != CUPTI_SUCCESS)
        return cupti_fail(c, why, rc, "cuptiProfilerHostGetNumOfPasses");
    if (n.numOfPasses < 1 || n.numOfPasses > BW_PROFILE_MAX_PASSES)
        return bw_fail(why, BW_ERR_PROFILER,
                       "CUPTI needs %zu passes for the profile's metrics on %s, more than "
                       "BW_PROFILE_MAX_PASSES (%d)",
                       n.numOfPasses, c->chip, BW_PROFILE_MAX_PASSES);
    c->passes = (int)n.numOfPasses;
    return BW_OK;
}

static int set_up(struct cupti *c, int device, char **why)
{
    CUpti_Profiler_Initialize_Params init = {CUpti_Profiler_Initialize_Params_STRUCT_SIZE};
    CUpti_Device_GetChipName_Params chip = {CUpti_Device_GetChipName_Params_STRUCT_SIZE};
    CUpti_RangeProfiler_Enable_Params en = {CUpti_RangeProfiler_Enable_Params_STRUCT_SIZE};
    uint32_t v = 0;
    CUptiResult rc;
    int brc;

    if ((rc = c->api.cuptiGetVersion(&v)) != CUPTI_SUCCESS)
        return cupti_fail(c, why, rc, "cuptiGetVersion");
    /* CUPTI_API_VERSION is 130001 in CUDA 13.0 (cupti_version.h): major * 10000 + minor * 100 */
    if (v >= 10000)
        snprintf(c->version, sizeof(c->version), "%u.%u", v / 10000, v / 100 % 100);
    else
        snprintf(c->version, sizeof(c->version), "API %u", v);
    if ((rc = c->api.cuptiProfilerInitialize(&init)) != CUPTI_SUCCESS)
        return cupti_fail(c, why, rc, "cuptiProfilerInitialize");
    c->initialized = true;
    if ((brc = check_device(c, device, why)))
        return brc;
    chip.deviceIndex = (size_t)device;
    if ((rc = c->api.cuptiDeviceGetChipName(&chip)) != CUPTI_SUCCESS)
        return cupti_fail(c, why, rc, "cuptiDeviceGetChipName");
    snprintf(c->chip, sizeof(c->chip), "%s", chip.pChipName ? chip.pChipName : "?");
    if ((brc = counter_availability(c, why)) || (brc = host_object(c, why)) ||
        (brc = choose_metrics(c, why)) || (brc = build_config(c, why)))
        return brc;
    en.ctx = c->ctx;
    if ((rc = c->api.cuptiRangeProfilerEnable(&en)) != CUPTI_SUCCESS)
        return cupti_fail(c, why, rc, "cuptiRangeProfilerEnable");
    c->rp = en.pRangeProfilerObject;
    return BW_OK;
}

int cupti_open(const char *path, int device, CUcontext ctx, struct cupti **out, char **why)
{
    struct cupti *c;
    int rc, asked = 0;

    *out = NULL;
    if (!path || !path[0])
        return bw_fail(why, BW_ERR_PROFILER, "no CUPTI library was named");
    c = calloc(1, sizeof(*c));
    if (!c)
        return bw_fail(why, BW_ERR_NOMEM, "out of memory");
    c->ctx = ctx;
    rc = load_library(c, path, why);
    if (rc == BW_OK)
        rc = set_up(c, device, why);
    if (rc) {
        cupti_close(c);
        return rc;
    }
    for (int m = 0; m < PM_COUNT; m++)
        asked += !profile_metric_table[m].driver;
    log_info("CUPTI %s on %s: %d of %d metrics known, %d passes", c->version, c->chip, c->n_names,
             asked, c->passes);
    *out = c;
    return BW_OK;
}

void cupti_describe(const struct cupti *c, struct profile_reply *r)
{
    snprintf(r->version, sizeof(r->version), "%s", c->version);
    snprintf(r->chip, sizeof(r->chip), "%s", c->chip);
    r->passes = c->passes;
    for (int m = 0; m < PM_COUNT; m++)
        snprintf(r->metrics[m], sizeof(r->metrics[m]), "%s",
                 profile_metric_table[m].driver ? profile_metric_table[m].names[0]
                 : c->used[m]                   ? c->used[m]
                                                : "");
}

/* --- one profile --------------------------------------------------------------------------- */

int cupti_begin(struct cupti *c, int n_launches, char **cause)
{
    CUpti_RangeProfiler_GetCounterDataSize_Params sz = {
        CUpti_RangeProfiler_GetCounterDataSize_Params_STRUCT_SIZE};
    CUpti_RangeProfiler_CounterDataImage_Initialize_Params init = {
        CUpti_RangeProfiler_CounterDataImage_Initialize_Params_STRUCT_SIZE};
    CUpti_RangeProfiler_SetConfig_Params cfg = {CUpti_RangeProfiler_SetConfig_Params_STRUCT_SIZE};
    CUpti_RangeProfiler_Start_Params start = {CUpti_RangeProfiler_Start_Params_STRUCT_SIZE};
    CUptiResult rc;

    free(c->data);
    c->data = NULL;
    sz.pRangeProfilerObject = c->rp;
    sz.pMetricNames = c->names;
    sz.numMetrics = (size_t)c->n_names;
    sz.maxNumOfRanges = (size_t)n_launches;
    sz.maxNumRangeTreeNodes = (uint32_t)n_launches;
    if ((rc = c->api.cuptiRangeProfilerGetCounterDataSize(&sz)) != CUPTI_SUCCESS)
        return cupti_fail(c, cause, rc, "cuptiRangeProfilerGetCounterDataSize");
    c->data_size = sz.counterDataSize;
    c->data = calloc(1, c->data_size ? c->data_size : 1);
    if (!c->data)
        return bw_fail(cause, BW_ERR_NOMEM, "out of memory for a %zu-byte counter data image",
                       c->data_size);
    init.pRangeProfilerObject = c->rp;
    init.counterDataSize = c->data_size;
    init.pCounterData = c->data;
    if ((rc = c->api.cuptiRangeProfilerCounterDataImageInitialize(&init)) != CUPTI_SUCCESS)
        return cupti_fail(c, cause, rc, "cuptiRangeProfilerCounterDataImageInitialize");
    cfg.pRangeProfilerObject = c->rp;
    cfg.configSize = c->config_size;
    cfg.pConfig = c->config;
    cfg.counterDataImageSize = c->data_size;
    cfg.pCounterDataImage = c->data;
    cfg.range = CUPTI_AutoRange;
    cfg.replayMode = CUPTI_KernelReplay;
    cfg.maxRangesPerPass = (size_t)n_launches;
    cfg.numNestingLevels = 1;
    cfg.minNestingLevel = 1;
    cfg.passIndex = 0;
    cfg.targetNestingLevel = 1;
    if ((rc = c->api.cuptiRangeProfilerSetConfig(&cfg)) != CUPTI_SUCCESS)
        return cupti_fail(c, cause, rc, "cuptiRangeProfilerSetConfig");
    start.pRangeProfilerObject = c->rp;
    if ((rc = c->api.cuptiRangeProfilerStart(&start)) != CUPTI_SUCCESS)
        return cupti_fail(c, cause, rc, "cuptiRangeProfilerStart");
    c->started = true;
    return BW_OK;
}

static int stop(struct cupti *c, char **cause)
{
    CUpti_RangeProfiler_Stop_Params p = {CUpti_RangeProfiler_Stop_Params_STRUCT_SIZE};
    CUptiResult rc;

    if (!c->started)
        return BW_OK;
    c->started = false;
    p.pRangeProfilerObject = c->rp;
    if ((rc = c->api.cuptiRangeProfilerStop(&p)) != CUPTI_SUCCESS)
        return cupti_fail(c, cause, rc, "cuptiRangeProfilerStop");
    if (!p.isAllPassSubmitted)
        return bw_fail(cause, BW_ERR_PROFILER,
                       "CUPTI: kernel replay left passes unsubmitted after the plan (pass %zu)",
                       p.passIndex);
    return BW_OK;
}

void cupti_abort(struct cupti *c)
{
    char *cause = NULL;

    if (c && stop(c, &cause))
        log_warn("stopping the profiler after a failed launch: %s", cause ? cause : "?");
    free(cause);
}

int cupti_end(struct cupti *c, struct profile_range *ranges, int n_launches, int *n_ranges,
              char **cause)
{
    CUpti_RangeProfiler_DecodeData_Params dec = {CUpti_RangeProfiler_DecodeData_Params_STRUCT_SIZE};
    CUpti_RangeProfiler_GetCounterDataInfo_Params info = {
        CUpti_RangeProfiler_GetCounterDataInfo_Params_STRUCT_SIZE};
    double values[PM_COUNT];
    CUptiResult rc;
    int brc;

    *n_ranges = 0;
    if ((brc = stop(c, cause)))
        return brc;
    dec.pRangeProfilerObject = c->rp;
    if ((rc = c->api.cuptiRangeProfilerDecodeData(&dec)) != CUPTI_SUCCESS)
        return cupti_fail(c, cause, rc, "cuptiRangeProfilerDecodeData");
    if (dec.numOfRangeDropped)
        log_warn("CUPTI dropped %zu of the plan's ranges", dec.numOfRangeDropped);
    info.pCounterDataImage = c->data;
    info.counterDataImageSize = c->data_size;
    if ((rc = c->api.cuptiRangeProfilerGetCounterDataInfo(&info)) != CUPTI_SUCCESS)
        return cupti_fail(c, cause, rc, "cuptiRangeProfilerGetCounterDataInfo");
    if (info.numTotalRanges != (size_t)n_launches)
        log_warn("CUPTI recorded %zu ranges for the plan's %d launches", info.numTotalRanges,
                 n_launches);
    for (size_t i = 0; i < info.numTotalRanges && i < (size_t)n_launches; i++) {
        CUpti_Profiler_Host_EvaluateToGpuValues_Params ev = {
            CUpti_Profiler_Host_EvaluateToGpuValues_Params_STRUCT_SIZE};

        ev.pHostObject = c->host;
        ev.pCounterDataImage = c->data;
        ev.counterDataImageSize = c->data_size;
        ev.rangeIndex = i;
        ev.ppMetricNames = c->names;
        ev.numMetrics = (size_t)c->n_names;
        ev.pMetricValues = values;
        if ((rc = c->api.cuptiProfilerHostEvaluateToGpuValues(&ev)) != CUPTI_SUCCESS)
            return cupti_fail(c, cause, rc, "cuptiProfilerHostEvaluateToGpuValues (range %zu)", i);
        for (int k = 0; k < c->n_names; k++)
            ranges[i].values[c->map[k]] = values[k];
        *n_ranges = (int)i + 1;
    }
    free(c->data);
    c->data = NULL;
    return BW_OK;
}

void cupti_close(struct cupti *c)
{
    if (!c)
        return;
    cupti_abort(c);
    if (c->rp) {
        CUpti_RangeProfiler_Disable_Params p = {CUpti_RangeProfiler_Disable_Params_STRUCT_SIZE};
        p.pRangeProfilerObject = c->rp;
        c->api.cuptiRangeProfilerDisable(&p);
    }
    if (c->host) {
        CUpti_Profiler_Host_Deinitialize_Params p = {
            CUpti_Profiler_Host_Deinitialize_Params_STRUCT_SIZE};
        p.pHostObject = c->host;
        c->api.cuptiProfilerHostDeinitialize(&p);
    }
    if (c->initialized) {
        CUpti_Profiler_DeInitialize_Params p = {CUpti_Profiler_DeInitialize_Params_STRUCT_SIZE};
        c->api.cuptiProfilerDeInitialize(&p);
    }
    free(c->data);
    free(c->config);
    free(c->avail);
    /* The libraries stay loaded: CUPTI may have left threads or callbacks in the driver. */
    free(c);
}
