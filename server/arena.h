/*
 * arena.h - a per-request bump allocator.
 *
 * Everything a request handler allocates for the life of one request (path
 * parameters, header copies, small strings) comes from the request's arena,
 * which http.c frees in libmicrohttpd's completion callback: handlers never
 * free piecemeal and never leak. Allocations are 16-byte aligned; a request
 * may allocate at most ARENA_MAX_BYTES in total.
 */
#ifndef BW_SERVER_ARENA_H
#define BW_SERVER_ARENA_H

#include <stddef.h>

#define ARENA_MAX_BYTES (4 * 1024 * 1024)

struct arena;

/* A new, empty arena; NULL if out of memory. */
struct arena *arena_new(void);
/* Frees every allocation and the arena; NULL is a no-op. */
void arena_free(struct arena *a);

/* Borrowed memory (valid until arena_free), zeroed; NULL past the cap or out of memory. */
void *arena_alloc(struct arena *a, size_t n);
char *arena_strdup(struct arena *a, const char *s);
char *arena_strndup(struct arena *a, const char *s, size_t n);
char *arena_printf(struct arena *a, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

#endif
