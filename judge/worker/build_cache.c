#include "build_cache.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/error.h"
#include "common/limits.h"
#include "common/sha256.h"
#include "common/util.h"
#include "triton_key.h"
#include "common/banned.h"

/* An entry holds an NVRTC build or one Triton build (their keys never
 * collide: each kind's key hashes its own tag first). */
struct build_entry {
    char key[65];
    char group[65]; /* a launcher's build: its module's key ("" otherwise) */
    char *variant;  /* owned: a launcher's build: its variant's key text, else NULL */
    bool triton;
    struct compile_result r; /* owned, when !triton */
    struct triton_build t;   /* owned, when triton */
    size_t bytes;            /* what it costs the cache */
    unsigned long used;      /* tick of the last use */
};

struct build_cache {
    pthread_mutex_t lock;
    struct build_entry *entries; /* owned; grows up to BW_BUILD_CACHE_ENTRIES */
    int n, cap;
    size_t bytes;
    unsigned long tick, hits, misses;
};

static void entry_release(struct build_entry *e)
{
    free(e->variant);
    e->variant = NULL;
    if (e->triton)
        triton_build_release(&e->t);
    else
        compile_result_release(&e->r);
}

struct build_cache *build_cache_new(void)
{
    struct build_cache *c = calloc(1, sizeof(*c));

    if (c)
        pthread_mutex_init(&c->lock, NULL);
    return c;
}

void build_cache_free(struct build_cache *c)
{
    if (!c)
        return;
    for (int i = 0; i < c->n; i++)
        entry_release(&c->entries[i]);
    free(c->entries);
    pthread_mutex_destroy(&c->lock);
    free(c);
}

/* Hashes one field as its length and its bytes, so no two requests collide
 * by moving bytes between fields. */
static void put_field(struct sha256 *h, const void *data, size_t len)
{
    uint64_t n = len;

    sha256_update(h, &n, sizeof(n));
    sha256_update(h, data, len);
}

static void put_string(struct sha256 *h, const char *s)
{
    put_field(h, s ? s : "", s ? strlen(s) : 0);
}

void build_cache_key(const struct compile_request *rq, char key[65])
{
    struct sha256 h;
    unsigned char sandboxed = !rq->no_sandbox;

    sha256_init(&h);
    put_string(&h, "blockwise-build-1");
    put_field(&h, rq->source, rq->len);
    put_string(&h, rq->filename);
    put_string(&h, rq->arch);
    for (size_t i = 0; i < rq->n_options; i++)
        put_string(&h, rq->options[i]);
    put_field(&h, &sandboxed, 1);
    sha256_final_hex(&h, key);
}

/* A deep copy of src into *dst; false when out of memory (dst released). */
static bool copy_result(struct compile_result *dst, const struct compile_result *src)
{
    bool ok = true;

    memset(dst, 0, sizeof(*dst));
    dst->ok = src->ok;
    dst->ms = src->ms;
    dst->nvrtc_ms = src->nvrtc_ms;
    if (src->cubin) {
        dst->cubin = malloc(src->cubin_len ? src->cubin_len : 1);
        ok = dst->cubin != NULL;
        if (ok)
            memcpy(dst->cubin, src->cubin, src->cubin_len);
        dst->cubin_len = src->cubin_len;
    }
    dst->ptx = strdup_or_null(src->ptx);
    dst->log = strdup_or_null(src->log);
    dst->failure = strdup_or_null(src->failure);
    ok =
        ok && (!src->ptx || dst->ptx) && (!src->log || dst->log) && (!src->failure || dst->failure);
    for (size_t i = 0; ok && i < src->diags.n; i++)
        ok = diag_list_addf(&dst->diags, src->diags.items[i].line, src->diags.items[i].column, "%s",
                            src->diags.items[i].msg) == BW_OK;
    if (ok && src->n_kernels) {
        dst->kernels = calloc(src->n_kernels, sizeof(*dst->kernels));
        ok = dst->kernels != NULL;
        for (size_t k = 0; ok && k < src->n_kernels; k++) {
            dst->kernels[k] = src->kernels[k];
            dst->kernels[k].name = strdup_or_null(src->kernels[k].name);
            ok = !src->kernels[k].name || dst->kernels[k].name;
            dst->n_kernels = k + 1;
        }
    }
    if (!ok)
        compile_result_release(dst);
    return ok;
}

static size_t cost(const struct compile_result *r)
{
    return r->cubin_len + (r->ptx ? strlen(r->ptx) : 0) + (r->log ? strlen(r->log) : 0) + 1024;
}

static size_t triton_cost(const struct triton_build *b)
{
    return b->cubin_len + (b->ptx ? strlen(b->ptx) : 0) + 1024;
}

static struct build_entry *find(struct build_cache *c, const char key[65])
{
    for (int i = 0; i < c->n; i++)
        if (strcmp(c->entries[i].key, key) == 0)
            return &c->entries[i];
    return NULL;
}

static void evict(struct build_cache *c, int i)
{
    c->bytes -= c->entries[i].bytes;
    entry_release(&c->entries[i]);
    c->entries[i] = c->entries[--c->n];
}

/* Copies entry `key`'s build (of the kind `triton` says) into out; counts the look-up. */
static bool get_entry(struct build_cache *c, const char key[65], bool triton, void *out)
{
    struct build_entry *e;
    bool found = false;

    pthread_mutex_lock(&c->lock);
    e = find(c, key);
    if (e && e->triton == triton)
        found = triton ? triton_build_copy(out, &e->t) : copy_result(out, &e->r);
    if (found) {
        e->used = ++c->tick;
        c->hits++;
    } else {
        c->misses++;
    }
    pthread_mutex_unlock(&c->lock);
    return found;
}

bool build_cache_get(struct build_cache *c, const char key[65], struct compile_result *out)
{
    memset(out, 0, sizeof(*out));
    if (!get_entry(c, key, false, out))
        return false;
    out->from_cache = true;
    return true;
}

bool build_cache_get_triton(struct build_cache *c, const char key[65], struct triton_build *out)
{
    memset(out, 0, sizeof(*out));
    return get_entry(c, key, true, out);
}

/* Inserts `fresh` (stolen), evicting the least recently used entries to make room. */
static void put_entry(struct build_cache *c, const char key[65], struct build_entry *fresh)
{
    snprintf(fresh->key, sizeof(fresh->key), "%s", key);
    pthread_mutex_lock(&c->lock);
    if (find(c, key)) { /* another slot built it meanwhile */
        pthread_mutex_unlock(&c->lock);
        entry_release(fresh);
        return;
    }
    while (c->n > 0 &&
           (c->n == BW_BUILD_CACHE_ENTRIES || c->bytes + fresh->bytes > BW_BUILD_CACHE_BYTES)) {
        int oldest = 0;
        for (int i = 1; i < c->n; i++)
            if (c->entries[i].used < c->entries[oldest].used)
                oldest = i;
        evict(c, oldest);
    }
    if (c->n == c->cap) {
        int cap = c->cap ? c->cap * 2 : 64;
        struct build_entry *grown;
        if (cap > BW_BUILD_CACHE_ENTRIES)
            cap = BW_BUILD_CACHE_ENTRIES;
        grown = realloc(c->entries, (size_t)cap * sizeof(*grown));
        if (!grown) { /* out of memory: not kept */
            pthread_mutex_unlock(&c->lock);
            entry_release(fresh);
            return;
        }
        c->entries = grown;
        c->cap = cap;
    }
    fresh->used = ++c->tick;
    c->entries[c->n++] = *fresh;
    c->bytes += fresh->bytes;
    pthread_mutex_unlock(&c->lock);
}

void build_cache_put(struct build_cache *c, const char key[65], const struct compile_result *r)
{
    struct build_entry fresh = {.bytes = cost(r)};

    if (r->failure || fresh.bytes > BW_BUILD_CACHE_BYTES || !copy_result(&fresh.r, r))
        return;
    put_entry(c, key, &fresh);
}

void build_cache_put_triton(struct build_cache *c, const char key[65], const struct triton_build *b)
{
    struct build_entry fresh = {.triton = true, .bytes = triton_cost(b)};

    if (!b->ok || fresh.bytes > BW_BUILD_CACHE_BYTES || !triton_build_copy(&fresh.t, b))
        return;
    put_entry(c, key, &fresh);
}

void build_cache_put_variant(struct build_cache *c, const char module_key[65], const char *variant,
                             const struct triton_build *b)
{
    struct build_entry fresh = {.triton = true, .bytes = triton_cost(b) + strlen(variant)};
    char key[65];

    if (!b->ok || fresh.bytes > BW_BUILD_CACHE_BYTES || !(fresh.variant = strdup(variant)))
        return;
    if (!triton_build_copy(&fresh.t, b)) {
        free(fresh.variant);
        return;
    }
    snprintf(fresh.group, sizeof(fresh.group), "%s", module_key);
    triton_key_variant(module_key, variant, key);
    put_entry(c, key, &fresh);
}

size_t build_cache_get_variants(struct build_cache *c, const char module_key[65],
                                struct cached_variant *out, size_t cap)
{
    size_t n = 0;
    unsigned long newer_than = ~0ul;

    pthread_mutex_lock(&c->lock);
    /* the most recently used first: each round takes the newest entry older than the last */
    while (n < cap) {
        int best = -1;
        for (int i = 0; i < c->n; i++) {
            const struct build_entry *e = &c->entries[i];
            if (e->variant && strcmp(e->group, module_key) == 0 && e->used < newer_than &&
                (best < 0 || e->used > c->entries[best].used))
                best = i;
        }
        if (best < 0)
            break;
        newer_than = c->entries[best].used;
        memset(&out[n], 0, sizeof(out[n]));
        out[n].variant = strdup(c->entries[best].variant);
        if (!out[n].variant || !triton_build_copy(&out[n].build, &c->entries[best].t)) {
            cached_variant_release(&out[n]);
            break; /* out of memory: fewer builds are said to be held, the rest compiled */
        }
        n++;
    }
    pthread_mutex_unlock(&c->lock);
    return n;
}

void build_cache_touch_variant(struct build_cache *c, const char module_key[65],
                               const char *variant)
{
    struct build_entry *e;
    char key[65];

    triton_key_variant(module_key, variant, key);
    pthread_mutex_lock(&c->lock);
    e = find(c, key);
    if (e) {
        e->used = ++c->tick;
        c->hits++;
    }
    pthread_mutex_unlock(&c->lock);
}

void cached_variant_release(struct cached_variant *v)
{
    free(v->variant);
    triton_build_release(&v->build);
    memset(v, 0, sizeof(*v));
}

void build_cache_counts(struct build_cache *c, unsigned long *hits, unsigned long *misses)
{
    pthread_mutex_lock(&c->lock);
    *hits = c->hits;
    *misses = c->misses;
    pthread_mutex_unlock(&c->lock);
}

void build_cache_size(struct build_cache *c, size_t *entries, size_t *bytes)
{
    pthread_mutex_lock(&c->lock);
    *entries = (size_t)c->n;
    *bytes = c->bytes;
    pthread_mutex_unlock(&c->lock);
}
