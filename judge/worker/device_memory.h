/*
 * device_memory.h - the GPU's memory, shared by every runner of this judged.
 *
 * A worker's slots judge side by side, each with a submission runner and a
 * reference runner on the same GPU, and a test case can take tens of
 * gigabytes (vector-add's past-2^31 test: 26 GB of fp32 buffers, and its
 * reference's). Two such cases at once do not fit an 80 GB GPU: the second
 * allocation fails, a Judge Error a learner can do nothing about. So every
 * runner call that allocates (run, bench, profile: runner_client.c) first
 * reserves the bytes its buffers take here and releases them when its reply
 * has come; a call that does not fit waits, in the order the calls came, until
 * enough is released. A call larger than the whole capacity goes when nothing
 * else is reserved (alone it may still fit; if not, its failure is real).
 *
 * Reservations are held only while a runner works on its call, which never
 * waits for another reservation, so a wait always ends. The runner frees its
 * buffers just after its reply (runner_client.h), so the memory a release
 * gives back may be a few milliseconds late: a call that runs out of memory
 * all the same is tried again by the client (BW_RUNNER_OOM_RETRY_MS).
 *
 * The capacity is the device's memory less 1/BW_DEVICE_MEMORY_RESERVE_PART of
 * it, left to what is not reserved here: every runner's CUDA context and
 * harness, the kept runners, PyTorch's baseline measurements. It is set by
 * the first runner that starts (device_memory_set_total); until then nothing
 * waits. Thread-safe; one ledger per process (a judged drives one GPU).
 */
#ifndef BW_DEVICE_MEMORY_H
#define BW_DEVICE_MEMORY_H

#include <stdint.h>

/* Sets the device's total memory (the first call with a nonzero total wins). */
void device_memory_set_total(uint64_t total_bytes);

/* Reserves `bytes`, waiting while they do not fit; returns the milliseconds waited. */
double device_memory_reserve(uint64_t bytes);

/* Gives back `bytes` reserved before. */
void device_memory_release(uint64_t bytes);

struct device_memory_state {
    uint64_t capacity; /* bytes reservations may take together; 0: not set, nothing waits */
    uint64_t reserved; /* bytes reserved now */
    int waiting;       /* calls waiting now */
    uint64_t waits;    /* calls that have had to wait, since the start */
};

void device_memory_state(struct device_memory_state *out);

/* Forgets the total and every reservation (tests only: nothing may be reserved or waiting). */
void device_memory_reset(void);

#endif
