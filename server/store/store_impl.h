/*
 * store_impl.h - private to server/store: the store's structure and the
 * helpers its files share. Nothing outside the folder includes it.
 */
#ifndef BW_SERVER_STORE_STORE_IMPL_H
#define BW_SERVER_STORE_STORE_IMPL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "server/store/db.h"
#include "server/store/store.h"

struct store {
    struct db *db;
    store_signal_fn fn;
    void *arg;
};

/* A submission's mode as the API names it, "run", "submit" or "profile", from the row of
 * `submissions s`: a Profile is stored as mode 'run' with profile = 1 (schema.sql, migration 9). */
#define STORE_MODE_SQL "(CASE WHEN s.profile <> 0 THEN 'profile' ELSE s.mode END)"

/* Advisory-lock spaces (db_lock_key): events of one submission are appended
 * one at a time, so that their ids grow in commit order. */
enum { STORE_LOCK_EVENTS = 0x6277, STORE_LOCK_THROTTLE = 0x6278 };

/* A growable array of int64_t (the ids functions hand back): *new* v. */
struct id_list {
    int64_t *v;
    size_t n, cap;
};
int id_list_add(struct id_list *l, int64_t id, char **cause);

/* The round being served now, as SQL: the least round still queued, or when
 * none is, the greatest one taken so far (learners are served in turns). */
#define ROUND_NOW_SQL                                                                              \
    "COALESCE((SELECT MIN(round) FROM submissions WHERE state = 'queued'), "                       \
    "GREATEST((SELECT COALESCE(MAX(round), 0) FROM submissions WHERE state = 'judging'), "         \
    "(SELECT COALESCE(MAX(round), 0) FROM submissions WHERE state = 'done')))"

/* Locks submission `id`'s row for the transaction: the first step of every
 * change to a submission or its leases (queue.h). With `skip`, a row another
 * transaction holds is not waited for: *got says whether it was locked. */
int queue_lock_submission(struct db_conn *c, int64_t id, bool skip, bool *got, char **cause);

/* Ends every active lease of `worker` as 'lost' with `reason`, without
 * counting the attempt, requeueing the submissions (*ids new). In the
 * caller's transaction. */
int queue_drop_worker_on(struct db_conn *c, int64_t worker, const char *reason, int64_t **ids,
                         size_t *n, char **cause);

#endif
