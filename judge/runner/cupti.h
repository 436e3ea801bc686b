/*
 * cupti.h - CUPTI's range profiler inside blockwise-runner, opened at run
 * time, and the one place where CUptiResult becomes a Blockwise code and
 * message.
 *
 * Nothing links libcupti. A runner started with `--cupti PATH` (judged
 * finds the library: judge/worker/cupti_find.h) calls cupti_open() after
 * CUDA is up and before its seccomp filter (runner_main.c's steps): it
 * dlopen()s libnvperf_host.so and libnvperf_target.so from PATH's folder
 * first (CUPTI dlopen()s them by name, and the runner's environment has no
 * LD_LIBRARY_PATH: a library already loaded under that soname is found),
 * then PATH itself, resolves every entry point, initialises the profiler,
 * asks the chip which of profile_metric_table's names it knows, builds the
 * configuration of the metric set (how many passes: cuptiProfilerHostGetNumOfPasses)
 * and enables the range profiler on the runner's context. A failure of any
 * of it never stops the runner: cupti_open() says why in one sentence, and
 * every profile request is answered "not available" with that sentence.
 *
 * A profile (runner_profile.c) is cupti_begin() (a counter data image for
 * the plan's launches, auto ranges: one range per kernel launch, kernel
 * replay: each launch replayed once per pass, its memory saved and restored
 * by CUPTI between passes), the plan's launches, cupti_end() (stop, decode,
 * evaluate every range). One thread; one profile at a time.
 */
#ifndef BW_CUPTI_H
#define BW_CUPTI_H

#include <cuda.h>
#include <stdbool.h>

#include "wire/runner_proto.h"

struct cupti;

/*
 * Opens CUPTI from `path` for CUDA device `device` (its context `ctx`,
 * current on this thread) and sets the metric set up. Returns BW_OK with
 * *out (*new*, cupti_close), or BW_ERR_PROFILER with *why (*new*): one
 * sentence (no library there, an entry point missing, the device not
 * supported, the driver restricting counters to administrators, ...).
 */
int cupti_open(const char *path, int device, CUcontext ctx, struct cupti **out, char **why);

/* What the profile's reply says of the profiler: CUPTI's version, the chip,
 * the passes, the name each metric is read under ("": unknown to the chip). */
void cupti_describe(const struct cupti *c, struct profile_reply *r);

/*
 * Before the plan's `n_launches` launches: a fresh counter data image for
 * that many ranges, the configuration set (auto range, kernel replay), the
 * profiler started. BW_ERR_PROFILER with the cause when CUPTI refuses.
 */
int cupti_begin(struct cupti *c, int n_launches, char **cause);

/*
 * After the launches: stops the profiler, decodes the counters and fills
 * ranges[i].values for the ranges CUPTI recorded, in launch order (at most
 * n_launches; the others stay NaN); *n_ranges says how many it recorded.
 * BW_ERR_PROFILER with the cause when CUPTI fails.
 */
int cupti_end(struct cupti *c, struct profile_range *ranges, int n_launches, int *n_ranges,
              char **cause);

/* Stops a profiler cupti_begin() started whose launches failed (nothing is decoded). */
void cupti_abort(struct cupti *c);

/* Disables the range profiler and frees everything. NULL is a no-op. */
void cupti_close(struct cupti *c);

#endif
