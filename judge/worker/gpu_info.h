/*
 * gpu_info.h - the GPU a judge runs on: its properties, its measured limits,
 * their one JSON form, and finding them (probe, calibration, the day's cache).
 *
 * struct gpu_info travels in three places: the worker registers with it, every
 * result records it, and `judged check` caches it between runs. All three use
 * gpu_info_json() and gpu_info_from_json(), so they carry the same fields
 * under the same names:
 *   {"name", "uuid", "cc", "driver", "arch", "sm_count", "memory_bytes",
 *    "l2_bytes", "max_clock_mhz", "calibrated", "copy_gbps", "fp32_tflops",
 *    "fp16_tflops", "bf16_tflops"}
 *
 * Probing starts one runner (the only process that touches CUDA), reads the
 * device's properties and, unless the cache holds today's figures for this
 * device, measures copy bandwidth and peak rates (judge/runner/kernels/harness.cu).
 */
#ifndef BW_GPU_INFO_H
#define BW_GPU_INFO_H

#include <stdbool.h>
#include <stdint.h>

#include <jansson.h>

/* What the worker measured on its GPU (docs/runner-protocol.md, calibrate); zeros when unknown. */
struct gpu_info {
    char name[128];
    char uuid[64];
    char cc[16]; /* compute capability, "9.0" */
    char driver[32];
    char arch[16]; /* NVRTC target used, "sm_90a" */
    int sm_count;
    uint64_t memory_bytes;
    uint64_t l2_bytes;
    int max_clock_mhz;
    double copy_gbps;   /* device-to-device copy, bytes read + written per second / 1e9 */
    double fp32_tflops; /* FFMA peak */
    double fp16_tflops; /* tensor-core fp16 peak (fp32 accumulate) */
    double bf16_tflops; /* tensor-core bf16 peak (fp32 accumulate) */
    bool calibrated;    /* the four figures above were measured */
};

/* The figures as a *new* JSON object (the fields above), or JSON null when
 * there is no GPU (an empty name). */
json_t *gpu_info_json(const struct gpu_info *g);

/*
 * Reads what gpu_info_json() wrote (borrowed `j`) into *g. Missing fields are
 * zero; `calibrated` is recomputed from the figures (copy bandwidth and FFMA
 * peak both measured) rather than trusted. Returns false, with *g zeroed, when
 * j is not an object or lacks a name, a UUID or an arch.
 */
bool gpu_info_from_json(json_t *j, struct gpu_info *g);

/* The NVRTC target of a compute capability: the arch-specific "a" variant on
 * Hopper and later (wgmma, setmaxnreg need it), plain before: "sm_90a", "sm_80". */
void gpu_info_arch_for(int cc_major, int cc_minor, char *out, size_t cap);

/* Where and how to look for the GPU. */
struct gpu_probe {
    int device;            /* CUDA device ordinal */
    const char *arch;      /* NVRTC target to record; NULL: from the compute capability */
    const char *cache_dir; /* today's figures are cached there; NULL: no cache */
    bool no_sandbox;       /* diagnostics only: the runner without its sandbox */
    bool recalibrate;      /* measure even when the cache holds today's figures */
};

/*
 * Finds the GPU (via a runner), its properties and, unless cached in
 * q->cache_dir (BW_GPU_CACHE_SECONDS) and not q->recalibrate, measures its
 * limits into *gi. Without a GPU, returns BW_OK with *gi zeroed but for its
 * arch and *no_gpu_reason set (*new*): a normal state of a compile-only
 * machine. A failed calibration is logged and leaves calibrated false
 * (judging works; scores are left out). A negative code only when the runner
 * could not be started for another reason.
 */
int gpu_info_probe(const struct gpu_probe *q, struct gpu_info *gi, char **no_gpu_reason,
                   char **cause);

#endif
