#include "triton_key.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/error.h"
#include "common/sha256.h"
#include "common/banned.h"

/* ---- which lines are launch lines ---------------------------------------------- */

/* Where Python's reading stands at the start of a line, as far as strings go. */
struct lexer {
    char quote;     /* 0: outside every string; else the quote of the string it is in */
    bool triple;    /* that string is triple-quoted */
    bool formatted; /* an f-string (or t-string): '{' opens a replacement field */
    int field;      /* depth of replacement fields it is in */
    bool continued; /* the previous line ended in a backslash outside strings */
    bool uncertain; /* met what this reader cannot follow: no line is blanked from here on */
};

static bool is_blank(char c)
{
    return c == ' ' || c == '\t' || c == '\f';
}

static bool is_word(char c)
{
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_';
}

/* A string prefix (r, b, u, f, t and their pairs) that makes an f- or t-string. */
static bool formatted_prefix(const char *s, size_t start, size_t quote_at)
{
    size_t j = quote_at;
    bool f = false;

    while (j > start && is_word(s[j - 1]))
        j--;
    if (quote_at - j > 2 || (j > start && is_word(s[j - 1])))
        return false;
    for (size_t k = j; k < quote_at; k++) {
        char c = (char)(s[k] | 0x20);
        if (c != 'r' && c != 'b' && c != 'u' && c != 'f' && c != 't')
            return false;
        f = f || c == 'f' || c == 't';
    }
    return f;
}

/* Reads line [b, e) (e at its newline, or the end) and updates the state for the next one. */
static void lex_line(struct lexer *x, const char *s, size_t b, size_t e)
{
    size_t i = b, last = e; /* last: the line's last byte before any '\r' */
    bool escaped_eol = false;

    if (last > b && s[last - 1] == '\r')
        last--;
    x->continued = false;
    while (i < e) {
        char c = s[i];
        if (x->quote) {
            if (c == '\\') {
                escaped_eol = i + 1 >= last;
                i += 2;
                continue;
            }
            if (x->formatted && c == '{') {
                if (x->field == 0 && i + 1 < e && s[i + 1] == '{') {
                    i += 2;
                    continue;
                }
                x->field++;
            } else if (x->formatted && c == '}' && x->field > 0) {
                x->field--;
            } else if (x->field > 0 && (c == '\'' || c == '"' || c == '#')) {
                x->uncertain = true; /* a string or comment inside a field (Python 3.12) */
            } else if (x->field == 0 && c == x->quote) {
                if (!x->triple) {
                    x->quote = 0;
                } else if (i + 2 < e && s[i + 1] == c && s[i + 2] == c) {
                    x->quote = 0;
                    i += 2;
                }
            }
            i++;
            continue;
        }
        if (c == '#')
            break;
        if (c == '\'' || c == '"') {
            x->triple = i + 2 < e && s[i + 1] == c && s[i + 2] == c;
            x->formatted = formatted_prefix(s, b, i);
            x->quote = c;
            x->field = 0;
            i += x->triple ? 3 : 1;
            continue;
        }
        if (c == '\\' && i + 1 >= last)
            x->continued = true;
        i++;
    }
    if (x->quote && !x->triple && !escaped_eol) {
        x->uncertain = true; /* an unterminated string: Python refuses the module */
        x->quote = 0;
    }
}

/* A line Python reads as a comment whose first word is '@': a directive (plan/directive.c). */
static bool directive_line(const char *s, size_t b, size_t e)
{
    size_t i = b;

    while (i < e && is_blank(s[i]))
        i++;
    if (i >= e || s[i] != '#')
        return false;
    i++;
    while (i < e && is_blank(s[i]))
        i++;
    return i < e && s[i] == '@';
}

int triton_key_module_text(const char *source, size_t len, struct buf *out, size_t *blanked)
{
    struct lexer x = {0};
    size_t pos = 0;
    int rc;

    if (blanked)
        *blanked = 0;
    while (pos < len) {
        const char *nl = memchr(source + pos, '\n', len - pos);
        size_t e = nl ? (size_t)(nl - source) : len;
        bool at_code = !x.quote && !x.continued && !x.uncertain;

        if (at_code && directive_line(source, pos, e)) {
            if (blanked)
                (*blanked)++;
            x.continued = false; /* a comment: nothing of it carries on */
        } else {
            lex_line(&x, source, pos, e);
            if ((rc = buf_append(out, source + pos, e - pos)))
                return rc;
        }
        if (nl && (rc = buf_append(out, "\n", 1)))
            return rc;
        pos = e + (nl ? 1 : 0);
    }
    return BW_OK;
}

/* ---- a launcher's launch code ------------------------------------------------------ */

/* What the launcher rule reads of a module: its top-level statements, the identifiers of its
 * code (outside strings and comments) and which lines hold code. */
enum stmt_kind { STMT_OTHER, STMT_DEF, STMT_DECORATOR, STMT_IF_MAIN, STMT_ELSE };

struct stmt {
    enum stmt_kind kind;
    int line;          /* its first line */
    int header_end;    /* the last line of its first logical line (a compound's header) */
    int body_end;      /* the last line of its body holding code (0: none) */
    bool oneliner;     /* a compound whose body starts on its header's line */
    size_t text_at;    /* its first byte */
    size_t name_at;    /* STMT_DEF: the name's offset in the source */
    size_t name_len;   /* STMT_DEF: its length */
    size_t colon;      /* the first ':' at bracket depth 0 of its first logical line (0: none) */
    size_t occ, n_occ; /* STMT_DEF: its name's occurrences, order[occ .. occ + n_occ) */
    bool blank;        /* its body is launch code (choose_bodies) */
};

struct ident {
    size_t at, len;
    int line;
    long owner; /* the statement whose body holds it, or -1 */
};

struct module_scan {
    const char *s;
    size_t len;
    bool uncertain; /* a string this reader cannot follow: keyed whole */
    struct stmt *stmts;
    size_t n_stmts, cap_stmts;
    struct ident *ids;
    size_t n_ids, cap_ids;
    bool *code; /* code[l]: line l holds code or a string */
    int lines;
};

static bool grow(void **v, size_t *cap, size_t n, size_t each)
{
    void *bigger;

    if (n < *cap)
        return true;
    bigger = realloc(*v, (*cap ? *cap * 2 : 64) * each);
    if (!bigger)
        return false;
    *v = bigger;
    *cap = *cap ? *cap * 2 : 64;
    return true;
}

/* An identifier byte: ASCII letters, digits, '_', and any non-ASCII byte (Python's identifiers
 * may hold Unicode: reading one as longer than it is only keeps more of the module). */
static bool ident_byte(char c)
{
    return is_word(c) || (unsigned char)c >= 0x80;
}

static bool keyword_at(const char *s, size_t n, const char *word)
{
    size_t w = strlen(word);
    return n >= w && memcmp(s, word, w) == 0 && (n == w || !ident_byte(s[w]));
}

/* The text [a, b) with blanks removed equals `want`. */
static bool squeezed_equals(const char *s, size_t a, size_t b, const char *want)
{
    size_t w = 0;

    for (size_t i = a; i < b; i++) {
        if (is_blank(s[i]) || s[i] == '\r')
            continue;
        if (!want[w] || want[w] != s[i])
            return false;
        w++;
    }
    return !want[w];
}

/* Starts a top-level statement at offset `at` (column 0) of line `line`. */
static bool stmt_begin(struct module_scan *m, size_t at, int line)
{
    const char *s = m->s + at;
    size_t n = m->len - at, k;
    struct stmt *st;

    if (!grow((void **)&m->stmts, &m->cap_stmts, m->n_stmts, sizeof(*m->stmts)))
        return false;
    st = &m->stmts[m->n_stmts++];
    memset(st, 0, sizeof(*st));
    st->line = st->header_end = line;
    st->text_at = at;
    if (s[0] == '@') {
        st->kind = STMT_DECORATOR;
    } else if (keyword_at(s, n, "def")) {
        for (k = 3; k < n && is_blank(s[k]); k++)
            ;
        st->name_at = at + k;
        while (k < n && ident_byte(s[k]))
            k++;
        st->name_len = at + k - st->name_at;
        st->kind = st->name_len ? STMT_DEF : STMT_OTHER;
    } else if (keyword_at(s, n, "else") || keyword_at(s, n, "elif")) {
        st->kind = STMT_ELSE;
    } else if (keyword_at(s, n, "if")) {
        st->kind = STMT_IF_MAIN; /* confirmed once its header is read (stmt_header) */
    }
    return true;
}

/* The current statement's first logical line ended on line `line`. */
static void stmt_header(struct module_scan *m, int line, bool code_after_colon)
{
    struct stmt *st = &m->stmts[m->n_stmts - 1];

    st->header_end = line;
    st->oneliner = code_after_colon;
    if (st->kind == STMT_IF_MAIN &&
        !(st->colon && (squeezed_equals(m->s, st->text_at, st->colon, "if__name__==\"__main__\"") ||
                        squeezed_equals(m->s, st->text_at, st->colon, "if__name__=='__main__'"))))
        st->kind = STMT_OTHER;
    if (st->kind == STMT_DEF && !st->colon)
        st->kind = STMT_OTHER;
}

/* Reads a string's byte at s[*i] (lex_line's rules); *line counts the newlines it holds. */
static void string_byte(struct module_scan *m, struct lexer *x, size_t *i, int *line)
{
    const char *s = m->s;
    char c = s[*i];

    if (c == '\\') {
        if (*i + 1 < m->len && s[*i + 1] == '\n') {
            ++*line; /* an escaped newline: the string goes on */
            m->code[*line] = true;
        } else if (*i + 2 < m->len && s[*i + 1] == '\r' && s[*i + 2] == '\n') {
            ++*line;
            m->code[*line] = true;
            ++*i;
        }
        *i += 2;
        return;
    }
    if (x->formatted && c == '{') {
        if (x->field == 0 && *i + 1 < m->len && s[*i + 1] == '{') {
            *i += 2;
            return;
        }
        x->field++;
    } else if (x->formatted && c == '}' && x->field > 0) {
        x->field--;
    } else if (x->field > 0 && (c == '\'' || c == '"' || c == '#')) {
        m->uncertain = true; /* a string or comment inside a field (Python 3.12) */
    } else if (x->field == 0 && c == x->quote) {
        if (!x->triple) {
            x->quote = 0;
        } else if (*i + 2 < m->len && s[*i + 1] == c && s[*i + 2] == c) {
            x->quote = 0;
            *i += 2;
        }
    }
    ++*i;
}

/* Opens a string whose quote is s[q] and whose prefix starts at p. */
static void string_open(struct module_scan *m, struct lexer *x, size_t p, size_t q, size_t *i)
{
    const char *s = m->s;
    char c = s[q];

    x->triple = q + 2 < m->len && s[q + 1] == c && s[q + 2] == c;
    x->formatted = formatted_prefix(s, p, q);
    x->quote = c;
    x->field = 0;
    *i = q + (x->triple ? 3 : 1);
}

/*
 * Reads the module: its top-level statements (a logical line starting at column 0, outside
 * brackets, strings and continuations), the identifiers of its code, the lines holding code.
 * BW_ERR_NOMEM when it cannot keep them.
 */
static int scan_module(struct module_scan *m)
{
    const char *s = m->s;
    struct lexer x = {0}; /* the string being read: quote, triple, formatted, field */
    int depth = 0, line = 1;
    bool logical_start = true; /* the next code begins a logical line */
    bool continued = false;    /* a backslash ended the previous physical line */
    bool in_stmt = false;      /* a top-level statement's first logical line is being read */
    bool after_colon = false;  /* code after its ':' */
    size_t i = 0;

    for (size_t k = 0; k < m->len; k++)
        m->lines += m->s[k] == '\n';
    m->lines += 2;
    if (!(m->code = calloc((size_t)m->lines + 1, sizeof(*m->code))))
        return BW_ERR_NOMEM;
    while (i < m->len) {
        char c = s[i];

        if (c == '\n') {
            if (x.quote && !x.triple) {
                m->uncertain = true; /* an unterminated string: Python refuses the module */
                x.quote = 0;
            }
            if (!x.quote && depth == 0 && !continued && !logical_start) {
                if (in_stmt)
                    stmt_header(m, line, after_colon);
                in_stmt = false;
                logical_start = true;
            }
            continued = false;
            line++;
            i++;
            continue;
        }
        if (x.quote) {
            if (!is_blank(c) && c != '\r')
                m->code[line] = true;
            string_byte(m, &x, &i, &line);
            continue;
        }
        if (is_blank(c) || c == '\r') {
            i++;
            continue;
        }
        if (c == '#') { /* a comment, to the end of the line */
            while (i < m->len && s[i] != '\n')
                i++;
            continue;
        }
        m->code[line] = true;
        if (c == '\\' && (i + 1 >= m->len || s[i + 1] == '\n' ||
                          (s[i + 1] == '\r' && i + 2 < m->len && s[i + 2] == '\n'))) {
            continued = true;
            i++;
            continue;
        }
        if (logical_start) {
            logical_start = false;
            if (depth == 0 && !continued && (i == 0 || s[i - 1] == '\n')) {
                if (!stmt_begin(m, i, line))
                    return BW_ERR_NOMEM;
                in_stmt = true;
                after_colon = false;
            }
        }
        if (in_stmt && m->stmts[m->n_stmts - 1].colon)
            after_colon = true;
        if (c == '(' || c == '[' || c == '{') {
            depth++;
        } else if ((c == ')' || c == ']' || c == '}') && depth > 0) {
            depth--;
        } else if (c == ':' && depth == 0 && in_stmt && !m->stmts[m->n_stmts - 1].colon) {
            m->stmts[m->n_stmts - 1].colon = i;
        } else if (c == '\'' || c == '"') {
            string_open(m, &x, i, i, &i);
            continue;
        } else if (ident_byte(c) && !(c >= '0' && c <= '9')) {
            size_t b = i;
            bool prefix = true;
            while (i < m->len && ident_byte(s[i]))
                i++;
            for (size_t k = b; k < i && prefix; k++)
                prefix = strchr("rRbBuUfFtT", s[k]) != NULL;
            if (i < m->len && (s[i] == '\'' || s[i] == '"') && i - b <= 2 && prefix) {
                string_open(m, &x, b, i, &i); /* a string's prefix (r, b, u, f, t, pairs) */
                continue;
            }
            if (!grow((void **)&m->ids, &m->cap_ids, m->n_ids, sizeof(*m->ids)))
                return BW_ERR_NOMEM;
            m->ids[m->n_ids++] = (struct ident){.at = b, .len = i - b, .line = line, .owner = -1};
            continue;
        } else if (c >= '0' && c <= '9') { /* a number and its letters (1e5, 0x1F, 1_000j) */
            while (i < m->len && (ident_byte(s[i]) || s[i] == '.'))
                i++;
            continue;
        }
        i++;
    }
    if (x.quote)
        m->uncertain = true;
    if (in_stmt)
        stmt_header(m, line, after_colon);
    return BW_OK;
}

/* qsort_r's order of identifiers: by name, then by place; `text` is the source. */
static int by_name(const void *a, const void *b, void *text)
{
    const struct ident *x = *(const struct ident *const *)a, *y = *(const struct ident *const *)b;
    size_t n = x->len < y->len ? x->len : y->len;
    int c = memcmp((const char *)text + x->at, (const char *)text + y->at, n);

    if (c)
        return c;
    return x->len < y->len ? -1 : x->len > y->len ? 1 : (x->at < y->at ? -1 : 1);
}

/* Where each body ends, which body holds each identifier, and each function name's
 * occurrences (order: the identifiers sorted by name). */
static int index_module(struct module_scan *m, struct ident ***order)
{
    size_t k = 0;

    for (size_t t = 0; t < m->n_stmts; t++) {
        struct stmt *st = &m->stmts[t];
        int next = t + 1 < m->n_stmts ? m->stmts[t + 1].line : m->lines;
        for (int l = st->header_end + 1; l < next && l <= m->lines; l++)
            if (m->code[l])
                st->body_end = l;
    }
    for (size_t t = 0; t < m->n_ids; t++) {
        struct ident *id = &m->ids[t];
        while (k + 1 < m->n_stmts && m->stmts[k + 1].line <= id->line)
            k++;
        if (m->n_stmts && m->stmts[k].line <= id->line && id->line > m->stmts[k].header_end)
            id->owner = (long)k;
    }
    *order = calloc(m->n_ids ? m->n_ids : 1, sizeof(**order));
    if (!*order)
        return BW_ERR_NOMEM;
    for (size_t t = 0; t < m->n_ids; t++)
        (*order)[t] = &m->ids[t];
    qsort_r(*order, m->n_ids, sizeof(**order), by_name, (void *)m->s);
    for (size_t t = 0; t < m->n_stmts; t++) {
        struct stmt *st = &m->stmts[t];
        size_t lo = 0, hi = m->n_ids;
        if (st->kind != STMT_DEF)
            continue;
        while (lo < hi) { /* the first identifier not before the name */
            size_t mid = (lo + hi) / 2;
            const struct ident *id = (*order)[mid];
            size_t n = id->len < st->name_len ? id->len : st->name_len;
            int c = memcmp(m->s + id->at, m->s + st->name_at, n);
            if (c < 0 || (c == 0 && id->len < st->name_len))
                lo = mid + 1;
            else
                hi = mid;
        }
        st->occ = lo;
        while (lo < m->n_ids && (*order)[lo]->len == st->name_len &&
               memcmp(m->s + (*order)[lo]->at, m->s + st->name_at, st->name_len) == 0)
            lo++;
        st->n_occ = lo - st->occ;
    }
    return BW_OK;
}

/*
 * Which bodies are launch code (the rule of triton_key.h): the greatest set of undecorated
 * top-level functions whose names occur in code only inside the bodies of the set, and a
 * top-level `if __name__ == "__main__":` block. True when `solve` is in it (else nothing is
 * blanked).
 */
static bool choose_bodies(struct module_scan *m, struct ident **order)
{
    bool changed = true, solve = false;

    for (size_t k = 0; k < m->n_stmts; k++) {
        struct stmt *st = &m->stmts[k];
        bool decorated = k > 0 && m->stmts[k - 1].kind == STMT_DECORATOR;
        bool has_else = k + 1 < m->n_stmts && m->stmts[k + 1].kind == STMT_ELSE;
        st->blank =
            !st->oneliner && st->body_end > st->header_end &&
            ((st->kind == STMT_DEF && !decorated) || (st->kind == STMT_IF_MAIN && !has_else));
    }
    while (changed) {
        changed = false;
        for (size_t k = 0; k < m->n_stmts; k++) {
            struct stmt *st = &m->stmts[k];
            for (size_t o = st->occ; st->blank && st->kind == STMT_DEF && o < st->occ + st->n_occ;
                 o++) {
                const struct ident *id = order[o];
                if (id->at != st->name_at && (id->owner < 0 || !m->stmts[id->owner].blank)) {
                    st->blank = false; /* used outside launch code: the module needs it */
                    changed = true;
                }
            }
        }
    }
    for (size_t k = 0; k < m->n_stmts; k++) {
        const struct stmt *st = &m->stmts[k];
        solve = solve || (st->blank && st->kind == STMT_DEF && st->name_len == 5 &&
                          memcmp(m->s + st->name_at, "solve", 5) == 0);
    }
    return solve;
}

int triton_key_launcher_text(const char *source, size_t len, struct buf *out, size_t *blanked)
{
    struct module_scan m = {.s = source, .len = len};
    struct ident **order = NULL;
    size_t pos = 0, k = 0;
    int line = 1, rc;
    bool some = false;

    if (blanked)
        *blanked = 0;
    rc = scan_module(&m);
    if (rc == BW_OK && !m.uncertain)
        rc = index_module(&m, &order);
    if (rc == BW_OK && !m.uncertain)
        some = choose_bodies(&m, order);
    while (rc == BW_OK && pos < len) {
        const char *nl = memchr(source + pos, '\n', len - pos);
        size_t e = nl ? (size_t)(nl - source) : len;
        const struct stmt *st;

        while (k + 1 < m.n_stmts && m.stmts[k + 1].line <= line)
            k++;
        st = some && m.n_stmts ? &m.stmts[k] : NULL;
        if (st && st->blank && line > st->header_end && line <= st->body_end) {
            /* the body becomes one `pass` at its first line; its other lines are blanked */
            if (line == st->header_end + 1)
                rc = buf_append(out, "    pass", 8);
            if (blanked)
                (*blanked)++;
        } else {
            rc = buf_append(out, source + pos, e - pos);
        }
        if (rc == BW_OK && nl)
            rc = buf_append(out, "\n", 1);
        pos = e + (nl ? 1 : 0);
        line++;
    }
    free(order);
    free(m.stmts);
    free(m.ids);
    free(m.code);
    return rc;
}

/* ---- the keys -------------------------------------------------------------------- */

/* One field: its length, then its bytes (no two key inputs collide by moving bytes). */
static void put_field(struct sha256 *h, const void *data, size_t len)
{
    uint64_t n = len;

    sha256_update(h, &n, sizeof(n));
    sha256_update(h, data, len);
}

static void put_string(struct sha256 *h, const char *s)
{
    put_field(h, s ? s : "", s ? strlen(s) : 0);
}

static void put_int(struct sha256 *h, long long v)
{
    char n[32];

    snprintf(n, sizeof(n), "%lld", v);
    put_string(h, n);
}

bool triton_key_module(const struct triton_request *rq, const char *triton_version, char key[65])
{
    struct buf text;
    struct sha256 h;
    bool ok;

    buf_init(&text, BW_MAX_SOURCE_BYTES + 1);
    ok = triton_key_module_text(rq->source ? rq->source : "", rq->len, &text, NULL) == BW_OK;
    if (ok) {
        sha256_init(&h);
        put_string(&h, "blockwise-triton-module-1");
        put_field(&h, text.data ? text.data : "", text.len);
        put_string(&h, rq->filename ? rq->filename : BW_TRITON_DEFAULT_FILENAME);
        put_int(&h, rq->cc_major);
        put_int(&h, rq->cc_minor);
        put_string(&h, triton_version ? triton_version : "?");
        put_int(&h, !rq->no_sandbox);
        sha256_final_hex(&h, key);
    }
    buf_release(&text);
    return ok;
}

void triton_key_build(const char module_key[65], const struct triton_kernel_request *k,
                      char key[65])
{
    struct sha256 h;

    sha256_init(&h);
    put_string(&h, "blockwise-triton-build-1");
    put_string(&h, module_key);
    put_string(&h, k->kernel);
    put_int(&h, (long long)k->n_args);
    for (size_t a = 0; a < k->n_args; a++) {
        put_string(&h, k->args[a].type);
        put_int(&h, k->args[a].div16);
        put_int(&h, k->args[a].equal1);
    }
    put_int(&h, (long long)k->n_constexprs);
    for (size_t c = 0; c < k->n_constexprs; c++) {
        put_string(&h, k->constexprs[c].name);
        put_int(&h, (long long)k->constexprs[c].value);
    }
    put_int(&h, k->num_warps);
    put_int(&h, k->num_stages);
    put_int(&h, k->maxnreg);
    sha256_final_hex(&h, key);
}

void triton_key_launcher_module(const char *text, size_t len, const char *filename, int cc_major,
                                int cc_minor, const char *triton_version, bool sandboxed,
                                const char *device, char key[65])
{
    struct sha256 h;

    sha256_init(&h);
    put_string(&h, "blockwise-triton-launcher-module-1");
    put_field(&h, text ? text : "", text ? len : 0);
    put_string(&h, filename ? filename : BW_TRITON_DEFAULT_FILENAME);
    put_int(&h, cc_major);
    put_int(&h, cc_minor);
    put_string(&h, triton_version ? triton_version : "?");
    put_int(&h, sandboxed);
    put_string(&h, device);
    sha256_final_hex(&h, key);
}

void triton_key_variant(const char module_key[65], const char *variant, char key[65])
{
    struct sha256 h;

    sha256_init(&h);
    put_string(&h, "blockwise-triton-variant-1");
    put_string(&h, module_key);
    put_string(&h, variant);
    sha256_final_hex(&h, key);
}
