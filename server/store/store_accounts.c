/*
 * store_accounts.c - users, sessions, personal API tokens and workers (their
 * tokens, state and listing) in the store.
 */
#include "server/store/store.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "server/store/db.h"
#include "server/store/queue.h"
#include "server/store/store_impl.h"
#include "common/error.h"
#include "common/banned.h"

int store_user_create(struct store *st, const char *name, const char *hash, const char *role,
                      int64_t now, int64_t *id, char **cause)
{
    int64_t v = 0;
    struct db_conn *c = db_acquire(st->db);
    int rc = db_get_i64(c, &v, cause,
                        "INSERT INTO users(name, password, role, created_at) VALUES (?,?,?,?) "
                        "RETURNING id",
                        "ttti", name, hash, role, now);
    db_release(st->db, c);
    if (rc == BW_ERR_INVALID) {
        free(*cause);
        *cause = NULL;
        return bw_fail(cause, BW_ERR_INVALID, "user name \"%s\" is taken", name);
    }
    if (rc == BW_OK && id)
        *id = v;
    return rc;
}

int store_user_make_admin(struct store *st, const char *name, const char *hash, char **cause)
{
    struct db_conn *c = db_acquire(st->db);
    int rc = db_run(c, cause, "UPDATE users SET role = 'admin', password = ? WHERE name = ?", "tt",
                    hash, name);
    if (rc == BW_OK && db_changes(c) == 0)
        rc = bw_fail(cause, BW_ERR_NOTFOUND, "no user %s", name);
    db_release(st->db, c);
    return rc;
}

/* Fills u from columns id, name, role, disabled at `col`. */
static void read_user(struct db_stmt *s, int col, struct store_user *u)
{
    u->id = db_col_i64(s, col);
    snprintf(u->name, sizeof(u->name), "%s", db_col_text(s, col + 1));
    snprintf(u->role, sizeof(u->role), "%s", db_col_text(s, col + 2));
    u->disabled = db_col_i64(s, col + 3) != 0;
}

int store_user_by_name(struct store *st, const char *name, struct store_user *out, char **cause)
{
    struct db_conn *c = db_acquire(st->db);
    struct db_stmt *s = NULL;
    memset(out, 0, sizeof(*out));
    int rc = db_prepare(c, &s, cause,
                        "SELECT id, name, role, disabled, password FROM users WHERE name = ?", "t",
                        name);
    if (rc == BW_OK && (rc = db_step(s, cause)) == DB_ROW) {
        read_user(s, 0, out);
        out->password = db_col_strdup(s, 4);
        rc = out->password ? BW_OK : bw_fail(cause, BW_ERR_NOMEM, "out of memory");
    } else if (rc == DB_DONE) {
        rc = bw_fail(cause, BW_ERR_NOTFOUND, "no user %s", name);
    }
    db_finish(s);
    db_release(st->db, c);
    return rc;
}

int store_user_exists(struct store *st, const char *name, bool *exists, char **cause)
{
    int64_t n = 0;
    struct db_conn *c = db_acquire(st->db);
    int rc = db_get_i64(c, &n, cause, "SELECT COUNT(*) FROM users WHERE name = ?", "t", name);
    db_release(st->db, c);
    *exists = n > 0;
    return rc;
}

int store_user_set_password(struct store *st, int64_t id, const char *hash, char **cause)
{
    struct db_conn *c = db_acquire(st->db);
    int rc = db_run(c, cause, "UPDATE users SET password = ? WHERE id = ?", "ti", hash, id);
    db_release(st->db, c);
    return rc;
}

int store_user_set_role(struct store *st, const char *name, const char *role, char **cause)
{
    struct db_conn *c = db_acquire(st->db);
    int rc = db_run(c, cause, "UPDATE users SET role = ? WHERE name = ?", "tt", role, name);
    if (rc == BW_OK && db_changes(c) == 0)
        rc = bw_fail(cause, BW_ERR_NOTFOUND, "no user %s", name);
    db_release(st->db, c);
    return rc;
}

int store_session_create(struct store *st, const char *id_hash, int64_t user, const char *csrf,
                         int64_t now, int64_t expires, char **cause)
{
    struct db_conn *c = db_acquire(st->db);
    int rc = db_run(c, cause,
                    "INSERT INTO sessions(id_hash, user_id, csrf, created_at, expires_at) "
                    "VALUES (?,?,?,?,?)",
                    "titii", id_hash, user, csrf, now, expires);
    db_release(st->db, c);
    return rc;
}

int store_session_user(struct store *st, const char *id_hash, int64_t now, struct store_user *out,
                       char *csrf, size_t csrf_size, char **cause)
{
    struct db_conn *c = db_acquire(st->db);
    struct db_stmt *s = NULL;
    memset(out, 0, sizeof(*out));
    int rc = db_prepare(c, &s, cause,
                        "SELECT u.id, u.name, u.role, u.disabled, s.csrf FROM sessions s "
                        "JOIN users u ON u.id = s.user_id "
                        "WHERE s.id_hash = ? AND s.expires_at > ?",
                        "ti", id_hash, now);
    if (rc == BW_OK && (rc = db_step(s, cause)) == DB_ROW) {
        read_user(s, 0, out);
        snprintf(csrf, csrf_size, "%s", db_col_text(s, 4));
        rc = BW_OK;
    } else if (rc == DB_DONE) {
        rc = bw_fail(cause, BW_ERR_NOTFOUND, "no such session");
    }
    db_finish(s);
    db_release(st->db, c);
    return rc;
}

int store_session_delete(struct store *st, const char *id_hash, char **cause)
{
    struct db_conn *c = db_acquire(st->db);
    int rc = db_run(c, cause, "DELETE FROM sessions WHERE id_hash = ?", "t", id_hash);
    db_release(st->db, c);
    return rc;
}

int store_sessions_expire(struct store *st, int64_t now, char **cause)
{
    struct db_conn *c = db_acquire(st->db);
    int rc = db_run(c, cause, "DELETE FROM sessions WHERE expires_at <= ?", "i", now);
    db_release(st->db, c);
    return rc;
}

int store_token_user(struct store *st, const char *token_hash, int64_t now, struct store_user *out,
                     char **cause)
{
    struct db_conn *c = db_acquire(st->db);
    struct db_stmt *s = NULL;
    memset(out, 0, sizeof(*out));
    int rc = db_prepare(c, &s, cause,
                        "SELECT u.id, u.name, u.role, u.disabled FROM api_tokens t "
                        "JOIN users u ON u.id = t.user_id WHERE t.token_hash = ?",
                        "t", token_hash);
    if (rc == BW_OK && (rc = db_step(s, cause)) == DB_ROW) {
        read_user(s, 0, out);
        rc = BW_OK;
    } else if (rc == DB_DONE) {
        rc = bw_fail(cause, BW_ERR_NOTFOUND, "unknown or revoked token");
    }
    db_finish(s);
    if (rc == BW_OK && !out->disabled)
        db_run(c, NULL, "UPDATE api_tokens SET last_used_at = ? WHERE token_hash = ?", "it", now,
               token_hash);
    db_release(st->db, c);
    return rc;
}

struct token_arg {
    int64_t user, now, id;
    const char *hash, *name;
};

static int token_tx(struct db_conn *c, void *arg, char **cause)
{
    struct token_arg *a = arg;
    int64_t count = 0, locked = 0;
    /* The user's row is the lock: two servers cannot both add the last token. */
    int rc =
        db_get_i64(c, &locked, cause, "SELECT id FROM users WHERE id = ? FOR UPDATE", "i", a->user);
    if (rc == BW_OK)
        rc = db_get_i64(c, &count, cause, "SELECT COUNT(*) FROM api_tokens WHERE user_id = ?", "i",
                        a->user);
    if (rc == BW_OK && count >= BW_MAX_API_TOKENS)
        return bw_fail(cause, BW_ERR_LIMIT,
                       "at most BW_MAX_API_TOKENS (%d) API tokens per user; delete one first",
                       BW_MAX_API_TOKENS);
    if (rc == BW_OK)
        rc = db_get_i64(c, &a->id, cause,
                        "INSERT INTO api_tokens(token_hash, user_id, name, created_at) "
                        "VALUES (?,?,?,?) RETURNING id",
                        "titi", a->hash, a->user, a->name, a->now);
    return rc;
}

int store_token_create(struct store *st, int64_t user, const char *token_hash, const char *name,
                       int64_t now, int64_t *id, char **cause)
{
    struct token_arg a = {user, now, 0, token_hash, name};
    int rc = db_tx(st->db, token_tx, &a, cause);
    *id = a.id;
    return rc;
}

int store_tokens_of(struct store *st, int64_t user,
                    void (*fn)(void *arg, const struct store_token *t), void *arg, char **cause)
{
    struct db_conn *c = db_acquire(st->db);
    struct db_stmt *s = NULL;
    int rc = db_prepare(c, &s, cause,
                        "SELECT id, name, created_at, last_used_at FROM api_tokens "
                        "WHERE user_id = ? ORDER BY id",
                        "i", user);
    while (rc >= 0 && (rc = db_step(s, cause)) == DB_ROW) {
        struct store_token t = {db_col_i64(s, 0), db_col_text(s, 1), db_col_i64(s, 2),
                                db_col_null(s, 3) ? 0 : db_col_i64(s, 3)};
        fn(arg, &t);
    }
    db_finish(s);
    db_release(st->db, c);
    return rc < 0 ? rc : BW_OK;
}

int store_token_delete(struct store *st, int64_t user, int64_t id, char **cause)
{
    struct db_conn *c = db_acquire(st->db);
    int rc =
        db_run(c, cause, "DELETE FROM api_tokens WHERE id = ? AND user_id = ?", "ii", id, user);
    if (rc == BW_OK && db_changes(c) == 0)
        rc = bw_fail(cause, BW_ERR_NOTFOUND, "no such token");
    db_release(st->db, c);
    return rc;
}

int store_worker_by_token(struct store *st, const char *token_hash, struct store_worker_auth *out,
                          char **cause)
{
    struct db_conn *c = db_acquire(st->db);
    struct db_stmt *s = NULL;
    memset(out, 0, sizeof(*out));
    int rc = db_prepare(c, &s, cause, "SELECT id, name, disabled FROM workers WHERE token_hash = ?",
                        "t", token_hash);
    if (rc == BW_OK && (rc = db_step(s, cause)) == DB_ROW) {
        out->id = db_col_i64(s, 0);
        snprintf(out->name, sizeof(out->name), "%s", db_col_text(s, 1));
        out->disabled = db_col_i64(s, 2) != 0;
        rc = BW_OK;
    } else if (rc == DB_DONE) {
        rc = bw_fail(cause, BW_ERR_NOTFOUND, "unknown or revoked token");
    }
    db_finish(s);
    db_release(st->db, c);
    return rc;
}

/* Runs the hook, then commits; rolls back on any failure. */
static int commit_with(struct db_conn *c, int rc, store_commit_hook hook, void *arg, char **cause)
{
    if (rc == BW_OK && hook)
        rc = hook(arg, cause);
    if (rc == BW_OK)
        rc = db_commit(c, cause);
    if (rc < 0)
        db_rollback(c);
    return rc;
}

int store_worker_create(struct store *st, const char *name, const char *token_hash, int64_t now,
                        store_commit_hook hook, void *arg, int64_t *id, char **cause)
{
    struct db_conn *c = db_acquire(st->db);
    int64_t v = 0;
    int rc = db_begin(c, cause);
    if (rc == BW_OK) {
        rc = db_get_i64(c, &v, cause,
                        "INSERT INTO workers(name, token_hash, created_at) VALUES (?,?,?) "
                        "RETURNING id",
                        "tti", name, token_hash, now);
        if (rc == BW_ERR_INVALID) {
            free(*cause);
            *cause = NULL;
            rc = bw_fail(cause, BW_ERR_INVALID, "worker name \"%s\" is taken", name);
        }
        rc = commit_with(c, rc, hook, arg, cause);
    }
    db_release(st->db, c);
    if (rc == BW_OK && id)
        *id = v;
    return rc;
}

int store_worker_find(struct store *st, const char *name, int64_t *id, char **cause)
{
    struct db_conn *c = db_acquire(st->db);
    int rc = db_get_i64(c, id, cause,
                        "SELECT id FROM workers WHERE name = ? AND deleted_at IS NULL", "t", name);
    db_release(st->db, c);
    if (rc == BW_ERR_NOTFOUND) {
        free(*cause);
        *cause = NULL;
        return bw_fail(cause, BW_ERR_NOTFOUND, "no worker named \"%s\"", name);
    }
    return rc;
}

int store_worker_rotate(struct store *st, int64_t id, const char *name, const char *token_hash,
                        store_commit_hook hook, void *arg, int64_t *id_out, char *name_out,
                        char **cause)
{
    struct db_conn *c = db_acquire(st->db);
    struct db_stmt *s = NULL;
    name_out[0] = '\0';
    int rc = db_begin(c, cause);
    if (rc == BW_OK) {
        rc = id ? db_prepare(c, &s, cause,
                             "SELECT id, name FROM workers WHERE id = ? AND deleted_at IS NULL "
                             "FOR UPDATE",
                             "i", id)
                : db_prepare(c, &s, cause,
                             "SELECT id, name FROM workers WHERE name = ? AND deleted_at IS NULL "
                             "FOR UPDATE",
                             "t", name);
        if (rc == BW_OK && (rc = db_step(s, cause)) == DB_ROW) {
            *id_out = db_col_i64(s, 0);
            snprintf(name_out, BW_MAX_TOKEN_NAME + 1, "%s", db_col_text(s, 1));
            rc = BW_OK;
        } else if (rc == DB_DONE) {
            rc = id ? bw_fail(cause, BW_ERR_NOTFOUND, "no worker %lld", (long long)id)
                    : bw_fail(cause, BW_ERR_NOTFOUND, "no worker named \"%s\"", name);
        }
        db_finish(s);
        if (rc == BW_OK)
            rc = db_run(c, cause, "UPDATE workers SET token_hash = ? WHERE id = ?", "ti",
                        token_hash, *id_out);
        rc = commit_with(c, rc, hook, arg, cause);
    }
    db_release(st->db, c);
    return rc;
}

struct delete_arg {
    int64_t id, now;
    const char *revoked;
    char *name_out;
    int64_t *ids;
    size_t n;
};

static int delete_tx(struct db_conn *c, void *arg, char **cause)
{
    struct delete_arg *a = arg;
    struct db_stmt *s = NULL;
    free(a->ids);
    a->ids = NULL;
    a->n = 0;
    int rc = db_prepare(c, &s, cause,
                        "SELECT name FROM workers WHERE id = ? AND deleted_at IS NULL", "i", a->id);
    if (rc == BW_OK && (rc = db_step(s, cause)) == DB_ROW) {
        snprintf(a->name_out, BW_MAX_TOKEN_NAME + 1, "%s", db_col_text(s, 0));
        rc = BW_OK;
    } else if (rc == DB_DONE) {
        rc = bw_fail(cause, BW_ERR_NOTFOUND, "no worker %lld", (long long)a->id);
    }
    db_finish(s);
    /* Its leases first (their submissions' rows, in id order), then its row. */
    if (rc == BW_OK)
        rc = queue_drop_worker_on(c, a->id, "the worker was deleted by an admin", &a->ids, &a->n,
                                  cause);
    if (rc == BW_OK)
        rc = db_run(c, cause,
                    "UPDATE workers SET name = name || ' (deleted ' || id || ')', "
                    "token_hash = ?, disabled = 1, disabled_reason = 'deleted', deleted_at = ? "
                    "WHERE id = ?",
                    "tii", a->revoked, a->now, a->id);
    if (rc == BW_OK)
        rc = db_run(c, cause, "DELETE FROM worker_languages WHERE worker_id = ?", "i", a->id);
    return rc;
}

int store_worker_delete(struct store *st, int64_t id, const char *revoked_hash, int64_t now,
                        char *name_out, int64_t **ids, size_t *n, char **cause)
{
    struct delete_arg a = {id, now, revoked_hash, name_out, NULL, 0};
    name_out[0] = '\0';
    int rc = db_tx(st->db, delete_tx, &a, cause);
    if (rc < 0) {
        free(a.ids);
        *ids = NULL;
        *n = 0;
        return rc;
    }
    *ids = a.ids;
    *n = a.n;
    return BW_OK;
}

int store_worker_set_enabled(struct store *st, int64_t id, bool enabled, char **cause)
{
    struct db_conn *c = db_acquire(st->db);
    int rc = db_run(c, cause,
                    "UPDATE workers SET disabled = ?, error_streak = 0, disabled_reason = ? "
                    "WHERE id = ? AND deleted_at IS NULL",
                    "Iti", enabled ? 0 : 1, enabled ? NULL : "disabled by an admin", id);
    if (rc == BW_OK && db_changes(c) == 0)
        rc = bw_fail(cause, BW_ERR_NOTFOUND, "no worker %lld", (long long)id);
    db_release(st->db, c);
    return rc;
}

/* A worker row and its languages, kept while the list is read. */
struct worker_keep {
    struct store_worker_row row;
    char *strings[6]; /* owned copies behind row's pointers */
    char *lang[LANG_COUNT][2];
};

static const char *keep(char **slot, struct db_stmt *s, int col)
{
    *slot = db_col_strdup(s, col);
    return *slot;
}

int store_workers_list(struct store *st, void (*fn)(void *arg, const struct store_worker_row *w),
                       void *arg, char **cause)
{
    struct db_conn *c = db_acquire(st->db);
    struct db_stmt *s = NULL;
    struct worker_keep *v = NULL;
    size_t n = 0, cap = 0;
    int rc = db_prepare(c, &s, cause,
                        "SELECT w.id, w.name, w.created_at, w.registered_at, w.last_seen_at, "
                        "w.hostname, w.version, w.gpu, w.can_execute, w.disabled, "
                        "w.disabled_reason, w.error_streak, "
                        "(SELECT l.submission_id FROM leases l WHERE l.worker_id = w.id "
                        " AND l.state = 'active' LIMIT 1), "
                        "(SELECT COUNT(*) FROM leases l WHERE l.worker_id = w.id "
                        " AND l.state = 'done') "
                        "FROM workers w WHERE w.deleted_at IS NULL ORDER BY w.id",
                        "");
    while (rc >= 0 && (rc = db_step(s, cause)) == DB_ROW) {
        if (n == cap) {
            size_t grown = cap ? cap * 2 : 16;
            struct worker_keep *nv = realloc(v, grown * sizeof(*nv));
            if (!nv) {
                rc = bw_fail(cause, BW_ERR_NOMEM, "out of memory");
                break;
            }
            v = nv;
            cap = grown;
        }
        struct worker_keep *k = &v[n++];
        memset(k, 0, sizeof(*k));
        struct store_worker_row *w = &k->row;
        w->id = db_col_i64(s, 0);
        w->name = keep(&k->strings[0], s, 1);
        w->created_at = db_col_i64(s, 2);
        w->registered = !db_col_null(s, 3);
        w->registered_at = db_col_i64(s, 3);
        w->seen = !db_col_null(s, 4);
        w->last_seen_at = db_col_i64(s, 4);
        w->hostname = keep(&k->strings[1], s, 5);
        w->version = keep(&k->strings[2], s, 6);
        w->gpu_json = keep(&k->strings[3], s, 7);
        w->can_execute = db_col_i64(s, 8) != 0;
        w->disabled = db_col_i64(s, 9) != 0;
        w->disabled_reason = keep(&k->strings[4], s, 10);
        w->error_streak = db_col_i64(s, 11);
        w->current_submission = db_col_null(s, 12) ? 0 : db_col_i64(s, 12);
        w->judged = db_col_i64(s, 13);
    }
    db_finish(s);
    /* What each compiles, as it registered it (none before its first registration). */
    if (rc >= 0)
        rc = db_prepare(c, &s, cause,
                        "SELECT worker_id, language, version FROM worker_languages "
                        "ORDER BY worker_id, language",
                        "");
    while (rc >= 0 && (rc = db_step(s, cause)) == DB_ROW) {
        for (size_t i = 0; i < n; i++) {
            struct store_worker_row *w = &v[i].row;
            if (w->id != db_col_i64(s, 0) || w->n_languages == LANG_COUNT)
                continue;
            size_t l = w->n_languages++;
            w->languages[l].name = keep(&v[i].lang[l][0], s, 1);
            w->languages[l].version = keep(&v[i].lang[l][1], s, 2);
        }
    }
    db_finish(s);
    db_release(st->db, c);
    for (size_t i = 0; rc >= 0 && i < n; i++) {
        if (!v[i].row.name)
            continue; /* out of memory for it */
        fn(arg, &v[i].row);
    }
    for (size_t i = 0; i < n; i++) {
        for (int k = 0; k < 6; k++)
            free(v[i].strings[k]);
        for (int l = 0; l < LANG_COUNT; l++) {
            free(v[i].lang[l][0]);
            free(v[i].lang[l][1]);
        }
    }
    free(v);
    return rc < 0 ? rc : BW_OK;
}

int store_worker_state(struct store *st, int64_t id, int64_t now, struct store_worker_state *out,
                       char **cause)
{
    struct db_conn *c = db_acquire(st->db);
    struct db_stmt *s = NULL;
    memset(out, 0, sizeof(*out));
    int rc = db_prepare(c, &s, cause,
                        "SELECT can_execute, disabled, "
                        "CASE WHEN registered_at IS NULL THEN 0 ELSE 1 END "
                        "FROM workers WHERE id = ?",
                        "i", id);
    if (rc == BW_OK && (rc = db_step(s, cause)) == DB_ROW) {
        out->can_execute = db_col_i64(s, 0) != 0;
        out->disabled = db_col_i64(s, 1) != 0;
        out->registered = db_col_i64(s, 2) != 0;
        rc = BW_OK;
    } else if (rc == DB_DONE) {
        rc = BW_OK; /* deleted meanwhile: not registered */
    }
    db_finish(s);
    if (rc == BW_OK && !out->disabled && out->registered)
        db_run(c, NULL, "UPDATE workers SET last_seen_at = ? WHERE id = ?", "ii", now, id);
    db_release(st->db, c);
    return rc;
}

int store_workers_seen(struct store *st, const int64_t *ids, size_t n, int64_t now, char **cause)
{
    int rc = BW_OK;
    struct db_conn *c = db_acquire(st->db);
    for (size_t i = 0; i < n && rc == BW_OK; i++)
        rc =
            db_run(c, cause, "UPDATE workers SET last_seen_at = ? WHERE id = ?", "ii", now, ids[i]);
    db_release(st->db, c);
    return rc;
}
