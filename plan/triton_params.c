/*
 * triton_params.c - a Triton @launch's tl.constexpr parameters passed by
 * name (directive_parser.h: dparse_constexpr_by_name).
 *
 * When a kernel's tl.constexpr parameter NAME is not given in a @launch's
 * args and a @const, @tune or @let of that name exists, the @launch passes
 * it as if NAME=NAME had been written: the plan, the builds and the
 * compiler's driver all see a keyword argument. Which parameters a kernel
 * has is read here from the file's text, lexically, as the judge reads
 * directives: the last `def KERNEL(` at the start of a line (a kernel is
 * defined at the top level), its parameter list up to the matching ')'
 * (strings, comments and brackets skipped), and each parameter whose
 * annotation says constexpr (tl.constexpr, gl.constexpr, ...: Triton's own
 * test is "constexpr" in the annotation). Nothing else of Python is read: a
 * kernel this reading does not find gets nothing by name, and the driver
 * reports a missing tl.constexpr as it always has.
 */
#include "directive_parser.h"

#include <stdlib.h>
#include <string.h>

#include "common/limits.h"
#include "common/banned.h"

/* A parameter of a kernel's signature: its name, and whether it is a constexpr. */
struct py_param {
    char name[BW_MAX_NAME + 1];
    bool constexpr_;
};

static bool is_py_name_char(char c)
{
    return is_word_char(c);
}

/* The offset of "def NAME(" 's '(' for the last top-level definition of
 * `name` in src, or `len` when there is none. */
static size_t find_def(const char *src, size_t len, const char *name)
{
    size_t n = strlen(name), found = len;

    for (size_t bol = 0; bol < len;) {
        const char *eol = memchr(src + bol, '\n', len - bol);
        size_t end = eol ? (size_t)(eol - src) : len, p = bol + 3;

        if (end - bol > 4 && memcmp(src + bol, "def", 3) == 0 && is_blank(src[p])) {
            while (p < end && is_blank(src[p]))
                p++;
            if (end - p > n && memcmp(src + p, name, n) == 0 && !is_py_name_char(src[p + n])) {
                p += n;
                while (p < end && is_blank(src[p]))
                    p++;
                if (p < end && src[p] == '(')
                    found = p;
            }
        }
        bol = end + 1;
    }
    return found;
}

/* Past a Python string literal that starts at src[p] (a quote): single or
 * triple quoted, with backslash escapes. */
static size_t skip_string(const char *src, size_t len, size_t p)
{
    char q = src[p];
    bool triple = p + 2 < len && src[p + 1] == q && src[p + 2] == q;

    p += triple ? 3 : 1;
    while (p < len) {
        if (src[p] == '\\') {
            p += 2;
            continue;
        }
        if (src[p] == q && (!triple || (p + 2 < len && src[p + 1] == q && src[p + 2] == q)))
            return p + (triple ? 3 : 1);
        if (src[p] == '\n' && !triple)
            return p;
        p++;
    }
    return len;
}

/* One parameter's text [a, b): its name and whether its annotation says
 * constexpr; false for what is no named parameter (*args, **kw, a bare * or /). */
static bool read_param(const char *src, size_t a, size_t b, struct py_param *out)
{
    size_t n = 0, p;

    while (a < b && (is_blank(src[a]) || src[a] == '\n' || src[a] == '\r'))
        a++;
    if (a >= b || src[a] == '*' || src[a] == '/')
        return false;
    while (a + n < b && is_py_name_char(src[a + n]))
        n++;
    if (n == 0 || n > BW_MAX_NAME)
        return false;
    memcpy(out->name, src + a, n);
    out->name[n] = '\0';
    out->constexpr_ = false;
    p = a + n;
    while (p < b && (is_blank(src[p]) || src[p] == '\n' || src[p] == '\r'))
        p++;
    if (p < b && src[p] == ':') {
        /* the annotation runs to a top-level '=' (a default) or the end */
        size_t end = p + 1, depth = 0;
        while (end < b && (depth > 0 || src[end] != '=')) {
            if (src[end] == '(' || src[end] == '[')
                depth++;
            else if ((src[end] == ')' || src[end] == ']') && depth > 0)
                depth--;
            end++;
        }
        out->constexpr_ = memmem(src + p, end - p, "constexpr", 9) != NULL;
    }
    return true;
}

/* The parameters of the definition whose '(' is at `open`, into params[]
 * (at most `cap`); returns how many were read. Each parameter's text is
 * gathered without its comments, cut at 512 bytes (a name and an annotation
 * come first). */
static size_t read_params(const char *src, size_t len, size_t open, struct py_param *params,
                          size_t cap)
{
    char text[512];
    size_t p = open + 1, used = 0, depth = 0, n = 0;

    while (p < len) {
        char c = src[p];
        size_t from = p;
        if (c == '#') {
            while (p < len && src[p] != '\n')
                p++;
            continue;
        }
        if (c == '\'' || c == '"') {
            p = skip_string(src, len, p);
        } else if ((c == ',' || c == ')') && depth == 0) {
            if (n < cap && read_param(text, 0, used, &params[n]))
                n++;
            if (c == ')')
                return n;
            used = 0;
            p++;
            continue;
        } else {
            if (c == '(' || c == '[' || c == '{')
                depth++;
            else if ((c == ')' || c == ']' || c == '}') && depth > 0)
                depth--;
            p++;
        }
        while (from < p && used < sizeof(text))
            text[used++] = src[from++];
    }
    return n;
}

/* Whether launch l gives keyword `name`. */
static bool given(const struct launch *l, const char *name)
{
    for (size_t a = 0; a < l->n_args; a++)
        if (l->args[a].keyword && strcmp(l->args[a].keyword, name) == 0)
            return true;
    return false;
}

/* Whether a @const, @tune or @let is named `name`. */
static bool declared(const struct directives *d, const char *name)
{
    for (size_t k = 0; k < d->n_consts; k++)
        if (strcmp(d->consts[k].name, name) == 0)
            return true;
    for (size_t k = 0; k < d->n_tunes; k++)
        if (strcmp(d->tunes[k].name, name) == 0)
            return true;
    for (size_t k = 0; k < d->n_lets; k++)
        if (strcmp(d->lets[k].name, name) == 0)
            return true;
    return false;
}

/* Adds NAME=NAME to l for each constexpr parameter the source's kernel has
 * and the @launch leaves out, when a @const, @tune or @let is so named. */
static void pass_by_name(struct dparse *st, const char *src, size_t len, struct launch *l)
{
    struct py_param params[BW_MAX_LAUNCH_ARGS + 16];
    size_t open = find_def(src, len, l->kernel), n;
    struct launch_arg *grown;

    if (open >= len)
        return;
    n = read_params(src, len, open, params, sizeof(params) / sizeof(params[0]));
    for (size_t i = 0; i < n; i++) {
        struct launch_arg *arg;

        if (!params[i].constexpr_ || given(l, params[i].name) || !declared(st->d, params[i].name))
            continue;
        if (l->n_args >= BW_MAX_LAUNCH_ARGS) {
            diag_list_addf(st->diags, l->line, 1,
                           "@launch %s: with its tl.constexpr parameters passed by name, more "
                           "than %d arguments (BW_MAX_LAUNCH_ARGS)",
                           l->kernel, BW_MAX_LAUNCH_ARGS);
            st->limit = true;
            st->n_errors++;
            return;
        }
        grown = realloc(l->args, (l->n_args + 1) * sizeof(*l->args));
        if (!grown) {
            st->nomem = true;
            return;
        }
        l->args = grown;
        arg = &l->args[l->n_args];
        memset(arg, 0, sizeof(*arg));
        arg->kind = LAUNCH_ARG_NAME;
        arg->keyword = strdup(params[i].name);
        arg->name = strdup(params[i].name);
        if (!arg->keyword || !arg->name) {
            free(arg->keyword);
            free(arg->name);
            st->nomem = true;
            return;
        }
        arg->by_name = true;
        arg->line = l->line;
        arg->column = 1;
        l->n_args++;
    }
}

void dparse_constexpr_by_name(struct dparse *st, const char *source, size_t len)
{
    for (size_t i = 0; i < st->d->n_launches && !st->nomem && !st->limit; i++)
        pass_by_name(st, source, len, &st->d->launches[i]);
}
