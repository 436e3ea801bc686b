/*
 * directive_names.c - what a name in a directive may be (directive_parser.h):
 * an identifier of at most BW_MAX_NAME bytes; for @const and @tune, not a
 * word its macro (-DNAME=VALUE) would replace in the learner's CUDA, nor in
 * Triton a function of the expression language; for @let (never a macro),
 * not a function; and one name per @const, @tune, @scratch or @let.
 */
#include "directive_parser.h"

#include <string.h>

#include "common/limits.h"
#include "common/banned.h"

/* Checks that line[pos, pos+n) is a usable name; reports and returns false
 * if not. `what` names the role ("kernel name", "@const name"). */
bool dparse_check_name(struct dparse *st, size_t pos, size_t n, const char *what)
{
    char q[200];

    if (n == 0) {
        char g[64];
        dparse_err(st, pos, "expected a %s, got %s", what, dparse_got(st, pos, g, sizeof(g)));
        return false;
    }
    if (st->line[pos] >= '0' && st->line[pos] <= '9') {
        dparse_err(st, pos, "%s '%s' must start with a letter or '_'", what,
                   dparse_quote(st, pos, n, q, sizeof(q)));
        return false;
    }
    if (n > BW_MAX_NAME) {
        dparse_err(st, pos, "%s '%s' is longer than %d bytes (BW_MAX_NAME)", what,
                   dparse_quote(st, pos, n, q, sizeof(q)), BW_MAX_NAME);
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

bool dparse_check_not_function(struct dparse *st, size_t pos, const char *name, const char *what)
{
    for (size_t i = 0; i < sizeof(function_names) / sizeof(function_names[0]); i++)
        if (strcmp(name, function_names[i]) == 0) {
            dparse_err(st, pos,
                       "%s '%s' cannot be used: it is a function of the expression language", what,
                       name);
            return false;
        }
    return true;
}

/* Checks a @const or @tune name beyond dparse_check_name. */
bool dparse_check_macro_name(struct dparse *st, size_t pos, const char *name, const char *what)
{
    size_t i;

    if (st->lang == LANG_TRITON) /* not a macro in Python: only expressions see it */
        return dparse_check_not_function(st, pos, name, what);

    if (name[0] == '_' && (name[1] == '_' || (name[1] >= 'A' && name[1] <= 'Z'))) {
        dparse_err(st, pos,
                   "%s '%s' is reserved (names starting with '__' or '_' and a capital belong to "
                   "the compiler)",
                   what, name);
        return false;
    }
    for (i = 0; i < sizeof(macro_reserved) / sizeof(macro_reserved[0]); i++) {
        if (strcmp(name, macro_reserved[i]) == 0) {
            dparse_err(st, pos,
                       "%s '%s' cannot be used: it becomes a macro and would replace the C++/CUDA "
                       "word '%s'",
                       what, name, name);
            return false;
        }
    }
    return true;
}

/* Reports a name already taken by a @const, @tune or @scratch. */
bool dparse_check_unique(struct dparse *st, size_t pos, const char *name)
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
    for (i = 0; i < d->n_lets && !kind; i++)
        if (strcmp(d->lets[i].name, name) == 0)
            kind = "@let", line = d->lets[i].line;
    if (!kind)
        return true;
    dparse_err(st, pos, "duplicate name '%s': already defined by %s on line %d", name, kind, line);
    return false;
}
