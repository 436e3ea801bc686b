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
 * most recently used ones, up to BW_BUILD_CACHE_ENTRIES and
 * BW_BUILD_CACHE_BYTES.
 *
 * A Triton compile (triton_compile.h) is kept the same way, as one entry
 * per request (all the kernel variants of a submission), keyed by the
 * request's wire encoding: source, architecture, every kernel's signature,
 * specialisation, constexprs, warps, stages and maxnreg.
 *
 * Only builds the source decides are kept: a cubin, or compile errors. A
 * compile stopped by a time, CPU or memory limit (compile_result.failure)
 * may depend on the machine's load and is never kept. Thread-safe: judgings
 * in several slots share one cache.
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

/* The key of a Triton request (false when the request is invalid: then it
 * is not cached, and its compile fails with the reason). */
bool build_cache_triton_key(const struct triton_request *rq, char key[65]);

/* As build_cache_get and build_cache_put, for a Triton compile's result. */
bool build_cache_get_triton(struct build_cache *c, const char key[65], struct triton_result *out);
void build_cache_put_triton(struct build_cache *c, const char key[65],
                            const struct triton_result *t);

/* Look-ups that found a build, and those that did not. */
void build_cache_counts(struct build_cache *c, unsigned long *hits, unsigned long *misses);

#endif
