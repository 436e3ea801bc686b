/*
 * cupti_host.h - the few declarations of CUPTI's profiler host API
 * (cupti_profiler_host.h) that the runner's profiler (cupti.c) and the fake
 * CUPTI of the tests (tests/fake/libcupti.c) use, in C.
 *
 * cupti_profiler_host.h itself cannot be included from C: CUDA 13.0's copy
 * includes the C++ header <string>. These are its structs and enums as that
 * header declares them, field for field (structSize-versioned: CUPTI reads a
 * struct only as far as the size the caller passes). Every field's offset and
 * size, every struct's size, every enum value and every _STRUCT_SIZE is
 * compared with the real header's by tests/cpu/cupti-host.sh
 * (tests/cpu/cupti_host_abi.cpp, under g++, against the toolkit's header:
 * CUDA 13.0, CUPTI_API_VERSION 130001 when written), which also calls the
 * real host library through these declarations; a new CUDA whose header
 * differs fails it.
 * The target side (cupti_target.h, cupti_profiler_target.h,
 * cupti_range_profiler.h, cupti_result.h, cupti_version.h) is C and is
 * included as it is.
 */
#ifndef BW_CUPTI_HOST_H
#define BW_CUPTI_HOST_H

#include <stddef.h>
#include <stdint.h>

#include <cupti_range_profiler.h>
#include <cupti_result.h>
#include <cupti_target.h>
#include <cupti_version.h>

#ifndef CUPTI_PROFILER_STRUCT_SIZE
#define CUPTI_PROFILER_STRUCT_SIZE(type_, lastfield_)                                              \
    (offsetof(type_, lastfield_) + sizeof(((type_ *)0)->lastfield_))
#endif

typedef enum CUpti_MetricType {
    CUPTI_METRIC_TYPE_COUNTER = 0,
    CUPTI_METRIC_TYPE_RATIO,
    CUPTI_METRIC_TYPE_THROUGHPUT,
    CUPTI_METRIC_TYPE__COUNT
} CUpti_MetricType;

typedef enum CUpti_ProfilerType {
    CUPTI_PROFILER_TYPE_RANGE_PROFILER,
    CUPTI_PROFILER_TYPE_PM_SAMPLING,
    CUPTI_PROFILER_TYPE_PROFILER_INVALID
} CUpti_ProfilerType;

typedef struct CUpti_Profiler_Host_Object CUpti_Profiler_Host_Object;

typedef struct CUpti_Profiler_Host_Initialize_Params {
    size_t structSize;
    void *pPriv;
    CUpti_ProfilerType profilerType;
    const char *pChipName;
    const uint8_t *pCounterAvailabilityImage;
    CUpti_Profiler_Host_Object *pHostObject; /* out */
} CUpti_Profiler_Host_Initialize_Params;
#define CUpti_Profiler_Host_Initialize_Params_STRUCT_SIZE                                          \
    CUPTI_PROFILER_STRUCT_SIZE(CUpti_Profiler_Host_Initialize_Params, pHostObject)

typedef struct CUpti_Profiler_Host_Deinitialize_Params {
    size_t structSize;
    void *pPriv;
    struct CUpti_Profiler_Host_Object *pHostObject;
} CUpti_Profiler_Host_Deinitialize_Params;
#define CUpti_Profiler_Host_Deinitialize_Params_STRUCT_SIZE                                        \
    CUPTI_PROFILER_STRUCT_SIZE(CUpti_Profiler_Host_Deinitialize_Params, pHostObject)

typedef struct CUpti_Profiler_Host_GetMetricProperties_Params {
    size_t structSize;
    void *pPriv;
    CUpti_Profiler_Host_Object *pHostObject;
    const char *pMetricName;
    const char *pDescription;    /* out */
    const char *pHwUnit;         /* out */
    const char *pDimUnit;        /* out */
    CUpti_MetricType metricType; /* out */
} CUpti_Profiler_Host_GetMetricProperties_Params;
#define CUpti_Profiler_Host_GetMetricProperties_Params_STRUCT_SIZE                                 \
    CUPTI_PROFILER_STRUCT_SIZE(CUpti_Profiler_Host_GetMetricProperties_Params, metricType)

typedef struct CUpti_Profiler_Host_ConfigAddMetrics_Params {
    size_t structSize;
    void *pPriv;
    struct CUpti_Profiler_Host_Object *pHostObject;
    const char **ppMetricNames;
    size_t numMetrics;
} CUpti_Profiler_Host_ConfigAddMetrics_Params;
#define CUpti_Profiler_Host_ConfigAddMetrics_Params_STRUCT_SIZE                                    \
    CUPTI_PROFILER_STRUCT_SIZE(CUpti_Profiler_Host_ConfigAddMetrics_Params, numMetrics)

typedef struct CUpti_Profiler_Host_GetConfigImageSize_Params {
    size_t structSize;
    void *pPriv;
    CUpti_Profiler_Host_Object *pHostObject;
    size_t configImageSize; /* out */
} CUpti_Profiler_Host_GetConfigImageSize_Params;
#define CUpti_Profiler_Host_GetConfigImageSize_Params_STRUCT_SIZE                                  \
    CUPTI_PROFILER_STRUCT_SIZE(CUpti_Profiler_Host_GetConfigImageSize_Params, configImageSize)

typedef struct CUpti_Profiler_Host_GetConfigImage_Params {
    size_t structSize;
    void *pPriv;
    CUpti_Profiler_Host_Object *pHostObject;
    size_t configImageSize;
    uint8_t *pConfigImage;
} CUpti_Profiler_Host_GetConfigImage_Params;
#define CUpti_Profiler_Host_GetConfigImage_Params_STRUCT_SIZE                                      \
    CUPTI_PROFILER_STRUCT_SIZE(CUpti_Profiler_Host_GetConfigImage_Params, pConfigImage)

typedef struct CUpti_Profiler_Host_GetNumOfPasses_Params {
    size_t structSize;
    void *pPriv;
    size_t configImageSize;
    uint8_t *pConfigImage;
    size_t numOfPasses; /* out */
} CUpti_Profiler_Host_GetNumOfPasses_Params;
#define CUpti_Profiler_Host_GetNumOfPasses_Params_STRUCT_SIZE                                      \
    CUPTI_PROFILER_STRUCT_SIZE(CUpti_Profiler_Host_GetNumOfPasses_Params, numOfPasses)

typedef struct CUpti_Profiler_Host_EvaluateToGpuValues_Params {
    size_t structSize;
    void *pPriv;
    CUpti_Profiler_Host_Object *pHostObject;
    const uint8_t *pCounterDataImage;
    size_t counterDataImageSize;
    size_t rangeIndex;
    const char **ppMetricNames;
    size_t numMetrics;
    double *pMetricValues; /* out: numMetrics values */
} CUpti_Profiler_Host_EvaluateToGpuValues_Params;
#define CUpti_Profiler_Host_EvaluateToGpuValues_Params_STRUCT_SIZE                                 \
    CUPTI_PROFILER_STRUCT_SIZE(CUpti_Profiler_Host_EvaluateToGpuValues_Params, pMetricValues)

CUptiResult CUPTIAPI cuptiProfilerHostInitialize(CUpti_Profiler_Host_Initialize_Params *pParams);
CUptiResult CUPTIAPI
cuptiProfilerHostDeinitialize(CUpti_Profiler_Host_Deinitialize_Params *pParams);
CUptiResult CUPTIAPI
cuptiProfilerHostGetMetricProperties(CUpti_Profiler_Host_GetMetricProperties_Params *pParams);
CUptiResult CUPTIAPI
cuptiProfilerHostConfigAddMetrics(CUpti_Profiler_Host_ConfigAddMetrics_Params *pParams);
CUptiResult CUPTIAPI
cuptiProfilerHostGetConfigImageSize(CUpti_Profiler_Host_GetConfigImageSize_Params *pParams);
CUptiResult CUPTIAPI
cuptiProfilerHostGetConfigImage(CUpti_Profiler_Host_GetConfigImage_Params *pParams);
CUptiResult CUPTIAPI
cuptiProfilerHostGetNumOfPasses(CUpti_Profiler_Host_GetNumOfPasses_Params *pParams);
CUptiResult CUPTIAPI
cuptiProfilerHostEvaluateToGpuValues(CUpti_Profiler_Host_EvaluateToGpuValues_Params *pParams);

#endif
