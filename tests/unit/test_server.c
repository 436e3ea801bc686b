/* Tests of the server's modules without sockets: config, routes, JSON
 * helpers, bundles and hashes, the database and its migrations, the queue's
 * leases, auth helpers, sign-in throttling, client addresses behind proxies,
 * static paths, Markdown, the problem set. */
#include "tests/test.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <pthread.h>
#include <time.h>
#include <unistd.h>

#include <sodium.h>
#include <sqlite3.h>

#include "common/error.h"
#include "common/sha256.h"
#include "common/util.h"
#include "problem/bundle.h"
#include "server/api.h"
#include "server/arena.h"
#include "server/auth.h"
#include "server/bodies.h"
#include "server/config.h"
#include "server/files.h"
#include "server/http.h"
#include "server/problems.h"
#include "server/store/db.h"
#include "server/store/db_backend.h"
#include "server/store/queue.h"
#include "server/store/store.h"
#include "server/throttle.h"
#include "common/banned.h"

/* A fresh temporary directory (new string). */
static char *temp_dir(void)
{
    char tmpl[] = "/tmp/bw-test-server.XXXXXX";
    char *d = mkdtemp(tmpl);
    return d ? strdup(d) : NULL;
}

static void rm_rf(const char *dir)
{
    char cmd[512];
    snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
    if (system(cmd) != 0)
        fprintf(stderr, "cannot remove %s\n", dir);
}

/* The storage tests run on both backends: the SQLite file, and with
 * BW_TEST_PG (the base URI of the cluster tests/run-suite.sh starts) a new
 * PostgreSQL database made with psql. */
static const char *pg_why(void)
{
    const char *base = getenv("BW_TEST_PG");
    if (!base || !*base)
        return "no PostgreSQL test cluster (BW_TEST_PG unset: tests/run-suite.sh starts one when "
               "PostgreSQL is installed)";
    return NULL;
}

/* A new database for one test: a SQLite file in dir, or a new PostgreSQL
 * database (NULL if it cannot be made). New string. */
static char *test_database(const char *dir, bool pg)
{
    if (!pg)
        return path_join(dir, "q.db");
    static int serial;
    const char *base = getenv("BW_TEST_PG");
    char name[64], cmd[1024];
    snprintf(name, sizeof(name), "bw_unit_%ld_%d", (long)getpid(), ++serial);
    snprintf(cmd, sizeof(cmd),
             "psql -q -X \"%s\" -c 'DROP DATABASE IF EXISTS %s' -c 'CREATE DATABASE %s' "
             ">/dev/null 2>&1",
             base, name, name);
    if (system(cmd) != 0)
        return NULL;
    const char *q = strstr(base, ":///postgres?");
    if (!q)
        return NULL;
    char *uri = NULL;
    if (asprintf(&uri, "%.*s:///%s?%s", (int)(q - base), base, name, q + 13) < 0)
        return NULL;
    return uri;
}

/* Declares TEST(name) (SQLite) and TEST(name_postgresql) over name_on(bool pg). */
#define STORAGE_TEST(name)                                                                         \
    static void name##_on(bool pg);                                                                \
    TEST(name)                                                                                     \
    {                                                                                              \
        name##_on(false);                                                                          \
    }                                                                                              \
    TEST(name##_postgresql)                                                                        \
    {                                                                                              \
        if (pg_why())                                                                              \
            SKIP(pg_why());                                                                        \
        name##_on(true);                                                                           \
    }                                                                                              \
    static void name##_on(bool pg)

TEST(config_file_flags_and_errors)
{
    struct server_config c;
    char *cause = NULL;
    char *dir = temp_dir();
    char *path = path_join(dir, "s.conf");
    const char *text = "# comment\n\nport = 9000  # trailing\nsignup = no\n"
                       "database = \"/var/lib/blockwise/db # not a comment\"\n";
    CHECK_INT_EQ(write_file_atomic(path, text, strlen(text), &cause), BW_OK);
    config_init(&c);
    CHECK_INT_EQ(config_load_file(&c, path, &cause), BW_OK);
    CHECK_INT_EQ(c.port, 9000);
    CHECK(!c.signup);
    CHECK_STR_EQ(c.db_path, "/var/lib/blockwise/db # not a comment");
    CHECK_INT_EQ(config_set(&c, "lease", "2", &cause), BW_ERR_INVALID);
    CHECK_CONTAINS(cause, "lease: \"2\" is not an integer in 3..3600");
    CHECK_INT_EQ(c.lease_s, 12); /* a lost worker's job is requeued within 15 s */
    CHECK_INT_EQ(config_set(&c, "nope", "1", &cause), BW_ERR_INVALID);
    CHECK_CONTAINS(cause, "unknown key \"nope\"");
    /* A claim may wait longer than a lease lasts: a waiting worker is seen alive. */
    CHECK_INT_EQ(config_set(&c, "claim_wait", "200", &cause), BW_OK);
    CHECK_INT_EQ(config_validate(&c, &cause), BW_OK);
    CHECK_INT_EQ(config_set(&c, "signin_lockout", "1000", &cause), BW_OK);
    CHECK_INT_EQ(config_validate(&c, &cause), BW_ERR_INVALID);
    CHECK_CONTAINS(cause, "signin_lockout");
    char *dump = config_dump(&c);
    CHECK_CONTAINS(dump, "port = 9000\n");
    free(dump);
    config_release(&c);

    const char *bad = "port = 80\nthreads\n";
    CHECK_INT_EQ(write_file_atomic(path, bad, strlen(bad), &cause), BW_OK);
    config_init(&c);
    CHECK_INT_EQ(config_load_file(&c, path, &cause), BW_ERR_INVALID);
    CHECK_CONTAINS(cause, "s.conf:2: expected \"key = value\"");
    config_release(&c);
    free(cause);
    free(path);
    rm_rf(dir);
    free(dir);
}

TEST(config_refuses_what_would_fail)
{
    struct server_config c;
    char *cause = NULL, *warnings = NULL;
    char *dir = temp_dir();
    char *path = path_join(dir, "s.conf");
    char text[1024];

    /* A key set twice is an error naming both lines, not last-wins. */
    const char *dup = "port = 9000\nthreads = 2\n# again:\nport = 9001\n";
    CHECK_INT_EQ(write_file_atomic(path, dup, strlen(dup), &cause), BW_OK);
    config_init(&c);
    CHECK_INT_EQ(config_load_file(&c, path, &cause), BW_ERR_INVALID);
    CHECK_CONTAINS(cause, "s.conf:4: \"port\" is set twice (first on line 1)");
    config_release(&c);

    /* Addresses are checked by config_validate. */
    config_init(&c);
    CHECK_INT_EQ(config_set(&c, "listen", "not-an-ip", &cause), BW_OK);
    CHECK_INT_EQ(config_validate(&c, &cause), BW_ERR_INVALID);
    CHECK_CONTAINS(cause, "listen: \"not-an-ip\" is not a numeric IPv4 or IPv6 address");
    CHECK_INT_EQ(config_set(&c, "listen", "::1", &cause), BW_OK);
    CHECK_INT_EQ(config_set(&c, "trusted_proxies", "127.0.0.1, ::1 10.0.0.2", &cause), BW_OK);
    CHECK_INT_EQ(config_validate(&c, &cause), BW_OK);
    CHECK_INT_EQ(config_set(&c, "trusted_proxies", "127.0.0.1,proxy", &cause), BW_OK);
    CHECK_INT_EQ(config_validate(&c, &cause), BW_ERR_INVALID);
    CHECK_CONTAINS(cause, "trusted_proxies: \"proxy\"");
    CHECK_INT_EQ(config_set(&c, "trusted_proxies", "", &cause), BW_OK);
    CHECK_INT_EQ(config_set(&c, "signin_lockout", "1000", &cause), BW_OK);
    CHECK_INT_EQ(config_validate(&c, &cause), BW_ERR_INVALID);
    CHECK_CONTAINS(cause, "signin_lockout (1000 s) must not be longer than signin_window");
    config_release(&c);

    /* Paths: problems, database directory, web. */
    snprintf(text, sizeof(text), "mkdir -p '%s/p/one' '%s/empty' '%s/web' '%s/db'", dir, dir, dir,
             dir);
    CHECK(system(text) == 0);
    config_init(&c);
    free(c.problems_dir);
    c.problems_dir = path_join(dir, "p");
    free(c.db_path);
    c.db_path = path_join(dir, "db/x.db");
    free(c.web_dir);
    c.web_dir = path_join(dir, "web");
    CHECK_INT_EQ(config_check_paths(&c, &warnings, &cause), BW_OK);
    CHECK_CONTAINS(warnings, "has no index.html");
    free(warnings);
    free(c.web_dir);
    c.web_dir = strdup("");
    CHECK_INT_EQ(config_check_paths(&c, &warnings, &cause), BW_OK);
    CHECK(warnings == NULL);
    free(c.web_dir);
    c.web_dir = path_join(dir, "no-web");
    CHECK_INT_EQ(config_check_paths(&c, &warnings, &cause), BW_OK);
    CHECK_CONTAINS(warnings, "no-web: No such file or directory: every page");
    free(warnings);
    free(c.db_path);
    c.db_path = path_join(dir, "missing/x.db");
    CHECK_INT_EQ(config_check_paths(&c, &warnings, &cause), BW_ERR_INVALID);
    CHECK_CONTAINS(cause, "database: the directory");
    CHECK_CONTAINS(cause, "missing of");
    free(c.db_path);
    c.db_path = strdup("relative.db"); /* its directory is "." */
    free(c.problems_dir);
    c.problems_dir = path_join(dir, "empty");
    CHECK_INT_EQ(config_check_paths(&c, &warnings, &cause), BW_ERR_INVALID);
    CHECK_CONTAINS(cause, "holds no problem directories");
    free(c.problems_dir);
    c.problems_dir = path_join(dir, "nope");
    CHECK_INT_EQ(config_check_paths(&c, &warnings, &cause), BW_ERR_INVALID);
    CHECK_CONTAINS(cause, "problems: ");
    CHECK_CONTAINS(cause, "No such file or directory");
    config_release(&c);

    /* --help's key list: every key, its range and its default. */
    char *help = config_help();
    CHECK_CONTAINS(help, "signin_address_failures");
    CHECK_CONTAINS(help, "(0..1000000; default 20)");
    CHECK_CONTAINS(help, "(yes or no; default yes)");
    CHECK_CONTAINS(help, "trusted_proxies");
    free(help);
    free(cause);
    free(path);
    rm_rf(dir);
    free(dir);
}

/* A throttle in memory, or shared in a store (throttle.h) on SQLite or
 * PostgreSQL: the same answers. */
struct shared_fixture {
    char *dir, *path;
    struct store *st;
};

static struct throttle *new_throttle(const struct throttle_policy *p, int where,
                                     struct shared_fixture *f)
{
    char *cause = NULL;
    memset(f, 0, sizeof(*f));
    if (where == 0)
        return throttle_new(p);
    f->dir = temp_dir();
    f->path = test_database(f->dir, where == 2);
    if (!f->path || store_open(f->path, 2, &f->st, &cause) < 0) {
        free(cause);
        return NULL;
    }
    struct throttle *t = throttle_new_shared(p, f->st, &cause);
    free(cause);
    return t;
}

static void shared_release(struct shared_fixture *f)
{
    store_close(f->st);
    if (f->dir)
        rm_rf(f->dir);
    free(f->dir);
    free(f->path);
}

/* Runs a throttle test on memory, a store on SQLite, and (BW_TEST_PG) PostgreSQL. */
#define THROTTLE_TEST(name)                                                                        \
    static void name##_on(int where);                                                              \
    TEST(name)                                                                                     \
    {                                                                                              \
        name##_on(0);                                                                              \
    }                                                                                              \
    TEST(name##_shared_sqlite)                                                                     \
    {                                                                                              \
        name##_on(1);                                                                              \
    }                                                                                              \
    TEST(name##_shared_postgresql)                                                                 \
    {                                                                                              \
        if (pg_why())                                                                              \
            SKIP(pg_why());                                                                        \
        name##_on(2);                                                                              \
    }                                                                                              \
    static void name##_on(int where)

THROTTLE_TEST(throttle_names_addresses_and_lockouts)
{
    CHECK(sodium_init() >= 0);
    struct throttle_policy p = {3, 5, 10, 60};
    struct shared_fixture fx;
    struct throttle *t = new_throttle(&p, where, &fx);
    CHECK(t != NULL);
    if (!t)
        return;
    enum throttle_scope scope;
    bool trusted = false;
    int64_t now = 1000000; /* ms */
    /* Three failures of one name lock it for 10 s, from any address. */
    for (int i = 0; i < 3; i++) {
        CHECK_INT_EQ(throttle_begin(t, "admin", "192.0.2.1", NULL, now, &scope, &trusted), 0);
        CHECK_INT_EQ(throttle_end(t, "admin", "192.0.2.1", NULL, THROTTLE_WRONG, now, &scope),
                     i == 2 ? 10 : 0);
    }
    CHECK_INT_EQ(throttle_begin(t, "admin", "198.51.100.7", NULL, now + 1000, &scope, &trusted), 9);
    CHECK_INT_EQ(scope, THROTTLE_ACCOUNT);
    CHECK_INT_EQ(throttle_begin(t, "admin", "192.0.2.1", NULL, now + 9500, &scope, &trusted),
                 1); /* rounded up */
    /* Another name from the same address still goes (3 of its 5). */
    CHECK_INT_EQ(throttle_begin(t, "alice", "192.0.2.1", NULL, now + 1000, &scope, &trusted), 0);
    throttle_end(t, "alice", "192.0.2.1", NULL, THROTTLE_RIGHT, now + 1000, &scope);
    /* After the lockout, one more try; failing doubles it. */
    now += 10000;
    CHECK_INT_EQ(throttle_begin(t, "admin", "192.0.2.2", NULL, now, &scope, &trusted), 0);
    CHECK_INT_EQ(throttle_begin(t, "admin", "192.0.2.3", NULL, now, &scope, &trusted),
                 1); /* one at a time now */
    CHECK_INT_EQ(throttle_end(t, "admin", "192.0.2.2", NULL, THROTTLE_WRONG, now, &scope), 20);
    CHECK_INT_EQ(throttle_begin(t, "admin", "192.0.2.2", NULL, now, &scope, &trusted), 20);
    /* Doubling stops at the window. */
    now += 20000;
    CHECK_INT_EQ(throttle_begin(t, "admin", "192.0.2.4", NULL, now, &scope, &trusted), 0);
    CHECK_INT_EQ(throttle_end(t, "admin", "192.0.2.4", NULL, THROTTLE_WRONG, now, &scope), 40);
    now += 40000;
    CHECK_INT_EQ(throttle_begin(t, "admin", "192.0.2.5", NULL, now, &scope, &trusted), 0);
    CHECK_INT_EQ(throttle_end(t, "admin", "192.0.2.5", NULL, THROTTLE_WRONG, now, &scope), 60);
    /* The right password clears the name. */
    now += 60000;
    CHECK_INT_EQ(throttle_begin(t, "admin", "192.0.2.6", NULL, now, &scope, &trusted), 0);
    throttle_end(t, "admin", "192.0.2.6", NULL, THROTTLE_RIGHT, now, &scope);
    CHECK_INT_EQ(throttle_begin(t, "admin", "192.0.2.6", NULL, now, &scope, &trusted), 0);
    throttle_end(t, "admin", "192.0.2.6", NULL, THROTTLE_WRONG, now, &scope);
    CHECK_INT_EQ(throttle_begin(t, "admin", "192.0.2.6", NULL, now, &scope, &trusted),
                 0); /* 1 of 3 again */
    throttle_end(t, "admin", "192.0.2.6", NULL, THROTTLE_UNCHECKED, now, &scope);

    /* Five failures from one address, under five names, lock the address;
     * a right password for one of them does not buy more. */
    now += 1000;
    const char *names[] = {"n1", "n2", "n3", "n4", "n5"};
    for (int i = 0; i < 5; i++) {
        CHECK_INT_EQ(throttle_begin(t, names[i], "203.0.113.9", NULL, now, &scope, &trusted), 0);
        if (i == 2) {
            throttle_end(t, names[i], "203.0.113.9", NULL, THROTTLE_RIGHT, now, &scope);
            CHECK_INT_EQ(throttle_begin(t, names[i], "203.0.113.9", NULL, now, &scope, &trusted),
                         0);
        }
        throttle_end(t, names[i], "203.0.113.9", NULL, THROTTLE_WRONG, now, &scope);
    }
    CHECK_INT_EQ(throttle_begin(t, "fresh", "203.0.113.9", NULL, now, &scope, &trusted), 10);
    CHECK_INT_EQ(scope, THROTTLE_ADDRESS);
    CHECK_INT_EQ(throttle_begin(t, "fresh", "203.0.113.10", NULL, now, &scope, &trusted), 0);
    throttle_end(t, "fresh", "203.0.113.10", NULL, THROTTLE_RIGHT, now, &scope);
    /* Failures are forgotten a window after the last. */
    now += 60000;
    CHECK_INT_EQ(throttle_begin(t, "fresh", "203.0.113.9", NULL, now, &scope, &trusted), 0);
    throttle_end(t, "fresh", "203.0.113.9", NULL, THROTTLE_WRONG, now, &scope);
    CHECK_INT_EQ(throttle_begin(t, "fresh", "203.0.113.9", NULL, now, &scope, &trusted), 0);
    throttle_end(t, "fresh", "203.0.113.9", NULL, THROTTLE_UNCHECKED, now, &scope);

    /* A burst in flight cannot run past the failures left: 3 reserved, the
     * 4th waits. */
    now += 1000;
    for (int i = 0; i < 3; i++)
        CHECK_INT_EQ(throttle_begin(t, "burst", "198.51.100.1", NULL, now, &scope, &trusted), 0);
    CHECK_INT_EQ(throttle_begin(t, "burst", "198.51.100.2", NULL, now, &scope, &trusted), 1);
    for (int i = 0; i < 3; i++)
        throttle_end(t, "burst", "198.51.100.1", NULL, THROTTLE_WRONG, now, &scope);
    CHECK_INT_EQ(throttle_begin(t, "burst", "198.51.100.2", NULL, now, &scope, &trusted), 10);
    throttle_free(t);

    /* 0 switches a scope off. */
    struct throttle_policy off = {0, 0, 10, 60};
    t = throttle_new(&off);
    for (int i = 0; i < 50; i++) {
        CHECK_INT_EQ(throttle_begin(t, "admin", "192.0.2.1", NULL, now, &scope, &trusted), 0);
        throttle_end(t, "admin", "192.0.2.1", NULL, THROTTLE_WRONG, now, &scope);
    }
    throttle_free(t);
    throttle_free(NULL);
    shared_release(&fx);
}

/* A full table makes room with the oldest slot that is not locked out: a
 * flood of single guesses at other names cannot erase a lockout. */
TEST(throttle_table_full_keeps_lockouts)
{
    CHECK(sodium_init() >= 0);
    struct throttle_policy p = {2, 0, 100, 1000};
    struct throttle *t = throttle_new(&p);
    enum throttle_scope scope;
    bool trusted = false;
    int64_t now = 5000000;
    char name[32];
    for (int i = 0; i < 2; i++) {
        CHECK_INT_EQ(throttle_begin(t, "victim", "192.0.2.1", NULL, now, &scope, &trusted), 0);
        throttle_end(t, "victim", "192.0.2.1", NULL, THROTTLE_WRONG, now, &scope);
    }
    int refused = 0;
    for (int i = 0; i < 2 * BW_MAX_THROTTLE_ENTRIES; i++) {
        snprintf(name, sizeof(name), "flood%d", i);
        if (throttle_begin(t, name, "192.0.2.1", NULL, now + 1 + i, &scope, &trusted) != 0)
            refused++;
        else
            throttle_end(t, name, "192.0.2.1", NULL, THROTTLE_WRONG, now + 1 + i, &scope);
    }
    CHECK_INT_EQ(refused, 0); /* one failure each: none is locked out */
    CHECK_INT_EQ(throttle_begin(t, "victim", "192.0.2.1", NULL, now + 50000, &scope, &trusted), 50);
    /* The newest flood names are still counted (their second failure locks). */
    snprintf(name, sizeof(name), "flood%d", 2 * BW_MAX_THROTTLE_ENTRIES - 1);
    CHECK_INT_EQ(throttle_begin(t, name, "192.0.2.1", NULL, now + 50000, &scope, &trusted), 0);
    CHECK_INT_EQ(throttle_end(t, name, "192.0.2.1", NULL, THROTTLE_WRONG, now + 50000, &scope),
                 100);
    throttle_free(t);
}

THROTTLE_TEST(throttle_spares_known_devices_and_forgives_own_typos)
{
    struct throttle_policy p = {3, 5, 10, 60};
    struct shared_fixture fx;
    struct throttle *t = new_throttle(&p, where, &fx);
    CHECK(t != NULL);
    if (!t)
        return;
    enum throttle_scope scope;
    bool trusted = false;
    int64_t now = 1000000;
    /* A guesser locks the admin's name and the address they share. */
    for (int i = 0; i < 5; i++) {
        CHECK_INT_EQ(
            throttle_begin(t, i < 3 ? "admin" : "other", "192.0.2.1", NULL, now, &scope, &trusted),
            0);
        throttle_end(t, i < 3 ? "admin" : "other", "192.0.2.1", NULL, THROTTLE_WRONG, now, &scope);
    }
    CHECK(throttle_begin(t, "admin", "192.0.2.9", NULL, now, &scope, &trusted) > 0);
    CHECK(throttle_begin(t, "kim", "192.0.2.1", NULL, now, &scope, &trusted) > 0);
    /* The admin's own browser, from the same address, still gets in. */
    CHECK_INT_EQ(throttle_begin(t, "admin", "192.0.2.1", "nonce-admin", now, &scope, &trusted), 0);
    CHECK(trusted);
    throttle_end(t, "admin", "192.0.2.1", "nonce-admin", THROTTLE_RIGHT, now, &scope);
    CHECK(throttle_begin(t, "admin", "192.0.2.9", NULL, now, &scope, &trusted) > 0); /* still */
    /* A known device that fails on its own is locked out as a device... */
    for (int i = 0; i < 3; i++) {
        CHECK_INT_EQ(throttle_begin(t, "admin", "192.0.2.1", "nonce-lost", now, &scope, &trusted),
                     0);
        int lock = throttle_end(t, "admin", "192.0.2.1", "nonce-lost", THROTTLE_WRONG, now, &scope);
        CHECK_INT_EQ(lock, i == 2 ? 10 : 0);
    }
    CHECK_INT_EQ(scope, THROTTLE_DEVICE);
    /* ... and is then an unknown device: the name's lockout applies. */
    CHECK(throttle_begin(t, "admin", "192.0.2.1", "nonce-lost", now, &scope, &trusted) > 0);
    CHECK(!trusted);
    /* An admin lifts the lockouts. */
    CHECK(throttle_unlock(t, THROTTLE_ACCOUNT, "admin"));
    CHECK(!throttle_unlock(t, THROTTLE_ACCOUNT, "admin"));
    CHECK_INT_EQ(throttle_begin(t, "admin", "192.0.2.9", NULL, now, &scope, &trusted), 0);
    throttle_end(t, "admin", "192.0.2.9", NULL, THROTTLE_UNCHECKED, now, &scope);
    CHECK(throttle_unlock(t, THROTTLE_ADDRESS, "192.0.2.1"));
    CHECK_INT_EQ(throttle_begin(t, "kim", "192.0.2.1", NULL, now, &scope, &trusted), 0);
    throttle_end(t, "kim", "192.0.2.1", NULL, THROTTLE_UNCHECKED, now, &scope);
    /* A class behind one address, each learner mistyping once and then
     * signing in: their typos are forgiven, the address never locks (5). */
    char name[32];
    for (int i = 0; i < 8; i++) {
        snprintf(name, sizeof(name), "learner%d", i);
        CHECK_INT_EQ(throttle_begin(t, name, "198.51.100.1", NULL, now, &scope, &trusted), 0);
        throttle_end(t, name, "198.51.100.1", NULL, THROTTLE_WRONG, now, &scope);
        CHECK_INT_EQ(throttle_begin(t, name, "198.51.100.1", NULL, now, &scope, &trusted), 0);
        throttle_end(t, name, "198.51.100.1", NULL, THROTTLE_RIGHT, now, &scope);
    }
    /* A guesser's failures are not forgiven by signing in to their own account. */
    for (int i = 0; i < 4; i++) {
        snprintf(name, sizeof(name), "victim%d", i);
        CHECK_INT_EQ(throttle_begin(t, name, "198.51.100.2", NULL, now, &scope, &trusted), 0);
        throttle_end(t, name, "198.51.100.2", NULL, THROTTLE_WRONG, now, &scope);
    }
    CHECK_INT_EQ(throttle_begin(t, "mallory", "198.51.100.2", NULL, now, &scope, &trusted), 0);
    throttle_end(t, "mallory", "198.51.100.2", NULL, THROTTLE_RIGHT, now, &scope);
    CHECK_INT_EQ(throttle_begin(t, "victim9", "198.51.100.2", NULL, now, &scope, &trusted), 0);
    CHECK_INT_EQ(throttle_end(t, "victim9", "198.51.100.2", NULL, THROTTLE_WRONG, now, &scope), 10);
    CHECK_INT_EQ(scope, THROTTLE_ADDRESS);
    throttle_free(t);
    shared_release(&fx);
}

THROTTLE_TEST(rate_limit_is_a_token_bucket_per_address)
{
    struct shared_fixture fx;
    struct throttle_policy unused = {1, 1, 1, 1};
    throttle_free(new_throttle(&unused, where, &fx));
    char *cause = NULL;
    struct rate_limit *r = where ? rate_new_shared(3, 30, fx.st, &cause)
                                 : rate_new(3, 30); /* 3 at once, then one every 10 s */
    free(cause);
    CHECK(r != NULL);
    if (!r)
        return;
    int64_t now = 1000000;
    for (int i = 0; i < 3; i++)
        CHECK_INT_EQ(rate_take(r, "192.0.2.1", now), 0);
    CHECK_INT_EQ(rate_take(r, "192.0.2.1", now), 10);
    CHECK_INT_EQ(rate_take(r, "192.0.2.2", now), 0); /* another address */
    CHECK_INT_EQ(rate_take(r, "2001:db8::1", now), 0);
    CHECK_INT_EQ(rate_take(r, "2001:db8::2", now), 0); /* the same /64 */
    CHECK_INT_EQ(rate_take(r, "2001:db8::3", now), 0);
    CHECK_INT_EQ(rate_take(r, "2001:db8::4", now), 10);
    CHECK_INT_EQ(rate_take(r, "192.0.2.1", now + 4000), 6);
    CHECK_INT_EQ(rate_take(r, "192.0.2.1", now + 10000), 0);
    CHECK_INT_EQ(rate_take(r, "192.0.2.1", now + 10000), 10);
    rate_give_back(r, "192.0.2.1", now + 10000);
    CHECK_INT_EQ(rate_take(r, "192.0.2.1", now + 10000), 0);
    rate_free(r);
    struct rate_limit *off = rate_new(0, 30);
    for (int i = 0; i < 100; i++)
        CHECK_INT_EQ(rate_take(off, "192.0.2.1", now), 0);
    rate_free(off);
    rate_free(NULL);
    shared_release(&fx);
}

TEST(client_address_behind_trusted_proxies)
{
    char out[HTTP_ADDR_CHARS];
    http_client_address("203.0.113.5", "1.2.3.4", "", out);
    CHECK_STR_EQ(out, "203.0.113.5"); /* no trusted proxy: X-Forwarded-For is ignored */
    http_client_address("203.0.113.5", "1.2.3.4", "127.0.0.1", out);
    CHECK_STR_EQ(out, "203.0.113.5"); /* the peer is not the proxy */
    http_client_address("127.0.0.1", "198.51.100.7", "127.0.0.1", out);
    CHECK_STR_EQ(out, "198.51.100.7");
    http_client_address("127.0.0.1", "6.6.6.6, 198.51.100.7", "127.0.0.1", out);
    CHECK_STR_EQ(out, "198.51.100.7"); /* what the client claimed is left of the proxy's entry */
    http_client_address("127.0.0.1", "6.6.6.6, 198.51.100.7 , 10.0.0.2", "127.0.0.1 10.0.0.2", out);
    CHECK_STR_EQ(out, "198.51.100.7"); /* a chain of trusted proxies */
    http_client_address("127.0.0.1", "6.6.6.6, junk", "127.0.0.1", out);
    CHECK_STR_EQ(out, "127.0.0.1"); /* a malformed entry stops at the proxy */
    http_client_address("127.0.0.1", NULL, "127.0.0.1", out);
    CHECK_STR_EQ(out, "127.0.0.1");
    http_client_address("::ffff:127.0.0.1", "2001:db8::1", "127.0.0.1", out);
    CHECK_STR_EQ(out, "2001:db8::1"); /* an IPv4-mapped peer matches its IPv4 */
    http_client_address("::1", "::ffff:192.0.2.1", "::1", out);
    CHECK_STR_EQ(out, "192.0.2.1");
    throttle_address_key("2001:db8:1:2:3:4:5:6", out);
    CHECK_STR_EQ(out, "2001:db8:1:2::/64");
    throttle_address_key("::ffff:192.0.2.9", out);
    CHECK_STR_EQ(out, "192.0.2.9");
    throttle_address_key("192.0.2.9", out);
    CHECK_STR_EQ(out, "192.0.2.9");
    CHECK(http_log_peer_gone("Connection was closed by remote side with incomplete request."));
    CHECK(http_log_peer_gone("Failed to send the chunked response body for the request for "
                             "`/x'. Error: The socket is no longer available for sending"));
    CHECK(http_log_peer_gone("Connection socket is closed when reading request due to the "
                             "error: The connection was forcibly closed by remote peer"));
    CHECK(!http_log_peer_gone("Failed to bind to port 8080: Address already in use"));
    CHECK(!http_log_peer_gone("Not enough memory in pool to allocate header record!"));
}

static int h_dummy(struct http_request *req, struct http_response *res)
{
    (void)req;
    (void)res;
    return 200;
}

TEST(routes_404_405_params_and_fallback)
{
    static const struct route routes[] = {
        {HTTP_GET, "/api/problems", h_dummy, 0, 0},
        {HTTP_GET, "/api/problems/{}", h_dummy, 0, 0},
        {HTTP_POST, "/api/submissions", h_dummy, 10, 0},
        {HTTP_GET, "/api/submissions/{}/events", h_dummy, 0, 0},
        {HTTP_GET, "/*", h_dummy, 0, 0},
    };
    size_t n = sizeof(routes) / sizeof(routes[0]);
    struct arena *a = arena_new();
    const char *params[HTTP_MAX_PARAMS];
    int np = 0, status = 0;
    const char *allow = NULL;
    const struct route *r = http_route_match(routes, n, HTTP_GET, "/api/problems/softmax", a,
                                             params, &np, &status, &allow);
    CHECK(r == &routes[1]);
    CHECK_INT_EQ(np, 1);
    CHECK_STR_EQ(params[0], "softmax");
    r = http_route_match(routes, n, HTTP_HEAD, "/api/submissions/7/events", a, params, &np, &status,
                         &allow);
    CHECK(r == &routes[3]);
    CHECK_STR_EQ(params[0], "7");
    r = http_route_match(routes, n, HTTP_DELETE, "/api/problems", a, params, &np, &status, &allow);
    CHECK(r == NULL);
    CHECK_INT_EQ(status, 405);
    CHECK_STR_EQ(allow, "GET, HEAD");
    r = http_route_match(routes, n, HTTP_GET, "/api/submissions", a, params, &np, &status, &allow);
    CHECK(r == &routes[4]); /* GET falls back to the static files */
    r = http_route_match(routes, n, HTTP_PUT, "/api/nowhere", a, params, &np, &status, &allow);
    CHECK(r == NULL);
    CHECK_INT_EQ(status, 404); /* the catch-all does not make it a 405 */
    r = http_route_match(routes, n, HTTP_GET, "/api/problems/", a, params, &np, &status, &allow);
    CHECK(r == &routes[4]); /* "{}" never matches an empty segment */
    CHECK_STR_EQ(params[0], "api/problems/");
    arena_free(a);
}

TEST(arena_caps_and_strings)
{
    struct arena *a = arena_new();
    char *s = arena_printf(a, "%s-%d", "x", 42);
    CHECK_STR_EQ(s, "x-42");
    CHECK(arena_alloc(a, ARENA_MAX_BYTES + 1) == NULL);
    for (int i = 0; i < 100; i++)
        CHECK(arena_alloc(a, 10000) != NULL);
    CHECK(((uintptr_t)arena_alloc(a, 3) & 15) == 0);
    arena_free(a);
    arena_free(NULL);
}

TEST(json_depth_and_errors)
{
    CHECK(api_json_depth_ok("{\"a\":[[1]]}", 11, 3));
    CHECK(!api_json_depth_ok("{\"a\":[[[1]]]}", 13, 3));
    CHECK(api_json_depth_ok("{\"a\":\"[[[[[[[[\"}", 16, 2)); /* brackets in strings */
    CHECK(api_json_depth_ok("{\"a\":\"\\\"[[[[\"}", 14, 2));
    struct api_error e;
    CHECK(api_parse_object("", 0, 4, &e) == NULL);
    CHECK_STR_EQ(e.code, "bad_json");
    CHECK(api_parse_object("{\"a\":1,\"a\":2}", 13, 4, &e) == NULL);
    CHECK_CONTAINS(e.message, "duplicate");
    api_fail(&e, 400, "invalid", "f\xff\n", "bad \x01 \xc3");
    CHECK_STR_EQ(e.field, "f??");
    CHECK_STR_EQ(e.message, "bad ? ?");
}

TEST(bodies_validate_fields)
{
    struct api_error e;
    struct body_submission s;
    const char *ok = "{\"problem\":\"vector-add\",\"mode\":\"submit\",\"source\":\"abc\"}";
    json_t *j = body_parse_submission(ok, strlen(ok), &s, &e);
    CHECK(j != NULL);
    CHECK_INT_EQ(s.mode, WP_SUBMIT);
    CHECK_INT_EQ(s.source_len, 3);
    json_decref(j);
    const char *prof = "{\"problem\":\"vector-add\",\"mode\":\"profile\",\"source\":\"abc\"}";
    j = body_parse_submission(prof, strlen(prof), &s, &e);
    CHECK(j != NULL);
    CHECK_INT_EQ(s.mode, WP_PROFILE);
    json_decref(j);
    const char *bad = "{\"problem\":\"vector-add\",\"mode\":\"submit\"}";
    CHECK(body_parse_submission(bad, strlen(bad), &s, &e) == NULL);
    CHECK_INT_EQ(e.status, 400);
    CHECK_STR_EQ(e.field, "source");
    CHECK(s.language == LANG_CUDA); /* no "language": an older client, CUDA */
    const char *py =
        "{\"problem\":\"vector-add\",\"mode\":\"run\",\"source\":\"x\",\"language\":\"triton\"}";
    j = body_parse_submission(py, strlen(py), &s, &e);
    CHECK(j != NULL);
    CHECK(s.language == LANG_TRITON);
    json_decref(j);
    const char *rust =
        "{\"problem\":\"vector-add\",\"mode\":\"run\",\"source\":\"x\",\"language\":\"rust\"}";
    CHECK(body_parse_submission(rust, strlen(rust), &s, &e) == NULL);
    CHECK_INT_EQ(e.status, 400);
    CHECK_STR_EQ(e.field, "language");
    CHECK_CONTAINS(e.message, "\"rust\" is not \"cuda\" or \"triton\"");
    const char *num =
        "{\"problem\":\"vector-add\",\"mode\":\"run\",\"source\":\"x\",\"language\":1}";
    CHECK(body_parse_submission(num, strlen(num), &s, &e) == NULL);
    CHECK_STR_EQ(e.field, "language");
    struct body_rejudge r;
    const char *both = "{\"submission\":3,\"problem\":\"x\"}";
    CHECK(body_parse_rejudge(both, strlen(both), &r, &e) == NULL);
    CHECK(body_problem_id_ok("sgemm-2"));
    CHECK(!body_problem_id_ok("Sgemm"));
    CHECK(!body_problem_id_ok(""));
    CHECK(!body_problem_id_ok(".."));
}

/* What a worker says it compiles: CUDA when it says nothing (an older
 * judged), the known languages kept, unknown ones set aside, bad entries
 * refused with the element named. */
TEST(bodies_register_languages)
{
    struct api_error e;
    struct wp_register b;
    const char *old = "{\"hostname\":\"h\",\"can_execute\":false}";
    json_t *j = body_parse_register(old, strlen(old), &b, &e);
    CHECK(j != NULL);
    CHECK_INT_EQ(b.n_languages, 1);
    CHECK(b.languages[0].language == LANG_CUDA);
    CHECK_STR_EQ(b.languages[0].version, "");
    json_decref(j);
    const char *both =
        "{\"hostname\":\"h\",\"can_execute\":true,\"languages\":["
        "{\"name\":\"cuda\",\"version\":\"13.0\"},{\"name\":\"hip\",\"version\":\"6\"},"
        "{\"name\":\"triton\",\"version\":\"3.6.0\"}]}";
    j = body_parse_register(both, strlen(both), &b, &e);
    CHECK(j != NULL);
    CHECK_INT_EQ(b.n_languages, 2);
    CHECK(b.languages[1].language == LANG_TRITON);
    CHECK_STR_EQ(b.languages[1].version, "3.6.0");
    CHECK_INT_EQ(b.n_ignored, 1);
    CHECK_STR_EQ(b.ignored[0], "hip");
    json_decref(j);
    static const struct {
        const char *languages, *field, *message;
    } bad[] = {
        {"\"cuda\"", "languages", "expected an array"},
        {"[]", "languages", "at least one language"},
        {"[1]", "languages[0]", "languages[0]: expected an object"},
        {"[{\"version\":\"1\"}]", "languages[0].name", "languages[0]: missing field \"name\""},
        {"[{\"name\":\"cuda\",\"v\":1}]", "languages[0].v", "unknown field \"v\""},
        {"[{\"name\":\"cuda\"},{\"name\":\"cuda\"}]", "languages[1].name", "listed twice"},
        {"[{\"name\":\"CUDA 13\"}]", "languages[0].name", "not a language name"},
        {"[{\"name\":\"cuda\",\"version\":7}]", "languages[0].version", "expected a string"},
        {"[{\"name\":\"a\"},{\"name\":\"b\"},{\"name\":\"c\"},{\"name\":\"d\"},{\"name\":\"e\"},"
         "{\"name\":\"f\"},{\"name\":\"g\"},{\"name\":\"h\"},{\"name\":\"i\"}]",
         "languages", "more than 8"},
    };
    for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
        char body[512];
        snprintf(body, sizeof(body), "{\"hostname\":\"h\",\"can_execute\":true,\"languages\":%s}",
                 bad[i].languages);
        CHECK_MSG(body_parse_register(body, strlen(body), &b, &e) == NULL, "%s", body);
        CHECK_INT_EQ(e.status, 400);
        CHECK_STR_EQ(e.field, bad[i].field);
        CHECK_CONTAINS(e.message, bad[i].message);
    }
}

/* Every body reads its fields through common/json_reader: the error names
 * the exact field, 413 only for a field over a documented cap. */
TEST(bodies_errors_name_the_field)
{
    struct api_error e;
    static struct wp_result result; /* large: not on the stack */
    struct body_submission s;
    struct wp_progress pr;
    static const struct {
        int parser; /* 0 submission, 1 result, 2 progress */
        const char *body;
        int status;
        const char *code, *field, *message;
    } bad[] = {
        {0, "{\"problem\":\"vector-add\",\"mode\":\"run\",\"sourc\":\"x\"}", 400, "invalid",
         "sourc", "unknown field \"sourc\" (did you mean \"source\"?)"},
        {0, "{\"problem\":\"vector-add\",\"mode\":\"run\",\"source\":null}", 400, "invalid",
         "source", "missing field \"source\""},
        {0, "{\"problem\":\"vector-add\",\"mode\":\"fast\",\"source\":\"x\"}", 400, "invalid",
         "mode", "mode: \"fast\" is not \"run\", \"submit\" or \"profile\""},
        {0, "{\"problem\":\"vector-add\",\"mode\":\"Profile\",\"source\":\"x\"}", 400, "invalid",
         "mode", "mode: \"Profile\" is not \"run\", \"submit\" or \"profile\""},
        {1, "{\"result\":{\"verdict\":\"AC\",\"profile\":{\"kernels\":[]}}}", 400, "invalid",
         "result.profile.available", "result.profile: missing field \"available\""},
        {1, "{\"result\":{\"verdict\":\"AC\",\"profile\":{\"available\":false}}}", 400, "invalid",
         "result.profile.why", "result.profile: missing field \"why\""},
        {1,
         "{\"result\":{\"verdict\":\"AC\",\"profile\":{\"available\":true,\"kernels\":[{"
         "\"kernel\":\"k\",\"launch\":0,\"dram_pct\":-3}]}}}",
         400, "invalid", "result.profile.kernels[0].dram_pct",
         "result.profile.kernels[0].dram_pct: -3 is out of range"},
        {1,
         "{\"result\":{\"verdict\":\"AC\",\"profile\":{\"available\":true,\"kernels\":[{"
         "\"kernel\":\"k\",\"launch\":0,\"limiter\":\"disk\"}]}}}",
         400, "invalid", "result.profile.kernels[0].limiter",
         "\"disk\" is not a known word (expected one of: memory, compute, latency)"},
        {1,
         "{\"result\":{\"verdict\":\"AC\",\"profile\":{\"available\":true,\"kernels\":[{"
         "\"kernel\":\"k\",\"launch\":0,\"stalls\":[{\"pct\":3}]}]}}}",
         400, "invalid", "result.profile.kernels[0].stalls[0].reason",
         "result.profile.kernels[0].stalls[0]: missing field \"reason\""},
        {1,
         "{\"result\":{\"verdict\":\"AC\",\"profile\":{\"available\":true,\"kernels\":[],"
         "\"raw\":{\"k#0\":{\"m\":[1]}}}}}",
         400, "invalid", "result.profile.raw.k#0.m", "is not a metric's value"},
        {1, "{\"result\":{\"verdict\":\"AC\",\"tests\":[{\"name\":\"t\",\"ms\":-1}]}}", 400,
         "invalid", "result.tests[0].ms", "result.tests[0].ms: -1 is out of range"},
        {1, "{\"result\":{\"verdict\":\"AC\",\"benches\":[{\"name\":\"b\"}]}}", 400, "invalid",
         "result.benches[0].median_ms", "result.benches[0]: missing field \"median_ms\""},
        {1, "{\"result\":{\"verdict\":\"XX\"}}", 400, "invalid", "result.verdict",
         "result.verdict: unknown verdict \"XX\""},
        {2, "{\"events\":[{\"event\":\"compiling\"},{\"nope\":1}]}", 400, "invalid", "events",
         "events: element 1 is not an object"},
    };
    for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
        const char *b = bad[i].body;
        json_t *j = bad[i].parser == 0   ? body_parse_submission(b, strlen(b), &s, &e)
                    : bad[i].parser == 1 ? body_parse_result(b, strlen(b), &result, &e)
                                         : body_parse_progress(b, strlen(b), &pr, &e);
        CHECK_MSG(j == NULL, "%s", b);
        json_decref(j);
        CHECK_INT_EQ(e.status, bad[i].status);
        CHECK_STR_EQ(e.code, bad[i].code);
        CHECK_STR_EQ(e.field, bad[i].field);
        CHECK_CONTAINS(e.message, bad[i].message);
    }
    /* A source over BW_MAX_SOURCE_BYTES is 413 too_large, naming the cap. */
    size_t n = BW_MAX_SOURCE_BYTES + 1;
    char *big = malloc(n + 64);
    int w = snprintf(big, 64, "{\"problem\":\"vector-add\",\"mode\":\"run\",\"source\":\"");
    memset(big + w, 'x', n);
    memcpy(big + w + n, "\"}", 3);
    CHECK(body_parse_submission(big, strlen(big), &s, &e) == NULL);
    CHECK_INT_EQ(e.status, 413);
    CHECK_STR_EQ(e.code, "too_large");
    CHECK_STR_EQ(e.field, "source");
    CHECK_CONTAINS(e.message, "(BW_MAX_SOURCE_BYTES)");
    free(big);
}

TEST(sha256_known_answers)
{
    struct sha256 s;
    char hex[65];
    sha256_init(&s);
    sha256_final_hex(&s, hex);
    CHECK_STR_EQ(hex, "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
    sha256_init(&s);
    sha256_update(&s, "abc", 3);
    sha256_final_hex(&s, hex);
    CHECK_STR_EQ(hex, "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
    const char *two = "abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq";
    sha256_init(&s);
    for (const char *p = two; *p; p++)
        sha256_update(&s, p, 1); /* byte by byte crosses block edges */
    sha256_final_hex(&s, hex);
    CHECK_STR_EQ(hex, "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1");
}

TEST(bundle_round_trip_and_tamper)
{
    char *cause = NULL, *text = NULL, hash[65], hash2[65];
    size_t len = 0;
    const char *src = "tests/fixtures/problems/vector-add";
    CHECK_INT_EQ(bundle_pack(src, "vector-add", &text, &len, hash, &cause), BW_OK);
    CHECK(bundle_hash_ok(hash));
    char *dir = temp_dir();
    char *dest = path_join(dir, hash);
    CHECK_INT_EQ(bundle_unpack(text, len, hash, dest, &cause), BW_OK);
    char *again = NULL;
    CHECK_INT_EQ(bundle_pack(dest, "vector-add", &again, &len, hash2, &cause), BW_OK);
    CHECK_STR_EQ(hash, hash2); /* the unpacked copy hashes the same */
    char *f = path_join(dest, "wrong/noop.cu");
    struct stat st;
    CHECK(stat(f, &st) == 0 && S_ISREG(st.st_mode));
    /* A changed byte is caught; nothing is written. */
    char *bad = strdup(text);
    char *data = strstr(bad, "\"data\":\"");
    data[8] = data[8] == 'A' ? 'B' : 'A';
    char *dest2 = path_join(dir, "tampered");
    CHECK_INT_EQ(bundle_unpack(bad, strlen(bad), hash, dest2, &cause), BW_ERR_PROTOCOL);
    CHECK_CONTAINS(cause, "does not match");
    CHECK(stat(dest2, &st) != 0);
    const char *evil = "{\"format\":1,\"files\":[{\"path\":\"../x\",\"data\":\"\"}]}";
    CHECK_INT_EQ(bundle_unpack(evil, strlen(evil), hash, dest2, &cause), BW_ERR_PROTOCOL);
    CHECK(!bundle_path_ok("a/../b"));
    CHECK(!bundle_path_ok("/abs"));
    CHECK(!bundle_path_ok(".hidden"));
    CHECK(!bundle_path_ok("a//b"));
    CHECK(!bundle_path_ok("a/b/c/d/e"));
    CHECK(bundle_path_ok("wrong/noop.cu"));
    free(bad);
    free(dest2);
    free(f);
    free(again);
    free(dest);
    free(text);
    free(cause);
    rm_rf(dir);
    free(dir);
}

TEST(db_migrates_once_and_keeps_data)
{
    char *cause = NULL;
    char *dir = temp_dir();
    char *path = path_join(dir, "x.db");
    struct db *db = NULL;
    CHECK(db_schema_latest() >= 1);
    CHECK_CONTAINS(db_schema_text(), "-- migration 1");
    CHECK_INT_EQ(db_open(path, 2, &db, &cause), BW_OK);
    struct db_conn *c = db_acquire(db);
    int64_t v = 0;
    CHECK_INT_EQ(db_get_i64(c, &v, &cause, "PRAGMA user_version", ""), BW_OK);
    CHECK_INT_EQ(v, db_schema_latest());
    struct db_stmt *st = NULL;
    CHECK_INT_EQ(db_prepare(c, &st, &cause, "PRAGMA journal_mode", ""), BW_OK);
    CHECK_INT_EQ(db_step(st, &cause), DB_ROW);
    CHECK_STR_EQ(db_col_text(st, 0), "wal");
    db_finish(st);
    CHECK_INT_EQ(db_run(c, &cause,
                        "INSERT INTO users(name, password, role, created_at) VALUES (?,?,?,?)",
                        "ttti", "u1", "x", "learner", (int64_t)1),
                 BW_OK);
    /* A constraint failure is BW_ERR_INVALID with SQLite's words. */
    CHECK_INT_EQ(db_run(c, &cause,
                        "INSERT INTO users(name, password, role, created_at) VALUES (?,?,?,?)",
                        "ttti", "u1", "x", "learner", (int64_t)1),
                 BW_ERR_INVALID);
    CHECK_CONTAINS(cause, "UNIQUE");
    CHECK_INT_EQ(db_run(c, &cause,
                        "INSERT INTO users(name, password, role, created_at) "
                        "VALUES ('u2','x','root',1)",
                        ""),
                 BW_ERR_INVALID);
    db_release(db, c);
    db_close(db);
    /* Reopening applies nothing again and keeps the rows. */
    CHECK_INT_EQ(db_open(path, 1, &db, &cause), BW_OK);
    c = db_acquire(db);
    CHECK_INT_EQ(db_get_i64(c, &v, &cause, "SELECT COUNT(*) FROM users", ""), BW_OK);
    CHECK_INT_EQ(v, 1);
    /* A database from a newer server is refused. */
    CHECK_INT_EQ(db_exec(c, "PRAGMA user_version = 999", &cause), BW_OK);
    db_release(db, c);
    db_close(db);
    CHECK_INT_EQ(db_open(path, 1, &db, &cause), BW_ERR_INVALID);
    CHECK_CONTAINS(cause, "newer than this server");
    free(cause);
    free(path);
    rm_rf(dir);
    free(dir);
}

/* schema.sql's migrations as PostgreSQL runs them: the types translated word
 * by word outside comments and strings, and "-- if BACKEND" blocks kept for
 * that backend only. */
TEST(schema_translates_for_postgresql)
{
    char *cause = NULL;
    char *pg = schema_migration_sql(DB_POSTGRESQL, 1, &cause);
    char *sq = schema_migration_sql(DB_SQLITE, 1, &cause);
    CHECK(pg && sq);
    if (!pg || !sq)
        return;
    CHECK_CONTAINS(pg, "id            BIGINT GENERATED BY DEFAULT AS IDENTITY PRIMARY KEY");
    CHECK_CONTAINS(pg, "score         DOUBLE PRECISION");
    CHECK_CONTAINS(pg, "data          BYTEA NOT NULL");
    CHECK_CONTAINS(pg, "name          TEXT COLLATE \"C\" NOT NULL UNIQUE");
    CHECK_CONTAINS(pg, "DEFAULT 'learner'"); /* strings untouched */
    CHECK(!strstr(pg, " INTEGER") && !strstr(pg, " REAL") && !strstr(pg, " BLOB"));
    CHECK_CONTAINS(sq, "id            INTEGER PRIMARY KEY");
    free(pg);
    pg = schema_migration_sql(DB_POSTGRESQL, 8, &cause);
    CHECK(pg && strstr(pg, "id            BIGINT GENERATED BY DEFAULT AS IDENTITY PRIMARY KEY") &&
          !strstr(pg, "AUTOINCREMENT"));
    free(pg);
    free(sq);
    CHECK(schema_migration_sql(DB_SQLITE, db_schema_latest() + 1, &cause) == NULL);
    CHECK_CONTAINS(cause, "has no migration");
    free(cause);
}

/* Two servers' stores on one PostgreSQL database: the second start migrates
 * nothing; workers claiming through both at once never get one job twice
 * (SKIP LOCKED), and get them all. */
struct claimer {
    struct store *st;
    int64_t worker;
    int64_t got[64];
    int n;
};

static void *claim_all(void *arg)
{
    struct claimer *w = arg;
    for (int tries = 0; tries < 200 && w->n < 64; tries++) {
        struct job j;
        char *cause = NULL;
        int rc = queue_claim(w->st, w->worker, true, 60, &j, &cause);
        free(cause);
        if (rc == 1) {
            w->got[w->n++] = j.submission;
            job_release(&j);
        } else if (rc == 0) {
            break;
        }
    }
    return NULL;
}

TEST(postgresql_two_servers_claim_each_job_once)
{
    if (pg_why())
        SKIP(pg_why());
    char *cause = NULL;
    char *dir = temp_dir();
    char *uri = test_database(dir, true);
    CHECK(uri != NULL);
    if (!uri)
        return;
    struct store *a = NULL, *b = NULL;
    CHECK_INT_EQ(store_open(uri, 4, &a, &cause), BW_OK);
    CHECK_INT_EQ(store_open(uri, 4, &b, &cause), BW_OK);
    if (!a || !b)
        return;
    CHECK(store_shared(a));
    struct db_conn *c = db_acquire(store_db(a));
    int64_t v = 0;
    CHECK_INT_EQ(db_schema_version(c, &v, &cause), BW_OK);
    CHECK_INT_EQ(v, db_schema_latest());
    CHECK_INT_EQ(db_get_i64(c, &v, &cause, "SELECT COUNT(*) FROM schema_version", ""), BW_OK);
    CHECK_INT_EQ(v, 1);
    CHECK_INT_EQ(db_exec(c,
                         "INSERT INTO users(name, password, created_at) VALUES ('u','x',1);"
                         "INSERT INTO problems(id, title, hash, loaded_at) VALUES ('p','P','h',1);"
                         "INSERT INTO workers(name, token_hash, created_at, registered_at, "
                         "can_execute) VALUES ('w1','t1',1,1,1), ('w2','t2',1,1,1);"
                         "INSERT INTO worker_languages(worker_id, language, version) "
                         "VALUES (1,'cuda',''), (2,'cuda','');",
                         &cause),
                 BW_OK);
    for (int i = 0; i < 40; i++)
        CHECK_INT_EQ(db_run(c, &cause,
                            "INSERT INTO submissions(user_id, problem_id, problem_hash, mode, "
                            "source, seed, created_at, queued_at) "
                            "VALUES (1,'p','h','run','s',7,1,1)",
                            ""),
                     BW_OK);
    db_release(store_db(a), c);
    struct claimer w1 = {a, 1, {0}, 0}, w2 = {b, 2, {0}, 0};
    pthread_t t1, t2;
    pthread_create(&t1, NULL, claim_all, &w1);
    pthread_create(&t2, NULL, claim_all, &w2);
    pthread_join(t1, NULL);
    pthread_join(t2, NULL);
    CHECK_INT_EQ(w1.n + w2.n, 40);
    bool seen[41] = {false}, twice = false;
    for (int i = 0; i < w1.n + w2.n; i++) {
        int64_t id = i < w1.n ? w1.got[i] : w2.got[i - w1.n];
        if (id >= 1 && id <= 40) {
            twice = twice || seen[id];
            seen[id] = true;
        }
    }
    CHECK(!twice);
    c = db_acquire(store_db(b));
    CHECK_INT_EQ(
        db_get_i64(c, &v, &cause,
                   "SELECT COUNT(DISTINCT submission_id) FROM leases WHERE state = 'active'", ""),
        BW_OK);
    CHECK_INT_EQ(v, 40);
    db_release(store_db(b), c);
    store_close(a);
    store_close(b);
    free(cause);
    free(uri);
    rm_rf(dir);
    free(dir);
}

/* A store with one user, one problem, one worker and `n` submissions; a
 * test keeps one connection for rows it reads or writes by hand, and the
 * store takes the others. */
static struct store *queue_fixture(const char *path, int n)
{
    char *cause = NULL;
    struct store *st = NULL;
    if (store_open(path, 4, &st, &cause) < 0) {
        free(cause);
        return NULL;
    }
    struct db *db = store_db(st);
    struct db_conn *c = db_acquire(db);
    db_exec(c,
            "INSERT INTO users(name, password, created_at) VALUES ('u','x',1);"
            "INSERT INTO problems(id, title, hash, loaded_at) VALUES ('p','P','h',1);"
            "INSERT INTO workers(name, token_hash, created_at, registered_at, can_execute) "
            "VALUES ('w','t',1,1,1);"
            "INSERT INTO workers(name, token_hash, created_at, registered_at, can_execute) "
            "VALUES ('cpu','t2',1,1,0);"
            "INSERT INTO worker_languages(worker_id, language, version) "
            "VALUES (1,'cuda','13.0'), (2,'cuda','13.0');",
            NULL);
    for (int i = 0; i < n; i++)
        db_run(c, NULL,
               "INSERT INTO submissions(user_id, problem_id, problem_hash, mode, source, seed, "
               "created_at, queued_at) VALUES (1,'p','h','submit','src',7,1,1)",
               "");
    db_release(db, c);
    return st;
}

/* A storage test's database (a temporary SQLite file or PostgreSQL database,
 * seeded by queue_fixture) and the connection it keeps for rows it reads or
 * writes by hand. */
struct queue_env {
    char *dir, *path;
    struct store *st;
    struct db_conn *c;
};

static bool queue_env_open(struct queue_env *e, bool pg, int n)
{
    *e = (struct queue_env){.dir = temp_dir()};
    e->path = test_database(e->dir, pg);
    CHECK(e->path != NULL);
    if (e->path)
        e->st = queue_fixture(e->path, n);
    CHECK(e->st != NULL);
    if (!e->st) {
        rm_rf(e->dir);
        free(e->dir);
        free(e->path);
        return false;
    }
    e->c = db_acquire(store_db(e->st));
    return true;
}

static void queue_env_close(struct queue_env *e)
{
    db_release(store_db(e->st), e->c);
    store_close(e->st);
    rm_rf(e->dir);
    free(e->dir);
    free(e->path);
}

STORAGE_TEST(queue_lease_lifecycle)
{
    struct queue_env env;
    if (!queue_env_open(&env, pg, 2))
        return;
    struct store *st = env.st;
    struct db_conn *c = env.c;
    char *cause = NULL;
    struct job j1, j2, none;
    CHECK_INT_EQ(queue_claim(st, 1, true, 60, &j1, &cause), 1);
    CHECK_INT_EQ(j1.submission, 1);
    CHECK_INT_EQ(j1.attempt, 1);
    CHECK_INT_EQ(queue_claim(st, 1, true, 60, &j2, &cause), 1);
    CHECK_INT_EQ(j2.submission, 2);
    CHECK_INT_EQ(queue_claim(st, 1, true, 60, &none, &cause), 0);
    int64_t pos = -1, sub = 0;
    CHECK_INT_EQ(queue_position(st, 1, &pos, &cause), BW_OK);
    CHECK_INT_EQ(pos, 0);
    CHECK_INT_EQ(queue_heartbeat(st, 1, j1.lease, 60, &sub, &cause), BW_OK);
    CHECK_INT_EQ(sub, 1);
    CHECK_INT_EQ(queue_heartbeat(st, 2, j1.lease, 60, &sub, &cause), BW_ERR_NOTFOUND);

    struct wp_result *r = calloc(1, sizeof(*r));
    r->verdict = VERDICT_ACCEPTED;
    r->executed = true;
    r->message = "";
    r->gpu_name = "H200";
    r->score = 50;
    r->n_benches = 2;
    r->benches[0] = (struct wp_bench){.name = "a", .median_ms = 1.0};
    r->benches[1] = (struct wp_bench){.name = "b", .median_ms = 4.0};
    struct stored out;
    CHECK_INT_EQ(queue_store_result(st, 1, j1.lease, r, "{}", &out, &cause), BW_OK);
    CHECK_INT_EQ(out.outcome, STORED);
    CHECK(out.time_ms > 1.99 && out.time_ms < 2.01); /* geometric mean of 1 and 4 */
    CHECK_INT_EQ(queue_store_result(st, 1, j1.lease, r, "{}", &out, &cause), BW_OK);
    CHECK_INT_EQ(out.outcome, STORED_BEFORE);
    int64_t best = 0;
    CHECK_INT_EQ(db_get_i64(c, &best, &cause, "SELECT COUNT(*) FROM best", ""), BW_OK);
    CHECK_INT_EQ(best, 1);

    /* Lease 2 expires: requeued; the stale lease cannot post. */
    int64_t *ids = NULL, *done = NULL;
    size_t n = 0, nd = 0;
    CHECK_INT_EQ(queue_expire(st, INT64_MAX / 2, &ids, &n, &done, &nd, &cause), BW_OK);
    CHECK_INT_EQ(n, 1);
    CHECK_INT_EQ(nd, 0);
    CHECK_INT_EQ(ids[0], 2);
    free(ids);
    free(done);
    CHECK_INT_EQ(queue_store_result(st, 1, j2.lease, r, "{}", &out, &cause), BW_ERR_NOTFOUND);
    /* Released: not counted. Failed twice more: Judge Error. */
    struct job j3;
    CHECK_INT_EQ(queue_claim(st, 1, true, 60, &j3, &cause), 1);
    CHECK_INT_EQ(j3.attempt, 2);
    CHECK_INT_EQ(queue_release(st, 1, j3.lease, &sub, &cause), BW_OK);
    struct failure f;
    job_release(&j3);
    CHECK_INT_EQ(queue_claim(st, 1, true, 60, &j3, &cause), 1);
    CHECK_INT_EQ(j3.attempt, 2);
    CHECK_INT_EQ(queue_fail(st, 1, j3.lease, "boom", false, 10, 10, &f, &cause), BW_OK);
    CHECK(!f.judge_error);
    job_release(&j3);
    CHECK_INT_EQ(queue_claim(st, 1, true, 60, &j3, &cause), 1);
    CHECK_INT_EQ(j3.attempt, 3);
    CHECK_INT_EQ(queue_fail(st, 1, j3.lease, "boom", false, 10, 10, &f, &cause), BW_OK);
    CHECK(f.judge_error);
    int64_t je = 0;
    CHECK_INT_EQ(db_get_i64(c, &je, &cause,
                            "SELECT COUNT(*) FROM submissions WHERE verdict = 'JE' "
                            "AND message LIKE '%boom%'",
                            ""),
                 BW_OK);
    CHECK_INT_EQ(je, 1);
    job_release(&j3);
    job_release(&j1);
    job_release(&j2);
    free(r);
    free(cause);
    queue_env_close(&env);
}

/* Adds a queued submission of `user` as submissions_h_create does, with its round. */
static int64_t add_turn(struct db_conn *c, int64_t user)
{
    int64_t round = -1, id = 0;
    char *cause = NULL;
    CHECK_INT_EQ(queue_next_round(c, user, &round, &cause), BW_OK);
    CHECK_INT_EQ(db_get_i64(c, &id, &cause,
                            "INSERT INTO submissions(user_id, problem_id, problem_hash, mode, "
                            "source, seed, created_at, queued_at, round) "
                            "VALUES (?,'p','h','run','s',7,1,1,?) RETURNING id",
                            "ii", user, round),
                 BW_OK);
    free(cause);
    return id;
}

STORAGE_TEST(queue_serves_learners_in_turns)
{
    struct queue_env env;
    if (!queue_env_open(&env, pg, 0))
        return;
    struct store *st = env.st;
    struct db_conn *c = env.c;
    char *cause = NULL;
    db_exec(c,
            "INSERT INTO users(name, password, created_at) VALUES ('v','x',1);"
            "INSERT INTO users(name, password, created_at) VALUES ('x','x',1);",
            NULL);
    int64_t a[6], b, x = 0, pos = 0;
    for (int i = 0; i < 6; i++)
        a[i] = add_turn(c, 1); /* user 1 parks six */
    b = add_turn(c, 2);        /* then user 2 submits one */
    CHECK_INT_EQ(queue_position(st, b, &pos, &cause), BW_OK);
    CHECK_INT_EQ(pos, 2); /* behind user 1's first, ahead of its other five */
    CHECK_INT_EQ(queue_position(st, a[1], &pos, &cause), BW_OK);
    CHECK_INT_EQ(pos, 3);
    int64_t *ids = NULL;
    size_t n = 0;
    CHECK_INT_EQ(queue_ids(st, &ids, &n, &cause), BW_OK);
    CHECK_INT_EQ(n, 7);
    if (n == 7) {
        CHECK_INT_EQ(ids[0], a[0]);
        CHECK_INT_EQ(ids[1], b);
        CHECK_INT_EQ(ids[2], a[1]);
    }
    free(ids);
    struct job j;
    CHECK_INT_EQ(queue_claim(st, 1, true, 60, &j, &cause), 1);
    CHECK_INT_EQ(j.submission, a[0]);
    job_release(&j);
    CHECK_INT_EQ(queue_claim(st, 1, true, 60, &j, &cause), 1);
    CHECK_INT_EQ(j.submission, b);
    job_release(&j);
    /* A third learner arriving now waits behind one of user 1's jobs, not five,
     * and so does user 2's second (its first was served in the round before):
     * each round serves each learner once. */
    x = add_turn(c, 3);
    int64_t b2 = add_turn(c, 2);
    CHECK_INT_EQ(queue_claim(st, 1, true, 60, &j, &cause), 1);
    CHECK_INT_EQ(j.submission, a[1]);
    job_release(&j);
    CHECK_INT_EQ(queue_claim(st, 1, true, 60, &j, &cause), 1);
    CHECK_INT_EQ(j.submission, x);
    job_release(&j);
    CHECK_INT_EQ(queue_claim(st, 1, true, 60, &j, &cause), 1);
    CHECK_INT_EQ(j.submission, b2);
    job_release(&j);
    CHECK_INT_EQ(queue_claim(st, 1, true, 60, &j, &cause), 1);
    CHECK_INT_EQ(j.submission, a[2]);
    job_release(&j);
    free(cause);
    queue_env_close(&env);
}

STORAGE_TEST(queue_compile_only_waits_for_gpu)
{
    struct queue_env env;
    if (!queue_env_open(&env, pg, 1))
        return;
    struct store *st = env.st;
    char *cause = NULL;
    struct job j;
    CHECK_INT_EQ(queue_claim(st, 2, false, 60, &j, &cause), 1);
    struct wp_result *r = calloc(1, sizeof(*r));
    r->verdict = VERDICT_NONE;
    r->executed = false;
    r->message = "";
    r->gpu_name = "";
    struct stored out;
    CHECK_INT_EQ(queue_store_result(st, 2, j.lease, r, "{}", &out, &cause), BW_OK);
    CHECK_INT_EQ(out.outcome, WAITING_FOR_GPU);
    job_release(&j);
    CHECK_INT_EQ(queue_claim(st, 2, false, 60, &j, &cause), 0); /* not for a compile-only worker */
    CHECK_INT_EQ(queue_claim(st, 1, true, 60, &j, &cause), 1);  /* a GPU worker takes it */
    CHECK_INT_EQ(j.attempt, 1);
    job_release(&j);
    free(r);
    free(cause);
    queue_env_close(&env);
}

/* Claims routed by language: a CUDA-only worker never gets a Triton job,
 * however old; one that registered Triton does. A Triton job no connected
 * worker compiles is parked outside the in-flight cap; /api/status counts
 * per language. The best and solved rows carry the language. */
STORAGE_TEST(queue_routes_by_language)
{
    struct queue_env env;
    if (!queue_env_open(&env, pg, 1))
        return;
    struct store *st = env.st;
    struct db_conn *c = env.c;
    char *cause = NULL;
    int64_t now = (int64_t)time(NULL), v = 0;
    CHECK_INT_EQ(db_exec(c,
                         "INSERT INTO submissions(user_id, problem_id, problem_hash, mode, "
                         "language, source, seed, created_at, queued_at) "
                         "VALUES (1,'p','h','submit','triton','src',7,1,1);" /* 2 */
                         "INSERT INTO submissions(user_id, problem_id, problem_hash, mode, "
                         "language, source, seed, created_at, queued_at) "
                         "VALUES (1,'p','h','run','cuda','src',7,1,1);" /* 3 */
                         "INSERT INTO workers(name, token_hash, created_at, registered_at, "
                         "can_execute) VALUES ('tri','t3',1,1,1);", /* worker 3 */
                         &cause),
                 BW_OK);
    CHECK_INT_EQ(
        db_run(c, &cause, "UPDATE workers SET last_seen_at = ? WHERE id IN (1, 2)", "i", now - 5),
        BW_OK);
    /* No worker compiles Triton yet: 2 is parked, 1 and 3 count. */
    struct in_flight fl;
    CHECK_INT_EQ(queue_in_flight(st, 1, now, 60, &fl, &cause), BW_OK);
    CHECK_INT_EQ(fl.counted, 2);
    CHECK_INT_EQ(fl.waiting_language, 1);
    CHECK_INT_EQ(fl.waiting_gpu, 0);
    struct queue_status q;
    CHECK_INT_EQ(queue_status(st, now, 60, &q, &cause), BW_OK);
    CHECK_INT_EQ(q.languages[LANG_TRITON].queued, 1);
    CHECK_INT_EQ(q.languages[LANG_CUDA].queued, 2);
    CHECK_INT_EQ(q.languages[LANG_TRITON].workers, 0);
    CHECK_INT_EQ(q.languages[LANG_CUDA].workers, 2);
    CHECK_INT_EQ(q.languages[LANG_CUDA].gpu_workers, 1);
    CHECK_INT_EQ(q.languages[LANG_CUDA].n_versions, 1);
    CHECK_STR_EQ(q.languages[LANG_CUDA].versions[0], "13.0");

    /* The CUDA-only GPU worker takes 1, then 3 past the older Triton job, then nothing. */
    struct job j1, j3, none, jt;
    CHECK_INT_EQ(queue_claim(st, 1, true, 60, &j1, &cause), 1);
    CHECK_INT_EQ(j1.submission, 1);
    CHECK(j1.language == LANG_CUDA);
    CHECK_INT_EQ(queue_claim(st, 1, true, 60, &j3, &cause), 1);
    CHECK_INT_EQ(j3.submission, 3);
    CHECK_INT_EQ(queue_claim(st, 1, true, 60, &none, &cause), 0);
    CHECK_INT_EQ(queue_claim(st, 3, true, 60, &none, &cause), 0); /* registered nothing yet */

    /* Worker 3 registers CUDA and Triton: it takes the Triton job. */
    struct wp_language langs[] = {{LANG_CUDA, "13.0"}, {LANG_TRITON, "3.6.0"}};
    struct queue_registration reg = {.now = now - 5,
                                     .hostname = "h",
                                     .version = "v",
                                     .gpu_name = "",
                                     .can_execute = true,
                                     .languages = langs,
                                     .n_languages = 2};
    int64_t *held = NULL;
    size_t n_held = 0;
    CHECK_INT_EQ(queue_register(st, 3, &reg, &held, &n_held, &cause), BW_OK);
    free(held);
    CHECK_INT_EQ(queue_register(st, 3, &reg, &held, &n_held, &cause), BW_OK); /* again: replaced */
    CHECK_INT_EQ(n_held, 0);
    free(held);
    CHECK_INT_EQ(
        db_get_i64(c, &v, &cause, "SELECT COUNT(*) FROM worker_languages WHERE worker_id = 3", ""),
        BW_OK);
    CHECK_INT_EQ(v, 2);
    CHECK_INT_EQ(db_run(c, &cause, "UPDATE workers SET last_seen_at = ? WHERE id = 3", "i", now),
                 BW_OK);
    CHECK_INT_EQ(queue_in_flight(st, 1, now, 60, &fl, &cause), BW_OK);
    CHECK_INT_EQ(fl.counted, 3); /* a Triton worker is connected: 2 is in its line */
    CHECK_INT_EQ(fl.waiting_language, 0);
    CHECK_INT_EQ(queue_status(st, now, 60, &q, &cause), BW_OK);
    CHECK_INT_EQ(q.languages[LANG_TRITON].workers, 1);
    CHECK_INT_EQ(q.languages[LANG_TRITON].gpu_workers, 1);
    CHECK_STR_EQ(q.languages[LANG_TRITON].versions[0], "3.6.0");
    CHECK_INT_EQ(queue_claim(st, 3, true, 60, &jt, &cause), 1);
    CHECK_INT_EQ(jt.submission, 2);
    CHECK(jt.language == LANG_TRITON);

    /* Accepted Submits in both languages: one best row and one solved row each. */
    struct wp_result *r = calloc(1, sizeof(*r));
    r->verdict = VERDICT_ACCEPTED;
    r->executed = true;
    r->message = "";
    r->gpu_name = "H200";
    r->score = 50;
    r->n_benches = 1;
    r->benches[0] = (struct wp_bench){.name = "a", .median_ms = 1.0};
    struct stored out;
    CHECK_INT_EQ(queue_store_result(st, 1, j1.lease, r, "{}", &out, &cause), BW_OK);
    CHECK_INT_EQ(queue_store_result(st, 3, jt.lease, r, "{}", &out, &cause), BW_OK);
    CHECK_INT_EQ(db_get_i64(c, &v, &cause,
                            "SELECT COUNT(*) FROM best WHERE user_id = 1 AND gpu_name = 'H200' "
                            "AND language IN ('cuda', 'triton')",
                            ""),
                 BW_OK);
    CHECK_INT_EQ(v, 2);
    CHECK_INT_EQ(db_get_i64(c, &v, &cause, "SELECT COUNT(DISTINCT language) FROM solved", ""),
                 BW_OK);
    CHECK_INT_EQ(v, 2);
    job_release(&j1);
    job_release(&j3);
    job_release(&jt);
    free(r);
    free(cause);
    queue_env_close(&env);
}

/* Appends the mode of each row queue_list gives to a string of 64 bytes. */
static void list_modes(void *arg, const struct queue_row *r)
{
    char *modes = arg;
    size_t n = strlen(modes);
    snprintf(modes + n, 64 - n, "%s%s", n ? " " : "", r->mode);
}

/* Profile mode: its own window quota beside Run's (a Profile is stored among the Runs,
 * schema.sql migration 9), claimed as WP_PROFILE, read back as mode "profile", and an Accepted
 * Profile solves nothing and ranks nowhere while an Accepted Run solves. */
STORAGE_TEST(profile_quota_claim_and_scores)
{
    struct queue_env env;
    if (!queue_env_open(&env, pg, 0))
        return;
    struct store *st = env.st;
    struct db_conn *c = env.c;
    char *cause = NULL;
    int64_t now = (int64_t)time(NULL), v = 0, ids[3] = {0};
    const char *modes[] = {"profile", "run", "profile", "profile"};
    for (int i = 0; i < 4; i++) {
        struct store_new_submission in = {.user = 1,
                                          .problem = "p",
                                          .hash = "h",
                                          .mode = modes[i],
                                          .language = "cuda",
                                          .source = "src",
                                          .seed = 7,
                                          .now = now,
                                          .window_since = now - 3600,
                                          .limit = i == 1 ? 1 : 2,
                                          .in_flight_limit = 10,
                                          .lease_s = 60};
        struct store_created made;
        CHECK_INT_EQ(store_submission_create(st, &in, &made, &cause), BW_OK);
        if (i < 3) {
            CHECK_INT_EQ(made.outcome, CREATE_OK); /* the Run is not counted among the Profiles */
            ids[i] = made.id;
        } else {
            CHECK_INT_EQ(made.outcome, CREATE_QUOTA_USED); /* a third Profile: 2 per window */
            CHECK(made.oldest == now);
        }
    }
    struct store_quota q;
    CHECK_INT_EQ(store_quota_use(st, 1, now - 3600, &q, &cause), BW_OK);
    CHECK_INT_EQ(q.profile_used, 2);
    CHECK_INT_EQ(q.run_used, 1);
    CHECK_INT_EQ(q.submit_used, 0);
    CHECK(q.profile_oldest == now);
    CHECK_INT_EQ(db_get_i64(c, &v, &cause,
                            "SELECT COUNT(*) FROM submissions WHERE mode = 'run' AND profile = 1",
                            ""),
                 BW_OK);
    CHECK_INT_EQ(v, 2);
    char listed[64] = "";
    CHECK_INT_EQ(queue_list(st, list_modes, listed, &cause), BW_OK);
    CHECK_STR_EQ(listed, "profile run profile");

    /* The Profile is claimed as one, and its Accepted result with a profile is stored. */
    struct job j;
    CHECK_INT_EQ(queue_claim(st, 1, true, 60, &j, &cause), 1);
    CHECK_INT_EQ(j.submission, ids[0]);
    CHECK_INT_EQ(j.mode, WP_PROFILE);
    struct wp_result *r = calloc(1, sizeof(*r));
    r->verdict = VERDICT_ACCEPTED;
    r->executed = true;
    r->message = "";
    r->gpu_name = "H200";
    r->profile = (struct wp_profile){.present = true, .available = true, .why = "", .n_kernels = 1};
    struct stored out;
    CHECK_INT_EQ(queue_store_result(st, 1, j.lease, r,
                                    "{\"verdict\":\"AC\",\"profile\":{\"available\":true}}", &out,
                                    &cause),
                 BW_OK);
    CHECK_INT_EQ(out.outcome, STORED);
    job_release(&j);
    CHECK_INT_EQ(db_get_i64(c, &v, &cause, "SELECT COUNT(*) FROM solved", ""), BW_OK);
    CHECK_INT_EQ(v, 0); /* a Profile solves nothing */
    CHECK_INT_EQ(db_get_i64(c, &v, &cause, "SELECT COUNT(*) FROM best", ""), BW_OK);
    CHECK_INT_EQ(v, 0);
    /* The Run after it is claimed as a Run, and its Accepted solves the problem. */
    CHECK_INT_EQ(queue_claim(st, 1, true, 60, &j, &cause), 1);
    CHECK_INT_EQ(j.submission, ids[1]);
    CHECK_INT_EQ(j.mode, WP_RUN);
    r->profile = (struct wp_profile){.why = ""};
    CHECK_INT_EQ(queue_store_result(st, 1, j.lease, r, "{\"verdict\":\"AC\"}", &out, &cause),
                 BW_OK);
    job_release(&j);
    CHECK_INT_EQ(db_get_i64(c, &v, &cause, "SELECT COUNT(*) FROM solved", ""), BW_OK);
    CHECK_INT_EQ(v, 1);
    free(r);
    free(cause);
    queue_env_close(&env);
}

/* Migration 3 on a database of migration 2 with data: every submission,
 * best and solved row becomes CUDA, and a worker registered before it
 * compiles CUDA (it can claim before it registers again). */
TEST(db_migration_3_keeps_rows_as_cuda)
{
    char *cause = NULL;
    char *dir = temp_dir();
    char *path = path_join(dir, "old.db");
    const char *schema = db_schema_text();
    const char *m3 = strstr(schema, "-- migration 3");
    CHECK(m3 != NULL);
    if (!m3)
        return;
    char *upto2 = strndup(schema, (size_t)(m3 - schema));
    sqlite3 *h = NULL;
    CHECK_INT_EQ(sqlite3_open(path, &h), SQLITE_OK);
    CHECK_INT_EQ(sqlite3_exec(h, upto2, NULL, NULL, NULL), SQLITE_OK);
    CHECK_INT_EQ(
        sqlite3_exec(h,
                     "PRAGMA user_version = 2;"
                     "INSERT INTO users(name, password, created_at) VALUES ('u','x',1);"
                     "INSERT INTO problems(id, title, hash, loaded_at) VALUES ('p','P','h',1);"
                     "INSERT INTO workers(name, token_hash, created_at, registered_at, "
                     "can_execute) VALUES ('w','t',1,1,1);"
                     "INSERT INTO workers(name, token_hash, created_at) VALUES ('new','t2',1);"
                     "INSERT INTO submissions(user_id, problem_id, problem_hash, mode, source, "
                     "seed, created_at, queued_at) VALUES (1,'p','h','submit','src',7,1,1);"
                     "INSERT INTO submissions(user_id, problem_id, problem_hash, mode, source, "
                     "seed, created_at, queued_at) VALUES (1,'p','h','run','src',7,1,1);"
                     "INSERT INTO best VALUES (1,'p','H200',1,50.0,2.0,5);"
                     "INSERT INTO solved VALUES (1,'p',5);",
                     NULL, NULL, NULL),
        SQLITE_OK);
    sqlite3_close(h);
    free(upto2);
    struct store *st = NULL;
    CHECK_INT_EQ(store_open(path, 4, &st, &cause), BW_OK);
    if (!st)
        return;
    struct db *db = store_db(st);
    struct db_conn *c = db_acquire(db);
    int64_t v = 0;
    CHECK_INT_EQ(db_get_i64(c, &v, &cause, "PRAGMA user_version", ""), BW_OK);
    CHECK_INT_EQ(v, db_schema_latest());
    CHECK_INT_EQ(
        db_get_i64(c, &v, &cause, "SELECT COUNT(*) FROM submissions WHERE language = 'cuda'", ""),
        BW_OK);
    CHECK_INT_EQ(v, 2);
    CHECK_INT_EQ(db_get_i64(c, &v, &cause,
                            "SELECT COUNT(*) FROM best WHERE language = 'cuda' AND user_id = 1 "
                            "AND problem_id = 'p' AND gpu_name = 'H200' AND submission_id = 1 "
                            "AND score = 50.0 AND time_ms = 2.0 AND at = 5",
                            ""),
                 BW_OK);
    CHECK_INT_EQ(v, 1);
    CHECK_INT_EQ(db_get_i64(c, &v, &cause,
                            "SELECT COUNT(*) FROM solved WHERE language = 'cuda' AND first_at = 5",
                            ""),
                 BW_OK);
    CHECK_INT_EQ(v, 1);
    CHECK_INT_EQ(db_get_i64(c, &v, &cause,
                            "SELECT COUNT(*) FROM worker_languages WHERE worker_id = 1 "
                            "AND language = 'cuda'",
                            ""),
                 BW_OK);
    CHECK_INT_EQ(v, 1);
    CHECK_INT_EQ(db_get_i64(c, &v, &cause, "SELECT COUNT(*) FROM worker_languages", ""), BW_OK);
    CHECK_INT_EQ(v, 1); /* the worker that never registered compiles nothing yet */
    struct job j;
    CHECK_INT_EQ(queue_claim(st, 1, true, 60, &j, &cause), 1);
    CHECK_INT_EQ(j.submission, 1);
    job_release(&j);
    /* The new CHECKs hold. */
    CHECK_INT_EQ(db_run(c, &cause, "UPDATE submissions SET language = 'rust' WHERE id = 2", ""),
                 BW_ERR_INVALID);
    free(cause);
    db_release(db, c);
    store_close(st);
    rm_rf(dir);
    free(dir);
    free(path);
}

STORAGE_TEST(queue_status_counts_queue_and_live_workers)
{
    struct queue_env env;
    if (!queue_env_open(&env, pg, 3))
        return;
    struct store *st = env.st;
    struct db_conn *c = env.c;
    char *cause = NULL;
    struct queue_status q;
    /* Nobody has asked for work yet: no live worker. */
    CHECK_INT_EQ(queue_status(st, 1000, 60, &q, &cause), BW_OK);
    CHECK_INT_EQ(q.queued, 3);
    CHECK_INT_EQ(q.waiting_gpu, 0);
    CHECK_INT_EQ(q.judging, 0);
    CHECK_INT_EQ(q.workers, 0);
    CHECK_INT_EQ(q.gpu_workers, 0);
    CHECK_INT_EQ(q.n_gpus, 0);
    CHECK_INT_EQ(
        db_run(c, &cause, "UPDATE workers SET last_seen_at = ?", "i", (int64_t)time(NULL) - 10),
        BW_OK);
    CHECK_INT_EQ(db_exec(c, "UPDATE workers SET gpu_name = 'NVIDIA H200' WHERE name = 'w'", &cause),
                 BW_OK);
    /* The compile-only worker compiles one while the GPU worker takes another. */
    struct job j, k;
    CHECK_INT_EQ(queue_claim(st, 2, false, 60, &j, &cause), 1);
    struct wp_result *r = calloc(1, sizeof(*r));
    r->verdict = VERDICT_NONE;
    r->message = "";
    r->gpu_name = "";
    struct stored out;
    CHECK_INT_EQ(queue_claim(st, 1, true, 60, &k, &cause), 1);
    CHECK_INT_EQ(queue_store_result(st, 2, j.lease, r, "{}", &out, &cause), BW_OK);
    CHECK_INT_EQ(out.outcome, WAITING_FOR_GPU);
    CHECK_INT_EQ(queue_status(st, (int64_t)time(NULL), 60, &q, &cause), BW_OK);
    CHECK_INT_EQ(q.queued, 2);
    CHECK_INT_EQ(q.waiting_gpu, 1);
    CHECK_INT_EQ(q.judging, 1);
    CHECK_INT_EQ(q.workers, 2);
    CHECK_INT_EQ(q.gpu_workers, 1);
    CHECK_INT_EQ(q.n_gpus, 1);
    CHECK_STR_EQ(q.gpus[0], "NVIDIA H200");
    /* Disabled workers and workers silent for longer than a lease do not count. */
    CHECK_INT_EQ(db_exec(c, "UPDATE workers SET disabled = 1 WHERE name = 'w'", &cause), BW_OK);
    CHECK_INT_EQ(queue_status(st, (int64_t)time(NULL), 60, &q, &cause), BW_OK);
    CHECK_INT_EQ(q.workers, 1);
    CHECK_INT_EQ(q.gpu_workers, 0);
    CHECK_INT_EQ(q.n_gpus, 0);
    CHECK_INT_EQ(queue_status(st, (int64_t)time(NULL) + 7200, 60, &q, &cause), BW_OK);
    CHECK_INT_EQ(q.workers, 0);
    job_release(&j);
    job_release(&k);
    free(r);
    free(cause);
    queue_env_close(&env);
}

/* Cancelling (queue_cancel) in every state, what a worker holding the job is
 * told, and the in-flight count that leaves jobs parked for a GPU out while no
 * GPU worker is connected. */
STORAGE_TEST(queue_cancel_and_in_flight)
{
    struct queue_env env;
    if (!queue_env_open(&env, pg, 4))
        return;
    struct store *st = env.st;
    struct db_conn *c = env.c;
    char *cause = NULL;
    int64_t now = (int64_t)time(NULL), pos = 0, v = 0, sub = 0;
    struct job j;
    struct wp_result *r = calloc(1, sizeof(*r));
    r->verdict = VERDICT_NONE;
    r->message = "";
    r->gpu_name = "";
    struct stored out;
    /* Submission 1 compiled by the compile-only worker: it waits for a GPU. */
    CHECK_INT_EQ(queue_claim(st, 2, false, 60, &j, &cause), 1);
    CHECK_INT_EQ(queue_store_result(st, 2, j.lease, r, "{}", &out, &cause), BW_OK);
    CHECK_INT_EQ(out.outcome, WAITING_FOR_GPU);
    job_release(&j);
    struct in_flight fl;
    CHECK_INT_EQ(queue_in_flight(st, 1, now, 60, &fl, &cause), BW_OK);
    CHECK(!fl.gpu_connected);
    CHECK_INT_EQ(fl.waiting_gpu, 1);
    CHECK_INT_EQ(fl.counted, 3); /* 2, 3, 4: not compiled yet; 1 is parked */
    CHECK_INT_EQ(
        db_run(c, &cause, "UPDATE workers SET last_seen_at = ? WHERE name = 'w'", "i", now - 10),
        BW_OK);
    CHECK_INT_EQ(queue_in_flight(st, 1, now, 60, &fl, &cause), BW_OK);
    CHECK(fl.gpu_connected);
    CHECK_INT_EQ(fl.counted, 4); /* a GPU worker is connected: 1 is in its line */
    CHECK_INT_EQ(queue_in_flight(st, 1, now + 3600, 60, &fl, &cause), BW_OK);
    CHECK(!fl.gpu_connected); /* silent for longer than a lease */
    CHECK_INT_EQ(queue_position(st, 2, &pos, &cause), BW_OK);
    CHECK_INT_EQ(pos, 2);

    /* Waiting for a GPU -> cancelled; the ones behind it move up. */
    struct cancel cx;
    CHECK_INT_EQ(queue_cancel(st, 1, 1, "u", &cx, &cause), BW_OK);
    CHECK_STR_EQ(cx.from, "waiting_for_gpu");
    CHECK_STR_EQ(cx.lease, "");
    CHECK_INT_EQ(queue_position(st, 2, &pos, &cause), BW_OK);
    CHECK_INT_EQ(pos, 1);
    CHECK_INT_EQ(queue_position(st, 1, &pos, &cause), BW_OK);
    CHECK_INT_EQ(pos, 0);
    CHECK_INT_EQ(db_get_i64(c, &v, &cause,
                            "SELECT COUNT(*) FROM submissions WHERE id = 1 AND state = 'done' "
                            "AND verdict IS NULL AND cancelled_by = 1 AND cancelled_at > 0 "
                            "AND cancelled_from = 'waiting_for_gpu' AND message = 'cancelled by u'",
                            ""),
                 BW_OK);
    CHECK_INT_EQ(v, 1);
    CHECK_INT_EQ(queue_cancel(st, 1, 1, "u", &cx, &cause), BW_ERR_INVALID);
    CHECK_CONTAINS(cause, "cancelled already, by u");
    CHECK_INT_EQ(queue_cancel(st, 99, 1, "u", &cx, &cause), BW_ERR_NOTFOUND);

    /* A GPU worker skips the cancelled one; cancelled while it judges 2. */
    CHECK_INT_EQ(queue_claim(st, 1, true, 60, &j, &cause), 1);
    CHECK_INT_EQ(j.submission, 2);
    CHECK_INT_EQ(queue_cancel(st, 2, 1, "u", &cx, &cause), BW_OK);
    CHECK_STR_EQ(cx.from, "judging");
    CHECK_STR_EQ(cx.lease, j.lease);
    CHECK_INT_EQ(cx.worker, 1);
    char why[96] = "";
    CHECK(queue_lease_cancelled(st, 1, j.lease, &sub, why, sizeof(why)));
    CHECK_INT_EQ(sub, 2);
    CHECK_STR_EQ(why, "cancelled by u");
    CHECK(!queue_lease_cancelled(st, 2, j.lease, &sub, why, sizeof(why))); /* not its lease */
    CHECK_INT_EQ(queue_heartbeat(st, 1, j.lease, 60, &sub, &cause), BW_ERR_NOTFOUND);
    r->verdict = VERDICT_ACCEPTED;
    r->executed = true;
    CHECK_INT_EQ(queue_store_result(st, 1, j.lease, r, "{}", &out, &cause), BW_ERR_NOTFOUND);
    struct failure f;
    CHECK_INT_EQ(queue_fail(st, 1, j.lease, "boom", false, 10, 10, &f, &cause), BW_ERR_NOTFOUND);
    CHECK_INT_EQ(queue_release(st, 1, j.lease, &sub, &cause), BW_ERR_NOTFOUND);
    CHECK_INT_EQ(db_get_i64(c, &v, &cause,
                            "SELECT COUNT(*) FROM leases WHERE state = 'lost' "
                            "AND reason = 'cancelled by u' AND ended_at > 0",
                            ""),
                 BW_OK);
    CHECK_INT_EQ(v, 1);
    job_release(&j);

    /* A judged submission cannot be cancelled; its lease is not "cancelled". */
    CHECK_INT_EQ(queue_claim(st, 1, true, 60, &j, &cause), 1);
    CHECK_INT_EQ(j.submission, 3);
    CHECK_INT_EQ(queue_store_result(st, 1, j.lease, r, "{}", &out, &cause), BW_OK);
    CHECK_INT_EQ(queue_cancel(st, 3, 1, "u", &cx, &cause), BW_ERR_INVALID);
    CHECK_CONTAINS(cause, "judged already (Accepted)");
    CHECK(!queue_lease_cancelled(st, 1, j.lease, &sub, why, sizeof(why)));
    job_release(&j);

    /* Rejudging never brings a cancelled submission back. */
    CHECK_INT_EQ(queue_rejudge_submission(st, 1, &cause), BW_ERR_INVALID);
    CHECK_CONTAINS(cause, "was cancelled");
    int64_t n = 0;
    CHECK_INT_EQ(queue_rejudge_problem(st, "p", &n, &cause), BW_OK);
    CHECK_INT_EQ(n, 1); /* submission 3 only */
    CHECK_INT_EQ(db_get_i64(c, &v, &cause,
                            "SELECT COUNT(*) FROM submissions WHERE cancelled_at IS NOT NULL "
                            "AND state = 'done'",
                            ""),
                 BW_OK);
    CHECK_INT_EQ(v, 2);
    free(r);
    free(cause);
    queue_env_close(&env);
}

TEST(auth_helpers)
{
    CHECK(sodium_init() >= 0);
    CHECK(auth_username_ok("alice"));
    CHECK(auth_username_ok("a.b-c_9"));
    CHECK(!auth_username_ok("ab"));
    CHECK(!auth_username_ok("Alice"));
    CHECK(!auth_username_ok("_alice"));
    CHECK(!auth_username_ok("al ice"));
    const char *why = NULL;
    CHECK(!auth_password_ok("short", &why));
    CHECK(auth_password_ok("long enough", &why));
    char t1[AUTH_TOKEN_CHARS], t2[AUTH_TOKEN_CHARS], h1[65], h2[65];
    auth_new_token("bww_", t1);
    auth_new_token("bww_", t2);
    CHECK(strncmp(t1, "bww_", 4) == 0 && strlen(t1) == 47);
    CHECK(strcmp(t1, t2) != 0);
    auth_token_hash(t1, h1);
    auth_token_hash(t1, h2);
    CHECK_STR_EQ(h1, h2);
    CHECK(bundle_hash_ok(h1));
    struct server_config cfg;
    config_init(&cfg);
    cfg.pwhash_ops = 1;
    cfg.pwhash_mem_kib = 8192;
    char *hash = NULL, *cause = NULL;
    CHECK_INT_EQ(auth_hash_password(&cfg, "correct horse", &hash, &cause), BW_OK);
    CHECK(strncmp(hash, "$argon2id$", 10) == 0);
    CHECK(auth_check_password(&cfg, hash, "correct horse"));
    CHECK(!auth_check_password(&cfg, hash, "wrong horse"));
    CHECK(!auth_check_password(&cfg, NULL, "anything"));
    CHECK(!auth_needs_rehash(&cfg, hash));
    cfg.pwhash_ops = 2;
    CHECK(auth_needs_rehash(&cfg, hash)); /* made at another cost: stored again at sign-in */
    cfg.pwhash_ops = 1;
    free(hash);
    config_release(&cfg);
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* An unknown user's sign-in costs the same argon2id work as a wrong password:
 * the dummy hash is made at the configured cost, whatever that is. */
TEST(auth_unknown_user_costs_a_real_check)
{
    CHECK(sodium_init() >= 0);
    struct server_config cfg;
    config_init(&cfg);
    cfg.pwhash_ops = 1;
    cfg.pwhash_mem_kib = 8192;
    const char *dummy = auth_dummy_hash(&cfg);
    CHECK(dummy && strncmp(dummy, "$argon2id$", 10) == 0);
    CHECK(dummy && !auth_needs_rehash(&cfg, dummy));
    CHECK(auth_dummy_hash(&cfg) == dummy); /* made once per cost */
    cfg.pwhash_mem_kib = 16384;
    const char *other = auth_dummy_hash(&cfg);
    CHECK(other && other != dummy && !auth_needs_rehash(&cfg, other));
    cfg.pwhash_mem_kib = 8192;

    /* And in time: the medians of wrong-password and unknown-user checks are
     * within a factor of 2 (before, the dummy was fixed at 64 MiB and two
     * passes: about 8 times the 8 MiB single pass). */
    char *hash = NULL, *cause = NULL;
    CHECK_INT_EQ(auth_hash_password(&cfg, "correct horse", &hash, &cause), BW_OK);
    double known[9], unknown[9];
    for (int i = 0; i < 9; i++) {
        double t0 = now_ms();
        CHECK(!auth_check_password(&cfg, hash, "wrong horse"));
        double t1 = now_ms();
        CHECK(!auth_check_password(&cfg, NULL, "wrong horse"));
        known[i] = t1 - t0;
        unknown[i] = now_ms() - t1;
    }
    qsort(known, 9, sizeof(double), cmp_double);
    qsort(unknown, 9, sizeof(double), cmp_double);
    CHECK_MSG(unknown[4] < 2 * known[4] && known[4] < 2 * unknown[4],
              "median %.1f ms (unknown user) vs %.1f ms (wrong password)", unknown[4], known[4]);
    free(hash);
    free(cause);
    config_release(&cfg);
}

TEST(static_paths_and_types)
{
    CHECK(files_path_ok(""));
    CHECK(files_path_ok("index.html"));
    CHECK(files_path_ok("assets/app.3f2a.js"));
    CHECK(files_path_ok("docs/"));
    CHECK(!files_path_ok("../etc/passwd"));
    CHECK(!files_path_ok("a/../../b"));
    CHECK(!files_path_ok(".git/config"));
    CHECK(!files_path_ok("a//b"));
    CHECK(!files_path_ok("a\\b"));
    CHECK_STR_EQ(files_content_type("x/app.js"), "text/javascript; charset=utf-8");
    CHECK_STR_EQ(files_content_type("index.html"), "text/html; charset=utf-8");
    CHECK_STR_EQ(files_content_type("a.b/noext"), "application/octet-stream");
}

TEST(markdown_keeps_math_and_drops_html)
{
    const char *md = "# T\n\nSum $a_i * b_i$ and\n\n$$x^2$$\n\n<script>alert(1)</script>\n";
    char *html = problems_markdown_html(md, strlen(md));
    CHECK_CONTAINS(html, "<h1>T</h1>");
    CHECK_CONTAINS(html, "<x-equation>a_i * b_i</x-equation>");
    CHECK_CONTAINS(html, "<x-equation type=\"display\">x^2</x-equation>");
    CHECK(html && !strstr(html, "<script>"));
    free(html);
}

/* Issue 28: with statement.md a link to /etc/passwd, GET /api/problems/ID
 * served the host file as the statement. Now the problem fails to load, with
 * an error naming the file, and is not served; a link elsewhere in the
 * directory (a file no loader reads) fails it too, in the bundle that would
 * carry it to the workers; a FIFO fails it without blocking. */
TEST(problem_with_a_link_or_fifo_is_not_served)
{
    static const struct {
        const char *file, *how, *error;
    } cases[] = {
        {"statement.md", "ln -sf /etc/passwd", "vector-add/statement.md: a symbolic link"},
        {"reference.cu", "ln -sf /etc/passwd", "vector-add/reference.cu: a symbolic link"},
        {"notes.md", "ln -sf /etc/passwd", "vector-add/notes.md: a symbolic link"},
        {"extra/notes.md", "mkdir -p extra && ln -sf /etc/hostname",
         "vector-add/extra/notes.md: a symbolic link"},
        {"statement.md", "rm -f statement.md && mkfifo",
         "vector-add/statement.md: not a regular file (a FIFO)"},
    };
    char *cause = NULL, *dir = temp_dir();
    char *probs = path_join(dir, "problems"), *dbp = path_join(dir, "p.db");
    struct store *st = NULL;

    CHECK_INT_EQ(store_open(dbp, 2, &st, &cause), BW_OK);
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        char cmd[1024];
        struct problem_set *set = NULL;
        snprintf(cmd, sizeof(cmd),
                 "rm -rf '%s' && mkdir -p '%s' && cp -r tests/fixtures/problems/vector-add '%s/' "
                 "&& cd '%s/vector-add' && %s %s",
                 probs, probs, probs, probs, cases[i].how, cases[i].file);
        CHECK(system(cmd) == 0);
        CHECK_INT_EQ(problems_load(probs, st, &set, &cause), BW_OK);
        if (!set)
            continue;
        CHECK_MSG(problems_find(set, "vector-add") == NULL, "%s %s: served", cases[i].how,
                  cases[i].file);
        CHECK_INT_EQ(set->n, 0);
        CHECK_INT_EQ(set->n_failed, 1);
        CHECK_MSG(set->n_failed == 1 && strstr(set->failed[0].error, cases[i].error), "%s %s: %s",
                  cases[i].how, cases[i].file,
                  set->n_failed ? set->failed[0].error : "(no failure)");
        CHECK(!strstr(set->list_json, "vector-add"));
        problems_set_unref_unlocked(set);
    }
    store_close(st);
    rm_rf(dir);
    free(probs);
    free(dbp);
    free(dir);
    free(cause);
}

/* Issue 28: two directories with the same "number" were both served, at one
 * place of the path. The second (in name order) is refused, naming both. */
TEST(duplicate_problem_numbers_are_refused)
{
    char *cause = NULL, *dir = temp_dir();
    char *probs = path_join(dir, "problems"), *dbp = path_join(dir, "p.db");
    struct store *st = NULL;
    struct problem_set *set = NULL;
    char cmd[1024];

    snprintf(cmd, sizeof(cmd),
             "mkdir -p '%s' && cp -r tests/fixtures/problems/vector-add '%s/' && cp -r "
             "'%s/vector-add' '%s/vector-bdd' && sed -i 's/\"vector-add\"/\"vector-bdd\"/' "
             "'%s/vector-bdd/problem.json'",
             probs, probs, probs, probs, probs);
    CHECK(system(cmd) == 0);
    CHECK_INT_EQ(store_open(dbp, 2, &st, &cause), BW_OK);
    CHECK_INT_EQ(problems_load(probs, st, &set, &cause), BW_OK);
    if (set) {
        CHECK_INT_EQ(set->n, 1);
        CHECK(problems_find(set, "vector-add") != NULL);
        CHECK(problems_find(set, "vector-bdd") == NULL);
        CHECK_INT_EQ(set->n_failed, 1);
        if (set->n_failed) {
            CHECK_CONTAINS(set->failed[0].error, "problems/vector-bdd: number 1 is already");
            CHECK_CONTAINS(set->failed[0].error, "vector-add's (");
            CHECK_CONTAINS(set->failed[0].error, "problems/vector-add)");
        }
        problems_set_unref_unlocked(set);
    }
    store_close(st);
    rm_rf(dir);
    free(probs);
    free(dbp);
    free(dir);
    free(cause);
}

TEST(markdown_drops_unsafe_link_schemes)
{
    const char *md = "[a](javascript:alert(1)) [b](JaVaScRiPt:x) <javascript:alert(2)> "
                     "[c](&#106;avascript:x) [d](vbscript:x) [e](data:text/html;base64,xx) "
                     "![i](data:image/png;base64,x) [t]( javascript:x) [col](javascript&colon;x) "
                     "[ok](https://example.org/a?b=1&c=2) [rel](../a) [m](mailto:a@b.c) "
                     "[frag](#x) [h](HTTP://EXAMPLE.ORG) [v](<java script:x>) "
                     "`href=\"javascript:x\"` javascript:text\n";
    char *html = problems_markdown_html(md, strlen(md));
    CHECK(html != NULL);
    if (!html)
        return;
    CHECK(!strstr(html, "href=\"javascript") && !strstr(html, "href=\"JaVaScRiPt"));
    CHECK(!strstr(html, "vbscript:") && !strstr(html, "data:"));
    CHECK_CONTAINS(html, "<a>a</a>");
    CHECK_CONTAINS(html, "<a>javascript:alert(2)</a>");
    CHECK_CONTAINS(html, "<img alt=\"i\">");
    CHECK_CONTAINS(html, "<a href=\"https://example.org/a?b=1&amp;c=2\">ok</a>");
    CHECK_CONTAINS(html, "<a href=\"../a\">rel</a>");
    CHECK_CONTAINS(html, "<a href=\"mailto:a@b.c\">m</a>");
    CHECK_CONTAINS(html, "<a href=\"#x\">frag</a>");
    CHECK_CONTAINS(html, "<a href=\"HTTP://EXAMPLE.ORG\">h</a>");
    CHECK_CONTAINS(html, "<a href=\"java%20script:x\">v</a>"); /* a relative path: harmless */
    CHECK_CONTAINS(html, "<code>href=&quot;javascript:x&quot;</code>");
    CHECK_CONTAINS(html, "javascript:text");
    free(html);
    CHECK(problems_url_allowed("", 0));
    CHECK(problems_url_allowed("a/b:c", 5));
    CHECK(!problems_url_allowed("file:///etc/passwd", 18));
    CHECK(!problems_url_allowed("x-y.z+1:q", 9));
}

TEST(problem_set_loads_and_reports_failures)
{
    char *cause = NULL;
    char *dir = temp_dir();
    char *probs = path_join(dir, "problems");
    char *dbp = path_join(dir, "p.db");
    char cmd[1024];
    snprintf(cmd, sizeof(cmd),
             "mkdir -p '%s/broken' && cp -r tests/fixtures/problems/vector-add '%s/' && "
             "echo '{' > '%s/broken/problem.json'",
             probs, probs, probs);
    CHECK(system(cmd) == 0);
    struct store *st = NULL;
    CHECK_INT_EQ(store_open(dbp, 2, &st, &cause), BW_OK);
    struct problem_set *set = NULL;
    CHECK_INT_EQ(problems_load(probs, st, &set, &cause), BW_OK);
    if (set) {
        CHECK_INT_EQ(set->n, 1);
        CHECK_INT_EQ(set->n_failed, 1);
        CHECK_CONTAINS(set->failed[0].dir, "broken");
        const struct problem_entry *e = problems_find(set, "vector-add");
        CHECK(e != NULL);
        CHECK_CONTAINS(set->list_json, "\"vector-add\"");
        CHECK_CONTAINS(e ? e->detail_json : NULL, "\"c_type\":\"const float*\"");
        struct db_conn *c = db_acquire(store_db(st));
        int64_t n = 0;
        CHECK_INT_EQ(db_get_i64(c, &n, &cause, "SELECT COUNT(*) FROM bundles WHERE hash = ?", "t",
                                e ? e->hash : ""),
                     BW_OK);
        CHECK_INT_EQ(n, 1);
        db_release(store_db(st), c);
        problems_set_unref_unlocked(set);
    }
    CHECK_INT_EQ(problems_load("/nonexistent/problems", st, &set, &cause), BW_ERR_IO);

    /* A problem with starter.py and solution.py is offered in Triton too:
     * both starters, and the signature of each language. */
    snprintf(cmd, sizeof(cmd),
             "rm -rf '%s/broken' && cp -r '%s/vector-add' '%s/vector-triton' && cd "
             "'%s/vector-triton' && sed -i -e 's/\"vector-add\"/\"vector-triton\"/' -e "
             "'s/\"number\": 1/\"number\": 2/' -e 's/\"sizes\": \\[\"N\"\\],/\"sizes\": "
             "[\"N\"], \"scalars\": [{\"name\": \"alpha\", \"dtype\": \"fp32\", \"value\": 1}, "
             "{\"name\": \"seed\", \"dtype\": \"uint64\", \"value\": 3}, {\"name\": \"k\", "
             "\"dtype\": \"int32\", \"value\": 2}],/' -e 's|\"wrong/noop.cu\": \"Wrong "
             "Answer\"|&, \"solution.py\": \"Accepted\", \"starter.py\": \"Wrong Answer\"|' "
             "problem.json && printf '# @launch k grid=(1) args=(x, y, out, N)\\n' > starter.py && "
             "cp starter.py solution.py",
             probs, probs, probs, probs);
    CHECK(system(cmd) == 0);
    CHECK_INT_EQ(problems_load(probs, st, &set, &cause), BW_OK);
    const struct problem_entry *t = set ? problems_find(set, "vector-triton") : NULL;
    CHECK_MSG(t != NULL, "%s", set && set->n_failed ? set->failed[0].error : "not loaded");
    if (t) {
        json_t *d = json_loads(t->detail_json, 0, NULL);
        CHECK_STR_EQ(json_string_value(json_array_get(json_object_get(d, "languages"), 1)),
                     "triton");
        CHECK_STR_EQ(json_string_value(json_object_get(json_object_get(d, "starters"), "triton")),
                     "# @launch k grid=(1) args=(x, y, out, N)\n");
        CHECK_CONTAINS(json_string_value(json_object_get(json_object_get(d, "starters"), "cuda")),
                       "@launch");
        CHECK_STR_EQ(json_string_value(json_object_get(d, "starter")),
                     json_string_value(json_object_get(json_object_get(d, "starters"), "cuda")));
        json_t *tri = json_object_get(json_object_get(d, "signatures"), "triton");
        json_t *cu = json_object_get(json_object_get(d, "signatures"), "cuda");
        static const char *const want[][3] = {
            {"x", "*fp32", "const float*"},
            {"out", "*fp32", "float*"},
            {"N", "i32 or i64", "long long"},
            {"alpha", "fp32", "float"},
            {"seed", "i32, i64 or u64", "unsigned long long"},
            {"k", "i32", "int"},
        };
        for (size_t w = 0; w < sizeof(want) / sizeof(want[0]); w++) {
            const char *ty = NULL, *cty = NULL;
            for (size_t i = 0; i < json_array_size(tri); i++)
                if (strcmp(json_string_value(json_object_get(json_array_get(tri, i), "name")),
                           want[w][0]) == 0) {
                    ty = json_string_value(json_object_get(json_array_get(tri, i), "type"));
                    cty = json_string_value(json_object_get(json_array_get(cu, i), "type"));
                }
            CHECK_STR_EQ(ty, want[w][1]);
            CHECK_STR_EQ(cty, want[w][2]);
        }
        json_decref(d);
        CHECK_CONTAINS(set->list_json, "\"languages\":[\"cuda\",\"triton\"]");
    }
    const struct problem_entry *cu_only = set ? problems_find(set, "vector-add") : NULL;
    CHECK(cu_only && strstr(cu_only->detail_json, "\"languages\":[\"cuda\"]") &&
          !strstr(cu_only->detail_json, "\"triton\""));
    problems_set_unref_unlocked(set);
    store_close(st);
    free(cause);
    free(probs);
    free(dbp);
    rm_rf(dir);
    free(dir);
}
