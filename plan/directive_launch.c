/*
 * directive_launch.c - the @launch and @rows directives (directive_parser.h).
 *
 *   CUDA     @launch KERNEL grid=(...) block=(...) [smem=e] args=(...)
 *   Triton   @launch KERNEL grid=(...) [num_warps=e] [num_stages=e] [maxnreg=e] args=(...)
 *   CUDA     @rows KERNEL rows=(R) block=(...) [smem=e]     (a problem's reference.cu)
 *
 * The kernel name comes first, then keys in any order, each at most once.
 * An error in one key's value skips to the next key when the value's end can
 * still be found, so one line can report several broken keys.
 */
#include "directive_parser.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/limits.h"
#include "common/banned.h"

/* ---- @launch ------------------------------------------------------------------- */

void launch_release(struct launch *l)
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
static size_t value_end(const struct dparse *st, size_t pos, bool *open_left)
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
static void err_unclosed(struct dparse *st, size_t open, const char *what)
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
                char w[48];
                dparse_err(st, pos, "expected ')' to close %s at %s before %s=", what,
                           dparse_where(st, open, w, sizeof(w)), keys[k]);
                return;
            }
    }
    char w[48];
    dparse_err(st, st->len, "expected ')' to close %s at %s, got the end of the line", what,
               dparse_where(st, open, w, sizeof(w)));
}

/* After an error in a key's value: the position past it. */
static size_t skip_value(const struct dparse *st, size_t pos)
{
    return value_end(st, pos, NULL);
}

/* grid=( or block=( with `open` at the '('; fills dims[]. Returns the
 * position after the value, or st->len when the line cannot be read on. */
static size_t parse_dims(struct dparse *st, size_t open, const char *key, struct expr **dims)
{
    size_t commas[3], n_commas, close, start, i;
    char what[32];

    snprintf(what, sizeof(what), "%s=(...)", key);
    if (open >= st->len || st->line[open] != '(') {
        char g[64];
        dparse_err(st, open,
                   "expected '(' after %s= (e.g. %s=(cdiv(n, 256)) or %s=(16, 16)), got %s", key,
                   key, key, dparse_got(st, open, g, sizeof(g)));
        return skip_value(st, open);
    }
    close = dparse_match_paren(st, open, commas, 3, &n_commas);
    if (close >= st->len) {
        char opened[32];

        snprintf(opened, sizeof(opened), "%s=(", key);
        err_unclosed(st, open, opened);
        return st->len;
    }
    if (n_commas > 2) {
        dparse_err(st, commas[2], "%s=(...) has more than 3 dimensions (x, y, z)", key);
        return close + 1;
    }
    start = open + 1;
    for (i = 0; i <= n_commas; i++) {
        size_t end = i < n_commas ? commas[i] : close;
        dims[i] = dparse_expr(st, start, end, what, i < n_commas ? ',' : ')');
        start = end + 1;
    }
    return close + 1;
}

/* True if line[pos, pos+n) is [+-]?[0-9]+. */
static bool is_int_literal(const struct dparse *st, size_t pos, size_t n)
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
static bool parse_arg(struct dparse *st, size_t a, size_t b, char before, struct launch_arg *arg)
{
    size_t first = skip_blanks(st, a), n;

    while (b > first && is_blank(st->line[b - 1]))
        b--;
    if (first >= b) {
        dparse_err(st, first, "expected an argument before '%c' in args=(...)", before);
        return false;
    }
    n = b - first;
    arg->line = dparse_line_at(st, first);
    arg->column = dparse_column_at(st, first);
    /* NAME=value: a keyword argument (Triton's tl.constexpr parameters) */
    {
        size_t w = word_len(st, first), eq = skip_blanks(st, first + w);
        if (w > 0 && eq < b && st->line[eq] == '=' && (eq + 1 >= b || st->line[eq + 1] != '=')) {
            char q[200];
            if (st->lang != LANG_TRITON) {
                dparse_err(
                    st, first,
                    "keyword argument '%s=' in a CUDA @launch: arguments are positional (keywords "
                    "NAME=value are for a Triton kernel's tl.constexpr parameters)",
                    dparse_quote(st, first, w, q, sizeof(q)));
                return false;
            }
            if (!dparse_check_name(st, first, w, "constexpr parameter name"))
                return false;
            arg->keyword = dparse_copy(st, first, w);
            if (!arg->keyword)
                return false;
            arg->keyword_column = dparse_column_at(st, first);
            first = skip_blanks(st, eq + 1);
            if (first >= b) {
                dparse_err(st, first, "expected a value after '%s=' in args=(...)", arg->keyword);
                return false;
            }
            n = b - first;
            arg->line = dparse_line_at(st, first);
            arg->column = dparse_column_at(st, first);
        }
    }
    if (word_len(st, first) == n && !(st->line[first] >= '0' && st->line[first] <= '9')) {
        if (!dparse_check_name(st, first, n, "argument name"))
            return false;
        arg->kind = LAUNCH_ARG_NAME;
        arg->name = dparse_copy(st, first, n);
        return arg->name != NULL;
    }
    if (is_int_literal(st, first, n)) {
        arg->kind = LAUNCH_ARG_INTEGER;
        return dparse_int_token(st, first, n, "the argument", &arg->value);
    }
    arg->kind = LAUNCH_ARG_EXPR;
    arg->expr = dparse_expr(st, first, b, "an argument in args=(...)", before);
    return arg->expr != NULL;
}

/* args=( with `open` at the '('. Returns the position after the value. */
static size_t parse_args(struct dparse *st, size_t open, struct launch *l)
{
    size_t commas[BW_MAX_LAUNCH_ARGS], n_commas, close, start, i;

    if (open >= st->len || st->line[open] != '(') {
        char g[64];
        dparse_err(st, open, "expected '(' after args= (e.g. args=(x, y, out, n)), got %s",
                   dparse_got(st, open, g, sizeof(g)));
        return skip_value(st, open);
    }
    close = dparse_match_paren(st, open, commas, BW_MAX_LAUNCH_ARGS, &n_commas);
    if (close >= st->len) {
        err_unclosed(st, open, "args=(");
        return st->len;
    }
    if (n_commas >= BW_MAX_LAUNCH_ARGS) {
        dparse_err(st, commas[BW_MAX_LAUNCH_ARGS - 1],
                   "more than %d arguments (BW_MAX_LAUNCH_ARGS)", BW_MAX_LAUNCH_ARGS);
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
                dparse_err(
                    st, (size_t)arg->column - 1,
                    "positional argument after the keyword argument '%s=' (the kernel's "
                    "parameters come first, in order, then NAME=value for its tl.constexpr ones)",
                    l->args[l->n_args - 1].keyword);
                bad = true;
            }
            for (size_t k = 0; arg->keyword && k < l->n_args && !bad; k++)
                if (l->args[k].keyword && strcmp(l->args[k].keyword, arg->keyword) == 0) {
                    dparse_err(st, (size_t)arg->keyword_column - 1,
                               "duplicate keyword argument '%s='", arg->keyword);
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
static size_t parse_scalar_key(struct dparse *st, size_t pos, const char *key, const char *meaning,
                               struct expr **out)
{
    bool open_left;
    size_t end = value_end(st, pos, &open_left), n = word_len(st, pos);
    char q[200], what[32];

    snprintf(what, sizeof(what), "%s=", key);
    if (open_left) {
        dparse_err(st, st->len, "expected ')' to close the '(' of %s=", key);
        return st->len;
    }
    if (end == pos) {
        dparse_err(st, pos, "expected an expression after %s= (%s)", key, meaning);
        return pos;
    }
    if (n > 0 && pos + n < st->len && st->line[pos + n] == '=') {
        dparse_err(st, pos, "expected an expression after %s=, got the key '%s='", key,
                   dparse_quote(st, pos, n, q, sizeof(q)));
        return skip_value(st, pos);
    }
    *out = dparse_expr(st, pos, end, what, ' ');
    return end;
}

static const char *const launch_keys = "grid=, block=, smem=, args=";
static const char *const triton_launch_keys = "grid=, num_warps=, num_stages=, maxnreg=, args=";

/* The kernel name of a @launch or @rows at *pos (blanks skipped), copied into
 * *name, with *pos moved past it; false, with the error reported, when it is
 * not a name followed by a blank or the line's end (`keys`: what may follow). */
static bool parse_kernel_name(struct dparse *st, size_t *pos, const char *keys, char **name)
{
    size_t at = skip_blanks(st, *pos), n = word_len(st, at);
    char g[64];

    if (!dparse_check_name(st, at, n, "kernel name"))
        return false;
    if (at + n < st->len && !is_blank(st->line[at + n])) {
        dparse_err(st, at + n, "unexpected %s after the kernel name (expected a blank, then %s)",
                   dparse_got(st, at + n, g, sizeof(g)), keys);
        return false;
    }
    *name = dparse_copy(st, at, n);
    *pos = at + n;
    return *name != NULL;
}

/* For the key of n characters at `key` of directive `what` ("@launch"): true
 * the first time (*seen records its column), false with the error reported
 * when the key came before. */
static bool key_first_time(struct dparse *st, size_t key, size_t n, int *seen, const char *what)
{
    char q[200];

    if (*seen) {
        char w[48];
        dparse_err(st, key, "duplicate %s= in %s (first at %s)",
                   dparse_quote(st, key, n, q, sizeof(q)), what,
                   dparse_where(st, (size_t)*seen - 1, w, sizeof(w)));
        return false;
    }
    *seen = (int)key + 1; /* the key's byte + 1: 0 is "not seen" */
    return true;
}

/* True when a key's value, read up to pos, ends there: at a blank or the
 * line's end; else false with the error reported. */
static bool value_ends(struct dparse *st, size_t pos, size_t key, size_t n)
{
    char q[200], g[64];

    if (pos < st->len && !is_blank(st->line[pos])) {
        dparse_err(st, pos, "unexpected %s after %s=(...) (expected a blank, then the next key)",
                   dparse_got(st, pos, g, sizeof(g)), dparse_quote(st, key, n, q, sizeof(q)));
        return false;
    }
    return true;
}

void dparse_launch(struct dparse *st, size_t at, size_t pos)
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
        dparse_err(st, at, "more than %d @launch directives (BW_MAX_LAUNCHES)", BW_MAX_LAUNCHES);
        st->limit = true;
        return;
    }
    pos = skip_blanks(st, pos);
    n = word_len(st, pos);
    if (n > 0 && skip_blanks(st, pos + n) < st->len && st->line[skip_blanks(st, pos + n)] == '=') {
        dparse_err(st, pos,
                   "expected a kernel name after @launch, got the key '%s=' (write @launch KERNEL "
                   "grid=(...) %sargs=(...))",
                   dparse_quote(st, pos, n, q, sizeof(q)), triton ? "" : "block=(...) ");
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
            dparse_err(st, pos, "expected a key (%s), got %s", keys,
                       dparse_got(st, pos, g, sizeof(g)));
            break;
        }
        val = skip_blanks(st, pos + n);
        if (val >= st->len || st->line[val] != '=') {
            dparse_err(st, val, "expected '=' after '%s' (keys are %s)",
                       dparse_quote(st, key, n, q, sizeof(q)), keys);
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
            dparse_err(
                st, key,
                "%s= in a Triton @launch: Triton decides the block (32 x num_warps threads) and "
                "the shared memory; set num_warps= instead (keys are %s)",
                dparse_quote(st, key, n, q, sizeof(q)), keys);
            pos = skip_value(st, val);
            continue;
        }
        if (seen && !triton &&
            (seen == &seen_warps || seen == &seen_stages || seen == &seen_maxnreg)) {
            dparse_err(
                st, key,
                "%s= is a Triton launch option; a CUDA @launch says block=(threads) (keys are %s)",
                dparse_quote(st, key, n, q, sizeof(q)), keys);
            pos = skip_value(st, val);
            continue;
        }
        if (!seen) {
            dparse_err(st, key, "unknown key '%s' in @launch (expected %s)",
                       dparse_quote(st, key, n, q, sizeof(q)), keys);
            pos = skip_value(st, val);
            continue;
        }
        if (!key_first_time(st, key, n, seen, "@launch")) {
            pos = skip_value(st, val);
            continue;
        }
        if (seen == &seen_grid) {
            l.grid_line = dparse_line_at(st, key);
            l.grid_column = dparse_column_at(st, key);
            pos = parse_dims(st, val, "grid", l.grid);
        } else if (seen == &seen_block) {
            l.block_line = dparse_line_at(st, key);
            l.block_column = dparse_column_at(st, key);
            pos = parse_dims(st, val, "block", l.block);
        } else if (seen == &seen_smem) {
            l.smem_line = dparse_line_at(st, key);
            l.smem_column = dparse_column_at(st, key);
            pos = parse_scalar_key(st, val, "smem", "bytes of dynamic shared memory", &l.smem);
        } else if (seen == &seen_warps) {
            l.num_warps_line = dparse_line_at(st, key);
            l.num_warps_column = dparse_column_at(st, key);
            pos = parse_scalar_key(st, val, "num_warps", "warps per program: 1, 2, 4, 8, 16 or 32",
                                   &l.num_warps);
        } else if (seen == &seen_stages) {
            l.num_stages_line = dparse_line_at(st, key);
            l.num_stages_column = dparse_column_at(st, key);
            pos = parse_scalar_key(st, val, "num_stages", "the software pipelining depth",
                                   &l.num_stages);
        } else if (seen == &seen_maxnreg) {
            l.maxnreg_line = dparse_line_at(st, key);
            l.maxnreg_column = dparse_column_at(st, key);
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
            dparse_err(st, at,
                       "@launch needs grid=(...) (the number of blocks, e.g. grid=(cdiv(n, 256)))");
        if (!seen_block && !triton)
            dparse_err(st, at, "@launch needs block=(...) (threads per block, e.g. block=(256))");
        if (!seen_args)
            dparse_err(st, at,
                       "@launch needs args=(...) (the kernel's arguments, e.g. args=(x, out, n))");
    }
    if (st->line_failed || st->nomem) {
        launch_release(&l);
        return;
    }
    st->d->launches[st->d->n_launches++] = l;
}

/* ---- @rows --------------------------------------------------------------------- */

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

void rows_kernel_free(struct rows_kernel *r)
{
    if (r)
        rows_clear(r);
    free(r);
}

/* @rows KERNEL rows=(R) block=(...) [smem=...] */
void dparse_rows(struct dparse *st, size_t at, size_t pos)
{
    struct rows_kernel r = {0};
    size_t n, key, val;
    int seen_rows = 0, seen_block = 0, seen_smem = 0, *seen;
    char q[200], g[64];

    r.line = st->lineno;
    if (st->d->rows) {
        dparse_err(st, at, "a second @rows (a reference has one rows kernel, first at line %d)",
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
            dparse_err(st, pos, "expected a key (%s), got %s", rows_keys,
                       dparse_got(st, pos, g, sizeof(g)));
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
                dparse_err(st, key,
                           "%s= in @rows: the judge launches one block per row (grid=(n_rows)) and "
                           "passes the @launch's arguments, then rows and n_rows (keys are %s)",
                           dparse_quote(st, key, n, q, sizeof(q)), rows_keys);
            else
                dparse_err(st, key, "unknown key '%s' in @rows (expected %s)",
                           dparse_quote(st, key, n, q, sizeof(q)), rows_keys);
            pos = skip_value(st, val);
            continue;
        }
        if (!key_first_time(st, key, n, seen, "@rows")) {
            pos = skip_value(st, val);
            continue;
        }
        if (seen == &seen_rows) {
            r.rows_line = dparse_line_at(st, key);
            r.rows_column = dparse_column_at(st, key);
            pos = parse_scalar_key(st, val, "rows", "the number of rows of a case", &r.rows);
        } else if (seen == &seen_block) {
            r.block_line = dparse_line_at(st, key);
            r.block_column = dparse_column_at(st, key);
            pos = parse_dims(st, val, "block", r.block);
        } else {
            r.smem_line = dparse_line_at(st, key);
            r.smem_column = dparse_column_at(st, key);
            pos = parse_scalar_key(st, val, "smem", "bytes of dynamic shared memory", &r.smem);
        }
        if (!value_ends(st, pos, key, n))
            break;
    }
    if (!st->line_failed) {
        if (!seen_rows)
            dparse_err(st, at,
                       "@rows needs rows=(...) (the number of rows of a case, e.g. rows=(B*H*Sq))");
        if (!seen_block)
            dparse_err(st, at, "@rows needs block=(...) (threads per block, e.g. block=(128))");
    }
    if (!st->line_failed && !st->nomem && !(st->d->rows = malloc(sizeof(r))))
        st->nomem = true;
    if (st->line_failed || st->nomem) {
        rows_clear(&r);
        return;
    }
    *st->d->rows = r;
}
