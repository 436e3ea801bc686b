/*
 * db_backend.h - private to the driver (db.c): what a backend provides, and
 * the structures db.c and the backends share. A backend is one file that
 * alone includes its library: db_sqlite.c (sqlite3.h) and db_pg.c
 * (libpq-fe.h, the library opened at run time).
 */
#ifndef BW_SERVER_STORE_DB_BACKEND_H
#define BW_SERVER_STORE_DB_BACKEND_H

#include <pthread.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "server/store/db.h"
#include "common/limits.h"

#define DB_STMT_CACHE  96 /* prepared statements kept per connection */
#define DB_MAX_PARAMS  32 /* parameters of one statement */
#define DB_MAX_PENDING 64 /* SQLite signals kept on a connection until it is released */

/* One parameter, as db_prepare's variadic arguments gave it. */
struct db_param {
    char type; /* 'i', 'd', 't', 'b' or 'n' ('I' is read as 'i') */
    int64_t i;
    double d;
    const char *t; /* 't': NULL binds NULL */
    const void *b; /* 'b' */
    size_t n;
};

struct db_stmt {
    const char *sql; /* the key: the caller's literal (NULL for the spare) */
    struct db_conn *conn;
    void *h; /* the backend's statement */
};

struct db_signal_pending {
    char channel[32];
    char payload[BW_DB_SIGNAL_BYTES + 1];
};

struct db_conn {
    struct db *db;
    void *h; /* sqlite3 * or PGconn * */
    bool busy;
    bool retryable; /* the last failure was a deadlock or serialization failure */
    struct db_stmt cache[DB_STMT_CACHE];
    int n_cache;
    struct db_stmt spare; /* used when the cache is full; finalised by db_finish */
    struct db_signal_pending pending[DB_MAX_PENDING];
    int n_pending;   /* kept: the current transaction's and the committed ones */
    int n_committed; /* of those, the first n_committed are committed: told at release */
};

struct db_ops {
    const char *name;
    int (*connect)(struct db *db, struct db_conn *c, char **cause);
    void (*disconnect)(struct db_conn *c);
    /* False when the connection was lost: db_acquire opens it again. */
    bool (*healthy)(struct db_conn *c);
    int (*exec)(struct db_conn *c, const char *sql, char **cause);
    int (*begin)(struct db_conn *c, char **cause);
    bool (*in_tx)(struct db_conn *c);
    /* The backend's text of a statement in the common subset (db.h): a
     * *new* string, or NULL when it is the same. */
    char *(*translate)(const char *sql);
    int (*prepare)(struct db_stmt *st, const char *sql, bool keep, char **cause);
    void (*finalize)(struct db_stmt *st);
    int (*bind)(struct db_stmt *st, const struct db_param *p, int n, char **cause);
    int (*step)(struct db_stmt *st, char **cause);
    void (*reset)(struct db_stmt *st);
    int64_t (*col_i64)(struct db_stmt *st, int col);
    double (*col_double)(struct db_stmt *st, int col);
    bool (*col_null)(struct db_stmt *st, int col);
    const char *(*col_text)(struct db_stmt *st, int col);
    const void *(*col_blob)(struct db_stmt *st, int col, size_t *len);
    int (*col_count)(struct db_stmt *st);
    const char *(*col_name)(struct db_stmt *st, int col);
    char (*col_kind)(struct db_stmt *st, int col);
    int (*changes)(struct db_conn *c);
    int (*lock_key)(struct db_conn *c, int space, int64_t key, char **cause);
    /* NULL: db.c keeps the signal until the commit and tells this process. */
    int (*signal)(struct db_conn *c, const char *channel, const char *payload, char **cause);
    /* Migration: hold the migration lock (servers starting together migrate
     * once), read and write the version inside the migration's transaction. */
    int (*migrate_lock)(struct db_conn *c, bool take, char **cause);
    int (*get_version)(struct db_conn *c, int64_t *v, char **cause);
    int (*set_version)(struct db_conn *c, int v, char **cause);
    /* Closing: SQLite checkpoints its WAL. May be NULL. */
    void (*checkpoint)(struct db_conn *c);
    /* The listener (PostgreSQL): a thread of its own; NULL where db.c calls
     * listeners itself. */
    int (*listen_start)(struct db *db, char **cause);
    void (*listen_stop)(struct db *db);
};

struct db {
    const struct db_ops *ops;
    enum db_backend backend;
    char *target;  /* owned: the path or the conninfo */
    char *display; /* owned: target with any password masked */
    pthread_mutex_t lock;
    pthread_cond_t freed;
    struct db_conn *conns;
    int n_conns;
    /* the listener */
    const char *const *channels;
    db_listen_fn listen_fn;
    void *listen_arg;
    void *listener; /* the backend's listener state */
};

/* db_prepare_text with parameters made at run time (the store's import). */
int db_prepare_params(struct db_conn *c, struct db_stmt **out, char **cause, const char *sql,
                      const struct db_param *params, int n);

extern const struct db_ops db_sqlite_ops;
extern const struct db_ops db_pg_ops;

/* A migration's text for a backend (schema.c): a *new* string of migration
 * n's statements, translated, or NULL with *cause. */
char *schema_migration_sql(enum db_backend backend, int n, char **cause);
/* The migrations' numbers, in order: latest, and whether n exists. */
int schema_latest(void);

#endif
