/*
 * The unit-test harness itself (tests/test_main.c): a binary whose deadline
 * (BW_TEST_DEADLINE_S) passes while a test runs reports that test as failed
 * by name, with the summary line, instead of hanging; a bad deadline is a
 * usage error. The checks run this binary again on its two targets.
 */
#include "tests/test.h"

#include <stdlib.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "common/buf.h"
#include "common/banned.h"

#define TARGET_ENV "BW_TEST_HARNESS_TARGET"

/* The two targets run only inside the checks below (TARGET_ENV set). */
TEST(harness_target_passes)
{
    if (!getenv(TARGET_ENV))
        SKIP("a target of deadline_names_the_test_that_hangs");
    CHECK(1);
}

TEST(harness_target_hangs)
{
    if (!getenv(TARGET_ENV))
        SKIP("a target of deadline_names_the_test_that_hangs");
    for (;;)
        pause();
}

static double mono_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* Runs this binary on the targets with BW_TEST_DEADLINE_S=deadline; returns
 * its output (new) and exit status; a run past limit_s is killed (a check of
 * deadlines must not hang either). */
static char *run_targets(const char *deadline, int limit_s, int *status)
{
    char self[4096], cmd[4400];
    ssize_t n = readlink("/proc/self/exe", self, sizeof(self) - 1);
    if (n <= 0)
        return NULL;
    self[n] = '\0';
    snprintf(cmd, sizeof(cmd),
             "%s=1 BW_TEST_DEADLINE_S='%s' timeout -k 2 %d '%s' harness_target 2>&1; "
             "echo \"exit=$?\"",
             TARGET_ENV, deadline, limit_s, self);
    FILE *p = popen(cmd, "r");
    if (!p)
        return NULL;
    struct buf b;
    buf_init(&b, 1 << 16);
    char chunk[1024];
    size_t got;
    while ((got = fread(chunk, 1, sizeof(chunk), p)) > 0)
        buf_append(&b, chunk, got);
    pclose(p);
    char *out = buf_detach(&b);
    const char *e = out ? strstr(out, "exit=") : NULL;
    *status = e ? (int)strtol(e + 5, NULL, 10) : -1;
    return out;
}

TEST(deadline_names_the_test_that_hangs)
{
    int status = 0;
    double t0 = mono_s();
    char *out = run_targets("1", 20, &status);
    double took = mono_s() - t0;

    CHECK_CONTAINS(out, "ok   harness_target_passes\n");
    CHECK_CONTAINS(out, "FAIL harness_target_hangs: timed out: this binary's deadline of 1 s "
                        "(BW_TEST_DEADLINE_S) passed while it ran\n");
    CHECK_CONTAINS(out, "\n1 passed, 1 failed, 0 skipped\nexit=1");
    CHECK_INT_EQ(status, 1); /* not 124: the binary ended itself */
    CHECK_MSG(took < 10, "the timed-out run took %.1f s", took);
    free(out);
}

TEST(deadline_must_be_whole_seconds)
{
    int status = 0;
    char *out = run_targets("soon", 20, &status);

    CHECK_CONTAINS(out, "BW_TEST_DEADLINE_S=soon: expected whole seconds in 0..86400 (0: none)");
    CHECK_INT_EQ(status, 2);
    CHECK(!strstr(out, "harness_target"));
    free(out);
}
