#include "db.h"

#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <sqlite3.h>

#include "common/error.h"
#include "common/util.h"
#include "common/banned.h"

/* schema.sql, embedded by the Makefile (build/obj/schema_blob.o), NUL-terminated. */
extern const char schema_sql[];

#define DB_STMT_CACHE 96
#define DB_BUSY_MS    10000

struct db_stmt {
    const char *sql; /* the key: the caller's literal */
    sqlite3_stmt *st;
    struct db_conn *conn;
};

struct db_conn {
    sqlite3 *h;
    bool busy;
    struct db_stmt cache[DB_STMT_CACHE];
    int n_cache;
    struct db_stmt spare; /* used when the cache is full; finalised by db_finish */
};

struct db {
    pthread_mutex_t lock;
    pthread_cond_t freed;
    struct db_conn *conns;
    int n_conns;
};

static int db_code(int rc)
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

static int db_fail(sqlite3 *h, int rc, char **cause, const char *what)
{
    const char *msg = h ? sqlite3_errmsg(h) : sqlite3_errstr(rc);
    return bw_fail(cause, db_code(rc), "sqlite: %s: %s", what, msg);
}

const char *db_schema_text(void)
{
    return schema_sql;
}

/* Finds the next "-- migration N" line at or after p; returns its start or NULL. */
static const char *next_migration(const char *p, int *number)
{
    static const char marker[] = "-- migration ";
    while ((p = strstr(p, marker)) != NULL) {
        if (p == schema_sql || p[-1] == '\n') {
            const char *num = p + sizeof(marker) - 1;
            char digits[16];
            size_t n = strspn(num, "0123456789");
            int64_t v;
            if (n > 0 && n < sizeof(digits)) {
                memcpy(digits, num, n);
                digits[n] = '\0';
                if (parse_i64(digits, &v) && v > 0 && v < 1000000) {
                    *number = (int)v;
                    return p;
                }
            }
        }
        p += sizeof(marker) - 1;
    }
    return NULL;
}

int db_schema_latest(void)
{
    int n = 0, latest = 0;
    const char *p = schema_sql;
    while ((p = next_migration(p, &n)) != NULL) {
        latest = n;
        p++;
    }
    return latest;
}

static int conn_open(struct db_conn *c, const char *path, char **cause)
{
    int rc = sqlite3_open_v2(
        path, &c->h, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE | SQLITE_OPEN_NOMUTEX, NULL);
    if (rc != SQLITE_OK) {
        int code = bw_fail(cause, db_code(rc), "sqlite: open %s: %s", path,
                           c->h ? sqlite3_errmsg(c->h) : sqlite3_errstr(rc));
        sqlite3_close(c->h);
        c->h = NULL;
        return code;
    }
    sqlite3_busy_timeout(c->h, DB_BUSY_MS);
    sqlite3_extended_result_codes(c->h, 1);
    rc = sqlite3_exec(c->h,
                      "PRAGMA journal_mode=WAL; PRAGMA synchronous=FULL; PRAGMA foreign_keys=ON;",
                      NULL, NULL, NULL);
    if (rc != SQLITE_OK)
        return bw_wrap(cause, db_fail(c->h, rc, cause, "set pragmas"), "%s", path);
    return BW_OK;
}

static int migrate(struct db_conn *c, char **cause)
{
    int64_t have = 0;
    int rc = db_get_i64(c, &have, cause, "PRAGMA user_version", "");
    if (rc < 0)
        return rc;
    int latest = db_schema_latest();
    if (have > latest)
        return bw_fail(cause, BW_ERR_INVALID,
                       "database schema version %lld is newer than this server's (%d)",
                       (long long)have, latest);
    int n = 0;
    const char *p = next_migration(schema_sql, &n);
    while (p) {
        int next_n = 0;
        const char *next = next_migration(p + 1, &next_n);
        if (n > have) {
            size_t len = next ? (size_t)(next - p) : strlen(p);
            char *text = malloc(len + 64);
            if (!text)
                return bw_fail(cause, BW_ERR_NOMEM, "out of memory");
            memcpy(text, p, len);
            snprintf(text + len, 64, "\nPRAGMA user_version = %d;\n", n);
            rc = db_begin(c, cause);
            if (rc == BW_OK)
                rc = db_exec(c, text, cause);
            free(text);
            if (rc == BW_OK)
                rc = db_commit(c, cause);
            if (rc < 0) {
                db_rollback(c);
                return bw_wrap(cause, rc, "schema migration %d", n);
            }
        }
        p = next;
        n = next_n;
    }
    return BW_OK;
}

int db_open(const char *path, int n_conns, struct db **out, char **cause)
{
    int rc;
    if (n_conns < 1)
        n_conns = 1;
    struct db *db = calloc(1, sizeof(*db));
    if (!db)
        return bw_fail(cause, BW_ERR_NOMEM, "out of memory");
    db->conns = calloc((size_t)n_conns, sizeof(*db->conns));
    if (!db->conns) {
        free(db);
        return bw_fail(cause, BW_ERR_NOMEM, "out of memory");
    }
    pthread_mutex_init(&db->lock, NULL);
    pthread_cond_init(&db->freed, NULL);
    db->n_conns = n_conns;
    /* The first connection migrates before the others open, so that they all
     * see the finished schema. */
    rc = conn_open(&db->conns[0], path, cause);
    if (rc == BW_OK)
        rc = migrate(&db->conns[0], cause);
    for (int i = 1; rc == BW_OK && i < n_conns; i++)
        rc = conn_open(&db->conns[i], path, cause);
    if (rc < 0) {
        db_close(db);
        return rc;
    }
    *out = db;
    return BW_OK;
}

static void conn_close(struct db_conn *c)
{
    for (int i = 0; i < c->n_cache; i++)
        sqlite3_finalize(c->cache[i].st);
    c->n_cache = 0;
    if (c->h)
        sqlite3_close(c->h);
    c->h = NULL;
}

void db_close(struct db *db)
{
    if (!db)
        return;
    if (db->conns && db->conns[0].h)
        sqlite3_wal_checkpoint_v2(db->conns[0].h, NULL, SQLITE_CHECKPOINT_TRUNCATE, NULL, NULL);
    for (int i = 0; i < db->n_conns; i++)
        conn_close(&db->conns[i]);
    free(db->conns);
    pthread_mutex_destroy(&db->lock);
    pthread_cond_destroy(&db->freed);
    free(db);
}

struct db_conn *db_acquire(struct db *db)
{
    pthread_mutex_lock(&db->lock);
    for (;;) {
        for (int i = 0; i < db->n_conns; i++) {
            if (!db->conns[i].busy) {
                db->conns[i].busy = true;
                pthread_mutex_unlock(&db->lock);
                return &db->conns[i];
            }
        }
        pthread_cond_wait(&db->freed, &db->lock);
    }
}

void db_release(struct db *db, struct db_conn *c)
{
    if (!c)
        return;
    if (!sqlite3_get_autocommit(c->h))
        sqlite3_exec(c->h, "ROLLBACK", NULL, NULL, NULL);
    pthread_mutex_lock(&db->lock);
    c->busy = false;
    pthread_cond_signal(&db->freed);
    pthread_mutex_unlock(&db->lock);
}

int db_exec(struct db_conn *c, const char *sql, char **cause)
{
    char *err = NULL;
    int rc = sqlite3_exec(c->h, sql, NULL, NULL, &err);
    if (rc != SQLITE_OK) {
        int code = bw_fail(cause, db_code(rc), "sqlite: %s", err ? err : sqlite3_errstr(rc));
        sqlite3_free(err);
        return code;
    }
    return BW_OK;
}

int db_begin(struct db_conn *c, char **cause)
{
    return db_exec(c, "BEGIN IMMEDIATE", cause);
}

int db_commit(struct db_conn *c, char **cause)
{
    return db_exec(c, "COMMIT", cause);
}

void db_rollback(struct db_conn *c)
{
    if (!sqlite3_get_autocommit(c->h))
        sqlite3_exec(c->h, "ROLLBACK", NULL, NULL, NULL);
}

static int bind_args(struct db_stmt *st, const char *types, va_list ap, char **cause)
{
    int idx = 1, rc = SQLITE_OK;
    for (const char *t = types; *t && rc == SQLITE_OK; t++, idx++) {
        switch (*t) {
        case 'i':
            rc = sqlite3_bind_int64(st->st, idx, va_arg(ap, int64_t));
            break;
        case 'I':
            rc = sqlite3_bind_int64(st->st, idx, va_arg(ap, int));
            break;
        case 't': {
            const char *s = va_arg(ap, const char *);
            rc = s ? sqlite3_bind_text(st->st, idx, s, -1, SQLITE_TRANSIENT)
                   : sqlite3_bind_null(st->st, idx);
            break;
        }
        case 'd':
            rc = sqlite3_bind_double(st->st, idx, va_arg(ap, double));
            break;
        case 'b': {
            const void *p = va_arg(ap, const void *);
            size_t n = va_arg(ap, size_t);
            rc = sqlite3_bind_blob64(st->st, idx, p, n, SQLITE_TRANSIENT);
            break;
        }
        case 'n':
            (void)va_arg(ap, void *);
            rc = sqlite3_bind_null(st->st, idx);
            break;
        default:
            return bw_fail(cause, BW_ERR_INTERNAL, "db: unknown bind type '%c'", *t);
        }
    }
    if (rc != SQLITE_OK)
        return db_fail(st->conn->h, rc, cause, "bind");
    return BW_OK;
}

static int vprepare(struct db_conn *c, struct db_stmt **out, char **cause, const char *sql,
                    const char *types, va_list ap)
{
    struct db_stmt *st = NULL;
    for (int i = 0; i < c->n_cache; i++) {
        if (c->cache[i].sql == sql) {
            st = &c->cache[i];
            break;
        }
    }
    if (!st) {
        sqlite3_stmt *raw = NULL;
        bool keep = c->n_cache < DB_STMT_CACHE;
        int rc =
            sqlite3_prepare_v3(c->h, sql, -1, keep ? SQLITE_PREPARE_PERSISTENT : 0, &raw, NULL);
        if (rc != SQLITE_OK)
            return db_fail(c->h, rc, cause, "prepare");
        st = keep ? &c->cache[c->n_cache++] : &c->spare;
        st->sql = keep ? sql : NULL;
        st->st = raw;
        st->conn = c;
    }
    int rc = bind_args(st, types, ap, cause);
    if (rc < 0) {
        db_finish(st);
        return rc;
    }
    *out = st;
    return BW_OK;
}

int db_prepare(struct db_conn *c, struct db_stmt **out, char **cause, const char *sql,
               const char *types, ...)
{
    va_list ap;
    va_start(ap, types);
    int rc = vprepare(c, out, cause, sql, types, ap);
    va_end(ap);
    return rc;
}

int db_step(struct db_stmt *st, char **cause)
{
    int rc = sqlite3_step(st->st);
    if (rc == SQLITE_ROW)
        return DB_ROW;
    if (rc == SQLITE_DONE)
        return DB_DONE;
    return db_fail(st->conn->h, rc, cause, "step");
}

void db_finish(struct db_stmt *st)
{
    if (!st)
        return;
    if (st->sql) {
        sqlite3_reset(st->st);
        sqlite3_clear_bindings(st->st);
    } else {
        sqlite3_finalize(st->st);
        st->st = NULL;
    }
}

int64_t db_col_i64(struct db_stmt *st, int col)
{
    return sqlite3_column_int64(st->st, col);
}

double db_col_double(struct db_stmt *st, int col)
{
    return sqlite3_column_double(st->st, col);
}

bool db_col_null(struct db_stmt *st, int col)
{
    return sqlite3_column_type(st->st, col) == SQLITE_NULL;
}

const char *db_col_text(struct db_stmt *st, int col)
{
    const unsigned char *s = sqlite3_column_text(st->st, col);
    return s ? (const char *)s : "";
}

char *db_col_strdup(struct db_stmt *st, int col)
{
    const unsigned char *s = sqlite3_column_text(st->st, col);
    return s ? strdup((const char *)s) : NULL;
}

const void *db_col_blob(struct db_stmt *st, int col, size_t *len)
{
    const void *p = sqlite3_column_blob(st->st, col);
    *len = (size_t)sqlite3_column_bytes(st->st, col);
    return p;
}

int db_run(struct db_conn *c, char **cause, const char *sql, const char *types, ...)
{
    struct db_stmt *st;
    va_list ap;
    va_start(ap, types);
    int rc = vprepare(c, &st, cause, sql, types, ap);
    va_end(ap);
    if (rc < 0)
        return rc;
    while ((rc = db_step(st, cause)) == DB_ROW)
        ;
    db_finish(st);
    return rc;
}

int db_get_i64(struct db_conn *c, int64_t *out, char **cause, const char *sql, const char *types,
               ...)
{
    struct db_stmt *st;
    va_list ap;
    va_start(ap, types);
    int rc = vprepare(c, &st, cause, sql, types, ap);
    va_end(ap);
    if (rc < 0)
        return rc;
    rc = db_step(st, cause);
    if (rc == DB_ROW) {
        *out = db_col_i64(st, 0);
        rc = BW_OK;
    } else if (rc == DB_DONE) {
        rc = bw_fail(cause, BW_ERR_NOTFOUND, "no row");
    }
    db_finish(st);
    return rc;
}

int64_t db_last_id(struct db_conn *c)
{
    return sqlite3_last_insert_rowid(c->h);
}

int db_changes(struct db_conn *c)
{
    return sqlite3_changes(c->h);
}
