/*
 * fuzz_launcher.c - fuzz target of a Triton launcher's answer: the record the
 * Triton compile child sends for a launcher request (judge/worker/triton_launcher.h:
 * triton_launch_decode), then every recorded plan it holds checked against a
 * problem (plan/recorded.h: recorded_plan_build). The child runs the learner's
 * code after "accepted", so everything it says is untrusted.
 *
 * tests/unit/test_triton_launcher.c replays tests/fuzz/corpus/launcher/ through
 * fuzz_launcher_one() in `make test`. To fuzz (from the repository root):
 *
 *   clang -g -O1 -std=c11 -D_GNU_SOURCE -DBW_FUZZ_MAIN -I. -isystem /usr/local/cuda/include \
 *     -fsanitize=fuzzer,address,undefined -fno-sanitize-recover=undefined \
 *     -o build-fuzz/fuzz_launcher tests/fuzz/fuzz_launcher.c build/libworker.a build/libplan.a \
 *     build/libproblem.a build/libwire.a build/libsandbox.a build/libcommon.a \
 *     -ljansson -lseccomp -lcurl -ldl -lpthread -lm
 *   build-fuzz/fuzz_launcher -max_total_time=60 build-fuzz/corpus-launcher \
 *     tests/fuzz/corpus/launcher
 *
 * Properties beyond not crashing: a decoded recording's counts are within their
 * caps (configurations, launches, arguments, constexprs, scratch buffers, builds:
 * one per variant once "planned", none before);
 * every recorded plan that checks has its launches' buffer arguments inside
 * their buffers, grids within the GPU's limits and options in range; decoding
 * the same bytes twice gives the same recording.
 */
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/error.h"
#include "common/limits.h"
#include "judge/worker/triton_launcher.h"
#include "plan/recorded.h"
#include "problem/problem.h"
#include "common/banned.h"

int fuzz_launcher_one(const uint8_t *data, size_t size);

#define FAIL(...)                                                                                  \
    do {                                                                                           \
        fprintf(stderr, "fuzz_launcher: " __VA_ARGS__);                                            \
        fputc('\n', stderr);                                                                       \
        rc = -1;                                                                                   \
        goto done;                                                                                 \
    } while (0)

static const struct problem *fuzz_problem(void)
{
    static struct problem *p;
    static bool loaded;

    if (!loaded) {
        loaded = true;
        p = problem_load("tests/fixtures/problems/launcher-rows", NULL);
    }
    return p;
}

/* Checks a plan that recorded_plan_build accepted. */
static int plan_sound(const struct plan *pl)
{
    for (size_t l = 0; l < pl->n_launches; l++) {
        const struct plan_launch *L = &pl->launches[l];
        if (L->grid[0] < 1 || L->grid[1] < 1 || L->grid[1] > 65535 || L->grid[2] < 1 ||
            L->grid[2] > 65535 || L->num_warps < 1 || L->num_warps > 32 || L->n_args > 32)
            return -1;
        for (size_t a = 0; a < L->n_args; a++)
            if (L->args[a].kind == PLAN_ARG_BUF &&
                (L->args[a].buf < 0 || (size_t)L->args[a].buf >= pl->n_buffers ||
                 L->args[a].offset < 0 || L->args[a].offset > pl->buffers[L->args[a].buf].count))
                return -1;
    }
    return 0;
}

int fuzz_launcher_one(const uint8_t *data, size_t size)
{
    const struct problem *p = fuzz_problem();
    size_t n_cases = p ? p->n_tests + p->n_benchmarks : 3;
    struct triton_launch_result r1, r2;
    struct plan *pl = malloc(sizeof(*pl));
    char *copy1 = malloc(size + 1), *copy2 = malloc(size + 1), *cause = NULL;
    bool a1, c1, a2, c2;
    int rc = 0, rc1, rc2;

    memset(&r1, 0, sizeof(r1));
    memset(&r2, 0, sizeof(r2));
    if (!pl || !copy1 || !copy2)
        goto done;
    memcpy(copy1, data, size);
    memcpy(copy2, data, size);
    copy1[size] = copy2[size] = '\0';
    rc1 = triton_launch_decode(copy1, size, n_cases, &r1, &a1, &c1, &cause);
    free(cause);
    cause = NULL;
    rc2 = triton_launch_decode(copy2, size, n_cases, &r2, &a2, &c2, &cause);
    if (rc1 != rc2 || a1 != a2 || c1 != c2 || r1.rec.n_configs != r2.rec.n_configs ||
        r1.n_keys != r2.n_keys || (r1.compiled.failure == NULL) != (r2.compiled.failure == NULL))
        FAIL("decoding the same bytes twice differs");
    if (rc1 != BW_OK)
        goto done;
    /* builds are read once "planned" says the variants are whole: one per variant, or none */
    if (r1.rec.n_configs > BW_MAX_TUNE_CONFIGS || r1.n_keys > BW_TRITON_MAX_KERNELS ||
        (r1.compiled.n_builds != r1.n_keys && r1.compiled.n_builds != 0))
        FAIL("%zu configurations, %zu keys, %zu builds", r1.rec.n_configs, r1.n_keys,
             r1.compiled.n_builds);
    for (size_t c = 0; c < r1.rec.n_configs; c++)
        for (size_t k = 0; k < r1.rec.n_cases; k++) {
            const struct recorded_plan *rp = recording_plan(&r1.rec, c, k);
            if (rp->n_launches > BW_MAX_LAUNCHES || rp->n_scratch > BW_MAX_SCRATCH)
                FAIL("a plan of %zu launches and %zu buffers", rp->n_launches, rp->n_scratch);
            for (size_t l = 0; l < rp->n_launches; l++)
                if (rp->launches[l].n_args > BW_MAX_LAUNCH_ARGS ||
                    rp->launches[l].n_constexprs > BW_MAX_LAUNCH_ARGS)
                    FAIL("a launch of %zu arguments", rp->launches[l].n_args);
            if (p && k < n_cases) {
                const struct problem_case *pc =
                    k < p->n_tests ? &p->tests[k] : &p->benchmarks[k - p->n_tests];
                free(cause);
                cause = NULL;
                if (recorded_plan_build(p, rp, pc, pl, &cause) == BW_OK && plan_sound(pl))
                    FAIL("a recorded plan checked but is not sound");
            }
        }
done:
    triton_launch_result_release(&r1);
    triton_launch_result_release(&r2);
    free(copy1);
    free(copy2);
    free(pl);
    free(cause);
    return rc;
}

#ifdef BW_FUZZ_MAIN
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (fuzz_launcher_one(data, size) != 0)
        abort();
    return 0;
}
#endif
