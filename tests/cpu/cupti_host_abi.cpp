// cupti_host_abi.cpp - judge/runner/cupti_host.h (the C copy of cupti_profiler_host.h's
// structs, which C cannot include: CUDA 13.0's header includes <string>) against the real
// header, at compile time: every struct's size, every field's offset and size, every enum's
// values, and each _STRUCT_SIZE macro (the copy's macros are defined again over the real ones:
// -Werror turns a different definition into a failure). Compiled, never run, by
// tests/cpu/cupti-host.sh with g++ -fsyntax-only; a failure names the field.
#include <cstddef>

#include <cupti_profiler_host.h> // the real one, in the global namespace
#include <cupti_range_profiler.h>
#include <cupti_result.h>
#include <cupti_target.h>
#include <cupti_version.h>

namespace bw
{
// The copy, in a namespace of its own: its includes are already in (their guards hold). Its
// opaque host object is declared here first, or its typedef would name the global one.
struct CUpti_Profiler_Host_Object;
#include "judge/runner/cupti_host.h"
} // namespace bw

#define SAME_STRUCT(S)                                                                             \
    static_assert(sizeof(::S) == sizeof(bw::S), #S ": sizeof differs from the real header's");     \
    static_assert(alignof(::S) == alignof(bw::S), #S ": alignof differs from the real header's")
#define SAME_FIELD(S, f)                                                                           \
    static_assert(offsetof(::S, f) == offsetof(bw::S, f), #S "." #f ": offset differs");           \
    static_assert(sizeof(((::S *)0)->f) == sizeof(((bw::S *)0)->f), #S "." #f ": size differs")
#define SAME_ENUM(e) static_assert((long)::e == (long)bw::e, #e ": value differs")

SAME_ENUM(CUPTI_METRIC_TYPE_COUNTER);
SAME_ENUM(CUPTI_METRIC_TYPE_RATIO);
SAME_ENUM(CUPTI_METRIC_TYPE_THROUGHPUT);
SAME_ENUM(CUPTI_METRIC_TYPE__COUNT);
SAME_ENUM(CUPTI_PROFILER_TYPE_RANGE_PROFILER);
SAME_ENUM(CUPTI_PROFILER_TYPE_PM_SAMPLING);
SAME_ENUM(CUPTI_PROFILER_TYPE_PROFILER_INVALID);
static_assert(sizeof(::CUpti_MetricType) == sizeof(bw::CUpti_MetricType), "CUpti_MetricType");
static_assert(sizeof(::CUpti_ProfilerType) == sizeof(bw::CUpti_ProfilerType), "CUpti_ProfilerType");

SAME_STRUCT(CUpti_Profiler_Host_Initialize_Params);
SAME_FIELD(CUpti_Profiler_Host_Initialize_Params, structSize);
SAME_FIELD(CUpti_Profiler_Host_Initialize_Params, pPriv);
SAME_FIELD(CUpti_Profiler_Host_Initialize_Params, profilerType);
SAME_FIELD(CUpti_Profiler_Host_Initialize_Params, pChipName);
SAME_FIELD(CUpti_Profiler_Host_Initialize_Params, pCounterAvailabilityImage);
SAME_FIELD(CUpti_Profiler_Host_Initialize_Params, pHostObject);

SAME_STRUCT(CUpti_Profiler_Host_Deinitialize_Params);
SAME_FIELD(CUpti_Profiler_Host_Deinitialize_Params, structSize);
SAME_FIELD(CUpti_Profiler_Host_Deinitialize_Params, pPriv);
SAME_FIELD(CUpti_Profiler_Host_Deinitialize_Params, pHostObject);

SAME_STRUCT(CUpti_Profiler_Host_GetMetricProperties_Params);
SAME_FIELD(CUpti_Profiler_Host_GetMetricProperties_Params, structSize);
SAME_FIELD(CUpti_Profiler_Host_GetMetricProperties_Params, pPriv);
SAME_FIELD(CUpti_Profiler_Host_GetMetricProperties_Params, pHostObject);
SAME_FIELD(CUpti_Profiler_Host_GetMetricProperties_Params, pMetricName);
SAME_FIELD(CUpti_Profiler_Host_GetMetricProperties_Params, pDescription);
SAME_FIELD(CUpti_Profiler_Host_GetMetricProperties_Params, pHwUnit);
SAME_FIELD(CUpti_Profiler_Host_GetMetricProperties_Params, pDimUnit);
SAME_FIELD(CUpti_Profiler_Host_GetMetricProperties_Params, metricType);

SAME_STRUCT(CUpti_Profiler_Host_ConfigAddMetrics_Params);
SAME_FIELD(CUpti_Profiler_Host_ConfigAddMetrics_Params, structSize);
SAME_FIELD(CUpti_Profiler_Host_ConfigAddMetrics_Params, pPriv);
SAME_FIELD(CUpti_Profiler_Host_ConfigAddMetrics_Params, pHostObject);
SAME_FIELD(CUpti_Profiler_Host_ConfigAddMetrics_Params, ppMetricNames);
SAME_FIELD(CUpti_Profiler_Host_ConfigAddMetrics_Params, numMetrics);

SAME_STRUCT(CUpti_Profiler_Host_GetConfigImageSize_Params);
SAME_FIELD(CUpti_Profiler_Host_GetConfigImageSize_Params, structSize);
SAME_FIELD(CUpti_Profiler_Host_GetConfigImageSize_Params, pPriv);
SAME_FIELD(CUpti_Profiler_Host_GetConfigImageSize_Params, pHostObject);
SAME_FIELD(CUpti_Profiler_Host_GetConfigImageSize_Params, configImageSize);

SAME_STRUCT(CUpti_Profiler_Host_GetConfigImage_Params);
SAME_FIELD(CUpti_Profiler_Host_GetConfigImage_Params, structSize);
SAME_FIELD(CUpti_Profiler_Host_GetConfigImage_Params, pPriv);
SAME_FIELD(CUpti_Profiler_Host_GetConfigImage_Params, pHostObject);
SAME_FIELD(CUpti_Profiler_Host_GetConfigImage_Params, configImageSize);
SAME_FIELD(CUpti_Profiler_Host_GetConfigImage_Params, pConfigImage);

SAME_STRUCT(CUpti_Profiler_Host_GetNumOfPasses_Params);
SAME_FIELD(CUpti_Profiler_Host_GetNumOfPasses_Params, structSize);
SAME_FIELD(CUpti_Profiler_Host_GetNumOfPasses_Params, pPriv);
SAME_FIELD(CUpti_Profiler_Host_GetNumOfPasses_Params, configImageSize);
SAME_FIELD(CUpti_Profiler_Host_GetNumOfPasses_Params, pConfigImage);
SAME_FIELD(CUpti_Profiler_Host_GetNumOfPasses_Params, numOfPasses);

SAME_STRUCT(CUpti_Profiler_Host_EvaluateToGpuValues_Params);
SAME_FIELD(CUpti_Profiler_Host_EvaluateToGpuValues_Params, structSize);
SAME_FIELD(CUpti_Profiler_Host_EvaluateToGpuValues_Params, pPriv);
SAME_FIELD(CUpti_Profiler_Host_EvaluateToGpuValues_Params, pHostObject);
SAME_FIELD(CUpti_Profiler_Host_EvaluateToGpuValues_Params, pCounterDataImage);
SAME_FIELD(CUpti_Profiler_Host_EvaluateToGpuValues_Params, counterDataImageSize);
SAME_FIELD(CUpti_Profiler_Host_EvaluateToGpuValues_Params, rangeIndex);
SAME_FIELD(CUpti_Profiler_Host_EvaluateToGpuValues_Params, ppMetricNames);
SAME_FIELD(CUpti_Profiler_Host_EvaluateToGpuValues_Params, numMetrics);
SAME_FIELD(CUpti_Profiler_Host_EvaluateToGpuValues_Params, pMetricValues);

// The _STRUCT_SIZE each side computes (the copy's macro text was already checked against the
// real one by the preprocessor; this checks what it means for the copy's own structs).
#define SAME_STRUCT_SIZE(S, last)                                                                  \
    static_assert(S##_STRUCT_SIZE == offsetof(bw::S, last) + sizeof(((bw::S *)0)->last),           \
                  #S "_STRUCT_SIZE differs")
SAME_STRUCT_SIZE(CUpti_Profiler_Host_Initialize_Params, pHostObject);
SAME_STRUCT_SIZE(CUpti_Profiler_Host_Deinitialize_Params, pHostObject);
SAME_STRUCT_SIZE(CUpti_Profiler_Host_GetMetricProperties_Params, metricType);
SAME_STRUCT_SIZE(CUpti_Profiler_Host_ConfigAddMetrics_Params, numMetrics);
SAME_STRUCT_SIZE(CUpti_Profiler_Host_GetConfigImageSize_Params, configImageSize);
SAME_STRUCT_SIZE(CUpti_Profiler_Host_GetConfigImage_Params, pConfigImage);
SAME_STRUCT_SIZE(CUpti_Profiler_Host_GetNumOfPasses_Params, numOfPasses);
SAME_STRUCT_SIZE(CUpti_Profiler_Host_EvaluateToGpuValues_Params, pMetricValues);
