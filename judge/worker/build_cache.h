/*
 * build_cache.h - compiled builds kept by what went into them, so that the
 * same source is not compiled twice.
 *
 * A compile is a pure function of its request: the source bytes, the file
 * name, the architecture, the options and whether it was sandboxed. A worker
 * compiles the same reference.cu for every submission of a problem, and a
 * learner often Runs the same source again (then Submits it): each of those
 * is an NVRTC compile of 70-90 ms on the H200 host, and two at once per
 * judging. The cache keys a build by the SHA-256 of its request and keeps the
 * most recently used ones: at most BW_BUILD_CACHE_BYTES of cubins, PTX and
 * logs together (and BW_BUILD_CACHE_ENTRIES entries), the least recently
 * used evicted first.
 *
 * A Triton build (triton_compile.h: one kernel variant of a submission) is
 * kept on its own, by the key triton_key.h makes: the module's whole text
 * but its launch lines, the variant, the target, Triton's version. So a
 * learner who edits only a launch line recompiles nothing, and one who edits
 * one @tune configuration's values recompiles only that configuration's
 * variants; another learner's module never meets these builds unless its
 * code is the same. Only builds that built are kept (a Triton compile
 * error's diagnostics belong to its whole request).
 *
 * A launcher program's builds (triton_launcher.h) are known by variant only
 * once the launcher is recorded, in the compile request itself: they are
 * kept under their module's key (triton_key_launcher_module) and their
 * variant's key text, so that judged can list the builds it holds for a
 * module before it sends the request (the request's "have" fields), and the
 * driver compiles only the others.
 *
 * Only builds the source decides are kept: a cubin, or (NVRTC) compile
 * errors. A compile stopped by a time, CPU or memory limit
 * (compile_result.failure) may depend on the machine's load and is never
 * kept. Thread-safe: judgings in several slots share one cache.
 */
#ifndef BW_BUILD_CACHE_H
#define BW_BUILD_CACHE_H

#include <stdbool.h>

#include "compile.h"
#include "triton_compile.h"

struct build_cache;

/* A *new* empty cache, or NULL when out of memory. */
struct build_cache *build_cache_new(void);
void build_cache_free(struct build_cache *c);

/* The key of a request: 64 hex digits of SHA-256 over every field that
 * changes the build. */
void build_cache_key(const struct compile_request *rq, char key[65]);

/* A copy of the build of `key` in *out (release it with compile_result_release,
 * out->from_cache set), or false when there is none (or out of memory). */
bool build_cache_get(struct build_cache *c, const char key[65], struct compile_result *out);

/* Keeps a copy of `r` under `key` when the source decided it (see above). */
void build_cache_put(struct build_cache *c, const char key[65], const struct compile_result *r);

/* A copy of the Triton build of `key` (triton_key_build) in *out (release it with
 * triton_build_release), or false when there is none (or out of memory). */
bool build_cache_get_triton(struct build_cache *c, const char key[65], struct triton_build *out);

/* Keeps a copy of Triton build `b` under `key` when it built (b->ok). */
void build_cache_put_triton(struct build_cache *c, const char key[65],
                            const struct triton_build *b);

/* A launcher program's build, as build_cache_get_variants copies it. */
struct cached_variant {
    char *variant;             /* owned: its variant's key text (triton_variant_key) */
    struct triton_build build; /* owned */
};

/* Keeps launcher build `b` (when b->ok) under its module's key and its variant's key text. */
void build_cache_put_variant(struct build_cache *c, const char module_key[65], const char *variant,
                             const struct triton_build *b);

/*
 * Copies of the builds kept under `module_key`, the most recently used first, at most `cap`,
 * into out[0..n) (release each with cached_variant_release); returns n. The copies are the
 * caller's: an eviction after this call takes nothing from them. Not counted as look-ups:
 * build_cache_touch_variant counts the ones used.
 */
size_t build_cache_get_variants(struct build_cache *c, const char module_key[65],
                                struct cached_variant *out, size_t cap);

/* A build build_cache_get_variants gave was used: a hit, and the most recently used now. */
void build_cache_touch_variant(struct build_cache *c, const char module_key[65],
                               const char *variant);

void cached_variant_release(struct cached_variant *v);

/* Look-ups that found a build, and those that did not. */
void build_cache_counts(struct build_cache *c, unsigned long *hits, unsigned long *misses);

/* What the cache holds now: entries and their bytes (at most BW_BUILD_CACHE_BYTES). */
void build_cache_size(struct build_cache *c, size_t *entries, size_t *bytes);

#endif
