/*
 * store.h - everything blockwise-server keeps, behind one interface: the
 * store owns all SQL (server/store/), the handlers hold none.
 *
 * A store is one database: the embedded SQLite file (the default, one
 * server) or a PostgreSQL server that several blockwise-servers share
 * (db.h says how the two differ and how one SQL text serves both). What the
 * store keeps: accounts, sessions, API tokens; problems, their bundles (every
 * version a submission may name); submissions, the job queue and its leases
 * (queue.h), results and scores; workers, their tokens and languages; the
 * live events of submissions; the shared sign-in and sign-up throttles (with
 * PostgreSQL); server keys and the command line's unlock requests.
 *
 * Every function is one transaction (or one statement) on a connection of
 * the store's pool, taken and given back inside; none holds a connection
 * after it returns. Errors are a negative enum bw_code with the reason in
 * *cause (the caller frees it): BW_ERR_NOTFOUND for a missing thing,
 * BW_ERR_INVALID for a taken name, BW_ERR_TIMEOUT and BW_ERR_IO when the
 * database is busy or away. Strings in the rows handed to callbacks are
 * *borrowed* for the callback's duration.
 *
 * Several servers: with PostgreSQL every server sees what any server
 * committed. What must reach the other servers at once goes as a signal
 * (store_listen): "queue" when the queue changed (waiting claims look again,
 * queue positions are told), "events" with "SUBMISSION:EVENT" when an event
 * was appended (event streams read it). With SQLite the same signals reach
 * the one server in-process.
 */
#ifndef BW_SERVER_STORE_STORE_H
#define BW_SERVER_STORE_STORE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "common/language.h"
#include "common/limits.h"

struct store;

/* --- the store itself ------------------------------------------------------ */

/* Opens and migrates `database` (a SQLite path or a postgresql:// URI) with
 * `n_conns` connections. *out is new; free with store_close. */
int store_open(const char *database, int n_conns, struct store **out, char **cause);
/* Stops the listener and closes the database; NULL is a no-op. */
void store_close(struct store *st);
/* What --check-config does for the database: PostgreSQL must answer, and its
 * schema must not be newer than this binary's; *version is the database's
 * (0: new, or a SQLite file, which is not opened). */
int store_check(const char *database, int *version, char **cause);

/* True when other servers may share this store (PostgreSQL). */
bool store_shared(const struct store *st);
/* "sqlite" or "postgresql"; the database as logs may show it (password masked). */
const char *store_backend_name(const struct store *st);
const char *store_display_name(const struct store *st);
int store_schema_latest(void);
const char *store_schema_text(void);

/* Signals from every server of this store (see above). */
typedef void (*store_signal_fn)(void *arg, const char *channel, const char *payload);
int store_listen(struct store *st, store_signal_fn fn, void *arg, char **cause);
/* Stops listening: fn is not called after it returns. */
void store_unlisten(struct store *st);
/* Tells every server that the queue changed: "queue" with payload "work"
 * (there may be new work: waiting claims look again) or "moved" (positions
 * changed: a job was claimed). */
void store_signal_queue(struct store *st, bool new_work);

/* The low-level driver, for tests that set up rows by hand (borrowed). */
struct db *store_db(struct store *st);

/* export and import: every table as JSON lines (docs/operations.md). Import
 * needs an empty database at the same schema version. *rows counts the rows. */
int store_export(struct store *st, FILE *out, int64_t *rows, char **cause);
int store_import(struct store *st, FILE *in, int64_t *rows, char **cause);

/* --- accounts, sessions, API tokens ------------------------------------------ */

struct store_user {
    int64_t id;
    char name[BW_MAX_USERNAME + 1];
    char role[16];
    bool disabled;
    char *password; /* new: the argon2id string (store_user_by_name only); free it */
};

/* A new user; BW_ERR_INVALID when the name is taken. */
int store_user_create(struct store *st, const char *name, const char *hash, const char *role,
                      int64_t now, int64_t *id, char **cause);
/* Makes `name` an admin with a new password hash; BW_ERR_NOTFOUND if no such user. */
int store_user_make_admin(struct store *st, const char *name, const char *hash, char **cause);
int store_user_by_name(struct store *st, const char *name, struct store_user *out, char **cause);
int store_user_exists(struct store *st, const char *name, bool *exists, char **cause);
int store_user_set_password(struct store *st, int64_t id, const char *hash, char **cause);
/* BW_ERR_NOTFOUND if no such user. */
int store_user_set_role(struct store *st, const char *name, const char *role, char **cause);

int store_session_create(struct store *st, const char *id_hash, int64_t user, const char *csrf,
                         int64_t now, int64_t expires, char **cause);
/* The user of a live session, and its CSRF token (csrf_size bytes);
 * BW_ERR_NOTFOUND when there is none. */
int store_session_user(struct store *st, const char *id_hash, int64_t now, struct store_user *out,
                       char *csrf, size_t csrf_size, char **cause);
int store_session_delete(struct store *st, const char *id_hash, char **cause);
int store_sessions_expire(struct store *st, int64_t now, char **cause);

/* The user of an API token (its last use noted); BW_ERR_NOTFOUND if none. */
int store_token_user(struct store *st, const char *token_hash, int64_t now, struct store_user *out,
                     char **cause);
/* A new token; BW_ERR_LIMIT when the user has BW_MAX_API_TOKENS already. */
int store_token_create(struct store *st, int64_t user, const char *token_hash, const char *name,
                       int64_t now, int64_t *id, char **cause);
struct store_token {
    int64_t id;
    const char *name;
    int64_t created_at, last_used_at; /* last_used_at 0: never */
};
int store_tokens_of(struct store *st, int64_t user,
                    void (*fn)(void *arg, const struct store_token *t), void *arg, char **cause);
/* BW_ERR_NOTFOUND when the user has no such token. */
int store_token_delete(struct store *st, int64_t user, int64_t id, char **cause);

/* The known-device cookies' key (device.h), made on first use: `fresh` is
 * kept when there is none yet, and *key is the one kept. */
int store_server_key(struct store *st, const char *name, const unsigned char *fresh, size_t len,
                     unsigned char *key, char **cause);

/* --- workers ----------------------------------------------------------------- */

struct store_worker_auth {
    int64_t id;
    char name[BW_MAX_TOKEN_NAME + 1 + 32];
    bool disabled;
};
/* The worker of a worker token; BW_ERR_NOTFOUND if none. */
int store_worker_by_token(struct store *st, const char *token_hash, struct store_worker_auth *out,
                          char **cause);

/* Runs inside a worker's creation or token rotation, before the commit: a
 * failure undoes the change (the command line writes the token file here). */
typedef int (*store_commit_hook)(void *arg, char **cause);
/* A new worker; BW_ERR_INVALID when the name is taken. */
int store_worker_create(struct store *st, const char *name, const char *token_hash, int64_t now,
                        store_commit_hook hook, void *arg, int64_t *id, char **cause);
/* A new token for the worker `id`, or when id is 0 the worker named `name`
 * (not deleted); *id_out and name_out (BW_MAX_TOKEN_NAME + 1 bytes) say
 * which. BW_ERR_NOTFOUND for no such worker. */
int store_worker_rotate(struct store *st, int64_t id, const char *name, const char *token_hash,
                        store_commit_hook hook, void *arg, int64_t *id_out, char *name_out,
                        char **cause);
/* The worker named `name` that is not deleted: BW_ERR_NOTFOUND if none. */
int store_worker_find(struct store *st, const char *name, int64_t *id, char **cause);
/* Deletes worker `id` (queue.h's queue_drop_worker ends its leases): the row
 * is kept as "NAME (deleted ID)" with a token nothing hashes to. *ids (new)
 * lists the submissions requeued. BW_ERR_NOTFOUND for no such worker. */
int store_worker_delete(struct store *st, int64_t id, const char *revoked_hash, int64_t now,
                        char *name_out, int64_t **ids, size_t *n, char **cause);
/* BW_ERR_NOTFOUND for no such worker. */
int store_worker_set_enabled(struct store *st, int64_t id, bool enabled, char **cause);

struct store_worker_row {
    int64_t id;
    const char *name;
    int64_t created_at;
    bool registered, seen; /* registered_at, last_seen_at are set */
    int64_t registered_at, last_seen_at;
    const char *hostname, *version, *gpu_json, *disabled_reason; /* NULL when unset */
    bool can_execute, disabled;
    int64_t error_streak;
    int64_t current_submission; /* 0: none */
    int64_t judged;
    struct {
        const char *name, *version;
    } languages[LANG_COUNT];
    size_t n_languages;
};
int store_workers_list(struct store *st, void (*fn)(void *arg, const struct store_worker_row *w),
                       void *arg, char **cause);

/* What a claim needs to know of its worker. */
struct store_worker_state {
    bool can_execute, disabled, registered;
};
/* Reads the worker's state and marks it seen at `now`. */
int store_worker_state(struct store *st, int64_t id, int64_t now, struct store_worker_state *out,
                       char **cause);
/* Marks workers seen (their claims wait on this server). */
int store_workers_seen(struct store *st, const int64_t *ids, size_t n, int64_t now, char **cause);

/* --- problems and bundles ------------------------------------------------------ */

/* Records a loaded problem version: its bundle (kept for good) and its row. */
int store_problem_record(struct store *st, const char *id, const char *title, const char *hash,
                         const void *bundle, size_t len, int64_t now, char **cause);
/* A bundle by its hash (*data new, free it); BW_ERR_NOTFOUND if none. */
int store_bundle(struct store *st, const char *hash, void **data, size_t *len, char **cause);
struct store_problem_row {
    const char *id, *title, *hash, *disabled_reason;
    int64_t loaded_at, error_streak;
    bool disabled;
};
int store_problems_list(struct store *st, void (*fn)(void *arg, const struct store_problem_row *p),
                        void *arg, char **cause);
/* BW_ERR_NOTFOUND for no such problem. */
int store_problem_set_enabled(struct store *st, const char *id, bool enabled, char **cause);

/* --- submissions ---------------------------------------------------------------- */

struct store_quota { /* in the window; oldest 0: none */
    int64_t run_used, run_oldest, submit_used, submit_oldest, profile_used, profile_oldest;
};
/* A user's Run, Submit and Profile use in the window since `since`. */
int store_quota_use(struct store *st, int64_t user, int64_t since, struct store_quota *out,
                    char **cause);

struct store_new_submission {
    int64_t user;
    const char *problem, *hash, *language, *source;
    const char *mode; /* "run", "submit" or "profile" (wp_mode_name) */
    int64_t seed, now;
    int64_t window_since; /* the quota window's start */
    int limit;            /* the mode's quota */
    int in_flight_limit;
    int lease_s;
};
enum store_create_outcome {
    CREATE_OK,
    CREATE_PROBLEM_DISABLED,
    CREATE_IN_FLIGHT_FULL,
    CREATE_QUOTA_USED,
};
struct store_created {
    enum store_create_outcome outcome;
    int64_t id;
    int64_t oldest; /* CREATE_QUOTA_USED: the window's oldest submission's created_at */
};
/* Creates a queued submission when the problem is enabled and the user's
 * quotas allow (counted in the same transaction, with the user's row locked:
 * concurrent posts, on any server, cannot slip past them). */
int store_submission_create(struct store *st, const struct store_new_submission *in,
                            struct store_created *out, char **cause);

struct store_submission {
    int64_t id;
    const char *user, *problem, *state, *language;
    const char *mode; /* "run", "submit" or "profile" */
    const char *verdict, *message, *gpu, *cancelled_by, *cancelled_from; /* NULL when unset */
    bool has_score, has_time, has_judged, has_pytorch;
    double score, time_ms, pytorch_speedup;
    int64_t created_at, judged_at, attempts, position;
    bool needs_gpu;
    int64_t cancelled_at; /* 0: not cancelled */
    /* store_submission_get only: */
    const char *source, *result; /* result NULL until judged */
    int64_t owner;
};
/* Submission `id` if the viewer may read it (its owner, or `all`);
 * BW_ERR_NOTFOUND otherwise. */
int store_submission_get(struct store *st, int64_t id, int64_t viewer, bool all,
                         void (*fn)(void *arg, const struct store_submission *s), void *arg,
                         char **cause);
struct store_submission_filter {
    int64_t before, limit;
    const char *problem, *language; /* NULL: any */
    bool everyone;                  /* every user's */
    const char *user;               /* NULL: the viewer's own */
    int64_t viewer;
};
int store_submissions_list(struct store *st, const struct store_submission_filter *f,
                           void (*fn)(void *arg, const struct store_submission *s), void *arg,
                           char **cause);

/* --- scores ------------------------------------------------------------------------- */

struct store_board_row {
    const char *gpu, *language, *user;
    double time_ms, score, pytorch_speedup;
    bool has_pytorch;
    int64_t submission, at;
};
int store_leaderboard(struct store *st, const char *problem, const char *gpu, const char *language,
                      bool by_pytorch, void (*fn)(void *arg, const struct store_board_row *r),
                      void *arg, char **cause);
struct store_solved_row {
    const char *problem, *language;
    int64_t first_at;
};
int store_scores_of(struct store *st, int64_t user,
                    void (*solved)(void *arg, const struct store_solved_row *r),
                    void (*best)(void *arg, const char *problem, const struct store_board_row *r),
                    void *arg, char **cause);
struct store_grade_row {
    const char *user, *problem, *language;
    bool solved, has_score, has_time;
    double score, time_ms;
    int64_t first_at; /* 0: never */
};
int store_gradebook(struct store *st, void (*fn)(void *arg, const struct store_grade_row *r),
                    void *arg, char **cause);

/* --- monitoring --------------------------------------------------------------------- */

struct store_counts {
    int64_t queued, judging, alive, disabled, oldest_queued_at;
    int64_t lang_queued[LANG_COUNT], lang_workers[LANG_COUNT]; /* -1: unknown */
};
int store_counts(struct store *st, int64_t now, int lease_s, struct store_counts *out,
                 char **cause);

/* --- sign-in unlocks from the command line (SQLite: a mailbox) --------------------- */

int store_unlock_request(struct store *st, bool address, const char *key, int64_t now,
                         char **cause);
/* Takes every request left (each by one server: they are deleted as read). */
int store_unlocks_take(struct store *st, void (*fn)(void *arg, bool address, const char *key),
                       void *arg, char **cause);

/* --- shared throttles (server/throttle.h) ------------------------------------- */

/* One row of the throttles table: the caller fills kind and key; the store
 * loads the rest (found: the row exists), calls fn, and writes the rows back
 * (drop: delete it). */
struct store_throttle_row {
    const char *kind; /* "name", "address", "pair", "device" or "signup" */
    char key[17];     /* the keyed hash, hex */
    bool found, drop;
    int64_t failures, pending, pending_ms, last_ms, until_ms;
    double tokens;
};
/* In one transaction, the rows locked (one key at a time, in a fixed order),
 * so that servers updating the same key do it one after the other. fn runs
 * again if the transaction is retried. */
int store_throttle_update(struct store *st, struct store_throttle_row *rows, size_t n,
                          void (*fn)(void *arg, struct store_throttle_row *rows, size_t n),
                          void *arg, char **cause);
/* Deletes rows forgotten by now_ms: sign-in rows with no failure within
 * window_ms and no lockout left (reservations older than pending_ms do not
 * keep one), or (signup) sign-up buckets untouched for window_ms (full
 * again). */
int store_throttles_prune(struct store *st, bool signup, int64_t now_ms, int64_t window_ms,
                          int64_t pending_ms, char **cause);

/* --- live events ---------------------------------------------------------------- */

struct store_event_in {
    const char *name, *data; /* data: the event's JSON text */
    bool final;
};
/* Appends events of a submission in one transaction (appends of one
 * submission are serialised, so that its ids grow in commit order) and
 * signals "events" with "SUBMISSION:LAST_ID". *last is the last one's id. */
int store_events_append(struct store *st, int64_t submission, const struct store_event_in *ev,
                        size_t n, int64_t now, int64_t *last, char **cause);
struct store_event {
    int64_t id;
    const char *name, *data;
    bool final;
};
/* The events of a submission's latest story (from its last 'queued' event)
 * with ids above `after`, oldest first, at most `max`. */
int store_events_after(struct store *st, int64_t submission, int64_t after, int max,
                       void (*fn)(void *arg, const struct store_event *e), void *arg, char **cause);
/* Drops the events older than `before` of submissions that are finished. */
int store_events_prune(struct store *st, int64_t before, char **cause);

#endif
