/* Tests of judge/tests: the words a Wrong Answer is told in. */
#include "tests/test.h"

#include <stdlib.h>

#include "judge/worker/tests.h"
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
