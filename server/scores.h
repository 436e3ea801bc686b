/*
 * scores.h - what submissions add up to: per problem the best per user, a
 * leaderboard per problem and GPU model, a learner's own progress, and the
 * instructors' gradebook as CSV.
 *
 * The tables `best` (best Accepted Submit per user, problem and GPU model,
 * ranked by time: the geometric mean of the benchmark shapes' median times)
 * and `solved` are maintained when a result is stored (queue.c), so these
 * reads are single indexed queries.
 */
#ifndef BW_SERVER_SCORES_H
#define BW_SERVER_SCORES_H

struct http_request;
struct http_response;

int scores_h_leaderboard(struct http_request *req, struct http_response *res);
int scores_h_mine(struct http_request *req, struct http_response *res);
int scores_h_gradebook(struct http_request *req, struct http_response *res);

#endif
