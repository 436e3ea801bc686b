/*
 * test_main.c - runs the tests a binary registered; see test.h.
 *
 * Every binary runs under one wall-clock deadline, so that a test that hangs
 * (a lost child, a server that never answers) ends as a failure that names
 * itself instead of blocking the suite: BW_TEST_DEADLINE_S seconds from the
 * environment (tests/run-suite.sh sets it from its table of deadlines), else
 * TEST_DEFAULT_DEADLINE_S; 0 turns it off (a debugger session). When it
 * passes, SIGALRM's handler prints "FAIL <test>: timed out ..." and the
 * summary line with that test counted as failed, and exits with status 1.
 * The handler does not clean up what the test holds: tests that fork servers
 * make their children die with them (PR_SET_PDEATHSIG), and run-suite.sh
 * kills the binary's whole process group after its own deadline.
 *
 * A test that took TEST_SHOW_TIME_MS or more shows its time on its line
 * ("ok   name (2.3 s)"), which is how run-suite.sh's deadlines were measured.
 */
#include "test.h"

#include <signal.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

#include "common/util.h"
#include "common/banned.h"

#define MAX_TESTS               1024
#define TEST_DEFAULT_DEADLINE_S 600 /* a binary run by hand; run-suite.sh sets its own */
#define TEST_MAX_DEADLINE_S     86400
#define TEST_SHOW_TIME_MS       500

static struct {
    const char *name;
    test_fn fn;
} tests[MAX_TESTS];
static int n_tests;
static bool current_failed, current_skipped;
static const char *volatile current_name;
/* Read by the SIGALRM handler. */
static volatile sig_atomic_t n_passed, n_failed, n_skipped, deadline_s;
static double current_start_ms;

void test_register(const char *name, test_fn fn)
{
    if (n_tests == MAX_TESTS) {
        fprintf(stderr, "too many tests in one binary (max %d)\n", MAX_TESTS);
        exit(2);
    }
    tests[n_tests].name = name;
    tests[n_tests].fn = fn;
    n_tests++;
}

void test_fail(const char *file, int line, const char *fmt, ...)
{
    va_list ap;
    fprintf(stdout, "  %s:%d: %s: ", file, line, current_name);
    va_start(ap, fmt);
    vfprintf(stdout, fmt, ap);
    va_end(ap);
    fputc('\n', stdout);
    current_failed = true;
}

void test_skip(const char *why)
{
    fprintf(stdout, "  skip %s: %s\n", current_name, why);
    current_skipped = true;
}

bool test_failed(void)
{
    return current_failed;
}

static double mono_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec * 1000.0 + (double)ts.tv_nsec / 1e6;
}

/* ---- the deadline (async-signal-safe: write(2) and fixed buffers only) ---- */

struct sig_text {
    char data[512];
    size_t len;
};

static void sig_puts(struct sig_text *t, const char *s)
{
    while (s && *s && t->len < sizeof(t->data) - 1)
        t->data[t->len++] = *s++;
}

static void sig_putu(struct sig_text *t, long v)
{
    char digits[24];
    int n = 0;

    if (v < 0)
        v = 0;
    do {
        digits[n++] = (char)('0' + v % 10);
        v /= 10;
    } while (v > 0 && n < (int)sizeof(digits));
    while (n > 0 && t->len < sizeof(t->data) - 1)
        t->data[t->len++] = digits[--n];
}

static void on_deadline(int sig)
{
    struct sig_text t = {.len = 0};
    const char *name = current_name;
    ssize_t w;

    (void)sig;
    sig_puts(&t, "FAIL ");
    sig_puts(&t, name ? name : "(between tests)");
    sig_puts(&t, ": timed out: this binary's deadline of ");
    sig_putu(&t, deadline_s);
    sig_puts(&t, " s (BW_TEST_DEADLINE_S) passed while it ran\n");
    sig_putu(&t, n_passed);
    sig_puts(&t, " passed, ");
    sig_putu(&t, n_failed + 1);
    sig_puts(&t, " failed, ");
    sig_putu(&t, n_skipped);
    sig_puts(&t, " skipped\n");
    w = write(STDOUT_FILENO, t.data, t.len);
    (void)w;
    _exit(1);
}

/* Arms the deadline; an invalid BW_TEST_DEADLINE_S is a usage error. */
static void arm_deadline(void)
{
    const char *env = getenv("BW_TEST_DEADLINE_S");
    int64_t v = TEST_DEFAULT_DEADLINE_S;
    struct sigaction sa;

    if (env && (!parse_i64(env, &v) || v < 0 || v > TEST_MAX_DEADLINE_S)) {
        fprintf(stderr, "BW_TEST_DEADLINE_S=%s: expected whole seconds in 0..%d (0: none)\n", env,
                TEST_MAX_DEADLINE_S);
        exit(2);
    }
    deadline_s = (sig_atomic_t)v;
    if (v == 0)
        return;
    memset(&sa, 0, sizeof(sa));
    sa.sa_handler = on_deadline;
    sigemptyset(&sa.sa_mask);
    sigaction(SIGALRM, &sa, NULL);
    alarm((unsigned)v);
}

int main(int argc, char **argv)
{
    setvbuf(stdout, NULL, _IOLBF, 0);
    arm_deadline();
    for (int i = 0; i < n_tests; i++) {
        if (argc > 1 && !strstr(tests[i].name, argv[1]))
            continue;
        current_failed = current_skipped = false;
        current_start_ms = mono_ms();
        current_name = tests[i].name;
        tests[i].fn();
        double ms = mono_ms() - current_start_ms;
        char took[32] = "";
        if (ms >= TEST_SHOW_TIME_MS)
            snprintf(took, sizeof(took), " (%.1f s)", ms / 1000.0);
        if (current_failed) {
            printf("FAIL %s%s\n", tests[i].name, took);
            n_failed++;
        } else if (current_skipped) {
            n_skipped++;
        } else {
            printf("ok   %s%s\n", tests[i].name, took);
            n_passed++;
        }
        current_name = NULL;
    }
    alarm(0);
    printf("%d passed, %d failed, %d skipped\n", (int)n_passed, (int)n_failed, (int)n_skipped);
    return n_failed ? 1 : 0;
}
