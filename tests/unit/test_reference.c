/* Tests of judge/worker/reference.c's kept expected outputs (reference_keep): what a judging keeps
 * of its first configuration's tests for the next ones. The pipe that lends them runs end to end
 * in tests/cpu/judge-fake.sh. */
#include "tests/test.h"

#include <stdlib.h>
#include <sys/mman.h>

#include "common/limits.h"
#include "judge/worker/reference.h"
#include "judge/worker/session.h"
#include "problem/problem.h"
#include "common/banned.h"

#define CASES      40
#define OUT_BYTES  4096
#define LENT_BYTES (64ull << 20) /* a lent buffer grown for a large case, or kept from another */

/* Outputs returned into a far larger lent buffer count as their own bytes: 40 cases of 4 KiB
 * are all kept (counting the 64 MiB buffer each came in, 4 fitted BW_REFERENCE_KEEP_BYTES). */
TEST(reference_keep_counts_the_outputs_not_the_buffer_they_came_in)
{
    struct problem_case tests[CASES];
    struct problem p;
    struct session s;
    struct plan pl;
    uint8_t *lent;
    size_t bytes = 0, kept;

    _Static_assert(CASES * LENT_BYTES > BW_REFERENCE_KEEP_BYTES, "the buffers would not fit");
    memset(tests, 0, sizeof(tests));
    memset(&p, 0, sizeof(p));
    memset(&s, 0, sizeof(s));
    memset(&pl, 0, sizeof(pl));
    p.tests = tests;
    p.n_tests = CASES;
    for (int i = 0; i < CASES; i++)
        tests[i].name = (char *)"case";
    s.p = &p;
    s.job = "test";
    /* never touched past the outputs: reserved, not committed */
    lent = mmap(NULL, LENT_BYTES, PROT_READ | PROT_WRITE,
                MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
    CHECK(lent != MAP_FAILED);
    if (lent == MAP_FAILED)
        return;
    for (int i = 0; i < CASES; i++) {
        struct expected e;

        memset(&e, 0, sizeof(e));
        memset(lent, i, OUT_BYTES);
        e.res.data = lent;
        e.res.data_len = LENT_BYTES;
        e.res.reply.n_outputs = 1;
        e.res.reply.outputs[0] = (struct run_output){.buf = 2, .offset = 0, .bytes = OUT_BYTES};
        e.buf[2] = lent;
        reference_keep(&s, (size_t)i, &pl, &e);
    }
    kept = reference_kept_cases(&s, &bytes);
    CHECK_MSG(kept == CASES && bytes == (size_t)CASES * OUT_BYTES,
              "%zu of %d cases kept, %zu bytes counted (their outputs: %d bytes each)", kept, CASES,
              bytes, OUT_BYTES);
    reference_keep_release(&s);
    munmap(lent, LENT_BYTES);
}
