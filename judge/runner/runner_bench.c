/*
 * runner_bench.c - timing a staged plan (runner_exec_bench) and measuring the
 * GPU's limits (runner_exec_calibrate), runner_exec_private.h.
 */
#include "runner_exec_private.h"

#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <unistd.h>

#include "common/error.h"
#include "common/limits.h"
#include "common/stats.h"
#include "common/util.h"
#include "wire/ipc.h"
#include "common/banned.h"

/* What a bench keeps on the device besides the plan's buffers. */
struct bench_dev {
    CUdeviceptr flush;    /* l2_flush_bytes, or 0 */
    uint64_t flush_words; /* 32-bit words written per flush */
    CUdeviceptr idx;      /* sets * span indices, or 0 */
    CUdeviceptr gathered; /* max_samples * bytes_per_sample, or 0 */
};

/*
 * One run of a bench on input set r: restore, flush, time, check. Timed runs
 * (sample >= 0) also gather into slot `sample` and store the poison counts in
 * poison[n_poison]. Failures go to *fail.
 */
static int bench_once(struct runner_exec *x, struct staged_plan *st, const struct bench_dev *d,
                      int r, int64_t sample, uint64_t bytes_per_sample, double *ms,
                      uint64_t *poison, int n_poison, struct run_failure *fail, char **cause)
{
    const struct run_plan *p = st->plan;
    uint64_t slots[RESULT_SLOTS];
    int rc, n_allocs = 0, k;
    CUresult crc;

    if ((rc = staged_reset_outputs(x, st, cause)) || (rc = staged_generate(x, st, r, true, cause)))
        return rc;
    crc = cu.cuCtxResetPersistingL2Cache();
    if (crc != CUDA_SUCCESS && crc != CUDA_ERROR_NOT_SUPPORTED)
        return xfail(x, crc, cause, "cuCtxResetPersistingL2Cache");
    if (d->flush) {
        /* BW_L2_FLUSH_WORD (zeros): on a power-capped GPU the flush's own power lowers the
         * clock of the kernel timed after it, and a half-ones word's writes draw more */
        if ((crc = cu.cuMemsetD32Async(d->flush, BW_L2_FLUSH_WORD, (size_t)d->flush_words, NULL)) !=
            CUDA_SUCCESS)
            return xfail(x, crc, cause, "flushing L2");
    }
    if ((rc = staged_launch(x, st, r, false, ms, fail, cause)) || fail->status != RUN_OK)
        return rc;
    if ((rc = staged_check_guards(x, st, fail, cause)) || fail->status != RUN_OK)
        return rc;
    if (sample < 0)
        return BW_OK;
    for (int b = 0; b < p->n_buffers; b++)
        n_allocs += copies_of(st, b);
    if ((rc = staged_queue_poison(x, st, r, n_allocs, NULL, &k, cause)))
        return rc;
    if (k != n_poison)
        return bw_fail(cause, BW_ERR_INTERNAL, "scanned %d outputs for poison, not %d", k,
                       n_poison);
    if (bytes_per_sample > 0 &&
        (rc = staged_gather(x, st, r, d->idx, d->gathered + (CUdeviceptr)sample * bytes_per_sample,
                            cause)))
        return rc;
    if ((rc = read_slots(x, slots, n_allocs + n_poison, cause)))
        return rc;
    for (k = 0; k < n_poison; k++)
        poison[k] = slots[n_allocs + k];
    return BW_OK;
}

static void bench_dev_free(struct runner_exec *x, struct bench_dev *d)
{
    if (x->broken)
        return;
    if (d->flush)
        cu.cuMemFree(d->flush);
    if (d->idx)
        cu.cuMemFree(d->idx);
    if (d->gathered)
        cu.cuMemFree(d->gathered);
}

int runner_exec_bench(struct runner_exec *x, const struct bench_request *req,
                      struct bench_reply *reply, int *out_fd, char **cause)
{
    const struct run_plan *p = &req->plan;
    uint64_t bps = run_plan_gather_bytes(p);
    struct bench_dev d = {0};
    struct staged_plan *st;
    double t0, ms;
    const char *reason = NULL;
    int rc;
    CUresult crc;

    memset(reply, 0, sizeof(*reply));
    run_failure_init(&reply->fail);
    *out_fd = -1;
    reply->bytes_per_sample = bps;
    for (int b = 0; b < p->n_buffers; b++)
        if (p->buffers[b].role == RUN_ROLE_OUT || p->buffers[b].role == RUN_ROLE_INOUT)
            reply->poison_buf[reply->n_poison++] = b;
    if (bps * req->max_samples > BW_MAX_RETURN_BYTES)
        return bw_fail(cause, BW_ERR_LIMIT,
                       "bench: %u samples of %" PRIu64 " gathered bytes are over "
                       "BW_MAX_RETURN_BYTES",
                       req->max_samples, bps);
    for (int b = 0; b < p->n_buffers; b++)
        if (p->buffers[b].role == RUN_ROLE_DATA)
            return bw_fail(cause, BW_ERR_INVALID,
                           "bench: data buffer %s (data buffers are for run)", p->buffers[b].name);
    if ((rc = check_indices(p, req->indices, req->n_indices, (int)req->sets, cause)))
        return rc;
    reply->samples_ms = calloc(req->max_samples, sizeof(double));
    reply->poison =
        calloc((size_t)req->max_samples * (size_t)(reply->n_poison + 1), sizeof(uint64_t));
    st = calloc(1, sizeof(*st));
    if (!reply->samples_ms || !reply->poison || !st) {
        free(st);
        bench_reply_release(reply);
        return bw_fail(cause, BW_ERR_NOMEM, "out of memory");
    }
    if ((rc = staged_setup(x, p, (int)req->sets, st, &reply->fail, cause)) ||
        reply->fail.status != RUN_OK)
        goto free_state;
    if ((rc = upload_indices(x, req->indices, run_plan_gather_span(p) * req->sets, &d.idx, cause)))
        goto free_state;
    if (bps > 0 &&
        (crc = cu.cuMemAlloc(&d.gathered, (size_t)(bps * req->max_samples))) != CUDA_SUCCESS) {
        d.gathered = 0;
        rc = xfail(x, crc, cause, "cuMemAlloc of %" PRIu64 " bytes for gathered samples",
                   bps * req->max_samples);
        goto free_state;
    }
    d.flush_words = req->l2_flush_bytes / 4;
    if (d.flush_words > 0 &&
        (crc = cu.cuMemAlloc(&d.flush, (size_t)(d.flush_words * 4))) != CUDA_SUCCESS) {
        d.flush = 0;
        rc = xfail(x, crc, cause, "cuMemAlloc of %" PRIu64 " bytes to flush L2",
                   req->l2_flush_bytes);
        goto free_state;
    }

    /* Warm-up: the same runs untimed, at least warmup_runs, for warmup_ms of wall time. */
    int min_runs = req->warmup_runs ? (int)req->warmup_runs : BW_BENCH_WARMUP_RUNS;
    t0 = now_ms();
    for (int w = 0; w < min_runs || now_ms() - t0 < req->warmup_ms; w++) {
        rc = bench_once(x, st, &d, w % (int)req->sets, -1, bps, &ms, NULL, 0, &reply->fail, cause);
        if (rc || reply->fail.status != RUN_OK) {
            reply->fail.in_warmup = true;
            goto free_state;
        }
    }

    reply->clock_mhz[0] = clock_mhz(x);
    t0 = now_ms();
    for (uint32_t s = 0;; s++) {
        int r = (int)(s % req->sets);
        rc = bench_once(x, st, &d, r, s, bps, &ms,
                        reply->poison + (size_t)s * (size_t)reply->n_poison, reply->n_poison,
                        &reply->fail, cause);
        if (rc || reply->fail.status != RUN_OK) {
            reply->fail.sample = s;
            goto free_state;
        }
        reply->samples_ms[s] = ms;
        reply->n_samples = s + 1;
        if (stats_should_stop(reply->samples_ms, (int)reply->n_samples, (int)req->min_samples,
                              (int)req->max_samples, req->target_rse, now_ms() - t0, req->budget_ms,
                              &reason))
            break;
        if (reply->n_samples >= req->max_samples) { /* never past the arrays, whatever the rule */
            reason = "max";
            break;
        }
    }
    reply->clock_mhz[1] = clock_mhz(x);
    reply->stop = strcmp(reason, "rse") == 0   ? BENCH_STOP_RSE
                  : strcmp(reason, "max") == 0 ? BENCH_STOP_MAX_SAMPLES
                                               : BENCH_STOP_BUDGET;

    /* The inputs of every set must still be as generated. */
    if ((rc = staged_check_inputs(x, st, &reply->fail, cause)) || reply->fail.status != RUN_OK) {
        if (!rc)
            snprintf(reply->fail.message + strlen(reply->fail.message),
                     sizeof(reply->fail.message) - strlen(reply->fail.message),
                     " (seen after %u timed runs)", reply->n_samples);
        goto free_state;
    }
    if (bps > 0)
        rc = memfd_from_device(x, "gathered", d.gathered, bps * reply->n_samples, out_fd, cause);

free_state:
    rc = blame_kernels(x, st, rc, &reply->fail, cause);
    bench_dev_free(x, &d);
    staged_free(x, st);
    free(st);
    return rc;
}

/* --- calibrate -------------------------------------------------------------------- */

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

/* A calibration measurement: a kernel launch, or a copy when f is NULL. */
struct timed_op {
    struct runner_exec *x;
    CUfunction f;
    unsigned blocks, threads;
    void **params;
    CUdeviceptr dst, src; /* copies: f == NULL */
    size_t bytes;
};

static CUresult timed_op_issue(const struct timed_op *op)
{
    if (!op->f)
        return cu.cuMemcpyDtoDAsync(op->dst, op->src, op->bytes, NULL);
    return cu.cuLaunchKernel(op->f, op->blocks, 1, 1, op->threads, 1, 1, 0, NULL, op->params, NULL);
}

/* The median event time of CAL_REPEATS issues of op, after one untimed issue. */
static int median_ms(const struct timed_op *op, const char *what, double *out, char **cause)
{
    struct runner_exec *x = op->x;
    double t[CAL_REPEATS];
    CUresult rc;

    if ((rc = timed_op_issue(op)) != CUDA_SUCCESS ||
        (rc = cu.cuStreamSynchronize(NULL)) != CUDA_SUCCESS)
        return xfail(x, rc, cause, "calibration: %s (warm-up)", what);
    for (int i = 0; i < CAL_REPEATS; i++) {
        float ms = 0;
        if ((rc = cu.cuEventRecord(x->ev[0], NULL)) != CUDA_SUCCESS ||
            (rc = timed_op_issue(op)) != CUDA_SUCCESS ||
            (rc = cu.cuEventRecord(x->ev[1], NULL)) != CUDA_SUCCESS ||
            (rc = cu.cuEventSynchronize(x->ev[1])) != CUDA_SUCCESS ||
            (rc = cu.cuEventElapsedTime(&ms, x->ev[0], x->ev[1])) != CUDA_SUCCESS)
            return xfail(x, rc, cause, "calibration: %s", what);
        t[i] = ms;
    }
    qsort(t, CAL_REPEATS, sizeof(double), cmp_double);
    *out = t[CAL_REPEATS / 2];
    if (!(*out > 0))
        return bw_fail(cause, BW_ERR_CUDA, "calibration: %s took no measurable time", what);
    return BW_OK;
}

static int calibrate_copy(struct runner_exec *x, double *gbps, char **cause)
{
    uint64_t bytes = CAL_COPY_BYTES;
    CUdeviceptr a = 0, b = 0;
    struct timed_op op = {.x = x};
    double ms = 0;
    CUresult rc;
    int brc;

    /* Two buffers of `bytes`; halve on a device with less free memory. */
    for (;; bytes /= 2) {
        rc = cu.cuMemAlloc(&a, (size_t)bytes);
        if (rc == CUDA_SUCCESS) {
            rc = cu.cuMemAlloc(&b, (size_t)bytes);
            if (rc == CUDA_SUCCESS)
                break;
            cu.cuMemFree(a);
            a = 0;
        }
        if (rc != CUDA_ERROR_OUT_OF_MEMORY || bytes / 2 < CAL_COPY_MIN_BYTES)
            return xfail(x, rc, cause, "calibration: cuMemAlloc of 2 x %" PRIu64 " bytes", bytes);
    }
    if ((rc = cu.cuMemsetD32Async(a, 0x3F800000u, (size_t)(bytes / 4), NULL)) != CUDA_SUCCESS) {
        brc = xfail(x, rc, cause, "calibration: filling the copy source");
        goto free_buffers;
    }
    {
        /* A kernel copy (bw_copy): see harness.cu for why not cuMemcpyDtoD. */
        uint64_t n16 = bytes / 16;
        void *params[] = {&a, &b, &n16};
        op.f = x->h.copy;
        op.threads = 256;
        op.blocks = (unsigned)((n16 + 255) / 256);
        op.params = params;
        brc = median_ms(&op, "device-to-device copy", &ms, cause);
    }
    if (!brc)
        *gbps = 2.0 * (double)bytes / (ms * 1e-3) / 1e9;

free_buffers:
    if (!x->broken) {
        cu.cuMemFree(a);
        cu.cuMemFree(b);
    }
    return brc;
}

/* FLOP/s of a calibration kernel: `flops_per_thread` * threads over the median time. */
static int calibrate_kernel(struct runner_exec *x, CUfunction f, unsigned blocks_per_sm,
                            void **params, double flops_per_thread, const char *what,
                            double *tflops, char **cause)
{
    struct timed_op op = {.x = x, .f = f, .threads = 256, .params = params};
    double ms = 0;
    int rc;

    op.blocks = (unsigned)x->props.sm_count * blocks_per_sm;
    rc = median_ms(&op, what, &ms, cause);
    if (!rc)
        *tflops = flops_per_thread * op.blocks * op.threads / (ms * 1e-3) / 1e12;
    return rc;
}

int runner_exec_calibrate(struct runner_exec *x, struct calibration *c, char **cause)
{
    CUdeviceptr out = 0;
    float a = 0.9999f, b = 1e-4f;
    int ffma_iters = CAL_FFMA_ITERS, mma_iters = CAL_MMA_ITERS;
    void *ffma_params[] = {&out, &a, &b, &ffma_iters};
    void *mma_params[] = {&out, &mma_iters};
    size_t threads = (size_t)x->props.sm_count * 8 * 256;
    CUresult crc;
    int rc;

    memset(c, 0, sizeof(*c));
    if ((rc = calibrate_copy(x, &c->copy_gbps, cause)))
        return rc;
    if ((crc = cu.cuMemAlloc(&out, threads * sizeof(float))) != CUDA_SUCCESS)
        return xfail(x, crc, cause, "calibration: cuMemAlloc of the kernels' output");
    /* FFMA: 8 blocks of 256 per SM (full occupancy), 2 FLOPs x 8 chains per iteration. */
    rc = calibrate_kernel(x, x->h.ffma, 8, ffma_params, 2.0 * 8 * ffma_iters, "FFMA peak",
                          &c->fp32_tflops, cause);
    /* mma.sync m16n8k16: 4096 FLOPs per warp per mma, 4 accumulators, 32 threads a warp. */
    if (!rc)
        rc = calibrate_kernel(x, x->h.mma_f16, 4, mma_params, 4096.0 * 4 * mma_iters / 32,
                              "fp16 mma.sync peak", &c->fp16_tensor_tflops, cause);
    if (!rc)
        rc = calibrate_kernel(x, x->h.mma_bf16, 4, mma_params, 4096.0 * 4 * mma_iters / 32,
                              "bf16 mma.sync peak", &c->bf16_tensor_tflops, cause);
    if (!rc)
        c->clock_mhz = clock_mhz(x);
    if (!x->broken)
        cu.cuMemFree(out);
    return rc;
}
