/*
 * auth.h - who is asking: accounts, passwords, sessions, CSRF, roles, API
 * tokens and worker tokens.
 *
 * Passwords are hashed with argon2id (libsodium crypto_pwhash_str). Session
 * ids, personal API tokens ("bwu_...") and worker tokens ("bww_...") are 32
 * random bytes, base64url; the database keeps only their BLAKE2b-256 hash,
 * so a copy of the database holds no usable credential.
 *
 * A request is authenticated by, in order: an "Authorization: Bearer" token
 * (a user's API token or a worker's token), else the session cookie
 * "bw_session". A cookie-authenticated request that changes state (POST,
 * PUT, DELETE) must carry the session's CSRF token in "X-CSRF-Token"; every
 * request with a body must be "Content-Type: application/json" (which a
 * cross-site form cannot send). Worker tokens only open /api/judge; user
 * credentials never do.
 *
 * Sign-ins are throttled per user name and per client address (throttle.h):
 * a locked-out attempt is answered 429 "throttled" with Retry-After before
 * any password is checked. A browser that signed in as a name before brings
 * a known-device cookie (device.h) and meets only its own lockout. Sign-ups
 * are limited per client address. Passwords are checked and hashed on the
 * pwhash pool (pwhash.h), never on an HTTP thread: the sign-in and sign-up
 * handlers suspend their request while it works, and run again with the
 * result.
 */
#ifndef BW_SERVER_AUTH_H
#define BW_SERVER_AUTH_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct store;
struct http_request;
struct http_response;
struct server_config;

enum user_role { USER_LEARNER, USER_INSTRUCTOR, USER_ADMIN };
enum principal_kind { PRINCIPAL_ANON, PRINCIPAL_USER, PRINCIPAL_WORKER };

#define AUTH_TOKEN_CHARS    48 /* buffer for a token: prefix + 43 base64url + NUL */
#define AUTH_SESSION_COOKIE "bw_session"

struct principal {
    enum principal_kind kind;
    int64_t id; /* users.id or workers.id */
    char name[64];
    enum user_role role;
    bool via_cookie;
    char csrf[AUTH_TOKEN_CHARS];
};

const char *auth_role_name(enum user_role r);
bool auth_role_parse(const char *s, enum user_role *out);

/* [a-z0-9_.-], 3..BW_MAX_USERNAME bytes, starting with a letter or digit. */
bool auth_username_ok(const char *name);
/* BW_MIN_PASSWORD..BW_MAX_PASSWORD bytes, no NUL; fills *why on failure. */
bool auth_password_ok(const char *pw, const char **why);

/* Random token "<prefix><43 base64url chars>" into out[AUTH_TOKEN_CHARS]. */
void auth_new_token(const char *prefix, char out[AUTH_TOKEN_CHARS]);
/* BLAKE2b-256 of a token as 64 hex digits. */
void auth_token_hash(const char *token, char hex[65]);

/* argon2id hash of a password into a *new* string (cost from cfg). */
int auth_hash_password(const struct server_config *cfg, const char *pw, char **out, char **cause);
/* True if pw matches `hash`. An unknown user (hash NULL) is checked against
 * auth_dummy_hash(cfg), so that it costs the same argon2id work as a wrong
 * password of a real user hashed at the configured cost. */
bool auth_check_password(const struct server_config *cfg, const char *hash, const char *pw);
/* The hash unknown users are checked against: argon2id of random bytes at
 * cfg's cost, made on the first call per cost (the server makes it at start);
 * borrowed, lives until exit; NULL when out of memory. */
const char *auth_dummy_hash(const struct server_config *cfg);
/* True if `hash` was made at another cost than cfg's (or is not argon2id):
 * a sign-in with the right password then stores a new hash, so that every
 * account's check costs the same as an unknown user's. */
bool auth_needs_rehash(const struct server_config *cfg, const char *hash);

/* Creates a user; BW_ERR_INVALID with "name taken" when it exists. */
int auth_create_user(struct store *st, const struct server_config *cfg, const char *name,
                     const char *password, enum user_role role, int64_t *id, char **cause);

/* Resolves the principal of a request from its headers (anonymous when none
 * are given). Returns 0, or 401/403 with the error in res. */
int auth_identify(struct http_request *req, struct http_response *res, struct principal *who);

/* The access hook of the route table (http_access_fn). */
int auth_access(struct http_request *req, struct http_response *res, unsigned access);

/* The principal of a request (set by auth_access); never NULL after it. */
const struct principal *auth_who(const struct http_request *req);

/* Handlers. */
int auth_h_signup(struct http_request *req, struct http_response *res);
int auth_h_signin(struct http_request *req, struct http_response *res);
int auth_h_signout(struct http_request *req, struct http_response *res);
int auth_h_me(struct http_request *req, struct http_response *res);
int auth_h_token_create(struct http_request *req, struct http_response *res);
int auth_h_token_list(struct http_request *req, struct http_response *res);
int auth_h_token_delete(struct http_request *req, struct http_response *res);

/* Deletes expired sessions (the ticker calls it now and then). */
void auth_expire_sessions(struct store *st);

#endif
