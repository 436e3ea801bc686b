/*
 * runner_exec.h - the GPU work of blockwise-runner: one device, its primary
 * context, the trusted harness module (judge/runner/kernels/harness.cu), the loaded
 * module of the learner (or of a reference), and what each request does.
 *
 * Only the runner process uses this module (through cuda.h's driver table);
 * judge/runner/runner_main.c owns the process and the messages, this module owns
 * the device. Each action returns BW_OK when it produced a reply - whose
 * status may still say the kernel failed (a guard written, a launch refused,
 * a kernel fault) - and a negative code with *cause when the request could
 * not be served at all (bad indices, out of device memory, a harness call
 * failing), which the runner answers with status "error".
 *
 * After a sticky CUDA error (a kernel fault) the context is unusable:
 * runner_exec_broken() turns true and the runner must exit after replying.
 * Buffers live for one request: allocated with guard bands, filled and used
 * before the reply. A run's are freed after it, by runner_exec_release, which
 * the runner calls after every reply it sends, before it reads the next
 * request: freeing tens of gigabytes takes tens of milliseconds, which the
 * judge then spends comparing instead of waiting (and a runner discarded
 * after its last run leaves the freeing to its exit). Every other request
 * frees what it allocated before its reply. So no learner's data outlives the
 * next request's start, and a runner holds one request's buffers at a time.
 */
#ifndef BW_RUNNER_EXEC_H
#define BW_RUNNER_EXEC_H

#include <stdbool.h>
#include <stddef.h>

#include <cuda.h>

#include "wire/runner_proto.h"

struct runner_exec;

/*
 * Sets up device `device` (its primary context, made current on the calling
 * thread) and loads the harness from `fatbin` (borrowed). cuda_open() must
 * have succeeded. *props describes the GPU. BW_ERR_NODEVICE when there is no
 * such device; BW_ERR_CUDA for other failures.
 */
int runner_exec_open(int device, const void *fatbin, struct runner_exec **out,
                     struct gpu_props *props, char **cause);

/* Loads `image` (a cubin; borrowed, len bytes), replacing any module loaded
 * before, and describes the requested kernels in *reply. */
int runner_exec_load(struct runner_exec *x, const void *image, size_t len,
                     const struct load_request *req, struct load_reply *reply, char **cause);

/* Runs the plan once. On an ok status with outputs, a full return goes into
 * req->into_map when req->into >= 0 (*out_fd -1), else *out_fd is a *new*
 * sealed memfd; either is laid out as reply->outputs say. The run's buffers
 * stay allocated until runner_exec_release; reply->phase_ms's "free" is the
 * time the release before this run took. */
int runner_exec_run(struct runner_exec *x, const struct run_request *req, struct run_reply *reply,
                    int *out_fd, char **cause);

/* Frees the last run's buffers, if any are held (runner_exec_run and
 * runner_exec_close call it first too). */
void runner_exec_release(struct runner_exec *x);

/* Registers host memory p..p+size with the driver (pinned: copies to it run
 * at the bus's speed); false when the driver refuses, and the memory stays
 * usable, pageable. runner_exec_unpin() undoes it before p is unmapped. */
bool runner_exec_pin(struct runner_exec *x, void *p, size_t size);
void runner_exec_unpin(struct runner_exec *x, void *p);

/* Times the plan (docs/runner-protocol.md, bench). reply's arrays are *new* (bench_reply_release);
 * *out_fd is a *new* sealed memfd of the gathered bytes when bytes_per_sample
 * > 0 and the status is ok, else -1. */
int runner_exec_bench(struct runner_exec *x, const struct bench_request *req,
                      struct bench_reply *reply, int *out_fd, char **cause);

/*
 * Runs the plan once under the profiler `prof` (cupti.h; NULL: none, and
 * `prof_why` says why) and fills *reply: the device's limits, each launch's
 * resources and metric values, and the plan's failures as a run reports
 * them (guards and inputs are checked after it). A profiler that refuses
 * is not an error: reply->available is false with its sentence.
 */
struct cupti;
int runner_exec_profile(struct runner_exec *x, struct cupti *prof, const char *prof_why,
                        const struct profile_request *req, struct profile_reply *reply,
                        char **cause);

/* The device's context (the profiler is enabled on it). */
CUcontext runner_exec_context(const struct runner_exec *x);

/* Measures copy bandwidth, FFMA and mma.sync peaks, and the SM clock. */
int runner_exec_calibrate(struct runner_exec *x, struct calibration *c, char **cause);

/* True once a sticky error has made the context unusable. */
bool runner_exec_broken(const struct runner_exec *x);

/* True when the request in progress failed for want of free device memory
 * (CUDA_ERROR_OUT_OF_MEMORY from the driver; cleared by runner_exec_release,
 * after every request). Its error reply names RUN_ERROR_OUT_OF_MEMORY. */
bool runner_exec_out_of_memory(const struct runner_exec *x);

/* Releases the device (nothing on a broken context: exiting frees it). NULL is a no-op. */
void runner_exec_close(struct runner_exec *x);

#endif
