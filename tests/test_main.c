/* test_main.c - runs the tests a binary registered; see test.h. */
#include "test.h"

#include <stdarg.h>
#include <stdlib.h>

#include "../common/banned.h"

#define MAX_TESTS 1024

static struct {
    const char *name;
    test_fn fn;
} tests[MAX_TESTS];
static int n_tests;
static bool current_failed, current_skipped;
static const char *current_name;

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

int main(int argc, char **argv)
{
    int passed = 0, failed = 0, skipped = 0;

    setvbuf(stdout, NULL, _IOLBF, 0);
    for (int i = 0; i < n_tests; i++) {
        if (argc > 1 && !strstr(tests[i].name, argv[1]))
            continue;
        current_name = tests[i].name;
        current_failed = current_skipped = false;
        tests[i].fn();
        if (current_failed) {
            failed++;
            printf("FAIL %s\n", tests[i].name);
        } else if (current_skipped) {
            skipped++;
        } else {
            passed++;
            printf("ok   %s\n", tests[i].name);
        }
    }
    printf("%d passed, %d failed, %d skipped\n", passed, failed, skipped);
    return failed ? 1 : 0;
}
