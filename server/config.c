#include "config.h"

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

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
    int64_t lo, hi; /* K_INT range */
};

#define STR(f)         K_STR, offsetof(struct server_config, f), 0, 0
#define INT(f, lo, hi) K_INT, offsetof(struct server_config, f), lo, hi
#define BOOL(f)        K_BOOL, offsetof(struct server_config, f), 0, 0

static const struct key keys[] = {
    {"listen", STR(listen)},
    {"port", INT(port, 1, 65535)},
    {"database", STR(db_path)},
    {"problems", STR(problems_dir)},
    {"web", STR(web_dir)},
    {"threads", INT(threads, 1, 256)},
    {"max_connections", INT(max_connections, 16, 1000000)},
    {"connection_timeout", INT(conn_timeout_s, 1, 3600)},
    {"signup", BOOL(signup)},
    {"session_hours", INT(session_hours, 1, 24 * 365)},
    {"cookie_secure", BOOL(cookie_secure)},
    {"quota_run", INT(quota_run, 0, 1000000)},
    {"quota_submit", INT(quota_submit, 0, 1000000)},
    {"quota_window", INT(quota_window_s, 1, 7 * 24 * 3600)},
    {"quota_in_flight", INT(quota_in_flight, 1, 1000000)},
    {"lease", INT(lease_s, 1, 3600)},
    {"claim_wait", INT(claim_wait_s, 1, 300)},
    {"sse_heartbeat", INT(sse_heartbeat_s, 1, 300)},
    {"worker_error_limit", INT(worker_error_limit, 1, 1000)},
    {"problem_error_limit", INT(problem_error_limit, 1, 1000)},
    {"pwhash_ops", INT(pwhash_ops, 1, 20)},
    {"pwhash_mem_kib", INT(pwhash_mem_kib, 8, 4 * 1024 * 1024)},
    {"metrics_token", STR(metrics_token)},
    {"log_level", K_LEVEL, offsetof(struct server_config, log_level), 0, 0},
    {"log_format", K_FORMAT, offsetof(struct server_config, log_format), 0, 0},
};

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
    c->signup = true;
    c->session_hours = 24 * 14;
    c->cookie_secure = false;
    c->quota_run = 120;
    c->quota_submit = 30;
    c->quota_window_s = 3600;
    c->quota_in_flight = 3;
    c->lease_s = 120;
    c->claim_wait_s = 25;
    c->sse_heartbeat_s = 15;
    c->worker_error_limit = 3;
    c->problem_error_limit = 5;
    c->pwhash_ops = 2;             /* crypto_pwhash_OPSLIMIT_INTERACTIVE */
    c->pwhash_mem_kib = 64 * 1024; /* crypto_pwhash_MEMLIMIT_INTERACTIVE */
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
    memset(c, 0, sizeof(*c));
}

int config_set(struct server_config *c, const char *key, const char *value, char **cause)
{
    const struct key *k = NULL;
    for (size_t i = 0; i < sizeof(keys) / sizeof(keys[0]); i++) {
        if (strcmp(keys[i].name, key) == 0)
            k = &keys[i];
    }
    if (!k)
        return bw_fail(cause, BW_ERR_INVALID, "unknown key \"%s\"", key);
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
            rc = config_set(c, key, value, cause);
            if (rc < 0)
                bw_wrap(cause, rc, "%s:%d", path, lineno);
        }
        line = nl ? nl + 1 : NULL;
    }
    free(text);
    return rc;
}

int config_validate(const struct server_config *c, char **cause)
{
    if (!*c->listen)
        return bw_fail(cause, BW_ERR_INVALID, "listen: empty address");
    if (!*c->db_path)
        return bw_fail(cause, BW_ERR_INVALID, "database: empty path");
    if (!*c->problems_dir)
        return bw_fail(cause, BW_ERR_INVALID, "problems: empty path");
    if (c->claim_wait_s >= c->lease_s)
        return bw_fail(cause, BW_ERR_INVALID, "claim_wait (%d s) must be shorter than lease (%d s)",
                       c->claim_wait_s, c->lease_s);
    if (c->max_connections < c->threads * 4)
        return bw_fail(cause, BW_ERR_INVALID, "max_connections (%d) is below 4 per thread (%d)",
                       c->max_connections, c->threads);
    return BW_OK;
}

char *config_dump(const struct server_config *c)
{
    struct buf b;
    buf_init(&b, 64 * 1024);
    static const char *const levels[] = {"debug", "info", "warn", "error"};
    for (size_t i = 0; i < sizeof(keys) / sizeof(keys[0]); i++) {
        const struct key *k = &keys[i];
        const char *base = (const char *)c + k->offset;
        switch (k->type) {
        case K_STR:
            if (strcmp(k->name, "metrics_token") == 0 && **(char *const *)base)
                buf_addf(&b, "%s = (set)\n", k->name);
            else
                buf_addf(&b, "%s = \"%s\"\n", k->name, *(char *const *)base);
            break;
        case K_INT:
            buf_addf(&b, "%s = %d\n", k->name, *(const int *)base);
            break;
        case K_BOOL:
            buf_addf(&b, "%s = %s\n", k->name, *(const bool *)base ? "yes" : "no");
            break;
        case K_LEVEL:
            buf_addf(&b, "%s = %s\n", k->name, levels[*(const enum log_level *)base]);
            break;
        case K_FORMAT:
            buf_addf(&b, "%s = %s\n", k->name,
                     *(const enum log_format *)base == LOG_FORMAT_JSON ? "json" : "text");
            break;
        }
    }
    return buf_detach(&b);
}
