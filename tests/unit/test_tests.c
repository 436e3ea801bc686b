/* Tests of judge/tests and judge/checks: the words a Wrong Answer is told in, the deadline a
 * run gets, which tests are checked by sample, and the elements such a test checks. */
#include "tests/test.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "judge/worker/checks.h"
#include "judge/worker/tests.h"
#include "common/error.h"
#include "common/limits.h"
#include "common/banned.h"

static char *line(int64_t count, int64_t mismatches, int64_t unwritten)
{
    struct compare_report r = {.count = count, .mismatches = mismatches, .unwritten = unwritten};
    char *m = NULL;

    tests_mismatch_line(&r, "C", &m);
    return m;
}

TEST(tests_mismatch_line_says_never_written_and_differs)
{
    char *m;

    CHECK_STR_EQ(m = line(1000, 1000, 1000), "C was never written (all 1000 elements still hold "
                                             "the judge's 0xFF poison)");
    free(m);
    CHECK_STR_EQ(m = line(1, 1, 1),
                 "C was never written (its element still holds the judge's 0xFF poison)");
    free(m);
    CHECK_STR_EQ(m = line(1000, 500, 500), "500 of 1000 elements of C were never written");
    free(m);
    CHECK_STR_EQ(m = line(1000, 1, 1), "1 of 1000 elements of C was never written");
    free(m);
    CHECK_STR_EQ(m = line(1000, 1, 0), "1 element of C differs from the reference");
    free(m);
    CHECK_STR_EQ(m = line(1000, 7, 3), "7 elements of C differ from the reference");
    free(m);
}

TEST(tests_mismatch_line_says_checked_for_a_sample)
{
    struct compare_report r = {.count = 2147483777, .checked = 79000, .mismatches = 1};
    char *m = NULL;

    tests_mismatch_line(&r, "C", &m);
    CHECK_STR_EQ(m, "1 of 79000 checked elements of C differs from the reference");
    r.mismatches = 3;
    tests_mismatch_line(&r, "C", &m);
    CHECK_STR_EQ(m, "3 of 79000 checked elements of C differ from the reference");
    /* a sample of every element says what a full compare says */
    r.count = r.checked = 1000;
    tests_mismatch_line(&r, "C", &m);
    CHECK_STR_EQ(m, "3 elements of C differ from the reference");
    free(m);
}

/* The allowance as limits.h documents it: BW_HARNESS_BASE_MS, plus device bytes at
 * BW_HARNESS_DEVICE_BYTES_PER_MS and host bytes at BW_HARNESS_HOST_BYTES_PER_MS, in
 * microseconds (truncated), rounded up to the millisecond once. */
TEST(tests_allowance_is_the_documented_formula)
{
    CHECK_INT_EQ(BW_HARNESS_BASE_MS, 50);
    CHECK_INT_EQ(BW_HARNESS_DEVICE_BYTES_PER_MS, 20000000);
    CHECK_INT_EQ(BW_HARNESS_HOST_BYTES_PER_MS, 1000000);
    CHECK_INT_EQ(tests_allowance_ms(0, 0), 50);
    CHECK_INT_EQ(tests_allowance_ms(19999, 999), 50); /* under a microsecond each */
    CHECK_INT_EQ(tests_allowance_ms(20000, 0), 51);   /* 1 us rounds up to 1 ms */
    CHECK_INT_EQ(tests_allowance_ms(20000000, 0), 51);
    CHECK_INT_EQ(tests_allowance_ms(20000000, 1000000), 52);
    CHECK_INT_EQ(tests_allowance_ms(25000000000ull, 1000000), 50 + 1250 + 1);
}

/* A plan of vector-add's three fp32 buffers of n elements (x, y in; C out). */
static void vector_add_request(struct run_request *rq, uint64_t n)
{
    static const char *names[3] = {"A", "B", "C"};

    memset(rq, 0, sizeof(*rq));
    rq->plan.n_buffers = 3;
    for (int b = 0; b < 3; b++) {
        snprintf(rq->plan.buffers[b].name, sizeof(rq->plan.buffers[b].name), "%s", names[b]);
        rq->plan.buffers[b].dtype = DTYPE_FP32;
        rq->plan.buffers[b].count = n;
        rq->plan.buffers[b].role = b < 2 ? RUN_ROLE_IN : RUN_ROLE_OUT;
    }
}

TEST(tests_run_deadline_allows_for_the_case_bytes)
{
    struct run_request rq;

    /* A small case: the plan's limit, the fixed allowance and a millisecond for its
     * 3 x (4000 + 2 x 4096) bytes and 4000 returned (5 us). */
    vector_add_request(&rq, 1000);
    CHECK_INT_EQ(tests_run_deadline_ms(2000, &rq), 2051);
    /* vector-add's largest full check, N = 25000000: 3 x (1e8 + 2 x 4096) bytes on the
     * GPU (15001 us), 1e8 returned (100000 us): 115001 us -> 116 ms. */
    vector_add_request(&rq, 25000000);
    CHECK_INT_EQ(tests_harness_allowance_ms(&rq), 50 + 116);
    CHECK_INT_EQ(tests_run_deadline_ms(2000, &rq), 2166);
    /* Past 2^31, by sample: 3 x (4 x 2147483777 + 8192) bytes (1288491 us), 79000
     * indices sent and 79000 fp32 elements back (948 us): 1289439 us -> 1290 ms. */
    vector_add_request(&rq, 2147483777);
    rq.ret = RUN_RETURN_GATHER;
    rq.plan.n_gather = 1;
    rq.plan.gather[0] = (struct run_gather){2, 0, 79000};
    rq.n_indices = 79000;
    CHECK_INT_EQ(tests_harness_allowance_ms(&rq), 50 + 1290);
    CHECK_INT_EQ(tests_run_deadline_ms(2000, &rq), 3340);
    /* returned whole, the same case would allow 8.6 s more for its 8.6 GB */
    rq.ret = RUN_RETURN_FULL;
    CHECK_INT_EQ(tests_harness_allowance_ms(&rq), 50 + (1288491 + 8589935108 / 1000 + 999) / 1000);
    CHECK_INT_EQ(tests_run_deadline_ms(60000, &rq) > 60000, 1);
}

TEST(tests_case_sampled_only_past_the_full_check_limit)
{
    char *cause = NULL;
    struct problem *p = problem_load("problems/vector-add", &cause);
    size_t sampled = 0, last;

    CHECK_MSG(p != NULL, "%s", cause ? cause : "");
    if (!p) {
        free(cause);
        return;
    }
    last = p->n_tests - 1;
    CHECK_STR_EQ(p->tests[last].name, "past 2^31 N=2147483777");
    for (size_t i = 0; i < p->n_tests; i++)
        sampled += tests_case_sampled(p, &p->tests[i], 0);
    CHECK_INT_EQ(sampled, 1);
    CHECK(tests_case_sampled(p, &p->tests[last], 0));
    CHECK(tests_case_sampled(p, &p->tests[last], BW_FULL_CHECK_MAX_BYTES));
    /* 8589935108 bytes of C: sampled below that, whole at it */
    CHECK(tests_case_sampled(p, &p->tests[last], 8589935107ull));
    CHECK(!tests_case_sampled(p, &p->tests[last], 8589935108ull));
    /* a test's limit lowered to a byte: every case, N = 1 (4 bytes) too */
    CHECK(tests_case_sampled(p, &p->tests[0], 1));
    problem_free(p);
}

/* Sorted, each once, inside [0, count). */
static bool positions_ok(const int64_t *v, uint64_t n, int64_t count)
{
    for (uint64_t j = 0; j < n; j++)
        if (v[j] < 0 || v[j] >= count || (j > 0 && v[j] <= v[j - 1]))
            return false;
    return true;
}

/* How many of v[0..n) lie in [lo, hi). */
static uint64_t positions_in(const int64_t *v, uint64_t n, int64_t lo, int64_t hi)
{
    uint64_t k = 0;
    for (uint64_t j = 0; j < n; j++)
        k += v[j] >= lo && v[j] < hi;
    return k;
}

TEST(checks_test_positions_head_tail_windows_random)
{
    const int64_t count = 2147483777; /* vector-add's past 2^31: 2^31 + 129 fp32 elements */
    const int64_t w = BW_SAMPLED_WINDOW;
    uint64_t pick = 42, again = 42, n = 0, m = 0;
    int64_t *v = NULL, *u = NULL;
    char *cause = NULL;

    CHECK_INT_EQ(checks_test_positions(count, 4, &pick, &v, &n, &cause), BW_OK);
    CHECK(positions_ok(v, n, count));
    CHECK_INT_EQ(positions_in(v, n, 0, BW_SAMPLED_HEAD), BW_SAMPLED_HEAD);
    CHECK_INT_EQ(positions_in(v, n, count - BW_SAMPLED_TAIL, count), BW_SAMPLED_TAIL);
    CHECK_INT_EQ(v[n - 1], count - 1);
    /* the tail past the last full block of 256 or 1024 threads (129 elements), and
     * everything from 2^31 on, as the tail holds it */
    CHECK_INT_EQ(positions_in(v, n, 1ll << 31, count), 129);
    /* every 2^31 bytes of fp32: elements 2^29, 2^30, 3 x 2^29, W each side */
    for (int64_t b = 1ll << 29; b < count - BW_SAMPLED_TAIL; b += 1ll << 29)
        CHECK_INT_EQ(positions_in(v, n, b - w, b + w), 2 * w);
    /* and BW_CHECK_SAMPLES random ones: most of them elsewhere */
    CHECK(n <= checks_test_positions_max(count, 4));
    CHECK(n > BW_SAMPLED_HEAD + BW_SAMPLED_TAIL + 3 * 2 * w + BW_CHECK_SAMPLES - 100);
    /* the same stream chooses the same elements; another, others */
    CHECK_INT_EQ(checks_test_positions(count, 4, &again, &u, &m, &cause), BW_OK);
    CHECK(m == n && memcmp(u, v, n * sizeof(*v)) == 0);
    free(u);
    again = 43;
    CHECK_INT_EQ(checks_test_positions(count, 4, &again, &u, &m, &cause), BW_OK);
    CHECK(m != n || memcmp(u, v, n * sizeof(*v)) != 0);
    free(u);
    free(v);

    /* fp64 elements: 2^31 bytes every 2^28 elements */
    pick = 7;
    CHECK_INT_EQ(checks_test_positions(count, 8, &pick, &v, &n, &cause), BW_OK);
    CHECK(positions_ok(v, n, count));
    for (int64_t b = 1ll << 28; b < count - BW_SAMPLED_TAIL; b += 1ll << 28)
        CHECK_INT_EQ(positions_in(v, n, b - w, b + w), 2 * w);
    free(v);

    /* few elements: every one of them */
    pick = 1;
    CHECK_INT_EQ(checks_test_positions(4099, 4, &pick, &v, &n, &cause), BW_OK);
    CHECK_INT_EQ(n, 4099);
    CHECK(positions_ok(v, n, 4099));
    free(v);
    /* just over what the head, tail and samples take: not every one */
    int64_t just = (int64_t)checks_test_positions_max(300007, 4) + 1;
    CHECK_INT_EQ(checks_test_positions_max(300007, 4),
                 BW_SAMPLED_HEAD + BW_SAMPLED_TAIL + BW_CHECK_SAMPLES);
    CHECK_INT_EQ(checks_test_positions(just, 4, &pick, &v, &n, &cause), BW_OK);
    CHECK(n < (uint64_t)just && positions_ok(v, n, just));
    free(v);
    free(cause);
}
