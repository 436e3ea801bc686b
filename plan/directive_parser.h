/*
 * directive_parser.h - private to plan/: what the files of the directive
 * parser share. Callers outside plan/ use directive.h.
 *
 * The parser reads a source line by line; each directive line is parsed on
 * its own through a struct dparse positioned on that line. Positions are
 * byte offsets into the line, and a reported column is the offset + 1 (a tab
 * is one column). An error marks the line failed and parsing goes on with
 * the next line, so a file reports every broken directive at once. The
 * parser's files, in the order a line meets them:
 *
 *   directive.c         the file: its size and NUL checks, its lines, which
 *                       lines are directives in a .cu or a .py file, the
 *                       dispatch by directive name, "no @launch"
 *   directive_cursor.c  reading a line: errors at a column, quoting,
 *                       parentheses, integer literals, expressions (expr.h)
 *   directive_names.c   what a name may be: an identifier, unique among
 *                       @const/@tune/@scratch, not a word a macro would replace
 *   directive_launch.c  @launch (CUDA's keys and Triton's) and @rows
 *   directive_decl.c    @scratch (and its C types), @const, @tune
 *   flags.c             @flags and the NVRTC options it allows
 *
 * Every function here reports its own errors through dparse_err(); one that
 * returns false or NULL has reported why (or set nomem).
 */
#ifndef BW_DIRECTIVE_PARSER_H
#define BW_DIRECTIVE_PARSER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "directive.h"

/* The state of parsing one file, positioned on one line. */
struct dparse {
    enum language lang;
    struct directives *d;    /* what has parsed so far (fixed-capacity arrays) */
    struct diag_list *diags; /* borrowed: where errors go */
    const char *line;        /* the current line, not NUL-terminated */
    size_t len;              /* its bytes, without the line break */
    int lineno;
    bool line_failed; /* an error was reported on this line */
    bool limit;       /* a limit was exceeded somewhere */
    bool nomem;
    bool stopped; /* BW_MAX_DIAGS reached: nothing more is reported */
    bool saw_launch;
    size_t n_errors;
    /* Python: the string open at the end of the line, so that a line inside a triple-quoted
     * string (a docstring) is not read as a "# @" comment: 0 or the quote byte, and whether
     * it is tripled (directive.c: python_strings) */
    char py_quote;
    bool py_triple;
};

/* ---- reading bytes of the line (the one-liners every parser file uses) ---- */

static inline bool is_blank(char c)
{
    return c == ' ' || c == '\t';
}

static inline bool is_word_char(char c)
{
    return c == '_' || (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9');
}

static inline size_t skip_blanks(const struct dparse *st, size_t pos)
{
    while (pos < st->len && is_blank(st->line[pos]))
        pos++;
    return pos;
}

/* Length of the run of identifier characters at pos. */
static inline size_t word_len(const struct dparse *st, size_t pos)
{
    size_t n = 0;
    while (pos + n < st->len && is_word_char(st->line[pos + n]))
        n++;
    return n;
}

/* Length of the run of non-blank bytes at pos. */
static inline size_t token_len(const struct dparse *st, size_t pos)
{
    size_t n = 0;
    while (pos + n < st->len && !is_blank(st->line[pos + n]))
        n++;
    return n;
}

/* ---- directive_cursor.c ---------------------------------------------------- */

/* Reports at byte `pos` of the current line. */
__attribute__((format(printf, 3, 4))) void dparse_err(struct dparse *st, size_t pos,
                                                      const char *fmt, ...);
/* Reports about the whole file (line 0, column 0). */
__attribute__((format(printf, 2, 3))) void dparse_err_file(struct dparse *st, const char *fmt, ...);
/* A *new* copy of line[pos, pos+n), or NULL (and nomem set). */
char *dparse_copy(struct dparse *st, size_t pos, size_t n);
/* Formats at most 40 bytes of line[pos, pos+n) into out for quoting, with
 * non-printable bytes as \xNN; returns out. */
const char *dparse_quote(const struct dparse *st, size_t pos, size_t n, char *out, size_t size);
/* Describes what is at pos for "got ..." parts: a quoted token or "the end
 * of the line". Returns out or a constant string. */
const char *dparse_got(const struct dparse *st, size_t pos, char *out, size_t size);
/* Reports anything but blanks from pos to the end of the line; `after` names
 * what came before, as in "@const NAME=INT". */
void dparse_expect_eol(struct dparse *st, size_t pos, const char *after);
/*
 * Finds the ')' matching the '(' at `open`, recording the positions of
 * top-level commas (up to max_commas; *n_commas counts all of them).
 * Returns the position of the ')' or st->len if the line ends first.
 */
size_t dparse_match_paren(const struct dparse *st, size_t open, size_t *commas, size_t max_commas,
                          size_t *n_commas);
/* Parses the integer literal [+-]?[0-9]+ at line[pos, pos+n) into *out;
 * false, reported with `what` ("the @const value"), otherwise. */
bool dparse_int_token(struct dparse *st, size_t pos, size_t n, const char *what, int64_t *out);
/*
 * Parses line[a, b) as an integer expression of `what` ("grid=(...)").
 * `before` is the character that ends it, for the empty-expression message.
 * Returns a *new* expression or NULL (reported).
 */
struct expr *dparse_expr(struct dparse *st, size_t a, size_t b, const char *what, char before);

/* ---- directive_names.c ----------------------------------------------------- */

/* Checks that line[pos, pos+n) is a usable name (an identifier of at most
 * BW_MAX_NAME bytes); `what` names the role ("kernel name", "@const name"). */
bool dparse_check_name(struct dparse *st, size_t pos, size_t n, const char *what);
/* Checks a @const or @tune name beyond dparse_check_name: in CUDA it becomes
 * a macro, so it may not be a C++/CUDA word or a reserved identifier; in
 * Triton it may not be a function of the expression language. */
bool dparse_check_macro_name(struct dparse *st, size_t pos, const char *name, const char *what);
/* Checks that no @const, @tune or @scratch has taken `name` already. */
bool dparse_check_unique(struct dparse *st, size_t pos, const char *name);

/* ---- one function per directive: `at` is the '@', `pos` the first byte after
 * the directive's name; each adds what it parsed to st->d or reports ---------- */

void dparse_launch(struct dparse *st, size_t at, size_t pos);  /* directive_launch.c */
void dparse_rows(struct dparse *st, size_t at, size_t pos);    /* directive_launch.c */
void dparse_scratch(struct dparse *st, size_t at, size_t pos); /* directive_decl.c */
void dparse_const(struct dparse *st, size_t at, size_t pos);   /* directive_decl.c */
void dparse_tune(struct dparse *st, size_t at, size_t pos);    /* directive_decl.c */
void dparse_flags(struct dparse *st, size_t at, size_t pos);   /* flags.c */

/* Frees what a parsed @launch holds (not l itself), and a @rows kernel with
 * what it holds (NULL: nothing); directive_launch.c. */
void launch_release(struct launch *l);
void rows_kernel_free(struct rows_kernel *r);

#endif
