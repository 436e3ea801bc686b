/*
 * cupti_host_check.c - the profile's metric table (wire/runner_proto_profile.c) against a real
 * CUPTI's profiler host library, offline: the host API evaluates metric names and schedules
 * configurations for a chip by its name, with no GPU (NVIDIA: "Host APIs ... don't require a
 * compute (GPU) device, and can also run in an offline mode"). Built and run by
 * tests/cpu/cupti-host.sh, linked with the toolkit's libcupti and compiled against
 * judge/runner/cupti_host.h, the runner's own C copy of the host header: a call that works is
 * also that copy's layout meeting the real library.
 *
 * For the chip named (default GH100, the H200's), as the runner does it (judge/runner/cupti.c:
 * no counter availability image here, so what a driver hides is not seen):
 *   - every row CUPTI is asked for (not the .driver one) has a name the chip knows
 *     (cuptiProfilerHostGetMetricProperties); a row whose first name is not the one is said;
 *   - the rows' names added to a configuration in one call (cuptiProfilerHostConfigAddMetrics),
 *     as the runner adds them;
 *   - the configuration's passes (cuptiProfilerHostGetNumOfPasses) within BW_PROFILE_MAX_PASSES,
 *     printed.
 *   usage: cupti_host_check [CHIP]
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "judge/runner/cupti_host.h"
#include "common/limits.h"
#include "wire/runner_proto.h"

static int pass, fail;

static void ok(const char *what)
{
    pass++;
    printf("ok - %s\n", what);
}

static void bad(const char *what)
{
    fail++;
    printf("FAIL - %s\n", what);
}

static int summary(void)
{
    printf("%d passed, %d failed, 0 skipped\n", pass, fail);
    return fail ? 1 : 0;
}

int main(int argc, char **argv)
{
    const char *chip = argc > 1 ? argv[1] : "GH100";
    CUpti_Profiler_Host_Initialize_Params init = {
        CUpti_Profiler_Host_Initialize_Params_STRUCT_SIZE};
    CUpti_Profiler_Host_ConfigAddMetrics_Params add = {
        CUpti_Profiler_Host_ConfigAddMetrics_Params_STRUCT_SIZE};
    CUpti_Profiler_Host_GetConfigImageSize_Params size = {
        CUpti_Profiler_Host_GetConfigImageSize_Params_STRUCT_SIZE};
    CUpti_Profiler_Host_GetConfigImage_Params image = {
        CUpti_Profiler_Host_GetConfigImage_Params_STRUCT_SIZE};
    CUpti_Profiler_Host_GetNumOfPasses_Params passes = {
        CUpti_Profiler_Host_GetNumOfPasses_Params_STRUCT_SIZE};
    CUpti_Profiler_Host_Deinitialize_Params deinit = {
        CUpti_Profiler_Host_Deinitialize_Params_STRUCT_SIZE};
    const char *names[PM_COUNT];
    size_t n = 0;
    char line[512];
    CUptiResult rc;

    init.profilerType = CUPTI_PROFILER_TYPE_RANGE_PROFILER;
    init.pChipName = chip;
    init.pCounterAvailabilityImage = NULL; /* a chip of the library's time needs none */
    if ((rc = cuptiProfilerHostInitialize(&init)) != CUPTI_SUCCESS) {
        snprintf(line, sizeof(line), "cuptiProfilerHostInitialize for chip %s: CUptiResult %d",
                 chip, (int)rc);
        bad(line);
        return summary();
    }
    for (int m = 0; m < PM_COUNT; m++) {
        const struct profile_metric_info *row = &profile_metric_table[m];
        const char *known = NULL;

        if (row->driver)
            continue;
        for (int k = 0; k < 3 && row->names[k] && !known; k++) {
            CUpti_Profiler_Host_GetMetricProperties_Params q = {
                CUpti_Profiler_Host_GetMetricProperties_Params_STRUCT_SIZE};
            q.pHostObject = init.pHostObject;
            q.pMetricName = row->names[k];
            if (cuptiProfilerHostGetMetricProperties(&q) == CUPTI_SUCCESS)
                known = row->names[k];
        }
        if (!known) {
            snprintf(line, sizeof(line), "metric %d: %s knows none of its names (%s%s%s)", m, chip,
                     row->names[0], row->names[1] ? ", " : "", row->names[1] ? row->names[1] : "");
            bad(line);
            continue;
        }
        names[n++] = known;
        snprintf(line, sizeof(line), "metric %d: %s%s", m, known,
                 known == row->names[0] ? "" : " (not its first name)");
        ok(line);
    }
    add.pHostObject = init.pHostObject;
    add.ppMetricNames = names;
    add.numMetrics = n;
    size.pHostObject = init.pHostObject;
    if ((rc = cuptiProfilerHostConfigAddMetrics(&add)) != CUPTI_SUCCESS ||
        (rc = cuptiProfilerHostGetConfigImageSize(&size)) != CUPTI_SUCCESS) {
        snprintf(line, sizeof(line), "the %zu known metrics in one configuration: CUptiResult %d",
                 n, (int)rc);
        bad(line);
    } else {
        uint8_t *img = calloc(1, size.configImageSize ? size.configImageSize : 1);
        image.pHostObject = init.pHostObject;
        image.configImageSize = size.configImageSize;
        image.pConfigImage = img;
        passes.configImageSize = size.configImageSize;
        passes.pConfigImage = img;
        if (!img || (rc = cuptiProfilerHostGetConfigImage(&image)) != CUPTI_SUCCESS ||
            (rc = cuptiProfilerHostGetNumOfPasses(&passes)) != CUPTI_SUCCESS) {
            snprintf(line, sizeof(line), "the configuration's image and passes: CUptiResult %d",
                     (int)rc);
            bad(line);
        } else if (passes.numOfPasses < 1 || passes.numOfPasses > BW_PROFILE_MAX_PASSES) {
            snprintf(line, sizeof(line), "%zu passes, outside [1, BW_PROFILE_MAX_PASSES = %d]",
                     passes.numOfPasses, BW_PROFILE_MAX_PASSES);
            bad(line);
        } else {
            snprintf(line, sizeof(line),
                     "the %zu metrics in one configuration on %s: %zu bytes, %zu passes (each "
                     "profiled launch is replayed that many times)",
                     n, chip, size.configImageSize, passes.numOfPasses);
            ok(line);
        }
        free(img);
    }
    deinit.pHostObject = init.pHostObject;
    cuptiProfilerHostDeinitialize(&deinit);
    return summary();
}
