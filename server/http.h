/*
 * http.h - the HTTP layer of blockwise-server: libmicrohttpd glue, a static
 * route table, requests and response builders.
 *
 * This is the ONE module that includes <microhttpd.h> and translates
 * MHD_Result. libmicrohttpd runs a pool of threads, each with its own epoll
 * loop; a handler must therefore never wait: a request that has to wait (a
 * worker's claim long-poll, an event stream with nothing new) suspends its
 * connection with http_suspend() and is resumed by whoever has news with
 * http_resume(). Suspended connections cost a socket and a few KiB, not a
 * thread, so thousands of event streams are cheap.
 *
 * A route is (method, pattern, handler, body cap, access). Patterns are
 * literal segments and "{}" (one segment, captured into params[]), with an
 * optional final "*" (the rest of the path, captured). A path that matches
 * no pattern is 404; one that matches a pattern under another method is 405
 * with an Allow header. HEAD is served by GET routes.
 *
 * A path or query holding an encoded NUL ("%00") is refused with 400
 * bad_path before routing (libmicrohttpd would decode it and cut the path
 * short); one over BW_MAX_URL_BYTES, as sent, is 414.
 *
 * The client's address (req->remote) is the connection's peer, or, when the
 * peer is one of the configured trusted proxies, the address that proxy
 * put in X-Forwarded-For (see http_client_address).
 *
 * Slow clients: every request must arrive whole (line, headers, body) within
 * request_deadline_s of its connection's start, or of the answer before it on
 * a kept-alive connection, else the connection is closed (http_tick); and a
 * client address may hold at most per_address connections at once (trusted
 * proxies excepted), a connection over that is closed at once.
 *
 * A request that ends without an answer because the client left, or idled
 * past the timeout, is reported to the done hook with status 0 and
 * HTTP_END_CLIENT_GONE: that is not the server's failure (no 5xx), and
 * libmicrohttpd's own messages about it are logged at debug, not warn.
 *
 * Each request gets an arena (arena.h), freed in the completion callback.
 * Handlers return an HTTP status and fill the response builder; or return
 * HTTP_SUSPENDED after calling http_suspend(req->conn), in which case the
 * same handler runs again (req->calls counts the runs) once the connection
 * is resumed. The handler's state across runs lives in req->state.
 */
#ifndef BW_SERVER_HTTP_H
#define BW_SERVER_HTTP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "common/buf.h"

struct arena;
struct http;
struct http_conn; /* one client connection, opaque */

enum http_method { HTTP_GET, HTTP_HEAD, HTTP_POST, HTTP_PUT, HTTP_DELETE, HTTP_OTHER };

#define HTTP_MAX_PARAMS 4
#define HTTP_ADDR_CHARS 64 /* a numeric address (INET6_ADDRSTRLEN is 46) */
#define HTTP_SUSPENDED  0  /* a handler's return: it suspended the connection */
#define HTTP_STREAM_END (-1)

/* A streaming body (Server-Sent Events). read() fills up to `max` bytes and
 * returns their count; or it calls http_suspend(conn) and returns 0 (it will
 * be called again after http_resume); or returns HTTP_STREAM_END. free() runs
 * once when the response is done with (the client went away or the stream
 * ended), on any thread. */
struct http_stream {
    ssize_t (*read)(void *arg, char *buf, size_t max);
    void (*free)(void *arg);
    void *arg;
};

struct http_header {
    const char *name, *value; /* arena memory */
    struct http_header *next;
};

struct http_request {
    struct http_conn *conn;
    enum http_method method;
    const char *path;                    /* borrowed, decoded by MHD, without the query */
    const char *params[HTTP_MAX_PARAMS]; /* arena: captured "{}" and "*" segments */
    int n_params;
    struct buf body; /* the request body (capped by the route) */
    struct arena *arena;
    void *app;         /* the application (struct server *), borrowed */
    const void *route; /* the matched route (struct route *) */
    void *who;         /* set by the access hook: the authenticated principal */
    void *state;       /* a handler's state across suspensions */
    /* Called once when the request ends, whatever happened (the completion
     * callback), for a handler whose state holds more than arena memory. */
    void (*on_end)(struct http_request *req);
    int calls; /* how many times the handler has run, including this one */
    double started_ms;
    char remote[HTTP_ADDR_CHARS]; /* the client's address (behind a trusted proxy, its XFF) */
    char peer[HTTP_ADDR_CHARS];   /* the connection's peer (the proxy, when there is one) */
    bool body_too_large;
    bool handled;
    bool suspended;
};

struct http_response {
    int status;
    const char *content_type; /* borrowed (static or arena) */
    struct buf body;
    struct http_header *headers;
    int file_fd; /* >= 0: the body is this file (closed by http.c) */
    uint64_t file_size;
    struct http_stream stream; /* read != NULL: a streaming body */
};

typedef int (*http_handler_fn)(struct http_request *req, struct http_response *res);

struct route {
    enum http_method method;
    const char *pattern;
    http_handler_fn handler;
    size_t max_body; /* bytes; 0: the route takes no body */
    unsigned access; /* passed to the access hook, opaque to http.c */
};

/* Runs before a route's handler on its first call: returns 0 to go on, or a
 * status after filling the response (401, 403, ...). */
typedef int (*http_access_fn)(struct http_request *req, struct http_response *res, unsigned access);
/* How a request ended. */
enum http_end {
    HTTP_END_DONE,        /* the answer was sent */
    HTTP_END_CLIENT_GONE, /* the client closed the connection (or idled past the timeout) before
                           * the answer was complete: mid-body, mid-stream, or before any answer */
    HTTP_END_ERROR,       /* the server could not build or send an answer (out of memory) */
    HTTP_END_SHUTDOWN,    /* the server stopped */
};
/* Called when a request is done, for logs and metrics. `status` is what was
 * answered (0: nothing was). */
typedef void (*http_done_fn)(void *app, const struct http_request *req, int status,
                             enum http_end end);

struct http_options {
    const char *listen; /* numeric address, IPv4 or IPv6 */
    int port;           /* 0: any free port (see http_port) */
    int threads;
    int max_connections;
    int conn_timeout_s;
    const char *trusted_proxies; /* config_address_list_ok() syntax; "" or NULL: none */
    int request_deadline_s;      /* a request's line, headers and body must arrive within */
    int per_address;             /* open connections from one client address; 0: no cap */
};

/* Starts serving. `routes` is borrowed and must outlive the server. *out is new. */
int http_start(const struct http_options *o, const struct route *routes, size_t n_routes,
               http_access_fn access, http_done_fn done, void *app, struct http **out,
               char **cause);
/* The bound port. */
int http_port(const struct http *h);
/* Stops accepting new connections (the listen socket is closed). */
void http_quiesce(struct http *h);
/* Stops the threads and closes every connection; every suspended connection
 * must have been resumed before. NULL is a no-op. */
void http_stop(struct http *h);
/* Open connections right now. */
unsigned http_connections(struct http *h);
/* Closes (shuts down) every connection whose request has not fully arrived
 * within request_deadline_s of the connection's start or of the answer
 * before it: libmicrohttpd's own timeout counts idle time only, so a client
 * sending a byte every few seconds would hold its connection forever. Called
 * once a second (the server's ticker). */
void http_tick(struct http *h);
/* Connections closed by the deadline, and refused over the per-address cap,
 * since the start. */
void http_counters(struct http *h, uint64_t *deadline_closed, uint64_t *address_refused);

/* Suspends/resumes a connection (see above). http_resume must only be called
 * on a suspended connection: callers track that under their own lock. */
void http_suspend(struct http_conn *c);
void http_resume(struct http_conn *c);

/* True if the client has closed its end (an orderly shutdown seen by a
 * non-blocking peek). libmicrohttpd cannot notice that while a connection is
 * suspended, so a resumed long-poll asks before taking work for a client that
 * is gone. */
bool http_peer_closed(struct http_conn *c);

/* Request accessors: borrowed strings or NULL. */
const char *http_header(const struct http_request *req, const char *name);
const char *http_query(const struct http_request *req, const char *name);
const char *http_cookie(const struct http_request *req, const char *name);

/* Adds a response header (both strings copied into the arena); 0 or BW_ERR_NOMEM. */
int http_add_header(struct http_request *req, struct http_response *res, const char *name,
                    const char *value);
/* Sets a text body (copied) and content type; returns `status`. */
int http_text(struct http_response *res, int status, const char *content_type, const char *text,
              size_t len);

/* Finds the route for (method, path). Returns the route, or NULL with
 * *status 404 or 405 (and *allow the allowed methods, "GET, POST", in the
 * arena); fills params. Exposed for tests. */
const struct route *http_route_match(const struct route *routes, size_t n, enum http_method m,
                                     const char *path, struct arena *arena,
                                     const char *params[HTTP_MAX_PARAMS], int *n_params,
                                     int *status, const char **allow);

const char *http_method_name(enum http_method m);

/* The client of a connection from `peer` (numeric) that sent X-Forwarded-For
 * `forwarded_for` (NULL: none), into out: the peer itself unless it is in
 * `trusted` (a list of numeric addresses, "" none); else, walking the list
 * from its right end (the entry the proxy added; entries to its left are
 * whatever the client claimed), the first that is not a trusted proxy. An
 * entry that is not a numeric address stops the walk at the hop before it.
 * IPv4-mapped IPv6 addresses are written as IPv4. Exposed for tests. */
void http_client_address(const char *peer, const char *forwarded_for, const char *trusted,
                         char out[HTTP_ADDR_CHARS]);

/* True if a libmicrohttpd log message only says that the peer went away
 * (a closed or reset connection): logged at debug, not warn. Exposed for tests. */
bool http_log_peer_gone(const char *message);

#endif
