/*
 * runner_profile.c - a plan run once under CUPTI's range profiler
 * (runner_exec_profile, runner_exec.h; the profiler: cupti.h).
 */
#include "runner_exec_private.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cupti.h"
#include "common/error.h"
#include "common/limits.h"
#include "common/util.h"
#include "common/banned.h"

/* What the occupancy calculator needs of the device (judge/worker/occupancy.h). */
static int device_limits(struct runner_exec *x, struct profile_device *d, char **cause)
{
    struct {
        CUdevice_attribute attr;
        int *out;
        const char *name;
    } attrs[] = {
        {CU_DEVICE_ATTRIBUTE_WARP_SIZE, &d->warp_size, "WARP_SIZE"},
        {CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_BLOCK, &d->max_threads_per_block,
         "MAX_THREADS_PER_BLOCK"},
        {CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_MULTIPROCESSOR, &d->max_threads_per_sm,
         "MAX_THREADS_PER_MULTIPROCESSOR"},
        {CU_DEVICE_ATTRIBUTE_MAX_BLOCKS_PER_MULTIPROCESSOR, &d->max_blocks_per_sm,
         "MAX_BLOCKS_PER_MULTIPROCESSOR"},
        {CU_DEVICE_ATTRIBUTE_MAX_REGISTERS_PER_MULTIPROCESSOR, &d->regs_per_sm,
         "MAX_REGISTERS_PER_MULTIPROCESSOR"},
        {CU_DEVICE_ATTRIBUTE_MAX_REGISTERS_PER_BLOCK, &d->regs_per_block,
         "MAX_REGISTERS_PER_BLOCK"},
        {CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_MULTIPROCESSOR, &d->smem_per_sm,
         "MAX_SHARED_MEMORY_PER_MULTIPROCESSOR"},
        {CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK, &d->smem_per_block,
         "MAX_SHARED_MEMORY_PER_BLOCK"},
        {CU_DEVICE_ATTRIBUTE_RESERVED_SHARED_MEMORY_PER_BLOCK, &d->reserved_smem_per_block,
         "RESERVED_SHARED_MEMORY_PER_BLOCK"},
    };

    memset(d, 0, sizeof(*d));
    d->cc_major = x->props.cc_major;
    d->cc_minor = x->props.cc_minor;
    d->sm_count = x->props.sm_count;
    d->smem_per_block_optin = x->props.smem_per_block_optin;
    for (size_t i = 0; i < sizeof(attrs) / sizeof(attrs[0]); i++) {
        CUresult rc = cu.cuDeviceGetAttribute(attrs[i].out, attrs[i].attr, x->dev);
        if (rc != CUDA_SUCCESS)
            return xfail(x, rc, cause, "cuDeviceGetAttribute(%s)", attrs[i].name);
    }
    return BW_OK;
}

/* Each launch as the reply describes it: its call and its function's resources. */
static int describe_launches(struct runner_exec *x, const struct staged_plan *st,
                             struct profile_reply *reply, char **cause)
{
    const struct run_plan *p = st->plan;

    for (int l = 0; l < p->n_launches; l++) {
        const struct run_launch *L = &p->launches[l];
        struct profile_range *g = &reply->ranges[l];
        CUresult rc;

        g->launch = l;
        snprintf(g->kernel, sizeof(g->kernel), "%s", L->kernel);
        memcpy(g->grid, L->grid, sizeof(g->grid));
        memcpy(g->block, L->block, sizeof(g->block));
        g->smem = L->smem;
        if ((rc = cu.cuFuncGetAttribute(&g->regs, CU_FUNC_ATTRIBUTE_NUM_REGS, st->fn[l])) !=
                CUDA_SUCCESS ||
            (rc = cu.cuFuncGetAttribute(&g->static_smem, CU_FUNC_ATTRIBUTE_SHARED_SIZE_BYTES,
                                        st->fn[l])) != CUDA_SUCCESS)
            return xfail(x, rc, cause, "cuFuncGetAttribute of %s", L->kernel);
        for (int m = 0; m < PM_COUNT; m++)
            g->values[m] = NAN;
    }
    reply->n_ranges = p->n_launches;
    return BW_OK;
}

/*
 * The driver's theoretical occupancy of each launch (PM_THEORETICAL_PCT: CUPTI has no such
 * metric), beside the judge's own calculator (judge/worker/occupancy.c) which it checks: the
 * blocks per SM cuOccupancyMaxActiveBlocksPerMultiprocessor allows for the launch's block size
 * and dynamic shared memory, as warps per SM over the SM's maximum. Called after the launches,
 * so that each kernel's dynamic shared memory limit is the one staged_launch raised. A launch
 * the driver will not answer for keeps NaN (null).
 */
static void driver_occupancy(const struct staged_plan *st, const struct profile_device *d,
                             struct profile_reply *reply)
{
    const struct run_plan *p = st->plan;

    if (d->warp_size <= 0 || d->max_threads_per_sm < d->warp_size)
        return;
    for (int l = 0; l < p->n_launches; l++) {
        const struct run_launch *L = &p->launches[l];
        unsigned long long threads = (unsigned long long)L->block[0] * L->block[1] * L->block[2];
        int blocks = 0, warps;

        if (threads == 0 || threads > (unsigned long long)d->max_threads_per_block ||
            cu.cuOccupancyMaxActiveBlocksPerMultiprocessor(&blocks, st->fn[l], (int)threads,
                                                           L->smem) != CUDA_SUCCESS)
            continue;
        warps = ((int)threads + d->warp_size - 1) / d->warp_size;
        reply->ranges[l].values[PM_THEORETICAL_PCT] =
            100.0 * blocks * warps / (d->max_threads_per_sm / d->warp_size);
    }
}

/* A profiler that cannot count: the reply says why, and the plan is not run. */
static void not_available(struct profile_reply *reply, const char *why)
{
    reply->available = false;
    snprintf(reply->why, sizeof(reply->why), "%s", why && why[0] ? why : "unknown");
}

int runner_exec_profile(struct runner_exec *x, struct cupti *prof, const char *prof_why,
                        const struct profile_request *req, struct profile_reply *reply,
                        char **cause)
{
    struct staged_plan *st;
    char *why = NULL;
    double t0;
    int rc, n_ranges = 0;

    memset(reply, 0, sizeof(*reply));
    run_failure_init(&reply->fail);
    if (!prof) {
        not_available(reply, prof_why ? prof_why : "this runner was started without a profiler");
        return BW_OK;
    }
    reply->available = true;
    cupti_describe(prof, reply);
    if ((rc = device_limits(x, &reply->device, cause)))
        return rc;
    st = calloc(1, sizeof(*st));
    if (!st)
        return bw_fail(cause, BW_ERR_NOMEM, "out of memory");
    if ((rc = staged_setup(x, &req->plan, 1, st, &reply->fail, cause)) ||
        reply->fail.status != RUN_OK)
        goto free_state;
    if ((rc = staged_reset_outputs(x, st, cause)) || (rc = describe_launches(x, st, reply, cause)))
        goto free_state;
    t0 = now_ms();
    if (cupti_begin(prof, req->plan.n_launches, &why)) {
        not_available(reply, why);
        goto free_state;
    }
    /* Each launch waited for, so a fault is pinned to its launch; kernel replay runs each
     * launch once per pass inside cuLaunchKernel, restoring its memory in between. */
    rc = staged_launch(x, st, 0, true, &reply->ms, &reply->fail, cause);
    if (rc || reply->fail.status != RUN_OK) {
        if (!x->broken)
            cupti_abort(prof);
        goto free_state;
    }
    if (cupti_end(prof, reply->ranges, req->plan.n_launches, &n_ranges, &why))
        not_available(reply, why);
    else
        driver_occupancy(st, &reply->device, reply);
    reply->ms = now_ms() - t0;
    /* What the plan did is checked as after a run: a hostile plan is caught under the profiler
     * as it is anywhere else. */
    if ((rc = staged_check_guards(x, st, &reply->fail, cause)) || reply->fail.status != RUN_OK)
        goto free_state;
    rc = staged_check_inputs(x, st, &reply->fail, cause);

free_state:
    rc = blame_kernels(x, st, rc, &reply->fail, cause);
    staged_free(x, st);
    free(st);
    free(why);
    return rc;
}
