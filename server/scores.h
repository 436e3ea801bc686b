/*
 * scores.h - what submissions add up to: per problem the best per user, a
 * leaderboard per problem, GPU model and language, a learner's own progress,
 * and the instructors' gradebook as CSV.
 *
 * The tables `best` (best Accepted Submit per user, problem, GPU model and
 * language, ranked by time: the geometric mean of the benchmark shapes'
 * median times) and `solved` (per user, problem and language) are maintained
 * when a result is stored (queue.c), so these reads are single indexed
 * queries. Boards are per language because the two languages are different
 * tools for one task: Triton picks the block, the shared memory and the
 * pipelining itself, CUDA leaves them (and inline PTX, warp shuffles, ...)
 * to the learner. Ranked together, a board would measure the language as much
 * as the learner; apart, each learner is ranked among those who used the
 * same tool, and ?language= picks one.
 */
#ifndef BW_SERVER_SCORES_H
#define BW_SERVER_SCORES_H

struct http_request;
struct http_response;

int scores_h_leaderboard(struct http_request *req, struct http_response *res);
int scores_h_mine(struct http_request *req, struct http_response *res);
int scores_h_gradebook(struct http_request *req, struct http_response *res);

#endif
