#include "http.h"

#include <arpa/inet.h>
#include <errno.h>
#include <netdb.h>
#include <netinet/in.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/socket.h>
#include <unistd.h>

#include <microhttpd.h>
#include <sodium.h>

#include "arena.h"
#include "common/error.h"
#include "common/limits.h"
#include "common/log.h"
#include "common/util.h"
#include "common/banned.h"

/* Open connections per client address (IPv6: per /64), for the cap. */
#define ADDR_BUCKETS 1024
struct addr_count {
    struct in6_addr key;
    unsigned n;
    struct addr_count *next;
};

/* One open connection (libmicrohttpd's socket context), from its start to
 * its close, in struct http's list. */
struct conn {
    int fd;
    double since_ms;         /* when the request being received began (see receiving) */
    bool receiving;          /* a request (line, headers, body) is still coming in */
    bool closing;            /* shut down by the deadline or the cap */
    struct addr_count *addr; /* its address's count; NULL for a trusted proxy */
    struct conn *prev, *next;
};

struct http {
    struct MHD_Daemon *d;
    const struct route *routes;
    size_t n_routes;
    http_access_fn access;
    http_done_fn done;
    void *app;
    int port;
    char *trusted_proxies; /* owned copy of the option ("" none) */
    int request_deadline_s;
    int per_address;
    pthread_mutex_t conns_lock; /* guards conns, addrs and each struct conn's fields */
    struct conn *conns;
    struct addr_count *addrs[ADDR_BUCKETS];
    unsigned char addr_hkey[crypto_shorthash_KEYBYTES];
    atomic_ullong deadline_closed, address_refused;
};

/* What lives in *con_cls: the request and its response builder. */
struct exchange {
    struct http_request req;
    struct http_response res;
    struct http *http;
    int status;       /* queued status, for the done hook */
    int route_status; /* 404/405 when no route matched; 400/414 for a refused URI */
    const char *allow;
    size_t discarded; /* body bytes dropped after the cap */
    bool failed;      /* the server could not build or queue an answer */
};

/* What the URI hook leaves in *con_cls for a request refused before routing
 * (its address is the marker; the exchange is made on the first call). */
static char uri_has_nul, uri_too_long;

static const char *const method_names[] = {"GET", "HEAD", "POST", "PUT", "DELETE", "OTHER"};

const char *http_method_name(enum http_method m)
{
    return method_names[m];
}

static enum http_method parse_method(const char *m)
{
    for (int i = 0; i < HTTP_OTHER; i++) {
        if (strcmp(m, method_names[i]) == 0)
            return (enum http_method)i;
    }
    return HTTP_OTHER;
}

/* Matches one pattern against a path; fills params on success. */
static bool pattern_match(const char *pattern, const char *path, struct arena *arena,
                          const char *params[HTTP_MAX_PARAMS], int *n_params)
{
    const char *p = pattern, *s = path;
    int n = 0;
    while (*p) {
        if (p[0] == '*' && p[1] == '\0') {
            if (n >= HTTP_MAX_PARAMS)
                return false;
            params[n++] = arena ? arena_strdup(arena, s) : s;
            *n_params = n;
            return true;
        }
        if (p[0] == '{' && p[1] == '}') {
            size_t len = strcspn(s, "/");
            if (len == 0 || n >= HTTP_MAX_PARAMS)
                return false;
            params[n++] = arena ? arena_strndup(arena, s, len) : s;
            p += 2;
            s += len;
            continue;
        }
        if (*p != *s)
            return false;
        p++;
        s++;
    }
    if (*s != '\0')
        return false;
    *n_params = n;
    return true;
}

const struct route *http_route_match(const struct route *routes, size_t n, enum http_method m,
                                     const char *path, struct arena *arena,
                                     const char *params[HTTP_MAX_PARAMS], int *n_params,
                                     int *status, const char **allow)
{
    enum http_method want = m == HTTP_HEAD ? HTTP_GET : m;
    bool seen[HTTP_OTHER + 1] = {false};
    bool any = false;
    const char *scratch[HTTP_MAX_PARAMS];
    int n_scratch = 0;
    for (size_t i = 0; i < n; i++) {
        if (!pattern_match(routes[i].pattern, path, NULL, scratch, &n_scratch))
            continue;
        if (routes[i].method == want) {
            *n_params = 0;
            pattern_match(routes[i].pattern, path, arena, params, n_params);
            return &routes[i];
        }
        /* A catch-all (a pattern ending in "*") is a fallback, not a resource: it does not
         * turn a 404 into a 405. */
        size_t plen = strlen(routes[i].pattern);
        if (plen > 0 && routes[i].pattern[plen - 1] == '*')
            continue;
        seen[routes[i].method] = true;
        any = true;
    }
    *status = any ? 405 : 404;
    *allow = NULL;
    if (any && arena) {
        char list[64] = "";
        size_t used = 0;
        for (int i = 0; i < HTTP_OTHER; i++) {
            if (!seen[i])
                continue;
            int w = snprintf(list + used, sizeof(list) - used, "%s%s", used ? ", " : "",
                             method_names[i]);
            if (w > 0 && (size_t)w < sizeof(list) - used)
                used += (size_t)w;
            if (i == HTTP_GET && !seen[HTTP_HEAD]) {
                w = snprintf(list + used, sizeof(list) - used, ", HEAD");
                if (w > 0 && (size_t)w < sizeof(list) - used)
                    used += (size_t)w;
            }
        }
        *allow = arena_strdup(arena, list);
    }
    return NULL;
}

void http_suspend(struct http_conn *c)
{
    MHD_suspend_connection((struct MHD_Connection *)c);
}

void http_resume(struct http_conn *c)
{
    MHD_resume_connection((struct MHD_Connection *)c);
}

bool http_peer_closed(struct http_conn *c)
{
    const union MHD_ConnectionInfo *ci =
        MHD_get_connection_info((struct MHD_Connection *)c, MHD_CONNECTION_INFO_CONNECTION_FD);
    if (!ci)
        return false;
    char byte;
    ssize_t n = recv(ci->connect_fd, &byte, 1, MSG_PEEK | MSG_DONTWAIT);
    return n == 0 || (n < 0 && errno != EAGAIN && errno != EWOULDBLOCK && errno != EINTR);
}

const char *http_header(const struct http_request *req, const char *name)
{
    return MHD_lookup_connection_value((struct MHD_Connection *)req->conn, MHD_HEADER_KIND, name);
}

const char *http_query(const struct http_request *req, const char *name)
{
    return MHD_lookup_connection_value((struct MHD_Connection *)req->conn, MHD_GET_ARGUMENT_KIND,
                                       name);
}

const char *http_cookie(const struct http_request *req, const char *name)
{
    return MHD_lookup_connection_value((struct MHD_Connection *)req->conn, MHD_COOKIE_KIND, name);
}

int http_add_header(struct http_request *req, struct http_response *res, const char *name,
                    const char *value)
{
    struct http_header *h = arena_alloc(req->arena, sizeof(*h));
    if (!h)
        return BW_ERR_NOMEM;
    h->name = arena_strdup(req->arena, name);
    h->value = arena_strdup(req->arena, value);
    if (!h->name || !h->value)
        return BW_ERR_NOMEM;
    h->next = res->headers;
    res->headers = h;
    return BW_OK;
}

int http_text(struct http_response *res, int status, const char *content_type, const char *text,
              size_t len)
{
    buf_reset(&res->body);
    res->content_type = content_type;
    if (buf_append(&res->body, text, len) < 0) {
        buf_reset(&res->body);
        res->content_type = "text/plain; charset=utf-8";
        buf_puts(&res->body, "response too large\n");
        return 500;
    }
    return status;
}

static ssize_t stream_read(void *cls, uint64_t pos, char *buf, size_t max)
{
    (void)pos;
    struct http_stream *s = cls;
    ssize_t n = s->read(s->arg, buf, max);
    if (n == HTTP_STREAM_END)
        return MHD_CONTENT_READER_END_OF_STREAM;
    return n < 0 ? MHD_CONTENT_READER_END_WITH_ERROR : n;
}

static void stream_free(void *cls)
{
    struct http_stream *s = cls;
    if (s->free)
        s->free(s->arg);
    free(s);
}

/* The connection of `mc` has its whole request (or is answered before it):
 * the deadline stops counting for it. */
static void request_received(struct http *h, struct MHD_Connection *mc)
{
    const union MHD_ConnectionInfo *ci =
        MHD_get_connection_info(mc, MHD_CONNECTION_INFO_SOCKET_CONTEXT);
    struct conn *c = ci ? ci->socket_context : NULL;
    if (!c)
        return;
    pthread_mutex_lock(&h->conns_lock);
    c->receiving = false;
    pthread_mutex_unlock(&h->conns_lock);
}

/* Builds and queues the MHD response; returns MHD's verdict. */
static enum MHD_Result send_response(struct MHD_Connection *mc, struct exchange *x, int status)
{
    struct http_response *res = &x->res;
    struct MHD_Response *r = NULL;
    if (res->stream.read) {
        struct http_stream *s = malloc(sizeof(*s));
        if (s) {
            *s = res->stream;
            r = MHD_create_response_from_callback(MHD_SIZE_UNKNOWN, 4096, stream_read, s,
                                                  stream_free);
            if (r)
                res->stream.read = NULL; /* the response owns it now */
            else
                free(s);
        }
    } else if (res->file_fd >= 0) {
        r = MHD_create_response_from_fd64(res->file_size, res->file_fd);
        if (r)
            res->file_fd = -1;
    } else {
        size_t len = res->body.len;
        char *data = buf_detach(&res->body);
        if (data)
            r = MHD_create_response_from_buffer(len, data, MHD_RESPMEM_MUST_FREE);
        if (!r)
            free(data);
    }
    if (!r) {
        log_error("http: cannot create a response (out of memory)");
        x->failed = true;
        return MHD_NO;
    }
    if (res->content_type)
        MHD_add_response_header(r, MHD_HTTP_HEADER_CONTENT_TYPE, res->content_type);
    MHD_add_response_header(r, "X-Content-Type-Options", "nosniff");
    for (struct http_header *h = res->headers; h; h = h->next)
        MHD_add_response_header(r, h->name, h->value);
    request_received(x->http, mc);
    enum MHD_Result ok = MHD_queue_response(mc, (unsigned)status, r);
    MHD_destroy_response(r);
    if (ok == MHD_YES)
        x->status = status;
    else
        x->failed = true;
    return ok;
}

static int error_body(struct http_response *res, int status, const char *code, const char *msg)
{
    buf_reset(&res->body);
    res->content_type = "application/json";
    buf_addf(&res->body, "{\"error\": {\"code\": \"%s\", \"message\": \"%s\", \"field\": null}}",
             code, msg);
    return status;
}

/* addr as an IPv6 address (IPv4 mapped); false if it is not numeric. */
static bool parse_addr(const char *addr, struct in6_addr *out)
{
    struct in_addr a4;
    if (inet_pton(AF_INET6, addr, out) == 1)
        return true;
    if (inet_pton(AF_INET, addr, &a4) != 1)
        return false;
    memset(out, 0, sizeof(*out));
    out->s6_addr[10] = 0xff;
    out->s6_addr[11] = 0xff;
    memcpy(&out->s6_addr[12], &a4, sizeof(a4));
    return true;
}

/* The canonical text of a: IPv4 for an IPv4-mapped address. */
static void format_addr(const struct in6_addr *a, char out[HTTP_ADDR_CHARS])
{
    if (IN6_IS_ADDR_V4MAPPED(a)) {
        struct in_addr a4;
        memcpy(&a4, &a->s6_addr[12], sizeof(a4));
        if (inet_ntop(AF_INET, &a4, out, HTTP_ADDR_CHARS))
            return;
    } else if (inet_ntop(AF_INET6, a, out, HTTP_ADDR_CHARS)) {
        return;
    }
    snprintf(out, HTTP_ADDR_CHARS, "?");
}

static bool is_trusted(const struct in6_addr *a, const char *trusted)
{
    const char *p = trusted;
    while (p && *p) {
        p += strspn(p, ", \t");
        size_t n = strcspn(p, ", \t");
        char one[HTTP_ADDR_CHARS];
        struct in6_addr t;
        if (n > 0 && n < sizeof(one)) {
            memcpy(one, p, n);
            one[n] = '\0';
            if (parse_addr(one, &t) && memcmp(&t, a, sizeof(t)) == 0)
                return true;
        }
        p += n;
    }
    return false;
}

void http_client_address(const char *peer, const char *forwarded_for, const char *trusted,
                         char out[HTTP_ADDR_CHARS])
{
    struct in6_addr cur;
    if (!parse_addr(peer, &cur)) {
        snprintf(out, HTTP_ADDR_CHARS, "%s", peer);
        return;
    }
    size_t end = forwarded_for ? strlen(forwarded_for) : 0;
    while (end > 0 && is_trusted(&cur, trusted)) {
        /* The entry before `end`, trimmed. */
        size_t start = end;
        while (start > 0 && forwarded_for[start - 1] != ',')
            start--;
        size_t a = start, b = end;
        while (a < b && (forwarded_for[a] == ' ' || forwarded_for[a] == '\t'))
            a++;
        while (b > a && (forwarded_for[b - 1] == ' ' || forwarded_for[b - 1] == '\t'))
            b--;
        char one[HTTP_ADDR_CHARS];
        struct in6_addr next;
        if (b - a == 0 || b - a >= sizeof(one))
            break;
        memcpy(one, forwarded_for + a, b - a);
        one[b - a] = '\0';
        if (!parse_addr(one, &next))
            break;
        cur = next;
        end = start > 0 ? start - 1 : 0;
    }
    format_addr(&cur, out);
}

static int too_large(struct exchange *x, size_t cap)
{
    return error_body(&x->res, 413, "too_large",
                      cap ? "request body is over this endpoint's limit"
                          : "this endpoint takes no request body");
}

static void fill_remote(struct http *h, struct MHD_Connection *mc, struct http_request *req)
{
    const union MHD_ConnectionInfo *ci =
        MHD_get_connection_info(mc, MHD_CONNECTION_INFO_CLIENT_ADDRESS);
    snprintf(req->peer, sizeof(req->peer), "?");
    if (ci && ci->client_addr) {
        const struct sockaddr *sa = ci->client_addr;
        if (sa->sa_family == AF_INET)
            inet_ntop(AF_INET, &((const struct sockaddr_in *)(const void *)sa)->sin_addr, req->peer,
                      sizeof(req->peer));
        else if (sa->sa_family == AF_INET6)
            inet_ntop(AF_INET6, &((const struct sockaddr_in6 *)(const void *)sa)->sin6_addr,
                      req->peer, sizeof(req->peer));
    }
    const char *xff = h->trusted_proxies[0]
                          ? MHD_lookup_connection_value(mc, MHD_HEADER_KIND, "X-Forwarded-For")
                          : NULL;
    http_client_address(req->peer, xff, h->trusted_proxies, req->remote);
}

static enum MHD_Result add_header_bytes(void *cls, enum MHD_ValueKind kind, const char *key,
                                        const char *value)
{
    (void)kind;
    size_t *n = cls;
    *n += strlen(key) + (value ? strlen(value) : 0) + 4; /* ": " and CRLF */
    return MHD_YES;
}

/* The bytes of a request's header lines, as sent (give or take blanks). */
static size_t header_bytes(struct MHD_Connection *mc)
{
    size_t n = 0;
    MHD_get_connection_values(mc, MHD_HEADER_KIND, add_header_bytes, &n);
    return n;
}

static struct exchange *exchange_new(struct http *h, struct MHD_Connection *mc, const char *url,
                                     const char *method)
{
    struct arena *a = arena_new();
    if (!a)
        return NULL;
    struct exchange *x = arena_alloc(a, sizeof(*x));
    if (!x) {
        arena_free(a);
        return NULL;
    }
    x->http = h;
    x->req.arena = a;
    x->req.conn = (struct http_conn *)mc;
    x->req.method = parse_method(method);
    x->req.path = arena_strdup(a, url);
    x->req.app = h->app;
    x->req.started_ms = now_ms();
    buf_init(&x->req.body, 0);
    buf_init(&x->res.body, BW_MAX_RESPONSE_BYTES);
    x->res.file_fd = -1;
    fill_remote(h, mc, &x->req);
    if (!x->req.path) {
        arena_free(a);
        return NULL;
    }
    return x;
}

static enum MHD_Result on_request(void *cls, struct MHD_Connection *mc, const char *url,
                                  const char *method, const char *version, const char *upload_data,
                                  size_t *upload_data_size, void **con_cls)
{
    (void)version;
    struct http *h = cls;
    struct exchange *x = *con_cls;

    if (!x || (void *)x == &uri_has_nul || (void *)x == &uri_too_long) {
        int refused = (void *)x == &uri_has_nul ? 400 : (void *)x == &uri_too_long ? 414 : 0;
        *con_cls = NULL;
        x = exchange_new(h, mc, url, method);
        if (!x)
            return MHD_NO;
        *con_cls = x;
        struct http_request *req = &x->req;
        if (!refused && header_bytes(mc) > BW_MAX_HEADER_BYTES) {
            /* Answered at once, and the connection closed after it: its body
             * (if any) is not read. */
            char msg[96];
            snprintf(msg, sizeof(msg), "request headers are over BW_MAX_HEADER_BYTES (%d bytes)",
                     BW_MAX_HEADER_BYTES);
            x->route_status = 431;
            http_add_header(req, &x->res, "Connection", "close");
            return send_response(mc, x, error_body(&x->res, 431, "headers_too_large", msg));
        }
        if (refused) {
            x->route_status = refused;
        } else {
            req->route =
                http_route_match(h->routes, h->n_routes, req->method, req->path, req->arena,
                                 req->params, &req->n_params, &x->route_status, &x->allow);
        }
        size_t cap = req->route ? ((const struct route *)req->route)->max_body : 0;
        buf_init(&req->body, cap);
        const char *cl =
            MHD_lookup_connection_value(mc, MHD_HEADER_KIND, MHD_HTTP_HEADER_CONTENT_LENGTH);
        int64_t n;
        if (cl && parse_i64(cl, &n) && n > (int64_t)cap && req->route) {
            req->body_too_large = true;
            const char *expect =
                MHD_lookup_connection_value(mc, MHD_HEADER_KIND, MHD_HTTP_HEADER_EXPECT);
            /* A client that waits for "100 Continue", or a body far over the
             * cap, is refused before a byte of it is read. One a little over
             * is read and dropped first: closing a connection with unread
             * bytes resets it, and a client still sending loses the 413. */
            if ((expect && strcasecmp(expect, "100-continue") == 0) ||
                n - (int64_t)cap > (int64_t)BW_MAX_DISCARD_BYTES)
                return send_response(mc, x, too_large(x, cap));
        }
        return MHD_YES;
    }

    struct http_request *req = &x->req;
    if (*upload_data_size) {
        if (!req->body_too_large && !x->status) {
            if (buf_append(&req->body, upload_data, *upload_data_size) < 0) {
                req->body_too_large = true;
                buf_release(&req->body);
            }
        }
        /* A body of unannounced length (chunked) over the cap is read and
         * dropped so that the 413 can be sent; past a margin the connection
         * is closed instead, so nobody streams into it forever. */
        x->discarded += req->body_too_large ? *upload_data_size : 0;
        *upload_data_size = 0;
        if (x->discarded > req->body.max + BW_MAX_DISCARD_BYTES) {
            x->status = 413; /* the client's doing: counted and logged as its 413 */
            return MHD_NO;
        }
        return MHD_YES;
    }
    if (x->status) /* a response was queued early (413) */
        return MHD_YES;
    request_received(h, mc);

    int status;
    if (req->suspended)
        req->suspended = false;
    if (!req->route) {
        if (x->route_status == 405 && x->allow)
            http_add_header(req, &x->res, "Allow", x->allow);
        status =
            x->route_status == 414
                ? error_body(&x->res, 414, "uri_too_long", "request path and query are too long")
            : x->route_status == 400
                ? error_body(&x->res, 400, "bad_path",
                             "the path or query holds an encoded NUL character (%00)")
            : x->route_status == 405
                ? error_body(&x->res, 405, "method_not_allowed", "method not allowed on this path")
                : error_body(&x->res, 404, "not_found", "no such path");
        return send_response(mc, x, status);
    }
    const struct route *rt = req->route;
    if (req->body_too_large)
        return send_response(mc, x, too_large(x, rt->max_body));
    if (!req->handled) {
        req->handled = true;
        if (h->access) {
            status = h->access(req, &x->res, rt->access);
            if (status != 0)
                return send_response(mc, x, status);
        }
    }
    req->calls++;
    status = rt->handler(req, &x->res);
    if (status == HTTP_SUSPENDED) {
        req->suspended = true;
        return MHD_YES;
    }
    if (status < 100 || status > 599) {
        log_error("http: %s %s: handler returned status %d", method, req->path, status);
        status = error_body(&x->res, 500, "internal", "internal error");
    }
    return send_response(mc, x, status);
}

/* The raw URI, before libmicrohttpd decodes it (and a %00 cuts it short). */
static void *on_uri(void *cls, const char *uri, struct MHD_Connection *mc)
{
    (void)cls;
    (void)mc;
    if (strlen(uri) > BW_MAX_URL_BYTES)
        return &uri_too_long;
    if (strstr(uri, "%00"))
        return &uri_has_nul;
    return NULL;
}

static enum http_end end_of(const struct exchange *x, enum MHD_RequestTerminationCode toe)
{
    switch (toe) {
    case MHD_REQUEST_TERMINATED_COMPLETED_OK:
        return HTTP_END_DONE;
    case MHD_REQUEST_TERMINATED_DAEMON_SHUTDOWN:
        return HTTP_END_SHUTDOWN;
    case MHD_REQUEST_TERMINATED_TIMEOUT_REACHED:
    case MHD_REQUEST_TERMINATED_READ_ERROR:
    case MHD_REQUEST_TERMINATED_CLIENT_ABORT:
        return HTTP_END_CLIENT_GONE;
    default:
        /* WITH_ERROR: our own failure to answer, or sending the answer failed
         * because the peer is gone (a browser closing an event stream). */
        return x->failed ? HTTP_END_ERROR : HTTP_END_CLIENT_GONE;
    }
}

static void on_completed(void *cls, struct MHD_Connection *mc, void **con_cls,
                         enum MHD_RequestTerminationCode toe)
{
    struct http *h = cls;
    struct exchange *x = *con_cls;
    *con_cls = NULL;
    /* A kept-alive connection's next request must arrive within the
     * deadline of this answer (so an idle one is closed then too). */
    const union MHD_ConnectionInfo *ci =
        MHD_get_connection_info(mc, MHD_CONNECTION_INFO_SOCKET_CONTEXT);
    struct conn *c = ci ? ci->socket_context : NULL;
    if (c) {
        pthread_mutex_lock(&h->conns_lock);
        c->receiving = true;
        c->since_ms = now_ms();
        pthread_mutex_unlock(&h->conns_lock);
    }
    if (!x || (void *)x == &uri_has_nul || (void *)x == &uri_too_long)
        return;
    if (h->done)
        h->done(h->app, &x->req, x->status, end_of(x, toe));
    if (x->req.on_end)
        x->req.on_end(&x->req);
    if (x->res.stream.read && x->res.stream.free)
        x->res.stream.free(x->res.stream.arg);
    if (x->res.file_fd >= 0)
        close(x->res.file_fd);
    buf_release(&x->req.body);
    buf_release(&x->res.body);
    arena_free(x->req.arena);
    *con_cls = NULL;
}

/* A peer's address as IPv6 (IPv4 mapped); all zeros when unknown. */
static struct in6_addr peer_address(const struct sockaddr *sa)
{
    struct in6_addr a;
    memset(&a, 0, sizeof(a));
    if (sa && sa->sa_family == AF_INET) {
        a.s6_addr[10] = 0xff;
        a.s6_addr[11] = 0xff;
        memcpy(&a.s6_addr[12], &((const struct sockaddr_in *)(const void *)sa)->sin_addr, 4);
    } else if (sa && sa->sa_family == AF_INET6) {
        a = ((const struct sockaddr_in6 *)(const void *)sa)->sin6_addr;
    }
    return a;
}

/* The count of `key`, made if missing (NULL when out of memory); call with
 * conns_lock held. The bucket is a keyed hash: nobody can aim collisions. */
static struct addr_count *addr_count_of(struct http *h, const struct in6_addr *key)
{
    unsigned char hash[crypto_shorthash_BYTES];
    crypto_shorthash(hash, key->s6_addr, sizeof(key->s6_addr), h->addr_hkey);
    size_t b = (hash[0] | (size_t)hash[1] << 8) % ADDR_BUCKETS;
    for (struct addr_count *a = h->addrs[b]; a; a = a->next)
        if (memcmp(&a->key, key, sizeof(*key)) == 0)
            return a;
    struct addr_count *a = calloc(1, sizeof(*a));
    if (a) {
        a->key = *key;
        a->next = h->addrs[b];
        h->addrs[b] = a;
    }
    return a;
}

static void addr_count_drop(struct http *h, struct addr_count *a)
{
    if (--a->n > 0)
        return;
    unsigned char hash[crypto_shorthash_BYTES];
    crypto_shorthash(hash, a->key.s6_addr, sizeof(a->key.s6_addr), h->addr_hkey);
    struct addr_count **p = &h->addrs[(hash[0] | (size_t)hash[1] << 8) % ADDR_BUCKETS];
    while (*p && *p != a)
        p = &(*p)->next;
    if (*p)
        *p = a->next;
    free(a);
}

/* Every connection is registered from its start to its close: for the
 * request deadline (http_tick) and the cap per client address, which a
 * connection over it meets at once (it is shut down before a byte is read;
 * the client sees the connection closed). Connections from a trusted proxy
 * are not counted: behind one, it is the proxy's to cap per client. */
static void on_connection(void *cls, struct MHD_Connection *mc, void **socket_context,
                          enum MHD_ConnectionNotificationCode toe)
{
    struct http *h = cls;
    struct conn *c = *socket_context;
    if (toe == MHD_CONNECTION_NOTIFY_CLOSED) {
        if (!c)
            return;
        pthread_mutex_lock(&h->conns_lock);
        if (c->prev)
            c->prev->next = c->next;
        else
            h->conns = c->next;
        if (c->next)
            c->next->prev = c->prev;
        if (c->addr)
            addr_count_drop(h, c->addr);
        pthread_mutex_unlock(&h->conns_lock);
        free(c);
        *socket_context = NULL;
        return;
    }
    const union MHD_ConnectionInfo *fi =
        MHD_get_connection_info(mc, MHD_CONNECTION_INFO_CONNECTION_FD);
    const union MHD_ConnectionInfo *ai =
        MHD_get_connection_info(mc, MHD_CONNECTION_INFO_CLIENT_ADDRESS);
    c = calloc(1, sizeof(*c));
    if (!c || !fi) {
        free(c);
        return; /* not registered: no deadline, not counted (out of memory only) */
    }
    c->fd = fi->connect_fd;
    c->since_ms = now_ms();
    c->receiving = true;
    struct in6_addr key = peer_address(ai ? ai->client_addr : NULL);
    bool proxy = h->trusted_proxies[0] && is_trusted(&key, h->trusted_proxies);
    if (!IN6_IS_ADDR_V4MAPPED(&key))
        memset(&key.s6_addr[8], 0, 8); /* IPv6: counted per /64, one host's usual share */
    bool refuse = false;
    pthread_mutex_lock(&h->conns_lock);
    if (h->per_address > 0 && !proxy) {
        c->addr = addr_count_of(h, &key);
        if (c->addr && ++c->addr->n > (unsigned)h->per_address)
            refuse = c->closing = true;
    }
    c->next = h->conns;
    if (h->conns)
        h->conns->prev = c;
    h->conns = c;
    pthread_mutex_unlock(&h->conns_lock);
    *socket_context = c;
    if (refuse) {
        shutdown(c->fd, SHUT_RDWR);
        atomic_fetch_add(&h->address_refused, 1);
        char text[HTTP_ADDR_CHARS];
        format_addr(&key, text);
        log_debug("http: refused a connection from %s: over connections_per_address (%d)", text,
                  h->per_address);
    }
}

void http_tick(struct http *h)
{
    double now = now_ms(), limit = (double)h->request_deadline_s * 1000.0;
    unsigned closed = 0;
    pthread_mutex_lock(&h->conns_lock);
    for (struct conn *c = h->conns; c; c = c->next) {
        if (c->receiving && !c->closing && now - c->since_ms > limit) {
            /* libmicrohttpd sees the end of the stream and closes the
             * connection itself; the fd stays valid until it does, which
             * is after on_connection took it off this list. */
            shutdown(c->fd, SHUT_RDWR);
            c->closing = true;
            closed++;
        }
    }
    pthread_mutex_unlock(&h->conns_lock);
    if (closed) {
        atomic_fetch_add(&h->deadline_closed, closed);
        log_info("http: closed %u connection%s that sent no whole request within "
                 "request_deadline (%d s)",
                 closed, closed == 1 ? "" : "s", h->request_deadline_s);
    }
}

void http_counters(struct http *h, uint64_t *deadline_closed, uint64_t *address_refused)
{
    *deadline_closed = atomic_load(&h->deadline_closed);
    *address_refused = atomic_load(&h->address_refused);
}

bool http_log_peer_gone(const char *message)
{
    /* libmicrohttpd 0.9's wording for a peer that closed or reset the
     * connection, while reading a request or sending an answer. */
    static const char *const gone[] = {
        "closed by remote side",          "has been disconnected",
        "forcibly closed by remote peer", "no longer available for sending",
        "socket is not connected",
    };
    for (size_t i = 0; i < sizeof(gone) / sizeof(gone[0]); i++) {
        if (strstr(message, gone[i]))
            return true;
    }
    return false;
}

static void on_mhd_log(void *cls, const char *fmt, va_list ap)
{
    (void)cls;
    char line[512];
    vsnprintf(line, sizeof(line), fmt, ap);
    size_t n = strlen(line);
    while (n > 0 && (line[n - 1] == '\n' || line[n - 1] == '\r'))
        line[--n] = '\0';
    if (http_log_peer_gone(line))
        log_debug("http: libmicrohttpd: %s", line);
    else
        log_warn("http: libmicrohttpd: %s", line);
}

int http_start(const struct http_options *o, const struct route *routes, size_t n_routes,
               http_access_fn access, http_done_fn done, void *app, struct http **out, char **cause)
{
    struct sockaddr_storage ss;
    memset(&ss, 0, sizeof(ss));
    struct sockaddr_in *v4 = (struct sockaddr_in *)&ss;
    struct sockaddr_in6 *v6 = (struct sockaddr_in6 *)&ss;
    unsigned flags = MHD_USE_INTERNAL_POLLING_THREAD | MHD_USE_EPOLL | MHD_ALLOW_SUSPEND_RESUME |
                     MHD_USE_ERROR_LOG;
    if (inet_pton(AF_INET, o->listen, &v4->sin_addr) == 1) {
        v4->sin_family = AF_INET;
        v4->sin_port = htons((uint16_t)o->port);
    } else if (inet_pton(AF_INET6, o->listen, &v6->sin6_addr) == 1) {
        v6->sin6_family = AF_INET6;
        v6->sin6_port = htons((uint16_t)o->port);
        flags |= MHD_USE_IPv6;
    } else {
        return bw_fail(cause, BW_ERR_INVALID,
                       "listen: \"%s\" is not a numeric IPv4 or IPv6 address", o->listen);
    }
    struct http *h = calloc(1, sizeof(*h));
    if (h)
        h->trusted_proxies = strdup(o->trusted_proxies ? o->trusted_proxies : "");
    if (!h || !h->trusted_proxies) {
        free(h);
        return bw_fail(cause, BW_ERR_NOMEM, "out of memory");
    }
    h->routes = routes;
    h->n_routes = n_routes;
    h->access = access;
    h->done = done;
    h->app = app;
    h->request_deadline_s = o->request_deadline_s > 0 ? o->request_deadline_s : 1;
    h->per_address = o->per_address;
    pthread_mutex_init(&h->conns_lock, NULL);
    crypto_shorthash_keygen(h->addr_hkey);
    unsigned threads = o->threads > 1 ? (unsigned)o->threads : 0;
    /* Each connection's memory holds its request line and headers whole: a
     * head over BW_MAX_HEADER_BYTES that fits gets our 431 in JSON; one that
     * does not fit gets libmicrohttpd's own (HTML; it cannot be replaced).
     * The memory is mapped at accept and cleared whole between two requests
     * of a kept-alive connection: such a connection costs all of it (at
     * max_connections 8192, 1 GiB), which connections_per_address bounds
     * per client. */
    h->d = MHD_start_daemon(
        flags, (uint16_t)o->port, NULL, NULL, on_request, h, MHD_OPTION_EXTERNAL_LOGGER, on_mhd_log,
        NULL, MHD_OPTION_SOCK_ADDR, (struct sockaddr *)&ss, MHD_OPTION_NOTIFY_COMPLETED,
        on_completed, h, MHD_OPTION_NOTIFY_CONNECTION, on_connection, h,
        MHD_OPTION_URI_LOG_CALLBACK, on_uri, h, MHD_OPTION_CONNECTION_LIMIT,
        (unsigned)o->max_connections, MHD_OPTION_CONNECTION_TIMEOUT, (unsigned)o->conn_timeout_s,
        MHD_OPTION_CONNECTION_MEMORY_LIMIT, (size_t)BW_HTTP_CONN_MEMORY_BYTES,
        MHD_OPTION_LISTEN_BACKLOG_SIZE, 1024U,
        threads ? MHD_OPTION_THREAD_POOL_SIZE : MHD_OPTION_END, threads, MHD_OPTION_END);
    if (!h->d) {
        pthread_mutex_destroy(&h->conns_lock);
        free(h->trusted_proxies);
        free(h);
        return bw_fail(cause, BW_ERR_SYSTEM,
                       "cannot listen on %s port %d (in use, or no permission)", o->listen,
                       o->port);
    }
    const union MHD_DaemonInfo *di = MHD_get_daemon_info(h->d, MHD_DAEMON_INFO_BIND_PORT);
    h->port = di ? di->port : o->port;
    *out = h;
    return BW_OK;
}

int http_port(const struct http *h)
{
    return h->port;
}

unsigned http_connections(struct http *h)
{
    const union MHD_DaemonInfo *di = MHD_get_daemon_info(h->d, MHD_DAEMON_INFO_CURRENT_CONNECTIONS);
    return di ? di->num_connections : 0;
}

void http_quiesce(struct http *h)
{
    if (!h)
        return;
    MHD_socket s = MHD_quiesce_daemon(h->d);
    if (s != MHD_INVALID_SOCKET)
        close(s);
}

void http_stop(struct http *h)
{
    if (!h)
        return;
    MHD_stop_daemon(h->d);
    /* Every connection was closed, so every count was dropped. */
    pthread_mutex_destroy(&h->conns_lock);
    free(h->trusted_proxies);
    free(h);
}
