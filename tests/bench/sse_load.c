/*
 * sse_load.c - holds many Server-Sent Event streams open against
 * blockwise-server and measures per-event latency from the moment a worker
 * posts an event to the moment each stream's client reads it.
 *
 *   sse_load PORT COOKIE WORKER_TOKEN STREAMS EVENTS SUB:LEASE...
 *
 * Opens STREAMS connections spread over the given submissions (each watched
 * by STREAMS / n of them), waits until every stream has its first event,
 * then EVENTS times posts one progress event per submission (as the worker
 * holding LEASE) stamped with the send time, and finally the result ("done").
 * Prints one line of JSON: streams, connected, events expected and received,
 * latency p50/p99/max in ms, and how many streams saw "done".
 *
 * Built by tests/bench/server.sh with plain gcc; loopback only.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

struct stream {
    int fd;
    int sub;
    char buf[8192];
    size_t len;
    int got_state, got_done, events;
};

static double now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

static int port;
static double *lat;
static size_t n_lat, cap_lat;

static int connect_local(void)
{
    int fd = socket(AF_INET, SOCK_STREAM, 0);
    struct sockaddr_in a = {0};
    a.sin_family = AF_INET;
    a.sin_port = htons((uint16_t)port);
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    if (fd < 0 || connect(fd, (struct sockaddr *)&a, sizeof(a)) != 0) {
        if (fd >= 0)
            close(fd);
        return -1;
    }
    int one = 1;
    setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
    return fd;
}

/* A blocking POST on a fresh connection; returns the status or -1. */
static int post(const char *path, const char *token, const char *body)
{
    int fd = connect_local();
    if (fd < 0)
        return -1;
    char req[4096];
    int n = snprintf(req, sizeof(req),
                     "POST %s HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer %s\r\n"
                     "Content-Type: application/json\r\nContent-Length: %zu\r\n"
                     "Connection: close\r\n\r\n%s",
                     path, token, strlen(body), body);
    if (write(fd, req, (size_t)n) != n) {
        close(fd);
        return -1;
    }
    char resp[1024];
    ssize_t r = read(fd, resp, sizeof(resp) - 1);
    close(fd);
    if (r < 12)
        return -1;
    resp[r] = '\0';
    return (int)strtol(resp + 9, NULL, 10);
}

static void record(double ms)
{
    if (n_lat == cap_lat) {
        cap_lat = cap_lat ? cap_lat * 2 : 4096;
        lat = realloc(lat, cap_lat * sizeof(*lat));
    }
    lat[n_lat++] = ms;
}

/* Consumes complete events in s->buf. */
static void parse(struct stream *s)
{
    char *start = s->buf, *end;
    while ((end = strstr(start, "\n\n")) != NULL) {
        *end = '\0';
        if (strstr(start, "event: state"))
            s->got_state = 1;
        if (strstr(start, "event: done"))
            s->got_done = 1;
        char *t = strstr(start, "\"t_send\":");
        if (t) {
            record(now_ms() - strtod(t + 9, NULL));
            s->events++;
        }
        start = end + 2;
    }
    size_t left = s->len - (size_t)(start - s->buf);
    memmove(s->buf, start, left);
    s->len = left;
}

struct poster {
    const char *token;
    char **lease;
    int n_subs, events, errors;
    volatile int finished;
};

/* Posts the events and results from its own thread, so that the reader
 * measures delivery and not the poster's own pauses. */
static void *poster_main(void *arg)
{
    struct poster *p = arg;
    for (int e = 0; e < p->events; e++) {
        for (int k = 0; k < p->n_subs; k++) {
            char path[256], body[256];
            snprintf(path, sizeof(path), "/api/judge/leases/%s/progress", p->lease[k]);
            snprintf(body, sizeof(body),
                     "{\"events\":[{\"event\":\"bench_ping\",\"seq\":%d,\"t_send\":%.3f}]}", e,
                     now_ms());
            p->errors += post(path, p->token, body) != 200;
        }
        usleep(50 * 1000);
    }
    for (int k = 0; k < p->n_subs; k++) {
        char path[256];
        snprintf(path, sizeof(path), "/api/judge/leases/%s/result", p->lease[k]);
        p->errors += post(path, p->token,
                          "{\"result\":{\"verdict\":\"CE\",\"executed\":true,"
                          "\"message\":\"bench\"}}") != 200;
    }
    p->finished = 1;
    return NULL;
}

static int cmp(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

/* Reads whatever is ready for up to `ms`; returns when `until` holds. */
static void pump(int ep, struct stream *st, int n, double ms, int (*until)(struct stream *, int))
{
    struct epoll_event evs[256];
    double end = now_ms() + ms;
    while (now_ms() < end && !(until && until(st, n))) {
        int k = epoll_wait(ep, evs, 256, 50);
        for (int i = 0; i < k; i++) {
            struct stream *s = &st[evs[i].data.u32];
            ssize_t r = read(s->fd, s->buf + s->len, sizeof(s->buf) - 1 - s->len);
            if (r <= 0) {
                epoll_ctl(ep, EPOLL_CTL_DEL, s->fd, NULL);
                continue;
            }
            s->len += (size_t)r;
            s->buf[s->len] = '\0';
            parse(s);
            if (s->len >= sizeof(s->buf) - 1)
                s->len = 0;
        }
    }
}

static int all_state(struct stream *st, int n)
{
    for (int i = 0; i < n; i++)
        if (st[i].fd >= 0 && !st[i].got_state)
            return 0;
    return 1;
}

static int all_done(struct stream *st, int n)
{
    for (int i = 0; i < n; i++)
        if (st[i].fd >= 0 && !st[i].got_done)
            return 0;
    return 1;
}

int main(int argc, char **argv)
{
    if (argc < 7) {
        fprintf(stderr, "usage: sse_load PORT COOKIE WORKER_TOKEN STREAMS EVENTS SUB:LEASE...\n");
        return 2;
    }
    port = (int)strtol(argv[1], NULL, 10);
    const char *cookie = argv[2], *token = argv[3];
    int n = (int)strtol(argv[4], NULL, 10), events = (int)strtol(argv[5], NULL, 10);
    int n_subs = argc - 6;
    long *sub_id = calloc((size_t)n_subs, sizeof(*sub_id));
    char **lease = calloc((size_t)n_subs, sizeof(*lease));
    for (int i = 0; i < n_subs; i++) {
        sub_id[i] = strtol(argv[6 + i], NULL, 10);
        lease[i] = strchr(argv[6 + i], ':') + 1;
    }
    struct rlimit rl;
    getrlimit(RLIMIT_NOFILE, &rl);
    rl.rlim_cur = rl.rlim_max;
    setrlimit(RLIMIT_NOFILE, &rl);

    struct stream *st = calloc((size_t)n, sizeof(*st));
    int ep = epoll_create1(0), connected = 0;
    for (int i = 0; i < n; i++) {
        st[i].sub = i % n_subs;
        st[i].fd = connect_local();
        if (st[i].fd < 0)
            continue;
        char req[1024];
        int len = snprintf(req, sizeof(req),
                           "GET /api/submissions/%ld/events HTTP/1.1\r\nHost: 127.0.0.1\r\n"
                           "Cookie: bw_session=%s\r\nAccept: text/event-stream\r\n\r\n",
                           sub_id[st[i].sub], cookie);
        if (write(st[i].fd, req, (size_t)len) != len) {
            close(st[i].fd);
            st[i].fd = -1;
            continue;
        }
        fcntl(st[i].fd, F_SETFL, O_NONBLOCK);
        struct epoll_event ev = {.events = EPOLLIN, .data.u32 = (uint32_t)i};
        epoll_ctl(ep, EPOLL_CTL_ADD, st[i].fd, &ev);
        connected++;
    }
    pump(ep, st, n, 30000, all_state);
    int ready = 0;
    for (int i = 0; i < n; i++)
        ready += st[i].got_state;

    struct poster p = {token, lease, n_subs, events, 0, 0};
    pthread_t th;
    pthread_create(&th, NULL, poster_main, &p);
    pump(ep, st, n, 60000, all_done);
    pthread_join(th, NULL);
    int post_errors = p.errors;
    int done = 0;
    for (int i = 0; i < n; i++)
        done += st[i].got_done;
    qsort(lat, n_lat, sizeof(*lat), cmp);
    double p50 = n_lat ? lat[n_lat / 2] : -1, p99 = n_lat ? lat[(size_t)(n_lat * 0.99)] : -1;
    double mx = n_lat ? lat[n_lat - 1] : -1;
    printf("{\"streams\": %d, \"connected\": %d, \"ready\": %d, \"events_expected\": %ld, "
           "\"events_received\": %zu, \"latency_p50_ms\": %.2f, \"latency_p99_ms\": %.2f, "
           "\"latency_max_ms\": %.2f, \"done\": %d, \"post_errors\": %d}\n",
           n, connected, ready, (long)ready * events, n_lat, p50, p99, mx, done, post_errors);
    return 0;
}
