/*
 * sse.h - live events per submission, delivered as Server-Sent Events.
 *
 * The hub keeps one channel per submission that is queued or being judged:
 * the events published so far (each "id: N / event: NAME / data: JSON"), and
 * the connections subscribed to it. A subscriber that has read everything is
 * a *suspended* connection (no thread, no polling); publishing an event
 * resumes the channel's subscribers, whose reader then copies the new
 * events out. A new subscriber first gets every event of the channel so far
 * (or those after its Last-Event-ID), so nothing is missed between a page
 * load and the stream opening. The final event ("done") ends every stream
 * of the channel; the channel is dropped a while after that.
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

struct sse_hub *sse_hub_new(void);
/* Every stream must have ended (sse_shutdown, then the HTTP server stopped). */
void sse_hub_free(struct sse_hub *hub);

/* Appends an event to submission `id`'s channel (created if needed) and wakes
 * its subscribers. `data` is borrowed. A `final` event ends the streams. */
void sse_publish(struct sse_hub *hub, int64_t id, const char *event, json_t *data, bool final);

/* Makes `res` an event stream of submission `id`. `snapshot` (borrowed, may
 * be NULL) is sent first as a "state" event; when `done`, the snapshot is all
 * there is and the stream ends after it. `last_id` skips events already seen
 * (-1: none). Returns the status to answer (200). */
int sse_open(struct sse_hub *hub, struct http_request *req, struct http_response *res, int64_t id,
             json_t *snapshot, bool done, int64_t last_id);

/* Queued submissions' channels get a "queued" event with their new position;
 * `ids` are the queued submissions in order (position = index + 1). Only
 * channels with subscribers are told. */
void sse_positions(struct sse_hub *hub, const int64_t *ids, size_t n);

/* The ticker: heartbeats on streams idle for `heartbeat_s`, and channels
 * finished more than a minute ago without subscribers are dropped. */
void sse_tick(struct sse_hub *hub, int heartbeat_s);

/* Ends every stream (server shutdown). */
void sse_shutdown(struct sse_hub *hub);

size_t sse_streams(struct sse_hub *hub);
/* The ids of submissions with subscribers, for sse_positions; *new* array. */
int64_t *sse_watched(struct sse_hub *hub, size_t *n);

#endif
