#include "throttle.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <sodium.h>

#include "common/limits.h"
#include "common/banned.h"

struct slot {
    uint64_t key; /* 0: free */
    int failures; /* in the current window */
    int pending;  /* attempts reserved and not ended */
    int64_t last_ms;
    int64_t until_ms; /* locked out before this */
};

struct table {
    struct slot v[BW_MAX_THROTTLE_ENTRIES];
    int limit; /* failures before a lockout; 0: this table is not used */
};

struct throttle {
    pthread_mutex_t lock;
    struct throttle_policy p;
    unsigned char hkey[crypto_shorthash_KEYBYTES];
    struct table names, addrs; /* attempts from unknown devices */
    struct table pairs;        /* failures of a name from an address (no lockout: forgiving) */
    struct table devices;      /* attempts from known devices, by the cookie's nonce */
};

struct throttle *throttle_new(const struct throttle_policy *p)
{
    struct throttle *t = calloc(1, sizeof(*t));
    if (!t)
        return NULL;
    pthread_mutex_init(&t->lock, NULL);
    t->p = *p;
    t->names.limit = p->account_failures;
    t->addrs.limit = p->address_failures;
    t->pairs.limit = p->address_failures ? 1 : 0; /* used while addresses are counted */
    t->devices.limit = p->account_failures;
    crypto_shorthash_keygen(t->hkey);
    return t;
}

void throttle_free(struct throttle *t)
{
    if (!t)
        return;
    pthread_mutex_destroy(&t->lock);
    free(t);
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
    for (size_t i = 0; i < BW_MAX_THROTTLE_ENTRIES; i++) {
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

int throttle_begin(struct throttle *t, const char *name, const char *address, const char *device,
                   int64_t now_ms, enum throttle_scope *scope, bool *trusted)
{
    char akey[THROTTLE_KEY_CHARS];
    throttle_address_key(address, akey);
    uint64_t kn = key_of(t, name), ka = key_of(t, akey), kd = device ? key_of(t, device) : 0;
    *trusted = false;
    pthread_mutex_lock(&t->lock);
    /* A known device meets its own lockout only; once locked out it is an
     * unknown device like any other. */
    if (device && t->devices.limit) {
        struct slot *d = find(t, &t->devices, kd, now_ms, false);
        if (wait_of(d, t->devices.limit, 0, now_ms) == 0) {
            if (!d)
                d = find(t, &t->devices, kd, now_ms, true);
            if (d)
                d->pending++;
            *trusted = true;
            pthread_mutex_unlock(&t->lock);
            return 0;
        }
    } else if (device) {
        *trusted = true; /* names are not throttled: nothing to spare it */
        pthread_mutex_unlock(&t->lock);
        return 0;
    }
    /* Slots are made only for attempts that go ahead, so a flood of refused
     * ones cannot push other names' failures out of the table. */
    struct slot *n = t->names.limit ? find(t, &t->names, kn, now_ms, false) : NULL;
    struct slot *a = t->addrs.limit ? find(t, &t->addrs, ka, now_ms, false) : NULL;
    int64_t wn = wait_of(n, t->names.limit, 0, now_ms);
    int64_t wa = wait_of(a, t->addrs.limit, BW_SIGNIN_ADDRESS_BURST, now_ms);
    int64_t wait = wn > wa ? wn : wa;
    if (wait > 0) {
        *scope = wn >= wa ? THROTTLE_ACCOUNT : THROTTLE_ADDRESS;
    } else {
        if (!n && t->names.limit)
            n = find(t, &t->names, kn, now_ms, true);
        if (!a && t->addrs.limit)
            a = find(t, &t->addrs, ka, now_ms, true);
        if (n)
            n->pending++;
        if (a)
            a->pending++;
    }
    pthread_mutex_unlock(&t->lock);
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

int throttle_end(struct throttle *t, const char *name, const char *address, const char *device,
                 enum throttle_outcome outcome, int64_t now_ms, enum throttle_scope *scope)
{
    char akey[THROTTLE_KEY_CHARS];
    bool wrong = outcome == THROTTLE_WRONG;
    int64_t ln = 0, la = 0;
    throttle_address_key(address, akey);
    *scope = THROTTLE_ACCOUNT;
    pthread_mutex_lock(&t->lock);
    if (device) {
        struct slot *d =
            t->devices.limit ? find(t, &t->devices, key_of(t, device), now_ms, wrong) : NULL;
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
        pthread_mutex_unlock(&t->lock);
        *scope = THROTTLE_DEVICE;
        return (int)ln;
    }
    uint64_t kn = key_of(t, name), ka = key_of(t, akey);
    /* A slot evicted while its attempt ran is made again for a failure. */
    struct slot *n = t->names.limit ? find(t, &t->names, kn, now_ms, wrong) : NULL;
    struct slot *a = t->addrs.limit ? find(t, &t->addrs, ka, now_ms, wrong) : NULL;
    struct slot *pr =
        t->pairs.limit ? find(t, &t->pairs, pair_key(t, name, akey), now_ms, wrong) : NULL;
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
    pthread_mutex_unlock(&t->lock);
    *scope = ln >= la ? THROTTLE_ACCOUNT : THROTTLE_ADDRESS;
    return (int)(ln > la ? ln : la);
}

bool throttle_unlock(struct throttle *t, enum throttle_scope scope, const char *key)
{
    char akey[THROTTLE_KEY_CHARS];
    struct table *tb = scope == THROTTLE_ADDRESS ? &t->addrs : &t->names;
    if (scope == THROTTLE_ADDRESS)
        throttle_address_key(key, akey);
    uint64_t k = key_of(t, scope == THROTTLE_ADDRESS ? akey : key);
    bool was = false;
    pthread_mutex_lock(&t->lock);
    for (size_t i = 0; i < BW_MAX_THROTTLE_ENTRIES; i++) {
        struct slot *s = &tb->v[i];
        if (s->key != k)
            continue;
        was = s->failures > 0 || s->until_ms > 0;
        s->failures = 0;
        s->until_ms = 0;
        if (s->pending == 0)
            s->key = 0;
    }
    pthread_mutex_unlock(&t->lock);
    return was;
}

struct bucket {
    uint64_t key; /* 0: free */
    double tokens;
    int64_t at_ms; /* tokens counted at this time */
};

struct rate_limit {
    pthread_mutex_t lock;
    double burst, per_ms; /* capacity; tokens refilled per millisecond */
    unsigned char hkey[crypto_shorthash_KEYBYTES];
    struct bucket v[BW_MAX_THROTTLE_ENTRIES];
};

struct rate_limit *rate_new(int burst, int window_s)
{
    struct rate_limit *r = calloc(1, sizeof(*r));
    if (!r)
        return NULL;
    pthread_mutex_init(&r->lock, NULL);
    r->burst = burst;
    r->per_ms = window_s > 0 ? (double)burst / ((double)window_s * 1000.0) : 0;
    crypto_shorthash_keygen(r->hkey);
    return r;
}

void rate_free(struct rate_limit *r)
{
    if (!r)
        return;
    pthread_mutex_destroy(&r->lock);
    free(r);
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

int rate_take(struct rate_limit *r, const char *address, int64_t now_ms)
{
    if (r->burst <= 0)
        return 0;
    uint64_t key = rate_key(r, address);
    int wait = 0;
    pthread_mutex_lock(&r->lock);
    struct bucket *b = bucket_of(r, key, now_ms);
    if (b->tokens >= 1.0)
        b->tokens -= 1.0;
    else
        wait = (int)(((1.0 - b->tokens) / r->per_ms + 999.0) / 1000.0);
    pthread_mutex_unlock(&r->lock);
    return wait;
}

void rate_give_back(struct rate_limit *r, const char *address, int64_t now_ms)
{
    if (r->burst <= 0)
        return;
    uint64_t key = rate_key(r, address);
    pthread_mutex_lock(&r->lock);
    struct bucket *b = bucket_of(r, key, now_ms);
    b->tokens = b->tokens + 1.0 > r->burst ? r->burst : b->tokens + 1.0;
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
