/*
 * buf.h - a growable byte buffer with a hard cap.
 *
 * struct buf owns `data`, which is always NUL-terminated when not NULL, so a
 * buf holding text can be used as a C string. Every buf has a maximum size
 * (`max`, bytes excluding the NUL) fixed at init: appending past it fails with
 * BW_ERR_LIMIT and leaves the buffer as it was. Caps come from limits.h.
 */
#ifndef BW_BUF_H
#define BW_BUF_H

#include <stdarg.h>
#include <stddef.h>

struct buf {
    char *data; /* owned; NULL until the first append */
    size_t len; /* bytes used, excluding the terminating NUL */
    size_t cap; /* bytes allocated */
    size_t max; /* hard cap on len */
};

void buf_init(struct buf *b, size_t max);
/* Frees the data and leaves an empty buffer with the same cap. */
void buf_release(struct buf *b);
/* Empties without freeing. */
void buf_reset(struct buf *b);

int buf_append(struct buf *b, const void *data, size_t len);
int buf_puts(struct buf *b, const char *s);
int buf_putc(struct buf *b, char c);
int buf_addf(struct buf *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
int buf_vaddf(struct buf *b, const char *fmt, va_list ap) __attribute__((format(printf, 2, 0)));

/* Returns the data as a *new* string (never NULL on success: "" when empty) and
 * leaves the buffer empty; NULL if out of memory. */
char *buf_detach(struct buf *b);

#endif
