#include "server/store/db.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "server/store/db_backend.h"
#include "common/error.h"
#include "common/limits.h"
#include "common/util.h"
#include "common/banned.h"

bool db_is_postgresql(const char *database)
{
    return database && (strncmp(database, "postgresql://", 13) == 0 ||
                        strncmp(database, "postgres://", 11) == 0);
}

/* The setting as logs may show it: "postgresql://user:SECRET@host/db" loses SECRET. */
static char *mask_password(const char *target)
{
    char *copy = strdup(target);
    if (!copy || !db_is_postgresql(target))
        return copy;
    char *scheme = strstr(copy, "://");
    char *at = scheme ? strchr(scheme + 3, '@') : NULL;
    char *slash = scheme ? strchr(scheme + 3, '/') : NULL;
    if (!at || (slash && slash < at))
        return copy;
    char *colon = memchr(scheme + 3, ':', (size_t)(at - (scheme + 3)));
    if (!colon)
        return copy;
    char *out = NULL;
    if (asprintf(&out, "%.*s:***%s", (int)(colon - copy), copy, at) < 0)
        out = NULL;
    free(copy);
    return out;
}

enum db_backend db_backend(const struct db *db)
{
    return db->backend;
}

const char *db_backend_name(const struct db *db)
{
    return db->ops->name;
}

const char *db_display_name(const struct db *db)
{
    return db->display;
}

enum db_backend db_conn_backend(const struct db_conn *c)
{
    return c->db->backend;
}

int db_schema_latest(void)
{
    return schema_latest();
}

int db_schema_version(struct db_conn *c, int64_t *out, char **cause)
{
    return c->db->ops->get_version(c, out, cause);
}

static void conn_close(struct db_conn *c)
{
    const struct db_ops *ops = c->db->ops;
    for (int i = 0; i < c->n_cache; i++)
        ops->finalize(&c->cache[i]);
    c->n_cache = 0;
    if (c->h)
        ops->disconnect(c);
    c->h = NULL;
}

static int migrate(struct db_conn *c, char **cause)
{
    const struct db_ops *ops = c->db->ops;
    int64_t have = 0;
    int latest = schema_latest();
    int rc = ops->migrate_lock(c, true, cause);
    if (rc < 0)
        return rc;
    rc = ops->get_version(c, &have, cause);
    if (rc == BW_OK && have > latest)
        rc = bw_fail(cause, BW_ERR_INVALID,
                     "database schema version %lld is newer than this server's (%d)",
                     (long long)have, latest);
    for (int n = (int)have + 1; rc == BW_OK && n <= latest; n++) {
        char *text = schema_migration_sql(c->db->backend, n, cause);
        if (!text) {
            rc = BW_ERR_INVALID;
            break;
        }
        rc = db_begin(c, cause);
        if (rc == BW_OK)
            rc = db_exec(c, text, cause);
        if (rc == BW_OK)
            rc = ops->set_version(c, n, cause);
        if (rc == BW_OK)
            rc = db_commit(c, cause);
        free(text);
        if (rc < 0) {
            db_rollback(c);
            rc = bw_wrap(cause, rc, "schema migration %d", n);
        }
    }
    ops->migrate_lock(c, false, NULL);
    return rc;
}

static int db_new(const char *database, int n_conns, struct db **out, char **cause)
{
    struct db *db = calloc(1, sizeof(*db));
    if (!db)
        return bw_fail(cause, BW_ERR_NOMEM, "out of memory");
    db->backend = db_is_postgresql(database) ? DB_POSTGRESQL : DB_SQLITE;
    db->ops = db->backend == DB_POSTGRESQL ? &db_pg_ops : &db_sqlite_ops;
    db->target = strdup(database);
    db->display = mask_password(database);
    db->conns = calloc((size_t)n_conns, sizeof(*db->conns));
    pthread_mutex_init(&db->lock, NULL);
    pthread_cond_init(&db->freed, NULL);
    db->n_conns = n_conns;
    for (int i = 0; i < n_conns && db->conns; i++)
        db->conns[i].db = db;
    if (!db->target || !db->display || !db->conns) {
        db_close(db);
        return bw_fail(cause, BW_ERR_NOMEM, "out of memory");
    }
    *out = db;
    return BW_OK;
}

int db_open(const char *database, int n_conns, struct db **out, char **cause)
{
    struct db *db = NULL;
    int rc = db_new(database, n_conns < 1 ? 1 : n_conns, &db, cause);
    if (rc < 0)
        return rc;
    /* The first connection migrates before the others open, so that they all
     * see the finished schema. */
    rc = db->ops->connect(db, &db->conns[0], cause);
    if (rc == BW_OK)
        rc = migrate(&db->conns[0], cause);
    for (int i = 1; rc == BW_OK && i < db->n_conns; i++)
        rc = db->ops->connect(db, &db->conns[i], cause);
    if (rc < 0) {
        db_close(db);
        return rc;
    }
    *out = db;
    return BW_OK;
}

int db_probe(const char *database, int *version, char **cause)
{
    struct db *db = NULL;
    int64_t v = 0;
    int rc = db_new(database, 1, &db, cause);
    if (rc < 0)
        return rc;
    rc = db->ops->connect(db, &db->conns[0], cause);
    if (rc == BW_OK)
        rc = db->ops->get_version(&db->conns[0], &v, cause);
    *version = (int)v;
    db_close(db);
    return rc;
}

void db_close(struct db *db)
{
    if (!db)
        return;
    db_unlisten(db);
    if (db->conns && db->conns[0].h && db->ops->checkpoint)
        db->ops->checkpoint(&db->conns[0]);
    for (int i = 0; db->conns && i < db->n_conns; i++)
        conn_close(&db->conns[i]);
    free(db->conns);
    free(db->target);
    free(db->display);
    pthread_mutex_destroy(&db->lock);
    pthread_cond_destroy(&db->freed);
    free(db);
}

struct db_conn *db_acquire(struct db *db)
{
    struct db_conn *c = NULL;
    pthread_mutex_lock(&db->lock);
    while (!c) {
        for (int i = 0; i < db->n_conns && !c; i++) {
            if (!db->conns[i].busy) {
                c = &db->conns[i];
                c->busy = true;
            }
        }
        if (!c)
            pthread_cond_wait(&db->freed, &db->lock);
    }
    pthread_mutex_unlock(&db->lock);
    /* A connection the server lost (a restarted PostgreSQL) is opened again;
     * if that fails, the statements on it fail and say why. */
    if (!c->h || !db->ops->healthy(c)) {
        conn_close(c);
        db->ops->connect(db, c, NULL);
    }
    c->retryable = false;
    return c;
}

void db_release(struct db *db, struct db_conn *c)
{
    if (!c)
        return;
    db_rollback(c);
    /* The committed transactions' signals are told once the connection is
     * back in the pool, so that a listener may take one (SQLite). */
    struct db_signal_pending told[DB_MAX_PENDING];
    int n = c->n_committed;
    memcpy(told, c->pending, (size_t)n * sizeof(told[0]));
    c->n_pending = c->n_committed = 0;
    pthread_mutex_lock(&db->lock);
    c->busy = false;
    pthread_cond_signal(&db->freed);
    pthread_mutex_unlock(&db->lock);
    for (int i = 0; i < n && db->listen_fn; i++)
        db->listen_fn(db->listen_arg, told[i].channel, told[i].payload);
}

static int no_connection(struct db_conn *c, char **cause)
{
    return bw_fail(cause, BW_ERR_IO, "%s: no connection to %s", c->db->ops->name, c->db->display);
}

int db_exec(struct db_conn *c, const char *sql, char **cause)
{
    if (!c->h)
        return no_connection(c, cause);
    return c->db->ops->exec(c, sql, cause);
}

int db_begin(struct db_conn *c, char **cause)
{
    if (!c->h)
        return no_connection(c, cause);
    c->n_pending = c->n_committed;
    return c->db->ops->begin(c, cause);
}

int db_commit(struct db_conn *c, char **cause)
{
    int rc = db_exec(c, "COMMIT", cause);
    if (rc == BW_OK)
        c->n_committed = c->n_pending;
    return rc;
}

void db_rollback(struct db_conn *c)
{
    c->n_pending = c->n_committed;
    if (c->h && c->db->ops->in_tx(c))
        c->db->ops->exec(c, "ROLLBACK", NULL);
}

int db_tx_on(struct db_conn *c, db_tx_fn fn, void *arg, char **cause)
{
    int rc = BW_OK;
    for (int attempt = 0; attempt <= BW_DB_TX_RETRIES; attempt++) {
        if (attempt > 0) {
            free(*cause);
            *cause = NULL;
            usleep((useconds_t)(1000 * attempt * attempt));
        }
        c->retryable = false;
        rc = db_begin(c, cause);
        if (rc < 0)
            break;
        rc = fn(c, arg, cause);
        if (rc >= 0) {
            int committed = db_commit(c, cause);
            if (committed == BW_OK)
                return rc;
            rc = committed;
        }
        db_rollback(c);
        if (!c->retryable)
            break;
    }
    return rc;
}

int db_tx(struct db *db, db_tx_fn fn, void *arg, char **cause)
{
    struct db_conn *c = db_acquire(db);
    int rc = db_tx_on(c, fn, arg, cause);
    db_release(db, c);
    return rc;
}

static int read_params(const char *types, va_list ap, struct db_param *p, int *n, char **cause)
{
    int k = 0;
    for (const char *t = types; *t; t++, k++) {
        if (k == DB_MAX_PARAMS)
            return bw_fail(cause, BW_ERR_INTERNAL, "db: more than %d parameters", DB_MAX_PARAMS);
        memset(&p[k], 0, sizeof(p[k]));
        p[k].type = *t;
        switch (*t) {
        case 'i':
            p[k].i = va_arg(ap, int64_t);
            break;
        case 'I':
            p[k].type = 'i';
            p[k].i = va_arg(ap, int);
            break;
        case 't':
            p[k].t = va_arg(ap, const char *);
            break;
        case 'd':
            p[k].d = va_arg(ap, double);
            break;
        case 'b':
            p[k].b = va_arg(ap, const void *);
            p[k].n = va_arg(ap, size_t);
            break;
        case 'n':
            (void)va_arg(ap, void *);
            break;
        default:
            return bw_fail(cause, BW_ERR_INTERNAL, "db: unknown bind type '%c'", *t);
        }
    }
    *n = k;
    return BW_OK;
}

static int prepare_params(struct db_conn *c, struct db_stmt **out, char **cause, bool cache,
                          const char *sql, const struct db_param *params, int n)
{
    const struct db_ops *ops = c->db->ops;
    int rc;
    struct db_stmt *st = NULL;
    for (int i = 0; cache && i < c->n_cache; i++) {
        if (c->cache[i].sql == sql) {
            st = &c->cache[i];
            break;
        }
    }
    if (!st) {
        bool keep = cache && c->n_cache < DB_STMT_CACHE;
        st = keep ? &c->cache[c->n_cache] : &c->spare;
        memset(st, 0, sizeof(*st));
        st->conn = c;
        char *text = ops->translate(sql);
        rc = ops->prepare(st, text ? text : sql, keep, cause);
        free(text);
        if (rc < 0)
            return rc;
        st->sql = keep ? sql : NULL;
        if (keep)
            c->n_cache++;
    }
    rc = ops->bind(st, params, n, cause);
    if (rc < 0) {
        db_finish(st);
        return rc;
    }
    *out = st;
    return BW_OK;
}

static int vprepare(struct db_conn *c, struct db_stmt **out, char **cause, bool cache,
                    const char *sql, const char *types, va_list ap)
{
    struct db_param params[DB_MAX_PARAMS];
    int n = 0;
    if (!c->h)
        return no_connection(c, cause);
    int rc = read_params(types, ap, params, &n, cause);
    if (rc < 0)
        return rc;
    return prepare_params(c, out, cause, cache, sql, params, n);
}

int db_prepare_params(struct db_conn *c, struct db_stmt **out, char **cause, const char *sql,
                      const struct db_param *params, int n)
{
    if (!c->h)
        return no_connection(c, cause);
    if (n > DB_MAX_PARAMS)
        return bw_fail(cause, BW_ERR_INTERNAL, "db: more than %d parameters", DB_MAX_PARAMS);
    return prepare_params(c, out, cause, false, sql, params, n);
}

int db_prepare(struct db_conn *c, struct db_stmt **out, char **cause, const char *sql,
               const char *types, ...)
{
    va_list ap;
    va_start(ap, types);
    int rc = vprepare(c, out, cause, true, sql, types, ap);
    va_end(ap);
    return rc;
}

int db_prepare_text(struct db_conn *c, struct db_stmt **out, char **cause, const char *sql,
                    const char *types, ...)
{
    va_list ap;
    va_start(ap, types);
    int rc = vprepare(c, out, cause, false, sql, types, ap);
    va_end(ap);
    return rc;
}

int db_step(struct db_stmt *st, char **cause)
{
    return st->conn->db->ops->step(st, cause);
}

void db_finish(struct db_stmt *st)
{
    if (!st)
        return;
    const struct db_ops *ops = st->conn->db->ops;
    if (st->sql) {
        ops->reset(st);
    } else {
        ops->finalize(st);
        st->h = NULL;
    }
}

int64_t db_col_i64(struct db_stmt *st, int col)
{
    return st->conn->db->ops->col_i64(st, col);
}

double db_col_double(struct db_stmt *st, int col)
{
    return st->conn->db->ops->col_double(st, col);
}

bool db_col_null(struct db_stmt *st, int col)
{
    return st->conn->db->ops->col_null(st, col);
}

const char *db_col_text(struct db_stmt *st, int col)
{
    const char *s = st->conn->db->ops->col_text(st, col);
    return s ? s : "";
}

char *db_col_strdup(struct db_stmt *st, int col)
{
    if (db_col_null(st, col))
        return NULL;
    return strdup(db_col_text(st, col));
}

const void *db_col_blob(struct db_stmt *st, int col, size_t *len)
{
    return st->conn->db->ops->col_blob(st, col, len);
}

int db_col_count(struct db_stmt *st)
{
    return st->conn->db->ops->col_count(st);
}

const char *db_col_name(struct db_stmt *st, int col)
{
    return st->conn->db->ops->col_name(st, col);
}

char db_col_kind(struct db_stmt *st, int col)
{
    return st->conn->db->ops->col_kind(st, col);
}

int db_run(struct db_conn *c, char **cause, const char *sql, const char *types, ...)
{
    struct db_stmt *st;
    va_list ap;
    va_start(ap, types);
    int rc = vprepare(c, &st, cause, true, sql, types, ap);
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
    int rc = vprepare(c, &st, cause, true, sql, types, ap);
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

int db_changes(struct db_conn *c)
{
    return c->h ? c->db->ops->changes(c) : 0;
}

int db_lock_key(struct db_conn *c, int space, int64_t key, char **cause)
{
    if (!c->h)
        return no_connection(c, cause);
    return c->db->ops->lock_key(c, space, key, cause);
}

int db_signal(struct db_conn *c, const char *channel, const char *payload, char **cause)
{
    if (strlen(channel) >= sizeof(c->pending[0].channel) || strlen(payload) > BW_DB_SIGNAL_BYTES)
        return bw_fail(cause, BW_ERR_INTERNAL, "db: signal %s too long", channel);
    if (c->db->ops->signal)
        return c->db->ops->signal(c, channel, payload, cause);
    /* SQLite: kept until the transaction commits (outside one: now), and
     * told when the connection goes back to the pool. The same signal twice
     * is told once. */
    for (int i = 0; i < c->n_pending; i++)
        if (strcmp(c->pending[i].channel, channel) == 0 &&
            strcmp(c->pending[i].payload, payload) == 0)
            return BW_OK;
    if (c->n_pending == DB_MAX_PENDING)
        return bw_fail(cause, BW_ERR_INTERNAL, "db: more than %d signals on one connection",
                       DB_MAX_PENDING);
    struct db_signal_pending *p = &c->pending[c->n_pending++];
    snprintf(p->channel, sizeof(p->channel), "%s", channel);
    snprintf(p->payload, sizeof(p->payload), "%s", payload);
    if (!c->h || !c->db->ops->in_tx(c))
        c->n_committed = c->n_pending;
    return BW_OK;
}

int db_listen(struct db *db, const char *const *channels, db_listen_fn fn, void *arg, char **cause)
{
    if (db->listen_fn)
        return bw_fail(cause, BW_ERR_INTERNAL, "db: a listener is there already");
    db->channels = channels;
    db->listen_fn = fn;
    db->listen_arg = arg;
    if (db->ops->listen_start)
        return db->ops->listen_start(db, cause);
    return BW_OK;
}

void db_unlisten(struct db *db)
{
    if (db->listener && db->ops->listen_stop)
        db->ops->listen_stop(db);
    pthread_mutex_lock(&db->lock);
    db->listen_fn = NULL;
    pthread_mutex_unlock(&db->lock);
}
