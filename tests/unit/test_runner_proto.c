/* Tests of judge/runner_proto: every message's JSON round trip and the decoders' validation. */
#include "tests/test.h"

#include <math.h>
#include <stdlib.h>

#include "common/error.h"
#include "wire/runner_proto.h"
#include "common/banned.h"

/* A plan exercising every field: buffers of every role, every argument kind, gather. */
static void sample_plan(struct run_plan *p)
{
    struct run_launch *L;

    memset(p, 0, sizeof(*p));
    p->seed = 0x9f2c00000000abcdull;
    p->case_index = 3;
    p->n_buffers = 4;
    snprintf(p->buffers[0].name, sizeof(p->buffers[0].name), "x");
    p->buffers[0].dtype = DTYPE_BF16;
    p->buffers[0].count = 1000;
    p->buffers[0].role = RUN_ROLE_IN;
    p->buffers[0].gen.kind = GEN_NORMAL;
    p->buffers[0].gen.dtype = DTYPE_BF16;
    p->buffers[0].gen.stream = 0;
    p->buffers[0].gen.flags = GEN_ROW_OFFSET | GEN_SPIKE;
    p->buffers[0].gen.a = 0.5;
    p->buffers[0].gen.b = 2;
    p->buffers[0].gen.row_len = 100;
    p->buffers[0].gen.row_lo = -100;
    p->buffers[0].gen.row_hi = 100;
    p->buffers[0].gen.spike = 1e30;
    p->buffers[0].gen.n_specials = 3;
    p->buffers[0].gen.special_value[0] = NAN;
    p->buffers[0].gen.special_fraction[0] = 0.01;
    p->buffers[0].gen.special_value[1] = -INFINITY;
    p->buffers[0].gen.special_fraction[1] = 0.5;
    p->buffers[0].gen.special_value[2] = 0x1p-1074;
    p->buffers[0].gen.special_fraction[2] = 1;
    snprintf(p->buffers[1].name, sizeof(p->buffers[1].name), "idx");
    p->buffers[1].dtype = DTYPE_INT64;
    p->buffers[1].count = 7;
    p->buffers[1].role = RUN_ROLE_INOUT;
    p->buffers[1].gen.kind = GEN_RANDINT;
    p->buffers[1].gen.dtype = DTYPE_INT64;
    p->buffers[1].gen.stream = 1;
    p->buffers[1].gen.ilo = INT64_MIN;
    p->buffers[1].gen.ihi = INT64_MAX;
    p->buffers[1].gen.row_len = 1;
    snprintf(p->buffers[2].name, sizeof(p->buffers[2].name), "out");
    p->buffers[2].dtype = DTYPE_FP64;
    p->buffers[2].count = 1000;
    p->buffers[2].role = RUN_ROLE_OUT;
    snprintf(p->buffers[3].name, sizeof(p->buffers[3].name), "ws");
    p->buffers[3].dtype = DTYPE_UINT8;
    p->buffers[3].count = 0;
    p->buffers[3].role = RUN_ROLE_SCRATCH;

    p->n_launches = 2;
    L = &p->launches[0];
    snprintf(L->kernel, sizeof(L->kernel), "first");
    L->grid[0] = 4, L->grid[1] = 1, L->grid[2] = 1;
    L->block[0] = 256, L->block[1] = 1, L->block[2] = 1;
    L->smem = 100000;
    L->n_args = 8;
    L->args[0] = (struct run_arg){.kind = RUN_ARG_BUF, .buf = 0, .name = "x"};
    L->args[1] = (struct run_arg){.kind = RUN_ARG_I64, .i = INT64_MIN};
    L->args[2] = (struct run_arg){.kind = RUN_ARG_I32, .i = -7, .name = "k"};
    L->args[3] = (struct run_arg){.kind = RUN_ARG_U64, .u = UINT64_MAX};
    L->args[4] = (struct run_arg){.kind = RUN_ARG_U32, .u = UINT32_MAX};
    L->args[5] = (struct run_arg){.kind = RUN_ARG_F32, .f = 1e-5};
    L->args[6] = (struct run_arg){.kind = RUN_ARG_F64, .f = -INFINITY};
    L->args[7] = (struct run_arg){.kind = RUN_ARG_INT, .i = 42};
    L = &p->launches[1];
    snprintf(L->kernel, sizeof(L->kernel), "second");
    L->grid[0] = 1, L->grid[1] = 2, L->grid[2] = 3;
    L->block[0] = 32, L->block[1] = 4, L->block[2] = 2;
    L->n_args = 1;
    L->args[0] = (struct run_arg){.kind = RUN_ARG_BUF, .buf = 3};
    p->n_gather = 2;
    p->gather[0] = (struct run_gather){.buf = 2, .offset = 0, .count = 5};
    p->gather[1] = (struct run_gather){.buf = 1, .offset = 5, .count = 3};
}

/* Doubles equal, NaN equal to NaN. */
static bool same(double a, double b)
{
    return (isnan(a) && isnan(b)) || a == b;
}

static void check_plans_equal(const struct run_plan *a, const struct run_plan *b)
{
    CHECK(a->seed == b->seed);
    CHECK_INT_EQ(a->case_index, b->case_index);
    CHECK_INT_EQ(a->n_buffers, b->n_buffers);
    for (int i = 0; i < a->n_buffers && i < b->n_buffers; i++) {
        const struct run_buffer *x = &a->buffers[i], *y = &b->buffers[i];
        CHECK_STR_EQ(x->name, y->name);
        CHECK_INT_EQ(x->dtype, y->dtype);
        CHECK(x->count == y->count);
        CHECK_INT_EQ(x->role, y->role);
        if (x->role != RUN_ROLE_IN && x->role != RUN_ROLE_INOUT)
            continue;
        CHECK_INT_EQ(x->gen.kind, y->gen.kind);
        CHECK_INT_EQ(x->gen.dtype, y->gen.dtype);
        CHECK_INT_EQ(x->gen.stream, y->gen.stream);
        CHECK_INT_EQ(x->gen.flags, y->gen.flags);
        CHECK(same(x->gen.a, y->gen.a) && same(x->gen.b, y->gen.b));
        CHECK(x->gen.ilo == y->gen.ilo && x->gen.ihi == y->gen.ihi);
        CHECK(x->gen.row_len == y->gen.row_len);
        CHECK(same(x->gen.row_lo, y->gen.row_lo) && same(x->gen.row_hi, y->gen.row_hi));
        CHECK(same(x->gen.spike, y->gen.spike));
        CHECK_INT_EQ(x->gen.n_specials, y->gen.n_specials);
        for (uint32_t k = 0; k < x->gen.n_specials; k++) {
            CHECK(same(x->gen.special_value[k], y->gen.special_value[k]));
            CHECK(x->gen.special_fraction[k] == y->gen.special_fraction[k]);
        }
    }
    CHECK_INT_EQ(a->n_launches, b->n_launches);
    for (int l = 0; l < a->n_launches && l < b->n_launches; l++) {
        const struct run_launch *x = &a->launches[l], *y = &b->launches[l];
        CHECK_STR_EQ(x->kernel, y->kernel);
        for (int d = 0; d < 3; d++)
            CHECK(x->grid[d] == y->grid[d] && x->block[d] == y->block[d]);
        CHECK_INT_EQ(x->smem, y->smem);
        CHECK_INT_EQ(x->n_args, y->n_args);
        for (int k = 0; k < x->n_args && k < y->n_args; k++) {
            CHECK_INT_EQ(x->args[k].kind, y->args[k].kind);
            CHECK_STR_EQ(x->args[k].name, y->args[k].name);
            CHECK_INT_EQ(x->args[k].buf, y->args[k].buf);
            CHECK(x->args[k].i == y->args[k].i);
            CHECK(x->args[k].u == y->args[k].u);
            CHECK(same(x->args[k].f, y->args[k].f));
        }
    }
    CHECK_INT_EQ(a->n_gather, b->n_gather);
    for (int k = 0; k < a->n_gather && k < b->n_gather; k++)
        CHECK(a->gather[k].buf == b->gather[k].buf && a->gather[k].offset == b->gather[k].offset &&
              a->gather[k].count == b->gather[k].count);
}

/* Encodes, prints to text and parses back, like the wire does. */
static json_t *through_text(json_t *j)
{
    char *text = json_dumps(j, JSON_COMPACT);
    json_t *back = text ? json_loads(text, 0, NULL) : NULL;
    free(text);
    json_decref(j);
    return back;
}

TEST(proto_run_request_round_trip)
{
    struct run_request a, b;
    char *cause = NULL;
    json_t *j;

    memset(&a, 0, sizeof(a));
    sample_plan(&a.plan);
    a.ret = RUN_RETURN_GATHER;
    j = through_text(run_request_to_json(&a));
    CHECK(j != NULL);
    CHECK_STR_EQ(msg_type(j), "run");
    CHECK_STR_EQ(json_string_value(json_object_get(j, "seed")), "9f2c00000000abcd");
    CHECK_INT_EQ(run_request_from_json(j, &b, &cause), BW_OK);
    if (cause)
        printf("  cause: %s\n", cause);
    check_plans_equal(&a.plan, &b.plan);
    CHECK_INT_EQ(b.ret, RUN_RETURN_GATHER);
    CHECK(b.indices == NULL);
    json_decref(j);
    free(cause);
}

TEST(proto_bench_request_round_trip)
{
    struct bench_request a, b;
    char *cause = NULL;
    json_t *j;

    memset(&a, 0, sizeof(a));
    sample_plan(&a.plan);
    a.sets = 3;
    a.min_samples = 10;
    a.max_samples = 500;
    a.target_rse = 0.005;
    a.budget_ms = 1500;
    a.warmup_ms = 100;
    a.l2_flush_bytes = 256ull << 20;
    j = through_text(bench_request_to_json(&a));
    CHECK_INT_EQ(bench_request_from_json(j, &b, &cause), BW_OK);
    check_plans_equal(&a.plan, &b.plan);
    CHECK_INT_EQ(b.sets, 3);
    CHECK_INT_EQ(b.min_samples, 10);
    CHECK_INT_EQ(b.max_samples, 500);
    CHECK(b.target_rse == 0.005 && b.budget_ms == 1500 && b.warmup_ms == 100);
    CHECK(b.l2_flush_bytes == 256ull << 20);
    CHECK_INT_EQ(b.warmup_runs, 0); /* not sent: the runner's default */
    json_decref(j);
    /* a screening's warm-up runs go through; past BW_BENCH_MAX_WARMUP_RUNS is refused */
    a.warmup_runs = 2;
    j = through_text(bench_request_to_json(&a));
    CHECK_INT_EQ(bench_request_from_json(j, &b, &cause), BW_OK);
    CHECK_INT_EQ(b.warmup_runs, 2);
    json_object_set_new(j, "warmup_runs", json_integer(BW_BENCH_MAX_WARMUP_RUNS + 1));
    CHECK_INT_EQ(bench_request_from_json(j, &b, &cause), BW_ERR_INVALID);
    CHECK_CONTAINS(cause, "warmup_runs");
    json_decref(j);
    free(cause);
}

/* Sets j[key] = v (stolen) and expects the run decoder to refuse it, naming `needle`. */
static void expect_bad_run(const char *key_path, json_t *v, const char *needle)
{
    struct run_request a, b;
    char *cause = NULL;
    json_t *j, *target;
    char path[128], *save = NULL, *part, *next;

    memset(&a, 0, sizeof(a));
    sample_plan(&a.plan);
    j = run_request_to_json(&a);
    /* key_path: "buffers.0.count" style */
    snprintf(path, sizeof(path), "%s", key_path);
    target = j;
    part = strtok_r(path, ".", &save);
    while ((next = strtok_r(NULL, ".", &save))) {
        target = json_is_array(target) ? json_array_get(target, (size_t)strtol(part, NULL, 10))
                                       : json_object_get(target, part);
        part = next;
    }
    if (json_is_array(target))
        json_array_set_new(target, (size_t)strtol(part, NULL, 10), v);
    else if (v)
        json_object_set_new(target, part, v);
    else
        json_object_del(target, part);
    CHECK_MSG(run_request_from_json(j, &b, &cause) != BW_OK, "%s accepted", key_path);
    CHECK_CONTAINS(cause, needle);
    json_decref(j);
    free(cause);
}

TEST(proto_run_request_validation)
{
    expect_bad_run("seed", json_string("xyz"), "run.seed");
    expect_bad_run("seed", NULL, "run.seed: missing");
    expect_bad_run("case", json_integer(1 << 30), "run.case");
    expect_bad_run("buffers.0.dtype", json_string("fp8"), "unknown dtype \"fp8\"");
    expect_bad_run("buffers.0.role", json_string("output"), "unknown role");
    expect_bad_run("buffers.0.gen", NULL, "buffers[0].gen: missing");
    expect_bad_run("buffers.2.gen", json_object(), "only in and inout");
    expect_bad_run("buffers.0.gen.dtype", json_string("fp32"), "differs from the buffer's bf16");
    expect_bad_run("buffers.0.gen.kind", json_string("gamma"), "unknown distribution");
    expect_bad_run("buffers.0.gen.b", json_real(-1), "std b >= 0");
    expect_bad_run("buffers.0.count", json_integer(1ll << 40), "BW_MAX_TENSOR_BYTES");
    expect_bad_run("buffers.0.name", json_string("bad name"), "is not a name");
    expect_bad_run("launches.0.args.2.i32", json_integer(1ll << 31), "out of range");
    expect_bad_run("launches.0.args.0", json_pack("{s:i, s:i}", "buf", 0, "i64", 1),
                   "exactly one of");
    expect_bad_run("launches.0.args.0.buf", json_integer(4), "out of range");
    expect_bad_run("launches.0.grid", json_pack("[i, i, i, i]", 1, 1, 1, 1), "over the limit");
    expect_bad_run("launches.0.kernel", json_string("a-b"), "not a kernel name");
    expect_bad_run("launches", json_array(), "at least one launch");
    expect_bad_run("gather.0.buf", json_integer(0), "is not an output");
    expect_bad_run("return", json_string("some"), "full or gather");
    expect_bad_run("into", json_integer(BW_RUNNER_LENT_SLOTS), "run.into: expected a lent buffer");
    expect_bad_run("into", json_string("0"), "run.into: expected a lent buffer");
    expect_bad_run("lend", json_true(), "lends a buffer without \"into\"");
    expect_bad_run("lend", json_string("yes"), "run.lend: expected true or false");
}

/* "into" and "lend" (added by runner_run, never by run_request_to_json). */
TEST(proto_run_request_into_a_lent_buffer)
{
    struct run_request a, b;
    char *cause = NULL;
    json_t *j;

    memset(&a, 0, sizeof(a));
    sample_plan(&a.plan);
    j = run_request_to_json(&a);
    CHECK(json_object_get(j, "into") == NULL);
    CHECK_INT_EQ(run_request_from_json(j, &b, &cause), BW_OK);
    CHECK_INT_EQ(b.into, -1);
    CHECK(!b.lend);
    json_object_set_new(j, "into", json_integer(2));
    json_object_set_new(j, "lend", json_true());
    CHECK_INT_EQ(run_request_from_json(j, &b, &cause), BW_OK);
    CHECK_INT_EQ(b.into, 2);
    CHECK(b.lend);
    json_object_set_new(j, "return", json_string("gather"));
    CHECK(run_request_from_json(j, &b, &cause) != BW_OK);
    CHECK_CONTAINS(cause, "only a full return goes into a lent buffer");
    json_decref(j);
    free(cause);
}

/* "scan" (a test checked by sample): sent only when asked for, a boolean. */
TEST(proto_run_request_scan)
{
    struct run_request a, b;
    char *cause = NULL;
    json_t *j;

    memset(&a, 0, sizeof(a));
    sample_plan(&a.plan);
    j = run_request_to_json(&a);
    CHECK(json_object_get(j, "scan") == NULL);
    CHECK_INT_EQ(run_request_from_json(j, &b, &cause), BW_OK);
    CHECK(!b.scan);
    json_decref(j);
    a.scan = true;
    a.ret = RUN_RETURN_GATHER;
    j = through_text(run_request_to_json(&a));
    CHECK_INT_EQ(run_request_from_json(j, &b, &cause), BW_OK);
    CHECK(b.scan);
    json_object_set_new(j, "scan", json_string("yes"));
    CHECK(run_request_from_json(j, &b, &cause) != BW_OK);
    CHECK_CONTAINS(cause, "run.scan: expected true or false");
    json_decref(j);
    free(cause);
}

/* A scan's counts come back beside the outputs; a reply without them has none. */
TEST(proto_run_reply_poison_counts)
{
    struct run_reply a, b;
    char *cause = NULL;
    json_t *j;

    memset(&a, 0, sizeof(a));
    run_failure_init(&a.fail);
    a.n_outputs = 1;
    a.outputs[0] = (struct run_output){.buf = 2, .offset = 0, .bytes = 4};
    a.n_poison = 2;
    a.poison_buf[0] = 2;
    a.poison[0] = 1;
    a.poison_buf[1] = 3;
    a.poison[1] = 9000000000000000000ull; /* above 2^63 - 1: a decimal string */
    j = through_text(run_reply_to_json(&a));
    CHECK_INT_EQ(run_reply_from_json(j, &b, &cause), BW_OK);
    CHECK_INT_EQ(b.n_poison, 2);
    CHECK(b.poison_buf[0] == 2 && b.poison[0] == 1);
    CHECK(b.poison_buf[1] == 3 && b.poison[1] == a.poison[1]);
    json_object_set_new(j, "poison", json_pack("[i]", 1));
    CHECK_INT_EQ(run_reply_from_json(j, &b, &cause), BW_ERR_INVALID);
    CHECK_CONTAINS(cause, "result.poison: expected 2 counts");
    json_decref(j);
    a.n_poison = 0;
    j = run_reply_to_json(&a);
    CHECK(json_object_get(j, "poison") == NULL);
    CHECK_INT_EQ(run_reply_from_json(j, &b, &cause), BW_OK);
    CHECK_INT_EQ(b.n_poison, 0);
    json_decref(j);
    free(cause);
}

TEST(proto_gen_spec_needs_sane_parameters)
{
    struct gen_spec g;
    char *cause = NULL;
    json_t *j;

    j = json_pack("{s:s, s:s, s:f, s:f}", "kind", "loguniform", "dtype", "fp32", "a", 0.0, "b",
                  1.0);
    CHECK_INT_EQ(gen_spec_from_json(j, &g, "gen", &cause), BW_ERR_INVALID);
    CHECK_CONTAINS(cause, "0 < a <= b");
    json_decref(j);
    j = json_pack("{s:s, s:s, s:I, s:I}", "kind", "randint", "dtype", "int32", "ilo", (json_int_t)5,
                  "ihi", (json_int_t)4);
    CHECK_INT_EQ(gen_spec_from_json(j, &g, "gen", &cause), BW_ERR_INVALID);
    CHECK_CONTAINS(cause, "ilo <= ihi");
    json_decref(j);
    j = json_pack("{s:s, s:s, s:s, s:[[s, f]]}", "kind", "const", "dtype", "fp16", "a", "-inf",
                  "specials", "nan", 1.5);
    CHECK_INT_EQ(gen_spec_from_json(j, &g, "gen", &cause), BW_ERR_INVALID);
    CHECK_CONTAINS(cause, "specials[0]");
    json_decref(j);
    j = json_pack("{s:s, s:s, s:s, s:i}", "kind", "const", "dtype", "fp16", "a", "-inf", "flags",
                  4);
    CHECK_INT_EQ(gen_spec_from_json(j, &g, "gen", &cause), BW_ERR_INVALID);
    CHECK_CONTAINS(cause, "row_lo: missing");
    json_decref(j);
    j = json_pack("{s:s, s:s, s:s}", "kind", "const", "dtype", "fp16", "a", "-inf");
    CHECK_INT_EQ(gen_spec_from_json(j, &g, "gen", &cause), BW_OK);
    CHECK(isinf(g.a) && g.a < 0 && g.row_len == 1);
    json_decref(j);
    free(cause);
}

TEST(proto_bench_request_validation)
{
    struct bench_request a, b;
    char *cause = NULL;
    json_t *j;

    memset(&a, 0, sizeof(a));
    sample_plan(&a.plan);
    a.sets = 2;
    a.min_samples = 20;
    a.max_samples = 10;
    a.target_rse = 0.01;
    a.budget_ms = 100;
    j = bench_request_to_json(&a);
    CHECK_INT_EQ(bench_request_from_json(j, &b, &cause), BW_ERR_INVALID);
    CHECK_CONTAINS(cause, "min_samples");
    json_decref(j);
    a.max_samples = 20;
    a.sets = BW_MAX_BENCH_SETS + 1;
    j = bench_request_to_json(&a);
    CHECK_INT_EQ(bench_request_from_json(j, &b, &cause), BW_ERR_INVALID);
    CHECK_CONTAINS(cause, "bench.sets");
    json_decref(j);
    free(cause);
}

TEST(proto_run_reply_round_trips_every_status)
{
    struct run_reply a, b;
    char *cause = NULL;

    for (int s = RUN_OK; s <= RUN_ERROR; s++) {
        json_t *j;
        memset(&a, 0, sizeof(a));
        run_failure_init(&a.fail);
        a.fail.status = (enum run_status)s;
        if (s == RUN_OK) {
            a.ms = 0.21;
            a.n_outputs = 2;
            a.outputs[0] = (struct run_output){.buf = 2, .offset = 0, .bytes = 4000};
            a.outputs[1] = (struct run_output){.buf = 3, .offset = 4000, .bytes = 8};
            for (int k = 0; k < RUN_PHASES; k++)
                a.phase_ms[k] = 0.125 * (k + 1);
        } else {
            snprintf(a.fail.message, sizeof(a.fail.message), "what went wrong %d", s);
        }
        if (s == RUN_CUDA_ERROR || s == RUN_LAUNCH_ERROR) {
            snprintf(a.fail.error, sizeof(a.fail.error), "CUDA_ERROR_ILLEGAL_ADDRESS");
            a.fail.launch = 1;
        }
        if (s == RUN_GUARD_VIOLATION || s == RUN_INPUT_MODIFIED)
            a.fail.buf = 2;
        if (s == RUN_GUARD_VIOLATION) {
            a.fail.after = true;
            a.fail.offset = 4000;
        }
        j = through_text(run_reply_to_json(&a));
        CHECK_STR_EQ(msg_type(j), "result");
        CHECK_STR_EQ(json_string_value(json_object_get(j, "status")),
                     run_status_name((enum run_status)s));
        CHECK_INT_EQ(run_reply_from_json(j, &b, &cause), BW_OK);
        CHECK_INT_EQ(b.fail.status, s);
        CHECK_STR_EQ(b.fail.error, a.fail.error);
        CHECK_STR_EQ(b.fail.message, a.fail.message);
        CHECK_INT_EQ(b.fail.launch, a.fail.launch);
        CHECK_INT_EQ(b.fail.buf, a.fail.buf);
        CHECK_INT_EQ(b.fail.after, a.fail.after);
        CHECK_INT_EQ(b.fail.offset, a.fail.offset);
        CHECK(b.ms == a.ms);
        CHECK_INT_EQ(b.n_outputs, a.n_outputs);
        for (int k = 0; k < a.n_outputs; k++)
            CHECK(b.outputs[k].buf == a.outputs[k].buf &&
                  b.outputs[k].offset == a.outputs[k].offset &&
                  b.outputs[k].bytes == a.outputs[k].bytes);
        for (int k = 0; k < RUN_PHASES; k++)
            CHECK(b.phase_ms[k] == a.phase_ms[k]);
        json_decref(j);
    }
    free(cause);
}

TEST(proto_run_reply_phases_are_optional_and_checked)
{
    struct run_reply b;
    char *cause = NULL;
    json_t *j =
        json_pack("{s:s, s:s, s:f, s:[]}", "type", "result", "status", "ok", "ms", 0.5, "outputs");

    CHECK_INT_EQ(run_reply_from_json(j, &b, &cause), BW_OK); /* an older runner: no phases */
    for (int k = 0; k < RUN_PHASES; k++)
        CHECK(b.phase_ms[k] == 0);
    json_object_set_new(j, "phases", json_pack("{s:f}", "launch", -1.0));
    CHECK_INT_EQ(run_reply_from_json(j, &b, &cause), BW_ERR_INVALID);
    CHECK_CONTAINS(cause, "result.phases.launch");
    json_object_set_new(j, "phases", json_string("fast"));
    CHECK_INT_EQ(run_reply_from_json(j, &b, &cause), BW_ERR_INVALID);
    CHECK_CONTAINS(cause, "expected an object");
    CHECK_STR_EQ(run_phase_name(RUN_PHASE_RETURN), "return");
    json_decref(j);
    free(cause);
}

TEST(proto_guard_violation_needs_where)
{
    struct run_reply b;
    char *cause = NULL;
    json_t *j = json_pack("{s:s, s:s, s:s, s:i}", "type", "result", "status", "guard_violation",
                          "message", "m", "buf", 1);
    CHECK_INT_EQ(run_reply_from_json(j, &b, &cause), BW_ERR_INVALID);
    CHECK_CONTAINS(cause, "where");
    json_decref(j);
    j = json_pack("{s:s, s:s}", "type", "result", "status", "exploded");
    CHECK_INT_EQ(run_reply_from_json(j, &b, &cause), BW_ERR_INVALID);
    CHECK_CONTAINS(cause, "unknown status");
    json_decref(j);
    j = json_pack("{s:s, s:s}", "type", "loaded", "status", "ok");
    CHECK_INT_EQ(run_reply_from_json(j, &b, &cause), BW_ERR_PROTOCOL);
    json_decref(j);
    free(cause);
}

TEST(proto_bench_reply_round_trip)
{
    struct bench_reply a, b;
    double samples[3] = {0.71, 0.70, 0.72};
    uint64_t poison[6] = {0, 1, 2, 3, UINT64_MAX, 5};
    char *cause = NULL;
    json_t *j;

    memset(&a, 0, sizeof(a));
    run_failure_init(&a.fail);
    a.stop = BENCH_STOP_BUDGET;
    a.n_samples = 3;
    a.samples_ms = samples;
    a.n_poison = 2;
    a.poison_buf[0] = 2;
    a.poison_buf[1] = 5;
    a.poison = poison;
    a.clock_mhz[0] = 1980;
    a.clock_mhz[1] = 1755;
    a.bytes_per_sample = 16384;
    j = through_text(bench_reply_to_json(&a));
    CHECK_STR_EQ(json_string_value(json_object_get(j, "stop")), "budget");
    CHECK_INT_EQ(bench_reply_from_json(j, &b, &cause), BW_OK);
    CHECK_INT_EQ(b.stop, BENCH_STOP_BUDGET);
    CHECK_INT_EQ(b.n_samples, 3);
    for (int s = 0; s < 3 && b.samples_ms; s++)
        CHECK(b.samples_ms[s] == samples[s]);
    CHECK_INT_EQ(b.n_poison, 2);
    CHECK(b.poison_buf[0] == 2 && b.poison_buf[1] == 5);
    for (int k = 0; k < 6 && b.poison; k++)
        CHECK(b.poison[k] == poison[k]);
    CHECK(b.clock_mhz[0] == 1980 && b.clock_mhz[1] == 1755);
    CHECK(b.bytes_per_sample == 16384);
    bench_reply_release(&b);
    json_decref(j);

    /* A failing sample keeps the samples so far and says which failed. */
    a.fail.status = RUN_INPUT_MODIFIED;
    a.fail.buf = 0;
    a.fail.sample = 2;
    snprintf(a.fail.message, sizeof(a.fail.message), "input x was modified");
    j = through_text(bench_reply_to_json(&a));
    CHECK_INT_EQ(bench_reply_from_json(j, &b, &cause), BW_OK);
    CHECK_INT_EQ(b.fail.status, RUN_INPUT_MODIFIED);
    CHECK_INT_EQ(b.fail.sample, 2);
    CHECK_INT_EQ(b.n_samples, 3);
    bench_reply_release(&b);
    json_decref(j);
    free(cause);
}

TEST(proto_load_round_trip)
{
    struct load_request q = {.n_kernels = 2}, q2;
    struct load_reply a, b;
    char *cause = NULL;
    json_t *j;

    snprintf(q.kernels[0], sizeof(q.kernels[0]), "vector_add");
    snprintf(q.kernels[1], sizeof(q.kernels[1]), "reduce");
    j = through_text(load_request_to_json(&q));
    CHECK_INT_EQ(load_request_from_json(j, &q2, &cause), BW_OK);
    CHECK_INT_EQ(q2.n_kernels, 2);
    CHECK_STR_EQ(q2.kernels[1], "reduce");
    json_decref(j);

    memset(&a, 0, sizeof(a));
    run_failure_init(&a.fail);
    a.n_kernels = 2;
    snprintf(a.kernels[0].name, sizeof(a.kernels[0].name), "vector_add");
    a.kernels[0].n_params = 4;
    for (int i = 0; i < 4; i++)
        a.kernels[0].param_bytes[i] = 8;
    a.kernels[0].regs = 16;
    a.kernels[0].max_threads = 1024;
    snprintf(a.kernels[1].name, sizeof(a.kernels[1].name), "reduce");
    a.kernels[1].n_params = 0;
    a.kernels[1].static_smem = 4096;
    a.kernels[1].local_bytes = 24;
    j = through_text(load_reply_to_json(&a));
    CHECK_INT_EQ(load_reply_from_json(j, &b, &cause), BW_OK);
    CHECK_INT_EQ(b.n_kernels, 2);
    for (int k = 0; k < b.n_kernels; k++) {
        const struct kernel_info *x =
            strcmp(b.kernels[k].name, "reduce") == 0 ? &a.kernels[1] : &a.kernels[0];
        CHECK_STR_EQ(b.kernels[k].name, x->name);
        CHECK_INT_EQ(b.kernels[k].n_params, x->n_params);
        CHECK_INT_EQ(b.kernels[k].regs, x->regs);
        CHECK_INT_EQ(b.kernels[k].static_smem, x->static_smem);
        CHECK_INT_EQ(b.kernels[k].local_bytes, x->local_bytes);
        CHECK_INT_EQ(b.kernels[k].max_threads, x->max_threads);
    }
    json_decref(j);

    run_failure_init(&a.fail);
    a.fail.status = RUN_ERROR;
    snprintf(a.fail.error, sizeof(a.fail.error), "CUDA_ERROR_INVALID_IMAGE");
    snprintf(a.fail.message, sizeof(a.fail.message), "bad image");
    j = through_text(load_reply_to_json(&a));
    CHECK_INT_EQ(load_reply_from_json(j, &b, &cause), BW_OK);
    CHECK_INT_EQ(b.fail.status, RUN_ERROR);
    CHECK_STR_EQ(b.fail.error, "CUDA_ERROR_INVALID_IMAGE");
    json_decref(j);
    free(cause);
}

TEST(proto_ready_and_calibration_round_trip)
{
    struct ready_msg a, b;
    struct calibration c = {4310.5, 61.2, 640.1, 641.0, 1980}, d;
    struct run_failure f, g;
    char *cause = NULL;
    json_t *j;

    memset(&a, 0, sizeof(a));
    snprintf(a.gpu.name, sizeof(a.gpu.name), "NVIDIA H200");
    a.gpu.cc_major = 9;
    a.gpu.sm_count = 132;
    a.gpu.memory_bytes = 150ull << 30;
    a.gpu.l2_bytes = 62914560;
    a.gpu.driver_version = 13000;
    snprintf(a.gpu.uuid, sizeof(a.gpu.uuid), "GPU-01234567-89ab-cdef-0123-456789abcdef");
    a.gpu.max_clock_mhz = 1980;
    a.gpu.smem_per_block_optin = 232448;
    a.gpu.nvml = true;
    j = through_text(ready_to_json(&a));
    CHECK_STR_EQ(json_string_value(json_object_get(json_object_get(j, "gpu"), "cc")), "9.0");
    CHECK_INT_EQ(ready_from_json(j, &b, &cause), BW_OK);
    CHECK_INT_EQ(b.error, READY_OK);
    CHECK(memcmp(&a.gpu, &b.gpu, sizeof(a.gpu)) == 0);
    json_decref(j);

    memset(&a, 0, sizeof(a));
    a.error = READY_NO_DEVICE;
    snprintf(a.message, sizeof(a.message), "cannot load the CUDA driver: libcuda.so.1: nope");
    j = through_text(ready_to_json(&a));
    CHECK_STR_EQ(json_string_value(json_object_get(json_object_get(j, "error"), "kind")),
                 "no_device");
    CHECK_INT_EQ(ready_from_json(j, &b, &cause), BW_OK);
    CHECK_INT_EQ(b.error, READY_NO_DEVICE);
    CHECK_STR_EQ(b.message, a.message);
    json_decref(j);

    run_failure_init(&f);
    j = through_text(calibration_to_json(&c, &f));
    CHECK_INT_EQ(calibration_from_json(j, &d, &g, &cause), BW_OK);
    CHECK_INT_EQ(g.status, RUN_OK);
    CHECK(memcmp(&c, &d, sizeof(c)) == 0);
    json_decref(j);
    j = through_text(error_reply_to_json("calibration", NULL, "no memory for the copy"));
    CHECK_INT_EQ(calibration_from_json(j, &d, &g, &cause), BW_OK);
    CHECK_INT_EQ(g.status, RUN_ERROR);
    CHECK_STR_EQ(g.message, "no memory for the copy");
    json_decref(j);
    free(cause);
}

/* ---- profile ------------------------------------------------------------------------------ */

TEST(proto_profile_request_round_trip_and_validation)
{
    struct profile_request a, b;
    char *cause = NULL;
    json_t *j;

    memset(&a, 0, sizeof(a));
    sample_plan(&a.plan);
    a.plan.n_gather = 0;
    j = through_text(profile_request_to_json(&a));
    CHECK(j != NULL);
    CHECK_STR_EQ(msg_type(j), "profile");
    CHECK_INT_EQ(profile_request_from_json(j, &b, &cause), BW_OK);
    check_plans_equal(&a.plan, &b.plan);
    json_decref(j);
    /* a profile gathers nothing */
    sample_plan(&a.plan);
    j = through_text(profile_request_to_json(&a));
    CHECK(profile_request_from_json(j, &b, &cause) == BW_ERR_INVALID);
    CHECK_CONTAINS(cause, "profile.gather");
    json_decref(j);
    free(cause);
}

/* A reply with every field, one metric unknown (NaN), two launches. */
static void sample_profile_reply(struct profile_reply *r)
{
    memset(r, 0, sizeof(*r));
    run_failure_init(&r->fail);
    r->available = true;
    r->ms = 812.5;
    snprintf(r->version, sizeof(r->version), "13.0");
    snprintf(r->chip, sizeof(r->chip), "GH100");
    r->passes = 9;
    for (int m = 0; m < PM_COUNT; m++)
        if (m != PM_GMMA_PCT)
            snprintf(r->metrics[m], sizeof(r->metrics[m]), "%s",
                     profile_metric_table[m].names[m == PM_DRAM_PCT ? 1 : 0]);
    r->device = (struct profile_device){9,     0,     132,    32,    1024,   2048, 32,
                                        65536, 65536, 233472, 49152, 232448, 1024};
    r->n_ranges = 2;
    for (int i = 0; i < 2; i++) {
        struct profile_range *g = &r->ranges[i];
        g->launch = i;
        snprintf(g->kernel, sizeof(g->kernel), "k%d", i);
        g->grid[0] = 65536 + i;
        g->grid[1] = g->grid[2] = 1;
        g->block[0] = 256;
        g->block[1] = g->block[2] = 1;
        g->smem = 4096u * i;
        g->regs = 32;
        g->static_smem = 1024;
        for (int m = 0; m < PM_COUNT; m++)
            g->values[m] = m == PM_GMMA_PCT ? NAN : 0.5 * m + i;
    }
}

TEST(proto_profile_reply_round_trip)
{
    struct profile_reply a, b;
    char *cause = NULL;
    json_t *j;

    sample_profile_reply(&a);
    j = through_text(profile_reply_to_json(&a));
    CHECK(j != NULL);
    CHECK_STR_EQ(msg_type(j), "profile_result");
    CHECK_INT_EQ(profile_reply_from_json(j, &b, &cause), BW_OK);
    if (cause)
        printf("  cause: %s\n", cause);
    CHECK(b.available && b.passes == 9 && b.ms == 812.5);
    CHECK_STR_EQ(b.version, "13.0");
    CHECK_STR_EQ(b.chip, "GH100");
    CHECK_STR_EQ(b.metrics[PM_DRAM_PCT], profile_metric_table[PM_DRAM_PCT].names[1]);
    CHECK_STR_EQ(b.metrics[PM_GMMA_PCT], "");
    CHECK(memcmp(&a.device, &b.device, sizeof(a.device)) == 0);
    CHECK_INT_EQ(b.n_ranges, 2);
    for (int i = 0; i < 2; i++) {
        CHECK_STR_EQ(a.ranges[i].kernel, b.ranges[i].kernel);
        CHECK(a.ranges[i].grid[0] == b.ranges[i].grid[0] && a.ranges[i].smem == b.ranges[i].smem);
        CHECK(a.ranges[i].regs == b.ranges[i].regs &&
              a.ranges[i].static_smem == b.ranges[i].static_smem);
        for (int m = 0; m < PM_COUNT; m++)
            CHECK(same(a.ranges[i].values[m], b.ranges[i].values[m]));
    }
    json_decref(j);
    free(cause);
}

TEST(proto_profile_reply_unavailable_and_failures)
{
    struct profile_reply a, b;
    char *cause = NULL;
    json_t *j;

    memset(&a, 0, sizeof(a));
    run_failure_init(&a.fail);
    snprintf(a.why, sizeof(a.why), "no CUPTI here");
    j = through_text(profile_reply_to_json(&a));
    CHECK_INT_EQ(profile_reply_from_json(j, &b, &cause), BW_OK);
    CHECK(!b.available);
    CHECK_STR_EQ(b.why, "no CUPTI here");
    json_decref(j);
    /* a plan that faulted under the profiler: the run's failure fields */
    sample_profile_reply(&a);
    a.fail.status = RUN_CUDA_ERROR;
    a.fail.launch = 1;
    snprintf(a.fail.error, sizeof(a.fail.error), "CUDA_ERROR_ILLEGAL_ADDRESS");
    snprintf(a.fail.message, sizeof(a.fail.message), "launch 1 (k1): an illegal address");
    j = through_text(profile_reply_to_json(&a));
    CHECK_INT_EQ(profile_reply_from_json(j, &b, &cause), BW_OK);
    CHECK_INT_EQ(b.fail.status, RUN_CUDA_ERROR);
    CHECK_INT_EQ(b.fail.launch, 1);
    json_decref(j);
    /* a request the runner could not serve */
    j = through_text(error_reply_to_json("profile_result", NULL, "out of memory"));
    CHECK_INT_EQ(profile_reply_from_json(j, &b, &cause), BW_OK);
    CHECK_INT_EQ(b.fail.status, RUN_ERROR);
    json_decref(j);
    free(cause);
}

TEST(proto_profile_reply_validation)
{
    struct profile_reply a, b;
    char *cause = NULL;
    json_t *j;

    sample_profile_reply(&a);
    /* a name that is not its row's */
    snprintf(a.metrics[PM_L2_PCT], sizeof(a.metrics[PM_L2_PCT]), "dram__bytes_read.sum");
    j = through_text(profile_reply_to_json(&a));
    CHECK(profile_reply_from_json(j, &b, &cause) == BW_ERR_INVALID);
    CHECK_CONTAINS(cause, "metrics[2]: not a name of metric 2");
    json_decref(j);
    /* too few values */
    sample_profile_reply(&a);
    j = through_text(profile_reply_to_json(&a));
    json_array_remove(json_object_get(json_array_get(json_object_get(j, "ranges"), 0), "values"),
                      0);
    CHECK(profile_reply_from_json(j, &b, &cause) == BW_ERR_INVALID);
    CHECK_CONTAINS(cause, "ranges[0].values");
    json_decref(j);
    /* passes beyond the limit */
    sample_profile_reply(&a);
    a.passes = BW_PROFILE_MAX_PASSES + 1;
    j = through_text(profile_reply_to_json(&a));
    CHECK(profile_reply_from_json(j, &b, &cause) == BW_ERR_INVALID);
    CHECK_CONTAINS(cause, "passes");
    json_decref(j);
    free(cause);
}

TEST(proto_profile_metric_table_is_whole)
{
    for (int m = 0; m < PM_COUNT; m++) {
        CHECK_MSG(profile_metric_table[m].names[0] != NULL, "metric %d has no name", m);
        CHECK_MSG((m >= PM_STALL_FIRST && m <= PM_STALL_LAST) ==
                      (profile_metric_table[m].stall != NULL),
                  "metric %d: a stall reason iff it is a stall metric", m);
        for (int k = 0; k < 3 && profile_metric_table[m].names[k]; k++)
            CHECK(strlen(profile_metric_table[m].names[k]) < BW_PROFILE_METRIC_BYTES);
        /* the runner's own figure (not CUPTI's) is the theoretical occupancy only, under one
         * name; CUPTI's host library knows none of ncu's launch arithmetic (launch__*,
         * sm__maximum_warps_per_active_cycle_pct): tests/cpu/cupti-host.sh */
        CHECK_MSG(profile_metric_table[m].driver == (m == PM_THEORETICAL_PCT),
                  "metric %d: only the theoretical occupancy is the driver's", m);
        CHECK_MSG(!profile_metric_table[m].driver || !profile_metric_table[m].names[1],
                  "metric %d: a driver figure has one name", m);
        for (int k = 0; k < 3 && profile_metric_table[m].names[k]; k++)
            CHECK_MSG(profile_metric_table[m].driver ||
                          (strncmp(profile_metric_table[m].names[k], "launch__", 8) != 0 &&
                           !strstr(profile_metric_table[m].names[k], "maximum_warps")),
                      "metric %d: %s is ncu's arithmetic, not a counter CUPTI reads", m,
                      profile_metric_table[m].names[k]);
    }
}
