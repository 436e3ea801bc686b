/* Tests of PyTorch's baseline without PyTorch or a GPU (judge/worker/baseline.h): the figures'
 * JSON and cache (keyed by problem version, GPU, PyTorch and the timing constants), the
 * driver's request, the figures beside a result and in its JSON, and the server's storage of
 * them (bench_results.pytorch_ms, submissions' and best's pytorch_speedup). The driver itself
 * runs in tests/cpu/baseline-fake.sh (a fake torch) and tests/gpu/baseline.sh (the H200). */
#include "tests/test.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "common/error.h"
#include "common/limits.h"
#include "common/util.h"
#include "judge/worker/baseline.h"
#include "judge/worker/judge_config.h"
#include "judge/worker/report.h"
#include "server/bodies.h"
#include "server/store/db.h"
#include "server/store/queue.h"
#include "server/store/store.h"
#include "common/banned.h"

static char *temp_dir(void)
{
    char tmpl[] = "/tmp/bw-test-baseline.XXXXXX";
    char *d = mkdtemp(tmpl);
    return d ? strdup(d) : NULL;
}

static void rm_rf(const char *dir)
{
    char cmd[512];
    snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
    if (system(cmd) != 0)
        fprintf(stderr, "cannot remove %s\n", dir);
}

static const char BUNDLE[] = "0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef";

/* Figures of two shapes, the second one failed. */
static void make_figures(struct baseline_figures *f, const char *torch)
{
    memset(f, 0, sizeof(*f));
    snprintf(f->bundle, sizeof(f->bundle), "%s", BUNDLE);
    snprintf(f->gpu_uuid, sizeof(f->gpu_uuid), "GPU-1234");
    snprintf(f->gpu_name, sizeof(f->gpu_name), "NVIDIA H200");
    snprintf(f->torch, sizeof(f->torch), "%s", torch);
    snprintf(f->python_ver, sizeof(f->python_ver), "3.12.3");
    f->measured_at = 1767225600;
    f->method = baseline_method_json();
    f->shapes = calloc(2, sizeof(*f->shapes));
    f->n_shapes = 2;
    f->shapes[0].name = strdup("2^28");
    f->shapes[0].median_ms = 0.75;
    f->shapes[0].p10_ms = 0.74;
    f->shapes[0].p90_ms = 0.77;
    f->shapes[0].samples = 23;
    f->shapes[0].rse = 0.004;
    snprintf(f->shapes[0].stop, sizeof(f->shapes[0].stop), "rse");
    f->shapes[1].name = strdup("1e8");
    f->shapes[1].error = strdup("RuntimeError: CUDA out of memory");
}

TEST(figures_json_round_trip)
{
    struct baseline_figures f, g;
    char *why = NULL;
    make_figures(&f, "2.11.0+cu130");
    json_t *j = baseline_figures_json(&f);
    CHECK(j != NULL);
    CHECK(baseline_figures_from_json(j, &g, &why));
    CHECK_STR_EQ(g.bundle, BUNDLE);
    CHECK_STR_EQ(g.torch, "2.11.0+cu130");
    CHECK_INT_EQ((long long)g.n_shapes, 2);
    CHECK(fabs(g.shapes[0].median_ms - 0.75) < 1e-12);
    CHECK_INT_EQ(g.shapes[0].samples, 23);
    CHECK_STR_EQ(g.shapes[0].stop, "rse");
    CHECK(g.shapes[1].error != NULL && strstr(g.shapes[1].error, "out of memory"));
    CHECK(json_equal(g.method, f.method));
    /* A malformed file is refused, not half read. */
    json_object_set_new(json_array_get(json_object_get(j, "shapes"), 0), "median_ms",
                        json_real(-1));
    baseline_figures_release(&g);
    CHECK(!baseline_figures_from_json(j, &g, &why));
    CHECK(why != NULL);
    free(why);
    json_decref(j);
    baseline_figures_release(&f);
}

TEST(method_is_the_judges)
{
    json_t *m = baseline_method_json();
    CHECK_INT_EQ(json_integer_value(json_object_get(m, "sets")), BW_BENCH_SETS);
    CHECK_INT_EQ(json_integer_value(json_object_get(m, "min_samples")), BW_BENCH_MIN_SAMPLES);
    CHECK_INT_EQ(json_integer_value(json_object_get(m, "max_samples")), BW_BENCH_MAX_SAMPLES);
    CHECK(json_real_value(json_object_get(m, "target_rse")) == BW_BENCH_TARGET_RSE);
    CHECK_INT_EQ(json_integer_value(json_object_get(m, "budget_ms")), BW_BENCH_BUDGET_MS);
    CHECK_INT_EQ(json_integer_value(json_object_get(m, "l2_flush_bytes")),
                 (long long)BW_L2_FLUSH_BYTES);
    CHECK(BW_L2_FLUSH_BYTES >= 2 * 60 * 1000 * 1000ULL); /* twice the H200's L2 */
    json_decref(m);
}

TEST(cache_keyed_by_version_gpu_torch_and_method)
{
    char *dir = temp_dir();
    struct baseline_figures f, g;
    char *cause = NULL, *path;
    make_figures(&f, "2.11.0");
    CHECK(baseline_cache_path(dir, "../x", "GPU-1") == NULL); /* no escaping the cache */
    CHECK(baseline_cache_path(dir, BUNDLE, "GPU/1") == NULL);
    CHECK_INT_EQ(baseline_cache_store(dir, &f, &cause), BW_OK);
    path = baseline_cache_path(dir, BUNDLE, "GPU-1234");
    CHECK(path && access(path, R_OK) == 0);
    CHECK(baseline_cache_load(dir, BUNDLE, "GPU-1234", "2.11.0", &g));
    CHECK_INT_EQ((long long)g.n_shapes, 2);
    baseline_figures_release(&g);
    /* Another PyTorch, another GPU, another problem version: measured again. */
    CHECK(!baseline_cache_load(dir, BUNDLE, "GPU-1234", "2.12.0", &g));
    CHECK(!baseline_cache_load(dir, BUNDLE, "GPU-9999", "2.11.0", &g));
    CHECK(!baseline_cache_load(dir, "fedcba", "GPU-1234", "2.11.0", &g));
    /* Figures taken with other timing constants: measured again. */
    json_object_set_new(f.method, "budget_ms", json_integer(1000));
    CHECK_INT_EQ(baseline_cache_store(dir, &f, &cause), BW_OK);
    CHECK(!baseline_cache_load(dir, BUNDLE, "GPU-1234", "2.11.0", &g));
    /* A file that is not figures: measured again. */
    CHECK_INT_EQ(write_file_atomic(path, "{\"format\": 1}", 13, &cause), BW_OK);
    CHECK(!baseline_cache_load(dir, BUNDLE, "GPU-1234", "2.11.0", &g));
    free(path);
    baseline_figures_release(&f);
    rm_rf(dir);
    free(dir);
    free(cause);
}

/* A result of two timed shapes, 0.5 ms and 1.0 ms. */
static void make_result(struct judge_result *r)
{
    memset(r, 0, sizeof(*r));
    r->verdict = VERDICT_ACCEPTED;
    r->executed = true;
    r->benches = calloc(2, sizeof(*r->benches));
    r->n_benches = 2;
    r->benches[0].name = strdup("2^28");
    r->benches[0].median_ms = 0.5;
    r->benches[1].name = strdup("1e8");
    r->benches[1].median_ms = 1.0;
}

TEST(figures_beside_the_result_and_its_json)
{
    struct baseline_figures f;
    struct judge_result r;
    make_figures(&f, "2.11.0");
    make_result(&r);
    /* A shape without PyTorch's time: the other one has it; the reason names the first. */
    baseline_attach_figures(&f, &r);
    CHECK(r.pytorch.attached);
    CHECK(!r.pytorch.measured);
    CHECK(fabs(r.benches[0].pytorch_ms - 0.75) < 1e-12);
    CHECK(r.benches[1].pytorch_ms == 0);
    CHECK(r.pytorch.reason && strstr(r.pytorch.reason, "no time on 1e8: RuntimeError"));
    CHECK(baseline_speedup(&r) == 0);
    json_t *j = judge_result_json(&r);
    json_t *b0 = json_array_get(json_object_get(j, "benches"), 0);
    json_t *b1 = json_array_get(json_object_get(j, "benches"), 1);
    CHECK(fabs(json_real_value(json_object_get(b0, "pytorch_ms")) - 0.75) < 1e-12);
    CHECK(fabs(json_real_value(json_object_get(b0, "pytorch_speedup")) - 1.5) < 1e-12);
    CHECK(json_is_null(json_object_get(b1, "pytorch_ms")));
    CHECK(json_is_null(json_object_get(b1, "pytorch_speedup")));
    json_t *pt = json_object_get(j, "pytorch");
    CHECK(json_is_false(json_object_get(pt, "measured")));
    CHECK(json_is_null(json_object_get(pt, "speedup")));
    CHECK_STR_EQ(json_string_value(json_object_get(pt, "torch")), "2.11.0");
    CHECK(strstr(json_string_value(json_object_get(pt, "method")), "L2 flushed") != NULL);
    json_decref(j);
    /* Both shapes timed: the geometric mean of 0.75/0.5 and 2.0/1.0 = sqrt(3). */
    free(f.shapes[1].error);
    f.shapes[1].error = NULL;
    f.shapes[1].median_ms = 2.0;
    f.shapes[1].samples = 10;
    baseline_attach_figures(&f, &r);
    CHECK(r.pytorch.measured);
    CHECK(r.pytorch.reason == NULL);
    CHECK(fabs(baseline_speedup(&r) - sqrt(3.0)) < 1e-12);
    j = judge_result_json(&r);
    CHECK(fabs(json_real_value(json_object_get(json_object_get(j, "pytorch"), "speedup")) -
               sqrt(3.0)) < 1e-12);
    json_decref(j);
    judge_result_release(&r);
    /* A result nobody attached PyTorch to (a Run, judged check): "pytorch" is null. */
    make_result(&r);
    j = judge_result_json(&r);
    CHECK(json_is_null(json_object_get(j, "pytorch")));
    json_decref(j);
    judge_result_release(&r);
    baseline_figures_release(&f);
}

TEST(service_without_pytorch_says_why)
{
    struct judge_config jc = {0};
    struct baseline_service_config c = {.jc = &jc};
    struct baseline_service *s = NULL;
    struct judge_result r;
    char *cause = NULL;
    jc.have_gpu = true;
    snprintf(c.found.reason, sizeof(c.found.reason),
             "PyTorch is not installed on this worker (import torch: ModuleNotFoundError)");
    CHECK_INT_EQ(baseline_service_new(&c, &s, &cause), BW_OK);
    make_result(&r);
    baseline_service_attach(s, BUNDLE, &r, 10);
    CHECK(r.pytorch.attached && !r.pytorch.measured);
    CHECK(r.pytorch.reason && strstr(r.pytorch.reason, "PyTorch is not installed on this worker"));
    judge_result_release(&r);
    /* A compile-only worker has no service. */
    make_result(&r);
    baseline_service_attach(NULL, BUNDLE, &r, 10);
    CHECK(r.pytorch.reason && strstr(r.pytorch.reason, "no GPU"));
    judge_result_release(&r);
    baseline_service_free(s);
    baseline_service_free(NULL);
}

TEST(request_has_every_shape_typed)
{
    char *cause = NULL;
    struct problem *p = problem_load("problems/dropout", &cause);
    CHECK_MSG(p != NULL, "%s", cause ? cause : "");
    if (!p)
        return;
    json_t *rq = baseline_request_json(p, NULL, "measure", &cause);
    CHECK(rq != NULL);
    json_t *shapes = json_object_get(rq, "shapes");
    CHECK_INT_EQ((long long)json_array_size(shapes), (long long)p->n_benchmarks);
    json_t *s0 = json_array_get(shapes, 0);
    CHECK_INT_EQ(json_integer_value(json_object_get(json_object_get(s0, "sizes"), "N")), 268435456);
    /* Integer scalars as integers (the seed), float ones as reals (p). */
    CHECK(json_is_integer(json_object_get(json_object_get(s0, "scalars"), "seed")));
    CHECK(json_is_real(json_object_get(json_object_get(s0, "scalars"), "p")));
    json_t *x = json_array_get(json_object_get(s0, "tensors"), 0);
    CHECK_STR_EQ(json_string_value(json_object_get(x, "name")), "x");
    CHECK_INT_EQ(json_integer_value(json_array_get(json_object_get(x, "shape"), 0)), 268435456);
    CHECK_STR_EQ(json_string_value(json_object_get(json_object_get(x, "gen"), "kind")),
                 "loguniform");
    CHECK(json_is_true(json_object_get(json_object_get(x, "gen"), "signed")));
    json_t *y = json_array_get(json_object_get(s0, "tensors"), 1);
    CHECK(json_object_get(y, "gen") == NULL); /* an output has no distribution */
    CHECK_INT_EQ(json_integer_value(json_object_get(json_object_get(rq, "method"), "sets")),
                 BW_BENCH_SETS);
    json_decref(rq);
    problem_free(p);
}

TEST(every_problem_has_a_baseline)
{
    const char *ids[] = {"vector-add",         "sgemm",         "sdpa", "flash-attention",
                         "kv-cache-append",    "dropout",       "rope", "cross-entropy",
                         "layernorm-backward", "split-k-matmul"};
    for (size_t i = 0; i < sizeof(ids) / sizeof(ids[0]); i++) {
        char path[256];
        snprintf(path, sizeof(path), "problems/%s/baseline.py", ids[i]);
        CHECK_MSG(access(path, R_OK) == 0, "%s is missing", path);
    }
}

/* ---- the server's side ---------------------------------------------------------------- */

static struct store *fixture(const char *path)
{
    char *cause = NULL;
    struct store *st = NULL;
    if (store_open(path, 4, &st, &cause) < 0) {
        free(cause);
        return NULL;
    }
    struct db *db = store_db(st);
    struct db_conn *c = db_acquire(db);
    db_exec(c,
            "INSERT INTO users(name, password, created_at) VALUES ('u','x',1);"
            "INSERT INTO problems(id, title, hash, loaded_at) VALUES ('p','P','h',1);"
            "INSERT INTO workers(name, token_hash, created_at, registered_at, can_execute) "
            "VALUES ('w','t',1,1,1);"
            "INSERT INTO worker_languages(worker_id, language, version) VALUES (1,'cuda','13.0');",
            NULL);
    for (int i = 0; i < 2; i++)
        db_run(c, NULL,
               "INSERT INTO submissions(user_id, problem_id, problem_hash, mode, source, seed, "
               "created_at, queued_at) VALUES (1,'p','h','submit','src',7,1,1)",
               "");
    db_release(db, c);
    return st;
}

TEST(server_parses_and_stores_pytorch)
{
    char *cause = NULL;
    struct api_error e = {0};
    struct wp_result *b = calloc(1, sizeof(*b));
    const char *ok = "{\"result\": {\"verdict\": \"AC\", \"executed\": true, \"benches\": ["
                     "{\"name\": \"a\", \"median_ms\": 1.0, \"pytorch_ms\": 2.0},"
                     "{\"name\": \"b\", \"median_ms\": 4.0, \"pytorch_ms\": null}]}}";
    json_t *j = body_parse_result(ok, strlen(ok), b, &e);
    CHECK(j != NULL);
    CHECK(b->benches[0].pytorch_ms == 2.0 && b->benches[1].pytorch_ms == 0);
    json_decref(j);
    const char *neg = "{\"result\": {\"verdict\": \"AC\", \"benches\": ["
                      "{\"name\": \"a\", \"median_ms\": 1.0, \"pytorch_ms\": -1}]}}";
    CHECK(body_parse_result(neg, strlen(neg), b, &e) == NULL);
    CHECK_STR_EQ(e.code, "invalid");

    char *dir = temp_dir();
    char *path = path_join(dir, "b.db");
    struct store *store = fixture(path);
    CHECK(store != NULL);
    if (!store)
        return;
    struct db *db = store_db(store);
    struct db_conn *c = db_acquire(db);
    struct job j1, j2;
    struct stored out;
    double v = 0;
    CHECK_INT_EQ(queue_claim(store, 1, true, 60, &j1, &cause), 1);
    CHECK_INT_EQ(queue_claim(store, 1, true, 60, &j2, &cause), 1);
    memset(b, 0, sizeof(*b));
    b->verdict = VERDICT_ACCEPTED;
    b->executed = true;
    b->message = "";
    b->gpu_name = "H200";
    b->score = 50;
    b->n_benches = 2;
    b->benches[0] = (struct wp_bench){.name = "a", .median_ms = 1.0, .pytorch_ms = 2.0};
    b->benches[1] = (struct wp_bench){.name = "b", .median_ms = 4.0, .pytorch_ms = 2.0};
    CHECK_INT_EQ(queue_store_result(store, 1, j1.lease, b, "{}", &out, &cause), BW_OK);
    /* x PyTorch = geometric mean of 2/1 and 2/4 = 1, per submission and in its best row. */
    struct db_stmt *st = NULL;
    CHECK_INT_EQ(
        db_prepare(c, &st, &cause, "SELECT pytorch_speedup FROM submissions WHERE id = 1", ""),
        BW_OK);
    CHECK_INT_EQ(db_step(st, &cause), DB_ROW);
    v = db_col_double(st, 0);
    db_finish(st);
    CHECK(fabs(v - 1.0) < 1e-12);
    CHECK_INT_EQ(db_prepare(c, &st, &cause, "SELECT pytorch_speedup FROM best", ""), BW_OK);
    CHECK_INT_EQ(db_step(st, &cause), DB_ROW);
    CHECK(fabs(db_col_double(st, 0) - 1.0) < 1e-12);
    db_finish(st);
    CHECK_INT_EQ(db_prepare(c, &st, &cause,
                            "SELECT pytorch_ms FROM bench_results WHERE submission_id = 1 "
                            "ORDER BY idx",
                            ""),
                 BW_OK);
    CHECK_INT_EQ(db_step(st, &cause), DB_ROW);
    CHECK(db_col_double(st, 0) == 2.0);
    db_finish(st);
    /* A faster Submit without PyTorch's time (a worker without PyTorch): best takes it, and
     * its x PyTorch is unknown (NULL), never a stale one. */
    b->benches[0].median_ms = 0.5;
    b->benches[1].pytorch_ms = 0;
    CHECK_INT_EQ(queue_store_result(store, 1, j2.lease, b, "{}", &out, &cause), BW_OK);
    CHECK_INT_EQ(
        db_prepare(c, &st, &cause, "SELECT submission_id, pytorch_speedup IS NULL FROM best", ""),
        BW_OK);
    CHECK_INT_EQ(db_step(st, &cause), DB_ROW);
    CHECK_INT_EQ(db_col_i64(st, 0), 2);
    CHECK_INT_EQ(db_col_i64(st, 1), 1);
    db_finish(st);
    job_release(&j1);
    job_release(&j2);
    db_release(db, c);
    store_close(store);
    rm_rf(dir);
    free(dir);
    free(path);
    free(b);
    free(cause);
}
