/*
 * config.h - blockwise-server's configuration: parsed once, validated, then
 * read-only and passed explicitly.
 *
 * The file is lines of "key = value"; '#' starts a comment; blank lines are
 * ignored; values may be double-quoted; a key set twice in one file is an
 * error (naming both lines), not a silent last-wins. Every key is listed in
 * config.c's table with its type, range, default and a line of help (what
 * `blockwise-server --help` prints), and documented in deploy/blockwise.conf
 * and docs/operations.md. Command-line flags set the same keys and win over
 * the file.
 *
 * Three levels of checking: config_set() and config_load_file() check each
 * value on its own, config_validate() the values together (without touching
 * the file system), config_check_paths() the files and directories they name,
 * which is what --check-config and the server's start share, so that
 * "configuration OK" means the server would start.
 */
#ifndef BW_SERVER_CONFIG_H
#define BW_SERVER_CONFIG_H

#include <stdbool.h>

#include "common/log.h"

struct server_config {
    char *listen;              /* owned: address to bind, "127.0.0.1" */
    int port;                  /* TCP port */
    char *db_path;             /* owned: the SQLite file, or a postgresql:// URI */
    char *problems_dir;        /* owned */
    char *web_dir;             /* owned: static files; "" serves none */
    int threads;               /* HTTP worker threads */
    int max_connections;       /* open connections at once, SSE streams included */
    int conn_timeout_s;        /* idle connection timeout (not while suspended) */
    int request_deadline_s;    /* a whole request (line, headers, body) must arrive within */
    int per_address;           /* open connections from one client address; 0: no cap */
    bool signup;               /* anyone may create a learner account */
    int session_hours;         /* session cookie lifetime */
    bool cookie_secure;        /* add Secure to the cookie (behind TLS) */
    int quota_run;             /* Run submissions per user per quota window */
    int quota_submit;          /* Submit submissions per user per quota window */
    int quota_profile;         /* Profile submissions per user per quota window */
    int quota_window_s;        /* sliding window of the two quotas above */
    int quota_in_flight;       /* a user's submissions queued or judging at once */
    int lease_s;               /* a worker is lost after this long without a heartbeat */
    int claim_wait_s;          /* longest wait of one claim long-poll */
    int sse_heartbeat_s;       /* comment line sent on an idle event stream */
    int worker_error_limit;    /* internal errors in a row that disable a worker */
    int problem_error_limit;   /* internal errors in a row that disable a problem */
    int pwhash_ops;            /* argon2id opslimit (libsodium) */
    int pwhash_mem_kib;        /* argon2id memlimit in KiB */
    int pwhash_threads;        /* threads that hash passwords (not HTTP's); 0: half the CPUs */
    int pwhash_queue;          /* sign-ins and sign-ups waiting for them; more get 429 busy */
    int signup_address_limit;  /* sign-ups from one client address at once; 0 no limit */
    int signup_address_window; /* seconds to refill them (one every window/limit) */
    char *metrics_token;       /* owned: bearer token required by /metrics; "" none */
    char *trusted_proxies; /* owned: proxy addresses whose X-Forwarded-For is believed; "" none */
    int signin_account_failures; /* failed sign-ins of one name before a lockout; 0 off */
    int signin_address_failures; /* failed sign-ins from one client address before a lockout; 0 off
                                  */
    int signin_lockout_s;        /* the first lockout, doubled by each further failure */
    int signin_window_s;         /* failures forgotten this long after the last; longest lockout */
    enum log_level log_level;
    enum log_format log_format;
};

/* Fills defaults. Release with config_release. */
void config_init(struct server_config *c);
void config_release(struct server_config *c);

/* Sets one key from text ("port", "8080"); BW_ERR_INVALID names the key. */
int config_set(struct server_config *c, const char *key, const char *value, char **cause);

/* Reads a config file; errors are "FILE:LINE: reason". */
int config_load_file(struct server_config *c, const char *path, char **cause);

/* Cross-field checks after everything was set (no file system access):
 * listen and trusted_proxies must be numeric addresses, leases outlive
 * claims, and so on. */
int config_validate(const struct server_config *c, char **cause);

/* The files and directories: the problems directory must exist and hold at
 * least one subdirectory, the database's directory must exist and be
 * writable (the file itself need not exist yet), and web, unless "", should
 * be a directory with an index.html: a missing one is a warning, not an
 * error (the API works without pages). *warnings is a *new* string of one
 * warning a line, or NULL when there is none. */
int config_check_paths(const struct server_config *c, char **warnings, char **cause);

/* True if `list` is "" or addresses separated by commas or spaces, each a
 * numeric IPv4 or IPv6 address; *bad (when false) is a *new* copy of the first
 * that is not. */
bool config_address_list_ok(const char *list, char **bad);

/* Writes every key with its value, one "key = value" a line, into a *new* string. */
char *config_dump(const struct server_config *c);

/* Every key with its type, range, default and meaning, for --help: a *new* string. */
char *config_help(void);

#endif
