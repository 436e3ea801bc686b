/*
 * Replays the fuzz corpora (tests/fuzz/corpus/expr/ and directive/, seeds and
 * every input a fuzzer found) through the fuzz targets' own bodies, so each
 * property the fuzzers check is also checked by `make test`, with or without
 * clang. The golden directive files are replayed as well.
 */
#include "tests/test.h"

#include <dirent.h>
#include <stdlib.h>

#include "tests/fuzz/fuzz.h"
#include "tests/fuzz/fuzz_directive.c"
#include "tests/fuzz/fuzz_expr.c"

/* Runs fn on every regular file of dir; returns how many it ran. */
static int replay_dir(const char *dir, int (*fn)(const uint8_t *, size_t))
{
    DIR *d = opendir(dir);
    struct dirent *e;
    int count = 0;

    CHECK_MSG(d != NULL, "cannot open %s", dir);
    if (!d)
        return 0;
    while ((e = readdir(d)) != NULL) {
        char *path, *data = NULL, *cause = NULL;
        size_t len;

        if (e->d_name[0] == '.')
            continue;
        path = path_join(dir, e->d_name);
        if (path && read_file(path, 1 << 20, &data, &len, &cause) == BW_OK) {
            CHECK_MSG(fn((const uint8_t *)data, len) == 0, "%s violates a fuzz property", path);
            count++;
        } else {
            CHECK_MSG(false, "cannot read %s/%s: %s", dir, e->d_name, cause ? cause : "?");
        }
        free(data);
        free(cause);
        free(path);
    }
    closedir(d);
    return count;
}

TEST(fuzz_replay_expr_corpus)
{
    CHECK(replay_dir("tests/fuzz/corpus/expr", fuzz_expr_one) >= 30);
}

TEST(fuzz_replay_directive_corpus)
{
    CHECK(replay_dir("tests/fuzz/corpus/directive", fuzz_directive_one) >= 30);
    CHECK(replay_dir("tests/golden/directives", fuzz_directive_one) >= 20);
}

/* Every prefix of a valid plan is also handled (the fuzzers' favourite cut). */
TEST(fuzz_replay_prefixes)
{
    const char *plan =
        "// @const B=256\n// @tune T=(1, 2)\n// @scratch ws fp32[cdiv(n, B)]\n"
        "// @flags --use_fast_math\n"
        "// @launch k grid=(cdiv(n, B), 2) block=(B) smem=(4 * B) args=(x, ws, -1)\n";
    const char *expr = "max(cdiv(n, min(BLOCK, 128)), -1) * 2 + 1.5e-3 % (M - K)";
    size_t i;

    for (i = 0; i <= strlen(plan); i++)
        CHECK_MSG(fuzz_directive_one((const uint8_t *)plan, i) == 0, "prefix %zu", i);
    for (i = 0; i <= strlen(expr); i++)
        CHECK_MSG(fuzz_expr_one((const uint8_t *)expr, i) == 0, "prefix %zu", i);
}
