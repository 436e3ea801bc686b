/*
 * Tests of judge/runner_pool: runners started ahead by the pool's thread,
 * spares never reused, reference runners lent and kept while alive, start
 * failures handed to the waiter instead of a hang, and the GPU gate. The
 * runners are the real blockwise-runner on the fake driver
 * (BUILD/tests/fake/libcuda.so.1), through a wrapper script that gives it
 * LD_LIBRARY_PATH (a runner is exec'd with an empty environment).
 */
#include "tests/test.h"

#include <limits.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "common/error.h"
#include "common/util.h"
#include "judge/worker/runner_pool.h"
#include "common/banned.h"

/* Points BLOCKWISE_RUNNER at a wrapper running the real runner on the fake
 * driver; false with a reason when the build lacks either. */
static bool use_fake_runner(char *why, size_t cap)
{
    static char wrapper[PATH_MAX];
    char *dir = exe_dir(), runner[PATH_MAX], fake[PATH_MAX], text[3 * PATH_MAX];

    if (!dir) {
        snprintf(why, cap, "cannot find the test's directory");
        return false;
    }
    snprintf(runner, sizeof(runner), "%s/../bin/blockwise-runner", dir);
    snprintf(fake, sizeof(fake), "%s/fake/libcuda.so.1", dir);
    if (access(runner, X_OK) != 0 || access(fake, R_OK) != 0) {
        snprintf(why, cap, "needs make all (%.200s and %.200s)", runner, fake);
        free(dir);
        return false;
    }
    snprintf(fake, sizeof(fake), "%s/fake", dir);
    free(dir);
    if (!wrapper[0]) {
        snprintf(wrapper, sizeof(wrapper), "/tmp/bw-test-pool-%d.sh", (int)getpid());
        snprintf(text, sizeof(text), "#!/bin/sh\nLD_LIBRARY_PATH=%s exec %s \"$@\"\n", fake,
                 runner);
        if (write_file_atomic(wrapper, text, strlen(text), NULL) || chmod(wrapper, 0755)) {
            snprintf(why, cap, "cannot write %.400s", wrapper);
            return false;
        }
    }
    setenv("BLOCKWISE_RUNNER", wrapper, 1);
    return true;
}

TEST(pool_hands_out_fresh_submission_runners_and_refills)
{
    struct runner_pool_options o = {.spares = 2, .references = 1};
    struct runner_pool *pool = NULL;
    struct runner *a = NULL, *b = NULL, *c = NULL;
    char why[512], *cause = NULL;

    if (!use_fake_runner(why, sizeof(why)))
        SKIP(why);
    CHECK_INT_EQ(runner_pool_new(&o, &pool, &cause), BW_OK);
    CHECK_INT_EQ(runner_pool_take_submission(pool, &a, &cause), BW_OK);
    CHECK_INT_EQ(runner_pool_take_submission(pool, &b, &cause), BW_OK);
    CHECK_INT_EQ(runner_pool_take_submission(pool, &c, &cause), BW_OK);
    CHECK(a && b && c && a != b && b != c && a != c);
    CHECK(runner_alive(a) && runner_alive(b) && runner_alive(c));
    CHECK(runner_pid(a) != runner_pid(b));
    /* three taken, one reference and (soon) two spares again: started >= 5 */
    for (int i = 0; i < 200 && runner_pool_started(pool) < 6; i++)
        usleep(10 * 1000);
    CHECK(runner_pool_started(pool) >= 6);
    runner_free(a);
    runner_free(b);
    runner_free(c);
    runner_pool_free(pool);
    free(cause);
}

/* The BW_POOL_STARTERS threads start side by side, but never more runners
 * than asked for: starts under way count. */
TEST(pool_starts_what_it_needs_and_no_more)
{
    struct runner_pool_options o = {.spares = 2, .references = 1};
    struct runner_pool *pool = NULL;
    struct runner *a = NULL;
    char why[512], *cause = NULL;

    if (!use_fake_runner(why, sizeof(why)))
        SKIP(why);
    CHECK_INT_EQ(runner_pool_new(&o, &pool, &cause), BW_OK);
    for (int i = 0; i < 500 && runner_pool_started(pool) < 3; i++)
        usleep(10 * 1000);
    usleep(300 * 1000);
    CHECK_INT_EQ(runner_pool_started(pool), 3); /* one reference, two spares */
    CHECK_INT_EQ(runner_pool_take_submission(pool, &a, &cause), BW_OK);
    for (int i = 0; i < 500 && runner_pool_started(pool) < 4; i++)
        usleep(10 * 1000);
    usleep(300 * 1000);
    CHECK_INT_EQ(runner_pool_started(pool), 4); /* the one taken, replaced once */
    runner_free(a);
    runner_pool_free(pool);
    free(cause);
}

TEST(pool_lends_a_reference_runner_and_replaces_a_dead_one)
{
    struct runner_pool_options o = {.spares = 0, .references = 1};
    struct runner_pool *pool = NULL;
    struct runner *r = NULL, *again = NULL;
    char why[512], *cause = NULL;
    pid_t first;

    if (!use_fake_runner(why, sizeof(why)))
        SKIP(why);
    CHECK_INT_EQ(runner_pool_new(&o, &pool, &cause), BW_OK);
    CHECK_INT_EQ(runner_pool_take_reference(pool, &r, &cause), BW_OK);
    first = runner_pid(r);
    runner_pool_return_reference(pool, r);
    CHECK_INT_EQ(runner_pool_take_reference(pool, &again, &cause), BW_OK);
    CHECK(again == r && runner_pid(again) == first); /* the same process, kept */
    kill(first, SIGKILL);                            /* dies while lent */
    usleep(100 * 1000);
    runner_pool_return_reference(pool, again); /* freed, not kept */
    CHECK_INT_EQ(runner_pool_take_reference(pool, &r, &cause), BW_OK);
    CHECK(r && runner_pid(r) != first && runner_alive(r));
    runner_pool_return_reference(pool, r);
    runner_pool_free(pool);
    free(cause);
}

TEST(pool_try_take_never_waits_and_starts_one_for_next_time)
{
    struct runner_pool_options o = {.spares = 0, .references = 1};
    struct runner_pool *pool = NULL;
    struct runner *r = NULL, *second = NULL;
    char why[512], *cause = NULL;

    if (!use_fake_runner(why, sizeof(why)))
        SKIP(why);
    CHECK_INT_EQ(runner_pool_new(&o, &pool, &cause), BW_OK);
    CHECK_INT_EQ(runner_pool_take_reference(pool, &r, &cause), BW_OK);
    double t0 = now_ms();
    CHECK(!runner_pool_try_take_reference(pool, &second)); /* none idle: no wait */
    CHECK(second == NULL && now_ms() - t0 < 50);
    CHECK(!runner_pool_try_take_reference(pool, &second)); /* still one start pending */
    for (int i = 0; i < 500 && runner_pool_started(pool) < 2; i++)
        usleep(10 * 1000);
    usleep(200 * 1000);
    CHECK_INT_EQ(runner_pool_started(pool), 2); /* started for next time, once */
    CHECK(runner_pool_try_take_reference(pool, &second));
    CHECK(second && second != r && runner_alive(second));
    runner_pool_return_reference(pool, second);
    runner_pool_return_reference(pool, r);
    runner_pool_free(pool);
    free(cause);
}

TEST(pool_start_failure_reaches_the_waiter)
{
    struct runner_pool_options o = {.spares = 1, .references = 0};
    struct runner_pool *pool = NULL;
    struct runner *r = NULL;
    char *cause = NULL;
    const char *old = getenv("BLOCKWISE_RUNNER");
    char *saved = old ? strdup(old) : NULL;

    setenv("BLOCKWISE_RUNNER", "/nonexistent/blockwise-runner", 1);
    CHECK_INT_EQ(runner_pool_new(&o, &pool, &cause), BW_OK);
    CHECK(runner_pool_take_submission(pool, &r, &cause) < 0);
    CHECK(r == NULL);
    CHECK_CONTAINS(cause, "/nonexistent/blockwise-runner");
    free(cause);
    cause = NULL;
    CHECK(runner_pool_take_reference(pool, &r, &cause) < 0); /* a second waiter: the same */
    runner_pool_free(pool);
    free(cause);
    cause = NULL;
    if (saved)
        setenv("BLOCKWISE_RUNNER", saved, 1);
    else
        unsetenv("BLOCKWISE_RUNNER");
    free(saved);
    CHECK_INT_EQ(runner_pool_new(&(struct runner_pool_options){.spares = BW_POOL_MAX_SPARES + 1},
                                 &pool, &cause),
                 BW_ERR_INVALID);
    free(cause);
}

struct gate_probe {
    struct runner_pool *pool;
    int *inside; /* shared holders inside now */
    int seen_with_writer;
    bool *writer_in;
    pthread_mutex_t *lock;
};

static void *shared_holder(void *arg)
{
    struct gate_probe *g = arg;

    for (int i = 0; i < 50; i++) {
        runner_pool_gate_enter(g->pool, false);
        pthread_mutex_lock(g->lock);
        (*g->inside)++;
        if (*g->writer_in)
            g->seen_with_writer++;
        pthread_mutex_unlock(g->lock);
        usleep(500);
        pthread_mutex_lock(g->lock);
        (*g->inside)--;
        pthread_mutex_unlock(g->lock);
        runner_pool_gate_leave(g->pool, false);
    }
    return NULL;
}

TEST(pool_gate_keeps_timing_alone)
{
    struct runner_pool_options o = {.spares = 0, .references = 0};
    struct runner_pool *pool = NULL;
    pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
    int inside = 0, overlaps = 0;
    bool writer_in = false;
    struct gate_probe probes[3];
    pthread_t th[3];
    char *cause = NULL;

    CHECK_INT_EQ(runner_pool_new(&o, &pool, &cause), BW_OK);
    for (int i = 0; i < 3; i++) {
        probes[i] = (struct gate_probe){pool, &inside, 0, &writer_in, &lock};
        pthread_create(&th[i], NULL, shared_holder, &probes[i]);
    }
    for (int k = 0; k < 20; k++) {
        runner_pool_gate_enter(pool, true);
        pthread_mutex_lock(&lock);
        writer_in = true;
        overlaps += inside;
        pthread_mutex_unlock(&lock);
        usleep(1000);
        pthread_mutex_lock(&lock);
        overlaps += inside;
        writer_in = false;
        pthread_mutex_unlock(&lock);
        runner_pool_gate_leave(pool, true);
        usleep(300);
    }
    for (int i = 0; i < 3; i++) {
        pthread_join(th[i], NULL);
        CHECK_INT_EQ(probes[i].seen_with_writer, 0);
    }
    CHECK_INT_EQ(overlaps, 0);
    runner_pool_free(pool);
    free(cause);
}

struct background_probe {
    struct runner_pool *pool;
    int quiet_ms, patience_ms;
    _Atomic long long entered_us; /* now_ms() * 1000 when it held the gate; 0 before */
    _Atomic long long rested_us;  /* what the entry said of the GPU's rest, * 1000 */
};

static void *background_holder(void *arg)
{
    struct background_probe *g = arg;
    double rested = runner_pool_gate_enter_background(g->pool, g->quiet_ms, g->patience_ms);

    atomic_store(&g->rested_us, (long long)(rested * 1000));
    atomic_store(&g->entered_us, (long long)(now_ms() * 1000));
    runner_pool_gate_leave(g->pool, true);
    return NULL;
}

static void background_start(struct background_probe *g, pthread_t *th, struct runner_pool *pool,
                             int quiet_ms, int patience_ms)
{
    g->pool = pool;
    g->quiet_ms = quiet_ms;
    g->patience_ms = patience_ms;
    atomic_store(&g->entered_us, 0);
    atomic_store(&g->rested_us, 0);
    pthread_create(th, NULL, background_holder, g);
}

static double entered_ms(struct background_probe *g)
{
    return (double)atomic_load(&g->entered_us) / 1000;
}

/* Background work (PyTorch's baseline) enters the gate after the judgings in progress, the
 * gate's holders and quiet_ms of a free gate, or once its patience is out; it says how long
 * the gate had been free. */
TEST(pool_gate_background_work_waits_for_judgings_and_quiet)
{
    struct runner_pool_options o = {.spares = 0, .references = 0};
    struct runner_pool *pool = NULL;
    struct background_probe g;
    pthread_t th;
    char *cause = NULL;
    double t0, rested;

    CHECK_INT_EQ(runner_pool_new(&o, &pool, &cause), BW_OK);
    if (!pool)
        return;
    /* a judging in progress: it waits for the judging's end */
    runner_pool_judging_begin(pool);
    t0 = now_ms();
    background_start(&g, &th, pool, 0, 10000);
    usleep(300 * 1000);
    CHECK_MSG(entered_ms(&g) == 0, "background work entered %.0f ms into a judging",
              entered_ms(&g) - t0);
    runner_pool_judging_end(pool);
    pthread_join(th, NULL);
    CHECK_MSG(entered_ms(&g) - t0 >= 300 && entered_ms(&g) - t0 < 5000,
              "background work entered %.0f ms after it asked (the judging ended at 300 ms)",
              entered_ms(&g) - t0);
    /* a judging that goes on: it enters when its patience is out */
    runner_pool_judging_begin(pool);
    t0 = now_ms();
    background_start(&g, &th, pool, 0, 200);
    pthread_join(th, NULL);
    CHECK_MSG(entered_ms(&g) - t0 >= 190 && entered_ms(&g) - t0 < 5000,
              "with 200 ms of patience, background work entered after %.0f ms",
              entered_ms(&g) - t0);
    runner_pool_judging_end(pool);
    /* a shared holder (a test's runner call), then 300 ms of quiet after it leaves */
    runner_pool_gate_enter(pool, false);
    background_start(&g, &th, pool, 300, 10000);
    usleep(200 * 1000);
    CHECK_MSG(entered_ms(&g) == 0, "background work entered beside a shared holder");
    runner_pool_gate_leave(pool, false);
    t0 = now_ms();
    pthread_join(th, NULL);
    rested = (double)atomic_load(&g.rested_us) / 1000;
    CHECK_MSG(entered_ms(&g) - t0 >= 290 && rested >= 290 && rested < 5000,
              "background work entered %.0f ms after the gate was free, saying it had rested "
              "%.0f ms (300 asked)",
              entered_ms(&g) - t0, rested);
    runner_pool_free(pool);
    free(cause);
}
