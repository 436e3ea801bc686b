#include "throttle.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <sodium.h>

#include "store/store.h"
#include "common/error.h"
#include "common/limits.h"
#include "common/log.h"
#include "common/util.h"
#include "common/banned.h"

struct slot {
    uint64_t key; /* 0: free */
    int failures; /* in the current window */
    int pending;  /* attempts reserved and not ended */
    int64_t last_ms;
    int64_t until_ms; /* locked out before this */
};

struct table {
    struct slot *v;   /* owned (a view's: borrowed) */
    size_t cap;       /* BW_MAX_THROTTLE_ENTRIES in memory; 1 in a view */
    int limit;        /* failures before a lockout; 0: this table is not used */
    const char *kind; /* its rows' kind in the store */
};

struct throttle {
    pthread_mutex_t lock;
    struct throttle_policy p;
    unsigned char hkey[crypto_shorthash_KEYBYTES];
    struct table names, addrs; /* attempts from unknown devices */
    struct table pairs;        /* failures of a name from an address (no lockout: forgiving) */
    struct table devices;      /* attempts from known devices, by the cookie's nonce */
    struct store *store;       /* shared: the tables' rows live there (NULL: in memory) */
};

static void tables_init(struct throttle *t, const struct throttle_policy *p)
{
    t->p = *p;
    t->names.limit = p->account_failures;
    t->addrs.limit = p->address_failures;
    t->pairs.limit = p->address_failures ? 1 : 0; /* used while addresses are counted */
    t->devices.limit = p->account_failures;
    t->names.kind = "name";
    t->addrs.kind = "address";
    t->pairs.kind = "pair";
    t->devices.kind = "device";
}

struct throttle *throttle_new(const struct throttle_policy *p)
{
    struct throttle *t = calloc(1, sizeof(*t));
    if (!t)
        return NULL;
    pthread_mutex_init(&t->lock, NULL);
    tables_init(t, p);
    struct table *tables[] = {&t->names, &t->addrs, &t->pairs, &t->devices};
    for (size_t i = 0; i < 4; i++) {
        tables[i]->cap = BW_MAX_THROTTLE_ENTRIES;
        tables[i]->v = calloc(BW_MAX_THROTTLE_ENTRIES, sizeof(struct slot));
        if (!tables[i]->v) {
            throttle_free(t);
            return NULL;
        }
    }
    crypto_shorthash_keygen(t->hkey);
    return t;
}

/* The key every server of a store hashes names and addresses with. */
static int shared_key(struct store *st, unsigned char key[crypto_shorthash_KEYBYTES], char **cause)
{
    unsigned char fresh[crypto_shorthash_KEYBYTES];
    crypto_shorthash_keygen(fresh);
    int rc = store_server_key(st, "throttle", fresh, sizeof(fresh), key, cause);
    sodium_memzero(fresh, sizeof(fresh));
    return rc;
}

struct throttle *throttle_new_shared(const struct throttle_policy *p, struct store *st,
                                     char **cause)
{
    struct throttle *t = calloc(1, sizeof(*t));
    if (!t) {
        bw_fail(cause, BW_ERR_NOMEM, "out of memory");
        return NULL;
    }
    pthread_mutex_init(&t->lock, NULL);
    tables_init(t, p);
    t->store = st;
    if (shared_key(st, t->hkey, cause) < 0) {
        throttle_free(t);
        return NULL;
    }
    return t;
}

void throttle_free(struct throttle *t)
{
    if (!t)
        return;
    if (!t->store) {
        free(t->names.v);
        free(t->addrs.v);
        free(t->pairs.v);
        free(t->devices.v);
    }
    pthread_mutex_destroy(&t->lock);
    free(t);
}

int64_t throttle_clock_ms(const struct throttle *t)
{
    return t->store ? wall_ms() : (int64_t)now_ms();
}

static uint64_t key_of(const struct throttle *t, const char *s)
{
    unsigned char h[crypto_shorthash_BYTES];
    crypto_shorthash(h, (const unsigned char *)s, strlen(s), t->hkey);
    uint64_t k;
    memcpy(&k, h, sizeof(k));
    return k ? k : 1;
}

static bool expired(const struct throttle *t, const struct slot *s, int64_t now)
{
    return s->pending == 0 && now - s->last_ms >= (int64_t)t->p.window_s * 1000 &&
           now >= s->until_ms;
}

/* The slot of `key`, reset if its failures are forgotten by now; with
 * `create`, a new one when there is none, in the first of: a free slot, a
 * forgotten one, the one not locked out whose last failure is oldest, the
 * locked-out one whose last failure is oldest (NULL only when every slot has
 * an attempt in flight). */
static struct slot *find(const struct throttle *t, struct table *tb, uint64_t key, int64_t now,
                         bool create)
{
    struct slot *free_slot = NULL, *stale = NULL, *oldest = NULL, *oldest_locked = NULL;
    for (size_t i = 0; i < tb->cap; i++) {
        struct slot *s = &tb->v[i];
        if (s->key == key) {
            if (expired(t, s, now)) {
                s->failures = 0;
                s->until_ms = 0;
            }
            return s;
        }
        if (!create)
            continue;
        if (s->key == 0) {
            if (!free_slot)
                free_slot = s;
        } else if (expired(t, s, now)) {
            if (!stale)
                stale = s;
        } else if (s->pending == 0 && now >= s->until_ms) {
            if (!oldest || s->last_ms < oldest->last_ms)
                oldest = s;
        } else if (s->pending == 0) {
            if (!oldest_locked || s->last_ms < oldest_locked->last_ms)
                oldest_locked = s;
        }
    }
    struct slot *spare = free_slot ? free_slot : stale ? stale : oldest ? oldest : oldest_locked;
    if (!spare)
        return NULL;
    memset(spare, 0, sizeof(*spare));
    spare->key = key;
    spare->last_ms = now;
    return spare;
}

/* Milliseconds the slot makes an attempt wait now (0: it may go). */
static int64_t wait_of(const struct slot *s, int limit, int burst, int64_t now)
{
    if (!s)
        return 0;
    if (now < s->until_ms)
        return s->until_ms - now;
    /* Attempts in flight may use up the failures left, and one may run after
     * each lockout. Before the first lockout, up to `burst` may run at once
     * anyway (an address: a class signing in together). */
    int room = limit - s->failures;
    int cap = room > 1 ? room : 1;
    if (s->failures < limit && burst > cap)
        cap = burst;
    if (s->pending >= cap)
        return 1000;
    return 0;
}

/* The keys of one attempt, in the four tables (0: not used by it). */
struct keys {
    uint64_t name, address, pair, device;
};

static int begin_body(struct throttle *t, const struct keys *k, bool has_device, int64_t now_ms,
                      enum throttle_scope *scope, bool *trusted)
{
    *trusted = false;
    /* A known device meets its own lockout only; once locked out it is an
     * unknown device like any other. */
    if (has_device && t->devices.limit) {
        struct slot *d = find(t, &t->devices, k->device, now_ms, false);
        if (wait_of(d, t->devices.limit, 0, now_ms) == 0) {
            if (!d)
                d = find(t, &t->devices, k->device, now_ms, true);
            if (d)
                d->pending++;
            *trusted = true;
            return 0;
        }
    } else if (has_device) {
        *trusted = true; /* names are not throttled: nothing to spare it */
        return 0;
    }
    /* Slots are made only for attempts that go ahead, so a flood of refused
     * ones cannot push other names' failures out of the table. */
    struct slot *n = t->names.limit ? find(t, &t->names, k->name, now_ms, false) : NULL;
    struct slot *a = t->addrs.limit ? find(t, &t->addrs, k->address, now_ms, false) : NULL;
    int64_t wn = wait_of(n, t->names.limit, 0, now_ms);
    int64_t wa = wait_of(a, t->addrs.limit, BW_SIGNIN_ADDRESS_BURST, now_ms);
    int64_t wait = wn > wa ? wn : wa;
    if (wait > 0) {
        *scope = wn >= wa ? THROTTLE_ACCOUNT : THROTTLE_ADDRESS;
    } else {
        if (!n && t->names.limit)
            n = find(t, &t->names, k->name, now_ms, true);
        if (!a && t->addrs.limit)
            a = find(t, &t->addrs, k->address, now_ms, true);
        if (n)
            n->pending++;
        if (a)
            a->pending++;
    }
    return wait > 0 ? (int)((wait + 999) / 1000) : 0;
}

/* Counts a failure; returns the lockout it starts in seconds (0: none). */
static int64_t failed(const struct throttle *t, struct slot *s, int limit, int64_t now)
{
    s->failures++;
    s->last_ms = now;
    if (s->failures < limit)
        return 0;
    int64_t lock = t->p.lockout_s;
    for (int i = limit; i < s->failures && lock < t->p.window_s; i++)
        lock *= 2;
    if (lock > t->p.window_s)
        lock = t->p.window_s;
    s->until_ms = now + lock * 1000;
    return lock;
}

/* The key of `name` from the address key `akey`, for the pairs table. */
static uint64_t pair_key(const struct throttle *t, const char *name, const char *akey)
{
    char both[BW_MAX_USERNAME + THROTTLE_KEY_CHARS + 2];
    snprintf(both, sizeof(both), "%.*s\n%s", BW_MAX_USERNAME, name, akey);
    return key_of(t, both);
}

static int end_body(struct throttle *t, const struct keys *k, bool has_device,
                    enum throttle_outcome outcome, int64_t now_ms, enum throttle_scope *scope)
{
    bool wrong = outcome == THROTTLE_WRONG;
    int64_t ln = 0, la = 0;
    *scope = THROTTLE_ACCOUNT;
    if (has_device) {
        struct slot *d = t->devices.limit ? find(t, &t->devices, k->device, now_ms, wrong) : NULL;
        if (d && d->pending > 0)
            d->pending--;
        if (d && outcome == THROTTLE_RIGHT) {
            d->failures = 0;
            d->until_ms = 0;
            if (d->pending == 0)
                d->key = 0;
        }
        if (wrong && d)
            ln = failed(t, d, t->devices.limit, now_ms);
        *scope = THROTTLE_DEVICE;
        return (int)ln;
    }
    /* A slot evicted while its attempt ran is made again for a failure. */
    struct slot *n = t->names.limit ? find(t, &t->names, k->name, now_ms, wrong) : NULL;
    struct slot *a = t->addrs.limit ? find(t, &t->addrs, k->address, now_ms, wrong) : NULL;
    struct slot *pr = t->pairs.limit ? find(t, &t->pairs, k->pair, now_ms, wrong) : NULL;
    if (n && n->pending > 0)
        n->pending--;
    if (a && a->pending > 0)
        a->pending--;
    if (outcome == THROTTLE_RIGHT && n) {
        n->failures = 0;
        n->until_ms = 0;
        if (n->pending == 0)
            n->key = 0;
    }
    if (outcome == THROTTLE_RIGHT && pr) {
        /* Its own typos from here, forgiven: they were not guesses. */
        if (a)
            a->failures = a->failures > pr->failures ? a->failures - pr->failures : 0;
        pr->key = 0;
    }
    if (wrong && n)
        ln = failed(t, n, t->names.limit, now_ms);
    if (wrong && a)
        la = failed(t, a, t->addrs.limit, now_ms);
    if (wrong && pr) {
        pr->failures++;
        pr->last_ms = now_ms;
    }
    *scope = ln >= la ? THROTTLE_ACCOUNT : THROTTLE_ADDRESS;
    return (int)(ln > la ? ln : la);
}

static bool unlock_body(struct table *tb, uint64_t k)
{
    bool was = false;
    for (size_t i = 0; i < tb->cap; i++) {
        struct slot *s = &tb->v[i];
        if (s->key != k)
            continue;
        was = s->failures > 0 || s->until_ms > 0;
        s->failures = 0;
        s->until_ms = 0;
        if (s->pending == 0)
            s->key = 0;
    }
    return was;
}

/* --- shared: the tables' rows in the store --------------------------------------------
 *
 * An operation on a shared throttle loads the rows of its keys (locked, in
 * the store's transaction), runs the same code as in memory on a view whose
 * tables hold one slot each, and writes back what changed: a slot emptied
 * deletes its row. An attempt reserved by a server that died is given up
 * BW_THROTTLE_PENDING_S after it was reserved. */

enum op { OP_BEGIN, OP_END, OP_UNLOCK };

struct view {
    struct throttle t; /* tables of one slot each, over slots[] */
    struct slot slots[4];
    int64_t pending0[4]; /* pending as loaded */
    struct table *tables[4];
    uint64_t keys[4];
    /* the operation and its results */
    enum op op;
    const struct keys *k;
    bool has_device;
    enum throttle_outcome outcome;
    enum throttle_scope unlock_scope;
    int64_t now;
    enum throttle_scope scope;
    bool trusted, was;
    int result;
};

static void hex_key(uint64_t k, char out[17])
{
    snprintf(out, 17, "%016llx", (unsigned long long)k);
}

static void run_view(void *arg, struct store_throttle_row *rows, size_t n)
{
    struct view *v = arg;
    for (size_t i = 0; i < n; i++) {
        struct slot *sl = &v->slots[i];
        memset(sl, 0, sizeof(*sl));
        if (rows[i].found) {
            sl->key = v->keys[i];
            sl->failures = (int)rows[i].failures;
            sl->pending = (int)rows[i].pending;
            if (sl->pending > 0 && v->now - rows[i].pending_ms > BW_THROTTLE_PENDING_S * 1000LL)
                sl->pending = 0; /* reserved by a server that went away */
            sl->last_ms = rows[i].last_ms;
            sl->until_ms = rows[i].until_ms;
        }
        v->pending0[i] = sl->pending;
    }
    if (v->op == OP_BEGIN)
        v->result = begin_body(&v->t, v->k, v->has_device, v->now, &v->scope, &v->trusted);
    else if (v->op == OP_END)
        v->result = end_body(&v->t, v->k, v->has_device, v->outcome, v->now, &v->scope);
    else
        v->was = unlock_body(v->tables[0], v->keys[0]);
    for (size_t i = 0; i < n; i++) {
        struct slot *sl = &v->slots[i];
        rows[i].drop = sl->key == 0 || expired(&v->t, sl, v->now);
        rows[i].failures = sl->failures;
        if (sl->pending > v->pending0[i])
            rows[i].pending_ms = v->now;
        rows[i].pending = sl->pending;
        rows[i].last_ms = sl->last_ms;
        rows[i].until_ms = sl->until_ms;
    }
}

/* Adds table tb with key k to the view (if the table is used). */
static void view_add(struct view *v, struct table *tb, uint64_t k, struct store_throttle_row *rows,
                     size_t *n)
{
    if (!tb->limit || !k)
        return;
    size_t i = *n;
    tb->v = &v->slots[i];
    tb->cap = 1;
    v->tables[i] = tb;
    v->keys[i] = k;
    memset(&rows[i], 0, sizeof(rows[i]));
    rows[i].kind = tb->kind;
    hex_key(k, rows[i].key);
    (*n)++;
}

static int shared_run(struct throttle *t, struct view *v, char **cause)
{
    struct store_throttle_row rows[4];
    size_t n = 0;
    tables_init(&v->t, &t->p);
    struct throttle *vt = &v->t;
    if (v->op == OP_UNLOCK) {
        view_add(v, v->unlock_scope == THROTTLE_ADDRESS ? &vt->addrs : &vt->names,
                 v->unlock_scope == THROTTLE_ADDRESS ? v->k->address : v->k->name, rows, &n);
    } else if (v->op == OP_END && v->has_device) {
        view_add(v, &vt->devices, v->k->device, rows, &n);
    } else {
        /* A known device that is locked out begins as an unknown one: its
         * name's and address's rows too. */
        if (v->has_device)
            view_add(v, &vt->devices, v->k->device, rows, &n);
        view_add(v, &vt->names, v->k->name, rows, &n);
        view_add(v, &vt->addrs, v->k->address, rows, &n);
        if (v->op == OP_END)
            view_add(v, &vt->pairs, v->k->pair, rows, &n);
    }
    if (n == 0) {
        run_view(v, rows, 0);
        return BW_OK;
    }
    return store_throttle_update(t->store, rows, n, run_view, v, cause);
}

static void keys_of(struct throttle *t, const char *name, const char *address, const char *device,
                    struct keys *k)
{
    char akey[THROTTLE_KEY_CHARS];
    throttle_address_key(address, akey);
    k->name = key_of(t, name);
    k->address = key_of(t, akey);
    k->pair = pair_key(t, name, akey);
    k->device = device ? key_of(t, device) : 0;
}

int throttle_begin(struct throttle *t, const char *name, const char *address, const char *device,
                   int64_t now_ms, enum throttle_scope *scope, bool *trusted)
{
    struct keys k;
    keys_of(t, name, address, device, &k);
    if (t->store) {
        struct view v = {.op = OP_BEGIN, .k = &k, .has_device = device != NULL, .now = now_ms};
        char *cause = NULL;
        if (shared_run(t, &v, &cause) < 0) {
            /* The store is away: no sign-in can be checked anyway (the
             * account is read from it too). Refused for a second. */
            log_error("auth: sign-in throttle: %s", cause ? cause : "error");
            free(cause);
            *trusted = false;
            *scope = THROTTLE_ADDRESS;
            return 1;
        }
        *scope = v.scope;
        *trusted = v.trusted;
        return v.result;
    }
    pthread_mutex_lock(&t->lock);
    int wait = begin_body(t, &k, device != NULL, now_ms, scope, trusted);
    pthread_mutex_unlock(&t->lock);
    return wait;
}

int throttle_end(struct throttle *t, const char *name, const char *address, const char *device,
                 enum throttle_outcome outcome, int64_t now_ms, enum throttle_scope *scope)
{
    struct keys k;
    keys_of(t, name, address, device, &k);
    if (t->store) {
        struct view v = {
            .op = OP_END, .k = &k, .has_device = device != NULL, .outcome = outcome, .now = now_ms};
        char *cause = NULL;
        if (shared_run(t, &v, &cause) < 0) {
            log_error("auth: sign-in throttle: %s", cause ? cause : "error");
            free(cause);
            *scope = THROTTLE_ACCOUNT;
            return 0;
        }
        *scope = v.scope;
        return v.result;
    }
    pthread_mutex_lock(&t->lock);
    int locked = end_body(t, &k, device != NULL, outcome, now_ms, scope);
    pthread_mutex_unlock(&t->lock);
    return locked;
}

bool throttle_unlock(struct throttle *t, enum throttle_scope scope, const char *key)
{
    char akey[THROTTLE_KEY_CHARS];
    if (scope == THROTTLE_ADDRESS)
        throttle_address_key(key, akey);
    uint64_t k = key_of(t, scope == THROTTLE_ADDRESS ? akey : key);
    if (t->store) {
        struct keys ks = {.name = k, .address = k};
        struct view v = {.op = OP_UNLOCK, .k = &ks, .unlock_scope = scope, .now = wall_ms()};
        char *cause = NULL;
        if (shared_run(t, &v, &cause) < 0) {
            log_error("auth: unlock: %s", cause ? cause : "error");
            free(cause);
        }
        return v.was;
    }
    pthread_mutex_lock(&t->lock);
    bool was = unlock_body(scope == THROTTLE_ADDRESS ? &t->addrs : &t->names, k);
    pthread_mutex_unlock(&t->lock);
    return was;
}

int throttle_prune(struct throttle *t, int64_t now_ms, char **cause)
{
    if (!t->store)
        return BW_OK; /* in memory: a full table makes room itself */
    return store_throttles_prune(t->store, false, now_ms, (int64_t)t->p.window_s * 1000,
                                 BW_THROTTLE_PENDING_S * 1000LL, cause);
}

struct bucket {
    uint64_t key; /* 0: free */
    double tokens;
    int64_t at_ms; /* tokens counted at this time */
};

struct rate_limit {
    pthread_mutex_t lock;
    double burst, per_ms; /* capacity; tokens refilled per millisecond */
    int window_s;
    unsigned char hkey[crypto_shorthash_KEYBYTES];
    struct bucket *v;    /* BW_MAX_THROTTLE_ENTRIES (in memory) */
    struct store *store; /* shared: the buckets' rows live there */
};

static struct rate_limit *rate_alloc(int burst, int window_s)
{
    struct rate_limit *r = calloc(1, sizeof(*r));
    if (!r)
        return NULL;
    pthread_mutex_init(&r->lock, NULL);
    r->burst = burst;
    r->window_s = window_s;
    r->per_ms = window_s > 0 ? (double)burst / ((double)window_s * 1000.0) : 0;
    return r;
}

struct rate_limit *rate_new(int burst, int window_s)
{
    struct rate_limit *r = rate_alloc(burst, window_s);
    if (!r)
        return NULL;
    r->v = calloc(BW_MAX_THROTTLE_ENTRIES, sizeof(*r->v));
    if (!r->v) {
        rate_free(r);
        return NULL;
    }
    crypto_shorthash_keygen(r->hkey);
    return r;
}

struct rate_limit *rate_new_shared(int burst, int window_s, struct store *st, char **cause)
{
    struct rate_limit *r = rate_alloc(burst, window_s);
    if (!r) {
        bw_fail(cause, BW_ERR_NOMEM, "out of memory");
        return NULL;
    }
    r->store = st;
    if (shared_key(st, r->hkey, cause) < 0) {
        rate_free(r);
        return NULL;
    }
    return r;
}

void rate_free(struct rate_limit *r)
{
    if (!r)
        return;
    free(r->v);
    pthread_mutex_destroy(&r->lock);
    free(r);
}

int64_t rate_clock_ms(const struct rate_limit *r)
{
    return r->store ? wall_ms() : (int64_t)now_ms();
}

int rate_prune(struct rate_limit *r, int64_t now_ms, char **cause)
{
    if (!r->store)
        return BW_OK;
    return store_throttles_prune(r->store, true, now_ms, (int64_t)r->window_s * 1000, 0, cause);
}

static void refill(const struct rate_limit *r, struct bucket *b, int64_t now)
{
    if (now > b->at_ms)
        b->tokens += (double)(now - b->at_ms) * r->per_ms;
    if (b->tokens > r->burst)
        b->tokens = r->burst;
    b->at_ms = now;
}

/* The bucket of `key`, made full when it has none: a free slot, else the
 * fullest one (call with the lock held). */
static struct bucket *bucket_of(struct rate_limit *r, uint64_t key, int64_t now)
{
    struct bucket *spare = NULL;
    for (size_t i = 0; i < BW_MAX_THROTTLE_ENTRIES; i++) {
        struct bucket *b = &r->v[i];
        if (b->key == key) {
            refill(r, b, now);
            return b;
        }
        if (b->key == 0) {
            if (!spare || spare->key != 0)
                spare = b;
            continue;
        }
        if (spare && spare->key == 0)
            continue;
        refill(r, b, now);
        if (!spare || b->tokens > spare->tokens)
            spare = b;
    }
    spare->key = key;
    spare->tokens = r->burst;
    spare->at_ms = now;
    return spare;
}

static uint64_t rate_key(const struct rate_limit *r, const char *address)
{
    char akey[THROTTLE_KEY_CHARS];
    unsigned char h[crypto_shorthash_BYTES];
    uint64_t k;
    throttle_address_key(address, akey);
    crypto_shorthash(h, (const unsigned char *)akey, strlen(akey), r->hkey);
    memcpy(&k, h, sizeof(k));
    return k ? k : 1;
}

static int take_body(struct rate_limit *r, struct bucket *b)
{
    if (b->tokens >= 1.0) {
        b->tokens -= 1.0;
        return 0;
    }
    return (int)(((1.0 - b->tokens) / r->per_ms + 999.0) / 1000.0);
}

static void give_body(struct rate_limit *r, struct bucket *b)
{
    b->tokens = b->tokens + 1.0 > r->burst ? r->burst : b->tokens + 1.0;
}

struct rate_view {
    struct rate_limit *r;
    int64_t now;
    bool take;
    int wait;
};

static void run_rate(void *arg, struct store_throttle_row *row, size_t n)
{
    struct rate_view *v = arg;
    struct bucket b = {1, v->r->burst, v->now};
    (void)n;
    if (row->found) {
        b.tokens = row->tokens;
        b.at_ms = row->last_ms;
        refill(v->r, &b, v->now);
    }
    if (v->take)
        v->wait = take_body(v->r, &b);
    else
        give_body(v->r, &b);
    row->tokens = b.tokens;
    row->last_ms = b.at_ms;
    row->drop = b.tokens >= v->r->burst; /* a full bucket is the same as none */
}

static int rate_shared(struct rate_limit *r, const char *address, int64_t now_ms, bool take)
{
    struct store_throttle_row row = {.kind = "signup"};
    struct rate_view v = {r, now_ms, take, 0};
    char *cause = NULL;
    hex_key(rate_key(r, address), row.key);
    if (store_throttle_update(r->store, &row, 1, run_rate, &v, &cause) < 0) {
        log_error("auth: sign-up throttle: %s", cause ? cause : "error");
        free(cause);
        return take ? 1 : 0;
    }
    return v.wait;
}

int rate_take(struct rate_limit *r, const char *address, int64_t now_ms)
{
    if (r->burst <= 0)
        return 0;
    if (r->store)
        return rate_shared(r, address, now_ms, true);
    uint64_t key = rate_key(r, address);
    pthread_mutex_lock(&r->lock);
    int wait = take_body(r, bucket_of(r, key, now_ms));
    pthread_mutex_unlock(&r->lock);
    return wait;
}

void rate_give_back(struct rate_limit *r, const char *address, int64_t now_ms)
{
    if (r->burst <= 0)
        return;
    if (r->store) {
        rate_shared(r, address, now_ms, false);
        return;
    }
    uint64_t key = rate_key(r, address);
    pthread_mutex_lock(&r->lock);
    give_body(r, bucket_of(r, key, now_ms));
    pthread_mutex_unlock(&r->lock);
}

void throttle_address_key(const char *address, char out[THROTTLE_KEY_CHARS])
{
    struct in6_addr a6;
    struct in_addr a4;
    if (inet_pton(AF_INET6, address, &a6) == 1) {
        if (IN6_IS_ADDR_V4MAPPED(&a6)) {
            memcpy(&a4, &a6.s6_addr[12], sizeof(a4));
            if (inet_ntop(AF_INET, &a4, out, THROTTLE_KEY_CHARS))
                return;
        } else {
            memset(&a6.s6_addr[8], 0, 8);
            char text[INET6_ADDRSTRLEN];
            if (inet_ntop(AF_INET6, &a6, text, sizeof(text))) {
                snprintf(out, THROTTLE_KEY_CHARS, "%s/64", text);
                return;
            }
        }
    }
    snprintf(out, THROTTLE_KEY_CHARS, "%s", address);
}
