/*
 * directive.c - the // @directive parser of submissions.
 *
 * The source is read line by line. A line is a directive when its first
 * non-blank bytes are "//", then optional blanks, then '@' - wherever it is,
 * even inside a block comment, a string or an #if 0 (the rule is purely
 * lexical on purpose: one line, no C++ state). Each directive line is parsed
 * on its own by a cursor over the line's bytes; columns are 1-based byte
 * offsets in the line (a tab counts as one column). An error ends the parse of
 * its line (or, inside @launch, only of the key being read) and parsing goes
 * on with the next line, so a file reports every broken directive at once.
 * Nothing is kept from a file with an error: the caller gets either a whole
 * plan or diagnostics.
 */
#include "directive.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "buf.h"
#include "error.h"
#include "limits.h"
#include "util.h"
#include "banned.h"

/* ------------------------------------------------------------------------ */
/* Diagnostics                                                               */

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

/* ------------------------------------------------------------------------ */
/* Flags                                                                     */

static const char *const flag_list =
    "--use_fast_math, --ftz=true|false, --prec-div=true|false, --prec-sqrt=true|false, "
    "--fmad=true|false, --maxrregcount=N (N in 1..255), --extra-device-vectorization, "
    "--restrict, --std=c++11|c++14|c++17|c++20 (each also with a single dash), "
    "-lineinfo or --generate-line-info";

/* Options without a value, spelled exactly as NVRTC accepts them (the unit
 * tests compile with every allowed spelling). */
static const char *const plain_flags[] = {
    "--use_fast_math",
    "-use_fast_math",
    "--extra-device-vectorization",
    "-extra-device-vectorization",
    "--restrict",
    "-restrict",
    "-lineinfo",
    "--generate-line-info",
};
/* Options taking true or false, with one or two dashes. */
static const char *const bool_flags[] = {"ftz", "prec-div", "prec-sqrt", "fmad"};
static const char *const std_values[] = {"c++11", "c++14", "c++17", "c++20"};

bool directive_flag_allowed(const char *option)
{
    const char *name, *eq;
    size_t i, name_len;
    int64_t n;

    if (!option || option[0] != '-')
        return false;
    for (i = 0; i < sizeof(plain_flags) / sizeof(plain_flags[0]); i++)
        if (strcmp(option, plain_flags[i]) == 0)
            return true;
    name = option + (option[1] == '-' ? 2 : 1);
    eq = strchr(name, '=');
    if (!eq)
        return false;
    name_len = (size_t)(eq - name);
    for (i = 0; i < sizeof(bool_flags) / sizeof(bool_flags[0]); i++)
        if (strlen(bool_flags[i]) == name_len && memcmp(name, bool_flags[i], name_len) == 0)
            return strcmp(eq + 1, "true") == 0 || strcmp(eq + 1, "false") == 0;
    if (name_len == 3 && memcmp(name, "std", 3) == 0) {
        for (i = 0; i < sizeof(std_values) / sizeof(std_values[0]); i++)
            if (strcmp(eq + 1, std_values[i]) == 0)
                return true;
        return false;
    }
    if (name_len == 12 && memcmp(name, "maxrregcount", 12) == 0)
        return eq[1] >= '1' && eq[1] <= '9' && parse_i64(eq + 1, &n) && n >= 1 && n <= 255;
    return false;
}

const char *directive_flag_allowlist(void)
{
    return flag_list;
}

/* A hint for the options learners most often try, or "". */
static const char *flag_hint(const char *option)
{
    const char *name = option + (option[0] == '-' ? 1 : 0);
    name += name[0] == '-';
    if (strncmp(name, "D", 1) == 0 || strncmp(name, "define-macro", 12) == 0)
        return "; use @const NAME=VALUE to define a macro";
    if (strncmp(name, "I", 1) == 0 || strncmp(name, "include", 7) == 0 ||
        strncmp(name, "pre-include", 11) == 0)
        return "; only the CUDA headers the judge provides can be included";
    if (strncmp(name, "arch", 4) == 0 || strncmp(name, "gpu-architecture", 16) == 0)
        return "; the judge compiles for its own GPU";
    if (strncmp(name, "maxrregcount", 12) == 0)
        return "; write --maxrregcount=N with N in 1..255";
    return "";
}

/* ------------------------------------------------------------------------ */
/* Parse state and the line cursor                                           */

struct pstate {
    enum language lang;
    struct directives *d;
    struct diag_list *diags;
    const char *line; /* the current line, not NUL-terminated */
    size_t len;       /* its bytes, without the line break */
    int lineno;
    bool line_failed; /* an error was reported on this line */
    bool limit;       /* a limit was exceeded somewhere */
    bool nomem;
    bool stopped; /* BW_MAX_DIAGS reached: nothing more is reported */
    bool saw_launch;
    size_t n_errors;
    /* Python: the string open at the end of the line, so that a line inside a triple-quoted
     * string (a docstring) is not read as a "# @" comment: 0 or the quote byte, and whether
     * it is tripled (python_strings) */
    char py_quote;
    bool py_triple;
};

/* Reports at line:column (either 0 when not tied to one); counts errors and
 * stops reporting after BW_MAX_DIAGS of them. */
static __attribute__((format(printf, 4, 0))) void verr_at(struct pstate *st, int line, int column,
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

/* Reports at byte `pos` of the current line. */
static __attribute__((format(printf, 3, 4))) void err(struct pstate *st, size_t pos,
                                                      const char *fmt, ...)
{
    va_list ap;

    va_start(ap, fmt);
    verr_at(st, st->lineno, (int)pos + 1, fmt, ap);
    va_end(ap);
}

/* Reports about the whole file (line 0, column 0). */
static __attribute__((format(printf, 2, 3))) void err_file(struct pstate *st, const char *fmt, ...)
{
    va_list ap;

    va_start(ap, fmt);
    verr_at(st, 0, 0, fmt, ap);
    va_end(ap);
}

static bool is_blank(char c)
{
    return c == ' ' || c == '\t';
}

static bool is_word_char(char c)
{
    return c == '_' || (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9');
}

static size_t skip_blanks(const struct pstate *st, size_t pos)
{
    while (pos < st->len && is_blank(st->line[pos]))
        pos++;
    return pos;
}

/* Length of the run of identifier characters at pos. */
static size_t word_len(const struct pstate *st, size_t pos)
{
    size_t n = 0;
    while (pos + n < st->len && is_word_char(st->line[pos + n]))
        n++;
    return n;
}

/* Length of the run of non-blank bytes at pos. */
static size_t token_len(const struct pstate *st, size_t pos)
{
    size_t n = 0;
    while (pos + n < st->len && !is_blank(st->line[pos + n]))
        n++;
    return n;
}

/* A *new* copy of line[pos, pos+n), or NULL (and nomem set). */
static char *copy(struct pstate *st, size_t pos, size_t n)
{
    char *s = strndup(st->line + pos, n);
    if (!s)
        st->nomem = true;
    return s;
}

/* Formats at most 40 bytes of line[pos, pos+n) into out for quoting, with
 * non-printable bytes as \xNN. */
static const char *quote(const struct pstate *st, size_t pos, size_t n, char *out, size_t size)
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
static const char *got(const struct pstate *st, size_t pos, char *out, size_t size)
{
    size_t n;

    if (pos >= st->len)
        return "the end of the line";
    n = word_len(st, pos);
    if (n == 0)
        n = 1;
    out[0] = '\'';
    quote(st, pos, n, out + 1, size - 2);
    n = strlen(out);
    out[n] = '\'';
    out[n + 1] = '\0';
    return out;
}

/* Reports anything but blanks from pos to the end of the line. */
static void expect_eol(struct pstate *st, size_t pos, const char *after)
{
    char g[64];

    pos = skip_blanks(st, pos);
    if (pos + 1 < st->len && st->line[pos] == '/' && st->line[pos + 1] == '/')
        err(st, pos, "unexpected comment after %s (a directive line cannot end with a comment)",
            after);
    else if (pos < st->len)
        err(st, pos, "unexpected %s after %s (expected the end of the line)",
            got(st, pos, g, sizeof(g)), after);
}

/*
 * Finds the ')' matching the '(' at `open`, recording the positions of
 * top-level commas (up to max_commas; *n_commas counts all of them).
 * Returns the position of the ')' or st->len if the line ends first.
 */
static size_t match_paren(const struct pstate *st, size_t open, size_t *commas, size_t max_commas,
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

/* Checks that line[pos, pos+n) is a usable name; reports and returns false
 * if not. `what` names the role ("kernel name", "@const name"). */
static bool check_name(struct pstate *st, size_t pos, size_t n, const char *what)
{
    char q[200];

    if (n == 0) {
        char g[64];
        err(st, pos, "expected a %s, got %s", what, got(st, pos, g, sizeof(g)));
        return false;
    }
    if (st->line[pos] >= '0' && st->line[pos] <= '9') {
        err(st, pos, "%s '%s' must start with a letter or '_'", what,
            quote(st, pos, n, q, sizeof(q)));
        return false;
    }
    if (n > BW_MAX_NAME) {
        err(st, pos, "%s '%s' is longer than %d bytes (BW_MAX_NAME)", what,
            quote(st, pos, n, q, sizeof(q)), BW_MAX_NAME);
        st->limit = true;
        return false;
    }
    return true;
}

/* Words a @const or @tune name may not be: they become macros (-DNAME=V) of
 * the learner's own code, so a keyword, a CUDA built-in or a function of the
 * expression language would silently break it. */
static const char *const macro_reserved[] = {
    "alignas",
    "alignof",
    "asm",
    "auto",
    "bool",
    "break",
    "case",
    "catch",
    "char",
    "char8_t",
    "char16_t",
    "char32_t",
    "class",
    "concept",
    "const",
    "consteval",
    "constexpr",
    "constinit",
    "const_cast",
    "continue",
    "co_await",
    "co_return",
    "co_yield",
    "decltype",
    "default",
    "defined",
    "delete",
    "do",
    "double",
    "dynamic_cast",
    "else",
    "enum",
    "explicit",
    "export",
    "extern",
    "false",
    "float",
    "for",
    "friend",
    "goto",
    "if",
    "inline",
    "int",
    "long",
    "mutable",
    "namespace",
    "new",
    "noexcept",
    "nullptr",
    "operator",
    "private",
    "protected",
    "public",
    "register",
    "reinterpret_cast",
    "requires",
    "restrict",
    "return",
    "short",
    "signed",
    "sizeof",
    "static",
    "static_assert",
    "static_cast",
    "struct",
    "switch",
    "template",
    "this",
    "thread_local",
    "throw",
    "true",
    "try",
    "typedef",
    "typeid",
    "typename",
    "union",
    "unsigned",
    "using",
    "virtual",
    "void",
    "volatile",
    "wchar_t",
    "while",
    "NULL",
    "threadIdx",
    "blockIdx",
    "blockDim",
    "gridDim",
    "warpSize",
    "cdiv",
    "min",
    "max",
    "next_pow2",
};

/* The expression language's functions: no @const or @tune may be named so. */
static const char *const function_names[] = {"cdiv", "min", "max", "next_pow2"};

/* Checks a @const or @tune name beyond check_name. */
static bool check_macro_name(struct pstate *st, size_t pos, const char *name, const char *what)
{
    size_t i;

    if (st->lang == LANG_TRITON) { /* not a macro in Python: only expressions see it */
        for (i = 0; i < sizeof(function_names) / sizeof(function_names[0]); i++)
            if (strcmp(name, function_names[i]) == 0) {
                err(st, pos, "%s '%s' cannot be used: it is a function of the expression language",
                    what, name);
                return false;
            }
        return true;
    }

    if (name[0] == '_' && (name[1] == '_' || (name[1] >= 'A' && name[1] <= 'Z'))) {
        err(st, pos,
            "%s '%s' is reserved (names starting with '__' or '_' and a capital belong to "
            "the compiler)",
            what, name);
        return false;
    }
    for (i = 0; i < sizeof(macro_reserved) / sizeof(macro_reserved[0]); i++) {
        if (strcmp(name, macro_reserved[i]) == 0) {
            err(st, pos,
                "%s '%s' cannot be used: it becomes a macro and would replace the C++/CUDA "
                "word '%s'",
                what, name, name);
            return false;
        }
    }
    return true;
}

/* Reports a name already taken by a @const, @tune or @scratch. */
static bool check_unique(struct pstate *st, size_t pos, const char *name)
{
    const struct directives *d = st->d;
    const char *kind = NULL;
    int line = 0;
    size_t i;

    for (i = 0; i < d->n_consts && !kind; i++)
        if (strcmp(d->consts[i].name, name) == 0)
            kind = "@const", line = d->consts[i].line;
    for (i = 0; i < d->n_tunes && !kind; i++)
        if (strcmp(d->tunes[i].name, name) == 0)
            kind = "@tune", line = d->tunes[i].line;
    for (i = 0; i < d->n_scratches && !kind; i++)
        if (strcmp(d->scratches[i].name, name) == 0)
            kind = "@scratch", line = d->scratches[i].line;
    if (!kind)
        return true;
    err(st, pos, "duplicate name '%s': already defined by %s on line %d", name, kind, line);
    return false;
}

/*
 * Parses the integer literal [+-]?[0-9]+ at line[pos, pos+n) into *out;
 * reports with `what` ("@const value") and returns false otherwise.
 */
static bool parse_int_token(struct pstate *st, size_t pos, size_t n, const char *what, int64_t *out)
{
    char buf[64], q[200];
    size_t i = 0;

    if (n == 0) {
        char g[64];
        err(st, pos, "expected an integer for %s, got %s", what, got(st, pos, g, sizeof(g)));
        return false;
    }
    if (st->line[pos] == '-' || st->line[pos] == '+')
        i = 1;
    if (i == n) {
        err(st, pos, "expected an integer for %s, got '%s'", what, quote(st, pos, n, q, sizeof(q)));
        return false;
    }
    for (; i < n; i++) {
        if (st->line[pos + i] < '0' || st->line[pos + i] > '9') {
            err(st, pos, "%s must be an integer literal, got '%s'", what,
                quote(st, pos, n, q, sizeof(q)));
            return false;
        }
    }
    if (n >= sizeof(buf) || (memcpy(buf, st->line + pos, n), buf[n] = '\0', !parse_i64(buf, out))) {
        err(st, pos, "%s '%s' is out of range (int64)", what, quote(st, pos, n, q, sizeof(q)));
        return false;
    }
    return true;
}

/*
 * Parses line[a, b) as an integer expression of `what` ("grid=(...)").
 * `before` is the character that ends it, for the empty-expression message.
 * Returns a *new* expression or NULL (reported).
 */
static struct expr *sub_expr(struct pstate *st, size_t a, size_t b, const char *what, char before)
{
    struct expr *e;
    char *text, *cause = NULL;
    const char *msg;
    int col = 0;
    size_t first = skip_blanks(st, a);

    if (first >= b) {
        err(st, first, "expected an expression before '%c' in %s", before, what);
        return NULL;
    }
    /* The text is kept trimmed (expr_text shows it); columns map from a. */
    a = first;
    while (b > a && is_blank(st->line[b - 1]))
        b--;
    if (b - a > BW_MAX_EXPR_BYTES) {
        err(st, first, "expression in %s is longer than %d bytes (BW_MAX_EXPR_BYTES)", what,
            BW_MAX_EXPR_BYTES);
        st->limit = true;
        return NULL;
    }
    text = copy(st, a, b - a);
    if (!text)
        return NULL;
    e = expr_parse(text, &col, &cause);
    free(text);
    if (!e) {
        /* expr.h promises "column C: " first; the position becomes ours. */
        msg = cause ? cause : "invalid expression";
        if (strncmp(msg, "column ", 7) == 0 && strstr(msg, ": "))
            msg = strstr(msg, ": ") + 2;
        err(st, a + (size_t)(col > 0 ? col - 1 : 0), "%s", msg);
        if (cause && strstr(cause, "BW_MAX_EXPR"))
            st->limit = true;
        free(cause);
        return NULL;
    }
    if (expr_is_real(e)) {
        char q[200];
        err(st, first, "%s must be an integer expression, got '%s'", what,
            quote(st, first, b - first, q, sizeof(q)));
        expr_free(e);
        return NULL;
    }
    return e;
}

/* ------------------------------------------------------------------------ */
/* @launch                                                                   */

static void launch_release(struct launch *l)
{
    size_t i;

    free(l->kernel);
    for (i = 0; i < 3; i++) {
        expr_free(l->grid[i]);
        expr_free(l->block[i]);
    }
    expr_free(l->smem);
    expr_free(l->num_warps);
    expr_free(l->num_stages);
    expr_free(l->maxnreg);
    for (i = 0; i < l->n_args; i++) {
        free(l->args[i].keyword);
        free(l->args[i].name);
        expr_free(l->args[i].expr);
    }
    free(l->args);
    memset(l, 0, sizeof(*l));
}

/* The end of a value that runs to the next blank outside parentheses
 * (smem=, and a value skipped after an error). *depth_left tells whether a
 * '(' was left open at the end of the line. */
static size_t value_end(const struct pstate *st, size_t pos, bool *open_left)
{
    size_t depth = 0;

    while (pos < st->len && (depth > 0 || !is_blank(st->line[pos]))) {
        if (st->line[pos] == '(')
            depth++;
        else if (st->line[pos] == ')' && depth > 0)
            depth--;
        pos++;
    }
    if (open_left)
        *open_left = depth > 0;
    return pos;
}

/* A '(' at `open` that the line never closes: reports where the ')' is
 * missing. When a blank and a @launch key (grid=, block=, smem=, args=,
 * num_warps=, num_stages=, maxnreg=) follow inside the open value, the ')'
 * most likely belongs before that key ("grid=(cdiv(n, 256) block=(256)"), so
 * the error points there; otherwise at the end of the line. `what` names the
 * value, as in "grid=(". */
static void err_unclosed(struct pstate *st, size_t open, const char *what)
{
    static const char *const keys[] = {"grid",      "block",      "smem",   "args",
                                       "num_warps", "num_stages", "maxnreg"};
    size_t pos, k;

    for (pos = open + 1; pos < st->len; pos++) {
        size_t n, eq;

        if (!is_blank(st->line[pos - 1]) || is_blank(st->line[pos]))
            continue;
        n = word_len(st, pos);
        eq = skip_blanks(st, pos + n);
        if (n == 0 || eq >= st->len || st->line[eq] != '=')
            continue;
        for (k = 0; k < sizeof(keys) / sizeof(keys[0]); k++)
            if (strlen(keys[k]) == n && memcmp(st->line + pos, keys[k], n) == 0) {
                err(st, pos, "expected ')' to close %s at column %zu before %s=", what, open + 1,
                    keys[k]);
                return;
            }
    }
    err(st, st->len, "expected ')' to close %s at column %zu, got the end of the line", what,
        open + 1);
}

/* After an error in a key's value: the position past it. */
static size_t skip_value(const struct pstate *st, size_t pos)
{
    return value_end(st, pos, NULL);
}

/* grid=( or block=( with `open` at the '('; fills dims[]. Returns the
 * position after the value, or st->len when the line cannot be read on. */
static size_t parse_dims(struct pstate *st, size_t open, const char *key, struct expr **dims)
{
    size_t commas[3], n_commas, close, start, i;
    char what[32];

    snprintf(what, sizeof(what), "%s=(...)", key);
    if (open >= st->len || st->line[open] != '(') {
        char g[64];
        err(st, open, "expected '(' after %s= (e.g. %s=(cdiv(n, 256)) or %s=(16, 16)), got %s", key,
            key, key, got(st, open, g, sizeof(g)));
        return skip_value(st, open);
    }
    close = match_paren(st, open, commas, 3, &n_commas);
    if (close >= st->len) {
        char opened[32];

        snprintf(opened, sizeof(opened), "%s=(", key);
        err_unclosed(st, open, opened);
        return st->len;
    }
    if (n_commas > 2) {
        err(st, commas[2], "%s=(...) has more than 3 dimensions (x, y, z)", key);
        return close + 1;
    }
    start = open + 1;
    for (i = 0; i <= n_commas; i++) {
        size_t end = i < n_commas ? commas[i] : close;
        dims[i] = sub_expr(st, start, end, what, i < n_commas ? ',' : ')');
        start = end + 1;
    }
    return close + 1;
}

/* True if line[pos, pos+n) is [+-]?[0-9]+. */
static bool is_int_literal(const struct pstate *st, size_t pos, size_t n)
{
    size_t i = st->line[pos] == '-' || st->line[pos] == '+';
    if (i == n)
        return false;
    for (; i < n; i++)
        if (st->line[pos + i] < '0' || st->line[pos + i] > '9')
            return false;
    return true;
}

/* One entry of args=(...) in line[a, b): a name alone, an integer literal,
 * or an integer expression. False if reported. */
static bool parse_arg(struct pstate *st, size_t a, size_t b, char before, struct launch_arg *arg)
{
    size_t first = skip_blanks(st, a), n;

    while (b > first && is_blank(st->line[b - 1]))
        b--;
    if (first >= b) {
        err(st, first, "expected an argument before '%c' in args=(...)", before);
        return false;
    }
    n = b - first;
    arg->line = st->lineno;
    arg->column = (int)first + 1;
    /* NAME=value: a keyword argument (Triton's tl.constexpr parameters) */
    {
        size_t w = word_len(st, first), eq = skip_blanks(st, first + w);
        if (w > 0 && eq < b && st->line[eq] == '=' && (eq + 1 >= b || st->line[eq + 1] != '=')) {
            char q[200];
            if (st->lang != LANG_TRITON) {
                err(st, first,
                    "keyword argument '%s=' in a CUDA @launch: arguments are positional (keywords "
                    "NAME=value are for a Triton kernel's tl.constexpr parameters)",
                    quote(st, first, w, q, sizeof(q)));
                return false;
            }
            if (!check_name(st, first, w, "constexpr parameter name"))
                return false;
            arg->keyword = copy(st, first, w);
            if (!arg->keyword)
                return false;
            arg->keyword_column = (int)first + 1;
            first = skip_blanks(st, eq + 1);
            if (first >= b) {
                err(st, first, "expected a value after '%s=' in args=(...)", arg->keyword);
                return false;
            }
            n = b - first;
            arg->column = (int)first + 1;
        }
    }
    if (word_len(st, first) == n && !(st->line[first] >= '0' && st->line[first] <= '9')) {
        if (!check_name(st, first, n, "argument name"))
            return false;
        arg->kind = LAUNCH_ARG_NAME;
        arg->name = copy(st, first, n);
        return arg->name != NULL;
    }
    if (is_int_literal(st, first, n)) {
        arg->kind = LAUNCH_ARG_INTEGER;
        return parse_int_token(st, first, n, "the argument", &arg->value);
    }
    arg->kind = LAUNCH_ARG_EXPR;
    arg->expr = sub_expr(st, first, b, "an argument in args=(...)", before);
    return arg->expr != NULL;
}

/* args=( with `open` at the '('. Returns the position after the value. */
static size_t parse_args(struct pstate *st, size_t open, struct launch *l)
{
    size_t commas[BW_MAX_LAUNCH_ARGS], n_commas, close, start, i;

    if (open >= st->len || st->line[open] != '(') {
        char g[64];
        err(st, open, "expected '(' after args= (e.g. args=(x, y, out, n)), got %s",
            got(st, open, g, sizeof(g)));
        return skip_value(st, open);
    }
    close = match_paren(st, open, commas, BW_MAX_LAUNCH_ARGS, &n_commas);
    if (close >= st->len) {
        err_unclosed(st, open, "args=(");
        return st->len;
    }
    if (n_commas >= BW_MAX_LAUNCH_ARGS) {
        err(st, commas[BW_MAX_LAUNCH_ARGS - 1], "more than %d arguments (BW_MAX_LAUNCH_ARGS)",
            BW_MAX_LAUNCH_ARGS);
        st->limit = true;
        return close + 1;
    }
    if (n_commas == 0 && skip_blanks(st, open + 1) == close)
        return close + 1; /* args=(): a kernel without parameters */
    l->args = calloc(n_commas + 1, sizeof(*l->args));
    if (!l->args) {
        st->nomem = true;
        return st->len;
    }
    start = open + 1;
    for (i = 0; i <= n_commas; i++) {
        size_t end = i < n_commas ? commas[i] : close;
        struct launch_arg *arg = &l->args[l->n_args];
        if (parse_arg(st, start, end, i < n_commas ? ',' : ')', arg)) {
            bool bad = false;
            if (!arg->keyword && l->n_args > 0 && l->args[l->n_args - 1].keyword) {
                err(st, (size_t)arg->column - 1,
                    "positional argument after the keyword argument '%s=' (the kernel's "
                    "parameters come first, in order, then NAME=value for its tl.constexpr ones)",
                    l->args[l->n_args - 1].keyword);
                bad = true;
            }
            for (size_t k = 0; arg->keyword && k < l->n_args && !bad; k++)
                if (l->args[k].keyword && strcmp(l->args[k].keyword, arg->keyword) == 0) {
                    err(st, (size_t)arg->keyword_column - 1, "duplicate keyword argument '%s='",
                        arg->keyword);
                    bad = true;
                }
            if (!bad) {
                l->n_args++;
                start = end + 1;
                continue;
            }
            free(arg->keyword);
            free(arg->name);
            expr_free(arg->expr);
            memset(arg, 0, sizeof(*arg));
        } else {
            free(arg->keyword);
            free(arg->name);
            expr_free(arg->expr);
            memset(arg, 0, sizeof(*arg));
        }
        start = end + 1;
    }
    return close + 1;
}

/* KEY=e for smem=, num_warps=, num_stages= and maxnreg=: a value running to
 * the next blank outside parentheses, so both smem=4*BLOCK and smem=(4 *
 * BLOCK) work. `meaning` says what the value is, for the error when it is
 * missing. */
static size_t parse_scalar_key(struct pstate *st, size_t pos, const char *key, const char *meaning,
                               struct expr **out)
{
    bool open_left;
    size_t end = value_end(st, pos, &open_left), n = word_len(st, pos);
    char q[200], what[32];

    snprintf(what, sizeof(what), "%s=", key);
    if (open_left) {
        err(st, st->len, "expected ')' to close the '(' of %s=", key);
        return st->len;
    }
    if (end == pos) {
        err(st, pos, "expected an expression after %s= (%s)", key, meaning);
        return pos;
    }
    if (n > 0 && pos + n < st->len && st->line[pos + n] == '=') {
        err(st, pos, "expected an expression after %s=, got the key '%s='", key,
            quote(st, pos, n, q, sizeof(q)));
        return skip_value(st, pos);
    }
    *out = sub_expr(st, pos, end, what, ' ');
    return end;
}

static const char *const launch_keys = "grid=, block=, smem=, args=";
static const char *const triton_launch_keys = "grid=, num_warps=, num_stages=, maxnreg=, args=";

/* The kernel name of a @launch or @rows at *pos (blanks skipped), copied into
 * *name, with *pos moved past it; false, with the error reported, when it is
 * not a name followed by a blank or the line's end (`keys`: what may follow). */
static bool parse_kernel_name(struct pstate *st, size_t *pos, const char *keys, char **name)
{
    size_t at = skip_blanks(st, *pos), n = word_len(st, at);
    char g[64];

    if (!check_name(st, at, n, "kernel name"))
        return false;
    if (at + n < st->len && !is_blank(st->line[at + n])) {
        err(st, at + n, "unexpected %s after the kernel name (expected a blank, then %s)",
            got(st, at + n, g, sizeof(g)), keys);
        return false;
    }
    *name = copy(st, at, n);
    *pos = at + n;
    return *name != NULL;
}

/* For the key of n characters at `key` of directive `what` ("@launch"): true
 * the first time (*seen records its column), false with the error reported
 * when the key came before. */
static bool key_first_time(struct pstate *st, size_t key, size_t n, int *seen, const char *what)
{
    char q[200];

    if (*seen) {
        err(st, key, "duplicate %s= in %s (first at column %d)", quote(st, key, n, q, sizeof(q)),
            what, *seen);
        return false;
    }
    *seen = (int)key + 1;
    return true;
}

/* True when a key's value, read up to pos, ends there: at a blank or the
 * line's end; else false with the error reported. */
static bool value_ends(struct pstate *st, size_t pos, size_t key, size_t n)
{
    char q[200], g[64];

    if (pos < st->len && !is_blank(st->line[pos])) {
        err(st, pos, "unexpected %s after %s=(...) (expected a blank, then the next key)",
            got(st, pos, g, sizeof(g)), quote(st, key, n, q, sizeof(q)));
        return false;
    }
    return true;
}

static void parse_launch(struct pstate *st, size_t at, size_t pos)
{
    struct launch l = {0};
    size_t n, key, val;
    int seen_grid = 0, seen_block = 0, seen_smem = 0, seen_args = 0, seen_warps = 0,
        seen_stages = 0, seen_maxnreg = 0, *seen;
    bool triton = st->lang == LANG_TRITON;
    const char *keys = triton ? triton_launch_keys : launch_keys;
    char q[200], g[64];

    st->saw_launch = true;
    l.line = st->lineno;
    if (st->d->n_launches >= BW_MAX_LAUNCHES) {
        err(st, at, "more than %d @launch directives (BW_MAX_LAUNCHES)", BW_MAX_LAUNCHES);
        st->limit = true;
        return;
    }
    pos = skip_blanks(st, pos);
    n = word_len(st, pos);
    if (n > 0 && skip_blanks(st, pos + n) < st->len && st->line[skip_blanks(st, pos + n)] == '=') {
        err(st, pos,
            "expected a kernel name after @launch, got the key '%s=' (write @launch KERNEL "
            "grid=(...) %sargs=(...))",
            quote(st, pos, n, q, sizeof(q)), triton ? "" : "block=(...) ");
        return;
    }
    if (!parse_kernel_name(st, &pos, keys, &l.kernel))
        return;

    for (;;) {
        pos = skip_blanks(st, pos);
        if (pos >= st->len)
            break;
        key = pos;
        n = word_len(st, pos);
        if (n == 0) {
            err(st, pos, "expected a key (%s), got %s", launch_keys, got(st, pos, g, sizeof(g)));
            break;
        }
        val = skip_blanks(st, pos + n);
        if (val >= st->len || st->line[val] != '=') {
            err(st, val, "expected '=' after '%s' (keys are %s)", quote(st, key, n, q, sizeof(q)),
                keys);
            break;
        }
        val = skip_blanks(st, val + 1);
        if (n == 4 && memcmp(st->line + key, "grid", 4) == 0)
            seen = &seen_grid;
        else if (n == 5 && memcmp(st->line + key, "block", 5) == 0)
            seen = &seen_block;
        else if (n == 4 && memcmp(st->line + key, "smem", 4) == 0)
            seen = &seen_smem;
        else if (n == 4 && memcmp(st->line + key, "args", 4) == 0)
            seen = &seen_args;
        else if (n == 9 && memcmp(st->line + key, "num_warps", 9) == 0)
            seen = &seen_warps;
        else if (n == 10 && memcmp(st->line + key, "num_stages", 10) == 0)
            seen = &seen_stages;
        else if (n == 7 && memcmp(st->line + key, "maxnreg", 7) == 0)
            seen = &seen_maxnreg;
        else
            seen = NULL;
        if (seen && triton && (seen == &seen_block || seen == &seen_smem)) {
            err(st, key,
                "%s= in a Triton @launch: Triton decides the block (32 x num_warps threads) and "
                "the shared memory; set num_warps= instead (keys are %s)",
                quote(st, key, n, q, sizeof(q)), keys);
            pos = skip_value(st, val);
            continue;
        }
        if (seen && !triton &&
            (seen == &seen_warps || seen == &seen_stages || seen == &seen_maxnreg)) {
            err(st, key,
                "%s= is a Triton launch option; a CUDA @launch says block=(threads) (keys are %s)",
                quote(st, key, n, q, sizeof(q)), keys);
            pos = skip_value(st, val);
            continue;
        }
        if (!seen) {
            err(st, key, "unknown key '%s' in @launch (expected %s)",
                quote(st, key, n, q, sizeof(q)), keys);
            pos = skip_value(st, val);
            continue;
        }
        if (!key_first_time(st, key, n, seen, "@launch")) {
            pos = skip_value(st, val);
            continue;
        }
        if (seen == &seen_grid) {
            l.grid_column = (int)key + 1;
            pos = parse_dims(st, val, "grid", l.grid);
        } else if (seen == &seen_block) {
            l.block_column = (int)key + 1;
            pos = parse_dims(st, val, "block", l.block);
        } else if (seen == &seen_smem) {
            l.smem_column = (int)key + 1;
            pos = parse_scalar_key(st, val, "smem", "bytes of dynamic shared memory", &l.smem);
        } else if (seen == &seen_warps) {
            l.num_warps_column = (int)key + 1;
            pos = parse_scalar_key(st, val, "num_warps", "warps per program: 1, 2, 4, 8, 16 or 32",
                                   &l.num_warps);
        } else if (seen == &seen_stages) {
            l.num_stages_column = (int)key + 1;
            pos = parse_scalar_key(st, val, "num_stages", "the software pipelining depth",
                                   &l.num_stages);
        } else if (seen == &seen_maxnreg) {
            l.maxnreg_column = (int)key + 1;
            pos =
                parse_scalar_key(st, val, "maxnreg", "the cap on registers per thread", &l.maxnreg);
        } else {
            pos = parse_args(st, val, &l);
        }
        if (!value_ends(st, pos, key, n))
            break;
    }
    if (!st->line_failed) {
        if (!seen_grid)
            err(st, at,
                "@launch needs grid=(...) (the number of blocks, e.g. grid=(cdiv(n, 256)))");
        if (!seen_block && !triton)
            err(st, at, "@launch needs block=(...) (threads per block, e.g. block=(256))");
        if (!seen_args)
            err(st, at, "@launch needs args=(...) (the kernel's arguments, e.g. args=(x, out, n))");
    }
    if (st->line_failed || st->nomem) {
        launch_release(&l);
        return;
    }
    st->d->launches[st->d->n_launches++] = l;
}

/* ------------------------------------------------------------------------ */
/* @rows                                                                     */

static const char *const rows_keys = "rows=, block=, smem=";

/* Frees what r holds (not r). */
static void rows_clear(struct rows_kernel *r)
{
    free(r->kernel);
    expr_free(r->rows);
    for (int i = 0; i < 3; i++)
        expr_free(r->block[i]);
    expr_free(r->smem);
}

static void rows_release(struct rows_kernel *r)
{
    if (r)
        rows_clear(r);
    free(r);
}

/* @rows KERNEL rows=(R) block=(...) [smem=...] */
static void parse_rows(struct pstate *st, size_t at, size_t pos)
{
    struct rows_kernel r = {0};
    size_t n, key, val;
    int seen_rows = 0, seen_block = 0, seen_smem = 0, *seen;
    char q[200], g[64];

    r.line = st->lineno;
    if (st->d->rows) {
        err(st, at, "a second @rows (a reference has one rows kernel, first at line %d)",
            st->d->rows->line);
        return;
    }
    if (!parse_kernel_name(st, &pos, rows_keys, &r.kernel))
        return;
    for (;;) {
        pos = skip_blanks(st, pos);
        if (pos >= st->len)
            break;
        key = pos;
        n = word_len(st, pos);
        val = n ? skip_blanks(st, pos + n) : pos;
        if (n == 0 || val >= st->len || st->line[val] != '=') {
            err(st, pos, "expected a key (%s), got %s", rows_keys, got(st, pos, g, sizeof(g)));
            break;
        }
        val = skip_blanks(st, val + 1);
        if (n == 4 && memcmp(st->line + key, "rows", 4) == 0)
            seen = &seen_rows;
        else if (n == 5 && memcmp(st->line + key, "block", 5) == 0)
            seen = &seen_block;
        else if (n == 4 && memcmp(st->line + key, "smem", 4) == 0)
            seen = &seen_smem;
        else
            seen = NULL;
        if (!seen) {
            bool launch_key = (n == 4 && memcmp(st->line + key, "grid", 4) == 0) ||
                              (n == 4 && memcmp(st->line + key, "args", 4) == 0);
            if (launch_key)
                err(st, key,
                    "%s= in @rows: the judge launches one block per row (grid=(n_rows)) and "
                    "passes the @launch's arguments, then rows and n_rows (keys are %s)",
                    quote(st, key, n, q, sizeof(q)), rows_keys);
            else
                err(st, key, "unknown key '%s' in @rows (expected %s)",
                    quote(st, key, n, q, sizeof(q)), rows_keys);
            pos = skip_value(st, val);
            continue;
        }
        if (!key_first_time(st, key, n, seen, "@rows")) {
            pos = skip_value(st, val);
            continue;
        }
        if (seen == &seen_rows) {
            r.rows_column = (int)key + 1;
            pos = parse_scalar_key(st, val, "rows", "the number of rows of a case", &r.rows);
        } else if (seen == &seen_block) {
            r.block_column = (int)key + 1;
            pos = parse_dims(st, val, "block", r.block);
        } else {
            r.smem_column = (int)key + 1;
            pos = parse_scalar_key(st, val, "smem", "bytes of dynamic shared memory", &r.smem);
        }
        if (!value_ends(st, pos, key, n))
            break;
    }
    if (!st->line_failed) {
        if (!seen_rows)
            err(st, at,
                "@rows needs rows=(...) (the number of rows of a case, e.g. rows=(B*H*Sq))");
        if (!seen_block)
            err(st, at, "@rows needs block=(...) (threads per block, e.g. block=(128))");
    }
    if (!st->line_failed && !st->nomem && !(st->d->rows = malloc(sizeof(r))))
        st->nomem = true;
    if (st->line_failed || st->nomem) {
        rows_clear(&r);
        return;
    }
    *st->d->rows = r;
}

/* ------------------------------------------------------------------------ */
/* @scratch types                                                            */

static const char *const type_list =
    "a dtype: fp32, fp16, bf16, fp64, int8, uint8, int32, int64, uint32, uint64; or a C type: "
    "float, double, half, __half, __nv_bfloat16, signed char, unsigned char, int, unsigned, "
    "long long, unsigned long long, int8_t ... uint64_t";

/* The C and CUDA names of each dtype, as NVRTC (LP64) sizes them. */
static const struct {
    const char *name;
    enum dtype dtype;
} c_types[] = {
    {"float", DTYPE_FP32},
    {"double", DTYPE_FP64},
    {"half", DTYPE_FP16},
    {"__half", DTYPE_FP16},
    {"__nv_bfloat16", DTYPE_BF16},
    {"nv_bfloat16", DTYPE_BF16},
    {"signed char", DTYPE_INT8},
    {"int8_t", DTYPE_INT8},
    {"unsigned char", DTYPE_UINT8},
    {"uint8_t", DTYPE_UINT8},
    {"int", DTYPE_INT32},
    {"signed", DTYPE_INT32},
    {"signed int", DTYPE_INT32},
    {"int32_t", DTYPE_INT32},
    {"unsigned", DTYPE_UINT32},
    {"unsigned int", DTYPE_UINT32},
    {"uint32_t", DTYPE_UINT32},
    {"long long", DTYPE_INT64},
    {"long long int", DTYPE_INT64},
    {"signed long long", DTYPE_INT64},
    {"signed long long int", DTYPE_INT64},
    {"int64_t", DTYPE_INT64},
    {"unsigned long long", DTYPE_UINT64},
    {"unsigned long long int", DTYPE_UINT64},
    {"uint64_t", DTYPE_UINT64},
};

/* CUDA's vector types (float4, __half2, ...) by element type; NULL where
 * the element type is not a dtype either. */
static const struct {
    const char *prefix;
    const char *element;
} vector_types[] = {
    {"float", "float"},
    {"double", "double"},
    {"int", "int"},
    {"uint", "unsigned"},
    {"char", "signed char"},
    {"uchar", "unsigned char"},
    {"longlong", "long long"},
    {"ulonglong", "unsigned long long"},
    {"half", "half"},
    {"__half", "__half"},
    {"__nv_bfloat16", "__nv_bfloat16"},
    {"nv_bfloat16", "nv_bfloat16"},
    {"short", NULL},
    {"ushort", NULL},
    {"long", NULL},
    {"ulong", NULL},
};

/* The words a C type may be spelled with several of ("unsigned long long"). */
static bool is_type_word(const char *w, size_t n)
{
    static const char *const words[] = {"signed", "unsigned", "long", "short", "int", "char"};
    for (size_t i = 0; i < sizeof(words) / sizeof(words[0]); i++)
        if (strlen(words[i]) == n && memcmp(w, words[i], n) == 0)
            return true;
    return false;
}

static bool has_word(const char *text, const char *word)
{
    size_t n = strlen(word);
    for (const char *p = strstr(text, word); p; p = strstr(p + 1, word))
        if ((p == text || p[-1] == ' ') && (p[n] == '\0' || p[n] == ' '))
            return true;
    return false;
}

/* Why a C type that is no dtype is refused (a message without position), or
 * NULL if it is simply unknown. */
static const char *type_refusal(const char *t, char *out, size_t size)
{
    size_t n = strlen(t);

    if (has_word(t, "long") && !strstr(t, "long long")) {
        snprintf(out, size,
                 "'%s' is not accepted: it is 64-bit on Linux but 32-bit on Windows, and a "
                 "buffer's size must not depend on where the code was written; write %s",
                 t,
                 has_word(t, "unsigned") ? "unsigned long long (uint64) or unsigned (uint32)"
                                         : "long long (int64) or int (int32)");
        return out;
    }
    if (strcmp(t, "char") == 0)
        return "'char' is not accepted: whether it is signed is the compiler's choice; write "
               "signed char (int8) or unsigned char (uint8)";
    if (has_word(t, "short")) {
        snprintf(out, size,
                 "'%s' is 16-bit, and there is no 16-bit integer dtype: use int (int32), or half "
                 "(fp16) for 16-bit floats",
                 t);
        return out;
    }
    if (strcmp(t, "bool") == 0)
        return "'bool' is not a dtype: use unsigned char (uint8) or int (int32)";
    if (n >= 2 && t[n - 1] >= '1' && t[n - 1] <= '4') {
        for (size_t i = 0; i < sizeof(vector_types) / sizeof(vector_types[0]); i++) {
            if (strlen(vector_types[i].prefix) != n - 1 ||
                memcmp(t, vector_types[i].prefix, n - 1) != 0)
                continue;
            if (!vector_types[i].element)
                snprintf(out, size, "'%s' is a vector type, and its element type is no dtype", t);
            else
                snprintf(out, size,
                         "'%s' is a vector type, not a dtype: write %s[%c * COUNT] and cast the "
                         "pointer in the kernel",
                         t, vector_types[i].element, t[n - 1]);
            return out;
        }
    }
    return NULL;
}

/*
 * Reads @scratch's type at pos (a word is there): a dtype name or a C type of
 * one or more words. Copies its text (words joined by one blank) into text
 * and sets *out, or reports and sets DTYPE_INVALID. Returns the position
 * after the type.
 */
static size_t parse_scratch_type(struct pstate *st, size_t pos, char *text, size_t size,
                                 enum dtype *out)
{
    size_t n = word_len(st, pos), end = pos + n, len = 0, words = 1;
    char q[200], why[400];
    const char *refusal;

    *out = DTYPE_INVALID;
    if (n < size) {
        memcpy(text, st->line + pos, n);
        len = n;
    }
    /* More words only after a word that C types are spelled with. */
    while (len > 0 && words < 4 && is_type_word(st->line + end - n, n)) {
        size_t next = skip_blanks(st, end), m = word_len(st, next);
        if (m == 0 || !is_type_word(st->line + next, m) || len + 1 + m >= size)
            break;
        text[len++] = ' ';
        memcpy(text + len, st->line + next, m);
        len += m;
        end = next + m;
        n = m;
        words++;
    }
    text[len] = '\0';
    if (len == 0) {
        err(st, pos, "unknown dtype '%s' (expected %s)", quote(st, pos, end - pos, q, sizeof(q)),
            type_list);
        return end;
    }
    *out = dtype_parse(text);
    for (size_t i = 0; *out == DTYPE_INVALID && i < sizeof(c_types) / sizeof(c_types[0]); i++)
        if (strcmp(text, c_types[i].name) == 0)
            *out = c_types[i].dtype;
    if (*out != DTYPE_INVALID)
        return end;
    refusal = type_refusal(text, why, sizeof(why));
    if (refusal)
        err(st, pos, "%s", refusal);
    else
        err(st, pos, "unknown dtype '%s' (expected %s)", quote(st, pos, end - pos, q, sizeof(q)),
            type_list);
    return end;
}

/* ------------------------------------------------------------------------ */
/* @scratch, @const, @tune, @flags                                           */

static void parse_scratch(struct pstate *st, size_t at, size_t pos)
{
    struct scratch s = {0};
    size_t n, dt, dn, open, close;
    char g[64], dtype[64];

    if (st->d->n_scratches >= BW_MAX_SCRATCH) {
        err(st, at, "more than %d @scratch buffers (BW_MAX_SCRATCH)", BW_MAX_SCRATCH);
        st->limit = true;
        return;
    }
    pos = skip_blanks(st, pos);
    n = word_len(st, pos);
    if (!check_name(st, pos, n, "@scratch buffer name"))
        return;
    s.name = copy(st, pos, n);
    if (!s.name)
        return;
    s.line = st->lineno;
    s.column = (int)pos + 1;
    if (!check_unique(st, pos, s.name))
        goto free_name;
    dt = skip_blanks(st, pos + n);
    if (dt == pos + n && dt < st->len) {
        err(st, dt, "expected a blank after the scratch name, got %s", got(st, dt, g, sizeof(g)));
        goto free_name;
    }
    if (word_len(st, dt) == 0) {
        err(st, dt, "expected a type after the scratch name (%s), got %s", type_list,
            got(st, dt, g, sizeof(g)));
        goto free_name;
    }
    dn = parse_scratch_type(st, dt, dtype, sizeof(dtype), &s.dtype);
    if (s.dtype == DTYPE_INVALID)
        goto free_name;
    open = skip_blanks(st, dn);
    if (open >= st->len || st->line[open] != '[') {
        err(st, open, "expected '[' after the dtype (e.g. %s[cdiv(n, 256)]), got %s", dtype,
            got(st, open, g, sizeof(g)));
        goto free_name;
    }
    for (close = open + 1; close < st->len && st->line[close] != ']'; close++)
        ;
    if (close >= st->len) {
        err(st, st->len, "expected ']' to close %s[", dtype);
        goto free_name;
    }
    s.count = sub_expr(st, open + 1, close, "the @scratch element count", ']');
    if (!s.count)
        goto free_name;
    expect_eol(st, close + 1, "@scratch NAME DTYPE[count]");
    if (st->line_failed)
        goto free_count;
    st->d->scratches[st->d->n_scratches++] = s;
    return;

free_count:
    expr_free(s.count);
free_name:
    free(s.name);
}

/* "NAME=" at pos for @const and @tune: checks the name and returns a *new*
 * copy of it with *after at the first non-blank after '=', or NULL. */
static char *parse_assign_name(struct pstate *st, size_t pos, const char *what, const char *example,
                               size_t *after)
{
    size_t n, eq;
    char role[96], g[64];
    char *name;

    snprintf(role, sizeof(role), "%s name", what);
    pos = skip_blanks(st, pos);
    n = word_len(st, pos);
    if (!check_name(st, pos, n, role))
        return NULL;
    eq = skip_blanks(st, pos + n);
    if (eq >= st->len || st->line[eq] != '=') {
        err(st, eq, "expected '=' after the %s name (e.g. %s), got %s", what, example,
            got(st, eq, g, sizeof(g)));
        return NULL;
    }
    name = copy(st, pos, n);
    if (!name)
        return NULL;
    if (!check_macro_name(st, pos, name, role) || !check_unique(st, pos, name)) {
        free(name);
        return NULL;
    }
    *after = skip_blanks(st, eq + 1);
    return name;
}

static void parse_const(struct pstate *st, size_t at, size_t pos)
{
    struct constant c = {0};
    size_t val, n;

    if (st->d->n_consts >= BW_MAX_CONSTS) {
        err(st, at, "more than %d @const names (BW_MAX_CONSTS)", BW_MAX_CONSTS);
        st->limit = true;
        return;
    }
    c.name = parse_assign_name(st, pos, "@const", "@const BLOCK=256", &val);
    if (!c.name)
        return;
    c.line = st->lineno;
    n = token_len(st, val);
    if (!parse_int_token(st, val, n, "the @const value", &c.value)) {
        free(c.name);
        return;
    }
    expect_eol(st, val + n, "@const NAME=INT");
    if (st->line_failed) {
        free(c.name);
        return;
    }
    st->d->consts[st->d->n_consts++] = c;
}

static void parse_tune(struct pstate *st, size_t at, size_t pos)
{
    struct tune_param t = {0};
    size_t commas[BW_MAX_TUNE_VALUES], n_commas, open, close, start, i, j, combos = 1;
    char what[96];

    if (st->d->n_tunes >= BW_MAX_TUNE_PARAMS) {
        err(st, at, "more than %d @tune names (BW_MAX_TUNE_PARAMS)", BW_MAX_TUNE_PARAMS);
        st->limit = true;
        return;
    }
    t.name = parse_assign_name(st, pos, "@tune", "@tune BLOCK=(128, 256)", &open);
    if (!t.name)
        return;
    t.line = st->lineno;
    if (open >= st->len || st->line[open] != '(') {
        char g[64];
        err(st, open, "expected '(' after @tune %s= (e.g. @tune %s=(128, 256)), got %s", t.name,
            t.name, got(st, open, g, sizeof(g)));
        goto free_name;
    }
    close = match_paren(st, open, commas, BW_MAX_TUNE_VALUES, &n_commas);
    if (close >= st->len) {
        err(st, st->len, "expected ')' to close @tune %s=( at column %zu, got the end of the line",
            t.name, open + 1);
        goto free_name;
    }
    if (n_commas >= BW_MAX_TUNE_VALUES) {
        err(st, commas[BW_MAX_TUNE_VALUES - 1],
            "more than %d values for @tune %s (BW_MAX_TUNE_VALUES)", BW_MAX_TUNE_VALUES, t.name);
        st->limit = true;
        goto free_name;
    }
    t.values = calloc(n_commas + 1, sizeof(*t.values));
    if (!t.values) {
        st->nomem = true;
        goto free_name;
    }
    snprintf(what, sizeof(what), "a @tune %s value", t.name);
    start = open + 1;
    for (i = 0; i <= n_commas; i++) {
        size_t end = i < n_commas ? commas[i] : close, a = skip_blanks(st, start), b = end;
        while (b > a && is_blank(st->line[b - 1]))
            b--;
        if (a >= b) {
            err(st, a, "expected an integer before '%c' in @tune %s=(...)",
                i < n_commas ? ',' : ')', t.name);
        } else if (parse_int_token(st, a, b - a, what, &t.values[t.n_values])) {
            for (j = 0; j < t.n_values && t.values[j] != t.values[t.n_values]; j++)
                ;
            if (j < t.n_values)
                err(st, a, "value %lld repeats in @tune %s", (long long)t.values[j], t.name);
            else
                t.n_values++;
        }
        start = end + 1;
    }
    expect_eol(st, close + 1, "@tune NAME=(...)");
    if (st->line_failed)
        goto free_values;
    for (i = 0; i < st->d->n_tunes; i++)
        combos *= st->d->tunes[i].n_values;
    if (combos * t.n_values > BW_MAX_TUNE_CONFIGS) {
        err(st, at,
            "@tune makes %zu combinations, more than %d (BW_MAX_TUNE_CONFIGS): every "
            "combination is compiled and timed",
            combos * t.n_values, BW_MAX_TUNE_CONFIGS);
        st->limit = true;
        goto free_values;
    }
    st->d->tunes[st->d->n_tunes++] = t;
    return;

free_values:
    free(t.values);
free_name:
    free(t.name);
}

static void parse_flags(struct pstate *st, size_t at, size_t pos)
{
    size_t n, count = 0;
    char q[200];

    for (;;) {
        pos = skip_blanks(st, pos);
        if (pos >= st->len)
            break;
        n = token_len(st, pos);
        count++;
        quote(st, pos, n, q, sizeof(q));
        if (n > 64 || strlen(q) != n || !directive_flag_allowed(q)) {
            err(st, pos, "option '%s' is not allowed in @flags%s (allowed: %s)", q, flag_hint(q),
                flag_list);
        } else if (st->d->n_flags >= BW_MAX_FLAGS) {
            err(st, pos, "more than %d @flags options (BW_MAX_FLAGS)", BW_MAX_FLAGS);
            st->limit = true;
        } else {
            char *f = copy(st, pos, n);
            if (!f)
                return;
            st->d->flags[st->d->n_flags++] = f;
        }
        pos += n;
    }
    if (count == 0)
        err(st, at, "@flags needs at least one option (allowed: %s)", flag_list);
}

/* ------------------------------------------------------------------------ */
/* The file                                                                  */

/*
 * Python: follows the string literals of the current line from the state the
 * line began in, leaving the state it ends in. A '#' outside a string ends
 * the line (a comment); '\'' or '"' opens a string, tripled or not; a
 * backslash escapes the next byte inside a string (also in a raw string, where
 * it keeps a quote from closing it); a one-quoted string ends at its quote or
 * at the line's end, unless a backslash continues it. Issue 28: a "# @launch"
 * line inside a docstring was read as a directive.
 */
static void python_strings(struct pstate *st)
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

/* Parses one line; does nothing if it is not a directive. */
static void parse_line(struct pstate *st)
{
    size_t pos = skip_blanks(st, 0), at, n;
    char q[200];

    if (st->lang == LANG_TRITON) {
        if (pos >= st->len || st->line[pos] != '#')
            return;
        at = skip_blanks(st, pos + 1);
    } else {
        if (pos + 1 >= st->len || st->line[pos] != '/' || st->line[pos + 1] != '/')
            return;
        at = skip_blanks(st, pos + 2);
    }
    if (at >= st->len || st->line[at] != '@')
        return;
    if (st->len > BW_MAX_DIRECTIVE_LINE) {
        err(st, BW_MAX_DIRECTIVE_LINE,
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
        err(st, at + 1, "expected a directive name after '@' (%s)", directive_list);
        return;
    }
    pos = at + 1 + n;
    if (pos < st->len && !is_blank(st->line[pos])) {
        char g[64];
        err(st, pos, "unexpected %s after @%s (expected a blank)", got(st, pos, g, sizeof(g)),
            quote(st, at + 1, n, q, sizeof(q)));
        return;
    }
#define IS(word) (n == sizeof(word) - 1 && memcmp(st->line + at + 1, word, n) == 0)
    if (IS("launch"))
        parse_launch(st, at, pos);
    else if (IS("scratch"))
        parse_scratch(st, at, pos);
    else if (IS("const"))
        parse_const(st, at, pos);
    else if (IS("tune"))
        parse_tune(st, at, pos);
    else if (IS("flags") && st->lang == LANG_TRITON)
        err(st, at,
            "@flags is for CUDA (NVRTC options); a Triton kernel's options are num_warps=, "
            "num_stages= and maxnreg= on its @launch");
    else if (IS("flags"))
        parse_flags(st, at, pos);
    else if (IS("rows") && st->lang == LANG_TRITON)
        err(st, at, "@rows is for a problem's reference.cu (CUDA), not a Triton kernel");
    else if (IS("rows"))
        parse_rows(st, at, pos);
    else
        err(st, at, "unknown directive '@%s' (expected %s)", quote(st, at + 1, n, q, sizeof(q)),
            directive_list);
#undef IS
}

void directives_release(struct directives *d)
{
    size_t i;

    rows_release(d->rows);
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
    struct pstate st = {.lang = lang};
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
            err_file(&st, "source has more than %d lines (BW_MAX_SOURCE_LINES)",
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
    if (!st.saw_launch && !st.nomem && !st.limit && lang == LANG_TRITON)
        err_file(&st, "no @launch directive: the judge has nothing to run (add e.g. # @launch "
                      "my_kernel grid=(cdiv(n, BLOCK)) args=(x, out, n, BLOCK=BLOCK))");
    else if (!st.saw_launch && !st.nomem && !st.limit)
        err_file(&st, "no @launch directive: the judge has nothing to run (add e.g. // @launch "
                      "my_kernel grid=(cdiv(n, 256)) block=(256) args=(x, out, n))");
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

/* ------------------------------------------------------------------------ */
/* @tune combinations                                                        */

size_t directives_tune_count(const struct directives *d)
{
    size_t i, n = 1;

    for (i = 0; i < d->n_tunes; i++)
        n *= d->tunes[i].n_values;
    return n;
}

void directives_tune_combo(const struct directives *d, size_t index, int64_t *values)
{
    size_t i;

    for (i = d->n_tunes; i-- > 0;) {
        values[i] = d->tunes[i].values[index % d->tunes[i].n_values];
        index /= d->tunes[i].n_values;
    }
}
