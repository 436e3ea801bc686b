#include "ptx.h"

#include <ctype.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/error.h"
#include "common/banned.h"

static const char *skip_space(const char *s)
{
    while (*s && isspace((unsigned char)*s))
        s++;
    return s;
}

/* Copies the identifier at s (PTX identifiers: [A-Za-z0-9_$%.]) to a new string. */
static char *take_ident(const char **s)
{
    const char *start = *s, *p = *s;
    while (*p && (isalnum((unsigned char)*p) || *p == '_' || *p == '$' || *p == '%' || *p == '.'))
        p++;
    *s = p;
    return p > start ? strndup(start, (size_t)(p - start)) : NULL;
}

/* Parses one ".param [.align N] [.ptr ...] .TYPE name[N]" up to ',' or ')'. */
static int parse_param(const char **sp, struct ptx_param *out, char **cause)
{
    const char *s = *sp, *end;
    int size = 0, count = 1;
    enum ptx_param_kind kind = PTX_PARAM_INT;
    bool typed = false;

    end = s;
    while (*end && *end != ',' && *end != ')')
        end++;
    while (s < end) {
        s = skip_space(s);
        if (s >= end)
            break;
        if (*s == '.') {
            const char *w = s + 1;
            size_t n = 0;
            while (w + n < end && isalnum((unsigned char)w[n]))
                n++;
            if (n >= 2 && (w[0] == 'u' || w[0] == 's' || w[0] == 'f' || w[0] == 'b') &&
                isdigit((unsigned char)w[1])) {
                int bits = (int)strtol(w + 1, NULL, 10);
                size = bits / 8;
                kind = w[0] == 'f'   ? PTX_PARAM_FLOAT
                       : w[0] == 'b' ? PTX_PARAM_BYTES
                                     : PTX_PARAM_INT;
                typed = true;
            }
            s = w + n;
        } else if (*s == '[') {
            count = (int)strtol(s + 1, NULL, 10);
            while (s < end && *s != ']')
                s++;
            if (s < end)
                s++;
            kind = PTX_PARAM_BYTES;
        } else {
            s++;
        }
    }
    if (!typed || size <= 0 || count <= 0)
        return bw_fail(cause, BW_ERR_INVALID, "unreadable PTX parameter \"%.*s\"", (int)(end - *sp),
                       *sp);
    out->kind = kind;
    out->size = size * count;
    *sp = end;
    return BW_OK;
}

int ptx_parse_entries(const char *ptx, struct ptx_entries *out, char **cause)
{
    const char *s = ptx;
    int rc = BW_OK;

    memset(out, 0, sizeof(*out));
    while ((s = strstr(s, ".entry")) != NULL) {
        struct ptx_entry e = {0}, *grown;

        /* ".entry" must be a whole word. */
        if (!isspace((unsigned char)s[6])) {
            s += 6;
            continue;
        }
        s = skip_space(s + 6);
        e.name = take_ident(&s);
        if (!e.name)
            return bw_fail(cause, BW_ERR_INVALID, "unreadable PTX .entry name");
        s = skip_space(s);
        if (*s == '(') {
            s++;
            for (;;) {
                s = skip_space(s);
                if (*s == ')') {
                    s++;
                    break;
                }
                if (strncmp(s, ".param", 6) != 0) {
                    rc = bw_fail(cause, BW_ERR_INVALID,
                                 "unexpected text in the parameters of PTX entry %s", e.name);
                    goto fail;
                }
                if (e.n_params == PTX_MAX_PARAMS) {
                    rc = bw_fail(cause, BW_ERR_LIMIT, "kernel %s has more than %d parameters",
                                 e.name, PTX_MAX_PARAMS);
                    goto fail;
                }
                s += 6;
                rc = parse_param(&s, &e.params[e.n_params++], cause);
                if (rc)
                    goto fail;
                if (*s == ',')
                    s++;
            }
        }
        grown = realloc(out->items, (out->n + 1) * sizeof(*grown));
        if (!grown) {
            rc = bw_fail(cause, BW_ERR_NOMEM, "out of memory");
            goto fail;
        }
        out->items = grown;
        out->items[out->n++] = e;
        continue;
    fail:
        free(e.name);
        ptx_entries_release(out);
        return rc;
    }
    return BW_OK;
}

void ptx_entries_release(struct ptx_entries *e)
{
    for (size_t i = 0; i < e->n; i++)
        free(e->items[i].name);
    free(e->items);
    e->items = NULL;
    e->n = 0;
}

const struct ptx_entry *ptx_find(const struct ptx_entries *e, const char *name)
{
    for (size_t i = 0; i < e->n; i++)
        if (strcmp(e->items[i].name, name) == 0)
            return &e->items[i];
    return NULL;
}

const struct ptx_entry *ptx_find_mangled(const struct ptx_entries *e, const char *name)
{
    char prefix[96];
    int n = snprintf(prefix, sizeof(prefix), "%zu%s", strlen(name), name);

    if (n < 0 || (size_t)n >= sizeof(prefix))
        return NULL;
    /* Itanium mangling of a function at namespace scope: _Z<len><name><params>;
     * in a namespace: _ZN...<len><name>E<params>. */
    for (size_t i = 0; i < e->n; i++)
        if (strncmp(e->items[i].name, "_Z", 2) == 0 && strstr(e->items[i].name, prefix))
            return &e->items[i];
    return NULL;
}
