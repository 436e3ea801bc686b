/*
 * diag.c - located messages (diag.h).
 */
#include "diag.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/error.h"
#include "common/limits.h"
#include "common/banned.h"

void diag_list_release(struct diag_list *l)
{
    size_t i;

    for (i = 0; i < l->n; i++)
        free(l->items[i].msg);
    free(l->items);
    l->items = NULL;
    l->n = 0;
}

int diag_list_addf(struct diag_list *l, int line, int column, const char *fmt, ...)
{
    struct diag *items;
    char *msg = NULL;
    va_list ap;
    int n;

    va_start(ap, fmt);
    n = vasprintf(&msg, fmt, ap);
    va_end(ap);
    if (n < 0)
        return BW_ERR_NOMEM;
    items = realloc(l->items, (l->n + 1) * sizeof(*items));
    if (!items) {
        free(msg);
        return BW_ERR_NOMEM;
    }
    l->items = items;
    l->items[l->n].line = line;
    l->items[l->n].column = column;
    l->items[l->n].msg = msg;
    l->n++;
    return BW_OK;
}

int diag_refuse_source(const char *source, size_t len, struct diag_list *diags, bool *refused)
{
    const char *nul;

    *refused = false;
    if (len > BW_MAX_SOURCE_BYTES) {
        *refused = true;
        return diag_list_addf(diags, 0, 0,
                              "error: the source is %zu bytes, over the limit of %d bytes", len,
                              BW_MAX_SOURCE_BYTES);
    }
    nul = len ? memchr(source, '\0', len) : NULL;
    if (nul) {
        int line = 1, column = 1;
        for (const char *p = source; p < nul; p++) {
            column++;
            if (*p == '\n') {
                line++;
                column = 1;
            }
        }
        *refused = true;
        return diag_list_addf(diags, line, column, "error: the source contains a NUL byte");
    }
    return BW_OK;
}
