/*
 * flags.c - @flags and its allowlist (flags.h, directive_parser.h).
 */
#include "flags.h"

#include <stdint.h>
#include <string.h>

#include "directive_parser.h"
#include "common/limits.h"
#include "common/util.h"
#include "common/banned.h"

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

/* @flags OPTION ...: each option must be on the allowlist; several lines add up. */
void dparse_flags(struct dparse *st, size_t at, size_t pos)
{
    size_t n, count = 0;
    char q[200];

    for (;;) {
        pos = skip_blanks(st, pos);
        if (pos >= st->len)
            break;
        n = token_len(st, pos);
        count++;
        dparse_quote(st, pos, n, q, sizeof(q));
        if (n > 64 || strlen(q) != n || !directive_flag_allowed(q)) {
            dparse_err(st, pos, "option '%s' is not allowed in @flags%s (allowed: %s)", q,
                       flag_hint(q), flag_list);
        } else if (st->d->n_flags >= BW_MAX_FLAGS) {
            dparse_err(st, pos, "more than %d @flags options (BW_MAX_FLAGS)", BW_MAX_FLAGS);
            st->limit = true;
        } else {
            char *f = dparse_copy(st, pos, n);
            if (!f)
                return;
            st->d->flags[st->d->n_flags++] = f;
        }
        pos += n;
    }
    if (count == 0)
        dparse_err(st, at, "@flags needs at least one option (allowed: %s)", flag_list);
}
