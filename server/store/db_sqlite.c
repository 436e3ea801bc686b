/*
 * db_sqlite.c - the driver's SQLite backend: the embedded file, in WAL mode
 * with synchronous=FULL (a committed transaction survives a power cut: a
 * submission is durable before the server answers 201) and foreign keys on.
 * The only file that includes sqlite3.h, and so the one place SQLite's
 * result codes become enum bw_code.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <sqlite3.h>

#include "server/store/db_backend.h"
#include "common/error.h"
#include "common/banned.h"

#define SQ_BUSY_MS 10000

static int sq_code(int rc)
{
    switch (rc & 0xff) {
    case SQLITE_OK:
    case SQLITE_ROW:
    case SQLITE_DONE:
        return BW_OK;
    case SQLITE_CONSTRAINT:
    case SQLITE_MISMATCH:
    case SQLITE_TOOBIG:
    case SQLITE_RANGE:
        return BW_ERR_INVALID;
    case SQLITE_BUSY:
    case SQLITE_LOCKED:
        return BW_ERR_TIMEOUT;
    case SQLITE_NOMEM:
        return BW_ERR_NOMEM;
    case SQLITE_IOERR:
    case SQLITE_FULL:
    case SQLITE_CANTOPEN:
    case SQLITE_READONLY:
    case SQLITE_CORRUPT:
    case SQLITE_NOTADB:
        return BW_ERR_IO;
    default:
        return BW_ERR_INTERNAL;
    }
}

static int sq_fail(sqlite3 *h, int rc, char **cause, const char *what)
{
    const char *msg = h ? sqlite3_errmsg(h) : sqlite3_errstr(rc);
    return bw_fail(cause, sq_code(rc), "sqlite: %s: %s", what, msg);
}

static int sq_connect(struct db *db, struct db_conn *c, char **cause)
{
    sqlite3 *h = NULL;
    int rc = sqlite3_open_v2(
        db->target, &h, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE | SQLITE_OPEN_NOMUTEX, NULL);
    if (rc != SQLITE_OK) {
        int code = bw_fail(cause, sq_code(rc), "sqlite: open %s: %s", db->target,
                           h ? sqlite3_errmsg(h) : sqlite3_errstr(rc));
        sqlite3_close(h);
        return code;
    }
    sqlite3_busy_timeout(h, SQ_BUSY_MS);
    sqlite3_extended_result_codes(h, 1);
    rc =
        sqlite3_exec(h, "PRAGMA journal_mode=WAL; PRAGMA synchronous=FULL; PRAGMA foreign_keys=ON;",
                     NULL, NULL, NULL);
    if (rc != SQLITE_OK) {
        int code = bw_wrap(cause, sq_fail(h, rc, cause, "set pragmas"), "%s", db->target);
        sqlite3_close(h);
        return code;
    }
    c->h = h;
    return BW_OK;
}

static void sq_disconnect(struct db_conn *c)
{
    sqlite3_close(c->h);
}

static bool sq_healthy(struct db_conn *c)
{
    (void)c;
    return true;
}

static int sq_exec(struct db_conn *c, const char *sql, char **cause)
{
    char *err = NULL;
    int rc = sqlite3_exec(c->h, sql, NULL, NULL, &err);
    if (rc != SQLITE_OK) {
        int code = bw_fail(cause, sq_code(rc), "sqlite: %s", err ? err : sqlite3_errstr(rc));
        sqlite3_free(err);
        return code;
    }
    return BW_OK;
}

static int sq_begin(struct db_conn *c, char **cause)
{
    return sq_exec(c, "BEGIN IMMEDIATE", cause);
}

static bool sq_in_tx(struct db_conn *c)
{
    return !sqlite3_get_autocommit(c->h);
}

static bool word_at(const char *p, const char *word)
{
    size_t n = strlen(word);
    return strncmp(p, word, n) == 0;
}

/* GREATEST( -> MAX( (both backends' scalar maximum of two non-NULL values)
 * and a trailing " FOR UPDATE ..." dropped; outside string literals. */
static char *sq_translate(const char *sql)
{
    if (!strstr(sql, "GREATEST(") && !strstr(sql, " FOR UPDATE"))
        return NULL;
    size_t n = strlen(sql);
    char *out = malloc(n + 1);
    if (!out)
        return NULL;
    size_t o = 0;
    bool quoted = false;
    for (size_t i = 0; i < n;) {
        if (sql[i] == '\'')
            quoted = !quoted;
        if (!quoted && word_at(sql + i, "GREATEST(")) {
            memcpy(out + o, "MAX(", 4);
            o += 4;
            i += 9;
            continue;
        }
        if (!quoted && word_at(sql + i, " FOR UPDATE"))
            break;
        out[o++] = sql[i++];
    }
    out[o] = '\0';
    return out;
}

static int sq_prepare(struct db_stmt *st, const char *sql, bool keep, char **cause)
{
    sqlite3_stmt *raw = NULL;
    int rc =
        sqlite3_prepare_v3(st->conn->h, sql, -1, keep ? SQLITE_PREPARE_PERSISTENT : 0, &raw, NULL);
    if (rc != SQLITE_OK)
        return sq_fail(st->conn->h, rc, cause, "prepare");
    st->h = raw;
    return BW_OK;
}

static void sq_finalize(struct db_stmt *st)
{
    sqlite3_finalize(st->h);
}

static int sq_bind(struct db_stmt *st, const struct db_param *p, int n, char **cause)
{
    int rc = SQLITE_OK;
    for (int k = 0; k < n && rc == SQLITE_OK; k++) {
        int idx = k + 1;
        switch (p[k].type) {
        case 'i':
            rc = sqlite3_bind_int64(st->h, idx, p[k].i);
            break;
        case 't':
            rc = p[k].t ? sqlite3_bind_text(st->h, idx, p[k].t, -1, SQLITE_TRANSIENT)
                        : sqlite3_bind_null(st->h, idx);
            break;
        case 'd':
            rc = sqlite3_bind_double(st->h, idx, p[k].d);
            break;
        case 'b':
            rc = sqlite3_bind_blob64(st->h, idx, p[k].b, p[k].n, SQLITE_TRANSIENT);
            break;
        default:
            rc = sqlite3_bind_null(st->h, idx);
            break;
        }
    }
    if (rc != SQLITE_OK)
        return sq_fail(st->conn->h, rc, cause, "bind");
    return BW_OK;
}

static int sq_step(struct db_stmt *st, char **cause)
{
    int rc = sqlite3_step(st->h);
    if (rc == SQLITE_ROW)
        return DB_ROW;
    if (rc == SQLITE_DONE)
        return DB_DONE;
    return sq_fail(st->conn->h, rc, cause, "step");
}

static void sq_reset(struct db_stmt *st)
{
    sqlite3_reset(st->h);
    sqlite3_clear_bindings(st->h);
}

static int64_t sq_col_i64(struct db_stmt *st, int col)
{
    return sqlite3_column_int64(st->h, col);
}

static double sq_col_double(struct db_stmt *st, int col)
{
    return sqlite3_column_double(st->h, col);
}

static bool sq_col_null(struct db_stmt *st, int col)
{
    return sqlite3_column_type(st->h, col) == SQLITE_NULL;
}

static const char *sq_col_text(struct db_stmt *st, int col)
{
    return (const char *)sqlite3_column_text(st->h, col);
}

static const void *sq_col_blob(struct db_stmt *st, int col, size_t *len)
{
    const void *p = sqlite3_column_blob(st->h, col);
    *len = (size_t)sqlite3_column_bytes(st->h, col);
    return p;
}

static int sq_col_count(struct db_stmt *st)
{
    return sqlite3_column_count(st->h);
}

static const char *sq_col_name(struct db_stmt *st, int col)
{
    return sqlite3_column_name(st->h, col);
}

static char sq_col_kind(struct db_stmt *st, int col)
{
    switch (sqlite3_column_type(st->h, col)) {
    case SQLITE_INTEGER:
        return 'i';
    case SQLITE_FLOAT:
        return 'd';
    case SQLITE_TEXT:
        return 't';
    case SQLITE_BLOB:
        return 'b';
    default:
        return 'n';
    }
}

static int sq_changes(struct db_conn *c)
{
    return sqlite3_changes(c->h);
}

static int sq_lock_key(struct db_conn *c, int space, int64_t key, char **cause)
{
    (void)c, (void)space, (void)key, (void)cause;
    return BW_OK; /* BEGIN IMMEDIATE: one writer at a time already */
}

/* One process writes the file: nothing to hold while migrating. */
static int sq_migrate_lock(struct db_conn *c, bool take, char **cause)
{
    (void)c, (void)take, (void)cause;
    return BW_OK;
}

static int sq_get_version(struct db_conn *c, int64_t *v, char **cause)
{
    sqlite3_stmt *st = NULL;
    int rc = sqlite3_prepare_v2(c->h, "PRAGMA user_version", -1, &st, NULL);
    if (rc == SQLITE_OK && (rc = sqlite3_step(st)) == SQLITE_ROW) {
        *v = sqlite3_column_int64(st, 0);
        rc = SQLITE_OK;
    }
    int code = rc == SQLITE_OK ? BW_OK : sq_fail(c->h, rc, cause, "user_version");
    sqlite3_finalize(st);
    return code;
}

static int sq_set_version(struct db_conn *c, int v, char **cause)
{
    char sql[64];
    snprintf(sql, sizeof(sql), "PRAGMA user_version = %d", v);
    return sq_exec(c, sql, cause);
}

static void sq_checkpoint(struct db_conn *c)
{
    sqlite3_wal_checkpoint_v2(c->h, NULL, SQLITE_CHECKPOINT_TRUNCATE, NULL, NULL);
}

const struct db_ops db_sqlite_ops = {
    .name = "sqlite",
    .connect = sq_connect,
    .disconnect = sq_disconnect,
    .healthy = sq_healthy,
    .exec = sq_exec,
    .begin = sq_begin,
    .in_tx = sq_in_tx,
    .translate = sq_translate,
    .prepare = sq_prepare,
    .finalize = sq_finalize,
    .bind = sq_bind,
    .step = sq_step,
    .reset = sq_reset,
    .col_i64 = sq_col_i64,
    .col_double = sq_col_double,
    .col_null = sq_col_null,
    .col_text = sq_col_text,
    .col_blob = sq_col_blob,
    .col_count = sq_col_count,
    .col_name = sq_col_name,
    .col_kind = sq_col_kind,
    .changes = sq_changes,
    .lock_key = sq_lock_key,
    .signal = NULL,
    .migrate_lock = sq_migrate_lock,
    .get_version = sq_get_version,
    .set_version = sq_set_version,
    .checkpoint = sq_checkpoint,
    .listen_start = NULL,
    .listen_stop = NULL,
};
