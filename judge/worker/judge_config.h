/*
 * judge_config.h - the long-lived settings of a judge (a `judged check` run or
 * a worker): the GPU it runs on, what it compiles, where runners and builds
 * come from. Filled once at start (judge_probe_gpu, judge_probe_languages),
 * then read-only while judging.
 */
#ifndef BW_JUDGE_CONFIG_H
#define BW_JUDGE_CONFIG_H

#include <stdbool.h>
#include <stdint.h>

#include "gpu_info.h"
#include "common/language.h"

struct runner_pool;
struct build_cache;
struct triton_pool;

/* A language this judge compiles besides CUDA, as the worker registers it. */
struct judge_language {
    bool available;   /* e.g. Triton: triton_probe() found it */
    char version[32]; /* "3.6.0" */
    char reason[256]; /* why not, when !available ("no module named triton") */
};

/* Long-lived settings of a judge (a CLI run or a worker). Read-only while judging. */
struct judge_config {
    int device; /* CUDA device ordinal */
    const char
        *arch;       /* NVRTC target; NULL: from the GPU (sm_90a on Hopper), "sm_90a" without one */
    bool no_sandbox; /* diagnostics only: run children without namespaces/seccomp */
    const char *cache_dir;    /* where compiled references and calibration are cached; NULL: none */
    struct runner_pool *pool; /* borrowed: where runners come from, and whose GPU gate keeps
                                 timing alone (runner_pool.h); NULL: each judging starts its own */
    struct build_cache *builds; /* borrowed: compiled builds kept across judgings; NULL: none */
    struct triton_pool *triton_pool; /* borrowed: warm Triton compilers (triton_pool.h); NULL:
                                        each Triton compile starts its own */
    int triton_jobs;     /* a Triton compile's processes without a pool: triton_pool_jobs (with
                            one, triton_pool_share); 0: BW_TRITON_JOBS */
    struct gpu_info gpu; /* filled by judge_probe_gpu() */
    bool have_gpu;       /* judge_probe_gpu() found a usable GPU */
    char *no_gpu_reason; /* owned: why there is no GPU, when !have_gpu */
    struct judge_language languages[LANG_COUNT]; /* what it compiles beyond CUDA (always there:
                                                    NVRTC); worker.c registers them */
    /* A test whose outputs take more is checked by sample (tests_case_sampled); 0:
     * BW_FULL_CHECK_MAX_BYTES. Lowered only by tests (judged --full-check-max-bytes). */
    uint64_t full_check_max_bytes;
    /* A Profile's CUPTI library (judge_find_profiler, cupti_find.h): its path, or why there is
     * none; both empty until found. */
    char cupti_path[4096];
    char *cupti_why; /* owned */
};

/*
 * Finds the GPU (gpu_info_probe, through a runner) into cfg->gpu, have_gpu
 * and no_gpu_reason, from cfg->device, cfg->arch and cfg->cache_dir. Without
 * a GPU, returns BW_OK with have_gpu false and no_gpu_reason set: a normal
 * state of a compile-only machine.
 */
int judge_probe_gpu(struct judge_config *cfg, bool recalibrate, char **cause);

/* Fills cfg->languages: CUDA is always there (NVRTC); Triton when
 * triton_probe() finds it (python NULL: $BLOCKWISE_PYTHON or python3). */
void judge_probe_languages(struct judge_config *cfg, const char *python);

/* Finds the CUPTI library Profiles use (cupti_find.h; `named`: judged --cupti, or NULL) into
 * cfg->cupti_path, else its reason into cfg->cupti_why. Not finding one is not an error: a
 * Profile then says why it has no figures. */
void judge_find_profiler(struct judge_config *cfg, const char *named);

/* Frees what judge_probe_gpu() (gpu_info.h) and judge_find_profiler() put in cfg. */
void judge_config_release(struct judge_config *cfg);

#endif
