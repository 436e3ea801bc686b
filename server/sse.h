/*
 * sse.h - live events per submission, delivered as Server-Sent Events, on
 * one server or several sharing a store.
 *
 * An event is kept in the store (store.h, events) before anyone sees it:
 * sse_publish appends it, and the store signals every server of the
 * database ("events", SUBMISSION:ID), each of which reads the new events of
 * the submissions it has streams of (sse_follow). So a learner whose stream
 * is open on one server sees what a worker reported through another, and an
 * event's id (the "id:" line, which a browser sends back as Last-Event-ID
 * when it reconnects) is the store's: global, growing in commit order for a
 * submission, good on any server. Queue positions are the exception: each
 * server tells its own streams (sse_positions), and those "queued" events
 * carry no id.
 *
 * The hub keeps one channel per submission that has streams (or had, in the
 * last minute): the events of its latest story read so far ("id: N / event:
 * NAME / data: JSON"), and the connections subscribed to it. A subscriber
 * that has read everything is a *suspended* connection (no thread, no
 * polling); new events resume it. A new subscriber first gets a snapshot of
 * the submission ("state"), then every event of the story so far (or those
 * after its Last-Event-ID), read from the store when the channel is new, so
 * that nothing is missed between a page load and the stream opening, nor
 * across a restart. The final event ("done") ends every stream of the
 * channel; a story starts again (a rejudge) with a new "queued" event.
 *
 * Idle streams get a comment line (": hb") every heartbeat interval so that
 * proxies keep them and dead clients are noticed.
 */
#ifndef BW_SERVER_SSE_H
#define BW_SERVER_SSE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <jansson.h>

struct http_request;
struct http_response;
struct sse_hub;
struct store;

/* `st` is borrowed for the hub's life. */
struct sse_hub *sse_hub_new(struct store *st);
/* Every stream must have ended (sse_shutdown, then the HTTP server stopped). */
void sse_hub_free(struct sse_hub *hub);

struct sse_event {
    const char *name;
    json_t *data; /* borrowed */
    bool final;   /* it ends the streams */
};

/* Appends events of submission `id` to the store, which tells every server's
 * streams of it (this one's too, at once). A failure is logged: the events
 * are lost to live streams, and a stream opened later shows the submission's
 * state anyway. */
void sse_publish_events(struct sse_hub *hub, int64_t id, const struct sse_event *ev, size_t n);
/* One event. */
void sse_publish(struct sse_hub *hub, int64_t id, const char *event, json_t *data, bool final);

/* The store said submission `id` has new events: streams of it here read
 * them. sse_follow_all: every channel looks (signals may have been missed). */
void sse_follow(struct sse_hub *hub, int64_t id);
void sse_follow_all(struct sse_hub *hub);

/* Makes `res` an event stream of submission `id`. `snapshot` (borrowed, may
 * be NULL) is sent first as a "state" event; when `done`, the snapshot is all
 * there is and the stream ends after it. `last_id` skips events already seen
 * (-1: none). Returns the status to answer (200). */
int sse_open(struct sse_hub *hub, struct http_request *req, struct http_response *res, int64_t id,
             json_t *snapshot, bool done, int64_t last_id);

/* Queued submissions' channels get a "queued" event with their new position;
 * `ids` are the queued submissions in order (position = index + 1). Only
 * channels with subscribers are told; these events are this server's own
 * (no id, not in the store). */
void sse_positions(struct sse_hub *hub, const int64_t *ids, size_t n);

/* The ticker (about once a second): heartbeats on streams idle for
 * `heartbeat_s` (less half a tick: a 1 s heartbeat at every tick), and
 * channels without subscribers for more than a minute are dropped. */
void sse_tick(struct sse_hub *hub, int heartbeat_s);

/* Ends every stream (server shutdown). */
void sse_shutdown(struct sse_hub *hub);

size_t sse_streams(struct sse_hub *hub);
/* The ids of submissions with subscribers, for sse_positions; *new* array. */
int64_t *sse_watched(struct sse_hub *hub, size_t *n);

#endif
