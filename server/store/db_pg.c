/*
 * db_pg.c - the driver's PostgreSQL backend, over libpq.
 *
 * libpq is opened at run time (dlopen of libpq.so.5) the first time a
 * postgresql:// database is opened, as judged opens the CUDA driver: the same
 * blockwise-server binary starts where libpq is not installed (the GPU
 * machines) and serves its SQLite file there. This is the only file that
 * includes libpq-fe.h, and so the one place SQLSTATEs become enum bw_code:
 * class 23 (a constraint) and 22 (bad data) BW_ERR_INVALID; 40001 and 40P01
 * (serialization failure, deadlock) BW_ERR_TIMEOUT and retryable (db_tx runs
 * the transaction again); 55P03 and 57014 BW_ERR_TIMEOUT; 53200 BW_ERR_NOMEM;
 * class 08, 53, 57 and a lost connection BW_ERR_IO; anything else
 * BW_ERR_INTERNAL.
 *
 * Statements are prepared on the server once per connection, when first run,
 * with their parameters' types taken from the bind letters (int8, float8,
 * text, bytea), so that an expression such as NULLIF(?, 0) or ? IS NULL has
 * one meaning. Values travel as text (bytea in binary); results come back as
 * text and are parsed here (booleans as 1 and 0, bytea unescaped).
 *
 * Transactions run at READ COMMITTED; the store takes the row locks its
 * invariants need (queue.h). The listener is a thread with a connection of
 * its own that LISTENs on the store's channels and calls the store's
 * function for each NOTIFY, in commit order; when its connection is lost it
 * connects again and says so (a NULL channel), since notifications sent
 * meanwhile are lost.
 */
#include <dlfcn.h>
#include <errno.h>
#include <poll.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <libpq-fe.h>

#include "server/store/db_backend.h"
#include "common/error.h"
#include "common/log.h"
#include "common/banned.h"

/* PostgreSQL's type OIDs (pg_type.h, stable across versions). */
enum {
    OID_BOOL = 16,
    OID_BYTEA = 17,
    OID_INT8 = 20,
    OID_INT2 = 21,
    OID_INT4 = 23,
    OID_TEXT = 25,
    OID_FLOAT4 = 700,
    OID_FLOAT8 = 701,
    OID_NUMERIC = 1700,
};

#define PG_MIGRATION_LOCK 0x62770001 /* pg_advisory_lock key of the schema migration */

/* The part of libpq the driver calls, resolved once from libpq.so.5. */
static struct {
    PGconn *(*connectdb)(const char *);
    ConnStatusType (*status)(const PGconn *);
    char *(*errorMessage)(const PGconn *);
    void (*finish)(PGconn *);
    PGresult *(*exec)(PGconn *, const char *);
    PGresult *(*execParams)(PGconn *, const char *, int, const Oid *, const char *const *,
                            const int *, const int *, int);
    PGresult *(*prepare)(PGconn *, const char *, const char *, int, const Oid *);
    PGresult *(*execPrepared)(PGconn *, const char *, int, const char *const *, const int *,
                              const int *, int);
    ExecStatusType (*resultStatus)(const PGresult *);
    char *(*resultErrorField)(const PGresult *, int);
    void (*clear)(PGresult *);
    int (*ntuples)(const PGresult *);
    int (*nfields)(const PGresult *);
    char *(*fname)(const PGresult *, int);
    Oid (*ftype)(const PGresult *, int);
    char *(*getvalue)(const PGresult *, int, int);
    int (*getlength)(const PGresult *, int, int);
    int (*getisnull)(const PGresult *, int, int);
    char *(*cmdTuples)(PGresult *);
    unsigned char *(*unescapeBytea)(const unsigned char *, size_t *);
    void (*freemem)(void *);
    int (*socket)(const PGconn *);
    int (*consumeInput)(PGconn *);
    PGnotify *(*notifies)(PGconn *);
    PGTransactionStatusType (*transactionStatus)(const PGconn *);
    PQnoticeProcessor (*setNoticeProcessor)(PGconn *, PQnoticeProcessor, void *);
} pq;

static pthread_once_t pq_once = PTHREAD_ONCE_INIT;
static char pq_error[256];

#define PQ_SYM(field, name)                                                                        \
    {                                                                                              \
        (void **)&pq.field, name                                                                   \
    }

static void pq_load(void)
{
    const struct {
        void **slot;
        const char *name;
    } syms[] = {
        PQ_SYM(connectdb, "PQconnectdb"),
        PQ_SYM(status, "PQstatus"),
        PQ_SYM(errorMessage, "PQerrorMessage"),
        PQ_SYM(finish, "PQfinish"),
        PQ_SYM(exec, "PQexec"),
        PQ_SYM(execParams, "PQexecParams"),
        PQ_SYM(prepare, "PQprepare"),
        PQ_SYM(execPrepared, "PQexecPrepared"),
        PQ_SYM(resultStatus, "PQresultStatus"),
        PQ_SYM(resultErrorField, "PQresultErrorField"),
        PQ_SYM(clear, "PQclear"),
        PQ_SYM(ntuples, "PQntuples"),
        PQ_SYM(nfields, "PQnfields"),
        PQ_SYM(fname, "PQfname"),
        PQ_SYM(ftype, "PQftype"),
        PQ_SYM(getvalue, "PQgetvalue"),
        PQ_SYM(getlength, "PQgetlength"),
        PQ_SYM(getisnull, "PQgetisnull"),
        PQ_SYM(cmdTuples, "PQcmdTuples"),
        PQ_SYM(unescapeBytea, "PQunescapeBytea"),
        PQ_SYM(freemem, "PQfreemem"),
        PQ_SYM(socket, "PQsocket"),
        PQ_SYM(consumeInput, "PQconsumeInput"),
        PQ_SYM(notifies, "PQnotifies"),
        PQ_SYM(transactionStatus, "PQtransactionStatus"),
        PQ_SYM(setNoticeProcessor, "PQsetNoticeProcessor"),
    };
    void *lib = dlopen("libpq.so.5", RTLD_NOW | RTLD_LOCAL);
    if (!lib) {
        snprintf(pq_error, sizeof(pq_error),
                 "cannot open libpq.so.5 (install libpq5: apt-get install libpq5): %s", dlerror());
        return;
    }
    for (size_t i = 0; i < sizeof(syms) / sizeof(syms[0]); i++) {
        *syms[i].slot = dlsym(lib, syms[i].name);
        if (!*syms[i].slot) {
            snprintf(pq_error, sizeof(pq_error), "libpq.so.5 has no %s", syms[i].name);
            return;
        }
    }
}

static int pq_ready(char **cause)
{
    pthread_once(&pq_once, pq_load);
    if (pq_error[0])
        return bw_fail(cause, BW_ERR_IO, "postgresql: %s", pq_error);
    return BW_OK;
}

/* A connection's backend state (db_conn.h). */
struct pg_conn {
    PGconn *pg;
    int changes;        /* rows of the last command */
    unsigned next_name; /* prepared statements: "bw1", "bw2", ... */
};

/* A statement (db_stmt.h). */
struct pg_stmt {
    char *sql;     /* the translated text */
    char name[16]; /* "" until prepared on the server ("" for a spare: never) */
    bool keep;
    char types[DB_MAX_PARAMS + 1]; /* the bind letters it was prepared with */
    int n;
    const char *values[DB_MAX_PARAMS];
    int lengths[DB_MAX_PARAMS], formats[DB_MAX_PARAMS];
    char *owned[DB_MAX_PARAMS];
    PGresult *res;
    int row, rows;
    unsigned char *blob; /* the last unescaped bytea */
    size_t blob_len;
};

static void quiet(void *arg, const char *message)
{
    (void)arg, (void)message; /* NOTICEs (IF NOT EXISTS ...) are not the log's business */
}

static int pg_state_code(const char *state, bool *retryable)
{
    *retryable = false;
    if (!state || strlen(state) != 5)
        return BW_ERR_INTERNAL;
    if (strcmp(state, "40001") == 0 || strcmp(state, "40P01") == 0) {
        *retryable = true;
        return BW_ERR_TIMEOUT;
    }
    if (strcmp(state, "55P03") == 0 || strcmp(state, "57014") == 0)
        return BW_ERR_TIMEOUT;
    if (strcmp(state, "53200") == 0)
        return BW_ERR_NOMEM;
    if (strncmp(state, "23", 2) == 0 || strncmp(state, "22", 2) == 0)
        return BW_ERR_INVALID;
    if (strncmp(state, "08", 2) == 0 || strncmp(state, "53", 2) == 0 ||
        strncmp(state, "57", 2) == 0)
        return BW_ERR_IO;
    return BW_ERR_INTERNAL;
}

/* A failed result (res may be NULL: then the connection says why). */
static int pg_fail(struct db_conn *c, PGresult *res, char **cause, const char *what)
{
    struct pg_conn *p = c->h;
    bool retryable = false;
    int code;
    const char *msg;
    if (res) {
        code = pg_state_code(pq.resultErrorField(res, PG_DIAG_SQLSTATE), &retryable);
        msg = pq.resultErrorField(res, PG_DIAG_MESSAGE_PRIMARY);
    } else {
        code = BW_ERR_IO;
        msg = NULL;
    }
    if (pq.status(p->pg) == CONNECTION_BAD)
        code = BW_ERR_IO;
    c->retryable = retryable;
    if (!msg)
        msg = pq.errorMessage(p->pg);
    size_t n = strcspn(msg ? msg : "", "\n");
    return bw_fail(cause, code, "postgresql: %s: %.*s", what, (int)n, msg ? msg : "");
}

static bool ok(PGresult *res)
{
    ExecStatusType s = res ? pq.resultStatus(res) : PGRES_FATAL_ERROR;
    return s == PGRES_COMMAND_OK || s == PGRES_TUPLES_OK;
}

static int pg_open_conn(const char *target, PGconn **out, char **cause)
{
    int rc = pq_ready(cause);
    if (rc < 0)
        return rc;
    PGconn *pg = pq.connectdb(target);
    if (!pg)
        return bw_fail(cause, BW_ERR_NOMEM, "postgresql: out of memory");
    if (pq.status(pg) != CONNECTION_OK) {
        const char *msg = pq.errorMessage(pg);
        size_t n = strcspn(msg, "\n");
        rc = bw_fail(cause, BW_ERR_IO, "postgresql: connect: %.*s", (int)n, msg);
        pq.finish(pg);
        return rc;
    }
    pq.setNoticeProcessor(pg, quiet, NULL);
    *out = pg;
    return BW_OK;
}

static int pg_connect(struct db *db, struct db_conn *c, char **cause)
{
    struct pg_conn *p = calloc(1, sizeof(*p));
    if (!p)
        return bw_fail(cause, BW_ERR_NOMEM, "out of memory");
    int rc = pg_open_conn(db->target, &p->pg, cause);
    if (rc < 0) {
        free(p);
        return rc;
    }
    c->h = p;
    return BW_OK;
}

static void pg_disconnect(struct db_conn *c)
{
    struct pg_conn *p = c->h;
    pq.finish(p->pg);
    free(p);
}

static bool pg_healthy(struct db_conn *c)
{
    struct pg_conn *p = c->h;
    return pq.status(p->pg) == CONNECTION_OK;
}

static int pg_exec(struct db_conn *c, const char *sql, char **cause)
{
    struct pg_conn *p = c->h;
    PGresult *res = pq.exec(p->pg, sql);
    int rc = ok(res) ? BW_OK : pg_fail(c, res, cause, "exec");
    pq.clear(res);
    return rc;
}

static int pg_begin(struct db_conn *c, char **cause)
{
    return pg_exec(c, "BEGIN", cause);
}

static bool pg_in_tx(struct db_conn *c)
{
    struct pg_conn *p = c->h;
    return pq.transactionStatus(p->pg) != PQTRANS_IDLE;
}

/* `?` -> $1, $2, ... outside string literals. */
static char *pg_translate(const char *sql)
{
    size_t n = strlen(sql), marks = 0;
    for (size_t i = 0; i < n; i++)
        marks += sql[i] == '?';
    if (!marks)
        return NULL;
    char *out = malloc(n + marks * 4 + 1);
    if (!out)
        return NULL;
    size_t o = 0;
    int k = 0;
    bool quoted = false;
    for (size_t i = 0; i < n; i++) {
        if (sql[i] == '\'')
            quoted = !quoted;
        if (sql[i] == '?' && !quoted)
            o += (size_t)snprintf(out + o, 5, "$%d", ++k); /* "$" and up to 3 digits */
        else
            out[o++] = sql[i];
    }
    out[o] = '\0';
    return out;
}

static int pg_prepare(struct db_stmt *st, const char *sql, bool keep, char **cause)
{
    struct pg_stmt *s = calloc(1, sizeof(*s));
    if (!s || !(s->sql = strdup(sql))) {
        free(s);
        return bw_fail(cause, BW_ERR_NOMEM, "out of memory");
    }
    s->keep = keep;
    st->h = s;
    return BW_OK;
}

static void clear_run(struct pg_stmt *s)
{
    for (int k = 0; k < s->n; k++) {
        free(s->owned[k]);
        s->owned[k] = NULL;
    }
    s->n = 0;
    if (s->res)
        pq.clear(s->res);
    s->res = NULL;
    s->row = s->rows = 0;
    if (s->blob)
        pq.freemem(s->blob);
    s->blob = NULL;
}

static void pg_finalize(struct db_stmt *st)
{
    struct pg_stmt *s = st->h;
    if (!s)
        return;
    clear_run(s);
    free(s->sql);
    free(s);
}

static Oid type_oid(char t)
{
    switch (t) {
    case 'i':
        return OID_INT8;
    case 'd':
        return OID_FLOAT8;
    case 't':
        return OID_TEXT;
    case 'b':
        return OID_BYTEA;
    default:
        return 0; /* 'n': PostgreSQL infers it */
    }
}

static int pg_bind(struct db_stmt *st, const struct db_param *p, int n, char **cause)
{
    struct pg_stmt *s = st->h;
    clear_run(s);
    s->n = n;
    for (int k = 0; k < n; k++) {
        char num[40];
        s->lengths[k] = 0;
        s->formats[k] = 0;
        s->values[k] = NULL;
        switch (p[k].type) {
        case 'i':
            snprintf(num, sizeof(num), "%lld", (long long)p[k].i);
            s->owned[k] = strdup(num);
            break;
        case 'd':
            if (p[k].d != p[k].d)
                snprintf(num, sizeof(num), "NaN");
            else if (p[k].d > 1e308 || p[k].d < -1e308)
                snprintf(num, sizeof(num), "%sInfinity", p[k].d < 0 ? "-" : "");
            else
                snprintf(num, sizeof(num), "%.17g", p[k].d);
            s->owned[k] = strdup(num);
            break;
        case 't':
            s->owned[k] = p[k].t ? strdup(p[k].t) : NULL;
            if (p[k].t && !s->owned[k])
                return bw_fail(cause, BW_ERR_NOMEM, "out of memory");
            break;
        case 'b':
            s->owned[k] = malloc(p[k].n ? p[k].n : 1);
            if (s->owned[k] && p[k].n)
                memcpy(s->owned[k], p[k].b, p[k].n);
            s->lengths[k] = (int)p[k].n;
            s->formats[k] = 1;
            break;
        default:
            break;
        }
        if ((p[k].type == 'i' || p[k].type == 'd' || p[k].type == 'b') && !s->owned[k])
            return bw_fail(cause, BW_ERR_NOMEM, "out of memory");
        s->values[k] = s->owned[k];
        if (!s->name[0])
            s->types[k] = p[k].type;
    }
    if (!s->name[0])
        s->types[n] = '\0';
    return BW_OK;
}

static int run(struct db_stmt *st, char **cause)
{
    struct db_conn *c = st->conn;
    struct pg_conn *p = c->h;
    struct pg_stmt *s = st->h;
    Oid oids[DB_MAX_PARAMS];
    int n = (int)strlen(s->types);
    for (int k = 0; k < n; k++)
        oids[k] = type_oid(s->types[k]);
    if (s->keep && !s->name[0]) {
        char name[16];
        snprintf(name, sizeof(name), "bw%u", ++p->next_name);
        PGresult *res = pq.prepare(p->pg, name, s->sql, n, oids);
        int rc = ok(res) ? BW_OK : pg_fail(c, res, cause, "prepare");
        pq.clear(res);
        if (rc < 0)
            return rc;
        snprintf(s->name, sizeof(s->name), "%s", name);
    }
    s->res = s->keep
                 ? pq.execPrepared(p->pg, s->name, s->n, s->values, s->lengths, s->formats, 0)
                 : pq.execParams(p->pg, s->sql, s->n, oids, s->values, s->lengths, s->formats, 0);
    if (!ok(s->res)) {
        int rc = pg_fail(c, s->res, cause, "step");
        pq.clear(s->res);
        s->res = NULL;
        return rc;
    }
    s->rows = pq.ntuples(s->res);
    s->row = -1;
    const char *changed = pq.cmdTuples(s->res);
    p->changes = changed && *changed ? (int)strtol(changed, NULL, 10) : 0;
    return BW_OK;
}

static int pg_step(struct db_stmt *st, char **cause)
{
    struct pg_stmt *s = st->h;
    if (!s->res) {
        int rc = run(st, cause);
        if (rc < 0)
            return rc;
    }
    if (s->blob) {
        pq.freemem(s->blob);
        s->blob = NULL;
    }
    s->row++;
    return s->row < s->rows ? DB_ROW : DB_DONE;
}

static void pg_reset(struct db_stmt *st)
{
    clear_run(st->h);
}

static bool in_row(const struct pg_stmt *s, int col)
{
    return s->res && s->row >= 0 && s->row < s->rows && col >= 0 && col < pq.nfields(s->res);
}

static bool pg_col_null(struct db_stmt *st, int col)
{
    struct pg_stmt *s = st->h;
    return !in_row(s, col) || pq.getisnull(s->res, s->row, col);
}

static const char *pg_col_text(struct db_stmt *st, int col)
{
    struct pg_stmt *s = st->h;
    return in_row(s, col) ? pq.getvalue(s->res, s->row, col) : NULL;
}

static int64_t pg_col_i64(struct db_stmt *st, int col)
{
    struct pg_stmt *s = st->h;
    if (pg_col_null(st, col))
        return 0;
    const char *v = pq.getvalue(s->res, s->row, col);
    if (pq.ftype(s->res, col) == OID_BOOL)
        return v[0] == 't';
    if (strpbrk(v, ".eE"))
        return (int64_t)strtod(v, NULL);
    return strtoll(v, NULL, 10);
}

static double pg_col_double(struct db_stmt *st, int col)
{
    struct pg_stmt *s = st->h;
    if (pg_col_null(st, col))
        return 0;
    const char *v = pq.getvalue(s->res, s->row, col);
    if (pq.ftype(s->res, col) == OID_BOOL)
        return v[0] == 't';
    return strtod(v, NULL);
}

static const void *pg_col_blob(struct db_stmt *st, int col, size_t *len)
{
    struct pg_stmt *s = st->h;
    *len = 0;
    if (pg_col_null(st, col))
        return NULL;
    if (pq.ftype(s->res, col) != OID_BYTEA) {
        *len = (size_t)pq.getlength(s->res, s->row, col);
        return pq.getvalue(s->res, s->row, col);
    }
    if (s->blob)
        pq.freemem(s->blob);
    s->blob =
        pq.unescapeBytea((const unsigned char *)pq.getvalue(s->res, s->row, col), &s->blob_len);
    *len = s->blob ? s->blob_len : 0;
    return s->blob;
}

static int pg_col_count(struct db_stmt *st)
{
    struct pg_stmt *s = st->h;
    return s->res ? pq.nfields(s->res) : 0;
}

static const char *pg_col_name(struct db_stmt *st, int col)
{
    struct pg_stmt *s = st->h;
    return s->res ? pq.fname(s->res, col) : "";
}

static char pg_col_kind(struct db_stmt *st, int col)
{
    struct pg_stmt *s = st->h;
    if (pg_col_null(st, col))
        return 'n';
    switch (pq.ftype(s->res, col)) {
    case OID_BOOL:
    case OID_INT2:
    case OID_INT4:
    case OID_INT8:
        return 'i';
    case OID_FLOAT4:
    case OID_FLOAT8:
    case OID_NUMERIC:
        return 'd';
    case OID_BYTEA:
        return 'b';
    default:
        return 't';
    }
}

static int pg_changes(struct db_conn *c)
{
    struct pg_conn *p = c->h;
    return p->changes;
}

/* One statement with text parameters, its rows discarded. */
static int pg_run_text(struct db_conn *c, const char *sql, int n, const char *const *values,
                       const char *what, char **cause)
{
    struct pg_conn *p = c->h;
    PGresult *res = pq.execParams(p->pg, sql, n, NULL, values, NULL, NULL, 0);
    int rc = ok(res) ? BW_OK : pg_fail(c, res, cause, what);
    pq.clear(res);
    return rc;
}

static int pg_lock_key(struct db_conn *c, int space, int64_t key, char **cause)
{
    char a[24], b[24];
    snprintf(a, sizeof(a), "%d", space);
    snprintf(b, sizeof(b), "%d", (int)(key & 0x7fffffff));
    const char *v[] = {a, b};
    return pg_run_text(c, "SELECT pg_advisory_xact_lock($1::int4, $2::int4)", 2, v, "lock", cause);
}

static int pg_signal(struct db_conn *c, const char *channel, const char *payload, char **cause)
{
    const char *v[] = {channel, payload};
    return pg_run_text(c, "SELECT pg_notify($1, $2)", 2, v, "notify", cause);
}

static int pg_migrate_lock(struct db_conn *c, bool take, char **cause)
{
    char key[24];
    snprintf(key, sizeof(key), "%d", PG_MIGRATION_LOCK);
    const char *v[] = {key};
    return pg_run_text(
        c, take ? "SELECT pg_advisory_lock($1::int8)" : "SELECT pg_advisory_unlock($1::int8)", 1, v,
        "migration lock", cause);
}

static int pg_get_version(struct db_conn *c, int64_t *v, char **cause)
{
    struct pg_conn *p = c->h;
    *v = 0;
    PGresult *res = pq.exec(p->pg, "SELECT to_regclass('schema_version') IS NOT NULL");
    int rc = ok(res) ? BW_OK : pg_fail(c, res, cause, "schema version");
    bool exists = rc == BW_OK && pq.ntuples(res) == 1 && pq.getvalue(res, 0, 0)[0] == 't';
    pq.clear(res);
    if (rc < 0 || !exists)
        return rc;
    res = pq.exec(p->pg, "SELECT COALESCE(MAX(version), 0) FROM schema_version");
    rc = ok(res) ? BW_OK : pg_fail(c, res, cause, "schema version");
    if (rc == BW_OK && pq.ntuples(res) == 1)
        *v = strtoll(pq.getvalue(res, 0, 0), NULL, 10);
    pq.clear(res);
    return rc;
}

static int pg_set_version(struct db_conn *c, int v, char **cause)
{
    char sql[160];
    snprintf(sql, sizeof(sql),
             "CREATE TABLE IF NOT EXISTS schema_version (version BIGINT NOT NULL); "
             "DELETE FROM schema_version; INSERT INTO schema_version VALUES (%d)",
             v);
    return pg_exec(c, sql, cause);
}

/* --- the listener ----------------------------------------------------------------- */

struct pg_listener {
    pthread_t thread;
    int wake[2]; /* a byte on wake[1] stops the thread */
    struct db *db;
};

static int listen_all(struct db *db, PGconn *pg)
{
    for (const char *const *ch = db->channels; ch && *ch; ch++) {
        char sql[64];
        snprintf(sql, sizeof(sql), "LISTEN %s", *ch);
        PGresult *res = pq.exec(pg, sql);
        bool good = ok(res);
        pq.clear(res);
        if (!good)
            return BW_ERR_IO;
    }
    return BW_OK;
}

/* Waits up to ms for the wake pipe; true when the thread must stop. */
static bool stop_requested(struct pg_listener *l, int ms)
{
    struct pollfd p = {l->wake[0], POLLIN, 0};
    return poll(&p, 1, ms) > 0;
}

static void *listener(void *arg)
{
    struct pg_listener *l = arg;
    struct db *db = l->db;
    PGconn *pg = NULL;
    bool lost = false;
    int backoff_ms = 100;
    for (;;) {
        if (!pg) {
            char *cause = NULL;
            if (pg_open_conn(db->target, &pg, &cause) < 0 || listen_all(db, pg) < 0) {
                if (!lost)
                    log_error("store: listener: %s; trying again", cause ? cause : "LISTEN failed");
                free(cause);
                if (pg)
                    pq.finish(pg);
                pg = NULL;
                lost = true;
                if (stop_requested(l, backoff_ms))
                    break;
                backoff_ms = backoff_ms < 2000 ? backoff_ms * 2 : 2000;
                continue;
            }
            backoff_ms = 100;
            if (lost) {
                log_warn("store: listener: connected again; looking again at what it missed");
                db->listen_fn(db->listen_arg, NULL, NULL);
            }
            lost = false;
        }
        struct pollfd fds[2] = {{l->wake[0], POLLIN, 0}, {pq.socket(pg), POLLIN, 0}};
        int n = poll(fds, 2, 1000);
        if (n < 0 && errno != EINTR)
            break;
        if (fds[0].revents)
            break;
        if (n > 0 && fds[1].revents) {
            if (!pq.consumeInput(pg) || pq.status(pg) != CONNECTION_OK) {
                log_error("store: listener: lost its connection; connecting again");
                pq.finish(pg);
                pg = NULL;
                lost = true;
                continue;
            }
        }
        PGnotify *note;
        while ((note = pq.notifies(pg)) != NULL) {
            db->listen_fn(db->listen_arg, note->relname, note->extra);
            pq.freemem(note);
        }
    }
    if (pg)
        pq.finish(pg);
    return NULL;
}

static int pg_listen_start(struct db *db, char **cause)
{
    struct pg_listener *l = calloc(1, sizeof(*l));
    if (!l)
        return bw_fail(cause, BW_ERR_NOMEM, "out of memory");
    l->db = db;
    if (pipe(l->wake) != 0) {
        free(l);
        return bw_fail(cause, BW_ERR_SYSTEM, "pipe: %s", strerror(errno));
    }
    if (pthread_create(&l->thread, NULL, listener, l) != 0) {
        close(l->wake[0]);
        close(l->wake[1]);
        free(l);
        return bw_fail(cause, BW_ERR_SYSTEM, "cannot start the store's listener thread");
    }
    db->listener = l;
    return BW_OK;
}

static void pg_listen_stop(struct db *db)
{
    struct pg_listener *l = db->listener;
    if (write(l->wake[1], "x", 1) < 0)
        log_errno(LOG_ERROR, "store: listener: stop");
    pthread_join(l->thread, NULL);
    close(l->wake[0]);
    close(l->wake[1]);
    free(l);
    db->listener = NULL;
}

const struct db_ops db_pg_ops = {
    .name = "postgresql",
    .connect = pg_connect,
    .disconnect = pg_disconnect,
    .healthy = pg_healthy,
    .exec = pg_exec,
    .begin = pg_begin,
    .in_tx = pg_in_tx,
    .translate = pg_translate,
    .prepare = pg_prepare,
    .finalize = pg_finalize,
    .bind = pg_bind,
    .step = pg_step,
    .reset = pg_reset,
    .col_i64 = pg_col_i64,
    .col_double = pg_col_double,
    .col_null = pg_col_null,
    .col_text = pg_col_text,
    .col_blob = pg_col_blob,
    .col_count = pg_col_count,
    .col_name = pg_col_name,
    .col_kind = pg_col_kind,
    .changes = pg_changes,
    .lock_key = pg_lock_key,
    .signal = pg_signal,
    .migrate_lock = pg_migrate_lock,
    .get_version = pg_get_version,
    .set_version = pg_set_version,
    .checkpoint = NULL,
    .listen_start = pg_listen_start,
    .listen_stop = pg_listen_stop,
};
