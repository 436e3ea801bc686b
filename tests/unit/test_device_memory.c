/* Tests of judge/worker/device_memory: reservations within the GPU's memory, first come first
 * served, and a call larger than the capacity going alone. The runners' side (the fake device's
 * memory shared by runner processes) is in test_runner.c. */
#include "tests/test.h"

#include <pthread.h>
#include <unistd.h>

#include "common/limits.h"
#include "common/util.h"
#include "judge/worker/device_memory.h"
#include "common/banned.h"

/* A total whose capacity (less 1/BW_DEVICE_MEMORY_RESERVE_PART) is exactly 700 units. */
#define TOTAL     (700ull * BW_DEVICE_MEMORY_RESERVE_PART / (BW_DEVICE_MEMORY_RESERVE_PART - 1))
#define WAIT_LONG 3000 /* ms: a poll's own deadline */

struct taker {
    uint64_t bytes;
    pthread_t th;
    double waited_ms;
    int done; /* atomic */
};

static void *take(void *arg)
{
    struct taker *t = arg;

    t->waited_ms = device_memory_reserve(t->bytes);
    __atomic_store_n(&t->done, 1, __ATOMIC_RELEASE);
    return NULL;
}

static void start_taker(struct taker *t, uint64_t bytes)
{
    t->bytes = bytes;
    t->done = 0;
    CHECK(pthread_create(&t->th, NULL, take, t) == 0);
}

static bool taken(struct taker *t)
{
    return __atomic_load_n(&t->done, __ATOMIC_ACQUIRE) != 0;
}

/* Polls until `n` callers wait (or WAIT_LONG passes); the count seen. */
static int waiting_reaches(int n)
{
    struct device_memory_state st;
    double t0 = now_ms();

    do {
        device_memory_state(&st);
        if (st.waiting >= n)
            break;
        usleep(1000);
    } while (now_ms() - t0 < WAIT_LONG);
    return st.waiting;
}

static void join(struct taker *t)
{
    pthread_join(t->th, NULL);
}

TEST(device_memory_without_a_total_nothing_waits)
{
    struct device_memory_state st;

    device_memory_reset();
    CHECK(device_memory_reserve(1ull << 60) == 0);
    CHECK(device_memory_reserve(1ull << 60) == 0);
    device_memory_state(&st);
    CHECK(st.capacity == 0 && st.waits == 0);
    device_memory_release(1ull << 60);
    device_memory_release(1ull << 60);
    device_memory_reset();
}

TEST(device_memory_a_call_that_does_not_fit_waits_for_a_release)
{
    struct device_memory_state st;
    struct taker t;

    device_memory_reset();
    device_memory_set_total(TOTAL);
    device_memory_set_total(TOTAL * 2); /* the first total stays */
    device_memory_state(&st);
    CHECK_INT_EQ(st.capacity, 700);
    CHECK(device_memory_reserve(600) == 0);
    CHECK(device_memory_reserve(100) == 0); /* exactly full */
    start_taker(&t, 50);
    CHECK_INT_EQ(waiting_reaches(1), 1);
    usleep(50 * 1000);
    CHECK_MSG(!taken(&t), "50 more fitted beside 700 of 700");
    device_memory_release(600);
    join(&t);
    CHECK_MSG(t.waited_ms >= 40, "waited %.1f ms; the release came after 50 ms", t.waited_ms);
    device_memory_state(&st);
    CHECK_INT_EQ(st.reserved, 150);
    CHECK_INT_EQ(st.waits, 1);
    device_memory_release(150);
    device_memory_reset();
}

/* The first waiter goes first: a small call that would fit does not pass a large one waiting. */
TEST(device_memory_first_come_first_served)
{
    struct taker big, small;

    device_memory_reset();
    device_memory_set_total(TOTAL);
    CHECK(device_memory_reserve(600) == 0);
    start_taker(&big, 500);
    CHECK_INT_EQ(waiting_reaches(1), 1);
    start_taker(&small, 50);
    CHECK_INT_EQ(waiting_reaches(2), 2);
    usleep(50 * 1000);
    CHECK_MSG(!taken(&small), "50 passed a call of 500 that waited before it");
    device_memory_release(600);
    join(&big);
    join(&small);
    device_memory_release(550);
    device_memory_reset();
}

/* A call larger than the capacity goes alone: once nothing is reserved, and nothing goes beside
 * it. */
TEST(device_memory_a_call_larger_than_the_device_goes_alone)
{
    struct taker huge, next;

    device_memory_reset();
    device_memory_set_total(TOTAL);
    CHECK(device_memory_reserve(10) == 0);
    start_taker(&huge, 5000);
    CHECK_INT_EQ(waiting_reaches(1), 1);
    device_memory_release(10);
    join(&huge);
    start_taker(&next, 1);
    CHECK_INT_EQ(waiting_reaches(1), 1);
    usleep(50 * 1000);
    CHECK_MSG(!taken(&next), "a call went beside one larger than the device");
    device_memory_release(5000);
    join(&next);
    device_memory_release(1);
    device_memory_reset();
}
