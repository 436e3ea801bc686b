/*
 * admin.h - the admin API under /api/admin: workers (their GPU, driver,
 * measured limits, last seen, current job; create, rotate the token of,
 * enable or disable, delete), the queue, rejudging a submission or a whole
 * problem, problems (loaded, failed, disabled; reload), users' roles, and
 * lifting sign-in lockouts of a user name or a client address.
 *
 * The worker functions below also serve the command line (create-worker,
 * rotate-worker, delete-worker in main.c), which renames its token file into
 * place inside their transaction (the commit hook), so that a worker exists
 * only if its token was written.
 */
#ifndef BW_SERVER_ADMIN_H
#define BW_SERVER_ADMIN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "store/store.h"

struct store;
struct http_request;
struct http_response;

/* True if `name` may name a worker: 1..BW_MAX_TOKEN_NAME bytes, no control
 * character (the API's body_parse_name checks the same). */
bool admin_worker_name_ok(const char *name);
/* Creates a worker named `name` whose token is `token` (auth_new_token with
 * "bww_"; only its hash is stored); `hook` (may be NULL) runs before the
 * commit, and its failure undoes the creation. BW_ERR_INVALID when the name
 * is taken. */
int admin_create_worker(struct store *st, const char *name, const char *token,
                        store_commit_hook hook, void *arg, int64_t *id, char **cause);
/* Gives worker `id` (or, id 0, the worker named `name`) the token `token`,
 * `hook` before the commit as above: the old token stops working at once (a
 * judged holding it gets 401 and its leases expire). BW_ERR_NOTFOUND for no
 * such (or a deleted) worker; *id_out and name_out (BW_MAX_TOKEN_NAME + 1
 * bytes) say which it was. */
int admin_rotate_worker(struct store *st, int64_t id, const char *name, const char *token,
                        store_commit_hook hook, void *arg, int64_t *id_out, char *name_out,
                        char **cause);
/* Deletes worker `id` in one transaction: its active leases end as 'lost'
 * without counting the attempt and their submissions go back to the queue
 * (*ids, new, lists them), its token stops working, its languages are
 * forgotten, and the row is kept for history as "NAME (deleted ID)".
 * BW_ERR_NOTFOUND for no such (or an already deleted) worker; *name_out
 * (BW_MAX_TOKEN_NAME + 1 bytes) gets its name. */
int admin_delete_worker(struct store *st, int64_t id, char *name_out, int64_t **ids, size_t *n,
                        char **cause);

int admin_h_workers(struct http_request *req, struct http_response *res);
int admin_h_worker_create(struct http_request *req, struct http_response *res);
int admin_h_worker_enable(struct http_request *req, struct http_response *res);
int admin_h_worker_token(struct http_request *req, struct http_response *res);
int admin_h_worker_delete(struct http_request *req, struct http_response *res);
int admin_h_queue(struct http_request *req, struct http_response *res);
int admin_h_rejudge(struct http_request *req, struct http_response *res);
int admin_h_problems(struct http_request *req, struct http_response *res);
int admin_h_problem_enable(struct http_request *req, struct http_response *res);
int admin_h_reload(struct http_request *req, struct http_response *res);
int admin_h_user_role(struct http_request *req, struct http_response *res);
int admin_h_unlock(struct http_request *req, struct http_response *res);

#endif
