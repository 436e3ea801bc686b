#include "dump.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "reference.h"
#include "session.h"
#include "common/error.h"
#include "common/util.h"
#include "common/banned.h"

static const char *dump_role(const struct plan_buffer *b, const struct problem *p)
{
    if (b->is_scale)
        return "scale";
    if (b->tensor >= 0 && p->tensors[b->tensor].role == ROLE_IN)
        return "in";
    return b->tensor >= 0 && p->tensors[b->tensor].role == ROLE_INOUT ? "inout" : "out";
}

/* Writes buffer b of plan pl (its bytes at data) as dir/NAME.bin and appends
 * its description to `tensors`. */
static int dump_buffer(struct session *s, const struct problem_case *c, const struct plan *pl,
                       size_t b, const void *data, const char *dir, json_t *tensors, char **cause)
{
    const struct plan_buffer *pb = &pl->buffers[b];
    int64_t dims[BW_MAX_DIMS];
    json_t *shape = json_array();
    char file[BW_MAX_NAME + 16], *path;
    int rc;

    rc = problem_tensor_shape(s->p, (size_t)pb->tensor, c, dims, cause);
    for (int d = 0; rc == BW_OK && d < s->p->tensors[pb->tensor].ndim; d++)
        json_array_append_new(shape, json_integer(dims[d]));
    snprintf(file, sizeof(file), "%s.bin", pb->name);
    path = path_join(dir, file);
    if (rc == BW_OK && !path)
        rc = bw_fail(cause, BW_ERR_NOMEM, "out of memory");
    if (rc == BW_OK)
        rc = write_file_atomic(path, data, plan_buffer_bytes(pb), cause);
    free(path);
    if (rc) {
        json_decref(shape);
        return rc;
    }
    json_array_append_new(tensors, json_pack("{s:s, s:s, s:o, s:s, s:s}", "name", pb->name, "dtype",
                                             dtype_name(pb->dtype), "shape", shape, "role",
                                             dump_role(pb, s->p), "file", file));
    return BW_OK;
}

/* Writes case i's inputs (as generated) and the reference's outputs to dir. */
static int dump_case(struct session *s, size_t i, const char *dir, char **cause)
{
    const struct problem_case *c = &s->p->tests[i];
    struct plan pl;
    struct expected exp;
    json_t *meta = NULL, *tensors = json_array(), *sizes = json_object(), *scalars = json_object();
    char *text = NULL, *path = NULL;
    int rc;

    rc = reference_case(s, c, (uint32_t)i, true, &pl, &exp, cause);
    if (rc)
        goto out;
    if (mkdir(dir, 0755) < 0 && errno != EEXIST) {
        rc = bw_fail(cause, BW_ERR_IO, "cannot create %s: %s", dir, strerror(errno));
        goto out;
    }
    for (size_t b = 0; b < pl.n_buffers && rc == BW_OK; b++)
        if (pl.buffers[b].tensor >= 0 && exp.buf[b])
            rc = dump_buffer(s, c, &pl, b, exp.buf[b], dir, tensors, cause);
    if (rc)
        goto out;
    for (size_t k = 0; k < s->p->n_sizes; k++)
        json_object_set_new(sizes, s->p->size_names[k], json_integer(c->sizes[k]));
    for (size_t k = 0; k < s->p->n_scalars; k++)
        json_object_set_new(scalars, s->p->scalars[k].name, json_real(c->scalars[k]));
    meta = json_pack("{s:s, s:I, s:O, s:O, s:O}", "name", c->name, "index", (json_int_t)i, "sizes",
                     sizes, "scalars", scalars, "tensors", tensors);
    text = meta ? json_dumps(meta, JSON_INDENT(2)) : NULL;
    path = path_join(dir, "case.json");
    rc = text && path ? write_file_atomic(path, text, strlen(text), cause)
                      : bw_fail(cause, BW_ERR_NOMEM, "out of memory");
out:
    free(path);
    free(text);
    json_decref(meta);
    json_decref(tensors);
    json_decref(sizes);
    json_decref(scalars);
    expected_release(&exp);
    return rc;
}

/* The bytes of every buffer of test i's reference plan, or UINT64_MAX when
 * the plan cannot be built. */
static uint64_t case_bytes(const struct session *s, size_t i)
{
    struct plan pl;
    uint64_t bytes = 0;

    if (plan_build(s->p, &s->ref.dirs, s->ref.tune_values[0], &s->p->tests[i], PLAN_REFERENCE, &pl,
                   NULL))
        return UINT64_MAX;
    for (size_t b = 0; b < pl.n_buffers; b++)
        bytes += plan_buffer_bytes(&pl.buffers[b]);
    return bytes;
}

int judge_dump(const struct judge_config *cfg, const struct problem *p, uint64_t seed,
               const char *out_dir, uint64_t max_case_bytes, size_t *dumped, char **cause)
{
    struct session s = {.cfg = cfg, .p = p, .job = p->id};
    struct program_target target;
    char *ref_source = NULL;
    size_t ref_len = 0;
    struct run_failure fail;
    int rc;

    *dumped = 0;
    if (!cfg->have_gpu)
        return bw_fail(cause, BW_ERR_NODEVICE,
                       "dumping cases runs the reference: it needs a GPU (%s)",
                       cfg->no_gpu_reason ? cfg->no_gpu_reason : "none here");
    s.seed = seed ? seed : session_fresh_seed();
    target = session_target(&s);
    rc = reference_prepare(&s, &ref_source, &ref_len, cause);
    if (rc == BW_OK)
        rc = program_compile(&s.ref, &target, ref_source, ref_len, "reference.cu", cause);
    if (rc == BW_OK)
        rc = reference_check(&s, cause);
    if (rc == BW_OK)
        rc = session_take_reference(&s, cause);
    if (rc == BW_OK)
        rc = program_load(s.ref_runner, &s.ref, 0, &fail, cause);
    if (rc == BW_OK && fail.status != RUN_OK)
        rc = bw_fail(cause, BW_ERR_INTERNAL, "loading reference.cu: %s", fail.message);
    if (rc == BW_OK && mkdir(out_dir, 0755) < 0 && errno != EEXIST)
        rc = bw_fail(cause, BW_ERR_IO, "cannot create %s: %s", out_dir, strerror(errno));
    for (size_t i = 0; rc == BW_OK && i < p->n_tests; i++) {
        char name[32], *dir;

        if (case_bytes(&s, i) > max_case_bytes)
            continue;
        snprintf(name, sizeof(name), "case-%03zu", i);
        dir = path_join(out_dir, name);
        rc = dir ? dump_case(&s, i, dir, cause) : bw_fail(cause, BW_ERR_NOMEM, "out of memory");
        free(dir);
        if (rc == BW_OK)
            (*dumped)++;
    }
    session_return_reference(&s);
    program_release(&s.ref);
    free(ref_source);
    return rc;
}
