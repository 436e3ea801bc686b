/*
 * test.h - the tiny unit-test harness of Blockwise (in the spirit of redis').
 *
 * A test file defines tests with TEST(name) { ... } and checks with CHECK*.
 * A test passes when none of its checks failed; SKIP("why") ends it as
 * skipped. tests/test_main.c runs every registered test (or those whose name
 * contains argv[1]) and ends with the line "N passed, N failed, N skipped",
 * which tests/run-suite.sh adds up across binaries. Tests run from the
 * repository root, so they may open problems/ and tests/golden/ directly.
 *
 * A binary runs under one wall-clock deadline (BW_TEST_DEADLINE_S, set by
 * tests/run-suite.sh; see test_main.c): a test still running when it passes
 * is reported as "FAIL <name>: timed out" and counted as failed. So a test
 * never waits for something unbounded: it polls for a state with a deadline
 * of its own and fails with what it last saw. A test that forks a child that
 * may outlive it (a server) makes the child die with it (PR_SET_PDEATHSIG).
 */
#ifndef BW_TEST_H
#define BW_TEST_H

#include <stdbool.h>
#include <stdio.h>
#include <string.h>

typedef void (*test_fn)(void);

void test_register(const char *name, test_fn fn);
void test_fail(const char *file, int line, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
void test_skip(const char *why);
/* True once the current test has failed; lets a test stop early. */
bool test_failed(void);

#define TEST(name)                                                                                 \
    static void name(void);                                                                        \
    __attribute__((constructor)) static void register_##name(void)                                 \
    {                                                                                              \
        test_register(#name, name);                                                                \
    }                                                                                              \
    static void name(void)

#define CHECK(cond)                                                                                \
    do {                                                                                           \
        if (!(cond))                                                                               \
            test_fail(__FILE__, __LINE__, "%s", #cond);                                            \
    } while (0)

#define CHECK_MSG(cond, ...)                                                                       \
    do {                                                                                           \
        if (!(cond))                                                                               \
            test_fail(__FILE__, __LINE__, __VA_ARGS__);                                            \
    } while (0)

#define CHECK_INT_EQ(a, b)                                                                         \
    do {                                                                                           \
        long long a_ = (long long)(a), b_ = (long long)(b);                                        \
        if (a_ != b_)                                                                              \
            test_fail(__FILE__, __LINE__, "%s == %s: %lld != %lld", #a, #b, a_, b_);               \
    } while (0)

#define CHECK_STR_EQ(a, b)                                                                         \
    do {                                                                                           \
        const char *a_ = (a), *b_ = (b);                                                           \
        if (!a_ || !b_ || strcmp(a_, b_) != 0)                                                     \
            test_fail(__FILE__, __LINE__, "%s == %s: \"%s\" != \"%s\"", #a, #b,                    \
                      a_ ? a_ : "(null)", b_ ? b_ : "(null)");                                     \
    } while (0)

/* Checks that haystack contains needle. */
#define CHECK_CONTAINS(hay, needle)                                                                \
    do {                                                                                           \
        const char *h_ = (hay), *n_ = (needle);                                                    \
        if (!h_ || !strstr(h_, n_))                                                                \
            test_fail(__FILE__, __LINE__, "%s contains \"%s\": got \"%s\"", #hay, n_,              \
                      h_ ? h_ : "(null)");                                                         \
    } while (0)

#define SKIP(why)                                                                                  \
    do {                                                                                           \
        test_skip(why);                                                                            \
        return;                                                                                    \
    } while (0)

#endif
