/*
 * store_throttle.c - the sign-in and sign-up throttles' rows, for servers
 * that share them (server/throttle.h, store.h).
 */
#include "server/store/store.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "server/store/db.h"
#include "server/store/store_impl.h"
#include "common/error.h"
#include "common/banned.h"

struct update_arg {
    struct store_throttle_row *rows;
    size_t n;
    void (*fn)(void *arg, struct store_throttle_row *rows, size_t n);
    void *arg;
};

/* The advisory lock of a row: its key's first 8 hex digits and its kind. */
static int64_t lock_of(const struct store_throttle_row *r)
{
    int64_t k = (int64_t)strtoull(r->key + 8, NULL, 16) & 0x7fffffff;
    return (k ^ (int64_t)(unsigned char)r->kind[0] << 24) & 0x7fffffff;
}

static int update_tx(struct db_conn *c, void *arg, char **cause)
{
    struct update_arg *a = arg;
    size_t order[8];
    int rc = BW_OK;
    for (size_t i = 0; i < a->n; i++)
        order[i] = i;
    /* Locks in one order (by lock key), so that two servers never wait on
     * each other's. */
    for (size_t i = 1; i < a->n; i++)
        for (size_t j = i; j > 0 && lock_of(&a->rows[order[j]]) < lock_of(&a->rows[order[j - 1]]);
             j--) {
            size_t t = order[j];
            order[j] = order[j - 1];
            order[j - 1] = t;
        }
    for (size_t i = 0; rc == BW_OK && i < a->n; i++)
        rc = db_lock_key(c, STORE_LOCK_THROTTLE, lock_of(&a->rows[order[i]]), cause);
    for (size_t i = 0; rc == BW_OK && i < a->n; i++) {
        struct store_throttle_row *r = &a->rows[i];
        struct db_stmt *s = NULL;
        r->found = false;
        rc = db_prepare(c, &s, cause,
                        "SELECT failures, pending, pending_ms, last_ms, until_ms, tokens "
                        "FROM throttles WHERE kind = ? AND key = ?",
                        "tt", r->kind, r->key);
        if (rc == BW_OK && (rc = db_step(s, cause)) == DB_ROW) {
            r->found = true;
            r->failures = db_col_i64(s, 0);
            r->pending = db_col_i64(s, 1);
            r->pending_ms = db_col_i64(s, 2);
            r->last_ms = db_col_i64(s, 3);
            r->until_ms = db_col_i64(s, 4);
            r->tokens = db_col_double(s, 5);
        } else if (rc == DB_DONE) {
            r->failures = r->pending = r->pending_ms = r->last_ms = r->until_ms = 0;
            r->tokens = 0;
        }
        db_finish(s);
        rc = rc < 0 ? rc : BW_OK;
    }
    if (rc < 0)
        return rc;
    a->fn(a->arg, a->rows, a->n);
    for (size_t i = 0; rc == BW_OK && i < a->n; i++) {
        struct store_throttle_row *r = &a->rows[i];
        if (r->drop)
            rc = r->found ? db_run(c, cause, "DELETE FROM throttles WHERE kind = ? AND key = ?",
                                   "tt", r->kind, r->key)
                          : BW_OK;
        else
            rc = db_run(c, cause,
                        "INSERT INTO throttles(kind, key, failures, pending, pending_ms, last_ms, "
                        "until_ms, tokens) VALUES (?,?,?,?,?,?,?,?) "
                        "ON CONFLICT(kind, key) DO UPDATE SET failures = excluded.failures, "
                        "pending = excluded.pending, pending_ms = excluded.pending_ms, "
                        "last_ms = excluded.last_ms, until_ms = excluded.until_ms, "
                        "tokens = excluded.tokens",
                        "ttiiiiid", r->kind, r->key, r->failures, r->pending, r->pending_ms,
                        r->last_ms, r->until_ms, r->tokens);
    }
    return rc;
}

int store_throttle_update(struct store *st, struct store_throttle_row *rows, size_t n,
                          void (*fn)(void *arg, struct store_throttle_row *rows, size_t n),
                          void *arg, char **cause)
{
    if (n > 8)
        return bw_fail(cause, BW_ERR_INTERNAL, "store: %zu throttle rows at once", n);
    struct update_arg a = {rows, n, fn, arg};
    return db_tx(st->db, update_tx, &a, cause);
}

int store_throttles_prune(struct store *st, bool signup, int64_t now_ms, int64_t window_ms,
                          int64_t pending_ms, char **cause)
{
    struct db_conn *c = db_acquire(st->db);
    int rc = signup
                 ? db_run(c, cause, "DELETE FROM throttles WHERE kind = 'signup' AND last_ms < ?",
                          "i", now_ms - window_ms)
                 : db_run(c, cause,
                          "DELETE FROM throttles WHERE kind <> 'signup' AND last_ms < ? "
                          "AND until_ms < ? AND (pending = 0 OR pending_ms < ?)",
                          "iii", now_ms - window_ms, now_ms, now_ms - pending_ms);
    db_release(st->db, c);
    return rc;
}
