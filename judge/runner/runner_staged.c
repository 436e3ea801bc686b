/*
 * runner_staged.c - a plan staged on the device (runner_exec_private.h): its
 * buffers with guard bands, marshalled arguments, generated and hashed
 * inputs, poisoned outputs, launches, and what comes back.
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

/* The loaded kernel launches call `name`, or NULL. */
static CUfunction loaded_function(const struct runner_exec *x, const char *name)
{
    for (int i = 0; i < x->n_loaded; i++)
        if (strcmp(x->loaded[i].name, name) == 0)
            return x->loaded[i].fn;
    return NULL;
}

/* --- plans: resolve, allocate, fill, launch, check ---------------------------------- */

int copies_of(const struct staged_plan *st, int b)
{
    return run_buffer_copies(st->plan->buffers[b].role, (uint32_t)st->sets);
}

static const char *arg_kind_text(enum run_arg_kind k)
{
    switch (k) {
    case RUN_ARG_BUF:
        return "a pointer";
    case RUN_ARG_I64:
        return "int64";
    case RUN_ARG_I32:
        return "int32";
    case RUN_ARG_U64:
        return "uint64";
    case RUN_ARG_U32:
        return "uint32";
    case RUN_ARG_F32:
        return "fp32";
    case RUN_ARG_F64:
        return "fp64";
    case RUN_ARG_INT:
        return "an integer literal";
    }
    return "?";
}

/* Bytes an argument of kind k occupies (0: matches 4 or 8). */
static uint32_t arg_bytes(enum run_arg_kind k)
{
    switch (k) {
    case RUN_ARG_I32:
    case RUN_ARG_U32:
    case RUN_ARG_F32:
        return 4;
    case RUN_ARG_INT:
        return 0;
    default:
        return 8;
    }
}

/*
 * Finds every launch's kernel and checks its arguments against the
 * parameters. A missing kernel is a launch error, a size mismatch an
 * arg_mismatch, both reported in *fail.
 */
static int staged_resolve(struct runner_exec *x, struct staged_plan *st, struct run_failure *fail,
                          char **cause)
{
    const struct run_plan *p = st->plan;

    if (x->n_loaded == 0) {
        set_failure(fail, RUN_ERROR, CUDA_SUCCESS, -1, "no module is loaded (send load first)");
        return BW_OK;
    }
    for (int l = 0; l < p->n_launches; l++) {
        const struct run_launch *L = &p->launches[l];
        int n_params;
        CUresult rc;

        st->fn[l] = loaded_function(x, L->kernel);
        if (!st->fn[l]) {
            set_failure(fail, RUN_LAUNCH_ERROR, CUDA_ERROR_NOT_FOUND, l,
                        "launch %d: kernel %s was not loaded", l, L->kernel);
            return BW_OK;
        }
        for (n_params = 0; n_params <= BW_MAX_LAUNCH_ARGS; n_params++) {
            size_t offset = 0, size = 0;
            rc = cu.cuFuncGetParamInfo(st->fn[l], (size_t)n_params, &offset, &size);
            if (rc == CUDA_ERROR_INVALID_VALUE)
                break;
            if (rc != CUDA_SUCCESS)
                return xfail(x, rc, cause, "cuFuncGetParamInfo(%d) of %s", n_params, L->kernel);
            if (n_params < BW_MAX_LAUNCH_ARGS)
                st->param_bytes[l][n_params] = (uint32_t)size;
        }
        if (n_params != L->n_args) {
            set_failure(fail, RUN_ARG_MISMATCH, CUDA_SUCCESS, l,
                        "launch %d: %s takes %d parameter%s but %d argument%s given", l, L->kernel,
                        n_params, n_params == 1 ? "" : "s", L->n_args,
                        L->n_args == 1 ? " is" : "s are");
            return BW_OK;
        }
        for (int a = 0; a < L->n_args; a++) {
            const struct run_arg *A = &L->args[a];
            uint32_t want = st->param_bytes[l][a], have = arg_bytes(A->kind);
            bool fits = have ? have == want : (want == 4 || want == 8);

            /* A view's pointer stays inside its buffer (one past the end at most, an
             * empty view): the judge checked it, and this trusted code checks again. */
            if (A->kind == RUN_ARG_BUF && A->offset > p->buffers[A->buf].count) {
                set_failure(fail, RUN_ERROR, CUDA_SUCCESS, l,
                            "launch %d: argument %d of %s points %llu elements into %s, which "
                            "has %llu",
                            l, a + 1, L->kernel, (unsigned long long)A->offset,
                            p->buffers[A->buf].name, (unsigned long long)p->buffers[A->buf].count);
                return BW_OK;
            }
            if (A->kind == RUN_ARG_INT && want == 4 && (A->i < INT32_MIN || A->i > INT32_MAX)) {
                set_failure(fail, RUN_ARG_MISMATCH, CUDA_SUCCESS, l,
                            "argument %d of %s: %s%s%" PRId64 " does not fit the 4-byte parameter",
                            a + 1, L->kernel, A->name, A->name[0] ? " = " : "", A->i);
                return BW_OK;
            }
            if (!fits) {
                char size[32];
                if (have)
                    snprintf(size, sizeof(size), " (%u bytes)", have);
                else
                    snprintf(size, sizeof(size), " (4 or 8 bytes)");
                set_failure(fail, RUN_ARG_MISMATCH, CUDA_SUCCESS, l,
                            "argument %d of %s: %s%s%s%s but the parameter is %u bytes", a + 1,
                            L->kernel, A->name[0] ? A->name : "", A->name[0] ? " is " : "is ",
                            arg_kind_text(A->kind), size, want);
                return BW_OK;
            }
        }
    }
    return BW_OK;
}

/* Fills argv/params of set r (after the buffers are allocated). */
static void staged_marshal(struct staged_plan *st, int r)
{
    const struct run_plan *p = st->plan;

    for (int l = 0; l < p->n_launches; l++) {
        const struct run_launch *L = &p->launches[l];
        for (int a = 0; a < L->n_args; a++) {
            const struct run_arg *A = &L->args[a];
            uint64_t *slot = &st->argv[r][l][a];
            float f32;
            int32_t i32;
            uint32_t u32;

            *slot = 0;
            switch (A->kind) {
            case RUN_ARG_BUF: {
                int set = copies_of(st, A->buf) > 1 ? r : 0;
                /* staged_resolve checked the offset is inside the buffer */
                *slot =
                    st->buf[A->buf][set].data + A->offset * dtype_size(p->buffers[A->buf].dtype);
                break;
            }
            case RUN_ARG_I64:
                memcpy(slot, &A->i, 8);
                break;
            case RUN_ARG_U64:
                memcpy(slot, &A->u, 8);
                break;
            case RUN_ARG_F64:
                memcpy(slot, &A->f, 8);
                break;
            case RUN_ARG_I32:
                i32 = (int32_t)A->i;
                memcpy(slot, &i32, 4);
                break;
            case RUN_ARG_U32:
                u32 = (uint32_t)A->u;
                memcpy(slot, &u32, 4);
                break;
            case RUN_ARG_F32:
                f32 = (float)A->f;
                memcpy(slot, &f32, 4);
                break;
            case RUN_ARG_INT:
                if (st->param_bytes[l][a] == 4) {
                    i32 = (int32_t)A->i;
                    memcpy(slot, &i32, 4);
                } else {
                    memcpy(slot, &A->i, 8);
                }
                break;
            }
            st->params[r][l][a] = slot;
        }
    }
}

static uint64_t kept_bytes(const struct runner_exec *x)
{
    uint64_t total = 0;

    for (int i = 0; i < x->n_kept; i++)
        total += x->kept[i].bytes;
    return total;
}

void staged_free(struct runner_exec *x, struct staged_plan *st)
{
    if (x->broken)
        return; /* the process exits; the driver frees everything */
    for (int b = 0; b < BW_MAX_BUFFERS; b++)
        for (int r = 0; r < BW_MAX_BENCH_SETS; r++) {
            struct dev_buffer *d = &st->buf[b][r];
            if (!d->base)
                continue;
            if (x->n_kept < BW_RUNNER_KEEP_ALLOCS &&
                d->alloc_bytes <= x->kept_cap - kept_bytes(x)) {
                x->kept[x->n_kept++] = (struct kept_alloc){d->base, d->alloc_bytes};
            } else {
                cu.cuMemFree(d->base);
            }
            d->base = 0;
        }
}

void staged_free_kept(struct runner_exec *x)
{
    if (!x->broken)
        for (int i = 0; i < x->n_kept; i++)
            cu.cuMemFree(x->kept[i].base);
    x->n_kept = 0;
}

/* The smallest kept allocation of at least `bytes`, taken out of the kept ones; 0 if none. */
static CUdeviceptr take_kept(struct runner_exec *x, uint64_t bytes, uint64_t *alloc_bytes)
{
    int best = -1;
    CUdeviceptr base;

    for (int i = 0; i < x->n_kept; i++)
        if (x->kept[i].bytes >= bytes && (best < 0 || x->kept[i].bytes < x->kept[best].bytes))
            best = i;
    if (best < 0)
        return 0;
    base = x->kept[best].base;
    *alloc_bytes = x->kept[best].bytes;
    x->kept[best] = x->kept[--x->n_kept];
    return base;
}

/* An allocation of `bytes` for d: a kept one that fits, else cuMemAlloc's; when the device is
 * short, the kept ones are freed and it is tried once more. */
static CUresult alloc_buffer(struct runner_exec *x, struct dev_buffer *d, uint64_t bytes)
{
    CUresult rc;

    if ((d->base = take_kept(x, bytes, &d->alloc_bytes)) != 0)
        return CUDA_SUCCESS;
    d->alloc_bytes = bytes;
    rc = cu.cuMemAlloc(&d->base, (size_t)bytes);
    if (rc == CUDA_ERROR_OUT_OF_MEMORY && x->n_kept > 0) {
        staged_free_kept(x);
        rc = cu.cuMemAlloc(&d->base, (size_t)bytes);
    }
    if (rc != CUDA_SUCCESS)
        d->base = 0;
    return rc;
}

/* Allocates every buffer with its guards and fills the guards. */
static int staged_alloc(struct runner_exec *x, struct staged_plan *st, char **cause)
{
    const struct run_plan *p = st->plan;

    for (int b = 0; b < p->n_buffers; b++) {
        const struct run_buffer *B = &p->buffers[b];
        uint64_t bytes = B->count * dtype_size(B->dtype);
        for (int r = 0; r < copies_of(st, b); r++) {
            struct dev_buffer *d = &st->buf[b][r];
            CUresult rc = alloc_buffer(x, d, bytes + 2ull * BW_GUARD_BYTES);
            if (rc != CUDA_SUCCESS)
                return xfail(x, rc, cause, "cuMemAlloc of %" PRIu64 " bytes for buffer %s", bytes,
                             B->name);
            d->data = d->base + BW_GUARD_BYTES;
            d->bytes = bytes;
            if (d->data % 256 != 0)
                return bw_fail(cause, BW_ERR_INTERNAL,
                               "buffer %s: data at 0x%llx is not 256-byte aligned", B->name,
                               (unsigned long long)d->data);
            rc = guard_fill(x, d);
            if (rc != CUDA_SUCCESS)
                return xfail(x, rc, cause, "filling the guards of buffer %s", B->name);
        }
    }
    return BW_OK;
}

/* Generates the in and inout buffers of set r (case_index + r); with
 * inout_only, only the inout ones (they are restored before each bench run). */
int staged_generate(struct runner_exec *x, struct staged_plan *st, int r, bool inout_only,
                    char **cause)
{
    const struct run_plan *p = st->plan;

    for (int b = 0; b < p->n_buffers; b++) {
        const struct run_buffer *B = &p->buffers[b];
        CUresult rc;
        if (B->role != RUN_ROLE_INOUT && (inout_only || B->role != RUN_ROLE_IN))
            continue;
        rc = generate_launch(x, &st->buf[b][r], B->count, &B->gen, p->seed,
                             p->case_index + (uint32_t)r);
        if (rc != CUDA_SUCCESS)
            return xfail(x, rc, cause, "generating buffer %s", B->name);
    }
    return BW_OK;
}

/* Hashes every `in` buffer of every set into out[b][r]. */
static int staged_hash_inputs(struct runner_exec *x, struct staged_plan *st,
                              uint64_t out[BW_MAX_BUFFERS][BW_MAX_BENCH_SETS], char **cause)
{
    const struct run_plan *p = st->plan;
    uint64_t slots[RESULT_SLOTS];
    int n = 0, rc;

    for (int b = 0; b < p->n_buffers; b++)
        if (p->buffers[b].role == RUN_ROLE_IN)
            n += st->sets;
    if ((rc = clear_slots(x, 0, n, 0, cause)))
        return rc;
    n = 0;
    for (int b = 0; b < p->n_buffers; b++) {
        if (p->buffers[b].role != RUN_ROLE_IN)
            continue;
        for (int r = 0; r < st->sets; r++, n++) {
            CUresult crc = hash_launch(x, &st->buf[b][r], x->results + (CUdeviceptr)n * 8);
            if (crc != CUDA_SUCCESS)
                return xfail(x, crc, cause, "hashing buffer %s", p->buffers[b].name);
        }
    }
    if ((rc = read_slots(x, slots, n, cause)))
        return rc;
    n = 0;
    for (int b = 0; b < p->n_buffers; b++)
        if (p->buffers[b].role == RUN_ROLE_IN)
            for (int r = 0; r < st->sets; r++)
                out[b][r] = slots[n++];
    return BW_OK;
}

/* Compares the `in` buffers' hashes with those taken after generation. */
int staged_check_inputs(struct runner_exec *x, struct staged_plan *st, struct run_failure *fail,
                        char **cause)
{
    uint64_t now[BW_MAX_BUFFERS][BW_MAX_BENCH_SETS];
    const struct run_plan *p = st->plan;
    int rc = staged_hash_inputs(x, st, now, cause);

    if (rc)
        return rc;
    for (int b = 0; b < p->n_buffers; b++) {
        if (p->buffers[b].role != RUN_ROLE_IN)
            continue;
        for (int r = 0; r < st->sets; r++) {
            if (now[b][r] == st->in_hash[b][r])
                continue;
            set_failure(fail, RUN_INPUT_MODIFIED, CUDA_SUCCESS, -1,
                        "input %s was modified by the kernel (it must be read-only)",
                        p->buffers[b].name);
            fail->buf = b;
            return BW_OK;
        }
    }
    return BW_OK;
}

/* Poisons outputs with 0xFF and zeroes scratch (set 0: they have one copy). */
int staged_reset_outputs(struct runner_exec *x, struct staged_plan *st, char **cause)
{
    const struct run_plan *p = st->plan;

    for (int b = 0; b < p->n_buffers; b++) {
        const struct run_buffer *B = &p->buffers[b];
        CUresult rc;
        if (B->role != RUN_ROLE_OUT && B->role != RUN_ROLE_SCRATCH)
            continue;
        if (st->buf[b][0].bytes == 0)
            continue;
        rc = cu.cuMemsetD8Async(st->buf[b][0].data, B->role == RUN_ROLE_OUT ? 0xFF : 0x00,
                                (size_t)st->buf[b][0].bytes, NULL);
        if (rc != CUDA_SUCCESS)
            return xfail(x, rc, cause, "%s buffer %s",
                         B->role == RUN_ROLE_OUT ? "poisoning" : "zeroing", B->name);
    }
    return BW_OK;
}

/*
 * Checks every guard band; the first violation (lowest buffer, then set)
 * goes to *fail. Slots [0, n_allocs) are used.
 */
int staged_check_guards(struct runner_exec *x, struct staged_plan *st, struct run_failure *fail,
                        char **cause)
{
    const struct run_plan *p = st->plan;
    uint64_t codes[RESULT_SLOTS];
    int n = 0, rc;

    for (int b = 0; b < p->n_buffers; b++)
        n += copies_of(st, b);
    if ((rc = clear_slots(x, 0, n, 0xFFFFFFFFu, cause)))
        return rc;
    n = 0;
    for (int b = 0; b < p->n_buffers; b++) {
        for (int r = 0; r < copies_of(st, b); r++, n++) {
            CUresult crc = guard_check(x, &st->buf[b][r], x->results + (CUdeviceptr)n * 8);
            if (crc != CUDA_SUCCESS)
                return xfail(x, crc, cause, "checking the guards of buffer %s", p->buffers[b].name);
        }
    }
    if ((rc = read_slots(x, codes, n, cause)))
        return rc;
    n = 0;
    for (int b = 0; b < p->n_buffers; b++) {
        for (int r = 0; r < copies_of(st, b); r++, n++) {
            uint64_t code = codes[n];
            if (code == UINT64_MAX)
                continue;
            fail->status = RUN_GUARD_VIOLATION;
            fail->buf = b;
            if (code < BW_GUARD_BYTES) {
                fail->after = true;
                fail->offset = (int64_t)(st->buf[b][r].bytes + code);
                snprintf(fail->message, sizeof(fail->message),
                         "a write past the end of %s: byte %" PRIu64 " after its last byte (its "
                         "size is %" PRIu64 " bytes)",
                         p->buffers[b].name, code, st->buf[b][r].bytes);
            } else {
                uint64_t before = code - BW_GUARD_BYTES + 1;
                fail->after = false;
                fail->offset = -(int64_t)before;
                snprintf(fail->message, sizeof(fail->message),
                         "a write before the start of %s: %" PRIu64 " byte%s before its first "
                         "byte",
                         p->buffers[b].name, before, before == 1 ? "" : "s");
            }
            return BW_OK;
        }
    }
    return BW_OK;
}

/* Prepares st for plan p with `sets` input sets: resolve, allocate, generate,
 * hash. A kernel's failure goes to *fail (status set), a harness one to the
 * return code. */
int staged_setup(struct runner_exec *x, const struct run_plan *p, int sets, struct staged_plan *st,
                 struct run_failure *fail, char **cause)
{
    double t0;
    int rc;

    st->plan = p;
    st->sets = sets;
    if ((rc = staged_resolve(x, st, fail, cause)) || fail->status != RUN_OK)
        return rc;
    t0 = now_ms();
    rc = staged_alloc(x, st, cause);
    st->alloc_ms = now_ms() - t0;
    if (rc)
        return rc;
    for (int r = 0; r < sets; r++) {
        staged_marshal(st, r);
        if ((rc = staged_generate(x, st, r, false, cause)))
            return rc;
    }
    return staged_hash_inputs(x, st, st->in_hash, cause);
}

/*
 * Launches the plan with the arguments of set r. With sync_each, waits after
 * every launch so that a fault is pinned to its launch, and adds the launches'
 * event times to *ms; otherwise records events around the whole plan and
 * waits once (*ms = their time). Launch refusals and faults go to *fail.
 */
int staged_launch(struct runner_exec *x, struct staged_plan *st, int r, bool sync_each, double *ms,
                  struct run_failure *fail, char **cause)
{
    const struct run_plan *p = st->plan;
    CUevent start = x->ev[0], end = x->ev[1];
    float t = 0;
    CUresult rc;

    *ms = 0;
    if (!sync_each && (rc = cu.cuEventRecord(start, NULL)) != CUDA_SUCCESS)
        return xfail(x, rc, cause, "cuEventRecord");
    for (int l = 0; l < p->n_launches; l++) {
        const struct run_launch *L = &p->launches[l];

        /* Static plus dynamic shared memory above 48 KiB needs the
         * kernel's dynamic limit raised, even when the dynamic part alone
         * is below 48 KiB (seen on the H200: 41 KB dynamic + 16 KB static
         * was refused with CUDA_ERROR_INVALID_VALUE). Set once per plan,
         * so the timed launches carry no driver call. */
        if (L->smem > 0 && st->smem_granted[l] != L->smem) {
            rc = cu.cuFuncSetAttribute(st->fn[l], CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES,
                                       (int)L->smem);
            if (rc == CUDA_SUCCESS)
                st->smem_granted[l] = L->smem;
            if (rc != CUDA_SUCCESS) {
                if (cuda_error_is_sticky(rc))
                    x->broken = true;
                set_failure(fail, x->broken ? RUN_CUDA_ERROR : RUN_LAUNCH_ERROR, rc, l,
                            "launch %d (%s): %u bytes of dynamic shared memory refused (the "
                            "device allows %d per block): %s",
                            l, L->kernel, L->smem, x->props.smem_per_block_optin,
                            cuda_error_string(rc));
                return BW_OK;
            }
        }
        if (sync_each && (rc = cu.cuEventRecord(start, NULL)) != CUDA_SUCCESS)
            return xfail(x, rc, cause, "cuEventRecord");
        st->launched = true;
        rc = cu.cuLaunchKernel(st->fn[l], L->grid[0], L->grid[1], L->grid[2], L->block[0],
                               L->block[1], L->block[2], L->smem, NULL, st->params[r][l], NULL);
        if (rc != CUDA_SUCCESS) {
            if (cuda_error_is_sticky(rc)) {
                /* an earlier launch of this plan faulted (only when not synced each) */
                x->broken = true;
                set_failure(fail, RUN_CUDA_ERROR, rc, sync_each ? l : -1, "%s",
                            cuda_error_string(rc));
            } else {
                set_failure(fail, RUN_LAUNCH_ERROR, rc, l,
                            "launch %d (%s, grid (%u, %u, %u), block (%u, %u, %u), smem %u) "
                            "refused: %s",
                            l, L->kernel, L->grid[0], L->grid[1], L->grid[2], L->block[0],
                            L->block[1], L->block[2], L->smem, cuda_error_string(rc));
            }
            return BW_OK;
        }
        if (!sync_each)
            continue;
        if ((rc = cu.cuEventRecord(end, NULL)) != CUDA_SUCCESS ||
            (rc = cu.cuEventSynchronize(end)) != CUDA_SUCCESS) {
            x->broken = true; /* a fault of the learner's kernel: the context is lost */
            set_failure(fail, RUN_CUDA_ERROR, rc, l, "launch %d (%s): %s", l, L->kernel,
                        cuda_error_string(rc));
            return BW_OK;
        }
        if ((rc = cu.cuEventElapsedTime(&t, start, end)) != CUDA_SUCCESS)
            return xfail(x, rc, cause, "cuEventElapsedTime");
        *ms += t;
    }
    if (sync_each)
        return BW_OK;
    if ((rc = cu.cuEventRecord(end, NULL)) != CUDA_SUCCESS ||
        (rc = cu.cuEventSynchronize(end)) != CUDA_SUCCESS) {
        x->broken = true;
        set_failure(fail, RUN_CUDA_ERROR, rc, -1, "%s", cuda_error_string(rc));
        return BW_OK;
    }
    if ((rc = cu.cuEventElapsedTime(&t, start, end)) != CUDA_SUCCESS)
        return xfail(x, rc, cause, "cuEventElapsedTime");
    *ms = t;
    return BW_OK;
}

int staged_queue_poison(struct runner_exec *x, struct staged_plan *st, int r, int first, int *bufs,
                        int *n, char **cause)
{
    const struct run_plan *p = st->plan;
    int k = 0, rc;

    *n = 0;
    for (int b = 0; b < p->n_buffers; b++)
        k += p->buffers[b].role == RUN_ROLE_OUT || p->buffers[b].role == RUN_ROLE_INOUT;
    if ((rc = clear_slots(x, first, k, 0, cause)))
        return rc;
    for (int b = 0; b < p->n_buffers; b++) {
        const struct run_buffer *B = &p->buffers[b];
        CUresult crc;
        if (B->role != RUN_ROLE_OUT && B->role != RUN_ROLE_INOUT)
            continue;
        crc = poison_launch(x, &st->buf[b][B->role == RUN_ROLE_INOUT ? r : 0],
                            (unsigned int)dtype_size(B->dtype),
                            x->results + (CUdeviceptr)(first + *n) * 8);
        if (crc != CUDA_SUCCESS)
            return xfail(x, crc, cause, "scanning output %s for poison", B->name);
        if (bufs)
            bufs[*n] = b;
        (*n)++;
    }
    return BW_OK;
}

/* Checks that every gather entry's indices (per set: `sets` copies of the
 * span) lie inside its buffer. */
int check_indices(const struct run_plan *p, const int64_t *idx, size_t n_idx, int sets,
                  char **cause)
{
    uint64_t span = run_plan_gather_span(p);

    if (n_idx < span * (uint64_t)sets)
        return bw_fail(cause, BW_ERR_INVALID,
                       "gather: %zu indices sent, %" PRIu64 " needed (%d set%s of %" PRIu64 ")",
                       n_idx, span * (uint64_t)sets, sets, sets == 1 ? "" : "s", span);
    for (int r = 0; r < sets; r++) {
        for (int k = 0; k < p->n_gather; k++) {
            const struct run_gather *g = &p->gather[k];
            uint64_t count = p->buffers[g->buf].count;
            const int64_t *s = idx + (uint64_t)r * span + g->offset;
            for (uint64_t j = 0; j < g->count; j++)
                if (s[j] < 0 || (uint64_t)s[j] >= count)
                    return bw_fail(cause, BW_ERR_INVALID,
                                   "gather: index %" PRId64 " of output %s (set %d, entry %" PRIu64
                                   ") is outside [0, %" PRIu64 ")",
                                   s[j], p->buffers[g->buf].name, r, j, count);
        }
    }
    return BW_OK;
}

/* Device copy of the indices; *dev is 0 when there are none. */
int upload_indices(struct runner_exec *x, const int64_t *idx, uint64_t n, CUdeviceptr *dev,
                   char **cause)
{
    CUresult rc;

    *dev = 0;
    if (n == 0)
        return BW_OK;
    if ((rc = cu.cuMemAlloc(dev, (size_t)n * 8)) != CUDA_SUCCESS) {
        *dev = 0;
        return xfail(x, rc, cause, "cuMemAlloc of %" PRIu64 " gather indices", n);
    }
    if ((rc = cu.cuMemcpyHtoD(*dev, idx, (size_t)n * 8)) != CUDA_SUCCESS)
        return xfail(x, rc, cause, "copying gather indices to the device");
    return BW_OK;
}

/* Gathers set r's outputs into dst (the gather list's elements, back to back). */
int staged_gather(struct runner_exec *x, struct staged_plan *st, int r, CUdeviceptr idx,
                  CUdeviceptr dst, char **cause)
{
    const struct run_plan *p = st->plan;
    uint64_t span = run_plan_gather_span(p), at = 0;

    for (int k = 0; k < p->n_gather; k++) {
        const struct run_gather *g = &p->gather[k];
        unsigned int es = (unsigned int)dtype_size(p->buffers[g->buf].dtype);
        int set = copies_of(st, g->buf) > 1 ? r : 0;
        CUresult rc;
        if (g->count > 0) {
            rc = gather_launch(x, st->buf[g->buf][set].data, es,
                               idx + ((uint64_t)r * span + g->offset) * 8, g->count, dst + at,
                               p->buffers[g->buf].count);
            if (rc != CUDA_SUCCESS)
                return xfail(x, rc, cause, "gathering output %s", p->buffers[g->buf].name);
        }
        at += g->count * es;
    }
    return BW_OK;
}

/* A memfd of `bytes` filled from device memory at src, sealed; *fd is *new*. */
int memfd_from_device(struct runner_exec *x, const char *name, CUdeviceptr src, uint64_t bytes,
                      int *fd, char **cause)
{
    void *map = NULL;
    size_t size = 0;
    int m, rc;
    CUresult crc;

    *fd = -1;
    if ((rc = ipc_memfd_create(name, (size_t)bytes, &m, cause)))
        return rc;
    if ((rc = ipc_memfd_map(m, &map, &size, cause)))
        goto close_memfd;
    if (size > 0 && (crc = cu.cuMemcpyDtoH(map, src, size)) != CUDA_SUCCESS) {
        rc = xfail(x, crc, cause, "copying %zu bytes of %s to the host", size, name);
        ipc_unmap(map, size);
        goto close_memfd;
    }
    ipc_unmap(map, size);
    if ((rc = ipc_memfd_seal(m, cause)))
        goto close_memfd;
    *fd = m;
    return BW_OK;

close_memfd:
    close(m);
    return rc;
}

/*
 * A harness call that failed with a sticky error after the plan's kernels
 * ran is the kernels' doing: they can write anywhere in the context (our
 * indices, results, other allocations), and only they ran untrusted code.
 * Turns such a failure (rc) into a cuda_error in *fail.
 */
int blame_kernels(struct runner_exec *x, const struct staged_plan *st, int rc,
                  struct run_failure *fail, char **cause)
{
    if (rc == BW_OK || !x->broken || !st->launched)
        return rc;
    set_failure(fail, RUN_CUDA_ERROR, x->last_error, -1,
                "the judge's checks after the kernels hit %s: a kernel wrote outside its buffers "
                "(%s)",
                cuda_error_name(x->last_error), cause && *cause ? *cause : "no detail");
    return BW_OK;
}

/* --- run ------------------------------------------------------------------------------ */

/* Copies every out and inout buffer, back to back, into the request's lent
 * buffer or else a new sealed memfd. */
int return_full(struct runner_exec *x, struct staged_plan *st, const struct run_request *req,
                struct run_reply *reply, int *out_fd, char **cause)
{
    const struct run_plan *p = st->plan;
    uint64_t total = 0;
    void *map = NULL;
    size_t size = 0;
    int m, rc;

    for (int b = 0; b < p->n_buffers; b++) {
        const struct run_buffer *B = &p->buffers[b];
        if (B->role != RUN_ROLE_OUT && B->role != RUN_ROLE_INOUT)
            continue;
        reply->outputs[reply->n_outputs].buf = b;
        reply->outputs[reply->n_outputs].offset = total;
        reply->outputs[reply->n_outputs].bytes = st->buf[b][0].bytes;
        reply->n_outputs++;
        total += st->buf[b][0].bytes;
    }
    if (total > BW_MAX_RETURN_BYTES)
        return bw_fail(cause, BW_ERR_LIMIT,
                       "outputs of %" PRIu64 " bytes are over BW_MAX_RETURN_BYTES (%llu)", total,
                       (unsigned long long)BW_MAX_RETURN_BYTES);
    if (req->into >= 0) {
        if (total > req->into_size)
            return bw_fail(cause, BW_ERR_PROTOCOL,
                           "outputs of %" PRIu64 " bytes do not fit lent buffer %d (%zu bytes)",
                           total, req->into, req->into_size);
        for (int k = 0; k < reply->n_outputs; k++) {
            const struct run_output *o = &reply->outputs[k];
            CUresult crc;
            if (o->bytes == 0)
                continue;
            crc = cu.cuMemcpyDtoH((char *)req->into_map + o->offset, st->buf[o->buf][0].data,
                                  (size_t)o->bytes);
            if (crc != CUDA_SUCCESS)
                return xfail(x, crc, cause, "copying output %s to the host",
                             p->buffers[o->buf].name);
        }
        return BW_OK;
    }
    if ((rc = ipc_memfd_create("outputs", (size_t)total, &m, cause)))
        return rc;
    if ((rc = ipc_memfd_map(m, &map, &size, cause)))
        goto close_memfd;
    for (int k = 0; k < reply->n_outputs; k++) {
        const struct run_output *o = &reply->outputs[k];
        CUresult crc;
        if (o->bytes == 0)
            continue;
        crc = cu.cuMemcpyDtoH((char *)map + o->offset, st->buf[o->buf][0].data, (size_t)o->bytes);
        if (crc != CUDA_SUCCESS) {
            rc = xfail(x, crc, cause, "copying output %s to the host", p->buffers[o->buf].name);
            ipc_unmap(map, size);
            goto close_memfd;
        }
    }
    ipc_unmap(map, size);
    if ((rc = ipc_memfd_seal(m, cause)))
        goto close_memfd;
    *out_fd = m;
    return BW_OK;

close_memfd:
    close(m);
    return rc;
}

/* Gathers the requested elements into a new sealed memfd. */
int return_gather(struct runner_exec *x, struct staged_plan *st, const struct run_request *req,
                  struct run_reply *reply, int *out_fd, char **cause)
{
    const struct run_plan *p = st->plan;
    uint64_t bytes = run_plan_gather_bytes(p), at = 0;
    CUdeviceptr idx = 0, dst = 0;
    CUresult crc;
    int rc;

    if ((rc = check_indices(p, req->indices, req->n_indices, 1, cause)))
        return rc;
    for (int k = 0; k < p->n_gather; k++) {
        reply->outputs[k].buf = p->gather[k].buf;
        reply->outputs[k].offset = at;
        reply->outputs[k].bytes =
            p->gather[k].count * dtype_size(p->buffers[p->gather[k].buf].dtype);
        at += reply->outputs[k].bytes;
    }
    reply->n_outputs = p->n_gather;
    if ((rc = upload_indices(x, req->indices, run_plan_gather_span(p), &idx, cause)))
        goto free_dev;
    if (bytes > 0 && (crc = cu.cuMemAlloc(&dst, (size_t)bytes)) != CUDA_SUCCESS) {
        dst = 0;
        rc = xfail(x, crc, cause, "cuMemAlloc of %" PRIu64 " gathered bytes", bytes);
        goto free_dev;
    }
    if ((rc = staged_gather(x, st, 0, idx, dst, cause)))
        goto free_dev;
    rc = memfd_from_device(x, "gathered", dst, bytes, out_fd, cause);

free_dev:
    if (!x->broken) {
        if (dst)
            cu.cuMemFree(dst);
        if (idx)
            cu.cuMemFree(idx);
    }
    return rc;
}

bool runner_exec_pin(struct runner_exec *x, void *p, size_t size)
{
    (void)x;
    return size > 0 && cu.cuMemHostRegister(p, size, 0) == CUDA_SUCCESS;
}

void runner_exec_unpin(struct runner_exec *x, void *p)
{
    if (!x->broken)
        cu.cuMemHostUnregister(p);
}

/* Fills the data buffers (in buffer order) from the values after the gather
 * indices of a gather request. */
int staged_fill_data(struct runner_exec *x, struct staged_plan *st, const struct run_request *req,
                     char **cause)
{
    const struct run_plan *p = st->plan;
    uint64_t at = run_plan_gather_span(p);

    for (int b = 0; b < p->n_buffers; b++) {
        const struct run_buffer *B = &p->buffers[b];
        CUresult crc;
        if (B->role != RUN_ROLE_DATA)
            continue;
        if (req->ret != RUN_RETURN_GATHER)
            return bw_fail(cause, BW_ERR_INVALID,
                           "data buffer %s: its values travel after a gather request's indices "
                           "(this is a full return)",
                           B->name);
        if (req->n_indices < at || req->n_indices - at < B->count)
            return bw_fail(cause, BW_ERR_INVALID,
                           "data buffer %s: %" PRIu64 " values needed after the %" PRIu64
                           " gather indices, %zu values sent in all",
                           B->name, B->count, run_plan_gather_span(p), req->n_indices);
        if (B->count > 0 && (crc = cu.cuMemcpyHtoD(st->buf[b][0].data, req->indices + at,
                                                   (size_t)B->count * 8)) != CUDA_SUCCESS)
            return xfail(x, crc, cause, "copying data buffer %s to the device", B->name);
        at += B->count;
    }
    return BW_OK;
}
