/*
 * libcupti.c - a FAKE CUPTI (range profiler and profiler host API) for
 * testing Profile mode on machines without a GPU: blockwise-runner opens it
 * with --cupti BUILD/tests/fake/libcupti.so, as it opens the real library,
 * next to the fake CUDA driver (tests/fake/libcuda.c).
 *
 * Its "chip" is "fake-libcupti" and knows a fixed list of metric names: every
 * first name of the profile's metric table (wire/runner_proto_profile.c) that
 * the runner asks CUPTI for (not the .driver row, theoretical occupancy, which
 * the runner computes with the fake driver), except three, so that the
 * runner's fallbacks are exercised: DRAM
 * throughput only under its second name (gpu__dram_throughput...), and no
 * wgmma pipe and no TEX-throttle stall at all (null in the results); and the
 * dispatch stall it describes but will not schedule (a configuration that
 * holds it is refused whole: the runner then adds the metrics one by one and
 * does without that one). Its
 * counters are deterministic functions of what the fake driver logged for
 * each launch between start and stop (fake_cuda_launch_log: the bytes the
 * stand-in kernel read and wrote): plausible for a memory-bound kernel
 * (duration = 2 us + bytes at 2.7 TB/s against a 3.35 TB/s peak), so the
 * judge's summary calls vector-add memory-bound. Nothing here measures
 * anything: the GPU tests (tests/gpu/profile.sh) do.
 *
 * Built twice: libcupti.so, and with -DFAKE_CUPTI_DENIED libcupti-denied.so,
 * whose counter availability query fails with
 * CUPTI_ERROR_INSUFFICIENT_PRIVILEGES, as the real one does where the driver
 * restricts counters to administrators.
 */
#include <dlfcn.h>
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "judge/runner/cupti_host.h"

#define FAKE_EXPORT     __attribute__((visibility("default")))
#define FAKE_MAX_RANGES 64
#define FAKE_MAX_NAMES  64
#define FAKE_PASSES     7
#define FAKE_PEAK_BPNS  3.35 /* bytes per ns: a 3.35 TB/s DRAM peak */
#define FAKE_RATE_BPNS  2.7  /* bytes per ns the fake kernels move */
#define FAKE_BASE_NS    2000.0
/* described by the properties query, refused by the configuration */
#define UNSCHEDULABLE "smsp__average_warps_issue_stalled_dispatch_stall_per_issue_active.ratio"

/* The fake driver's launch record (tests/fake/libcuda.c, struct fake_launch). */
struct fake_launch {
    char kernel[64];
    unsigned grid[3], block[3], smem;
    unsigned long long bytes_read, bytes_written;
    bool harness;
};
typedef bool (*launch_log_fn)(unsigned long i, struct fake_launch *out, unsigned long *count);

/* The metric names the fake chip knows, with how each is derived. */
enum derive {
    D_DURATION,
    D_DRAM_PCT,
    D_L2_PCT,
    D_L1_PCT,
    D_SM_PCT,
    D_MEM_PCT,
    D_FMA_PCT,
    D_TENSOR_PCT,
    D_WARPS_PCT,
    D_READ,
    D_WRITE,
    D_L2_HIT,
    D_L1_HIT,
    D_CONST
};

static const struct {
    const char *name;
    enum derive d;
    double k; /* D_CONST's value */
} known[] = {
    {"gpu__time_duration.sum", D_DURATION, 0},
    {"gpu__dram_throughput.avg.pct_of_peak_sustained_elapsed", D_DRAM_PCT, 0},
    {"lts__throughput.avg.pct_of_peak_sustained_elapsed", D_L2_PCT, 0},
    {"l1tex__throughput.avg.pct_of_peak_sustained_active", D_L1_PCT, 0},
    {"sm__throughput.avg.pct_of_peak_sustained_elapsed", D_SM_PCT, 0},
    {"gpu__compute_memory_throughput.avg.pct_of_peak_sustained_elapsed", D_MEM_PCT, 0},
    {"sm__pipe_fma_cycles_active.avg.pct_of_peak_sustained_active", D_FMA_PCT, 0},
    {"sm__pipe_tensor_cycles_active.avg.pct_of_peak_sustained_active", D_TENSOR_PCT, 0},
    {"sm__warps_active.avg.pct_of_peak_sustained_active", D_WARPS_PCT, 0},
    {"dram__bytes_read.sum", D_READ, 0},
    {"dram__bytes_write.sum", D_WRITE, 0},
    {"lts__t_sector_hit_rate.pct", D_L2_HIT, 0},
    {"l1tex__t_sector_hit_rate.pct", D_L1_HIT, 0},
    {"smsp__average_warps_issue_stalled_long_scoreboard_per_issue_active.ratio", D_CONST, 9.5},
    {"smsp__average_warps_issue_stalled_short_scoreboard_per_issue_active.ratio", D_CONST, 0.1},
    {"smsp__average_warps_issue_stalled_mio_throttle_per_issue_active.ratio", D_CONST, 0.05},
    {"smsp__average_warps_issue_stalled_lg_throttle_per_issue_active.ratio", D_CONST, 1.2},
    {"smsp__average_warps_issue_stalled_math_pipe_throttle_per_issue_active.ratio", D_CONST, 0.02},
    {"smsp__average_warps_issue_stalled_wait_per_issue_active.ratio", D_CONST, 0.6},
    {"smsp__average_warps_issue_stalled_barrier_per_issue_active.ratio", D_CONST, 0},
    {"smsp__average_warps_issue_stalled_membar_per_issue_active.ratio", D_CONST, 0},
    {"smsp__average_warps_issue_stalled_not_selected_per_issue_active.ratio", D_CONST, 0.3},
    {"smsp__average_warps_issue_stalled_no_instruction_per_issue_active.ratio", D_CONST, 0.2},
    {"smsp__average_warps_issue_stalled_dispatch_stall_per_issue_active.ratio", D_CONST, 0.04},
};

static int known_index(const char *name)
{
    for (size_t i = 0; name && i < sizeof(known) / sizeof(known[0]); i++)
        if (strcmp(known[i].name, name) == 0)
            return (int)i;
    return -1;
}

/* --- the fake's state: one process, one profiler --------------------------------------- */

struct CUpti_Profiler_Host_Object {
    int n;
    int metrics[FAKE_MAX_NAMES]; /* indices into known[] added to the configuration */
};

struct CUpti_RangeProfiler_Object {
    CUcontext ctx;
    bool configured, started;
    unsigned long first_launch; /* the driver's launch count at start */
    uint8_t *data;              /* the counter data image of SetConfig */
    size_t data_size;
};

/* The counter data image: the ranges' launch records, filled by decode. */
struct fake_data {
    char magic[8]; /* "FAKECDI" */
    size_t max_ranges, n_ranges;
    struct fake_launch ranges[]; /* max_ranges of them */
};

/*
 * What real CUPTI asks of every *_Params (each header's comment: "[in] Size of the data
 * structure", "[in] Set to NULL"): the fake holds the runner to exactly the _STRUCT_SIZE of the
 * headers it was built with and to a null pPriv, so a parameter block set up wrongly fails here,
 * on the CPU, as it might on the GPU.
 */
#define FAKE_CHECK_PARAMS(p, type)                                                                 \
    do {                                                                                           \
        if (!(p) || (p)->structSize != type##_STRUCT_SIZE || (p)->pPriv)                           \
            return CUPTI_ERROR_INVALID_PARAMETER;                                                  \
    } while (0)

static bool initialized;
static struct CUpti_RangeProfiler_Object profiler; /* one context */

static launch_log_fn launch_log(void)
{
    void *driver = dlopen("libcuda.so.1", RTLD_NOW | RTLD_NOLOAD);
    return driver ? (launch_log_fn)dlsym(driver, "fake_cuda_launch_log") : NULL;
}

/* --- target side ------------------------------------------------------------------------- */

FAKE_EXPORT CUptiResult cuptiGetVersion(uint32_t *version)
{
    *version = 130001;
    return CUPTI_SUCCESS;
}

FAKE_EXPORT CUptiResult cuptiGetResultString(CUptiResult result, const char **str)
{
    switch (result) {
    case CUPTI_SUCCESS:
        *str = "CUPTI_SUCCESS";
        return CUPTI_SUCCESS;
    case CUPTI_ERROR_INVALID_PARAMETER:
        *str = "CUPTI_ERROR_INVALID_PARAMETER";
        return CUPTI_SUCCESS;
    case CUPTI_ERROR_INVALID_OPERATION:
        *str = "CUPTI_ERROR_INVALID_OPERATION";
        return CUPTI_SUCCESS;
    case CUPTI_ERROR_INVALID_METRIC_NAME:
        *str = "CUPTI_ERROR_INVALID_METRIC_NAME";
        return CUPTI_SUCCESS;
    case CUPTI_ERROR_INSUFFICIENT_PRIVILEGES:
        *str = "CUPTI_ERROR_INSUFFICIENT_PRIVILEGES";
        return CUPTI_SUCCESS;
    case CUPTI_ERROR_NOT_SUPPORTED:
        *str = "CUPTI_ERROR_NOT_SUPPORTED";
        return CUPTI_SUCCESS;
    default:
        *str = "CUPTI_ERROR_UNKNOWN";
        return CUPTI_SUCCESS;
    }
}

FAKE_EXPORT CUptiResult cuptiGetErrorMessage(CUptiResult result, const char **str)
{
    *str = result == CUPTI_ERROR_INSUFFICIENT_PRIVILEGES
               ? "the fake CUPTI was built to refuse counters (FAKE_CUPTI_DENIED)"
               : "an error of the fake CUPTI";
    return CUPTI_SUCCESS;
}

FAKE_EXPORT CUptiResult cuptiProfilerInitialize(CUpti_Profiler_Initialize_Params *p)
{
    FAKE_CHECK_PARAMS(p, CUpti_Profiler_Initialize_Params);
    initialized = true;
    return CUPTI_SUCCESS;
}

FAKE_EXPORT CUptiResult cuptiProfilerDeInitialize(CUpti_Profiler_DeInitialize_Params *p)
{
    FAKE_CHECK_PARAMS(p, CUpti_Profiler_DeInitialize_Params);
    initialized = false;
    return CUPTI_SUCCESS;
}

FAKE_EXPORT CUptiResult cuptiProfilerDeviceSupported(CUpti_Profiler_DeviceSupported_Params *p)
{
    FAKE_CHECK_PARAMS(p, CUpti_Profiler_DeviceSupported_Params);
    p->isSupported = p->architecture = p->sli = p->vGpu = p->confidentialCompute = p->cmp = p->wsl =
        CUPTI_PROFILER_CONFIGURATION_SUPPORTED;
    return CUPTI_SUCCESS;
}

FAKE_EXPORT CUptiResult cuptiDeviceGetChipName(CUpti_Device_GetChipName_Params *p)
{
    FAKE_CHECK_PARAMS(p, CUpti_Device_GetChipName_Params);
    if (!initialized || p->deviceIndex != 0)
        return CUPTI_ERROR_INVALID_PARAMETER;
    p->pChipName = "fake-libcupti";
    return CUPTI_SUCCESS;
}

FAKE_EXPORT CUptiResult
cuptiProfilerGetCounterAvailability(CUpti_Profiler_GetCounterAvailability_Params *p)
{
    FAKE_CHECK_PARAMS(p, CUpti_Profiler_GetCounterAvailability_Params);
#ifdef FAKE_CUPTI_DENIED
    return CUPTI_ERROR_INSUFFICIENT_PRIVILEGES;
#else
    if (!p->pCounterAvailabilityImage) {
        p->counterAvailabilityImageSize = 16;
        return CUPTI_SUCCESS;
    }
    if (p->counterAvailabilityImageSize < 16) /* the size the first call said */
        return CUPTI_ERROR_INVALID_PARAMETER;
    memcpy(p->pCounterAvailabilityImage, "FAKEAVAILABLE!!", 16);
    return CUPTI_SUCCESS;
#endif
}

/* --- host side --------------------------------------------------------------------------- */

FAKE_EXPORT CUptiResult cuptiProfilerHostInitialize(CUpti_Profiler_Host_Initialize_Params *p)
{
    FAKE_CHECK_PARAMS(p, CUpti_Profiler_Host_Initialize_Params);
    if (!p->pChipName || strcmp(p->pChipName, "fake-libcupti") != 0 ||
        !p->pCounterAvailabilityImage || p->profilerType != CUPTI_PROFILER_TYPE_RANGE_PROFILER)
        return CUPTI_ERROR_INVALID_PARAMETER;
    p->pHostObject = calloc(1, sizeof(*p->pHostObject));
    return p->pHostObject ? CUPTI_SUCCESS : CUPTI_ERROR_OUT_OF_MEMORY;
}

FAKE_EXPORT CUptiResult cuptiProfilerHostDeinitialize(CUpti_Profiler_Host_Deinitialize_Params *p)
{
    FAKE_CHECK_PARAMS(p, CUpti_Profiler_Host_Deinitialize_Params);
    free(p->pHostObject);
    return CUPTI_SUCCESS;
}

FAKE_EXPORT CUptiResult
cuptiProfilerHostGetMetricProperties(CUpti_Profiler_Host_GetMetricProperties_Params *p)
{
    FAKE_CHECK_PARAMS(p, CUpti_Profiler_Host_GetMetricProperties_Params);
    if (known_index(p->pMetricName) < 0)
        return CUPTI_ERROR_INVALID_METRIC_NAME;
    p->pDescription = "a fake metric";
    p->pHwUnit = "fake";
    p->pDimUnit = "";
    p->metricType = CUPTI_METRIC_TYPE_RATIO;
    return CUPTI_SUCCESS;
}

FAKE_EXPORT CUptiResult
cuptiProfilerHostConfigAddMetrics(CUpti_Profiler_Host_ConfigAddMetrics_Params *p)
{
    FAKE_CHECK_PARAMS(p, CUpti_Profiler_Host_ConfigAddMetrics_Params);
    for (size_t i = 0; i < p->numMetrics; i++)
        if (strcmp(p->ppMetricNames[i], UNSCHEDULABLE) == 0)
            return CUPTI_ERROR_NOT_SUPPORTED; /* nothing of this call added */
    for (size_t i = 0; i < p->numMetrics; i++) {
        int k = known_index(p->ppMetricNames[i]);
        if (k < 0)
            return CUPTI_ERROR_INVALID_METRIC_NAME;
        if (p->pHostObject->n == FAKE_MAX_NAMES)
            return CUPTI_ERROR_INVALID_PARAMETER;
        p->pHostObject->metrics[p->pHostObject->n++] = k;
    }
    return CUPTI_SUCCESS;
}

FAKE_EXPORT CUptiResult
cuptiProfilerHostGetConfigImageSize(CUpti_Profiler_Host_GetConfigImageSize_Params *p)
{
    FAKE_CHECK_PARAMS(p, CUpti_Profiler_Host_GetConfigImageSize_Params);
    p->configImageSize = 8 + sizeof(int) * (size_t)p->pHostObject->n;
    return CUPTI_SUCCESS;
}

FAKE_EXPORT CUptiResult
cuptiProfilerHostGetConfigImage(CUpti_Profiler_Host_GetConfigImage_Params *p)
{
    FAKE_CHECK_PARAMS(p, CUpti_Profiler_Host_GetConfigImage_Params);
    size_t need = 8 + sizeof(int) * (size_t)p->pHostObject->n;

    if (p->configImageSize < need)
        return CUPTI_ERROR_INVALID_PARAMETER;
    memcpy(p->pConfigImage, "FAKECFG", 8);
    memcpy(p->pConfigImage + 8, p->pHostObject->metrics, need - 8);
    return CUPTI_SUCCESS;
}

FAKE_EXPORT CUptiResult
cuptiProfilerHostGetNumOfPasses(CUpti_Profiler_Host_GetNumOfPasses_Params *p)
{
    FAKE_CHECK_PARAMS(p, CUpti_Profiler_Host_GetNumOfPasses_Params);
    if (p->configImageSize < 8 || memcmp(p->pConfigImage, "FAKECFG", 8) != 0)
        return CUPTI_ERROR_INVALID_PARAMETER;
    p->numOfPasses = FAKE_PASSES;
    return CUPTI_SUCCESS;
}

/* Metric k of a launch, derived from the bytes it moved. */
static double derive(int k, const struct fake_launch *l)
{
    double bytes = (double)(l->bytes_read + l->bytes_written);
    double ns = FAKE_BASE_NS + bytes / FAKE_RATE_BPNS;
    double dram = 100.0 * bytes / (ns * FAKE_PEAK_BPNS);

    switch (known[k].d) {
    case D_DURATION:
        return ns;
    case D_DRAM_PCT:
    case D_MEM_PCT:
        return dram;
    case D_L2_PCT:
        return dram * 0.55;
    case D_L1_PCT:
        return dram * 0.3;
    case D_SM_PCT:
        return dram * 0.15;
    case D_FMA_PCT:
        return dram * 0.05;
    case D_TENSOR_PCT:
        return 0;
    case D_WARPS_PCT:
        return 82.5;
    case D_READ:
        return (double)l->bytes_read;
    case D_WRITE:
        return (double)l->bytes_written;
    case D_L2_HIT:
        return 3.0;
    case D_L1_HIT:
        return 0;
    case D_CONST:
        return known[k].k;
    }
    return NAN;
}

FAKE_EXPORT CUptiResult
cuptiProfilerHostEvaluateToGpuValues(CUpti_Profiler_Host_EvaluateToGpuValues_Params *p)
{
    FAKE_CHECK_PARAMS(p, CUpti_Profiler_Host_EvaluateToGpuValues_Params);
    const struct fake_data *d = (const struct fake_data *)p->pCounterDataImage;

    if (!d || memcmp(d->magic, "FAKECDI", 8) != 0 || p->rangeIndex >= d->n_ranges)
        return CUPTI_ERROR_INVALID_PARAMETER;
    for (size_t i = 0; i < p->numMetrics; i++) {
        int k = known_index(p->ppMetricNames[i]);
        if (k < 0)
            return CUPTI_ERROR_INVALID_METRIC_NAME;
        p->pMetricValues[i] = derive(k, &d->ranges[p->rangeIndex]);
    }
    return CUPTI_SUCCESS;
}

/* --- the range profiler ------------------------------------------------------------------- */

FAKE_EXPORT CUptiResult cuptiRangeProfilerEnable(CUpti_RangeProfiler_Enable_Params *p)
{
    FAKE_CHECK_PARAMS(p, CUpti_RangeProfiler_Enable_Params);
    if (!initialized || !p->ctx)
        return CUPTI_ERROR_INVALID_PARAMETER;
    memset(&profiler, 0, sizeof(profiler));
    profiler.ctx = p->ctx;
    p->pRangeProfilerObject = &profiler;
    return CUPTI_SUCCESS;
}

FAKE_EXPORT CUptiResult cuptiRangeProfilerDisable(CUpti_RangeProfiler_Disable_Params *p)
{
    FAKE_CHECK_PARAMS(p, CUpti_RangeProfiler_Disable_Params);
    if (p->pRangeProfilerObject != &profiler)
        return CUPTI_ERROR_INVALID_PARAMETER;
    memset(&profiler, 0, sizeof(profiler));
    return CUPTI_SUCCESS;
}

FAKE_EXPORT CUptiResult
cuptiRangeProfilerGetCounterDataSize(CUpti_RangeProfiler_GetCounterDataSize_Params *p)
{
    FAKE_CHECK_PARAMS(p, CUpti_RangeProfiler_GetCounterDataSize_Params);
    if (p->pRangeProfilerObject != &profiler || p->maxNumOfRanges == 0 ||
        p->maxNumOfRanges > FAKE_MAX_RANGES || p->maxNumRangeTreeNodes < p->maxNumOfRanges)
        return CUPTI_ERROR_INVALID_PARAMETER;
    for (size_t i = 0; i < p->numMetrics; i++)
        if (known_index(p->pMetricNames[i]) < 0)
            return CUPTI_ERROR_INVALID_METRIC_NAME;
    p->counterDataSize = sizeof(struct fake_data) + p->maxNumOfRanges * sizeof(struct fake_launch);
    return CUPTI_SUCCESS;
}

FAKE_EXPORT CUptiResult cuptiRangeProfilerCounterDataImageInitialize(
    CUpti_RangeProfiler_CounterDataImage_Initialize_Params *p)
{
    FAKE_CHECK_PARAMS(p, CUpti_RangeProfiler_CounterDataImage_Initialize_Params);
    struct fake_data *d = (struct fake_data *)p->pCounterData;

    if (p->pRangeProfilerObject != &profiler || p->counterDataSize < sizeof(*d))
        return CUPTI_ERROR_INVALID_PARAMETER;
    memset(d, 0, p->counterDataSize);
    memcpy(d->magic, "FAKECDI", 8);
    d->max_ranges = (p->counterDataSize - sizeof(*d)) / sizeof(struct fake_launch);
    return CUPTI_SUCCESS;
}

FAKE_EXPORT CUptiResult cuptiRangeProfilerSetConfig(CUpti_RangeProfiler_SetConfig_Params *p)
{
    FAKE_CHECK_PARAMS(p, CUpti_RangeProfiler_SetConfig_Params);
    if (p->pRangeProfilerObject != &profiler || !p->pConfig || p->configSize < 8 ||
        memcmp(p->pConfig, "FAKECFG", 8) != 0 || !p->pCounterDataImage ||
        p->range != CUPTI_AutoRange || p->replayMode != CUPTI_KernelReplay ||
        p->numNestingLevels != 1)
        return CUPTI_ERROR_INVALID_PARAMETER;
    profiler.data = p->pCounterDataImage;
    profiler.data_size = p->counterDataImageSize;
    profiler.configured = true;
    return CUPTI_SUCCESS;
}

FAKE_EXPORT CUptiResult cuptiRangeProfilerStart(CUpti_RangeProfiler_Start_Params *p)
{
    FAKE_CHECK_PARAMS(p, CUpti_RangeProfiler_Start_Params);
    launch_log_fn log = launch_log();
    struct fake_launch ignored;

    if (p->pRangeProfilerObject != &profiler || !profiler.configured || profiler.started || !log)
        return CUPTI_ERROR_INVALID_OPERATION;
    log(0, &ignored, &profiler.first_launch);
    profiler.started = true;
    return CUPTI_SUCCESS;
}

FAKE_EXPORT CUptiResult cuptiRangeProfilerStop(CUpti_RangeProfiler_Stop_Params *p)
{
    FAKE_CHECK_PARAMS(p, CUpti_RangeProfiler_Stop_Params);
    if (p->pRangeProfilerObject != &profiler || !profiler.started)
        return CUPTI_ERROR_INVALID_OPERATION;
    profiler.started = false;
    p->passIndex = FAKE_PASSES - 1;
    p->targetNestingLevel = 1;
    p->isAllPassSubmitted = 1; /* kernel replay: every pass ran inside each launch */
    return CUPTI_SUCCESS;
}

FAKE_EXPORT CUptiResult cuptiRangeProfilerDecodeData(CUpti_RangeProfiler_DecodeData_Params *p)
{
    FAKE_CHECK_PARAMS(p, CUpti_RangeProfiler_DecodeData_Params);
    struct fake_data *d = (struct fake_data *)profiler.data;
    launch_log_fn log = launch_log();
    unsigned long count = 0;
    struct fake_launch l;

    if (p->pRangeProfilerObject != &profiler || !d || profiler.started || !log)
        return CUPTI_ERROR_INVALID_OPERATION;
    log(0, &l, &count);
    d->n_ranges = 0;
    p->numOfRangeDropped = 0;
    /* auto range: each kernel launched between start and stop is a range */
    for (unsigned long i = profiler.first_launch; i < count; i++) {
        if (!log(i, &l, NULL) || d->n_ranges == d->max_ranges) {
            p->numOfRangeDropped++;
            continue;
        }
        d->ranges[d->n_ranges++] = l;
    }
    return CUPTI_SUCCESS;
}

FAKE_EXPORT CUptiResult
cuptiRangeProfilerGetCounterDataInfo(CUpti_RangeProfiler_GetCounterDataInfo_Params *p)
{
    FAKE_CHECK_PARAMS(p, CUpti_RangeProfiler_GetCounterDataInfo_Params);
    const struct fake_data *d = (const struct fake_data *)p->pCounterDataImage;

    if (!d || memcmp(d->magic, "FAKECDI", 8) != 0)
        return CUPTI_ERROR_INVALID_PARAMETER;
    p->numTotalRanges = d->n_ranges;
    return CUPTI_SUCCESS;
}
