/*
 * store_dump.c - export and import: every table of the store as JSON lines,
 * the same file from either backend, so that a deployment moves from its
 * SQLite file to PostgreSQL and back (docs/operations.md).
 *
 *   {"blockwise": "export", "format": 1, "schema": 8, "backend": "sqlite"}
 *   {"table": "users", "columns": ["id", "name", ...]}
 *   [1, "alice", ...]                       one row a line, in primary-key order
 *   ...
 *   {"end": true, "tables": 17, "rows": 1234}
 *
 * A value is null, an integer, a real, a string, or {"hex": "..."} for a
 * blob. Import needs an empty database migrated to the same schema version
 * (a file from an older server is imported by that server, then migrated by
 * this one starting on it), inserts every row in one transaction in the
 * order above (parents before the rows that name them), and on PostgreSQL
 * moves each identity past the largest id imported.
 */
#include "server/store/store.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "server/store/db.h"
#include "server/store/db_backend.h"
#include "server/store/store_impl.h"
#include "common/buf.h"
#include "common/error.h"
#include "common/banned.h"

#define DUMP_FORMAT 1

/* Every table, parents first, with the order its rows are written in and
 * whether its id is an identity to move after an import (PostgreSQL). */
static const struct {
    const char *name, *order;
    bool identity;
} tables[] = {
    {"users", "id", true},
    {"problems", "id", false},
    {"bundles", "hash", false},
    {"workers", "id", true},
    {"worker_languages", "worker_id, language", false},
    {"submissions", "id", true},
    {"leases", "id", false},
    {"test_results", "submission_id, idx", false},
    {"bench_results", "submission_id, idx", false},
    {"best", "user_id, problem_id, gpu_name, language", false},
    {"solved", "user_id, problem_id, language", false},
    {"sessions", "id_hash", false},
    {"api_tokens", "id", true},
    {"server_keys", "name", false},
    {"unlocks", "id", true},
    {"events", "id", true},
    {"throttles", "kind, key", false},
};
#define N_TABLES (sizeof(tables) / sizeof(tables[0]))

static json_t *cell(struct db_stmt *s, int col)
{
    switch (db_col_kind(s, col)) {
    case 'i':
        return json_integer(db_col_i64(s, col));
    case 'd':
        return json_real(db_col_double(s, col));
    case 't':
        return json_string(db_col_text(s, col));
    case 'b': {
        size_t n = 0;
        const unsigned char *p = db_col_blob(s, col, &n);
        char *hex = malloc(2 * n + 1);
        if (!hex)
            return NULL;
        for (size_t i = 0; i < n; i++)
            snprintf(hex + 2 * i, 3, "%02x", p[i]);
        hex[2 * n] = '\0';
        json_t *v = json_pack("{s:s}", "hex", hex);
        free(hex);
        return v;
    }
    default:
        return json_null();
    }
}

static int put_line(FILE *out, json_t *j, char **cause)
{
    char *text = j ? json_dumps(j, JSON_COMPACT | JSON_ENSURE_ASCII) : NULL;
    json_decref(j);
    if (!text)
        return bw_fail(cause, BW_ERR_NOMEM, "out of memory");
    int rc = fputs(text, out) < 0 || fputc('\n', out) < 0
                 ? bw_fail(cause, BW_ERR_IO, "cannot write the file")
                 : BW_OK;
    free(text);
    return rc;
}

static int export_table(struct db_conn *c, size_t t, FILE *out, int64_t *rows, char **cause)
{
    char sql[160];
    struct db_stmt *s = NULL;
    snprintf(sql, sizeof(sql), "SELECT * FROM %s ORDER BY %s", tables[t].name, tables[t].order);
    int rc = db_prepare_text(c, &s, cause, sql, "");
    if (rc == BW_OK)
        rc = db_step(s, cause);
    if (rc >= 0) {
        /* The columns, read once the statement ran (even with no row). */
        json_t *cols = json_array();
        for (int i = 0; i < db_col_count(s); i++)
            json_array_append_new(cols, json_string(db_col_name(s, i)));
        int w =
            put_line(out, json_pack("{s:s, s:o}", "table", tables[t].name, "columns", cols), cause);
        if (w < 0)
            rc = w;
    }
    while (rc == DB_ROW) {
        json_t *row = json_array();
        for (int i = 0; row && i < db_col_count(s); i++)
            if (json_array_append_new(row, cell(s, i)) < 0) {
                json_decref(row);
                row = NULL;
            }
        rc = put_line(out, row, cause);
        (*rows)++;
        if (rc == BW_OK)
            rc = db_step(s, cause);
    }
    db_finish(s);
    return rc < 0 ? rc : BW_OK;
}

int store_export(struct store *st, FILE *out, int64_t *rows, char **cause)
{
    struct db_conn *c = db_acquire(st->db);
    *rows = 0;
    /* One transaction: one consistent state of every table. */
    int rc = db_begin(c, cause);
    if (rc == BW_OK)
        rc =
            put_line(out,
                     json_pack("{s:s, s:i, s:i, s:s}", "blockwise", "export", "format", DUMP_FORMAT,
                               "schema", db_schema_latest(), "backend", db_backend_name(st->db)),
                     cause);
    for (size_t t = 0; rc == BW_OK && t < N_TABLES; t++)
        rc = export_table(c, t, out, rows, cause);
    if (rc == BW_OK)
        rc = put_line(out,
                      json_pack("{s:b, s:i, s:I}", "end", 1, "tables", (int)N_TABLES, "rows",
                                (json_int_t)*rows),
                      cause);
    db_rollback(c);
    db_release(st->db, c);
    if (rc == BW_OK && fflush(out) != 0)
        rc = bw_fail(cause, BW_ERR_IO, "cannot write the file");
    return rc;
}

/* Reads one line (at most BW_DUMP_LINE_BYTES) as JSON; NULL at the end of the file. */
static json_t *get_line(FILE *in, struct buf *b, int64_t *lineno, char **cause)
{
    buf_reset(b);
    int ch;
    while ((ch = fgetc(in)) != EOF && ch != '\n')
        if (buf_putc(b, (char)ch) < 0) {
            bw_fail(cause, BW_ERR_LIMIT, "line %lld is longer than BW_DUMP_LINE_BYTES",
                    (long long)*lineno + 1);
            return NULL;
        }
    if (ch == EOF && b->len == 0)
        return NULL;
    (*lineno)++;
    json_error_t e;
    json_t *j = json_loadb(b->data ? b->data : "", b->len, 0, &e);
    if (!j)
        bw_fail(cause, BW_ERR_INVALID, "line %lld: %s", (long long)*lineno, e.text);
    return j;
}

static int hex_value(char c)
{
    return c >= '0' && c <= '9' ? c - '0' : c >= 'a' && c <= 'f' ? c - 'a' + 10 : -1;
}

/* Binds a row's values as the parameters of an INSERT. blobs[] are *new*. */
static int row_params(json_t *row, size_t n, struct db_param *p, unsigned char **blobs,
                      int64_t line, char **cause)
{
    if (!json_is_array(row) || json_array_size(row) != n)
        return bw_fail(cause, BW_ERR_INVALID, "line %lld: expected %zu values", (long long)line, n);
    for (size_t i = 0; i < n; i++) {
        json_t *v = json_array_get(row, i);
        memset(&p[i], 0, sizeof(p[i]));
        blobs[i] = NULL;
        if (json_is_null(v)) {
            p[i].type = 'n';
        } else if (json_is_integer(v)) {
            p[i].type = 'i';
            p[i].i = json_integer_value(v);
        } else if (json_is_real(v)) {
            p[i].type = 'd';
            p[i].d = json_real_value(v);
        } else if (json_is_string(v)) {
            p[i].type = 't';
            p[i].t = json_string_value(v);
        } else {
            const char *hex = json_string_value(json_object_get(v, "hex"));
            size_t len = hex ? strlen(hex) : 1;
            if (!hex || len % 2)
                return bw_fail(cause, BW_ERR_INVALID, "line %lld: value %zu is not one",
                               (long long)line, i + 1);
            blobs[i] = malloc(len / 2 + 1);
            if (!blobs[i])
                return bw_fail(cause, BW_ERR_NOMEM, "out of memory");
            for (size_t k = 0; k < len / 2; k++) {
                int hi = hex_value(hex[2 * k]), lo = hex_value(hex[2 * k + 1]);
                if (hi < 0 || lo < 0)
                    return bw_fail(cause, BW_ERR_INVALID, "line %lld: bad hex", (long long)line);
                blobs[i][k] = (unsigned char)(hi * 16 + lo);
            }
            p[i].type = 'b';
            p[i].b = blobs[i];
            p[i].n = len / 2;
        }
    }
    return BW_OK;
}

/* "INSERT INTO t(c1, ...) VALUES (?, ...)" for a table header; *new*. */
static char *insert_sql(const char *table, json_t *cols, size_t *n, char **cause)
{
    struct buf b;
    buf_init(&b, 64 * 1024);
    *n = json_array_size(cols);
    buf_addf(&b, "INSERT INTO %s(", table);
    for (size_t i = 0; i < *n; i++) {
        const char *col = json_string_value(json_array_get(cols, i));
        for (const char *p = col; p && *p; p++)
            if (!((*p >= 'a' && *p <= 'z') || *p == '_' || (*p >= '0' && *p <= '9')))
                col = NULL;
        if (!col || !*col) {
            buf_release(&b);
            bw_fail(cause, BW_ERR_INVALID, "table %s: a column is not a name", table);
            return NULL;
        }
        buf_addf(&b, "%s%s", i ? ", " : "", col);
    }
    buf_puts(&b, ") VALUES (");
    for (size_t i = 0; i < *n; i++)
        buf_puts(&b, i ? ", ?" : "?");
    buf_puts(&b, ")");
    char *sql = buf_detach(&b);
    if (!sql)
        bw_fail(cause, BW_ERR_NOMEM, "out of memory");
    return sql;
}

static int table_index(const char *name)
{
    for (size_t t = 0; name && t < N_TABLES; t++)
        if (strcmp(tables[t].name, name) == 0)
            return (int)t;
    return -1;
}

struct import_arg {
    FILE *in;
    int64_t rows;
};

static int import_tx(struct db_conn *c, void *arg, char **cause)
{
    struct import_arg *a = arg;
    struct buf b;
    int64_t line = 0, have = 0;
    char *sql = NULL;
    size_t n_cols = 0;
    int rc = BW_OK, last_table = -1;
    bool ended = false;
    a->rows = 0;
    buf_init(&b, BW_DUMP_LINE_BYTES);
    for (size_t t = 0; rc == BW_OK && t < N_TABLES; t++) {
        char count[96];
        snprintf(count, sizeof(count), "SELECT COUNT(*) FROM %s", tables[t].name);
        struct db_stmt *s = NULL;
        rc = db_prepare_text(c, &s, cause, count, "");
        if (rc == BW_OK && (rc = db_step(s, cause)) == DB_ROW) {
            have += db_col_i64(s, 0);
            rc = BW_OK;
        }
        db_finish(s);
    }
    if (rc == BW_OK && have > 0)
        rc = bw_fail(cause, BW_ERR_INVALID,
                     "the database is not empty (%lld rows): import into a new one",
                     (long long)have);
    json_t *head = rc == BW_OK ? get_line(a->in, &b, &line, cause) : NULL;
    if (rc == BW_OK && !head && !*cause)
        rc = bw_fail(cause, BW_ERR_INVALID, "the file is empty");
    else if (rc == BW_OK && !head)
        rc = BW_ERR_INVALID;
    if (rc == BW_OK) {
        const char *what = json_string_value(json_object_get(head, "blockwise"));
        json_int_t schema = json_integer_value(json_object_get(head, "schema"));
        json_int_t format = json_integer_value(json_object_get(head, "format"));
        if (!what || strcmp(what, "export") != 0 || format != DUMP_FORMAT)
            rc = bw_fail(cause, BW_ERR_INVALID, "not a blockwise-server export (format %d)",
                         DUMP_FORMAT);
        else if (schema != db_schema_latest())
            rc = bw_fail(cause, BW_ERR_INVALID,
                         "the file is of schema %lld, this server's is %d: import it "
                         "with a server of that version, then start this one on it",
                         (long long)schema, db_schema_latest());
    }
    json_decref(head);
    while (rc == BW_OK && !ended) {
        json_t *j = get_line(a->in, &b, &line, cause);
        if (!j) {
            rc = *cause ? BW_ERR_INVALID
                        : bw_fail(cause, BW_ERR_INVALID, "the file ends before its last line");
            break;
        }
        if (json_is_object(j) && json_object_get(j, "end")) {
            ended = true;
        } else if (json_is_object(j)) {
            int t = table_index(json_string_value(json_object_get(j, "table")));
            if (t <= last_table)
                rc = bw_fail(cause, BW_ERR_INVALID,
                             "line %lld: an unknown table, or out "
                             "of order",
                             (long long)line);
            free(sql);
            sql = rc == BW_OK
                      ? insert_sql(tables[t].name, json_object_get(j, "columns"), &n_cols, cause)
                      : NULL;
            if (rc == BW_OK && !sql)
                rc = BW_ERR_INVALID;
            last_table = t;
        } else if (!sql) {
            rc = bw_fail(cause, BW_ERR_INVALID, "line %lld: a row before its table",
                         (long long)line);
        } else {
            struct db_param p[DB_MAX_PARAMS];
            unsigned char *blobs[DB_MAX_PARAMS] = {NULL};
            struct db_stmt *s = NULL;
            rc = n_cols <= DB_MAX_PARAMS ? row_params(j, n_cols, p, blobs, line, cause)
                                         : bw_fail(cause, BW_ERR_INVALID, "too many columns");
            if (rc == BW_OK)
                rc = db_prepare_params(c, &s, cause, sql, p, (int)n_cols);
            if (rc == BW_OK)
                rc = db_step(s, cause);
            db_finish(s);
            for (size_t i = 0; i < n_cols && i < DB_MAX_PARAMS; i++)
                free(blobs[i]);
            if (rc >= 0) {
                rc = BW_OK;
                a->rows++;
            } else {
                bw_wrap(cause, rc, "line %lld", (long long)line);
            }
        }
        json_decref(j);
    }
    free(sql);
    buf_release(&b);
    /* PostgreSQL: each identity goes past the largest id imported. */
    for (size_t t = 0; rc == BW_OK && t < N_TABLES; t++) {
        if (!tables[t].identity || db_conn_backend(c) != DB_POSTGRESQL)
            continue;
        char reset[256];
        snprintf(reset, sizeof(reset),
                 "SELECT setval(pg_get_serial_sequence('%s', 'id'), "
                 "COALESCE((SELECT MAX(id) FROM %s), 0) + 1, false)",
                 tables[t].name, tables[t].name);
        rc = db_exec(c, reset, cause);
    }
    return rc;
}

int store_import(struct store *st, FILE *in, int64_t *rows, char **cause)
{
    struct import_arg a = {in, 0};
    struct db_conn *c = db_acquire(st->db);
    int rc = db_begin(c, cause);
    if (rc == BW_OK)
        rc = import_tx(c, &a, cause);
    if (rc == BW_OK)
        rc = db_commit(c, cause);
    else
        db_rollback(c);
    db_release(st->db, c);
    *rows = a.rows;
    return rc;
}
