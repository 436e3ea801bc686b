/*
 * directive.c - the directives of one source file (directive.h): which lines
 * are directives, and each one handed to its directive's parser.
 *
 * The source is read line by line. Whether a line is a directive is the one
 * place where a .cu and a .py file differ in reading (directive_at); what a
 * directive may say in each language is its parser's business
 * (directive_launch.c, directive_decl.c, flags.c). Each directive line is
 * parsed on its own (directive_parser.h); nothing is kept from a file with an
 * error: the caller gets either every directive or diagnostics.
 */
#include "directive.h"

#include <stdlib.h>
#include <string.h>

#include "directive_parser.h"
#include "common/error.h"
#include "common/limits.h"
#include "common/banned.h"

/* ---- which lines are directives: the comment rules of .cu and .py files ---- */

/*
 * A line is a directive when its first non-blank bytes are the language's
 * line comment ("//" in CUDA, "#" in Python: language_comment()), then
 * optional blanks, then '@'; *at is the '@'. The rule is lexical on purpose:
 * one line, no C++ or Python state, so such a line inside a block comment, a
 * string or an #if 0 is a directive too, and a "@launch" after code is not.
 */
static bool directive_at(const struct dparse *st, size_t *at)
{
    const char *comment = language_comment(st->lang);
    size_t pos = skip_blanks(st, 0), n = strlen(comment);

    if (st->len - pos < n || memcmp(st->line + pos, comment, n) != 0)
        return false;
    pos = skip_blanks(st, pos + n);
    if (pos >= st->len || st->line[pos] != '@')
        return false;
    *at = pos;
    return true;
}

/* The @launch a file without one is told to add, in its language. */
static const char *launch_example(enum language lang)
{
    if (lang == LANG_TRITON)
        return "# @launch my_kernel grid=(cdiv(n, BLOCK)) args=(x, out, n, BLOCK=BLOCK)";
    return "// @launch my_kernel grid=(cdiv(n, 256)) block=(256) args=(x, out, n)";
}

/* ---- one line, one directive -------------------------------------------------- */

static const char *const directive_list = "@launch, @scratch, @const, @tune, @let or @flags";

/* Parses one directive (a line, or lines joined); `at` is its '@'. @flags and
 * @rows are refused here in a Triton file, whatever follows them. */
static void parse_directive(struct dparse *st, size_t at)
{
    size_t pos, n;
    char q[200];

    n = word_len(st, at + 1);
    if (n == 0) {
        dparse_err(st, at + 1, "expected a directive name after '@' (%s)", directive_list);
        return;
    }
    pos = at + 1 + n;
    if (pos < st->len && !is_blank(st->line[pos])) {
        char g[64];
        dparse_err(st, pos, "unexpected %s after @%s (expected a blank)",
                   dparse_got(st, pos, g, sizeof(g)), dparse_quote(st, at + 1, n, q, sizeof(q)));
        return;
    }
#define IS(word) (n == sizeof(word) - 1 && memcmp(st->line + at + 1, word, n) == 0)
    if (IS("launch"))
        dparse_launch(st, at, pos);
    else if (IS("scratch"))
        dparse_scratch(st, at, pos);
    else if (IS("const"))
        dparse_const(st, at, pos);
    else if (IS("tune"))
        dparse_tune(st, at, pos);
    else if (IS("let"))
        dparse_let(st, at, pos);
    else if (IS("flags") && st->lang == LANG_TRITON)
        dparse_err(st, at,
                   "@flags is for CUDA (NVRTC options); a Triton kernel's options are num_warps=, "
                   "num_stages= and maxnreg= on its @launch");
    else if (IS("flags"))
        dparse_flags(st, at, pos);
    else if (IS("rows") && st->lang == LANG_TRITON)
        dparse_err(st, at, "@rows is for a problem's reference.cu (CUDA), not a Triton kernel");
    else if (IS("rows"))
        dparse_rows(st, at, pos);
    else
        dparse_err(st, at, "unknown directive '@%s' (expected %s)",
                   dparse_quote(st, at + 1, n, q, sizeof(q)), directive_list);
#undef IS
}

/* ---- continuation lines ------------------------------------------------------ */

/*
 * A directive whose line ends in '\\' (blanks after it allowed) continues on
 * the next line, which must be a comment line of the same kind ("//" or
 * "#"); the text of that line after its comment marker and blanks is
 * appended to the directive's (from the byte before the '\\', which is
 * dropped). Nothing is inserted between them: "grid=(1) \\" then "// block=(1)"
 * reads "grid=(1) block=(1)". A continuation line may end in '\\' itself.
 * Each line is at most BW_MAX_DIRECTIVE_LINE bytes, a directive at most
 * BW_MAX_CONT_LINES lines and BW_MAX_JOINED_BYTES bytes joined.
 * Errors keep the file's line and column of every byte (st->segs).
 */

/* The byte of a line's final '\\' (blanks after it allowed), or `len`. */
static size_t continuation_at(const char *line, size_t len)
{
    size_t end = len;

    while (end > 0 && is_blank(line[end - 1]))
        end--;
    return end > 0 && line[end - 1] == '\\' ? end - 1 : len;
}

/* One line of the source: [start, start + len) without its line break. */
struct src_line {
    const char *text;
    size_t len;
    size_t next; /* offset of the line after it */
};

static bool read_line(const char *source, size_t len, size_t pos, struct src_line *out)
{
    const char *eol;
    size_t end;

    if (pos >= len)
        return false;
    eol = memchr(source + pos, '\n', len - pos);
    end = eol ? (size_t)(eol - source) : len;
    out->text = source + pos;
    out->len = end - pos;
    if (out->len > 0 && out->text[out->len - 1] == '\r')
        out->len--;
    out->next = end + 1;
    return true;
}

/* A line too long to be a directive's: reported at the byte past the cap. */
static void line_too_long(struct dparse *st, int lineno, size_t len)
{
    struct dseg saved = st->segs[0];
    size_t n_saved = st->n_segs;

    st->segs[0] = (struct dseg){0, lineno, 0};
    st->n_segs = 1;
    dparse_err(st, BW_MAX_DIRECTIVE_LINE,
               "directive line is %zu bytes, more than %d (BW_MAX_DIRECTIVE_LINE)", len,
               BW_MAX_DIRECTIVE_LINE);
    st->segs[0] = saved;
    st->n_segs = n_saved;
    st->limit = true;
}

/*
 * Joins the directive on st's line (ending in '\\' at `bs`) with the lines it
 * continues on, into st->joined; *pos is the offset of the line after the
 * last one read and *lines the count of lines read. False, reported, when it
 * cannot be joined (then the directive is not parsed).
 */
static bool join_continuations(struct dparse *st, const char *source, size_t len, size_t bs,
                               size_t *pos, size_t *lines)
{
    const char *comment = language_comment(st->lang);
    size_t n_comment = strlen(comment), used = bs;
    struct src_line ln;

    memcpy(st->joined, st->line, bs);
    st->line = st->joined;
    st->len = bs;
    for (;;) {
        size_t text, end;
        const char *what = NULL;

        if (!read_line(source, len, *pos, &ln))
            what = "the end of the file";
        else {
            text = 0;
            while (text < ln.len && is_blank(ln.text[text]))
                text++;
            if (ln.len - text < n_comment || memcmp(ln.text + text, comment, n_comment) != 0)
                what = st->lang == LANG_TRITON ? "a line that is not a # comment"
                                               : "a line that is not a // comment";
            else {
                text += n_comment;
                while (text < ln.len && is_blank(ln.text[text]))
                    text++;
                if (text < ln.len && ln.text[text] == '@')
                    what = "a directive of its own";
            }
        }
        if (what) {
            dparse_err(st, used,
                       "'\\' at the end of the line continues this directive onto %s (remove the "
                       "'\\', or continue on a %s comment line)",
                       what, comment);
            return false;
        }
        if (++*lines > BW_MAX_SOURCE_LINES)
            return false; /* the caller reports it */
        if (ln.len > BW_MAX_DIRECTIVE_LINE) {
            line_too_long(st, (int)*lines, ln.len);
            return false;
        }
        if (st->n_segs == BW_MAX_CONT_LINES) {
            dparse_err(st, used,
                       "directive continues over more than %d lines "
                       "(BW_MAX_CONT_LINES)",
                       BW_MAX_CONT_LINES);
            st->limit = true;
            return false;
        }
        *pos = ln.next;
        end = continuation_at(ln.text, ln.len);
        if (used + (end - text) > BW_MAX_JOINED_BYTES) {
            dparse_err(st, used,
                       "directive is more than %d bytes with its continuation lines "
                       "(BW_MAX_JOINED_BYTES)",
                       BW_MAX_JOINED_BYTES);
            st->limit = true;
            return false;
        }
        st->segs[st->n_segs++] = (struct dseg){used, (int)*lines, text};
        memcpy(st->joined + used, ln.text + text, end - text);
        used += end - text;
        st->len = used;
        if (end == ln.len)
            return true;
    }
}

/* Sorts the diagnostics from `first` on by line, keeping the order within a
 * line: a directive over several lines reports in the file's order. */
static void sort_by_line(struct diag_list *diags, size_t first)
{
    for (size_t i = first + 1; i < diags->n; i++) {
        struct diag g = diags->items[i];
        size_t j = i;
        while (j > first && diags->items[j - 1].line > g.line) {
            diags->items[j] = diags->items[j - 1];
            j--;
        }
        diags->items[j] = g;
    }
}

/*
 * Python: follows the string literals of the current line from the state the
 * line began in, leaving the state it ends in. A '#' outside a string ends
 * the line (a comment); '\'' or '"' opens a string, tripled or not; a
 * backslash escapes the next byte inside a string (also in a raw string, where
 * it keeps a quote from closing it); a one-quoted string ends at its quote or
 * at the line's end, unless a backslash continues it. Issue 28: a "# @launch"
 * line inside a docstring was read as a directive.
 */
static void python_strings(struct dparse *st)
{
    size_t i = 0;

    while (i < st->len) {
        char c = st->line[i];
        if (!st->py_quote) {
            if (c == '#')
                return; /* a comment: no string opens after it */
            if (c == '\'' || c == '"') {
                st->py_quote = c;
                st->py_triple = i + 2 < st->len && st->line[i + 1] == c && st->line[i + 2] == c;
                i += st->py_triple ? 3 : 1;
                continue;
            }
            i++;
        } else if (c == '\\') {
            i += 2;
            if (i > st->len && !st->py_triple)
                return; /* a backslash at the end continues a one-quoted string */
        } else if (c == st->py_quote &&
                   (!st->py_triple ||
                    (i + 2 < st->len && st->line[i + 1] == c && st->line[i + 2] == c))) {
            i += st->py_triple ? 3 : 1;
            st->py_quote = 0;
        } else {
            i++;
        }
    }
    if (st->py_quote && !st->py_triple)
        st->py_quote = 0; /* a one-quoted string does not run past its line */
}

/*
 * The directive on the line at *pos (if it is one), with its continuation
 * lines; *pos moves past what was read and *lines counts it.
 */
static void parse_line(struct dparse *st, const char *source, size_t len, size_t *pos,
                       size_t *lines)
{
    struct src_line ln;
    size_t at, bs, first_diag = st->diags->n;

    read_line(source, len, *pos, &ln);
    *pos = ln.next;
    st->line = ln.text;
    st->len = ln.len;
    st->lineno = (int)*lines;
    st->line_failed = false;
    st->segs[0] = (struct dseg){0, st->lineno, 0};
    st->n_segs = 1;
    if (st->lang == LANG_TRITON) {
        /* Python: a line of a docstring is text, not a comment; the state after this line
         * (a directive line is a comment, where no string opens) */
        bool in_string = st->py_quote != 0;
        python_strings(st);
        if (in_string)
            return;
    }
    if (!directive_at(st, &at))
        return;
    /* A @launch that cannot be read is still one: "no @launch" would mislead. */
    if (st->len - at > 7 && memcmp(st->line + at, "@launch", 7) == 0)
        st->saw_launch = true;
    if (st->len > BW_MAX_DIRECTIVE_LINE) {
        line_too_long(st, st->lineno, st->len);
        return;
    }
    bs = continuation_at(st->line, st->len);
    if (bs < st->len && !join_continuations(st, source, len, bs, pos, lines))
        return;
    parse_directive(st, at);
    if (st->n_segs > 1)
        sort_by_line(st->diags, first_diag);
}

/* ---- the file ----------------------------------------------------------------- */

void directives_release(struct directives *d)
{
    size_t i;

    rows_kernel_free(d->rows);
    for (i = 0; i < d->n_launches; i++)
        launch_release(&d->launches[i]);
    free(d->launches);
    for (i = 0; i < d->n_scratches; i++) {
        free(d->scratches[i].name);
        expr_free(d->scratches[i].count);
    }
    free(d->scratches);
    for (i = 0; i < d->n_consts; i++)
        free(d->consts[i].name);
    free(d->consts);
    for (i = 0; i < d->n_tunes; i++) {
        free(d->tunes[i].name);
        free(d->tunes[i].values);
    }
    free(d->tunes);
    for (i = 0; i < d->n_lets; i++) {
        free(d->lets[i].name);
        expr_free(d->lets[i].value);
    }
    free(d->lets);
    for (i = 0; i < d->n_flags; i++)
        free(d->flags[i]);
    free(d->flags);
    memset(d, 0, sizeof(*d));
}

int directives_parse(const char *source, size_t len, struct directives *out,
                     struct diag_list *diags)
{
    return directives_parse_as(LANG_CUDA, source, len, out, diags);
}

int directives_parse_as(enum language lang, const char *source, size_t len, struct directives *out,
                        struct diag_list *diags)
{
    struct directives d = {.lang = lang};
    struct dparse st = {.lang = lang};
    size_t pos = 0, lines = 0;
    const char *nul;
    int rc = BW_OK;

    memset(out, 0, sizeof(*out));
    if (!source)
        source = "", len = 0;
    if (len > BW_MAX_SOURCE_BYTES) {
        if (diag_list_addf(diags, 0, 0, "source is %zu bytes, more than %d (BW_MAX_SOURCE_BYTES)",
                           len, BW_MAX_SOURCE_BYTES))
            return BW_ERR_NOMEM;
        return BW_ERR_LIMIT;
    }
    nul = memchr(source, '\0', len);
    if (nul) {
        int line = 1;
        const char *p, *bol = source;
        for (p = source; p < nul; p++)
            if (*p == '\n')
                line++, bol = p + 1;
        if (diag_list_addf(diags, line, (int)(nul - bol) + 1,
                           "NUL byte in the source (a %s file is text)", language_extension(lang)))
            return BW_ERR_NOMEM;
        return BW_ERR_INVALID;
    }
    /* Fixed-capacity arrays: every count has a small cap. */
    d.launches = calloc(BW_MAX_LAUNCHES, sizeof(*d.launches));
    d.scratches = calloc(BW_MAX_SCRATCH, sizeof(*d.scratches));
    d.consts = calloc(BW_MAX_CONSTS, sizeof(*d.consts));
    d.tunes = calloc(BW_MAX_TUNE_PARAMS, sizeof(*d.tunes));
    d.flags = calloc(BW_MAX_FLAGS, sizeof(*d.flags));
    d.lets = calloc(BW_MAX_LETS, sizeof(*d.lets));
    st.joined = malloc(BW_MAX_JOINED_BYTES);
    if (!d.launches || !d.scratches || !d.consts || !d.tunes || !d.flags || !d.lets || !st.joined) {
        rc = BW_ERR_NOMEM;
        goto release;
    }
    st.d = &d;
    st.diags = diags;
    while (pos < len && !st.nomem) {
        if (++lines > BW_MAX_SOURCE_LINES)
            break;
        parse_line(&st, source, len, &pos, &lines);
    }
    if (lines > BW_MAX_SOURCE_LINES) {
        dparse_err_file(&st, "source has more than %d lines (BW_MAX_SOURCE_LINES)",
                        BW_MAX_SOURCE_LINES);
        st.limit = true;
    }
    if (lang == LANG_TRITON && st.n_errors == 0 && !st.nomem && !st.limit)
        dparse_constexpr_by_name(&st, source, len);
    if (!st.saw_launch && !st.nomem && !st.limit)
        dparse_err_file(&st, "no @launch directive: the judge has nothing to run (add e.g. %s)",
                        launch_example(lang));
    if (st.nomem)
        rc = BW_ERR_NOMEM;
    else if (st.limit)
        rc = BW_ERR_LIMIT;
    else if (st.n_errors > 0)
        rc = BW_ERR_INVALID;
    if (rc == BW_OK) {
        free(st.joined);
        free(st.pending);
        *out = d;
        return BW_OK;
    }
release:
    free(st.joined);
    free(st.pending);
    directives_release(&d);
    return rc;
}
