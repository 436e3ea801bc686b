/*
 * submissions.h - learners' submissions: create (Run, Submit or Profile, in
 * CUDA or Triton) under quotas, read, list, the live event stream of one, and
 * a Profile's profile as a download.
 *
 * A submission's language is "cuda" when the body names none (older
 * clients); an unknown one, or one the problem is not offered in, is 400
 * naming "language". Every summary carries it, and the list filters by it.
 *
 * Quotas are per user: Run, Submit and Profile each have a count per sliding
 * window (quota_run, quota_submit, quota_profile per quota_window seconds), and at most
 * quota_in_flight submissions may be queued or judging at once (a compiled
 * job that only waits for a GPU counts only while a GPU worker is connected:
 * queue_in_flight). They are
 * counted from the submissions table inside the same transaction that
 * inserts, so concurrent posts cannot slip past them. A refused submission
 * gets 429 with Retry-After (seconds until a slot frees up; an estimate for
 * in-flight). The insert is committed before 201 is answered.
 *
 * A Profile ("mode": "profile": the tests, then the plan under the GPU's
 * profiler on one benchmark shape) has its own window quota (quota_profile)
 * and is queued like the others; its result carries "profile", stored with
 * it. GET /api/submissions/{id}/profile hands that object out as a download
 * (profile-ID.json), to whoever may read the submission; 404 with a sentence
 * that says why for a Run or a Submit, or a Profile not judged yet, cancelled,
 * or stopped before its profiler ran (a compile error, a crash).
 *
 * A learner reads only their own submissions; instructors and admins read
 * everyone's. Others get 404, not 403, so ids do not leak existence.
 *
 * Cancel (POST /api/submissions/{id}/cancel): the owner or an admin ends a
 * submission that is queued, waiting for a GPU or being judged (queue_cancel
 * records who and when); an instructor who may read it gets 403, anyone else
 * 404; a finished one is 409 "finished". The stream's final event is "done"
 * with state "cancelled".
 */
#ifndef BW_SERVER_SUBMISSIONS_H
#define BW_SERVER_SUBMISSIONS_H

#include <stdint.h>

#include <jansson.h>

struct http_request;
struct http_response;
struct server;

/* The user's quota state as JSON (a new reference in *out). */
int submissions_quota_json(struct server *s, int64_t user, json_t **out, char **cause);

int submissions_h_create(struct http_request *req, struct http_response *res);
int submissions_h_get(struct http_request *req, struct http_response *res);
int submissions_h_list(struct http_request *req, struct http_response *res);
int submissions_h_events(struct http_request *req, struct http_response *res);
int submissions_h_cancel(struct http_request *req, struct http_response *res);
int submissions_h_profile(struct http_request *req, struct http_response *res);

#endif
