#include "hostile_header.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/util.h"
#include "tests/test.h"

bool hostile_value(const char *line, const char *key, char *out, size_t size)
{
    size_t n = strlen(key);
    if (strncmp(line, key, n) != 0 || line[n] != ':' || line[n + 1] != ' ')
        return false;
    snprintf(out, size, "%s", line + n + 2);
    return true;
}

/* "wall_ms=N cpu_s=N mem_mb=N", any of them. */
static bool parse_limits(char *v, struct hostile_header *h)
{
    char *save = NULL;

    for (char *t = strtok_r(v, " ", &save); t; t = strtok_r(NULL, " ", &save)) {
        int64_t n;
        char *eq = strchr(t, '=');
        if (!eq || !parse_i64(eq + 1, &n))
            return false;
        *eq = '\0';
        if (strcmp(t, "wall_ms") == 0)
            h->wall_ms = (int)n;
        else if (strcmp(t, "cpu_s") == 0)
            h->cpu_s = (int)n;
        else if (strcmp(t, "mem_mb") == 0)
            h->mem_mb = (long)n;
        else
            return false;
    }
    return true;
}

/* One header line (the prefix removed). */
static bool parse_line(const char *line, struct hostile_header *h,
                       bool (*other)(const char *line, void *ctx), void *ctx)
{
    char v[200];
    int64_t n;
    int used = 0;

    if (hostile_value(line, "expect", h->expect, sizeof(h->expect)) ||
        hostile_value(line, "failure", h->failure, sizeof(h->failure)) ||
        hostile_value(line, "control-log-has", h->control_has, sizeof(h->control_has)))
        return true;
    if (h->n_log_has < HOSTILE_MAX_EXPECT &&
        hostile_value(line, "log-has", h->log_has[h->n_log_has], sizeof(h->log_has[0]))) {
        h->n_log_has++;
        return true;
    }
    if (h->n_log_lacks < HOSTILE_MAX_EXPECT &&
        hostile_value(line, "log-lacks", h->log_lacks[h->n_log_lacks], sizeof(h->log_lacks[0]))) {
        h->n_log_lacks++;
        return true;
    }
    if (hostile_value(line, "diag", v, sizeof(v))) {
        if (sscanf(v, "%d:%d %n", &h->diag_line, &h->diag_col, &used) == 2 && used) {
            snprintf(h->diag, sizeof(h->diag), "%s", v + used);
            return true;
        }
        used = 0;
        if (sscanf(v, "%d:* %n", &h->diag_line, &used) == 1 && used) {
            h->diag_col = -1;
            snprintf(h->diag, sizeof(h->diag), "%s", v + used);
            return true;
        }
        return false;
    }
    if (hostile_value(line, "limits", v, sizeof(v)))
        return parse_limits(v, h);
    if (hostile_value(line, "max-ms", v, sizeof(v))) {
        if (!parse_i64(v, &n))
            return false;
        h->max_ms = (int)n;
        return true;
    }
    if (hostile_value(line, "log-max", v, sizeof(v))) {
        if (!parse_i64(v, &n))
            return false;
        h->log_max = (long)n;
        return true;
    }
    return other ? other(line, ctx) : true; /* a line no one knows is prose */
}

bool hostile_header_parse(const char *src, const char *prefix, struct hostile_header *h,
                          bool (*other)(const char *line, void *ctx), void *ctx)
{
    size_t np = strlen(prefix);
    const char *p = src;
    char line[256];

    memset(h, 0, sizeof(*h));
    while (strncmp(p, prefix, np) == 0) {
        const char *nl = strchr(p, '\n');
        size_t len = nl ? (size_t)(nl - p) : strlen(p);
        snprintf(line, sizeof(line), "%.*s", (int)(len - np < sizeof(line) - 1 ? len - np : 200),
                 p + np);
        p = nl ? nl + 1 : p + len;
        if (!parse_line(line, h, other, ctx))
            return false;
    }
    return h->expect[0] != '\0';
}

bool hostile_anywhere(const struct hostile_result *r, const char *text)
{
    if ((r->log && strstr(r->log, text)) || (r->failure && strstr(r->failure, text)))
        return true;
    for (size_t i = 0; i < r->diags->n; i++)
        if (strstr(r->diags->items[i].msg, text))
            return true;
    return false;
}

const struct diag *hostile_find_diag(const struct diag_list *d, int line, int column,
                                     const char *text)
{
    for (size_t i = 0; i < d->n; i++) {
        const struct diag *x = &d->items[i];
        if (x->line == line && (column < 0 || x->column == column) && strstr(x->msg, text))
            return x;
    }
    return NULL;
}

void hostile_check(const struct hostile_header *h, const char *name, const char *built,
                   const char *canary, const struct hostile_result *r)
{
    const char *const secrets[] = {canary, "root:x:0:0", "root:*:", "root:!"};

    if (strcmp(h->expect, "ok") == 0)
        CHECK_MSG(r->ok && !r->failure, "%s: expected %s", name, built);
    else if (strcmp(h->expect, "compile-error") == 0)
        CHECK_MSG(!r->ok && !r->failure && r->errors > 0,
                  "%s: expected a compile error with diagnostics (failure: %s)", name,
                  r->failure ? r->failure : "none");
    else if (strcmp(h->expect, "failure") == 0)
        CHECK_MSG(!r->ok && r->failure, "%s: expected a failure", name);
    else
        CHECK_MSG(false, "%s: unknown expectation %s", name, h->expect);
    if (h->failure[0])
        CHECK_MSG(r->failure && strstr(r->failure, h->failure),
                  "%s: failure \"%s\", expected \"%s\"", name, r->failure ? r->failure : "none",
                  h->failure);
    for (int i = 0; i < h->n_log_has; i++)
        CHECK_MSG(r->log && strstr(r->log, h->log_has[i]), "%s: the log lacks \"%s\"", name,
                  h->log_has[i]);
    for (int i = 0; i < h->n_log_lacks; i++)
        CHECK_MSG(!hostile_anywhere(r, h->log_lacks[i]), "%s: \"%s\" leaked", name,
                  h->log_lacks[i]);
    for (size_t i = 0; i < sizeof(secrets) / sizeof(secrets[0]); i++)
        CHECK_MSG(!hostile_anywhere(r, secrets[i]), "%s: host secret \"%s\" leaked into the result",
                  name, secrets[i]);
    if (h->diag[0])
        CHECK_MSG(hostile_find_diag(r->diags, h->diag_line, h->diag_col, h->diag),
                  "%s: no diag %d:%d %s", name, h->diag_line, h->diag_col, h->diag);
    if (h->log_max)
        CHECK_MSG(r->log && (long)strlen(r->log) <= h->log_max, "%s: log of %zu bytes", name,
                  r->log ? strlen(r->log) : 0);
    if (h->max_ms)
        CHECK_MSG(r->ms <= h->max_ms, "%s: took %.0f ms", name, r->ms);
}
