/*
 * store_events.c - the live events of submissions in the store (store.h):
 * what event streams on every server read (server/sse.h).
 */
#include "server/store/store.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "server/store/db.h"
#include "server/store/store_impl.h"
#include "common/error.h"
#include "common/banned.h"

struct append_arg {
    int64_t submission, now, last;
    const struct store_event_in *ev;
    size_t n;
};

static int append_tx(struct db_conn *c, void *arg, char **cause)
{
    struct append_arg *a = arg;
    /* One submission's appends one at a time: its ids grow in commit order,
     * so that a reader resuming after id N misses none (PostgreSQL; SQLite
     * serialises every writer anyway). */
    int rc = db_lock_key(c, STORE_LOCK_EVENTS, a->submission, cause);
    for (size_t i = 0; rc == BW_OK && i < a->n; i++)
        rc = db_get_i64(c, &a->last, cause,
                        "INSERT INTO events(submission_id, name, data, final, at) "
                        "VALUES (?,?,?,?,?) RETURNING id",
                        "ittIi", a->submission, a->ev[i].name, a->ev[i].data,
                        a->ev[i].final ? 1 : 0, a->now);
    char payload[48];
    snprintf(payload, sizeof(payload), "%lld:%lld", (long long)a->submission, (long long)a->last);
    if (rc == BW_OK)
        rc = db_signal(c, "bw_events", payload, cause);
    return rc;
}

int store_events_append(struct store *st, int64_t submission, const struct store_event_in *ev,
                        size_t n, int64_t now, int64_t *last, char **cause)
{
    struct append_arg a = {submission, now, 0, ev, n};
    int rc = n ? db_tx(st->db, append_tx, &a, cause) : BW_OK;
    *last = a.last;
    return rc;
}

int store_events_after(struct store *st, int64_t submission, int64_t after, int max,
                       void (*fn)(void *arg, const struct store_event *e), void *arg, char **cause)
{
    struct db_conn *c = db_acquire(st->db);
    struct db_stmt *s = NULL;
    int rc = db_prepare(c, &s, cause,
                        "SELECT id, name, data, final FROM events WHERE submission_id = ? "
                        "AND id > ? AND id >= (SELECT COALESCE(MAX(id), 0) FROM events "
                        "WHERE submission_id = ? AND name = 'queued') ORDER BY id LIMIT ?",
                        "iiii", submission, after, submission, (int64_t)max);
    while (rc >= 0 && (rc = db_step(s, cause)) == DB_ROW) {
        struct store_event e = {db_col_i64(s, 0), db_col_text(s, 1), db_col_text(s, 2),
                                db_col_i64(s, 3) != 0};
        fn(arg, &e);
    }
    db_finish(s);
    db_release(st->db, c);
    return rc < 0 ? rc : BW_OK;
}

int store_events_prune(struct store *st, int64_t before, char **cause)
{
    struct db_conn *c = db_acquire(st->db);
    int rc = db_run(c, cause,
                    "DELETE FROM events WHERE at < ? AND submission_id IN "
                    "(SELECT id FROM submissions WHERE state = 'done')",
                    "i", before);
    db_release(st->db, c);
    return rc;
}
