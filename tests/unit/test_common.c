/* Tests of the small common modules: error, buf, util, verdict. */
#include "tests/test.h"

#include <errno.h>
#include <stdlib.h>

#include "common/buf.h"
#include "common/error.h"
#include "common/util.h"
#include "common/verdict.h"
#include "common/banned.h"

TEST(error_fail_and_wrap)
{
    char *cause = NULL;
    int rc = bw_fail(&cause, BW_ERR_INVALID, "bad %s", "thing");
    CHECK_INT_EQ(rc, BW_ERR_INVALID);
    CHECK_STR_EQ(cause, "bad thing");
    bw_wrap(&cause, rc, "file %d", 3);
    CHECK_STR_EQ(cause, "file 3: bad thing");
    free(cause);
    CHECK_INT_EQ(bw_fail(NULL, BW_ERR_LIMIT, "x"), BW_ERR_LIMIT);
    CHECK_STR_EQ(bw_strerror(BW_ERR_TIMEOUT), "timed out");
}

TEST(buf_cap_is_hard)
{
    struct buf b;
    buf_init(&b, 8);
    CHECK_INT_EQ(buf_puts(&b, "abcd"), BW_OK);
    CHECK_INT_EQ(buf_addf(&b, "%d", 1234), BW_OK);
    CHECK_INT_EQ(buf_putc(&b, 'x'), BW_ERR_LIMIT);
    CHECK_STR_EQ(b.data, "abcd1234");
    CHECK_INT_EQ(b.len, 8);
    char *s = buf_detach(&b);
    CHECK_STR_EQ(s, "abcd1234");
    free(s);
    CHECK(b.data == NULL && b.len == 0);
    s = buf_detach(&b);
    CHECK_STR_EQ(s, "");
    free(s);
}

TEST(parse_numbers_strictly)
{
    int64_t v;
    double d;
    CHECK(parse_i64("-42", &v) && v == -42);
    CHECK(!parse_i64("42x", &v));
    CHECK(!parse_i64("", &v));
    CHECK(!parse_i64("99999999999999999999", &v));
    CHECK(parse_double("1e-6", &d) && d == 1e-6);
    CHECK(!parse_double("inf", &d));
}

TEST(read_file_refuses_fifo_and_big_files)
{
    char *data = NULL, *cause = NULL;
    size_t len;
    CHECK_INT_EQ(read_file("Makefile", 10, &data, &len, &cause), BW_ERR_LIMIT);
    CHECK_CONTAINS(cause, "over the limit");
    free(cause);
    cause = NULL;
    CHECK_INT_EQ(read_file("/nonexistent/x", 10, &data, &len, &cause), BW_ERR_NOTFOUND);
    free(cause);
    cause = NULL;
    CHECK_INT_EQ(read_file("/dev/null", 10, &data, &len, &cause), BW_ERR_INVALID);
    free(cause);
}

TEST(path_join_and_identifiers)
{
    char *p = path_join("a/", "/b");
    CHECK_STR_EQ(p, "a/b");
    free(p);
    CHECK(is_identifier("BLOCK_M"));
    CHECK(!is_identifier("9x"));
    CHECK(!is_identifier("a-b"));
}

TEST(verdict_names_round_trip)
{
    CHECK_STR_EQ(verdict_name(VERDICT_TIME_LIMIT), "Time Limit");
    CHECK_STR_EQ(verdict_code(VERDICT_MEMORY_VIOLATION), "MV");
    CHECK_INT_EQ(verdict_parse("wrong answer"), VERDICT_WRONG_ANSWER);
    CHECK_INT_EQ(verdict_parse("RE"), VERDICT_RUNTIME_ERROR);
    CHECK_INT_EQ(verdict_parse("nope"), VERDICT_NONE);
}

/* monotonic_timespec: now_ms()'s instants as CLOCK_MONOTONIC deadlines, nanoseconds in range. */
TEST(monotonic_timespec_is_now_ms_clock)
{
    struct timespec t = monotonic_timespec(1234.5), now;
    double ms;

    CHECK(t.tv_sec == 1 && t.tv_nsec == 234500000L);
    t = monotonic_timespec(1999.9999999999);
    CHECK(t.tv_nsec >= 0 && t.tv_nsec < 1000000000L);
    t = monotonic_timespec(now_ms() + 50);
    clock_gettime(CLOCK_MONOTONIC, &now);
    ms = (double)(t.tv_sec - now.tv_sec) * 1000 + (double)(t.tv_nsec - now.tv_nsec) / 1e6;
    CHECK_MSG(ms > 40 && ms <= 50.5, "now_ms() + 50 is %.3f ms from CLOCK_MONOTONIC's now", ms);
}

/* A wait on a monotonic_cond_init condition ends at its monotonic_timespec deadline: on the
 * wall clock's condition the same deadline (seconds since boot) lies decades in the past. */
TEST(monotonic_cond_waits_until_its_deadline)
{
    pthread_mutex_t m = PTHREAD_MUTEX_INITIALIZER;
    pthread_cond_t c;
    double start = now_ms(), waited;
    struct timespec until = monotonic_timespec(start + 50);
    int rc;

    monotonic_cond_init(&c);
    pthread_mutex_lock(&m);
    do
        rc = pthread_cond_timedwait(&c, &m, &until);
    while (rc == 0); /* a spurious wake-up */
    pthread_mutex_unlock(&m);
    waited = now_ms() - start;
    CHECK(rc == ETIMEDOUT);
    CHECK_MSG(waited >= 49 && waited < 2000, "waited %.3f ms for a 50 ms deadline", waited);
    pthread_cond_destroy(&c);
}
