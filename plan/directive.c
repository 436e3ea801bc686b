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
static const char *const directive_list = "@launch, @scratch, @const, @tune or @flags";

/* Parses one line; does nothing if it is not a directive. @flags and @rows
 * are refused here in a Triton file, whatever follows them. */
static void parse_line(struct dparse *st)
{
    size_t pos, at, n;
    char q[200];

    if (!directive_at(st, &at))
        return;
    if (st->len > BW_MAX_DIRECTIVE_LINE) {
        dparse_err(st, BW_MAX_DIRECTIVE_LINE,
                   "directive line is %zu bytes, more than %d (BW_MAX_DIRECTIVE_LINE)", st->len,
                   BW_MAX_DIRECTIVE_LINE);
        st->limit = true;
        /* Still a @launch line: "no @launch" would mislead. */
        if (st->len - at > 7 && memcmp(st->line + at, "@launch", 7) == 0)
            st->saw_launch = true;
        return;
    }
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
    if (!d.launches || !d.scratches || !d.consts || !d.tunes || !d.flags) {
        rc = BW_ERR_NOMEM;
        goto release;
    }
    st.d = &d;
    st.diags = diags;
    while (pos < len && !st.nomem) {
        const char *eol = memchr(source + pos, '\n', len - pos);
        size_t end = eol ? (size_t)(eol - source) : len;

        if (++lines > BW_MAX_SOURCE_LINES) {
            dparse_err_file(&st, "source has more than %d lines (BW_MAX_SOURCE_LINES)",
                            BW_MAX_SOURCE_LINES);
            st.limit = true;
            break;
        }
        st.line = source + pos;
        st.len = end - pos;
        if (st.len > 0 && st.line[st.len - 1] == '\r')
            st.len--;
        st.lineno = (int)lines;
        st.line_failed = false;
        if (lang != LANG_TRITON)
            parse_line(&st); /* CUDA: purely lexical, even inside a comment or a string */
        else if (!st.py_quote)
            parse_line(&st); /* Python: a comment line, not a line of a docstring */
        if (lang == LANG_TRITON)
            python_strings(&st);
        pos = end + 1;
    }
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
        *out = d;
        return BW_OK;
    }
release:
    directives_release(&d);
    return rc;
}
