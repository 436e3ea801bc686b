/*
 * queue_read.c - what the queue looks like (queue.h): the admin's list, the
 * ids and positions of queued submissions, the queue's status and a user's
 * submissions in flight. Reads only.
 */
#include "server/store/queue.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "server/store/db.h"
#include "server/store/store_impl.h"
#include "common/error.h"
#include "common/limits.h"
#include "common/banned.h"

int queue_list(struct store *st, void (*fn)(void *arg, const struct queue_row *r), void *arg,
               char **cause)
{
    struct db_stmt *s = NULL;
    struct db_conn *c = db_acquire(st->db);
    int rc = db_prepare(
        c, &s, cause,
        "SELECT s.id, u.name, s.problem_id, " STORE_MODE_SQL ", s.state, s.attempts, "
        "s.needs_gpu, s.queued_at, w.name, l.expires_at, l.id, " QUEUE_POSITION_SQL ", s.language "
        "FROM submissions s JOIN users u ON u.id = s.user_id "
        "LEFT JOIN leases l ON l.submission_id = s.id AND l.state = 'active' "
        "LEFT JOIN workers w ON w.id = l.worker_id "
        "WHERE s.state != 'done' ORDER BY s.state = 'queued', s.round, s.id",
        "");
    while (rc >= 0 && (rc = db_step(s, cause)) == DB_ROW) {
        struct queue_row r = {
            .id = db_col_i64(s, 0),
            .user = db_col_text(s, 1),
            .problem = db_col_text(s, 2),
            .mode = db_col_text(s, 3),
            .state = db_col_text(s, 4),
            .attempts = db_col_i64(s, 5),
            .needs_gpu = db_col_i64(s, 6) != 0,
            .queued_at = db_col_i64(s, 7),
            .worker = db_col_null(s, 8) ? NULL : db_col_text(s, 8),
            .lease_expires_at = db_col_i64(s, 9),
            .lease = db_col_null(s, 10) ? NULL : db_col_text(s, 10),
            .position = db_col_i64(s, 11),
            .language = db_col_text(s, 12),
        };
        fn(arg, &r);
    }
    db_finish(s);
    db_release(st->db, c);
    return rc < 0 ? rc : BW_OK;
}

int queue_ids(struct store *st, int64_t **ids, size_t *n, char **cause)
{
    struct db_stmt *s = NULL;
    struct id_list l = {0};
    struct db_conn *c = db_acquire(st->db);
    int rc = db_prepare(c, &s, cause,
                        "SELECT id FROM submissions WHERE state = 'queued' ORDER BY round, id", "");
    while (rc >= 0 && (rc = db_step(s, cause)) == DB_ROW)
        rc = id_list_add(&l, db_col_i64(s, 0), cause);
    db_finish(s);
    db_release(st->db, c);
    if (rc < 0) {
        free(l.v);
        return rc;
    }
    *ids = l.v ? l.v : malloc(sizeof(int64_t));
    *n = l.n;
    return *ids ? BW_OK : bw_fail(cause, BW_ERR_NOMEM, "out of memory");
}

int queue_position(struct store *st, int64_t id, int64_t *pos, char **cause)
{
    struct db_conn *c = db_acquire(st->db);
    int rc = db_get_i64(c, pos, cause,
                        "SELECT " QUEUE_POSITION_SQL " FROM submissions s WHERE s.id = ?", "i", id);
    db_release(st->db, c);
    if (rc == BW_ERR_NOTFOUND) {
        free(*cause);
        *cause = NULL;
        *pos = 0;
        return BW_OK;
    }
    return rc;
}

int queue_status(struct store *st, int64_t now, int lease_s, struct queue_status *out, char **cause)
{
    struct db_stmt *s = NULL;
    int64_t since = now - lease_s;
    memset(out, 0, sizeof(*out));
    struct db_conn *c = db_acquire(st->db);
    int rc = db_prepare(c, &s, cause,
                        "SELECT (SELECT COUNT(*) FROM submissions WHERE state = 'queued'), "
                        "(SELECT COUNT(*) FROM submissions WHERE state = 'queued' "
                        " AND needs_gpu <> 0), "
                        "(SELECT COUNT(*) FROM leases WHERE state = 'active'), "
                        "(SELECT COUNT(*) FROM workers WHERE disabled = 0 AND last_seen_at >= ?), "
                        "(SELECT COUNT(*) FROM workers WHERE disabled = 0 AND last_seen_at >= ? "
                        " AND can_execute <> 0)",
                        "ii", since, since);
    if (rc == BW_OK && (rc = db_step(s, cause)) == DB_ROW) {
        out->queued = db_col_i64(s, 0);
        out->waiting_gpu = db_col_i64(s, 1);
        out->judging = db_col_i64(s, 2);
        out->workers = db_col_i64(s, 3);
        out->gpu_workers = db_col_i64(s, 4);
        rc = BW_OK;
    }
    db_finish(s);
    if (rc >= 0)
        rc = db_prepare(c, &s, cause,
                        "SELECT DISTINCT gpu_name FROM workers WHERE disabled = 0 "
                        "AND last_seen_at >= ? AND can_execute <> 0 AND gpu_name IS NOT NULL "
                        "AND gpu_name != '' ORDER BY gpu_name LIMIT ?",
                        "ii", since, (int64_t)BW_MAX_STATUS_GPUS);
    while (rc >= 0 && (rc = db_step(s, cause)) == DB_ROW)
        snprintf(out->gpus[out->n_gpus++], sizeof(out->gpus[0]), "%s", db_col_text(s, 0));
    db_finish(s);
    for (int l = 0; rc >= 0 && l < LANG_COUNT; l++) {
        const char *name = language_name((enum language)l);
        rc = db_prepare(
            c, &s, cause,
            "SELECT (SELECT COUNT(*) FROM submissions WHERE state = 'queued' AND language = ?), "
            "(SELECT COUNT(*) FROM workers w JOIN worker_languages wl ON wl.worker_id = w.id "
            " WHERE wl.language = ? AND w.disabled = 0 AND w.last_seen_at >= ?), "
            "(SELECT COUNT(*) FROM workers w JOIN worker_languages wl ON wl.worker_id = w.id "
            " WHERE wl.language = ? AND w.disabled = 0 AND w.last_seen_at >= ? "
            " AND w.can_execute <> 0)",
            "ttiti", name, name, since, name, since);
        if (rc == BW_OK && (rc = db_step(s, cause)) == DB_ROW) {
            out->languages[l].queued = db_col_i64(s, 0);
            out->languages[l].workers = db_col_i64(s, 1);
            out->languages[l].gpu_workers = db_col_i64(s, 2);
            rc = BW_OK;
        }
        db_finish(s);
        if (rc < 0)
            break;
        rc = db_prepare(c, &s, cause,
                        "SELECT DISTINCT wl.version FROM workers w "
                        "JOIN worker_languages wl ON wl.worker_id = w.id "
                        "WHERE wl.language = ? AND w.disabled = 0 AND w.last_seen_at >= ? "
                        "AND wl.version != '' ORDER BY wl.version LIMIT ?",
                        "tii", name, since, (int64_t)BW_MAX_STATUS_VERSIONS);
        while (rc >= 0 && (rc = db_step(s, cause)) == DB_ROW)
            snprintf(out->languages[l].versions[out->languages[l].n_versions++],
                     sizeof(out->languages[l].versions[0]), "%s", db_col_text(s, 0));
        db_finish(s);
    }
    db_release(st->db, c);
    return rc < 0 ? rc : BW_OK;
}

int queue_in_flight_on(struct db_conn *c, int64_t user, int64_t now, int lease_s,
                       struct in_flight *out, char **cause)
{
    struct db_stmt *st = NULL;
    bool compiles[LANG_COUNT] = {false}, runs[LANG_COUNT] = {false}, any_gpu = false;
    int64_t parked_gpu = 0;
    memset(out, 0, sizeof(*out));
    /* Which languages a connected worker takes: compiles (any), runs (a GPU worker). */
    int rc = db_prepare(c, &st, cause,
                        "SELECT wl.language, MAX(w.can_execute) FROM workers w "
                        "JOIN worker_languages wl ON wl.worker_id = w.id "
                        "WHERE w.disabled = 0 AND w.last_seen_at >= ? GROUP BY wl.language",
                        "i", now - lease_s);
    while (rc >= 0 && (rc = db_step(st, cause)) == DB_ROW) {
        enum language l;
        if (!language_from_name(db_col_text(st, 0), &l))
            continue;
        compiles[l] = true;
        runs[l] = db_col_i64(st, 1) != 0;
        any_gpu = any_gpu || runs[l];
    }
    db_finish(st);
    if (rc < 0)
        return rc;
    rc = db_prepare(c, &st, cause,
                    "SELECT state, needs_gpu, language FROM submissions "
                    "WHERE user_id = ? AND state != 'done'",
                    "i", user);
    while (rc >= 0 && (rc = db_step(st, cause)) == DB_ROW) {
        enum language l = LANG_CUDA;
        language_from_name(db_col_text(st, 2), &l);
        if (strcmp(db_col_text(st, 0), "queued") != 0) {
            out->counted++; /* judging */
        } else if (l != LANG_CUDA && !compiles[l]) {
            out->waiting_language++;
        } else if (db_col_i64(st, 1) != 0) {
            out->waiting_gpu++;
            if (runs[l])
                out->counted++;
            else
                parked_gpu++;
        } else {
            out->counted++;
        }
    }
    db_finish(st);
    out->gpu_connected = any_gpu && parked_gpu == 0;
    return rc < 0 ? rc : BW_OK;
}

int queue_in_flight(struct store *st, int64_t user, int64_t now, int lease_s, struct in_flight *out,
                    char **cause)
{
    struct db_conn *c = db_acquire(st->db);
    int rc = queue_in_flight_on(c, user, now, lease_s, out, cause);
    db_release(st->db, c);
    return rc;
}
