/*
 * store.c - the store's life cycle and signals, and the small things it
 * keeps: server keys, the unlock mailbox, problems and their bundles, the
 * counts /metrics shows.
 */
#include "server/store/store.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "server/store/db.h"
#include "server/store/store_impl.h"
#include "common/error.h"
#include "common/banned.h"

int store_open(const char *database, int n_conns, struct store **out, char **cause)
{
    struct store *st = calloc(1, sizeof(*st));
    if (!st)
        return bw_fail(cause, BW_ERR_NOMEM, "out of memory");
    int rc = db_open(database, n_conns, &st->db, cause);
    if (rc < 0) {
        free(st);
        return rc;
    }
    *out = st;
    return BW_OK;
}

void store_close(struct store *st)
{
    if (!st)
        return;
    db_close(st->db);
    free(st);
}

int store_check(const char *database, int *version, char **cause)
{
    *version = 0;
    if (!db_is_postgresql(database))
        return BW_OK; /* config_check_paths checked the file's directory */
    int rc = db_probe(database, version, cause);
    if (rc == BW_OK && *version > db_schema_latest())
        rc = bw_fail(cause, BW_ERR_INVALID,
                     "database schema version %d is newer than this server's (%d)", *version,
                     db_schema_latest());
    return rc;
}

bool store_shared(const struct store *st)
{
    return db_backend(st->db) == DB_POSTGRESQL;
}

const char *store_backend_name(const struct store *st)
{
    return db_backend_name(st->db);
}

const char *store_display_name(const struct store *st)
{
    return db_display_name(st->db);
}

int store_schema_latest(void)
{
    return db_schema_latest();
}

const char *store_schema_text(void)
{
    return db_schema_text();
}

struct db *store_db(struct store *st)
{
    return st->db;
}

static const char *const channels[] = {"bw_queue", "bw_events", NULL};

/* The driver's channels are "bw_"-prefixed (one namespace in a PostgreSQL
 * database); the store's callers see the short names. */
static void on_signal(void *arg, const char *channel, const char *payload)
{
    struct store *st = arg;
    if (st->fn)
        st->fn(st->arg, channel ? channel + 3 : NULL, payload);
}

int store_listen(struct store *st, store_signal_fn fn, void *arg, char **cause)
{
    st->fn = fn;
    st->arg = arg;
    return db_listen(st->db, channels, on_signal, st, cause);
}

void store_unlisten(struct store *st)
{
    if (st)
        db_unlisten(st->db);
}

void store_signal_queue(struct store *st, bool new_work)
{
    struct db_conn *c = db_acquire(st->db);
    db_signal(c, "bw_queue", new_work ? "work" : "moved", NULL);
    db_release(st->db, c);
}

int store_server_key(struct store *st, const char *name, const unsigned char *fresh, size_t len,
                     unsigned char *key, char **cause)
{
    struct db_conn *c = db_acquire(st->db);
    struct db_stmt *s = NULL;
    int rc = db_run(c, cause,
                    "INSERT INTO server_keys(name, value) VALUES (?, ?) ON CONFLICT DO NOTHING",
                    "tb", name, fresh, len);
    if (rc == BW_OK)
        rc = db_prepare(c, &s, cause, "SELECT value FROM server_keys WHERE name = ?", "t", name);
    if (rc == BW_OK && (rc = db_step(s, cause)) == DB_ROW) {
        size_t n = 0;
        const void *v = db_col_blob(s, 0, &n);
        if (n == len) {
            memcpy(key, v, n);
            rc = BW_OK;
        } else {
            rc = bw_fail(cause, BW_ERR_INVALID, "server_keys: %s is %zu bytes, not %zu", name, n,
                         len);
        }
    } else if (rc == DB_DONE) {
        rc = bw_fail(cause, BW_ERR_INTERNAL, "server_keys: no %s key", name);
    }
    db_finish(s);
    db_release(st->db, c);
    return rc;
}

int store_unlock_request(struct store *st, bool address, const char *key, int64_t now, char **cause)
{
    struct db_conn *c = db_acquire(st->db);
    int rc = db_run(c, cause, "INSERT INTO unlocks(kind, key, requested_at) VALUES (?,?,?)", "tti",
                    address ? "address" : "name", key, now);
    db_release(st->db, c);
    return rc;
}

int store_unlocks_take(struct store *st, void (*fn)(void *arg, bool address, const char *key),
                       void *arg, char **cause)
{
    struct db_conn *c = db_acquire(st->db);
    struct db_stmt *s = NULL;
    /* Taken and deleted in one statement: with servers sharing the store,
     * each request is applied by one of them. */
    int rc = db_prepare(c, &s, cause,
                        "DELETE FROM unlocks WHERE id IN (SELECT id FROM unlocks ORDER BY id "
                        "LIMIT 100) RETURNING kind, key",
                        "");
    while (rc >= 0 && (rc = db_step(s, cause)) == DB_ROW)
        fn(arg, strcmp(db_col_text(s, 0), "address") == 0, db_col_text(s, 1));
    db_finish(s);
    db_release(st->db, c);
    return rc < 0 ? rc : BW_OK;
}

struct record_arg {
    const char *id, *title, *hash;
    const void *bundle;
    size_t len;
    int64_t now;
};

static int record_tx(struct db_conn *c, void *arg, char **cause)
{
    struct record_arg *a = arg;
    int rc = db_run(c, cause,
                    "INSERT INTO bundles(hash, problem_id, data, created_at) VALUES (?,?,?,?) "
                    "ON CONFLICT DO NOTHING",
                    "ttbi", a->hash, a->id, a->bundle, a->len, a->now);
    if (rc == BW_OK)
        rc = db_run(c, cause,
                    "INSERT INTO problems(id, title, hash, loaded_at) VALUES (?,?,?,?) "
                    "ON CONFLICT(id) DO UPDATE SET title = excluded.title, hash = excluded.hash, "
                    "loaded_at = excluded.loaded_at",
                    "ttti", a->id, a->title, a->hash, a->now);
    return rc;
}

int store_problem_record(struct store *st, const char *id, const char *title, const char *hash,
                         const void *bundle, size_t len, int64_t now, char **cause)
{
    struct record_arg a = {id, title, hash, bundle, len, now};
    return db_tx(st->db, record_tx, &a, cause);
}

int store_bundle(struct store *st, const char *hash, void **data, size_t *len, char **cause)
{
    struct db_conn *c = db_acquire(st->db);
    struct db_stmt *s = NULL;
    *data = NULL;
    *len = 0;
    int rc = db_prepare(c, &s, cause, "SELECT data FROM bundles WHERE hash = ?", "t", hash);
    if (rc == BW_OK && (rc = db_step(s, cause)) == DB_ROW) {
        size_t n = 0;
        const void *v = db_col_blob(s, 0, &n);
        *data = malloc(n ? n : 1);
        if (*data) {
            memcpy(*data, v, n);
            *len = n;
            rc = BW_OK;
        } else {
            rc = bw_fail(cause, BW_ERR_NOMEM, "out of memory");
        }
    } else if (rc == DB_DONE) {
        rc = bw_fail(cause, BW_ERR_NOTFOUND, "no bundle %s", hash);
    }
    db_finish(s);
    db_release(st->db, c);
    return rc;
}

int store_problems_list(struct store *st, void (*fn)(void *arg, const struct store_problem_row *p),
                        void *arg, char **cause)
{
    struct db_conn *c = db_acquire(st->db);
    struct db_stmt *s = NULL;
    int rc = db_prepare(c, &s, cause,
                        "SELECT id, title, hash, loaded_at, disabled, disabled_reason, "
                        "error_streak FROM problems ORDER BY id",
                        "");
    while (rc >= 0 && (rc = db_step(s, cause)) == DB_ROW) {
        struct store_problem_row p = {
            .id = db_col_text(s, 0),
            .title = db_col_text(s, 1),
            .hash = db_col_text(s, 2),
            .loaded_at = db_col_i64(s, 3),
            .disabled = db_col_i64(s, 4) != 0,
            .disabled_reason = db_col_null(s, 5) ? NULL : db_col_text(s, 5),
            .error_streak = db_col_i64(s, 6),
        };
        fn(arg, &p);
    }
    db_finish(s);
    db_release(st->db, c);
    return rc < 0 ? rc : BW_OK;
}

int store_problem_set_enabled(struct store *st, const char *id, bool enabled, char **cause)
{
    struct db_conn *c = db_acquire(st->db);
    int rc = db_run(c, cause,
                    "UPDATE problems SET disabled = ?, error_streak = 0, disabled_reason = ? "
                    "WHERE id = ?",
                    "Itt", enabled ? 0 : 1, enabled ? NULL : "disabled by an admin", id);
    if (rc == BW_OK && db_changes(c) == 0)
        rc = bw_fail(cause, BW_ERR_NOTFOUND, "no problem %s", id);
    db_release(st->db, c);
    return rc;
}

static int64_t count(struct db_conn *c, const char *sql, int64_t arg)
{
    int64_t v = 0;
    if (db_get_i64(c, &v, NULL, sql, "i", arg) < 0)
        return -1;
    return v;
}

int store_counts(struct store *st, int64_t now, int lease_s, struct store_counts *out, char **cause)
{
    (void)cause;
    struct db_conn *c = db_acquire(st->db);
    out->queued = count(c, "SELECT COUNT(*) FROM submissions WHERE state = 'queued' AND ? >= 0", 0);
    out->judging = count(c, "SELECT COUNT(*) FROM leases WHERE state = 'active' AND ? >= 0", 0);
    out->alive = count(c, "SELECT COUNT(*) FROM workers WHERE disabled = 0 AND last_seen_at >= ?",
                       now - lease_s);
    out->disabled = count(
        c, "SELECT COUNT(*) FROM workers WHERE disabled = 1 AND deleted_at IS NULL AND ? >= 0", 0);
    out->oldest_queued_at = count(c,
                                  "SELECT COALESCE(MIN(queued_at), 0) FROM submissions "
                                  "WHERE state = 'queued' AND ? >= 0",
                                  0);
    for (int l = 0; l < LANG_COUNT; l++) {
        int64_t v = -1;
        const char *name = language_name((enum language)l);
        out->lang_queued[l] = db_get_i64(c, &v, NULL,
                                         "SELECT COUNT(*) FROM submissions WHERE state = 'queued' "
                                         "AND language = ?",
                                         "t", name) < 0
                                  ? -1
                                  : v;
        out->lang_workers[l] = db_get_i64(c, &v, NULL,
                                          "SELECT COUNT(*) FROM workers w JOIN worker_languages wl "
                                          "ON wl.worker_id = w.id WHERE wl.language = ? "
                                          "AND w.disabled = 0 AND w.last_seen_at >= ?",
                                          "ti", name, now - lease_s) < 0
                                   ? -1
                                   : v;
    }
    db_release(st->db, c);
    return BW_OK;
}
