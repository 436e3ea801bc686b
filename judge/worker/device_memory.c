#include "device_memory.h"

#include <pthread.h>
#include <stdbool.h>

#include "common/limits.h"
#include "common/util.h"
#include "common/banned.h"

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t changed = PTHREAD_COND_INITIALIZER;
static uint64_t capacity; /* 0: unknown */
static uint64_t reserved;
static uint64_t next_ticket, serving; /* first come, first served: a large call is not starved */
static int waiting;
static uint64_t waits;

void device_memory_set_total(uint64_t total_bytes)
{
    pthread_mutex_lock(&lock);
    if (capacity == 0 && total_bytes > 0) {
        capacity = total_bytes - total_bytes / BW_DEVICE_MEMORY_RESERVE_PART;
        pthread_cond_broadcast(&changed);
    }
    pthread_mutex_unlock(&lock);
}

/* Whether a call of `bytes` may go now: it fits beside what is reserved, or nothing is. */
static bool fits(uint64_t bytes)
{
    return capacity == 0 || reserved == 0 || (reserved <= capacity && bytes <= capacity - reserved);
}

double device_memory_reserve(uint64_t bytes)
{
    double t0 = 0;
    uint64_t ticket;

    pthread_mutex_lock(&lock);
    ticket = next_ticket++;
    if (ticket != serving || !fits(bytes)) {
        t0 = now_ms();
        waiting++;
        waits++;
        while (ticket != serving || !fits(bytes))
            pthread_cond_wait(&changed, &lock);
        waiting--;
    }
    reserved += bytes;
    serving++;
    pthread_cond_broadcast(&changed); /* the next ticket may fit too */
    pthread_mutex_unlock(&lock);
    return t0 > 0 ? now_ms() - t0 : 0;
}

void device_memory_release(uint64_t bytes)
{
    pthread_mutex_lock(&lock);
    reserved = bytes > reserved ? 0 : reserved - bytes;
    pthread_cond_broadcast(&changed);
    pthread_mutex_unlock(&lock);
}

void device_memory_state(struct device_memory_state *out)
{
    pthread_mutex_lock(&lock);
    out->capacity = capacity;
    out->reserved = reserved;
    out->waiting = waiting;
    out->waits = waits;
    pthread_mutex_unlock(&lock);
}

void device_memory_reset(void)
{
    pthread_mutex_lock(&lock);
    capacity = reserved = 0;
    next_ticket = serving = 0;
    waiting = 0;
    waits = 0;
    pthread_mutex_unlock(&lock);
}
