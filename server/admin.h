/*
 * admin.h - the admin API under /api/admin: workers (their GPU, driver,
 * measured limits, last seen, current job; create a worker token; enable or
 * disable), the queue, rejudging a submission or a whole problem, problems
 * (loaded, failed, disabled; reload), and users' roles.
 */
#ifndef BW_SERVER_ADMIN_H
#define BW_SERVER_ADMIN_H

#include <stdint.h>

struct db_conn;
struct http_request;
struct http_response;

/* Creates a worker named `name` and its token (out[AUTH_TOKEN_CHARS], shown
 * once); BW_ERR_INVALID when the name is taken. Also used by the CLI. */
int admin_create_worker(struct db_conn *c, const char *name, char *token_out, int64_t *id,
                        char **cause);

int admin_h_workers(struct http_request *req, struct http_response *res);
int admin_h_worker_create(struct http_request *req, struct http_response *res);
int admin_h_worker_enable(struct http_request *req, struct http_response *res);
int admin_h_queue(struct http_request *req, struct http_response *res);
int admin_h_rejudge(struct http_request *req, struct http_response *res);
int admin_h_problems(struct http_request *req, struct http_response *res);
int admin_h_problem_enable(struct http_request *req, struct http_response *res);
int admin_h_reload(struct http_request *req, struct http_response *res);
int admin_h_user_role(struct http_request *req, struct http_response *res);

#endif
