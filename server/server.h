/*
 * server.h - the running blockwise-server: the one object every handler
 * reaches through req->app, its route table, and its life cycle.
 *
 * server_start() opens the store (the database), loads the problems, starts the HTTP
 * threads and the ticker (a thread that expires leases, ends idle claims and
 * sends event-stream heartbeats once a second); server_stop() ends event
 * streams and long-polls, stops the threads and closes the database. The
 * modules (auth, problems, submissions, sse, judgeapi, admin, scores,
 * metrics, files) each own their routes' handlers and keep their state
 * here.
 */
#ifndef BW_SERVER_SERVER_H
#define BW_SERVER_SERVER_H

#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>

#include "config.h"
#include "device.h"

struct store;
struct http;
struct problem_set_holder;
struct sse_hub;
struct claim_waiters;
struct metrics;
struct throttle;
struct rate_limit;
struct pwhash_pool;

struct server {
    const struct server_config *cfg; /* borrowed, read-only */
    struct store *store;             /* everything kept (store.h) */
    struct http *http;
    struct problem_set_holder *problems;
    struct sse_hub *hub;
    struct claim_waiters *claims;
    struct metrics *metrics;
    struct throttle *signins;                   /* failed sign-ins and lockouts (throttle.h) */
    struct rate_limit *signups;                 /* sign-ups per client address (throttle.h) */
    struct pwhash_pool *pwhash;                 /* argon2id off the HTTP threads (pwhash.h) */
    unsigned char device_key[DEVICE_KEY_BYTES]; /* signs known-device cookies (device.h) */
    pthread_t ticker;
    bool ticker_started;
    atomic_bool stopping;
    atomic_bool queue_dirty; /* queue positions changed: the ticker tells the watchers */
    pthread_mutex_t tick_lock;
    pthread_cond_t tick_cond;
};

/* Access classes of routes (struct route.access). */
enum access {
    ACCESS_PUBLIC = 0,     /* anyone; a principal is resolved when credentials come */
    ACCESS_USER = 1,       /* a signed-in user (session cookie or personal API token) */
    ACCESS_INSTRUCTOR = 2, /* a user with role instructor or admin */
    ACCESS_ADMIN = 3,      /* a user with role admin */
    ACCESS_WORKER = 4,     /* a judge worker's bearer token */
};

/* Starts everything per cfg; *out is new. Logs what it loaded, and the
 * warnings of config_check_paths(); refuses to start on its errors and when
 * no problem loads. */
int server_start(const struct server_config *cfg, struct server **out, char **cause);
/* Graceful stop: refuses new connections, ends streams and long-polls,
 * lets requests in progress finish, closes the database. NULL is a no-op. */
void server_stop(struct server *s);
/* Reloads problems/ (SIGHUP). */
void server_reload(struct server *s);
/* The bound port (cfg->port 0 picks a free one, for tests). */
int server_port(const struct server *s);
/* Wakes the ticker now (new work, a shutdown). */
void server_poke(struct server *s);

#endif
