/*
 * db.h - the store's driver: a pool of connections to one database, the
 * embedded SQLite file or a PostgreSQL server, behind one small API of
 * prepared statements. Only the store (server/store/) includes it; handlers
 * call store.h and queue.h.
 *
 * db_open() picks the backend from the `database` setting: a URI starting
 * "postgresql://" or "postgres://" is PostgreSQL (db_pg.c, libpq opened at
 * run time), anything else is the path of a SQLite file (db_sqlite.c). Each
 * backend is the ONE place its library's codes are translated into enum
 * bw_code (a constraint -> BW_ERR_INVALID, busy, locked, a deadlock or a
 * serialization failure -> BW_ERR_TIMEOUT, out of memory -> BW_ERR_NOMEM, I/O,
 * a full disk or a lost connection -> BW_ERR_IO, anything else ->
 * BW_ERR_INTERNAL), with the library's message in the cause.
 *
 * SQL is written once, in the subset both backends take (docs/architecture.md,
 * "The store"): `?` placeholders, ON CONFLICT, RETURNING, GREATEST(a, b) for
 * the larger of two values, comparisons (never a bare integer) where a
 * condition is meant, and row locks as a trailing "FOR UPDATE [OF t] [SKIP
 * LOCKED]". The driver translates it once per connection and statement: for
 * PostgreSQL `?` becomes $1, $2, ...; for SQLite GREATEST( becomes MAX( and
 * the trailing lock clause is dropped (SQLite's BEGIN IMMEDIATE serialises
 * every writer, which is a stronger lock).
 *
 * db_open() also migrates the schema: the migrations of schema.sql (embedded
 * at build time; schema.c) above the database's version are applied in order,
 * each in one transaction (SQLite: PRAGMA user_version; PostgreSQL: the
 * schema_version table, under an advisory lock so that servers starting
 * together migrate once).
 *
 * Threads: each thread takes a connection with db_acquire() and gives it back
 * with db_release(); a connection is used by one thread at a time. Writes go
 * through db_begin() (SQLite: BEGIN IMMEDIATE, so two writers never deadlock
 * on a lock upgrade; PostgreSQL: READ COMMITTED, with the row locks the store
 * takes). db_tx() runs a function in a transaction and runs it again when
 * PostgreSQL reports a deadlock or a serialization failure.
 *
 * Signals: db_signal() inside a transaction tells every process listening on
 * the database (db_listen) once the transaction commits, in commit order:
 * PostgreSQL's NOTIFY, or for SQLite a call in this process (the only one
 * that may write the file) after the commit.
 */
#ifndef BW_SERVER_STORE_DB_H
#define BW_SERVER_STORE_DB_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct db;
struct db_conn;
struct db_stmt;

enum { DB_DONE = 0, DB_ROW = 1 };

enum db_backend { DB_SQLITE, DB_POSTGRESQL };

/* True if `database` names a PostgreSQL server (a postgresql:// URI). */
bool db_is_postgresql(const char *database);

/* Opens (creating if needed) and migrates the database with `n_conns`
 * connections (at least 1). *out is new; free with db_close. */
int db_open(const char *database, int n_conns, struct db **out, char **cause);
/* Opens without migrating and reads the schema version into *version (0: a
 * new database). For --check-config. */
int db_probe(const char *database, int *version, char **cause);
/* Stops the listener, checkpoints (SQLite) and closes every connection; NULL
 * is a no-op. */
void db_close(struct db *db);

enum db_backend db_backend(const struct db *db);
/* "sqlite" or "postgresql". */
const char *db_backend_name(const struct db *db);
/* The database setting with any password masked (borrowed). */
const char *db_display_name(const struct db *db);

/* The schema version the binary carries (the last migration's number). */
int db_schema_latest(void);
/* The embedded schema.sql text (borrowed, NUL-terminated). */
const char *db_schema_text(void);
/* The database's schema version now. */
int db_schema_version(struct db_conn *c, int64_t *out, char **cause);

/* Takes a connection (waits while all are in use); never NULL. */
struct db_conn *db_acquire(struct db *db);
void db_release(struct db *db, struct db_conn *c);
enum db_backend db_conn_backend(const struct db_conn *c);

/* BEGIN / COMMIT / ROLLBACK. db_rollback never fails visibly. */
int db_begin(struct db_conn *c, char **cause);
int db_commit(struct db_conn *c, char **cause);
void db_rollback(struct db_conn *c);

/* Runs fn(c, arg, cause) between db_begin and db_commit on a connection of
 * the pool; rolls back when it fails. A deadlock or serialization failure
 * (PostgreSQL) runs it again, up to BW_DB_TX_RETRIES times, so fn must set
 * its outputs afresh each time. Returns what fn returned (>= 0) or a
 * negative code. */
typedef int (*db_tx_fn)(struct db_conn *c, void *arg, char **cause);
int db_tx(struct db *db, db_tx_fn fn, void *arg, char **cause);
/* The same on a connection the caller holds. */
int db_tx_on(struct db_conn *c, db_tx_fn fn, void *arg, char **cause);

/* Runs one or more statements without parameters or rows. */
int db_exec(struct db_conn *c, const char *sql, char **cause);

/*
 * Prepares `sql` (cached per connection: pass a string literal) and binds the
 * variadic arguments by `types`, one letter per parameter:
 *   'i' int64_t, 'I' int (promoted), 't' const char * (NULL binds NULL),
 *   'd' double, 'b' const void *, size_t (a blob: two arguments), 'n' none (NULL).
 * *out is borrowed from the connection until db_finish().
 */
int db_prepare(struct db_conn *c, struct db_stmt **out, char **cause, const char *sql,
               const char *types, ...);
/* The same for a text made at run time (not a literal): not cached, the
 * statement is finalised by db_finish. */
int db_prepare_text(struct db_conn *c, struct db_stmt **out, char **cause, const char *sql,
                    const char *types, ...);
/* DB_ROW when a row is ready, DB_DONE at the end, or a negative code. */
int db_step(struct db_stmt *st, char **cause);
/* Resets the statement for the next db_prepare; NULL is a no-op. */
void db_finish(struct db_stmt *st);

int64_t db_col_i64(struct db_stmt *st, int col);
double db_col_double(struct db_stmt *st, int col);
bool db_col_null(struct db_stmt *st, int col);
/* Borrowed until the next db_step or db_finish; "" for NULL. */
const char *db_col_text(struct db_stmt *st, int col);
/* A *new* copy of a text column; NULL for SQL NULL or out of memory. */
char *db_col_strdup(struct db_stmt *st, int col);
/* Borrowed like db_col_text; NULL (and *len 0) for NULL. */
const void *db_col_blob(struct db_stmt *st, int col, size_t *len);
/* Columns of the result, their names (borrowed), and what a column holds in
 * this row: 'n' NULL, 'i' integer, 'd' real, 't' text, 'b' blob. */
int db_col_count(struct db_stmt *st);
const char *db_col_name(struct db_stmt *st, int col);
char db_col_kind(struct db_stmt *st, int col);

/* Prepare + step to the end (rows are skipped); returns 0 or a negative code. */
int db_run(struct db_conn *c, char **cause, const char *sql, const char *types, ...);
/* Prepare + one step: stores column 0 of the first row in *out; BW_ERR_NOTFOUND
 * if there is no row. */
int db_get_i64(struct db_conn *c, int64_t *out, char **cause, const char *sql, const char *types,
               ...);

/* Rows changed by the last INSERT, UPDATE or DELETE run on this connection. */
int db_changes(struct db_conn *c);

/* Takes a lock on (space, key) until the transaction ends: PostgreSQL's
 * pg_advisory_xact_lock; nothing for SQLite, whose writers are serialised. */
int db_lock_key(struct db_conn *c, int space, int64_t key, char **cause);

/* Tells every listener of the database `channel` (a short word) with
 * `payload` (at most BW_DB_SIGNAL_BYTES) when the current transaction commits
 * (at once outside one). */
int db_signal(struct db_conn *c, const char *channel, const char *payload, char **cause);

/* What a listener is called with: a channel and its payload, or channel NULL
 * after the listener lost its connection and got it back (signals may have
 * been missed meanwhile: look again at what matters). Runs on the listener's
 * thread (PostgreSQL) or on the thread that committed (SQLite); it must not
 * block for long. */
typedef void (*db_listen_fn)(void *arg, const char *channel, const char *payload);
/* Listens on `channels` (NULL-terminated, borrowed for the db's life): one
 * listener per db. PostgreSQL: a thread with its own connection. */
int db_listen(struct db *db, const char *const *channels, db_listen_fn fn, void *arg, char **cause);
/* Stops listening: fn is not called after it returns. */
void db_unlisten(struct db *db);

#endif
