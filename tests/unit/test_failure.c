/* Tests of judge/failure: what each runner finding means to the learner. */
#include "tests/test.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "judge/worker/failure.h"
#include "common/banned.h"

static struct plan two_buffers(void)
{
    struct plan pl;

    memset(&pl, 0, sizeof(pl));
    pl.n_buffers = 2;
    pl.buffers[0].name = "x";
    pl.buffers[1].name = "out";
    pl.n_launches = 1;
    pl.launches[0].kernel = "vector_add";
    return pl;
}

static struct run_failure failure(enum run_status s)
{
    struct run_failure f;

    run_failure_init(&f);
    f.status = s;
    return f;
}

/* The verdict, message and detail kind of f against the two-buffer plan. */
static enum verdict judge(const struct run_failure *f, char **message, char *kind, size_t cap)
{
    struct plan pl = two_buffers();
    json_t *detail = NULL;
    enum verdict v;

    *message = NULL;
    v = failure_verdict(&pl, f, message, &detail);
    snprintf(kind, cap, "%s",
             json_string_value(json_object_get(detail, "kind"))
                 ? json_string_value(json_object_get(detail, "kind"))
                 : "");
    json_decref(detail);
    return v;
}

TEST(failure_cuda_error_names_the_kernel_and_explains)
{
    struct run_failure f = failure(RUN_CUDA_ERROR);
    char *m, kind[32];
    struct plan pl = two_buffers();
    json_t *detail = NULL;

    snprintf(f.error, sizeof(f.error), "CUDA_ERROR_ILLEGAL_ADDRESS");
    f.launch = 0;
    CHECK_INT_EQ(judge(&f, &m, kind, sizeof(kind)), VERDICT_RUNTIME_ERROR);
    CHECK_STR_EQ(m, "CUDA_ERROR_ILLEGAL_ADDRESS in kernel vector_add");
    CHECK_STR_EQ(kind, "cuda_error");
    free(m);
    m = NULL;
    failure_verdict(&pl, &f, &m, &detail);
    CHECK_CONTAINS(json_string_value(json_object_get(detail, "hint")), "if (i < n)");
    json_decref(detail);
    free(m);

    f.status = RUN_LAUNCH_ERROR;
    f.launch = 7; /* out of range: no kernel named */
    snprintf(f.error, sizeof(f.error), "CUDA_ERROR_INVALID_VALUE");
    CHECK_INT_EQ(judge(&f, &m, kind, sizeof(kind)), VERDICT_RUNTIME_ERROR);
    CHECK_STR_EQ(m, "CUDA_ERROR_INVALID_VALUE (the launch was refused)");
    CHECK_STR_EQ(kind, "launch_error");
    free(m);
}

/* Vector-add's last test (N = 2^31 + 129) against an index kept in 32 bits:
 * the hint names the wrap and the 64-bit index, not a missing tail check. */
TEST(failure_illegal_address_past_int32_names_the_wrap)
{
    struct run_failure f = failure(RUN_CUDA_ERROR);
    struct plan pl = two_buffers();
    json_t *detail = NULL;
    char *m = NULL;

    snprintf(f.error, sizeof(f.error), "CUDA_ERROR_ILLEGAL_ADDRESS");
    f.launch = 0;
    pl.buffers[0].count = (int64_t)INT32_MAX;
    CHECK_INT_EQ(failure_verdict(&pl, &f, &m, &detail), VERDICT_RUNTIME_ERROR);
    CHECK_CONTAINS(json_string_value(json_object_get(detail, "hint")), "if (i < n)");
    json_decref(detail);
    free(m);
    detail = NULL;
    m = NULL;

    pl.buffers[0].count = (int64_t)INT32_MAX + 130;
    CHECK_INT_EQ(failure_verdict(&pl, &f, &m, &detail), VERDICT_RUNTIME_ERROR);
    CHECK_STR_EQ(m, "CUDA_ERROR_ILLEGAL_ADDRESS in kernel vector_add");
    CHECK_CONTAINS(json_string_value(json_object_get(detail, "hint")), "more than 2^31 elements");
    CHECK_CONTAINS(json_string_value(json_object_get(detail, "hint")),
                   "tl.program_id(0).to(tl.int64)");
    json_decref(detail);
    free(m);
    detail = NULL;
    m = NULL;

    /* Other errors keep their own hint. */
    snprintf(f.error, sizeof(f.error), "CUDA_ERROR_MISALIGNED_ADDRESS");
    failure_verdict(&pl, &f, &m, &detail);
    CHECK_CONTAINS(json_string_value(json_object_get(detail, "hint")), "aligned");
    json_decref(detail);
    free(m);
}

TEST(failure_guard_input_and_arg_mismatch)
{
    struct run_failure f = failure(RUN_GUARD_VIOLATION);
    char *m, kind[32];

    f.buf = 1;
    f.after = true;
    f.offset = 4;
    CHECK_INT_EQ(judge(&f, &m, kind, sizeof(kind)), VERDICT_MEMORY_VIOLATION);
    CHECK_STR_EQ(m, "wrote past the end of out (byte 4 after the start of it)");
    CHECK_STR_EQ(kind, "guard");
    free(m);

    f.after = false;
    f.offset = -3;
    f.buf = 9; /* out of range */
    CHECK_INT_EQ(judge(&f, &m, kind, sizeof(kind)), VERDICT_MEMORY_VIOLATION);
    CHECK_STR_EQ(m, "wrote before the start of ? (byte 3 before it)");
    free(m);

    f = failure(RUN_INPUT_MODIFIED);
    f.buf = 0;
    CHECK_INT_EQ(judge(&f, &m, kind, sizeof(kind)), VERDICT_INPUT_MODIFIED);
    CHECK_STR_EQ(m, "the input x was changed by the kernel");
    CHECK_STR_EQ(kind, "input_modified");
    free(m);

    f = failure(RUN_ARG_MISMATCH);
    snprintf(f.message, sizeof(f.message), "argument 4 is 8 bytes, the parameter 4");
    CHECK_INT_EQ(judge(&f, &m, kind, sizeof(kind)), VERDICT_COMPILE_ERROR);
    CHECK_STR_EQ(m, "argument 4 is 8 bytes, the parameter 4");
    free(m);
}

TEST(failure_runner_error_is_the_judges)
{
    struct run_failure f = failure(RUN_ERROR);
    char *m, kind[32];

    snprintf(f.message, sizeof(f.message), "out of device memory");
    CHECK_INT_EQ(judge(&f, &m, kind, sizeof(kind)), VERDICT_JUDGE_ERROR);
    CHECK_STR_EQ(m, "the runner failed: out of device memory");
    CHECK_STR_EQ(kind, "");
    free(m);

    f = failure(RUN_OK);
    m = NULL;
    CHECK_INT_EQ(judge(&f, &m, kind, sizeof(kind)), VERDICT_ACCEPTED);
    CHECK(m == NULL);
}

TEST(failure_timeout_and_hints)
{
    char *m = NULL;
    json_t *detail = NULL;

    CHECK_INT_EQ(failure_timeout(2000, 3341, &m, &detail), VERDICT_TIME_LIMIT);
    CHECK_STR_EQ(m, "the plan did not finish within 2000 ms");
    CHECK_INT_EQ(json_integer_value(json_object_get(detail, "limit_ms")), 2000);
    CHECK_INT_EQ(json_integer_value(json_object_get(detail, "deadline_ms")), 3341);
    free(m);
    json_decref(detail);
    /* A plan that finished, but the runner measured it over its limit. */
    m = NULL;
    detail = NULL;
    CHECK_INT_EQ(failure_overrun(2000, 2345.4, &m, &detail), VERDICT_TIME_LIMIT);
    CHECK_STR_EQ(m, "the plan took 2345 ms, over its limit of 2000 ms");
    CHECK_STR_EQ(json_string_value(json_object_get(detail, "kind")), "timeout");
    CHECK(json_real_value(json_object_get(detail, "plan_ms")) == 2345.4);
    free(m);
    json_decref(detail);
    CHECK(failure_cuda_hint("CUDA_ERROR_MISALIGNED_ADDRESS") != NULL);
    CHECK(failure_cuda_hint("CUDA_ERROR_SOMETHING_NEW") == NULL);
}
