#include "buf.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "error.h"
#include "banned.h"

void buf_init(struct buf *b, size_t max)
{
    b->data = NULL;
    b->len = 0;
    b->cap = 0;
    b->max = max;
}

void buf_release(struct buf *b)
{
    free(b->data);
    buf_init(b, b->max);
}

void buf_reset(struct buf *b)
{
    b->len = 0;
    if (b->data)
        b->data[0] = '\0';
}

/* Makes room for `extra` more bytes plus the NUL. */
static int buf_grow(struct buf *b, size_t extra)
{
    size_t need, cap;
    char *p;

    if (extra > b->max - b->len || b->len > b->max)
        return BW_ERR_LIMIT;
    need = b->len + extra + 1;
    if (need <= b->cap)
        return BW_OK;
    cap = b->cap ? b->cap : 64;
    while (cap < need)
        cap = cap > SIZE_MAX / 2 ? need : cap * 2;
    p = realloc(b->data, cap);
    if (!p)
        return BW_ERR_NOMEM;
    b->data = p;
    b->cap = cap;
    return BW_OK;
}

int buf_append(struct buf *b, const void *data, size_t len)
{
    int rc = buf_grow(b, len);
    if (rc)
        return rc;
    if (len)
        memcpy(b->data + b->len, data, len);
    b->len += len;
    b->data[b->len] = '\0';
    return BW_OK;
}

int buf_puts(struct buf *b, const char *s)
{
    return buf_append(b, s, strlen(s));
}

int buf_putc(struct buf *b, char c)
{
    return buf_append(b, &c, 1);
}

int buf_vaddf(struct buf *b, const char *fmt, va_list ap)
{
    va_list again;
    int n, rc;

    va_copy(again, ap);
    n = vsnprintf(NULL, 0, fmt, ap);
    if (n < 0) {
        va_end(again);
        return BW_ERR_INVALID;
    }
    rc = buf_grow(b, (size_t)n);
    if (rc == BW_OK) {
        vsnprintf(b->data + b->len, (size_t)n + 1, fmt, again);
        b->len += (size_t)n;
    }
    va_end(again);
    return rc;
}

int buf_addf(struct buf *b, const char *fmt, ...)
{
    va_list ap;
    int rc;
    va_start(ap, fmt);
    rc = buf_vaddf(b, fmt, ap);
    va_end(ap);
    return rc;
}

char *buf_detach(struct buf *b)
{
    char *s = b->data;
    if (!s)
        s = strdup("");
    buf_init(b, b->max);
    return s;
}
