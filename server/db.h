/*
 * db.h - the server's SQLite database: a pool of connections to one file.
 *
 * This is the ONE place where SQLite's result codes are translated into
 * enum bw_code (constraint -> BW_ERR_INVALID, busy/locked -> BW_ERR_TIMEOUT,
 * out of memory -> BW_ERR_NOMEM, I/O and full disk -> BW_ERR_IO, anything
 * else -> BW_ERR_INTERNAL), with SQLite's message in the cause.
 *
 * db_open() opens the file in WAL mode (synchronous=FULL, so a committed
 * transaction survives a power cut: a submission is durable before the
 * server answers 201), turns foreign keys on, and migrates the schema: the
 * migrations of schema.sql (embedded at build time) whose number is above
 * PRAGMA user_version are applied in order, each in one transaction.
 *
 * Threads: each thread takes a connection with db_acquire() and gives it back
 * with db_release(); a connection is used by one thread at a time. Writes go
 * through db_begin() (BEGIN IMMEDIATE, so two writers never deadlock on a lock
 * upgrade) and SQLite's busy timeout serialises them.
 */
#ifndef BW_SERVER_DB_H
#define BW_SERVER_DB_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct db;
struct db_conn;
struct db_stmt;

enum { DB_DONE = 0, DB_ROW = 1 };

/* Opens (creating if needed) and migrates the database at `path` with
 * `n_conns` connections (at least 1). *out is new; free with db_close. */
int db_open(const char *path, int n_conns, struct db **out, char **cause);
/* Checkpoints the WAL and closes every connection; NULL is a no-op. */
void db_close(struct db *db);

/* The schema version the binary carries (the last migration's number). */
int db_schema_latest(void);
/* The embedded schema.sql text (borrowed, NUL-terminated). */
const char *db_schema_text(void);

/* Takes a connection (waits while all are in use); never NULL. */
struct db_conn *db_acquire(struct db *db);
void db_release(struct db *db, struct db_conn *c);

/* BEGIN IMMEDIATE / COMMIT / ROLLBACK. db_rollback never fails visibly. */
int db_begin(struct db_conn *c, char **cause);
int db_commit(struct db_conn *c, char **cause);
void db_rollback(struct db_conn *c);

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
const void *db_col_blob(struct db_stmt *st, int col, size_t *len);

/* Prepare + step to the end (no rows expected); returns 0 or a negative code. */
int db_run(struct db_conn *c, char **cause, const char *sql, const char *types, ...);
/* Prepare + one step: stores column 0 of the first row in *out; BW_ERR_NOTFOUND
 * if there is no row. */
int db_get_i64(struct db_conn *c, int64_t *out, char **cause, const char *sql, const char *types,
               ...);

int64_t db_last_id(struct db_conn *c);
int db_changes(struct db_conn *c);

#endif
