#include "arena.h"

#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/banned.h"

#define ARENA_CHUNK 4096

struct chunk {
    struct chunk *next;
    size_t used, size;
    _Alignas(16) unsigned char data[];
};

struct arena {
    struct chunk *head;
    size_t total;
};

struct arena *arena_new(void)
{
    return calloc(1, sizeof(struct arena));
}

void arena_free(struct arena *a)
{
    if (!a)
        return;
    struct chunk *c = a->head;
    while (c) {
        struct chunk *next = c->next;
        free(c);
        c = next;
    }
    free(a);
}

void *arena_alloc(struct arena *a, size_t n)
{
    size_t need = (n + 15) & ~(size_t)15;
    if (need < n || need > ARENA_MAX_BYTES || a->total + need > ARENA_MAX_BYTES)
        return NULL;
    struct chunk *c = a->head;
    if (!c || c->size - c->used < need) {
        size_t size = need > ARENA_CHUNK ? need : ARENA_CHUNK;
        c = malloc(sizeof(*c) + size);
        if (!c)
            return NULL;
        c->used = 0;
        c->size = size;
        c->next = a->head;
        a->head = c;
    }
    void *p = c->data + c->used;
    c->used += need;
    a->total += need;
    memset(p, 0, n);
    return p;
}

char *arena_strndup(struct arena *a, const char *s, size_t n)
{
    char *p = arena_alloc(a, n + 1);
    if (p) {
        memcpy(p, s, n);
        p[n] = '\0';
    }
    return p;
}

char *arena_strdup(struct arena *a, const char *s)
{
    return arena_strndup(a, s, strlen(s));
}

char *arena_printf(struct arena *a, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(NULL, 0, fmt, ap);
    va_end(ap);
    if (n < 0)
        return NULL;
    char *p = arena_alloc(a, (size_t)n + 1);
    if (!p)
        return NULL;
    va_start(ap, fmt);
    vsnprintf(p, (size_t)n + 1, fmt, ap);
    va_end(ap);
    return p;
}
