/*
 * judge_config.c - probing what a judge runs on and compiles (judge_config.h).
 */
#include "judge_config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cupti_find.h"
#include "triton_compile.h"
#include "common/error.h"
#include "common/banned.h"

int judge_probe_gpu(struct judge_config *cfg, bool recalibrate, char **cause)
{
    const struct gpu_probe q = {.device = cfg->device,
                                .arch = cfg->arch,
                                .cache_dir = cfg->cache_dir,
                                .no_sandbox = cfg->no_sandbox,
                                .recalibrate = recalibrate};
    int rc;

    free(cfg->no_gpu_reason);
    cfg->no_gpu_reason = NULL;
    rc = gpu_info_probe(&q, &cfg->gpu, &cfg->no_gpu_reason, cause);
    cfg->have_gpu = rc == BW_OK && !cfg->no_gpu_reason;
    return rc;
}

void judge_config_release(struct judge_config *cfg)
{
    free(cfg->no_gpu_reason);
    cfg->no_gpu_reason = NULL;
    free(cfg->cupti_why);
    cfg->cupti_why = NULL;
}

void judge_find_profiler(struct judge_config *cfg, const char *named)
{
    free(cfg->cupti_why);
    cfg->cupti_why = NULL;
    cfg->cupti_path[0] = '\0';
    if (cupti_find(named, cfg->cupti_path, sizeof(cfg->cupti_path), &cfg->cupti_why)) {
        cfg->cupti_path[0] = '\0';
        if (!cfg->cupti_why)
            cfg->cupti_why = strdup("no CUPTI library found");
    }
}

void judge_probe_languages(struct judge_config *cfg, const char *python)
{
    struct judge_language *t = &cfg->languages[LANG_TRITON];
    char *version = NULL, *cause = NULL;

    cfg->languages[LANG_CUDA].available = true;
    memset(t, 0, sizeof(*t));
    if (triton_probe(python, &version, &cause) == BW_OK) {
        t->available = true;
        snprintf(t->version, sizeof(t->version), "%s", version ? version : "");
    } else {
        snprintf(t->reason, sizeof(t->reason), "%s", cause ? cause : "Triton was not found");
    }
    free(version);
    free(cause);
}
