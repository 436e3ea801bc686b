/*
 * blockwise-server - the web server of Blockwise (a thin main over server/).
 *
 *   blockwise-server [OPTIONS]                       serve
 *   blockwise-server [OPTIONS] --check-config        check the configuration, print it, exit
 *   blockwise-server [OPTIONS] create-admin USER     create (or promote) an admin account
 *   blockwise-server [OPTIONS] create-worker NAME    create a judged worker, print its token
 *   blockwise-server [OPTIONS] rotate-worker NAME    a new token for a worker (the old one dies)
 *   blockwise-server [OPTIONS] delete-worker NAME    delete a worker (its jobs are requeued)
 *   blockwise-server [OPTIONS] unlock NAME           lift a user name's sign-in lockout
 *   blockwise-server [OPTIONS] unlock-address ADDR   lift a client address's sign-in lockout
 *   blockwise-server [OPTIONS] export FILE           every table, as JSON lines ("-": stdout)
 *   blockwise-server [OPTIONS] import FILE           into an empty database ("-": stdin)
 *
 * OPTIONS: -c/--config FILE, --listen ADDR, --port N, --database FILE,
 * --problems DIR, --web DIR, --set KEY=VALUE (any config key), --log-level L,
 * --log-json, --password-file F (create-admin; else the first line of stdin),
 * --token-file F (create-worker, rotate-worker: write the token there, mode
 * 0600, through a temporary file renamed into place before the database
 * change is committed: the worker or its new token exists only if the file
 * was written).
 *
 * Signals: SIGTERM/SIGINT stop gracefully (streams and long-polls end,
 * requests in flight finish, the database is checkpointed); SIGHUP reloads
 * problems/. Exit status: 0 ok, 1 runtime failure, 2 bad usage or config.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>

#include <sodium.h>

#include "admin.h"
#include "auth.h"
#include "config.h"
#include "problems.h"
#include "server.h"
#include "store/store.h"
#include "common/error.h"
#include "common/limits.h"
#include "common/log.h"
#include "common/util.h"
#include "common/banned.h"

static void usage(FILE *f)
{
    fputs("usage: blockwise-server [-c FILE] [--listen ADDR] [--port N] [--database FILE]\n"
          "                        [--problems DIR] [--web DIR] [--set KEY=VALUE]...\n"
          "                        [--log-level LEVEL] [--log-json]\n"
          "                        [--check-config | create-admin USER [--password-file F]\n"
          "                         | create-worker NAME [--token-file F]\n"
          "                         | rotate-worker NAME [--token-file F] | delete-worker NAME\n"
          "                         | unlock NAME | unlock-address ADDRESS\n"
          "                         | export FILE | import FILE]\n"
          "       blockwise-server --help\n",
          f);
}

static void help(void)
{
    usage(stdout);
    fputs(
        "\n"
        "Serves Blockwise: the JSON API under /api, live submission events, the judge\n"
        "workers' API under /api/judge, /metrics, and the web pages.\n"
        "\n"
        "Commands (without one, the server runs until SIGTERM or SIGINT):\n"
        "  -n, --check-config       check the configuration, the paths it names and the\n"
        "                           problems, print every key; exit 0 (\"configuration OK\")\n"
        "                           only if the server would start, else 2\n"
        "  create-admin USER        create an admin, or make USER an admin and reset the\n"
        "                           password; the password is the first line of\n"
        "                           --password-file F, else of standard input\n"
        "  create-worker NAME       create a judge worker and print its token, or write it\n"
        "                           to --token-file F (mode 0600); if F cannot be written,\n"
        "                           no worker is created\n"
        "  rotate-worker NAME       give the worker a new token (printed, or written to\n"
        "                           --token-file F); the old one stops working at once\n"
        "  delete-worker NAME       delete the worker: its token stops working, the jobs it\n"
        "                           holds go back to the queue, its name is free again\n"
        "  unlock NAME              lift the failed-sign-in lockout of a user name (the\n"
        "                           running server applies it within a second)\n"
        "  unlock-address ADDRESS   the same for a client address (IPv6: its /64)\n"
        "  export FILE              write every table of the database to FILE (\"-\": standard\n"
        "                           output) as JSON lines, the same from SQLite or PostgreSQL\n"
        "  import FILE              read such a file into an empty database of the same\n"
        "                           schema (\"-\": standard input): SQLite to PostgreSQL and back\n"
        "\n"
        "Options:\n"
        "  -c, --config FILE        read FILE first: \"key = value\" lines, '#' comments,\n"
        "                           values optionally \"quoted\", each key at most once\n"
        "  --listen ADDR  --port N  --database FILE  --problems DIR  --web DIR\n"
        "  --threads N  --log-level LEVEL\n"
        "                           set the key of the same name\n"
        "  --log-json               log_format = json\n"
        "  --set KEY=VALUE          set any key below (repeatable)\n"
        "                           flags win over the file, wherever they stand\n"
        "  -h, --help               this text\n"
        "\n"
        "Keys (in the file, or with --set KEY=VALUE):\n",
        stdout);
    char *keys = config_help();
    fputs(keys ? keys : "  (out of memory)\n", stdout);
    free(keys);
    fputs("\n"
          "Signals: SIGTERM and SIGINT stop gracefully; SIGHUP reloads the problems.\n"
          "Exit status: 0 ok, 1 runtime failure, 2 bad usage or configuration.\n"
          "The admin guide: docs/operations.md; an example file: deploy/blockwise.conf.\n",
          stdout);
}

struct args {
    const char *config;
    const char *command; /* NULL: serve */
    const char *command_arg;
    const char *password_file;
    const char *token_file;
    bool check;
};

/* The commands that take one argument (a name). */
static const char *const commands[] = {"create-admin",  "create-worker", "rotate-worker",
                                       "delete-worker", "unlock",        "unlock-address",
                                       "export",        "import"};

static bool is_command(const char *arg)
{
    for (size_t i = 0; i < sizeof(commands) / sizeof(commands[0]); i++)
        if (strcmp(arg, commands[i]) == 0)
            return true;
    return false;
}

/* Flags that name a config key directly. */
static const struct {
    const char *flag, *key;
} key_flags[] = {
    {"--listen", "listen"},     {"--port", "port"}, {"--database", "database"},
    {"--problems", "problems"}, {"--web", "web"},   {"--log-level", "log_level"},
    {"--threads", "threads"},
};

static int parse_args(int argc, char **argv, struct server_config *cfg, struct args *a,
                      char **cause)
{
    /* --help first: it must work whatever else is wrong. */
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "-h") == 0 || strcmp(argv[i], "--help") == 0) {
            help();
            exit(0);
        }
    }
    /* The config file next, so that flags win over it wherever they are. */
    for (int i = 1; i < argc; i++) {
        if ((strcmp(argv[i], "-c") == 0 || strcmp(argv[i], "--config") == 0) && i + 1 < argc)
            a->config = argv[++i];
    }
    if (a->config) {
        int rc = config_load_file(cfg, a->config, cause);
        if (rc < 0)
            return rc;
    }
    for (int i = 1; i < argc; i++) {
        const char *arg = argv[i];
        const char *next = i + 1 < argc ? argv[i + 1] : NULL;
        bool done = false;
        for (size_t k = 0; k < sizeof(key_flags) / sizeof(key_flags[0]) && !done; k++) {
            if (strcmp(arg, key_flags[k].flag) == 0) {
                if (!next)
                    return bw_fail(cause, BW_ERR_INVALID, "%s needs a value", arg);
                int rc = config_set(cfg, key_flags[k].key, next, cause);
                if (rc < 0)
                    return rc;
                i++;
                done = true;
            }
        }
        if (done)
            continue;
        if (strcmp(arg, "-c") == 0 || strcmp(arg, "--config") == 0) {
            if (!next)
                return bw_fail(cause, BW_ERR_INVALID, "%s needs a file", arg);
            i++;
        } else if (strcmp(arg, "-n") == 0 || strcmp(arg, "--check-config") == 0) {
            a->check = true;
        } else if (strcmp(arg, "--log-json") == 0) {
            cfg->log_format = LOG_FORMAT_JSON;
        } else if (strcmp(arg, "--set") == 0 && next) {
            char *copy = strdup(next);
            char *eq = copy ? strchr(copy, '=') : NULL;
            if (!eq) {
                free(copy);
                return bw_fail(cause, BW_ERR_INVALID, "--set: expected KEY=VALUE, got \"%s\"",
                               next);
            }
            *eq = '\0';
            int rc = config_set(cfg, copy, eq + 1, cause);
            free(copy);
            if (rc < 0)
                return rc;
            i++;
        } else if (strcmp(arg, "--password-file") == 0 && next) {
            a->password_file = next;
            i++;
        } else if (strcmp(arg, "--token-file") == 0 && next) {
            a->token_file = next;
            i++;
        } else if (is_command(arg) && !a->command) {
            if (!next)
                return bw_fail(cause, BW_ERR_INVALID, "%s needs a name", arg);
            a->command = arg;
            a->command_arg = next;
            i++;
        } else if (strcmp(arg, "--set") == 0 || strcmp(arg, "--password-file") == 0 ||
                   strcmp(arg, "--token-file") == 0) {
            return bw_fail(cause, BW_ERR_INVALID, "%s needs a value", arg);
        } else {
            return bw_fail(cause, BW_ERR_INVALID, "unknown argument \"%s\"", arg);
        }
    }
    return config_validate(cfg, cause);
}

/* Reads the first line of a file (or stdin when path is NULL) into a *new* string. */
static int read_secret(const char *path, char **out, char **cause)
{
    FILE *f = path ? fopen(path, "r") : stdin;
    if (!f)
        return bw_fail(cause, BW_ERR_IO, "%s: %s", path, strerror(errno));
    char line[512];
    bool ok = fgets(line, sizeof(line), f) != NULL;
    if (path)
        fclose(f);
    if (!ok)
        return bw_fail(cause, BW_ERR_INVALID, "no password given (%s is empty)",
                       path ? path : "standard input");
    line[strcspn(line, "\r\n")] = '\0';
    *out = strdup(line);
    sodium_memzero(line, sizeof(line));
    return *out ? BW_OK : bw_fail(cause, BW_ERR_NOMEM, "out of memory");
}

static int create_admin(const struct server_config *cfg, const struct args *a, char **cause)
{
    if (!auth_username_ok(a->command_arg))
        return bw_fail(cause, BW_ERR_INVALID,
                       "user name \"%s\": 3 to 32 of a-z 0-9 _ . - starting with a letter or digit",
                       a->command_arg);
    if (!a->password_file && isatty(STDIN_FILENO))
        fprintf(stderr, "password for %s: ", a->command_arg);
    char *pw = NULL;
    const char *why = NULL;
    int rc = read_secret(a->password_file, &pw, cause);
    if (rc < 0)
        return rc;
    if (!auth_password_ok(pw, &why)) {
        rc = bw_fail(cause, BW_ERR_INVALID, "password: %s", why);
        goto out_pw;
    }
    struct store *st = NULL;
    rc = store_open(cfg->db_path, 1, &st, cause);
    if (rc < 0)
        goto out_pw;
    int64_t id = 0;
    rc = auth_create_user(st, cfg, a->command_arg, pw, USER_ADMIN, &id, cause);
    if (rc == BW_ERR_INVALID) {
        /* It exists: make it an admin and set the password. */
        char *hash = NULL;
        free(*cause);
        *cause = NULL;
        rc = auth_hash_password(cfg, pw, &hash, cause);
        if (rc == BW_OK)
            rc = store_user_make_admin(st, a->command_arg, hash, cause);
        free(hash);
        if (rc == BW_OK)
            printf("user %s is now an admin (password reset)\n", a->command_arg);
    } else if (rc == BW_OK) {
        printf("admin %s created\n", a->command_arg);
    }
    store_close(st);
out_pw:
    sodium_memzero(pw, strlen(pw));
    free(pw);
    return rc;
}

/* Writes `token` and a newline to a new file next to `path` (mode 0600,
 * flushed to disk); *tmp is its name (new). Nothing is left behind on failure. */
static int token_tmp(const char *path, const char *token, char **tmp, char **cause)
{
    size_t n = strlen(token);
    char *name = NULL;
    if (asprintf(&name, "%s.tmp.%ld", path, (long)getpid()) < 0)
        return bw_fail(cause, BW_ERR_NOMEM, "out of memory");
    int fd = open(name, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
    if (fd < 0) {
        int rc = bw_fail(cause, BW_ERR_IO, "%s: cannot write the token next to it: %s", path,
                         strerror(errno));
        free(name);
        return rc;
    }
    if (write(fd, token, n) != (ssize_t)n || write(fd, "\n", 1) != 1 || fsync(fd) != 0) {
        int rc = bw_fail(cause, BW_ERR_IO, "%s: %s", name, strerror(errno));
        close(fd);
        unlink(name);
        free(name);
        return rc;
    }
    if (close(fd) != 0) {
        int rc = bw_fail(cause, BW_ERR_IO, "%s: %s", name, strerror(errno));
        unlink(name);
        free(name);
        return rc;
    }
    *tmp = name;
    return BW_OK;
}

/* create-worker and rotate-worker: a new token, written to --token-file (or
 * printed), and the database change, all or nothing. The file is written
 * first under a temporary name, the change made in a transaction, the file
 * renamed into place (the store's commit hook), then the transaction
 * committed; a failure at any step undoes the steps before it. */
struct token_file {
    const char *tmp, *path;
    bool renamed;
};

static int rename_token(void *arg, char **cause)
{
    struct token_file *f = arg;
    if (!f->tmp)
        return BW_OK;
    if (rename(f->tmp, f->path) != 0)
        return bw_fail(cause, BW_ERR_IO, "cannot rename %s to %s: %s", f->tmp, f->path,
                       strerror(errno));
    f->renamed = true;
    return BW_OK;
}

static int worker_token(const struct server_config *cfg, const struct args *a, bool create,
                        char **cause)
{
    const char *name = a->command_arg;
    char token[AUTH_TOKEN_CHARS], found[BW_MAX_TOKEN_NAME + 1];
    char *tmp = NULL;
    struct store *st = NULL;
    int64_t id = 0;
    if (!admin_worker_name_ok(name))
        return bw_fail(cause, BW_ERR_INVALID,
                       "worker name \"%s\": 1 to %d bytes without control characters", name,
                       BW_MAX_TOKEN_NAME);
    auth_new_token("bww_", token);
    int rc = a->token_file ? token_tmp(a->token_file, token, &tmp, cause) : BW_OK;
    if (rc < 0)
        return rc;
    struct token_file f = {tmp, a->token_file, false};
    rc = store_open(cfg->db_path, 1, &st, cause);
    if (rc < 0)
        goto out_tmp;
    rc = create ? admin_create_worker(st, name, token, rename_token, &f, &id, cause)
                : admin_rotate_worker(st, 0, name, token, rename_token, &f, &id, found, cause);
    if (rc < 0) {
        if (f.renamed && create)
            unlink(a->token_file);
        else if (f.renamed)
            bw_wrap(cause, rc,
                    "the database kept the old token, and %s now holds one that is not valid "
                    "(run rotate-worker again)",
                    a->token_file);
        goto out_db;
    }
    if (a->token_file)
        printf("worker %s %s (id %lld); token written to %s\n", name,
               create ? "created" : "has a new token", (long long)id, a->token_file);
    else
        printf("%s\n", token);
    if (!create)
        fprintf(stderr,
                "the old token of %s stopped working; restart its judged with the new "
                "one\n",
                name);
out_db:
    store_close(st);
out_tmp:
    if (tmp && !f.renamed)
        unlink(tmp);
    free(tmp);
    sodium_memzero(token, sizeof(token));
    return rc;
}

static int delete_worker(const struct server_config *cfg, const struct args *a, char **cause)
{
    struct store *st = NULL;
    char name[BW_MAX_TOKEN_NAME + 1];
    int64_t id = 0, *ids = NULL;
    size_t n = 0;
    int rc = store_open(cfg->db_path, 1, &st, cause);
    if (rc < 0)
        return rc;
    rc = store_worker_find(st, a->command_arg, &id, cause);
    if (rc == BW_OK)
        rc = admin_delete_worker(st, id, name, &ids, &n, cause);
    store_close(st);
    if (rc == BW_OK)
        printf("worker %s deleted; %zu job%s it held went back to the queue\n", name, n,
               n == 1 ? "" : "s");
    free(ids);
    return rc;
}

/* unlock and unlock-address: the lockouts live in the running server's
 * memory, so the request goes through the database, where its ticker picks
 * it up within a second (server.c, apply_unlocks). */
static int unlock(const struct server_config *cfg, const struct args *a, bool address, char **cause)
{
    unsigned char buf[sizeof(struct in6_addr)];
    const char *key = a->command_arg;
    if (address && inet_pton(AF_INET, key, buf) != 1 && inet_pton(AF_INET6, key, buf) != 1)
        return bw_fail(cause, BW_ERR_INVALID, "\"%s\" is not a numeric IPv4 or IPv6 address", key);
    if (!address && (!*key || strlen(key) > BW_MAX_USERNAME))
        return bw_fail(cause, BW_ERR_INVALID, "\"%s\" is not a user name", key);
    struct store *st = NULL;
    int rc = store_open(cfg->db_path, 1, &st, cause);
    if (rc < 0)
        return rc;
    /* The lockouts live in the running server's memory (SQLite) or in the
     * store's rows (PostgreSQL, shared): either way one running server takes
     * the request from the store within a second and lifts the lockout. */
    bool shared = store_shared(st);
    rc = store_unlock_request(st, address, key, (int64_t)time(NULL), cause);
    store_close(st);
    if (rc == BW_OK)
        printf("sign-ins %s %s: unlocked by %s within a second%s\n", address ? "from" : "as", key,
               shared ? "a running server" : "the running server",
               shared ? "" : " (a server started later has no lockouts yet)");
    return rc;
}

/* export and import (store.h): the whole database as JSON lines. */
static int dump(const struct server_config *cfg, const struct args *a, bool out, char **cause)
{
    const char *path = a->command_arg;
    bool std = strcmp(path, "-") == 0;
    FILE *f = std ? (out ? stdout : stdin) : fopen(path, out ? "wx" : "r");
    if (!f)
        return bw_fail(cause, BW_ERR_IO, "%s: %s%s", path, strerror(errno),
                       out && errno == EEXIST ? " (export writes a new file)" : "");
    struct store *st = NULL;
    int64_t rows = 0;
    int rc = store_open(cfg->db_path, 1, &st, cause);
    if (rc == BW_OK)
        rc = out ? store_export(st, f, &rows, cause) : store_import(st, f, &rows, cause);
    const char *backend = st ? store_backend_name(st) : "";
    store_close(st);
    if (!std && fclose(f) != 0 && rc == BW_OK)
        rc = bw_fail(cause, BW_ERR_IO, "%s: %s", path, strerror(errno));
    if (rc < 0 && out && !std)
        unlink(path);
    if (rc == BW_OK)
        fprintf(stderr, "%s %lld rows %s %s (%s)\n", out ? "exported" : "imported", (long long)rows,
                out ? "to" : "from", path, backend);
    return rc;
}

/* --check-config: what server_start would check before it opens anything,
 * and the problems loaded as it would load them (without the database).
 * Returns the exit status. */
static int check_config(const struct server_config *cfg)
{
    char *warnings = NULL, *cause = NULL;
    int n_warnings = 0;
    if (config_check_paths(cfg, &warnings, &cause) < 0) {
        fprintf(stderr, "blockwise-server: %s\n", cause);
        free(cause);
        return 2;
    }
    /* A PostgreSQL database must answer, at a schema this binary can run. */
    int version = 0;
    if (store_check(cfg->db_path, &version, &cause) < 0) {
        fprintf(stderr, "blockwise-server: database: %s\n", cause);
        free(cause);
        free(warnings);
        return 2;
    }
    struct problem_set *set = NULL;
    if (problems_load(cfg->problems_dir, NULL, &set, &cause) < 0) {
        fprintf(stderr, "blockwise-server: %s\n", cause);
        free(cause);
        free(warnings);
        return 2;
    }
    for (const char *w = warnings; w && *w;) {
        size_t n = strcspn(w, "\n");
        fprintf(stderr, "warning: %.*s\n", (int)n, w);
        n_warnings++;
        w += n + (w[n] == '\n');
    }
    free(warnings);
    for (size_t i = 0; i < set->n_failed; i++, n_warnings++)
        fprintf(stderr, "warning: problems: %s: not served: %s\n", set->failed[i].dir,
                set->failed[i].error);
    int status = 0;
    if (set->n == 0) {
        fprintf(stderr, "blockwise-server: problems: none of the %zu directories in %s loads\n",
                set->n_failed, cfg->problems_dir);
        status = 2;
    } else {
        char *dump = config_dump(cfg);
        fputs(dump ? dump : "", stdout);
        free(dump);
        printf("%zu problems to serve, %zu failed to load\n", set->n, set->n_failed);
        if (strncmp(cfg->db_path, "postgres", 8) == 0)
            printf("database: PostgreSQL answers, schema version %d (this server's: %d)\n", version,
                   store_schema_latest());
        if (n_warnings)
            printf("configuration OK, with %d warning%s (above)\n", n_warnings,
                   n_warnings == 1 ? "" : "s");
        else
            printf("configuration OK\n");
    }
    problems_set_unref_unlocked(set);
    return status;
}

/* Many event streams need many descriptors: raise the soft limit to the hard one. */
static void raise_nofile(void)
{
    struct rlimit rl;
    if (getrlimit(RLIMIT_NOFILE, &rl) == 0 && rl.rlim_cur < rl.rlim_max) {
        rl.rlim_cur = rl.rlim_max;
        setrlimit(RLIMIT_NOFILE, &rl);
    }
}

static int serve(const struct server_config *cfg)
{
    sigset_t set;
    sigemptyset(&set);
    sigaddset(&set, SIGTERM);
    sigaddset(&set, SIGINT);
    sigaddset(&set, SIGHUP);
    /* Blocked before any thread starts, so every thread inherits the mask
     * and only sigwait below sees them. */
    pthread_sigmask(SIG_BLOCK, &set, NULL);
    signal(SIGPIPE, SIG_IGN);
    raise_nofile();
    struct server *s = NULL;
    char *cause = NULL;
    if (server_start(cfg, &s, &cause) < 0) {
        log_error("server: cannot start: %s", cause);
        free(cause);
        return 1;
    }
    for (;;) {
        int sig = 0;
        if (sigwait(&set, &sig) != 0)
            continue;
        if (sig == SIGHUP) {
            log_info("server: SIGHUP: reloading problems");
            server_reload(s);
            continue;
        }
        log_info("server: %s: stopping", sig == SIGTERM ? "SIGTERM" : "SIGINT");
        break;
    }
    server_stop(s);
    log_info("server: stopped");
    return 0;
}

int main(int argc, char **argv)
{
    struct server_config cfg;
    struct args a = {0};
    char *cause = NULL;
    int status = 0;
    config_init(&cfg);
    log_init("blockwise-server", LOG_INFO, LOG_FORMAT_TEXT);
    if (sodium_init() < 0) {
        log_error("libsodium failed to initialise");
        return 1;
    }
    if (parse_args(argc, argv, &cfg, &a, &cause) < 0) {
        fprintf(stderr, "blockwise-server: %s\n", cause);
        usage(stderr);
        free(cause);
        config_release(&cfg);
        return 2;
    }
    log_init("blockwise-server", cfg.log_level, cfg.log_format);
    if (a.check) {
        status = check_config(&cfg);
    } else if (a.command && strcmp(a.command, "create-admin") == 0) {
        if (create_admin(&cfg, &a, &cause) < 0) {
            fprintf(stderr, "blockwise-server: create-admin: %s\n", cause);
            status = 1;
        }
    } else if (a.command) {
        int rc = strcmp(a.command, "create-worker") == 0    ? worker_token(&cfg, &a, true, &cause)
                 : strcmp(a.command, "rotate-worker") == 0  ? worker_token(&cfg, &a, false, &cause)
                 : strcmp(a.command, "delete-worker") == 0  ? delete_worker(&cfg, &a, &cause)
                 : strcmp(a.command, "unlock-address") == 0 ? unlock(&cfg, &a, true, &cause)
                 : strcmp(a.command, "export") == 0         ? dump(&cfg, &a, true, &cause)
                 : strcmp(a.command, "import") == 0         ? dump(&cfg, &a, false, &cause)
                                                            : unlock(&cfg, &a, false, &cause);
        if (rc < 0) {
            fprintf(stderr, "blockwise-server: %s: %s\n", a.command, cause);
            status = 1;
        }
    } else {
        status = serve(&cfg);
    }
    free(cause);
    config_release(&cfg);
    return status;
}
