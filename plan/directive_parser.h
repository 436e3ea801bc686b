/*
 * directive_parser.h - private to plan/: what the files of the directive
 * parser share. Callers outside plan/ use directive.h.
 *
 * The parser reads a source line by line; each directive is parsed on its
 * own through a struct dparse positioned on it. Positions are byte offsets
 * into the directive's text (its line, or its lines joined when a '\'
 * continues it), and a reported line and column are where that byte is in
 * the file (struct dseg; a tab is one column). An error marks the line failed and parsing goes on
 * with the next line, so a file reports every broken directive at once. The parser's files, in the
 * order a line meets them:
 *
 *   directive.c         the file: its size and NUL checks, its lines, which
 *                       lines are directives in a .cu or a .py file, the
 *                       dispatch by directive name, "no @launch"
 *   directive_cursor.c  reading a line: errors at a column, quoting,
 *                       parentheses, integer literals, expressions (expr.h)
 *   directive_names.c   what a name may be: an identifier, unique among
 *                       @const/@tune/@scratch/@let, not a word a macro would
 *                       replace
 *   directive_launch.c  @launch (CUDA's keys and Triton's) and @rows
 *   directive_decl.c    @scratch (and its C types), @const, @tune, @let
 *   flags.c             @flags and the NVRTC options it allows
 *   triton_params.c     a Triton kernel's tl.constexpr parameters passed by
 *                       name from a @const, @tune or @let
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
#include "common/limits.h"

/*
 * Where a directive's bytes came from. A directive continued over several
 * lines (a '\' at the end of a line: directive.c) is parsed as one line, the
 * text of each continuation line after its comment marker appended; byte
 * `start` of it onwards, up to the next segment, is physical line `lineno`
 * from byte `offset`. A line not continued is one segment {0, lineno, 0}.
 */
struct dseg {
    size_t start;  /* in the joined line */
    int lineno;    /* 1-based line of the file */
    size_t offset; /* byte of that line where the segment starts */
};

/* A name a @let's expression uses, where. */
struct let_use {
    char name[BW_MAX_NAME + 1];
    int line, column; /* of the use */
    int let_line;     /* of the @let */
};

/* The state of parsing one file, positioned on one directive. */
struct dparse {
    enum language lang;
    struct directives *d;    /* what has parsed so far (fixed-capacity arrays) */
    struct diag_list *diags; /* borrowed: where errors go */
    const char *line;        /* the current directive, not NUL-terminated: a line of the source,
                                or `joined` when continued */
    size_t len;              /* its bytes, without the line break */
    int lineno;              /* of its first line */
    struct dseg segs[BW_MAX_CONT_LINES];
    size_t n_segs;
    char *joined; /* owned: BW_MAX_JOINED_BYTES bytes for a continued directive */
    /* Names a @let used before any @let defined them (maybe a size of the
     * problem, maybe a @let further down: that one reports it) */
    struct let_use *pending; /* owned */
    size_t n_pending, cap_pending;
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

/* Reports at byte `pos` of the current directive (at its line and column in
 * the file, through st->segs). */
__attribute__((format(printf, 3, 4))) void dparse_err(struct dparse *st, size_t pos,
                                                      const char *fmt, ...);
/* The file's 1-based line and column of byte `pos` of the current directive. */
int dparse_line_at(const struct dparse *st, size_t pos);
int dparse_column_at(const struct dparse *st, size_t pos);
/* "column C", or "line L, column C" in a directive of several lines: where
 * byte `pos` is, for messages that point back ("to close ( at column 19"). */
const char *dparse_where(const struct dparse *st, size_t pos, char *out, size_t size);
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
/* Checks that no @const, @tune, @scratch or @let has taken `name` already. */
bool dparse_check_unique(struct dparse *st, size_t pos, const char *name);
/* Checks that `name` is not a function of the expression language (a @let's
 * name; @const and @tune names are checked by dparse_check_macro_name). */
bool dparse_check_not_function(struct dparse *st, size_t pos, const char *name, const char *what);

/* ---- one function per directive: `at` is the '@', `pos` the first byte after
 * the directive's name; each adds what it parsed to st->d or reports ---------- */

void dparse_launch(struct dparse *st, size_t at, size_t pos);  /* directive_launch.c */
void dparse_rows(struct dparse *st, size_t at, size_t pos);    /* directive_launch.c */
void dparse_scratch(struct dparse *st, size_t at, size_t pos); /* directive_decl.c */
void dparse_const(struct dparse *st, size_t at, size_t pos);   /* directive_decl.c */
void dparse_tune(struct dparse *st, size_t at, size_t pos);    /* directive_decl.c */
void dparse_let(struct dparse *st, size_t at, size_t pos);     /* directive_decl.c */
void dparse_flags(struct dparse *st, size_t at, size_t pos);   /* flags.c */

/* Triton: adds NAME=NAME to each @launch for the tl.constexpr parameters
 * NAME of its kernel (read from `source`) that it leaves out and that a
 * @const, @tune or @let is named after; triton_params.c. */
void dparse_constexpr_by_name(struct dparse *st, const char *source, size_t len);

/* Frees what a parsed @launch holds (not l itself), and a @rows kernel with
 * what it holds (NULL: nothing); directive_launch.c. */
void launch_release(struct launch *l);
void rows_kernel_free(struct rows_kernel *r);

#endif
