/*
 * launcher_form.c - a Triton source's form, from its text (launcher_form.h).
 */
#include "launcher_form.h"

#include <stdbool.h>
#include <string.h>

#include "common/banned.h"

static bool starts(const char *s, size_t n, const char *word)
{
    size_t w = strlen(word);
    return n >= w && memcmp(s, word, w) == 0;
}

/* A `# @word` line: the directive rule of plan/directive.c for a .py file, where the word
 * is followed by a blank or the end of the line. A comment about a decorator (`# @triton.jit`,
 * `# @triton.autotune(...)`) is not one here: a launcher's comments may name them. */
static bool is_directive(const char *s, size_t n)
{
    size_t i = 0, w;

    while (i < n && (s[i] == ' ' || s[i] == '\t'))
        i++;
    if (i == n || s[i] != '#')
        return false;
    for (i++; i < n && (s[i] == ' ' || s[i] == '\t'); i++)
        ;
    if (i == n || s[i] != '@')
        return false;
    for (w = ++i; i < n && ((s[i] >= 'a' && s[i] <= 'z') || (s[i] >= 'A' && s[i] <= 'Z') ||
                            (s[i] >= '0' && s[i] <= '9') || s[i] == '_');
         i++)
        ;
    return i > w && (i == n || s[i] == ' ' || s[i] == '\t' || s[i] == '\r');
}

/* A decorator that makes a kernel: @triton.jit, @gluon.jit, @jit, with or without arguments. */
static bool is_jit_decorator(const char *s, size_t n)
{
    static const char *const words[] = {"@triton.jit", "@gluon.jit", "@jit"};

    for (size_t k = 0; k < sizeof(words) / sizeof(words[0]); k++) {
        size_t w = strlen(words[k]);
        if (starts(s, n, words[k]) &&
            (n == w || s[w] == '(' || s[w] == ' ' || s[w] == '\r' || s[w] == '\t' || s[w] == '#'))
            return true;
    }
    return false;
}

void launcher_form_scan(const char *source, size_t len, struct launcher_form *out)
{
    bool pending_jit = false;
    int line = 1;

    memset(out, 0, sizeof(*out));
    for (size_t at = 0; at < len; line++) {
        const char *s = source + at, *nl = memchr(s, '\n', len - at);
        size_t n = nl ? (size_t)(nl - s) : len - at;

        if (!out->directive_line && is_directive(s, n))
            out->directive_line = line;
        if (!out->solve_line && (starts(s, n, "def solve(") || starts(s, n, "def solve (")))
            out->solve_line = line;
        if (is_jit_decorator(s, n)) {
            pending_jit = true;
        } else if (pending_jit && starts(s, n, "def ")) {
            size_t i = 4, k = 0;
            pending_jit = false;
            if (!out->kernel_line) {
                while (i < n && s[i] == ' ')
                    i++;
                while (i < n && k < BW_MAX_NAME &&
                       ((s[i] >= 'a' && s[i] <= 'z') || (s[i] >= 'A' && s[i] <= 'Z') ||
                        (s[i] >= '0' && s[i] <= '9') || s[i] == '_'))
                    out->kernel[k++] = s[i++];
                out->kernel[k] = '\0';
                out->kernel_line = k ? line : 0;
            }
        } else if (pending_jit && n > 0 && s[0] != '@' && s[0] != ' ' && s[0] != '\t' &&
                   s[0] != '#' && s[0] != '\r' && s[0] != ')') {
            pending_jit = false; /* something else at the top level: not a decorated def */
        }
        at += n + (nl ? 1 : 0);
    }
}
