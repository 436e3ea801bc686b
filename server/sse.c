#include "sse.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "http.h"
#include "common/limits.h"
#include "common/log.h"
#include "common/util.h"
#include "common/banned.h"

struct sub;

struct channel {
    int64_t id;
    char **events; /* serialised events, oldest first; event i has id i + 1 */
    size_t n, cap;
    bool final;
    time_t final_at;
    struct sub *subs;
    struct channel *next;
};

struct sub {
    struct sse_hub *hub;
    struct channel *ch; /* NULL for a one-off (done) stream */
    struct http_conn *conn;
    size_t cursor; /* next event index to send */
    char *pending; /* owned: text being written */
    size_t pending_len, pending_off;
    bool suspended;
    bool hb_due;
    bool closing;
    bool ended; /* a one-off stream's snapshot was queued */
    double last_write_ms;
    struct sub *next; /* in ch->subs */
};

struct sse_hub {
    pthread_mutex_t lock;
    struct channel *channels;
    struct sub *orphans; /* one-off streams, for shutdown and counting */
    size_t n_streams;
    bool closing;
};

struct sse_hub *sse_hub_new(void)
{
    struct sse_hub *hub = calloc(1, sizeof(*hub));
    if (hub)
        pthread_mutex_init(&hub->lock, NULL);
    return hub;
}

static void channel_free(struct channel *ch)
{
    for (size_t i = 0; i < ch->n; i++)
        free(ch->events[i]);
    free(ch->events);
    free(ch);
}

void sse_hub_free(struct sse_hub *hub)
{
    if (!hub)
        return;
    struct channel *ch = hub->channels;
    while (ch) {
        struct channel *next = ch->next;
        channel_free(ch);
        ch = next;
    }
    pthread_mutex_destroy(&hub->lock);
    free(hub);
}

static struct channel *find_channel(struct sse_hub *hub, int64_t id, bool create)
{
    for (struct channel *ch = hub->channels; ch; ch = ch->next) {
        if (ch->id == id)
            return ch;
    }
    if (!create)
        return NULL;
    struct channel *ch = calloc(1, sizeof(*ch));
    if (!ch)
        return NULL;
    ch->id = id;
    ch->next = hub->channels;
    hub->channels = ch;
    return ch;
}

/* "id: N\nevent: NAME\ndata: JSON\n\n" as a new string (id omitted when 0). */
static char *format_event(int64_t seq, const char *event, json_t *data)
{
    char *json = data ? json_dumps(data, JSON_COMPACT) : strdup("{}");
    if (!json)
        return NULL;
    size_t n = strlen(json) + strlen(event) + 64;
    char *text = malloc(n);
    if (text) {
        if (seq > 0)
            snprintf(text, n, "id: %lld\nevent: %s\ndata: %s\n\n", (long long)seq, event, json);
        else
            snprintf(text, n, "event: %s\ndata: %s\n\n", event, json);
    }
    free(json);
    return text;
}

static void wake(struct sub *s)
{
    if (s->suspended) {
        s->suspended = false;
        http_resume(s->conn);
    }
}

static void wake_channel(struct channel *ch)
{
    for (struct sub *s = ch->subs; s; s = s->next)
        wake(s);
}

void sse_publish(struct sse_hub *hub, int64_t id, const char *event, json_t *data, bool final)
{
    pthread_mutex_lock(&hub->lock);
    struct channel *ch = find_channel(hub, id, true);
    if (ch && ch->final && !ch->subs && strcmp(event, "queued") == 0) {
        /* A rejudge starts the submission's story again. */
        for (size_t i = 0; i < ch->n; i++)
            free(ch->events[i]);
        ch->n = 0;
        ch->final = false;
    }
    if (!ch || ch->final) {
        pthread_mutex_unlock(&hub->lock);
        return;
    }
    if (ch->n >= BW_MAX_SSE_EVENTS && !final) {
        pthread_mutex_unlock(&hub->lock);
        return;
    }
    if (ch->n == ch->cap) {
        size_t cap = ch->cap ? ch->cap * 2 : 16;
        char **grown = realloc(ch->events, cap * sizeof(*grown));
        if (!grown) {
            pthread_mutex_unlock(&hub->lock);
            return;
        }
        ch->events = grown;
        ch->cap = cap;
    }
    char *text = format_event((int64_t)ch->n + 1, event, data);
    if (text)
        ch->events[ch->n++] = text;
    if (final) {
        ch->final = true;
        ch->final_at = time(NULL);
    }
    wake_channel(ch);
    pthread_mutex_unlock(&hub->lock);
}

static const char heartbeat[] = ": hb\n\n";

/* Picks the next text for s; returns false when there is none now. */
static bool next_text(struct sub *s)
{
    struct channel *ch = s->ch;
    if (s->pending)
        return true;
    if (ch && s->cursor < ch->n) {
        s->pending = strdup(ch->events[s->cursor]);
        if (!s->pending)
            return false;
        s->cursor++;
    } else if (s->hb_due) {
        s->pending = strdup(heartbeat);
        if (!s->pending)
            return false;
    } else {
        return false;
    }
    s->hb_due = false;
    s->pending_len = strlen(s->pending);
    s->pending_off = 0;
    return true;
}

static ssize_t sub_read(void *arg, char *buf, size_t max)
{
    struct sub *s = arg;
    struct sse_hub *hub = s->hub;
    size_t used = 0;
    pthread_mutex_lock(&hub->lock);
    while (used < max && next_text(s)) {
        size_t take = s->pending_len - s->pending_off;
        if (take > max - used)
            take = max - used;
        memcpy(buf + used, s->pending + s->pending_off, take);
        used += take;
        s->pending_off += take;
        if (s->pending_off == s->pending_len) {
            free(s->pending);
            s->pending = NULL;
        }
    }
    ssize_t result;
    if (used > 0) {
        s->last_write_ms = now_ms();
        result = (ssize_t)used;
    } else if (s->closing || hub->closing || !s->ch || (s->ch->final && s->cursor >= s->ch->n)) {
        result = HTTP_STREAM_END;
    } else {
        s->suspended = true;
        http_suspend(s->conn);
        result = 0;
    }
    pthread_mutex_unlock(&hub->lock);
    return result;
}

static void sub_free(void *arg)
{
    struct sub *s = arg;
    struct sse_hub *hub = s->hub;
    pthread_mutex_lock(&hub->lock);
    struct sub **list = s->ch ? &s->ch->subs : &hub->orphans;
    for (struct sub **p = list; *p; p = &(*p)->next) {
        if (*p == s) {
            *p = s->next;
            break;
        }
    }
    hub->n_streams--;
    pthread_mutex_unlock(&hub->lock);
    free(s->pending);
    free(s);
}

int sse_open(struct sse_hub *hub, struct http_request *req, struct http_response *res, int64_t id,
             json_t *snapshot, bool done, int64_t last_id)
{
    struct sub *s = calloc(1, sizeof(*s));
    if (!s)
        return 503;
    s->hub = hub;
    s->conn = req->conn;
    s->last_write_ms = now_ms();
    if (snapshot) {
        s->pending = format_event(0, done ? "done" : "state", snapshot);
        if (s->pending)
            s->pending_len = strlen(s->pending);
    }
    pthread_mutex_lock(&hub->lock);
    if (!done) {
        s->ch = find_channel(hub, id, true);
        if (!s->ch) {
            pthread_mutex_unlock(&hub->lock);
            free(s->pending);
            free(s);
            return 503;
        }
        if (last_id > 0)
            s->cursor = (size_t)last_id < s->ch->n ? (size_t)last_id : s->ch->n;
        s->next = s->ch->subs;
        s->ch->subs = s;
    } else {
        s->next = hub->orphans;
        hub->orphans = s;
    }
    hub->n_streams++;
    pthread_mutex_unlock(&hub->lock);
    res->stream.read = sub_read;
    res->stream.free = sub_free;
    res->stream.arg = s;
    res->content_type = "text/event-stream";
    http_add_header(req, res, "Cache-Control", "no-store");
    http_add_header(req, res, "X-Accel-Buffering", "no"); /* nginx: do not buffer */
    return 200;
}

void sse_positions(struct sse_hub *hub, const int64_t *ids, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        json_t *data = json_pack("{s:I, s:s, s:I}", "id", (json_int_t)ids[i], "state", "queued",
                                 "position", (json_int_t)(i + 1));
        bool watched;
        pthread_mutex_lock(&hub->lock);
        struct channel *ch = find_channel(hub, ids[i], false);
        watched = ch && ch->subs && !ch->final;
        pthread_mutex_unlock(&hub->lock);
        if (watched && data)
            sse_publish(hub, ids[i], "queued", data, false);
        json_decref(data);
    }
}

void sse_tick(struct sse_hub *hub, int heartbeat_s)
{
    double now = now_ms();
    time_t wall = time(NULL);
    pthread_mutex_lock(&hub->lock);
    struct channel **p = &hub->channels;
    while (*p) {
        struct channel *ch = *p;
        for (struct sub *s = ch->subs; s; s = s->next) {
            if (s->suspended && now - s->last_write_ms >= heartbeat_s * 1000.0) {
                s->hb_due = true;
                wake(s);
            }
        }
        if (ch->final && !ch->subs && wall - ch->final_at > 60) {
            *p = ch->next;
            channel_free(ch);
            continue;
        }
        p = &ch->next;
    }
    pthread_mutex_unlock(&hub->lock);
}

void sse_shutdown(struct sse_hub *hub)
{
    pthread_mutex_lock(&hub->lock);
    hub->closing = true;
    for (struct channel *ch = hub->channels; ch; ch = ch->next) {
        for (struct sub *s = ch->subs; s; s = s->next) {
            s->closing = true;
            wake(s);
        }
    }
    for (struct sub *s = hub->orphans; s; s = s->next) {
        s->closing = true;
        wake(s);
    }
    pthread_mutex_unlock(&hub->lock);
}

size_t sse_streams(struct sse_hub *hub)
{
    pthread_mutex_lock(&hub->lock);
    size_t n = hub->n_streams;
    pthread_mutex_unlock(&hub->lock);
    return n;
}

int64_t *sse_watched(struct sse_hub *hub, size_t *n)
{
    pthread_mutex_lock(&hub->lock);
    size_t count = 0;
    for (struct channel *ch = hub->channels; ch; ch = ch->next)
        count += ch->subs && !ch->final;
    int64_t *ids = malloc((count ? count : 1) * sizeof(*ids));
    size_t k = 0;
    if (ids) {
        for (struct channel *ch = hub->channels; ch; ch = ch->next) {
            if (ch->subs && !ch->final)
                ids[k++] = ch->id;
        }
    }
    pthread_mutex_unlock(&hub->lock);
    *n = k;
    return ids;
}
