/*
 * fuzz_problem.c - libFuzzer target for problem_load().
 *
 * Each input becomes the problem.json of a fixed directory <tmp>/fuzz that
 * also holds the standard files and wrong/noop.cu, so inputs with "id":
 * "fuzz" and those controls get past the JSON into the per-case checks and
 * the file checks. Build and run from the repository root:
 *
 *   clang -g -O1 -fsanitize=fuzzer,address,undefined -std=c11 -D_GNU_SOURCE -I. \
 *       tests/fuzz/fuzz_problem.c $(find common -name '*.c') -ljansson -lm -o build/fuzz_problem
 *   mkdir -p build/fuzz-problem-new
 *   build/fuzz_problem -dict=tests/fuzz/problem.dict -max_len=16384 \
 *       -max_total_time=120 build/fuzz-problem-new tests/fuzz/corpus/problem
 *
 * Crashers (crash-*) are fixed, then copied into tests/fuzz/corpus/problem/,
 * which tests/unit/test_problem.c replays on every `make test`.
 */
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "common/problem.h"
#include "common/util.h"
#include "common/banned.h"

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static char *problem_dir; /* <tmp>/fuzz */
static char *json_path;   /* <tmp>/fuzz/problem.json */

static void put(const char *name, const char *text)
{
    char *path = path_join(problem_dir, name);
    FILE *f = path ? fopen(path, "w") : NULL;

    if (!f) {
        perror(name);
        abort();
    }
    fputs(text, f);
    fclose(f);
    free(path);
}

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
    char tmpl[] = "/tmp/bw-fuzz-problem.XXXXXX";
    char *root = mkdtemp(tmpl), *wrong;

    (void)argc;
    (void)argv;
    if (!root) {
        perror("mkdtemp");
        abort();
    }
    problem_dir = path_join(root, "fuzz");
    wrong = path_join(problem_dir, "wrong");
    json_path = path_join(problem_dir, "problem.json");
    if (!problem_dir || !wrong || !json_path || mkdir(problem_dir, 0755) || mkdir(wrong, 0755)) {
        perror("mkdir");
        abort();
    }
    free(wrong);
    put("statement.md", "# Fuzz\n");
    put("starter.cu", "// starter\n");
    put("reference.cu", "// reference\n");
    put("solution.cu", "// solution\n");
    put("wrong/noop.cu", "// noop\n");
    return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    int fd = open(json_path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
    struct problem *p;
    char *cause = NULL;

    if (fd < 0)
        abort();
    if (size && write(fd, data, size) != (ssize_t)size)
        abort();
    close(fd);
    p = problem_load(problem_dir, &cause);
    if (!p && !cause)
        abort(); /* every failure must say why */
    problem_free(p);
    free(cause);
    return 0;
}
