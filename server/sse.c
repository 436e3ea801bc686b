#include "sse.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "http.h"
#include "store/store.h"
#include "common/limits.h"
#include "common/log.h"
#include "common/util.h"
#include "common/banned.h"

/* A channel without subscribers is kept this long (a browser reconnecting,
 * a late reader of a final event), then dropped. */
#define CHANNEL_IDLE_S 60

struct sub;

struct entry {
    int64_t id; /* the store's; 0 for a queue position (this server's own) */
    char *text; /* owned: "id: N\nevent: NAME\ndata: JSON\n\n" */
};

struct channel {
    int64_t id;
    struct entry *events; /* the story so far, oldest first */
    size_t n, cap;
    int64_t last_id; /* the last store event seen (kept or not) */
    bool final;
    time_t idle_at; /* when it last had no subscriber (0: it has some) */
    struct sub *subs;
    struct channel *next;
};

struct sub {
    struct sse_hub *hub;
    struct channel *ch; /* NULL for a one-off (done) stream */
    struct http_conn *conn;
    size_t cursor; /* next entry to consider */
    int64_t after; /* Last-Event-ID: store events up to it were seen (-1: none) */
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
    struct store *store;
    struct channel *channels;
    struct sub *orphans; /* one-off streams, for shutdown and counting */
    size_t n_streams;
    bool closing;
};

struct sse_hub *sse_hub_new(struct store *st)
{
    struct sse_hub *hub = calloc(1, sizeof(*hub));
    if (hub) {
        pthread_mutex_init(&hub->lock, NULL);
        hub->store = st;
    }
    return hub;
}

static void channel_clear(struct channel *ch)
{
    for (size_t i = 0; i < ch->n; i++)
        free(ch->events[i].text);
    ch->n = 0;
}

static void channel_free(struct channel *ch)
{
    channel_clear(ch);
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
    ch->idle_at = time(NULL);
    ch->next = hub->channels;
    hub->channels = ch;
    return ch;
}

/* "id: N\nevent: NAME\ndata: JSON\n\n" as a new string (id omitted when 0). */
static char *format_text(int64_t seq, const char *event, const char *json)
{
    size_t n = strlen(json) + strlen(event) + 64;
    char *text = malloc(n);
    if (text) {
        if (seq > 0)
            snprintf(text, n, "id: %lld\nevent: %s\ndata: %s\n\n", (long long)seq, event, json);
        else
            snprintf(text, n, "event: %s\ndata: %s\n\n", event, json);
    }
    return text;
}

static char *format_event(int64_t seq, const char *event, json_t *data)
{
    char *json = data ? json_dumps(data, JSON_COMPACT) : strdup("{}");
    if (!json)
        return NULL;
    char *text = format_text(seq, event, json);
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

/* Appends an entry (text stolen); false when it was dropped. */
static bool channel_add(struct channel *ch, int64_t id, char *text, bool final)
{
    if (!text || ch->final || (ch->n >= BW_MAX_SSE_EVENTS && !final)) {
        free(text);
        return false;
    }
    if (ch->n == ch->cap) {
        size_t cap = ch->cap ? ch->cap * 2 : 16;
        struct entry *grown = realloc(ch->events, cap * sizeof(*grown));
        if (!grown) {
            free(text);
            return false;
        }
        ch->events = grown;
        ch->cap = cap;
    }
    ch->events[ch->n++] = (struct entry){id, text};
    if (final)
        ch->final = true;
    return true;
}

/* A store event for the channel, in id order. */
static void channel_event(struct channel *ch, const struct store_event *e)
{
    if (e->id <= ch->last_id)
        return; /* read already (a sync that raced another) */
    ch->last_id = e->id;
    if (strcmp(e->name, "queued") == 0 && ch->final && !ch->subs) {
        /* A rejudge starts the submission's story again. */
        channel_clear(ch);
        ch->final = false;
    }
    channel_add(ch, e->id, format_text(e->id, e->name, e->data), e->final);
}

void sse_publish_events(struct sse_hub *hub, int64_t id, const struct sse_event *ev, size_t n)
{
    struct store_event_in in[BW_MAX_EVENTS_PER_POST + 1];
    char *texts[BW_MAX_EVENTS_PER_POST + 1];
    size_t k = 0;
    for (size_t i = 0; i < n && k < sizeof(in) / sizeof(in[0]); i++) {
        texts[k] = ev[i].data ? json_dumps(ev[i].data, JSON_COMPACT) : strdup("{}");
        if (!texts[k])
            continue;
        in[k] = (struct store_event_in){ev[i].name, texts[k], ev[i].final};
        k++;
    }
    char *cause = NULL;
    int64_t last = 0;
    if (store_events_append(hub->store, id, in, k, (int64_t)time(NULL), &last, &cause) < 0)
        log_error("sse: submission %lld: %zu events not kept, so not streamed: %s", (long long)id,
                  k, cause ? cause : "error");
    free(cause);
    for (size_t i = 0; i < k; i++)
        free(texts[i]);
}

void sse_publish(struct sse_hub *hub, int64_t id, const char *event, json_t *data, bool final)
{
    struct sse_event ev = {event, data, final};
    sse_publish_events(hub, id, &ev, 1);
}

/* Store events read outside the hub's lock, applied under it. */
struct fetched {
    struct store_event *v;
    size_t n, cap;
};

static void collect(void *arg, const struct store_event *e)
{
    struct fetched *f = arg;
    if (f->n == f->cap) {
        size_t cap = f->cap ? f->cap * 2 : 16;
        struct store_event *grown = realloc(f->v, cap * sizeof(*grown));
        if (!grown)
            return;
        f->v = grown;
        f->cap = cap;
    }
    struct store_event *c = &f->v[f->n];
    c->id = e->id;
    c->final = e->final;
    c->name = strdup(e->name);
    c->data = strdup(e->data);
    if (c->name && c->data)
        f->n++;
    else {
        free((char *)c->name);
        free((char *)c->data);
    }
}

void sse_follow(struct sse_hub *hub, int64_t id)
{
    pthread_mutex_lock(&hub->lock);
    struct channel *ch = find_channel(hub, id, false);
    int64_t after = ch ? ch->last_id : -1;
    pthread_mutex_unlock(&hub->lock);
    if (!ch)
        return; /* no stream of it here */
    struct fetched f = {0};
    char *cause = NULL;
    if (store_events_after(hub->store, id, after, BW_MAX_SSE_EVENTS, collect, &f, &cause) < 0)
        log_error("sse: submission %lld: reading its events: %s", (long long)id,
                  cause ? cause : "error");
    free(cause);
    pthread_mutex_lock(&hub->lock);
    ch = find_channel(hub, id, false);
    for (size_t i = 0; ch && i < f.n; i++)
        channel_event(ch, &f.v[i]);
    if (ch && f.n)
        wake_channel(ch);
    pthread_mutex_unlock(&hub->lock);
    for (size_t i = 0; i < f.n; i++) {
        free((char *)f.v[i].name);
        free((char *)f.v[i].data);
    }
    free(f.v);
}

void sse_follow_all(struct sse_hub *hub)
{
    size_t n = 0;
    int64_t *ids = NULL;
    pthread_mutex_lock(&hub->lock);
    for (struct channel *ch = hub->channels; ch; ch = ch->next)
        n++;
    ids = malloc((n ? n : 1) * sizeof(*ids));
    size_t k = 0;
    for (struct channel *ch = hub->channels; ids && ch; ch = ch->next)
        ids[k++] = ch->id;
    pthread_mutex_unlock(&hub->lock);
    for (size_t i = 0; i < k; i++)
        sse_follow(hub, ids[i]);
    free(ids);
}

static const char heartbeat[] = ": hb\n\n";

/* True if entry i of a resuming subscriber's channel is before its resume
 * point: a store event it saw, or a queue position told before one. */
static bool seen(const struct sub *s, size_t i)
{
    const struct channel *ch = s->ch;
    if (s->after < 0)
        return false;
    if (ch->events[i].id > 0)
        return ch->events[i].id <= s->after;
    for (size_t k = i + 1; k < ch->n; k++)
        if (ch->events[k].id > 0)
            return ch->events[k].id <= s->after;
    return false;
}

/* Picks the next text for s; returns false when there is none now. */
static bool next_text(struct sub *s)
{
    struct channel *ch = s->ch;
    if (s->pending)
        return true;
    while (ch && s->cursor < ch->n && seen(s, s->cursor))
        s->cursor++;
    if (ch && s->cursor < ch->n) {
        s->pending = strdup(ch->events[s->cursor].text);
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
    if (s->ch && !s->ch->subs)
        s->ch->idle_at = time(NULL);
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
    s->after = last_id > 0 ? last_id : -1;
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
        s->next = s->ch->subs;
        s->ch->subs = s;
        s->ch->idle_at = 0;
    } else {
        s->next = hub->orphans;
        hub->orphans = s;
    }
    hub->n_streams++;
    pthread_mutex_unlock(&hub->lock);
    /* What the store has that the channel has not: all of a new channel's
     * story (another server may have written it, or this one before a
     * restart). */
    if (!done)
        sse_follow(hub, id);
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
        pthread_mutex_lock(&hub->lock);
        struct channel *ch = find_channel(hub, ids[i], false);
        if (ch && ch->subs && !ch->final) {
            json_t *data = json_pack("{s:I, s:s, s:I}", "id", (json_int_t)ids[i], "state", "queued",
                                     "position", (json_int_t)(i + 1));
            if (channel_add(ch, 0, format_event(0, "queued", data), false))
                wake_channel(ch);
            json_decref(data);
        }
        pthread_mutex_unlock(&hub->lock);
    }
}

/* The ticker runs about once a second (server.c), so a stream whose
 * heartbeat falls due just after a tick would wait for the next one: a
 * heartbeat is sent when the stream will have been idle for heartbeat_s by
 * the next tick's half, or a 1 s heartbeat would come every other second. */
#define TICK_SLACK_MS 500.0

void sse_tick(struct sse_hub *hub, int heartbeat_s)
{
    double now = now_ms();
    time_t wall = time(NULL);
    pthread_mutex_lock(&hub->lock);
    struct channel **p = &hub->channels;
    while (*p) {
        struct channel *ch = *p;
        for (struct sub *s = ch->subs; s; s = s->next) {
            if (s->suspended && now - s->last_write_ms + TICK_SLACK_MS >= heartbeat_s * 1000.0) {
                s->hb_due = true;
                wake(s);
            }
        }
        if (!ch->subs && ch->idle_at && wall - ch->idle_at > CHANNEL_IDLE_S) {
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
