/*
 * directive_cursor.c - reading one directive line: errors at a column,
 * copies and quotes of its bytes, parentheses, integer literals and
 * expressions (directive_parser.h).
 *
 * Every error goes through verr_at(), which counts them and stops reporting
 * after BW_MAX_DIAGS, so a file of garbage costs a bounded list.
 */
#include "directive_parser.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/error.h"
#include "common/limits.h"
#include "common/util.h"
#include "common/banned.h"

/* Reports at line:column (either 0 when not tied to one); counts errors and
 * stops reporting after BW_MAX_DIAGS of them. */
static __attribute__((format(printf, 4, 0))) void verr_at(struct dparse *st, int line, int column,
                                                          const char *fmt, va_list ap)
{
    char *msg = NULL;

    st->line_failed = true;
    if (st->stopped)
        return;
    if (vasprintf(&msg, fmt, ap) < 0)
        msg = NULL;
    if (!msg || diag_list_addf(st->diags, line, column, "%s", msg) != BW_OK)
        st->nomem = true;
    free(msg);
    if (++st->n_errors >= BW_MAX_DIAGS) {
        st->stopped = true;
        if (diag_list_addf(st->diags, line, 0, "too many errors (%d, BW_MAX_DIAGS): stopping here",
                           BW_MAX_DIAGS))
            st->nomem = true;
    }
}

/* The segment byte `pos` of the directive lies in. */
static const struct dseg *seg_of(const struct dparse *st, size_t pos)
{
    size_t i = 0;

    while (i + 1 < st->n_segs && st->segs[i + 1].start <= pos)
        i++;
    return &st->segs[i];
}

int dparse_line_at(const struct dparse *st, size_t pos)
{
    return st->n_segs ? seg_of(st, pos)->lineno : st->lineno;
}

int dparse_column_at(const struct dparse *st, size_t pos)
{
    const struct dseg *g;

    if (!st->n_segs)
        return (int)pos + 1;
    g = seg_of(st, pos);
    return (int)(pos - g->start + g->offset) + 1;
}

const char *dparse_where(const struct dparse *st, size_t pos, char *out, size_t size)
{
    if (st->n_segs > 1)
        snprintf(out, size, "line %d, column %d", dparse_line_at(st, pos),
                 dparse_column_at(st, pos));
    else
        snprintf(out, size, "column %d", dparse_column_at(st, pos));
    return out;
}

/* Reports at byte `pos` of the current directive. */
__attribute__((format(printf, 3, 4))) void dparse_err(struct dparse *st, size_t pos,
                                                      const char *fmt, ...)
{
    va_list ap;

    va_start(ap, fmt);
    verr_at(st, dparse_line_at(st, pos), dparse_column_at(st, pos), fmt, ap);
    va_end(ap);
}

/* Reports about the whole file (line 0, column 0). */
__attribute__((format(printf, 2, 3))) void dparse_err_file(struct dparse *st, const char *fmt, ...)
{
    va_list ap;

    va_start(ap, fmt);
    verr_at(st, 0, 0, fmt, ap);
    va_end(ap);
}

/* A *new* copy of line[pos, pos+n), or NULL (and nomem set). */
char *dparse_copy(struct dparse *st, size_t pos, size_t n)
{
    char *s = strndup(st->line + pos, n);
    if (!s)
        st->nomem = true;
    return s;
}

/* Formats at most 40 bytes of line[pos, pos+n) into out for quoting, with
 * non-printable bytes as \xNN. */
const char *dparse_quote(const struct dparse *st, size_t pos, size_t n, char *out, size_t size)
{
    size_t i, o = 0;

    for (i = 0; i < n && i < 40 && o + 5 < size; i++) {
        unsigned char c = (unsigned char)st->line[pos + i];
        if (c >= 0x20 && c < 0x7f)
            out[o++] = (char)c;
        else
            o += (size_t)snprintf(out + o, size - o, "\\x%02x", c);
    }
    if (i < n && o + 4 < size) {
        memcpy(out + o, "...", 3);
        o += 3;
    }
    out[o] = '\0';
    return out;
}

/* Describes what is at pos for "got ..." parts: a quoted token or "the end
 * of the line". */
const char *dparse_got(const struct dparse *st, size_t pos, char *out, size_t size)
{
    size_t n;

    if (pos >= st->len)
        return "the end of the line";
    n = word_len(st, pos);
    if (n == 0)
        n = 1;
    out[0] = '\'';
    dparse_quote(st, pos, n, out + 1, size - 2);
    n = strlen(out);
    out[n] = '\'';
    out[n + 1] = '\0';
    return out;
}

/* Reports anything but blanks from pos to the end of the line. */
void dparse_expect_eol(struct dparse *st, size_t pos, const char *after)
{
    char g[64];

    pos = skip_blanks(st, pos);
    if (pos + 1 < st->len && st->line[pos] == '/' && st->line[pos + 1] == '/')
        dparse_err(st, pos,
                   "unexpected comment after %s (a directive line cannot end with a comment)",
                   after);
    else if (pos < st->len)
        dparse_err(st, pos, "unexpected %s after %s (expected the end of the line)",
                   dparse_got(st, pos, g, sizeof(g)), after);
}

/*
 * Finds the ')' matching the '(' at `open`, recording the positions of
 * top-level commas (up to max_commas; *n_commas counts all of them).
 * Returns the position of the ')' or st->len if the line ends first.
 */
size_t dparse_match_paren(const struct dparse *st, size_t open, size_t *commas, size_t max_commas,
                          size_t *n_commas)
{
    size_t pos, depth = 0;

    *n_commas = 0;
    for (pos = open; pos < st->len; pos++) {
        char c = st->line[pos];
        if (c == '(') {
            depth++;
        } else if (c == ')') {
            if (--depth == 0)
                return pos;
        } else if (c == ',' && depth == 1) {
            if (*n_commas < max_commas)
                commas[*n_commas] = pos;
            ++*n_commas;
        }
    }
    return st->len;
}

/*
 * Parses the integer literal [+-]?[0-9]+ at line[pos, pos+n) into *out;
 * reports with `what` ("@const value") and returns false otherwise.
 */
bool dparse_int_token(struct dparse *st, size_t pos, size_t n, const char *what, int64_t *out)
{
    char buf[64], q[200];
    size_t i = 0;

    if (n == 0) {
        char g[64];
        dparse_err(st, pos, "expected an integer for %s, got %s", what,
                   dparse_got(st, pos, g, sizeof(g)));
        return false;
    }
    if (st->line[pos] == '-' || st->line[pos] == '+')
        i = 1;
    if (i == n) {
        dparse_err(st, pos, "expected an integer for %s, got '%s'", what,
                   dparse_quote(st, pos, n, q, sizeof(q)));
        return false;
    }
    for (; i < n; i++) {
        if (st->line[pos + i] < '0' || st->line[pos + i] > '9') {
            dparse_err(st, pos, "%s must be an integer literal, got '%s'", what,
                       dparse_quote(st, pos, n, q, sizeof(q)));
            return false;
        }
    }
    if (n >= sizeof(buf) || (memcpy(buf, st->line + pos, n), buf[n] = '\0', !parse_i64(buf, out))) {
        dparse_err(st, pos, "%s '%s' is out of range (int64)", what,
                   dparse_quote(st, pos, n, q, sizeof(q)));
        return false;
    }
    return true;
}

/*
 * Parses line[a, b) as an integer expression of `what` ("grid=(...)").
 * `before` is the character that ends it, for the empty-expression message.
 * Returns a *new* expression or NULL (reported).
 */
struct expr *dparse_expr(struct dparse *st, size_t a, size_t b, const char *what, char before)
{
    struct expr *e;
    char *text, *cause = NULL;
    const char *msg;
    int col = 0;
    size_t first = skip_blanks(st, a);

    if (first >= b) {
        dparse_err(st, first, "expected an expression before '%c' in %s", before, what);
        return NULL;
    }
    /* The text is kept trimmed (expr_text shows it); columns map from a. */
    a = first;
    while (b > a && is_blank(st->line[b - 1]))
        b--;
    if (b - a > BW_MAX_EXPR_BYTES) {
        dparse_err(st, first, "expression in %s is longer than %d bytes (BW_MAX_EXPR_BYTES)", what,
                   BW_MAX_EXPR_BYTES);
        st->limit = true;
        return NULL;
    }
    text = dparse_copy(st, a, b - a);
    if (!text)
        return NULL;
    e = expr_parse(text, &col, &cause);
    free(text);
    if (!e) {
        /* expr.h promises "column C: " first; the position becomes ours, and
         * so does a column the message points back to ("to close ( at column
         * C"), which counts in the expression. */
        char *where;
        msg = cause ? cause : "invalid expression";
        if (strncmp(msg, "column ", 7) == 0 && strstr(msg, ": "))
            msg = strstr(msg, ": ") + 2;
        where = strstr(msg, " at column ");
        if (where) {
            char w[48];
            size_t back = 0, n = 11;
            while (where[n] >= '0' && where[n] <= '9' && back < BW_MAX_EXPR_BYTES)
                back = back * 10 + (size_t)(where[n++] - '0');
            dparse_err(st, a + (size_t)(col > 0 ? col - 1 : 0), "%.*s at %s%s", (int)(where - msg),
                       msg, dparse_where(st, a + (back > 0 ? back - 1 : 0), w, sizeof(w)),
                       where + n);
        } else {
            dparse_err(st, a + (size_t)(col > 0 ? col - 1 : 0), "%s", msg);
        }
        if (cause && strstr(cause, "BW_MAX_EXPR"))
            st->limit = true;
        free(cause);
        return NULL;
    }
    if (expr_is_real(e)) {
        char q[200];
        dparse_err(st, first, "%s must be an integer expression, got '%s'", what,
                   dparse_quote(st, first, b - first, q, sizeof(q)));
        expr_free(e);
        return NULL;
    }
    return e;
}
