#include "config.h"

#include <arpa/inet.h>
#include <dirent.h>
#include <errno.h>
#include <netinet/in.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "common/buf.h"
#include "common/error.h"
#include "common/limits.h"
#include "common/util.h"
#include "common/banned.h"

enum key_type { K_STR, K_INT, K_BOOL, K_LEVEL, K_FORMAT };

struct key {
    const char *name;
    enum key_type type;
    size_t offset;
    int64_t lo, hi;   /* K_INT range */
    const char *help; /* one line for --help */
};

#define STR(f)         K_STR, offsetof(struct server_config, f), 0, 0
#define INT(f, lo, hi) K_INT, offsetof(struct server_config, f), lo, hi
#define BOOL(f)        K_BOOL, offsetof(struct server_config, f), 0, 0

static const struct key keys[] = {
    {"listen", STR(listen), "numeric IPv4 or IPv6 address to listen on"},
    {"port", INT(port, 1, 65535), "TCP port"},
    {"database", STR(db_path),
     "the SQLite file (made if missing; its directory must exist), or a PostgreSQL server that "
     "several servers share: postgresql://USER:PASSWORD@HOST:PORT/DATABASE (libpq's URI)"},
    {"problems", STR(problems_dir), "directory of problem directories (reloaded on SIGHUP)"},
    {"web", STR(web_dir), "directory of the built web pages; \"\" serves none"},
    {"threads", INT(threads, 1, 256), "HTTP threads, each an epoll loop"},
    {"max_connections", INT(max_connections, 16, 1000000),
     "open connections at once, event streams included (at least 4 per thread)"},
    {"connection_timeout", INT(conn_timeout_s, 1, 3600),
     "seconds an idle connection is kept (not event streams)"},
    {"request_deadline", INT(request_deadline_s, 1, 3600),
     "seconds a request's line, headers and body may take to arrive, however steadily they "
     "trickle (and an idle kept-alive connection is kept)"},
    {"connections_per_address", INT(per_address, 0, 1000000),
     "open connections from one client address (IPv6: its /64), trusted proxies excepted (0: no "
     "cap)"},
    {"signup", BOOL(signup), "anyone may create a learner account"},
    {"session_hours", INT(session_hours, 1, 24 * 365), "hours a sign-in lasts"},
    {"cookie_secure", BOOL(cookie_secure), "send the session cookie over HTTPS only"},
    {"quota_run", INT(quota_run, 0, 1000000), "Runs (tests only) per user per quota_window"},
    {"quota_submit", INT(quota_submit, 0, 1000000),
     "Submits (tests and timing) per user per quota_window"},
    {"quota_profile", INT(quota_profile, 0, BW_QUOTA_PROFILE_MAX),
     "Profiles (tests, then the plan under the GPU's profiler) per user per quota_window"},
    {"quota_window", INT(quota_window_s, 1, 7 * 24 * 3600), "seconds of the sliding quota window"},
    {"quota_in_flight", INT(quota_in_flight, 1, 1000000),
     "a user's submissions queued or being judged at once"},
    {"lease", INT(lease_s, 3, 3600),
     "seconds without a heartbeat before a worker is taken as lost (its jobs requeued; it "
     "heartbeats every lease/3)"},
    {"claim_wait", INT(claim_wait_s, 1, 300), "seconds of a worker's longest claim long-poll"},
    {"sse_heartbeat", INT(sse_heartbeat_s, 1, 300),
     "seconds between keep-alive comments on an idle event stream"},
    {"worker_error_limit", INT(worker_error_limit, 1, 1000),
     "internal errors in a row that disable a worker"},
    {"problem_error_limit", INT(problem_error_limit, 1, 1000),
     "internal errors in a row that disable a problem"},
    {"pwhash_ops", INT(pwhash_ops, 1, 20), "argon2id opslimit of password hashes"},
    {"pwhash_mem_kib", INT(pwhash_mem_kib, 8, 4 * 1024 * 1024),
     "argon2id memlimit of password hashes, KiB"},
    {"pwhash_threads", INT(pwhash_threads, 0, 256),
     "threads that check and hash passwords, never the HTTP threads (0: half the CPUs, at least "
     "one); each uses pwhash_mem_kib at a time"},
    {"pwhash_queue", INT(pwhash_queue, 1, 1000000),
     "sign-ins and sign-ups waiting for a hashing thread; more are answered 429 busy"},
    {"signup_address_limit", INT(signup_address_limit, 0, 1000000),
     "sign-ups from one client address at once (0: no limit); then one more every "
     "signup_address_window / signup_address_limit seconds"},
    {"signup_address_window", INT(signup_address_window, 1, 7 * 24 * 3600),
     "seconds in which a client address's sign-ups come back"},
    {"signin_account_failures", INT(signin_account_failures, 0, 1000000),
     "failed sign-ins of one user name before a lockout (0: no limit)"},
    {"signin_address_failures", INT(signin_address_failures, 0, 1000000),
     "failed sign-ins from one client address (IPv6: its /64) before a lockout (0: no limit)"},
    {"signin_lockout", INT(signin_lockout_s, 1, 24 * 3600),
     "seconds of the first lockout; each further failure doubles it"},
    {"signin_window", INT(signin_window_s, 1, 7 * 24 * 3600),
     "seconds after the last failure that failures are forgotten; the longest lockout"},
    {"trusted_proxies", STR(trusted_proxies),
     "addresses of reverse proxies whose X-Forwarded-For names the client; \"\" none"},
    {"metrics_token", STR(metrics_token), "bearer token /metrics requires; \"\" none"},
    {"log_level", K_LEVEL, offsetof(struct server_config, log_level), 0, 0,
     "debug, info, warn or error"},
    {"log_format", K_FORMAT, offsetof(struct server_config, log_format), 0, 0,
     "text, or json (one object a line)"},
};

#define N_KEYS (sizeof(keys) / sizeof(keys[0]))

/* True if the database setting names a PostgreSQL server (the store's
 * db_is_postgresql, said again here so that the config depends on nothing). */
static bool is_postgresql(const char *database)
{
    return strncmp(database, "postgresql://", 13) == 0 || strncmp(database, "postgres://", 11) == 0;
}

static void set_str(char **slot, const char *v)
{
    char *copy = strdup(v);
    if (copy) {
        free(*slot);
        *slot = copy;
    }
}

void config_init(struct server_config *c)
{
    memset(c, 0, sizeof(*c));
    set_str(&c->listen, "127.0.0.1");
    c->port = 8080;
    set_str(&c->db_path, "blockwise.db");
    set_str(&c->problems_dir, "problems");
    set_str(&c->web_dir, "web");
    c->threads = 4;
    c->max_connections = 8192;
    c->conn_timeout_s = 60;
    c->request_deadline_s = BW_HTTP_REQUEST_DEADLINE_S;
    c->per_address = BW_HTTP_CONNECTIONS_PER_ADDRESS;
    c->signup = true;
    c->session_hours = 24 * 14;
    c->cookie_secure = false;
    c->quota_run = 120;
    c->quota_submit = 30;
    c->quota_profile = BW_QUOTA_PROFILE_DEFAULT;
    c->quota_window_s = 3600;
    c->quota_in_flight = 3;
    c->lease_s = BW_WORKER_LOST_S;
    c->claim_wait_s = 25;
    c->sse_heartbeat_s = 15;
    c->worker_error_limit = 3;
    c->problem_error_limit = 5;
    c->pwhash_ops = 2;             /* crypto_pwhash_OPSLIMIT_INTERACTIVE */
    c->pwhash_mem_kib = 64 * 1024; /* crypto_pwhash_MEMLIMIT_INTERACTIVE */
    c->pwhash_threads = 0;
    c->pwhash_queue = BW_PWHASH_QUEUE;
    c->signup_address_limit = BW_SIGNUP_PER_ADDRESS;
    c->signup_address_window = 3600;
    c->signin_account_failures = 5;
    c->signin_address_failures = 20;
    c->signin_lockout_s = 30;
    c->signin_window_s = 900;
    set_str(&c->trusted_proxies, "");
    set_str(&c->metrics_token, "");
    c->log_level = LOG_INFO;
    c->log_format = LOG_FORMAT_TEXT;
}

void config_release(struct server_config *c)
{
    free(c->listen);
    free(c->db_path);
    free(c->problems_dir);
    free(c->web_dir);
    free(c->metrics_token);
    free(c->trusted_proxies);
    memset(c, 0, sizeof(*c));
}

static const struct key *find_key(const char *name)
{
    for (size_t i = 0; i < N_KEYS; i++) {
        if (strcmp(keys[i].name, name) == 0)
            return &keys[i];
    }
    return NULL;
}

int config_set(struct server_config *c, const char *key, const char *value, char **cause)
{
    const struct key *k = find_key(key);
    if (!k)
        return bw_fail(cause, BW_ERR_INVALID,
                       "unknown key \"%s\" (blockwise-server --help lists the keys)", key);
    char *base = (char *)c + k->offset;
    int64_t v;
    switch (k->type) {
    case K_STR: {
        char *copy = strdup(value);
        if (!copy)
            return bw_fail(cause, BW_ERR_NOMEM, "out of memory");
        free(*(char **)base);
        *(char **)base = copy;
        return BW_OK;
    }
    case K_INT:
        if (!parse_i64(value, &v) || v < k->lo || v > k->hi)
            return bw_fail(cause, BW_ERR_INVALID, "%s: \"%s\" is not an integer in %lld..%lld", key,
                           value, (long long)k->lo, (long long)k->hi);
        *(int *)base = (int)v;
        return BW_OK;
    case K_BOOL:
        if (strcmp(value, "yes") == 0 || strcmp(value, "true") == 0 || strcmp(value, "on") == 0)
            *(bool *)base = true;
        else if (strcmp(value, "no") == 0 || strcmp(value, "false") == 0 ||
                 strcmp(value, "off") == 0)
            *(bool *)base = false;
        else
            return bw_fail(cause, BW_ERR_INVALID, "%s: \"%s\" is not yes or no", key, value);
        return BW_OK;
    case K_LEVEL:
        if (!log_level_parse(value, (enum log_level *)base))
            return bw_fail(cause, BW_ERR_INVALID,
                           "%s: \"%s\" is not one of debug, info, warn, error", key, value);
        return BW_OK;
    case K_FORMAT:
        if (strcmp(value, "text") == 0)
            *(enum log_format *)base = LOG_FORMAT_TEXT;
        else if (strcmp(value, "json") == 0)
            *(enum log_format *)base = LOG_FORMAT_JSON;
        else
            return bw_fail(cause, BW_ERR_INVALID, "%s: \"%s\" is not text or json", key, value);
        return BW_OK;
    }
    return bw_fail(cause, BW_ERR_INTERNAL, "%s: bad key type", key);
}

static char *trim(char *s)
{
    while (*s == ' ' || *s == '\t')
        s++;
    size_t n = strlen(s);
    while (n > 0 && (s[n - 1] == ' ' || s[n - 1] == '\t' || s[n - 1] == '\r'))
        s[--n] = '\0';
    return s;
}

int config_load_file(struct server_config *c, const char *path, char **cause)
{
    char *text = NULL;
    size_t len = 0;
    int rc = read_file(path, BW_MAX_CONFIG_BYTES, &text, &len, cause);
    if (rc < 0)
        return rc;
    if (strlen(text) != len) {
        free(text);
        return bw_fail(cause, BW_ERR_INVALID, "%s: contains a NUL byte", path);
    }
    int lineno = 0;
    int set_on[N_KEYS] = {0}; /* the line each key was set on */
    /* Split by hand so empty lines keep their numbers. */
    char *line = text;
    while (line && rc == BW_OK) {
        char *nl = strchr(line, '\n');
        if (nl)
            *nl = '\0';
        lineno++;
        char *hash = NULL;
        bool quoted = false;
        for (char *p = line; *p; p++) {
            if (*p == '"')
                quoted = !quoted;
            else if (*p == '#' && !quoted) {
                hash = p;
                break;
            }
        }
        if (hash)
            *hash = '\0';
        char *s = trim(line);
        if (*s) {
            char *eq = strchr(s, '=');
            if (!eq) {
                rc = bw_fail(cause, BW_ERR_INVALID, "%s:%d: expected \"key = value\", got \"%s\"",
                             path, lineno, s);
                break;
            }
            *eq = '\0';
            char *key = trim(s);
            char *value = trim(eq + 1);
            size_t vn = strlen(value);
            if (vn >= 2 && value[0] == '"' && value[vn - 1] == '"') {
                value[vn - 1] = '\0';
                value++;
            }
            const struct key *k = find_key(key);
            if (k && set_on[k - keys]) {
                rc = bw_fail(cause, BW_ERR_INVALID,
                             "%s:%d: \"%s\" is set twice (first on line %d); keep one", path,
                             lineno, key, set_on[k - keys]);
                break;
            }
            rc = config_set(c, key, value, cause);
            if (rc < 0)
                bw_wrap(cause, rc, "%s:%d", path, lineno);
            else
                set_on[k - keys] = lineno;
        }
        line = nl ? nl + 1 : NULL;
    }
    free(text);
    return rc;
}

static bool numeric_address(const char *s)
{
    unsigned char buf[sizeof(struct in6_addr)];
    return inet_pton(AF_INET, s, buf) == 1 || inet_pton(AF_INET6, s, buf) == 1;
}

bool config_address_list_ok(const char *list, char **bad)
{
    const char *p = list;
    while (*p) {
        p += strspn(p, ", \t");
        size_t n = strcspn(p, ", \t");
        if (n == 0)
            break;
        char one[INET6_ADDRSTRLEN + 1];
        if (n >= sizeof(one)) {
            *bad = strndup(p, n);
            return false;
        }
        memcpy(one, p, n);
        one[n] = '\0';
        if (!numeric_address(one)) {
            *bad = strdup(one);
            return false;
        }
        p += n;
    }
    return true;
}

int config_validate(const struct server_config *c, char **cause)
{
    if (!*c->listen)
        return bw_fail(cause, BW_ERR_INVALID, "listen: empty address");
    if (!numeric_address(c->listen))
        return bw_fail(cause, BW_ERR_INVALID,
                       "listen: \"%s\" is not a numeric IPv4 or IPv6 address (such as 127.0.0.1 "
                       "or ::1)",
                       c->listen);
    char *bad = NULL;
    if (!config_address_list_ok(c->trusted_proxies, &bad)) {
        int rc = bw_fail(cause, BW_ERR_INVALID,
                         "trusted_proxies: \"%s\" is not a numeric IPv4 or IPv6 address",
                         bad ? bad : "?");
        free(bad);
        return rc;
    }
    if (c->signin_lockout_s > c->signin_window_s)
        return bw_fail(cause, BW_ERR_INVALID,
                       "signin_lockout (%d s) must not be longer than signin_window (%d s)",
                       c->signin_lockout_s, c->signin_window_s);
    if (!*c->db_path)
        return bw_fail(cause, BW_ERR_INVALID, "database: empty path");
    if (!*c->problems_dir)
        return bw_fail(cause, BW_ERR_INVALID, "problems: empty path");
    if (c->max_connections < c->threads * 4)
        return bw_fail(cause, BW_ERR_INVALID, "max_connections (%d) is below 4 per thread (%d)",
                       c->max_connections, c->threads);
    return BW_OK;
}

/* Appends key k's value in c as the file would spell it (metrics_token hidden). */
static void put_value(struct buf *b, const struct key *k, const struct server_config *c)
{
    static const char *const levels[] = {"debug", "info", "warn", "error"};
    const char *base = (const char *)c + k->offset;
    switch (k->type) {
    case K_STR: {
        const char *v = *(char *const *)base;
        const char *scheme = strstr(v, "://");
        const char *at = scheme ? strchr(scheme + 3, '@') : NULL;
        const char *colon = at ? memchr(scheme + 3, ':', (size_t)(at - scheme - 3)) : NULL;
        if (strcmp(k->name, "metrics_token") == 0 && *v)
            buf_puts(b, "(set)");
        else if (strcmp(k->name, "database") == 0 && is_postgresql(v) && colon)
            buf_addf(b, "\"%.*s:(set)%s\"", (int)(colon - v), v, at); /* the password hidden */
        else
            buf_addf(b, "\"%s\"", v);
        break;
    }
    case K_INT:
        buf_addf(b, "%d", *(const int *)base);
        break;
    case K_BOOL:
        buf_puts(b, *(const bool *)base ? "yes" : "no");
        break;
    case K_LEVEL:
        buf_puts(b, levels[*(const enum log_level *)base]);
        break;
    case K_FORMAT:
        buf_puts(b, *(const enum log_format *)base == LOG_FORMAT_JSON ? "json" : "text");
        break;
    }
}

char *config_dump(const struct server_config *c)
{
    struct buf b;
    buf_init(&b, 64 * 1024);
    for (size_t i = 0; i < N_KEYS; i++) {
        buf_addf(&b, "%s = ", keys[i].name);
        put_value(&b, &keys[i], c);
        buf_puts(&b, "\n");
    }
    return buf_detach(&b);
}

/* True if dir has a subdirectory not starting with '.'. */
static bool has_subdir(const char *dir)
{
    DIR *d = opendir(dir);
    if (!d)
        return false;
    bool found = false;
    struct dirent *de;
    while (!found && (de = readdir(d)) != NULL) {
        if (de->d_name[0] == '.')
            continue;
        char *path = path_join(dir, de->d_name);
        struct stat st;
        found = path && stat(path, &st) == 0 && S_ISDIR(st.st_mode);
        free(path);
    }
    closedir(d);
    return found;
}

static int check_database(const char *file, char **cause)
{
    struct stat st;
    if (is_postgresql(file))
        return BW_OK; /* the server must answer: --check-config and the start connect */
    if (stat(file, &st) == 0 && !S_ISREG(st.st_mode))
        return bw_fail(cause, BW_ERR_INVALID, "database: %s is not a regular file", file);
    if (stat(file, &st) == 0 && access(file, R_OK | W_OK) != 0)
        return bw_fail(cause, BW_ERR_INVALID, "database: %s: %s", file, strerror(errno));
    /* SQLite makes the file, and in WAL mode its -wal and -shm files, next to it. */
    const char *slash = strrchr(file, '/');
    char *dir = slash ? strndup(file, slash == file ? 1 : (size_t)(slash - file)) : strdup(".");
    if (!dir)
        return bw_fail(cause, BW_ERR_NOMEM, "out of memory");
    int rc = BW_OK;
    if (stat(dir, &st) != 0)
        rc = bw_fail(cause, BW_ERR_INVALID, "database: the directory %s of %s: %s", dir, file,
                     strerror(errno));
    else if (!S_ISDIR(st.st_mode))
        rc = bw_fail(cause, BW_ERR_INVALID, "database: %s (the directory of %s) is not a directory",
                     dir, file);
    else if (access(dir, W_OK | X_OK) != 0)
        rc = bw_fail(cause, BW_ERR_INVALID,
                     "database: the directory %s of %s is not writable (SQLite makes its "
                     "journal files there): %s",
                     dir, file, strerror(errno));
    free(dir);
    return rc;
}

int config_check_paths(const struct server_config *c, char **warnings, char **cause)
{
    struct buf w;
    struct stat st;
    int rc = BW_OK;
    *warnings = NULL;
    buf_init(&w, 4096);
    if (stat(c->problems_dir, &st) != 0)
        rc = bw_fail(cause, BW_ERR_INVALID, "problems: %s: %s", c->problems_dir, strerror(errno));
    else if (!S_ISDIR(st.st_mode))
        rc = bw_fail(cause, BW_ERR_INVALID, "problems: %s is not a directory", c->problems_dir);
    else if (!has_subdir(c->problems_dir))
        rc = bw_fail(cause, BW_ERR_INVALID,
                     "problems: %s holds no problem directories (nothing to serve)",
                     c->problems_dir);
    if (rc == BW_OK)
        rc = check_database(c->db_path, cause);
    if (rc == BW_OK && c->web_dir[0]) {
        char *index = path_join(c->web_dir, "index.html");
        if (stat(c->web_dir, &st) != 0)
            buf_addf(&w,
                     "web: %s: %s: every page, / included, will be 404 (build the pages with "
                     "make web, or set web = \"\" to serve none)\n",
                     c->web_dir, strerror(errno));
        else if (!S_ISDIR(st.st_mode))
            rc = bw_fail(cause, BW_ERR_INVALID, "web: %s is not a directory", c->web_dir);
        else if (!index || stat(index, &st) != 0 || !S_ISREG(st.st_mode))
            buf_addf(&w, "web: %s has no index.html: / will be 404\n", c->web_dir);
        free(index);
    }
    if (rc == BW_OK && w.len > 0) {
        w.data[w.len - 1] = '\0'; /* the last newline */
        *warnings = buf_detach(&w);
    }
    buf_release(&w);
    return rc;
}

char *config_help(void)
{
    static const char *const kinds[] = {"text", "integer", "yes or no", "word", "word"};
    struct server_config d;
    struct buf b;
    config_init(&d);
    buf_init(&b, 64 * 1024);
    for (size_t i = 0; i < N_KEYS; i++) {
        const struct key *k = &keys[i];
        buf_addf(&b, "  %-24s %s\n  %-24s (", k->name, k->help, "");
        if (k->type == K_INT)
            buf_addf(&b, "%lld..%lld", (long long)k->lo, (long long)k->hi);
        else
            buf_puts(&b, kinds[k->type]);
        buf_puts(&b, "; default ");
        put_value(&b, k, &d);
        buf_puts(&b, ")\n");
    }
    config_release(&d);
    return buf_detach(&b);
}
