/*
 * The worker protocol's codec (wire/worker_proto.h): every message encoded,
 * sent as text and decoded on the other side gives back what was sent; a
 * real result (judge/worker/report.h's JSON of a struct judge_result) reads
 * on the server as the worker meant it; and a wrong field is named by its
 * path.
 */
#include "tests/test.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "common/error.h"
#include "judge/worker/judging.h"
#include "judge/worker/report.h"
#include "wire/worker_proto.h"
#include "common/banned.h"

/* j sent over the wire: dumped to text and parsed back (a *new* document). */
static json_t *over_the_wire(json_t *j /* stolen */)
{
    char *text = j ? json_dumps(j, JSON_COMPACT) : NULL;
    json_t *back = text ? json_loads(text, 0, NULL) : NULL;

    free(text);
    json_decref(j);
    return back;
}

static void reader(struct json_reader *r)
{
    json_reader_init(r, JSON_READER_NULL_IS_ABSENT);
}

TEST(register_round_trip)
{
    struct wp_register in = {.hostname = "gpu-node-3",
                             .version = "1.0",
                             .can_execute = true,
                             .gpu =
                                 json_pack("{s:s, s:i}", "name", "NVIDIA H200", "sm_count", 132)};
    struct wp_register out;
    struct json_reader r;

    in.languages[in.n_languages++] = (struct wp_language){LANG_CUDA, "13.0"};
    in.languages[in.n_languages++] = (struct wp_language){LANG_TRITON, "3.6.0"};
    json_t *j = over_the_wire(wp_register_encode(&in));
    reader(&r);
    CHECK_INT_EQ(wp_register_decode(j, &out, &r), BW_OK);
    CHECK_STR_EQ(out.hostname, "gpu-node-3");
    CHECK_STR_EQ(out.version, "1.0");
    CHECK(out.can_execute);
    CHECK_STR_EQ(out.gpu_name, "NVIDIA H200");
    CHECK_INT_EQ(json_integer_value(json_object_get(out.gpu, "sm_count")), 132);
    CHECK_INT_EQ(out.n_languages, 2);
    CHECK_INT_EQ(out.languages[1].language, LANG_TRITON);
    CHECK_STR_EQ(out.languages[1].version, "3.6.0");
    CHECK_INT_EQ(out.n_ignored, 0);
    json_decref(j);
    json_decref(in.gpu);

    /* A judged from before languages compiles CUDA; a newer one's unknown language is
     * listed apart, not refused. */
    j = json_pack("{s:s, s:b, s:[{s:s}, {s:s}]}", "hostname", "h", "can_execute", 0, "languages",
                  "name", "cuda", "name", "mojo");
    reader(&r);
    CHECK_INT_EQ(wp_register_decode(j, &out, &r), BW_OK);
    CHECK_INT_EQ(out.n_languages, 1);
    CHECK_INT_EQ(out.n_ignored, 1);
    CHECK_STR_EQ(out.ignored[0], "mojo");
    json_decref(j);
}

TEST(welcome_claim_and_job_round_trip)
{
    struct wp_welcome win = {.worker_id = 7,
                             .worker_name = "gpu0",
                             .reclaimed = json_pack("[i, i]", 41, 42),
                             .languages = json_pack("[s]", "cuda"),
                             .lease_s = 12,
                             .heartbeat_s = 4,
                             .claim_wait_s = 25};
    struct wp_welcome wout;
    struct wp_claim cout;
    struct wp_job jin = {.lease = "l_abc",
                         .submission = 123456789012,
                         .problem = "softmax",
                         .bundle =
                             "0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef",
                         .mode = WP_PROFILE,
                         .language = LANG_TRITON,
                         .source = "# \"quoted\" \xc3\xa9\n@triton.jit\ndef k(x): pass\n",
                         .seed = 18446744073709551615ull, /* above 2^63: a decimal string */
                         .attempt = 2,
                         .lease_s = 12,
                         .heartbeat_s = 4};
    struct wp_job jout;
    struct json_reader r;

    jin.source_len = strlen(jin.source);
    json_t *j = over_the_wire(wp_welcome_encode(&win));
    reader(&r);
    CHECK_INT_EQ(wp_welcome_decode(j, &wout, &r), BW_OK);
    CHECK_INT_EQ(wout.worker_id, 7);
    CHECK_STR_EQ(wout.worker_name, "gpu0");
    CHECK_INT_EQ(json_array_size(wout.reclaimed), 2);
    CHECK_INT_EQ(wout.lease_s, 12);
    CHECK_INT_EQ(wout.heartbeat_s, 4);
    CHECK_INT_EQ(wout.claim_wait_s, 25);
    json_decref(j);
    json_decref(win.reclaimed);
    json_decref(win.languages);

    j = over_the_wire(wp_claim_encode(&(struct wp_claim){.wait_s = 25}));
    reader(&r);
    CHECK_INT_EQ(wp_claim_decode(j, &cout, &r), BW_OK);
    CHECK_INT_EQ(cout.wait_s, 25);
    json_decref(j);
    j = over_the_wire(wp_claim_encode(&(struct wp_claim){.wait_s = -1}));
    reader(&r);
    CHECK_INT_EQ(wp_claim_decode(j, &cout, &r), BW_OK);
    CHECK_INT_EQ(cout.wait_s, -1);
    json_decref(j);

    j = over_the_wire(wp_job_encode(&jin));
    reader(&r);
    CHECK_INT_EQ(wp_job_decode(j, &jout, &r), BW_OK);
    CHECK_STR_EQ(jout.lease, "l_abc");
    CHECK(jout.submission == 123456789012);
    CHECK_STR_EQ(jout.problem, "softmax");
    CHECK_STR_EQ(jout.bundle, jin.bundle);
    CHECK_INT_EQ(jout.mode, WP_PROFILE);
    CHECK_INT_EQ(jout.language, LANG_TRITON);
    CHECK_INT_EQ(jout.source_len, jin.source_len);
    CHECK(memcmp(jout.source, jin.source, jin.source_len) == 0);
    CHECK(jout.seed == jin.seed);
    CHECK_INT_EQ(jout.attempt, 2);
    CHECK_INT_EQ(jout.lease_s, 12);
    CHECK_INT_EQ(jout.heartbeat_s, 4);
    json_decref(j);

    /* Every mode by its name, both ways. */
    for (int mode = WP_RUN; mode < WP_MODE_COUNT; mode++) {
        enum wp_mode back;
        jin.mode = (enum wp_mode)mode;
        j = over_the_wire(wp_job_encode(&jin));
        CHECK_STR_EQ(json_string_value(json_object_get(j, "mode")), wp_mode_name(jin.mode));
        reader(&r);
        CHECK_INT_EQ(wp_job_decode(j, &jout, &r), BW_OK);
        CHECK_INT_EQ(jout.mode, mode);
        CHECK(wp_mode_from_name(wp_mode_name(jin.mode), &back) && back == jin.mode);
        json_decref(j);
    }
    CHECK_STR_EQ(wp_mode_name(WP_PROFILE), "profile");
    CHECK(!wp_mode_from_name("Profile", &(enum wp_mode){WP_RUN}));
}

TEST(progress_result_and_internal_error_round_trip)
{
    struct judge_result res = {0};
    struct wp_progress pout;
    struct wp_result *rout = calloc(1, sizeof(*rout));
    struct wp_internal_error eout;
    struct json_reader r;

    json_t *j = over_the_wire(wp_progress_encode(
        json_pack("[{s:s}, {s:s, s:i}]", "event", "compiling", "event", "test", "index", 3)));
    reader(&r);
    CHECK_INT_EQ(wp_progress_decode(j, &pout, &r), BW_OK);
    CHECK_INT_EQ(json_array_size(pout.events), 2);
    json_decref(j);

    /* What report.c writes of a judging is what the server reads. */
    res.verdict = VERDICT_WRONG_ANSWER;
    res.message = strdup("test N=129: 3 elements of C differ from the reference");
    res.executed = true;
    res.score = 0;
    res.n_tests = 2;
    res.tests = calloc(2, sizeof(*res.tests));
    res.tests[0] =
        (struct test_outcome){.name = strdup("N=1"), .verdict = VERDICT_ACCEPTED, .ms = 0.02};
    res.tests[1] = (struct test_outcome){.name = strdup("N=129"),
                                         .verdict = VERDICT_WRONG_ANSWER,
                                         .message = strdup("3 elements of C differ"),
                                         .ms = 0.03};
    res.n_benches = 1;
    res.benches = calloc(1, sizeof(*res.benches));
    res.benches[0] = (struct bench_outcome){.name = strdup("N=2^28"),
                                            .samples = 40,
                                            .median_ms = 0.75,
                                            .min_ms = 0.74,
                                            .max_ms = 0.8,
                                            .gbps = 4290.5,
                                            .sol_pct = 93.5,
                                            .clock_mhz = 1980,
                                            .stop = strdup("rse")};
    snprintf(res.gpu.name, sizeof(res.gpu.name), "NVIDIA H200");
    snprintf(res.gpu.uuid, sizeof(res.gpu.uuid), "GPU-1");
    snprintf(res.gpu.arch, sizeof(res.gpu.arch), "sm_90a");
    j = over_the_wire(wp_result_encode(judge_result_json(&res)));
    reader(&r);
    CHECK_INT_EQ(wp_result_decode(j, rout, &r), BW_OK);
    CHECK_INT_EQ(rout->verdict, VERDICT_WRONG_ANSWER);
    CHECK_STR_EQ(rout->message, res.message);
    CHECK(rout->executed);
    CHECK_STR_EQ(rout->gpu_name, "NVIDIA H200");
    CHECK_INT_EQ(rout->n_tests, 2);
    CHECK_STR_EQ(rout->tests[1].name, "N=129");
    CHECK_INT_EQ(rout->tests[1].verdict, VERDICT_WRONG_ANSWER);
    CHECK_INT_EQ(rout->n_benches, 1);
    CHECK_STR_EQ(rout->benches[0].name, "N=2^28");
    CHECK(fabs(rout->benches[0].median_ms - 0.75) < 1e-9);
    CHECK_INT_EQ(rout->benches[0].samples, 40);
    CHECK(fabs(rout->benches[0].sol_pct - 93.5) < 1e-9);
    json_decref(j);
    judge_result_release(&res);

    j = over_the_wire(wp_internal_error_encode(
        &(struct wp_internal_error){.message = "reference failed", .problem_fault = true}));
    reader(&r);
    CHECK_INT_EQ(wp_internal_error_decode(j, &eout, &r), BW_OK);
    CHECK_STR_EQ(eout.message, "reference failed");
    CHECK(eout.problem_fault);
    json_decref(j);
    free(rout);
}

/* A wrong field is named by its path, whichever side reads it. */
TEST(a_wrong_field_is_named)
{
    static const struct {
        const char *json, *path, *words;
        int which; /* 0 job, 1 result, 2 register, 3 progress */
    } bad[] = {
        {"{\"lease\":\"l\",\"submission\":1,\"problem\":\"p\",\"bundle\":\"x\",\"mode\":\"run\","
         "\"source\":\"\"}",
         "bundle", "64", 0},
        {"{\"lease\":\"l\",\"submission\":1,\"problem\":\"p\",\"bundle\":"
         "\"0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef\",\"mode\":\"time\","
         "\"source\":\"\"}",
         "mode", "neither", 0},
        {"{\"lease\":\"l\",\"submission\":1,\"problem\":\"p\",\"bundle\":"
         "\"0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef\",\"mode\":\"run\","
         "\"source\":\"\",\"seed\":\"-3\"}",
         "seed", "decimal", 0},
        {"{\"result\":{\"verdict\":\"AC\",\"tests\":[{\"name\":\"a\",\"ms\":\"fast\"}]}}",
         "result.tests[0].ms", "number", 1},
        {"{\"result\":{\"executed\":true}}", "result.verdict", "missing", 1},
        {"{\"hostname\":\"h\",\"can_execute\":true,\"languages\":[{\"name\":\"cuda\"},"
         "{\"name\":\"cuda\"}]}",
         "languages[1].name", "twice", 2},
        {"{\"events\":[{\"no\":1}]}", "events", "event", 3},
    };
    static struct wp_result result;

    for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
        json_t *j = json_loads(bad[i].json, 0, NULL);
        struct json_reader r;
        struct wp_job job;
        struct wp_register reg;
        struct wp_progress prog;
        char text[512];
        int rc;

        reader(&r);
        CHECK_MSG(j != NULL, "%s", bad[i].json);
        rc = bad[i].which == 0   ? wp_job_decode(j, &job, &r)
             : bad[i].which == 1 ? wp_result_decode(j, &result, &r)
             : bad[i].which == 2 ? wp_register_decode(j, &reg, &r)
                                 : wp_progress_decode(j, &prog, &r);
        CHECK_MSG(rc != BW_OK, "%s decoded", bad[i].json);
        json_reader_text(&r, text, sizeof(text));
        CHECK_MSG(strncmp(text, bad[i].path, strlen(bad[i].path)) == 0 &&
                      strstr(text, bad[i].words),
                  "%s: \"%s\", expected the path %s and \"%s\"", bad[i].json, text, bad[i].path,
                  bad[i].words);
        json_decref(j);
    }
}

#define PROFILE_FIXTURE "tests/fixtures/profile/profile.json"

/* A result around `profile` (stolen), decoded; the reader's code. The strings read stay valid
 * until the next call (the document is kept until then; NULL frees it). */
static int decode_profile(json_t *profile, struct wp_result *out, struct json_reader *r)
{
    static json_t *kept;
    json_decref(kept);
    kept = NULL;
    if (!profile)
        return BW_OK;
    json_t *j = over_the_wire(
        wp_result_encode(json_pack("{s:s, s:s, s:b, s:[], s:o}", "verdict", "AC", "mode", "profile",
                                   "executed", 1, "tests", "profile", profile)));
    reader(r);
    int rc = j ? wp_result_decode(j, out, r) : BW_ERR_NOMEM;
    kept = j;
    return rc;
}

/* A Profile's result (docs/profile.md): every field of the contract read, nulls where the GPU gave
 * nothing, "available": false with its sentence, and the caps of limits.h's Profile section. */
TEST(a_profile_is_read_and_bounded)
{
    struct wp_result *out = calloc(1, sizeof(*out));
    struct json_reader r;
    json_t *fixture = json_load_file(PROFILE_FIXTURE, 0, NULL);
    CHECK_MSG(fixture != NULL, "%s", PROFILE_FIXTURE);
    if (!fixture || !out) {
        free(out);
        return;
    }
    CHECK_INT_EQ(decode_profile(json_deep_copy(fixture), out, &r), BW_OK);
    CHECK(out->profile.present);
    CHECK(out->profile.available);
    CHECK_INT_EQ(out->profile.n_kernels, 2);
    CHECK_STR_EQ(out->profile.why, "");

    CHECK_INT_EQ(decode_profile(json_pack("{s:b, s:s}", "available", 0, "why",
                                          "the driver lets only administrators read counters"),
                                out, &r),
                 BW_OK);
    CHECK(out->profile.present && !out->profile.available);
    CHECK_STR_EQ(out->profile.why, "the driver lets only administrators read counters");

    /* A Run's result has none. */
    CHECK_INT_EQ(decode_profile(json_null(), out, &r), BW_OK);
    CHECK(!out->profile.present);

    /* More kernels than a plan launches. */
    json_t *p = json_deep_copy(fixture);
    json_t *kernels = json_object_get(p, "kernels");
    while (json_array_size(kernels) <= BW_MAX_LAUNCHES)
        json_array_append_new(kernels, json_deep_copy(json_array_get(kernels, 0)));
    CHECK_INT_EQ(decode_profile(p, out, &r), BW_ERR_LIMIT);
    CHECK_STR_EQ(r.path, "result.profile.kernels");
    CHECK(strstr(r.message, "BW_MAX_LAUNCHES") != NULL);

    /* More metrics of one launch than BW_MAX_PROFILE_METRICS. */
    p = json_deep_copy(fixture);
    json_t *metrics = json_object_get(json_object_get(p, "raw"), "vector_add#0");
    for (int i = 0; i <= BW_MAX_PROFILE_METRICS; i++) {
        char name[32];
        snprintf(name, sizeof(name), "metric_%d", i);
        json_object_set_new(metrics, name, json_real(i));
    }
    CHECK_INT_EQ(decode_profile(p, out, &r), BW_ERR_LIMIT);
    CHECK_STR_EQ(r.path, "result.profile.raw.vector_add#0");
    CHECK(strstr(r.message, "BW_MAX_PROFILE_METRICS") != NULL);

    /* A profile over BW_MAX_PROFILE_BYTES in all. */
    p = json_deep_copy(fixture);
    metrics = json_object_get(json_object_get(p, "raw"), "vector_add#0");
    char *big = malloc(BW_MAX_PROFILE_TEXT + 1);
    memset(big, 'x', BW_MAX_PROFILE_TEXT);
    big[BW_MAX_PROFILE_TEXT] = '\0';
    for (int i = 0; i < 2 * BW_MAX_PROFILE_BYTES / BW_MAX_PROFILE_TEXT / BW_MAX_LAUNCHES; i++) {
        char name[32];
        snprintf(name, sizeof(name), "m%d", i);
        json_object_set_new(metrics, name, json_string(big));
    }
    for (int k = 1; k < BW_MAX_LAUNCHES; k++) {
        char name[32];
        snprintf(name, sizeof(name), "copy#%d", k);
        json_object_set_new(json_object_get(p, "raw"), name, json_deep_copy(metrics));
    }
    CHECK_INT_EQ(decode_profile(p, out, &r), BW_ERR_LIMIT);
    CHECK_STR_EQ(r.path, "result.profile");
    CHECK(strstr(r.message, "BW_MAX_PROFILE_BYTES") != NULL);
    free(big);

    /* Wrong words and types, each named by its path. */
    p = json_deep_copy(fixture);
    json_object_set_new(json_array_get(json_object_get(p, "kernels"), 1), "occupancy_limiter",
                        json_string("warps"));
    CHECK_INT_EQ(decode_profile(p, out, &r), BW_ERR_INVALID);
    CHECK_STR_EQ(r.path, "result.profile.kernels[1].occupancy_limiter");
    CHECK(strstr(r.message, "registers, shared memory, threads per block") != NULL);
    p = json_deep_copy(fixture);
    json_object_set_new(json_array_get(json_object_get(p, "kernels"), 0), "grid",
                        json_pack("[i, i]", 1, 1));
    CHECK_INT_EQ(decode_profile(p, out, &r), BW_ERR_INVALID);
    CHECK_STR_EQ(r.path, "result.profile.kernels[0].grid");
    p = json_deep_copy(fixture);
    json_object_set_new(json_array_get(json_object_get(p, "kernels"), 0), "launch",
                        json_integer(BW_MAX_LAUNCHES));
    CHECK_INT_EQ(decode_profile(p, out, &r), BW_ERR_INVALID);
    CHECK_STR_EQ(r.path, "result.profile.kernels[0].launch");
    CHECK_INT_EQ(decode_profile(json_pack("{s:s}", "available", "yes"), out, &r), BW_ERR_INVALID);
    CHECK_STR_EQ(r.path, "result.profile.available");
    decode_profile(NULL, out, &r);
    json_decref(fixture);
    free(out);
}
