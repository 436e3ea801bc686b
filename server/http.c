#include "http.h"

#include <arpa/inet.h>
#include <errno.h>
#include <netdb.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include <microhttpd.h>

#include "arena.h"
#include "common/error.h"
#include "common/limits.h"
#include "common/log.h"
#include "common/util.h"
#include "common/banned.h"

struct http {
    struct MHD_Daemon *d;
    const struct route *routes;
    size_t n_routes;
    http_access_fn access;
    http_done_fn done;
    void *app;
    int port;
};

/* What lives in *con_cls: the request and its response builder. */
struct exchange {
    struct http_request req;
    struct http_response res;
    struct http *http;
    int status;       /* queued status, for the done hook */
    int route_status; /* 404/405 when no route matched */
    const char *allow;
    size_t discarded; /* body bytes dropped after the cap */
};

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
        return MHD_NO;
    }
    if (res->content_type)
        MHD_add_response_header(r, MHD_HTTP_HEADER_CONTENT_TYPE, res->content_type);
    MHD_add_response_header(r, "X-Content-Type-Options", "nosniff");
    for (struct http_header *h = res->headers; h; h = h->next)
        MHD_add_response_header(r, h->name, h->value);
    x->status = status;
    enum MHD_Result ok = MHD_queue_response(mc, (unsigned)status, r);
    MHD_destroy_response(r);
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

static void fill_remote(struct MHD_Connection *mc, struct http_request *req)
{
    const union MHD_ConnectionInfo *ci =
        MHD_get_connection_info(mc, MHD_CONNECTION_INFO_CLIENT_ADDRESS);
    snprintf(req->remote, sizeof(req->remote), "?");
    if (!ci || !ci->client_addr)
        return;
    const struct sockaddr *sa = ci->client_addr;
    if (sa->sa_family == AF_INET)
        inet_ntop(AF_INET, &((const struct sockaddr_in *)(const void *)sa)->sin_addr, req->remote,
                  sizeof(req->remote));
    else if (sa->sa_family == AF_INET6)
        inet_ntop(AF_INET6, &((const struct sockaddr_in6 *)(const void *)sa)->sin6_addr,
                  req->remote, sizeof(req->remote));
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
    buf_init(&x->res.body, BW_MAX_RESULT_BODY_BYTES * 2);
    x->res.file_fd = -1;
    fill_remote(mc, &x->req);
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

    if (!x) {
        x = exchange_new(h, mc, url, method);
        if (!x)
            return MHD_NO;
        *con_cls = x;
        struct http_request *req = &x->req;
        if (strlen(url) > BW_MAX_URL_BYTES) {
            x->route_status = 414;
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
            /* Refuse before reading a byte of it. */
            req->body_too_large = true;
            int st = error_body(&x->res, 413, "too_large",
                                cap ? "request body is over this endpoint's limit"
                                    : "this endpoint takes no request body");
            return send_response(mc, x, st);
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
        if (x->discarded > req->body.max + (1u << 20))
            return MHD_NO;
        return MHD_YES;
    }
    if (x->status) /* a response was queued early (413) */
        return MHD_YES;

    int status;
    if (req->suspended)
        req->suspended = false;
    if (!req->route) {
        if (x->route_status == 405 && x->allow)
            http_add_header(req, &x->res, "Allow", x->allow);
        status = x->route_status == 414
                     ? error_body(&x->res, 414, "uri_too_long", "request path is too long")
                 : x->route_status == 405 ? error_body(&x->res, 405, "method_not_allowed",
                                                       "method not allowed on this path")
                                          : error_body(&x->res, 404, "not_found", "no such path");
        return send_response(mc, x, status);
    }
    const struct route *rt = req->route;
    if (req->body_too_large)
        return send_response(
            mc, x,
            error_body(&x->res, 413, "too_large", "request body is over this endpoint's limit"));
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

static void on_completed(void *cls, struct MHD_Connection *mc, void **con_cls,
                         enum MHD_RequestTerminationCode toe)
{
    (void)mc;
    (void)toe;
    struct http *h = cls;
    struct exchange *x = *con_cls;
    if (!x)
        return;
    if (h->done)
        h->done(h->app, &x->req, x->status);
    if (x->res.stream.read && x->res.stream.free)
        x->res.stream.free(x->res.stream.arg);
    if (x->res.file_fd >= 0)
        close(x->res.file_fd);
    buf_release(&x->req.body);
    buf_release(&x->res.body);
    arena_free(x->req.arena);
    *con_cls = NULL;
}

static void on_mhd_log(void *cls, const char *fmt, va_list ap)
{
    (void)cls;
    char line[512];
    vsnprintf(line, sizeof(line), fmt, ap);
    size_t n = strlen(line);
    while (n > 0 && (line[n - 1] == '\n' || line[n - 1] == '\r'))
        line[--n] = '\0';
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
    if (!h)
        return bw_fail(cause, BW_ERR_NOMEM, "out of memory");
    h->routes = routes;
    h->n_routes = n_routes;
    h->access = access;
    h->done = done;
    h->app = app;
    unsigned threads = o->threads > 1 ? (unsigned)o->threads : 0;
    h->d = MHD_start_daemon(
        flags, (uint16_t)o->port, NULL, NULL, on_request, h, MHD_OPTION_EXTERNAL_LOGGER, on_mhd_log,
        NULL, MHD_OPTION_SOCK_ADDR, (struct sockaddr *)&ss, MHD_OPTION_NOTIFY_COMPLETED,
        on_completed, h, MHD_OPTION_CONNECTION_LIMIT, (unsigned)o->max_connections,
        MHD_OPTION_CONNECTION_TIMEOUT, (unsigned)o->conn_timeout_s,
        MHD_OPTION_CONNECTION_MEMORY_LIMIT, (size_t)(32 * 1024), MHD_OPTION_LISTEN_BACKLOG_SIZE,
        1024U, threads ? MHD_OPTION_THREAD_POOL_SIZE : MHD_OPTION_END, threads, MHD_OPTION_END);
    if (!h->d) {
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
    free(h);
}
