#include "auth.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <sodium.h>

#include "api.h"
#include "arena.h"
#include "bodies.h"
#include "device.h"
#include "http.h"
#include "metrics.h"
#include "pwhash.h"
#include "server.h"
#include "store/store.h"
#include "submissions.h"
#include "throttle.h"
#include "common/error.h"
#include "common/limits.h"
#include "common/log.h"
#include "common/util.h"
#include "common/banned.h"

static const char *const role_names[] = {"learner", "instructor", "admin"};

const char *auth_role_name(enum user_role r)
{
    return role_names[r];
}

bool auth_role_parse(const char *s, enum user_role *out)
{
    for (int i = 0; i < 3; i++) {
        if (strcmp(s, role_names[i]) == 0) {
            *out = (enum user_role)i;
            return true;
        }
    }
    return false;
}

bool auth_username_ok(const char *name)
{
    size_t n = strlen(name);
    if (n < 3 || n > BW_MAX_USERNAME)
        return false;
    for (size_t i = 0; i < n; i++) {
        char c = name[i];
        bool alnum = (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9');
        if (!alnum && (i == 0 || (c != '_' && c != '.' && c != '-')))
            return false;
    }
    return true;
}

bool auth_password_ok(const char *pw, const char **why)
{
    size_t n = strlen(pw);
    if (n < BW_MIN_PASSWORD) {
        *why = "shorter than 8 bytes";
        return false;
    }
    if (n > BW_MAX_PASSWORD) {
        *why = "longer than 256 bytes";
        return false;
    }
    return true;
}

void auth_new_token(const char *prefix, char out[AUTH_TOKEN_CHARS])
{
    unsigned char raw[32];
    randombytes_buf(raw, sizeof(raw));
    size_t p = strlen(prefix);
    memcpy(out, prefix, p);
    sodium_bin2base64(out + p, AUTH_TOKEN_CHARS - p, raw, sizeof(raw),
                      sodium_base64_VARIANT_URLSAFE_NO_PADDING);
}

void auth_token_hash(const char *token, char hex[65])
{
    unsigned char h[32];
    crypto_generichash(h, sizeof(h), (const unsigned char *)token, strlen(token), NULL, 0);
    sodium_bin2hex(hex, 65, h, sizeof(h));
}

int auth_hash_password(const struct server_config *cfg, const char *pw, char **out, char **cause)
{
    char *h = malloc(crypto_pwhash_STRBYTES);
    if (!h)
        return bw_fail(cause, BW_ERR_NOMEM, "out of memory");
    if (crypto_pwhash_str(h, pw, strlen(pw), (unsigned long long)cfg->pwhash_ops,
                          (size_t)cfg->pwhash_mem_kib * 1024) != 0) {
        free(h);
        return bw_fail(cause, BW_ERR_NOMEM, "password hashing ran out of memory");
    }
    *out = h;
    return BW_OK;
}

/* The dummy hashes, one per cost (a process has one config; tests have a
 * few), made once and kept until exit. */
struct dummy {
    int ops, mem_kib;
    char hash[crypto_pwhash_STRBYTES];
    struct dummy *next;
};
static pthread_mutex_t dummy_lock = PTHREAD_MUTEX_INITIALIZER;
static struct dummy *dummies;

const char *auth_dummy_hash(const struct server_config *cfg)
{
    pthread_mutex_lock(&dummy_lock);
    struct dummy *d = dummies;
    while (d && (d->ops != cfg->pwhash_ops || d->mem_kib != cfg->pwhash_mem_kib))
        d = d->next;
    if (!d && (d = calloc(1, sizeof(*d))) != NULL) {
        d->ops = cfg->pwhash_ops;
        d->mem_kib = cfg->pwhash_mem_kib;
        unsigned char random[16];
        randombytes_buf(random, sizeof(random));
        if (crypto_pwhash_str(d->hash, (const char *)random, sizeof(random),
                              (unsigned long long)cfg->pwhash_ops,
                              (size_t)cfg->pwhash_mem_kib * 1024) != 0) {
            free(d);
            d = NULL;
        } else {
            d->next = dummies;
            dummies = d;
        }
    }
    pthread_mutex_unlock(&dummy_lock);
    return d ? d->hash : NULL;
}

bool auth_check_password(const struct server_config *cfg, const char *hash, const char *pw)
{
    if (!hash) {
        /* The same argon2id work as a real check at the configured cost, so
         * that a sign-in does not tell which user names exist. The dummy is
         * the hash of random bytes nobody knows. */
        const char *dummy = auth_dummy_hash(cfg);
        if (dummy && crypto_pwhash_str_verify(dummy, pw, strlen(pw)) == 0)
            log_error("auth: the dummy password matched");
        return false;
    }
    return crypto_pwhash_str_verify(hash, pw, strlen(pw)) == 0;
}

bool auth_needs_rehash(const struct server_config *cfg, const char *hash)
{
    return crypto_pwhash_str_needs_rehash(hash, (unsigned long long)cfg->pwhash_ops,
                                          (size_t)cfg->pwhash_mem_kib * 1024) != 0;
}

int auth_create_user(struct store *st, const struct server_config *cfg, const char *name,
                     const char *password, enum user_role role, int64_t *id, char **cause)
{
    char *hash = NULL;
    int rc = auth_hash_password(cfg, password, &hash, cause);
    if (rc < 0)
        return rc;
    rc = store_user_create(st, name, hash, auth_role_name(role), (int64_t)time(NULL), id, cause);
    free(hash);
    return rc;
}

/* Fills who from a user of the store; false if disabled. */
static bool load_user(const struct store_user *u, struct principal *who)
{
    who->kind = PRINCIPAL_USER;
    who->id = u->id;
    snprintf(who->name, sizeof(who->name), "%s", u->name);
    if (!auth_role_parse(u->role, &who->role))
        who->role = USER_LEARNER;
    return !u->disabled;
}

static int db_unavailable(struct http_response *res, char *cause)
{
    log_error("auth: database: %s", cause ? cause : "error");
    free(cause);
    return api_reply_error(res, 503, "unavailable", NULL, "the database is busy; try again");
}

int auth_identify(struct http_request *req, struct http_response *res, struct principal *who)
{
    struct server *s = req->app;
    memset(who, 0, sizeof(*who));
    who->kind = PRINCIPAL_ANON;
    const char *authz = http_header(req, "Authorization");
    const char *cookie = http_cookie(req, AUTH_SESSION_COOKIE);
    char hash[65];
    char *cause = NULL;
    int status = 0;
    if (authz) {
        if (strncmp(authz, "Bearer ", 7) != 0)
            return api_reply_error(res, 401, "unauthorized", NULL,
                                   "Authorization: expected \"Bearer TOKEN\"");
        const char *token = authz + 7;
        bool worker = strncmp(token, "bww_", 4) == 0;
        if (strlen(token) >= AUTH_TOKEN_CHARS || (!worker && strncmp(token, "bwu_", 4) != 0))
            return api_reply_error(res, 401, "unauthorized", NULL, "unknown or revoked token");
        auth_token_hash(token, hash);
        int rc;
        if (worker) {
            struct store_worker_auth w;
            rc = store_worker_by_token(s->store, hash, &w, &cause);
            if (rc == BW_OK) {
                who->kind = PRINCIPAL_WORKER;
                who->id = w.id;
                snprintf(who->name, sizeof(who->name), "%.63s", w.name);
                /* A disabled worker still identifies itself: the worker API
                 * answers it with worker_disabled instead of claiming work. */
            }
        } else {
            struct store_user u;
            rc = store_token_user(s->store, hash, (int64_t)time(NULL), &u, &cause);
            if (rc == BW_OK && !load_user(&u, who))
                status = api_reply_error(res, 403, "forbidden", NULL, "this account is disabled");
        }
        if (rc == BW_ERR_NOTFOUND) {
            free(cause);
            return api_reply_error(res, 401, "unauthorized", NULL, "unknown or revoked token");
        }
        if (rc < 0)
            return db_unavailable(res, cause);
        return status;
    }
    if (cookie && *cookie) {
        if (strlen(cookie) >= AUTH_TOKEN_CHARS)
            return 0; /* junk cookie: anonymous */
        auth_token_hash(cookie, hash);
        struct store_user u;
        char csrf[AUTH_TOKEN_CHARS];
        int rc =
            store_session_user(s->store, hash, (int64_t)time(NULL), &u, csrf, sizeof(csrf), &cause);
        if (rc == BW_OK && load_user(&u, who)) {
            who->via_cookie = true;
            snprintf(who->csrf, sizeof(who->csrf), "%s", csrf);
        } else if (rc == BW_OK) {
            memset(who, 0, sizeof(*who));
        }
        if (rc == BW_ERR_NOTFOUND) {
            free(cause);
            cause = NULL;
        } else if (rc < 0) {
            return db_unavailable(res, cause);
        }
    }
    return 0;
}

static bool changes_state(enum http_method m)
{
    return m == HTTP_POST || m == HTTP_PUT || m == HTTP_DELETE;
}

int auth_access(struct http_request *req, struct http_response *res, unsigned access)
{
    struct principal *who = arena_alloc(req->arena, sizeof(*who));
    if (!who)
        return api_reply_error(res, 503, "unavailable", NULL, "out of memory");
    req->who = who;
    if (req->body.len > 0) {
        const char *ct = http_header(req, "Content-Type");
        if (!ct || strncmp(ct, "application/json", 16) != 0)
            return api_reply_error(res, 415, "unsupported_media_type", NULL,
                                   "request bodies must be Content-Type: application/json");
    }
    int status = auth_identify(req, res, who);
    if (status)
        return status;
    if (access == ACCESS_PUBLIC)
        goto csrf;
    if (access == ACCESS_WORKER) {
        if (who->kind == PRINCIPAL_WORKER)
            return 0;
        if (who->kind == PRINCIPAL_USER)
            return api_reply_error(res, 403, "forbidden", NULL,
                                   "this endpoint is for judge workers (a worker token)");
        return api_reply_error(res, 401, "unauthorized", NULL, "a worker token is required");
    }
    if (who->kind == PRINCIPAL_WORKER)
        return api_reply_error(res, 403, "forbidden", NULL, "a worker token cannot act as a user");
    if (who->kind == PRINCIPAL_ANON)
        return api_reply_error(res, 401, "unauthorized", NULL, "sign in first");
    if (access == ACCESS_INSTRUCTOR && who->role < USER_INSTRUCTOR)
        return api_reply_error(res, 403, "forbidden", NULL, "instructors only");
    if (access == ACCESS_ADMIN && who->role < USER_ADMIN)
        return api_reply_error(res, 403, "forbidden", NULL, "admins only");
csrf:
    if (who->via_cookie && changes_state(req->method)) {
        const char *token = http_header(req, "X-CSRF-Token");
        size_t n = strlen(who->csrf);
        if (!token || strlen(token) != n || sodium_memcmp(token, who->csrf, n) != 0)
            return api_reply_error(res, 403, "csrf", NULL,
                                   "missing or wrong X-CSRF-Token for this session");
    }
    return 0;
}

const struct principal *auth_who(const struct http_request *req)
{
    return req->who;
}

/* Creates a session for user `id` and sets the cookie; fills csrf. */
static int start_session(struct http_request *req, struct http_response *res, int64_t id,
                         char csrf[AUTH_TOKEN_CHARS], char **cause)
{
    struct server *s = req->app;
    char token[AUTH_TOKEN_CHARS], hash[65];
    auth_new_token("", token);
    auth_new_token("", csrf);
    auth_token_hash(token, hash);
    int64_t now = (int64_t)time(NULL);
    int64_t life = (int64_t)s->cfg->session_hours * 3600;
    int rc = store_session_create(s->store, hash, id, csrf, now, now + life, cause);
    if (rc < 0)
        return rc;
    char *cookie = arena_printf(req->arena, "%s=%s; Path=/; Max-Age=%lld; HttpOnly; SameSite=Lax%s",
                                AUTH_SESSION_COOKIE, token, (long long)life,
                                s->cfg->cookie_secure ? "; Secure" : "");
    if (!cookie || http_add_header(req, res, "Set-Cookie", cookie) < 0)
        return bw_fail(cause, BW_ERR_NOMEM, "out of memory");
    return BW_OK;
}

static json_t *user_json(int64_t id, const char *name, enum user_role role)
{
    return json_pack("{s:I, s:s, s:s}", "id", (json_int_t)id, "name", name, "role",
                     auth_role_name(role));
}

/* A sign-in's or sign-up's state across its suspension while a pool thread
 * hashes (pwhash.h). */
struct auth_wait {
    struct pwhash_job job;
    char name[BW_MAX_USERNAME + 1];
    struct principal who; /* sign-in: the account, if the name is one */
    bool account, enabled;
    bool trusted;                    /* sign-in from a known device (device.h) */
    char device[DEVICE_NONCE_CHARS]; /* its cookie's nonce, when trusted */
    bool released;                   /* the job's strings are freed */
};

/* Sets a new known-device cookie for `name` (after a right password). */
static void set_device_cookie(struct http_request *req, struct http_response *res, const char *name)
{
    struct server *s = req->app;
    char value[DEVICE_COOKIE_CHARS];
    device_cookie_make(s->device_key, name, (int64_t)time(NULL), value);
    char *cookie =
        arena_printf(req->arena, "%s=%s; Path=/api/auth; Max-Age=%lld; HttpOnly; SameSite=Strict%s",
                     DEVICE_COOKIE, value, (long long)BW_DEVICE_COOKIE_DAYS * 24 * 3600,
                     s->cfg->cookie_secure ? "; Secure" : "");
    if (value[0] && cookie)
        http_add_header(req, res, "Set-Cookie", cookie);
}

static void auth_wait_end(struct http_request *req)
{
    struct auth_wait *w = req->state;
    if (w && !w->released) {
        pwhash_job_release(&w->job);
        w->released = true;
    }
}

/* 429 busy: every hashing thread is taken and the queue full. */
static int busy(struct http_request *req, struct http_response *res)
{
    struct server *s = req->app;
    char secs[24];
    int wait = pwhash_retry_after(s->pwhash);
    snprintf(secs, sizeof(secs), "%d", wait);
    http_add_header(req, res, "Retry-After", secs);
    metrics_pwhash_busy(s->metrics);
    return api_reply_error(res, 429, "busy", NULL,
                           "the server is checking as many passwords as it can; try again in %d s",
                           wait);
}

/* Hands w's job to the pool and suspends the request: HTTP_SUSPENDED, or an
 * answer (429 busy, 503 stopping) with nothing suspended. */
static int hash_later(struct http_request *req, struct http_response *res, struct auth_wait *w)
{
    struct server *s = req->app;
    req->state = w;
    req->on_end = auth_wait_end;
    int rc = pwhash_submit(s->pwhash, &w->job, req->conn);
    if (rc == BW_OK)
        return HTTP_SUSPENDED;
    if (rc == BW_ERR_LIMIT)
        return busy(req, res);
    return api_reply_error(res, 503, "unavailable", NULL, "the server is stopping; try again");
}

static struct auth_wait *auth_wait_new(struct http_request *req, const char *name,
                                       const char *password)
{
    struct auth_wait *w = arena_alloc(req->arena, sizeof(*w));
    if (!w)
        return NULL;
    snprintf(w->name, sizeof(w->name), "%s", name);
    snprintf(w->job.password, sizeof(w->job.password), "%s", password);
    return w;
}

/* 429 throttled for sign-ups from this address. */
static int signups_throttled(struct http_request *req, struct http_response *res, int wait)
{
    struct server *s = req->app;
    char secs[24];
    snprintf(secs, sizeof(secs), "%d", wait);
    http_add_header(req, res, "Retry-After", secs);
    metrics_signup_throttled(s->metrics);
    log_info("auth: sign-up from %s refused: over signup_address_limit (%d per %d s)", req->remote,
             s->cfg->signup_address_limit, s->cfg->signup_address_window);
    return api_reply_error(res, 429, "throttled", NULL,
                           "too many sign-ups from this address; try again in %d s", wait);
}

/* The first run of a sign-up: checks, a token of the address's sign-ups,
 * then the hash in the pool. */
static int signup_begin(struct http_request *req, struct http_response *res)
{
    struct server *s = req->app;
    struct api_error e;
    struct body_credentials b;
    const char *why = NULL;
    if (!s->cfg->signup)
        return api_reply_error(res, 403, "signup_closed", NULL,
                               "sign-up is switched off on this server; ask an admin");
    json_t *j = body_parse_credentials(req->body.data, req->body.len, &b, &e);
    if (!j)
        return api_error_response(res, &e);
    int status = 0;
    if (!auth_username_ok(b.name))
        status = api_reply_error(res, 400, "invalid", "name",
                                 "name: 3 to 32 of a-z 0-9 _ . - starting with a letter or digit");
    else if (!auth_password_ok(b.password, &why))
        status = api_reply_error(res, 400, "invalid", "password", "password: %s", why);
    if (status) {
        json_decref(j);
        return status;
    }
    /* A taken name is answered before any hashing (a 409 says it anyway). */
    char *cause = NULL;
    bool taken = false;
    int rc = store_user_exists(s->store, b.name, &taken, &cause);
    if (rc < 0) {
        json_decref(j);
        return db_unavailable(res, cause);
    }
    if (taken) {
        status = api_reply_error(res, 409, "conflict", "name", "name: \"%s\" is taken", b.name);
        json_decref(j);
        return status;
    }
    int wait = rate_take(s->signups, req->remote, rate_clock_ms(s->signups));
    if (wait > 0) {
        json_decref(j);
        return signups_throttled(req, res, wait);
    }
    struct auth_wait *w = auth_wait_new(req, b.name, b.password);
    json_decref(j);
    if (!w) {
        rate_give_back(s->signups, req->remote, rate_clock_ms(s->signups));
        return api_reply_error(res, 503, "unavailable", NULL, "out of memory");
    }
    w->job.kind = PWHASH_HASH;
    status = hash_later(req, res, w);
    if (status != HTTP_SUSPENDED)
        rate_give_back(s->signups, req->remote, rate_clock_ms(s->signups));
    return status;
}

int auth_h_signup(struct http_request *req, struct http_response *res)
{
    struct server *s = req->app;
    struct auth_wait *w = req->state;
    if (!w)
        return signup_begin(req, res);
    char *cause = NULL;
    char csrf[AUTH_TOKEN_CHARS];
    int64_t id = 0;
    int status;
    if (w->job.cancelled) {
        status =
            api_reply_error(res, 503, "unavailable", NULL, "the server is stopping; try again");
    } else if (w->job.rc < 0 || !w->job.hash) {
        status = api_reply_error(res, 503, "unavailable", NULL,
                                 "password hashing ran out of memory; try again");
    } else {
        int rc = store_user_create(s->store, w->name, w->job.hash, auth_role_name(USER_LEARNER),
                                   (int64_t)time(NULL), &id, &cause);
        if (rc == BW_OK)
            rc = start_session(req, res, id, csrf, &cause);
        if (rc == BW_ERR_INVALID) {
            status =
                api_reply_error(res, 409, "conflict", "name", "name: \"%s\" is taken", w->name);
        } else if (rc < 0) {
            status = db_unavailable(res, cause);
            cause = NULL;
        } else {
            log_info("auth: user %s signed up", w->name);
            set_device_cookie(req, res, w->name);
            status = api_json(res, 201,
                              json_pack("{s:o, s:s}", "user", user_json(id, w->name, USER_LEARNER),
                                        "csrf", csrf));
        }
    }
    if (status != 201)
        rate_give_back(s->signups, req->remote, rate_clock_ms(s->signups));
    free(cause);
    auth_wait_end(req);
    return status;
}

/* 429 throttled, with Retry-After. */
static int throttled(struct http_request *req, struct http_response *res, int wait,
                     enum throttle_scope scope)
{
    char secs[24];
    snprintf(secs, sizeof(secs), "%d", wait);
    http_add_header(req, res, "Retry-After", secs);
    return api_reply_error(
        res, 429, "throttled", NULL, "too many failed sign-ins %s; try again in %d s",
        scope == THROTTLE_ACCOUNT ? "for this user name" : "from this address", wait);
}

/* The first run of a sign-in: the lockouts, the account, then the check in
 * the pool. */
static int signin_begin(struct http_request *req, struct http_response *res)
{
    struct server *s = req->app;
    struct api_error e;
    struct body_credentials b;
    json_t *j = body_parse_credentials(req->body.data, req->body.len, &b, &e);
    if (!j)
        return api_error_response(res, &e);
    const char *shown = auth_username_ok(b.name) ? b.name : "(not a user name)";
    enum throttle_scope scope;
    char nonce[DEVICE_NONCE_CHARS];
    bool trusted = false;
    bool known = device_cookie_check(s->device_key, http_cookie(req, DEVICE_COOKIE), b.name,
                                     (int64_t)time(NULL), nonce);
    int wait = throttle_begin(s->signins, b.name, req->remote, known ? nonce : NULL,
                              throttle_clock_ms(s->signins), &scope, &trusted);
    if (wait > 0) {
        metrics_signin(s->metrics, true);
        log_info("auth: sign-in as %s from %s refused: locked out %s for %d s more", shown,
                 req->remote, scope == THROTTLE_ACCOUNT ? "by name" : "by address", wait);
        json_decref(j);
        return throttled(req, res, wait, scope);
    }
    struct auth_wait *w = auth_wait_new(req, b.name, b.password);
    char *cause = NULL;
    int rc = w ? BW_OK : bw_fail(&cause, BW_ERR_NOMEM, "out of memory");
    if (w && trusted) {
        w->trusted = true;
        memcpy(w->device, nonce, sizeof(w->device));
    }
    struct store_user u;
    if (rc == BW_OK) {
        rc = store_user_by_name(s->store, w->name, &u, &cause);
        if (rc == BW_OK) {
            w->account = true;
            w->enabled = load_user(&u, &w->who);
            w->job.stored = u.password;
        } else if (rc == BW_ERR_NOTFOUND) {
            free(cause);
            cause = NULL;
            rc = BW_OK;
        }
    }
    if (rc < 0) {
        throttle_end(s->signins, b.name, req->remote, trusted ? nonce : NULL, THROTTLE_UNCHECKED,
                     throttle_clock_ms(s->signins), &scope);
        json_decref(j);
        if (w)
            pwhash_job_release(&w->job);
        return db_unavailable(res, cause);
    }
    json_decref(j);
    /* An unknown name is checked against the dummy hash: the same work. */
    w->job.kind = PWHASH_CHECK;
    int status = hash_later(req, res, w);
    if (status != HTTP_SUSPENDED) {
        throttle_end(s->signins, w->name, req->remote, w->trusted ? w->device : NULL,
                     THROTTLE_UNCHECKED, throttle_clock_ms(s->signins), &scope);
        auth_wait_end(req);
    }
    return status;
}

int auth_h_signin(struct http_request *req, struct http_response *res)
{
    struct server *s = req->app;
    struct auth_wait *w = req->state;
    if (!w)
        return signin_begin(req, res);
    enum throttle_scope scope;
    const char *shown = auth_username_ok(w->name) ? w->name : "(not a user name)";
    const char *device = w->trusted ? w->device : NULL;
    if (w->job.cancelled) {
        throttle_end(s->signins, w->name, req->remote, device, THROTTLE_UNCHECKED,
                     throttle_clock_ms(s->signins), &scope);
        auth_wait_end(req);
        return api_reply_error(res, 503, "unavailable", NULL, "the server is stopping; try again");
    }
    bool ok = w->job.ok && w->account;
    int locked =
        throttle_end(s->signins, w->name, req->remote, device, ok ? THROTTLE_RIGHT : THROTTLE_WRONG,
                     throttle_clock_ms(s->signins), &scope);
    char *cause = NULL;
    int status;
    if (!ok) {
        metrics_signin(s->metrics, false);
        if (locked > 0 && scope == THROTTLE_DEVICE)
            log_warn("auth: failed sign-ins as %s from a known device (from %s): the device is "
                     "an unknown one for %d s",
                     shown, req->remote, locked);
        else if (locked > 0)
            log_warn("auth: failed sign-ins %s %s: locked out for %d s",
                     scope == THROTTLE_ACCOUNT ? "as" : "from",
                     scope == THROTTLE_ACCOUNT ? shown : req->remote, locked);
        status = api_reply_error(res, 401, "bad_credentials", NULL, "wrong user name or password");
    } else if (!w->enabled) {
        status = api_reply_error(res, 403, "forbidden", NULL, "this account is disabled");
    } else {
        char csrf[AUTH_TOKEN_CHARS];
        /* A hash made at another cost was made again at this one, off this thread. */
        if (w->job.hash && store_user_set_password(s->store, w->who.id, w->job.hash, &cause) < 0) {
            log_warn("auth: user %lld: cannot store the rehashed password: %s",
                     (long long)w->who.id, cause ? cause : "error");
            free(cause);
            cause = NULL;
        }
        int rc = start_session(req, res, w->who.id, csrf, &cause);
        if (rc < 0) {
            status = db_unavailable(res, cause);
            cause = NULL;
        } else {
            set_device_cookie(req, res, w->who.name);
            status =
                api_json(res, 200,
                         json_pack("{s:o, s:s}", "user",
                                   user_json(w->who.id, w->who.name, w->who.role), "csrf", csrf));
        }
    }
    free(cause);
    auth_wait_end(req);
    return status;
}

int auth_h_signout(struct http_request *req, struct http_response *res)
{
    struct server *s = req->app;
    const char *cookie = http_cookie(req, AUTH_SESSION_COOKIE);
    if (cookie && strlen(cookie) < AUTH_TOKEN_CHARS) {
        char hash[65];
        auth_token_hash(cookie, hash);
        store_session_delete(s->store, hash, NULL);
    }
    http_add_header(req, res, "Set-Cookie",
                    AUTH_SESSION_COOKIE "=; Path=/; Max-Age=0; HttpOnly; SameSite=Lax");
    return http_text(res, 204, NULL, "", 0);
}

int auth_h_me(struct http_request *req, struct http_response *res)
{
    struct server *s = req->app;
    const struct principal *who = auth_who(req);
    json_t *quota = NULL;
    char *cause = NULL;
    int rc = submissions_quota_json(s, who->id, &quota, &cause);
    if (rc < 0)
        return db_unavailable(res, cause);
    json_t *body =
        json_pack("{s:o, s:o, s:o}", "user", user_json(who->id, who->name, who->role), "csrf",
                  who->via_cookie ? json_string(who->csrf) : json_null(), "quota", quota);
    return api_json(res, 200, body);
}

int auth_h_token_create(struct http_request *req, struct http_response *res)
{
    struct server *s = req->app;
    const struct principal *who = auth_who(req);
    struct api_error e;
    struct body_name b;
    json_t *j = body_parse_name(req->body.data, req->body.len, &b, &e);
    if (!j)
        return api_error_response(res, &e);
    char token[AUTH_TOKEN_CHARS], hash[65];
    char *cause = NULL;
    auth_new_token("bwu_", token);
    auth_token_hash(token, hash);
    int64_t id = 0;
    int rc = store_token_create(s->store, who->id, hash, b.name, (int64_t)time(NULL), &id, &cause);
    if (rc == BW_ERR_LIMIT) {
        json_decref(j);
        int st = api_reply_error(res, 409, "conflict", NULL, "%s", cause);
        free(cause);
        return st;
    }
    int status;
    if (rc < 0) {
        status = db_unavailable(res, cause);
    } else {
        status = api_json(
            res, 201,
            json_pack("{s:I, s:s, s:s}", "id", (json_int_t)id, "name", b.name, "token", token));
    }
    json_decref(j);
    return status;
}

static void token_row(void *arg, const struct store_token *t)
{
    json_array_append_new(
        arg, json_pack("{s:I, s:s, s:I, s:o}", "id", (json_int_t)t->id, "name", t->name,
                       "created_at", (json_int_t)t->created_at, "last_used_at",
                       t->last_used_at ? json_integer(t->last_used_at) : json_null()));
}

int auth_h_token_list(struct http_request *req, struct http_response *res)
{
    struct server *s = req->app;
    const struct principal *who = auth_who(req);
    char *cause = NULL;
    json_t *list = json_array();
    int rc = store_tokens_of(s->store, who->id, token_row, list, &cause);
    if (rc < 0) {
        json_decref(list);
        return db_unavailable(res, cause);
    }
    return api_json(res, 200, json_pack("{s:o}", "tokens", list));
}

int auth_h_token_delete(struct http_request *req, struct http_response *res)
{
    struct server *s = req->app;
    const struct principal *who = auth_who(req);
    int64_t id;
    if (!parse_i64(req->params[0], &id) || id < 1)
        return api_reply_error(res, 404, "not_found", NULL, "no such token");
    char *cause = NULL;
    int rc = store_token_delete(s->store, who->id, id, &cause);
    if (rc == BW_ERR_NOTFOUND) {
        free(cause);
        return api_reply_error(res, 404, "not_found", NULL, "no such token");
    }
    if (rc < 0)
        return db_unavailable(res, cause);
    return http_text(res, 204, NULL, "", 0);
}

void auth_expire_sessions(struct store *st)
{
    store_sessions_expire(st, (int64_t)time(NULL), NULL);
}
