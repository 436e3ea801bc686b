/*
 * directive_decl.c - the declarations of a source: @scratch (a buffer: its
 * name, its dtype or the C type a kernel declares for it, its element count),
 * @const (a named integer), @tune (a named list of integers, or a tuple of
 * names with one tuple of integers per configuration: one build per
 * combination, tune.h) and @let (a named expression evaluated per case). See
 * directive_parser.h.
 */
#include "directive_parser.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tune.h"
#include "common/limits.h"
#include "common/banned.h"

/* ---- @scratch and its types ----------------------------------------------------- */

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
static size_t parse_scratch_type(struct dparse *st, size_t pos, char *text, size_t size,
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
        dparse_err(st, pos, "unknown dtype '%s' (expected %s)",
                   dparse_quote(st, pos, end - pos, q, sizeof(q)), type_list);
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
        dparse_err(st, pos, "%s", refusal);
    else
        dparse_err(st, pos, "unknown dtype '%s' (expected %s)",
                   dparse_quote(st, pos, end - pos, q, sizeof(q)), type_list);
    return end;
}

void dparse_scratch(struct dparse *st, size_t at, size_t pos)
{
    struct scratch s = {0};
    size_t n, dt, dn, open, close;
    char g[64], dtype[64];

    if (st->d->n_scratches >= BW_MAX_SCRATCH) {
        dparse_err(st, at, "more than %d @scratch buffers (BW_MAX_SCRATCH)", BW_MAX_SCRATCH);
        st->limit = true;
        return;
    }
    pos = skip_blanks(st, pos);
    n = word_len(st, pos);
    if (!dparse_check_name(st, pos, n, "@scratch buffer name"))
        return;
    s.name = dparse_copy(st, pos, n);
    if (!s.name)
        return;
    s.line = dparse_line_at(st, pos);
    s.column = dparse_column_at(st, pos);
    if (!dparse_check_unique(st, pos, s.name))
        goto free_name;
    dt = skip_blanks(st, pos + n);
    if (dt == pos + n && dt < st->len) {
        dparse_err(st, dt, "expected a blank after the scratch name, got %s",
                   dparse_got(st, dt, g, sizeof(g)));
        goto free_name;
    }
    if (word_len(st, dt) == 0) {
        dparse_err(st, dt, "expected a type after the scratch name (%s), got %s", type_list,
                   dparse_got(st, dt, g, sizeof(g)));
        goto free_name;
    }
    dn = parse_scratch_type(st, dt, dtype, sizeof(dtype), &s.dtype);
    if (s.dtype == DTYPE_INVALID)
        goto free_name;
    open = skip_blanks(st, dn);
    if (open >= st->len || st->line[open] != '[') {
        dparse_err(st, open, "expected '[' after the dtype (e.g. %s[cdiv(n, 256)]), got %s", dtype,
                   dparse_got(st, open, g, sizeof(g)));
        goto free_name;
    }
    for (close = open + 1; close < st->len && st->line[close] != ']'; close++)
        ;
    if (close >= st->len) {
        dparse_err(st, st->len, "expected ']' to close %s[", dtype);
        goto free_name;
    }
    s.count = dparse_expr(st, open + 1, close, "the @scratch element count", ']');
    if (!s.count)
        goto free_name;
    dparse_expect_eol(st, close + 1, "@scratch NAME DTYPE[count]");
    if (st->line_failed)
        goto free_count;
    st->d->scratches[st->d->n_scratches++] = s;
    return;

free_count:
    expr_free(s.count);
free_name:
    free(s.name);
}

/* ---- @const and @tune ------------------------------------------------------------ */

/* "NAME=" at pos for @const, @tune and @let: checks the name (a macro's
 * unless `what` is "@let") and returns a *new* copy of it with *after at the
 * first non-blank after '=', or NULL. */
static char *parse_assign_name(struct dparse *st, size_t pos, const char *what, const char *example,
                               size_t *after)
{
    bool macro = strcmp(what, "@let") != 0;
    size_t n, eq;
    char role[96], g[64];
    char *name;

    snprintf(role, sizeof(role), "%s name", what);
    pos = skip_blanks(st, pos);
    n = word_len(st, pos);
    if (!dparse_check_name(st, pos, n, role))
        return NULL;
    eq = skip_blanks(st, pos + n);
    if (eq >= st->len || st->line[eq] != '=') {
        dparse_err(st, eq, "expected '=' after the %s name (e.g. %s), got %s", what, example,
                   dparse_got(st, eq, g, sizeof(g)));
        return NULL;
    }
    name = dparse_copy(st, pos, n);
    if (!name)
        return NULL;
    if (!(macro ? dparse_check_macro_name(st, pos, name, role)
                : dparse_check_not_function(st, pos, name, role)) ||
        !dparse_check_unique(st, pos, name)) {
        free(name);
        return NULL;
    }
    *after = skip_blanks(st, eq + 1);
    return name;
}

void dparse_const(struct dparse *st, size_t at, size_t pos)
{
    struct constant c = {0};
    size_t val, n;

    if (st->d->n_consts >= BW_MAX_CONSTS) {
        dparse_err(st, at, "more than %d @const names (BW_MAX_CONSTS)", BW_MAX_CONSTS);
        st->limit = true;
        return;
    }
    c.name = parse_assign_name(st, pos, "@const", "@const BLOCK=256", &val);
    if (!c.name)
        return;
    c.line = st->lineno;
    n = token_len(st, val);
    if (!dparse_int_token(st, val, n, "the @const value", &c.value)) {
        free(c.name);
        return;
    }
    dparse_expect_eol(st, val + n, "@const NAME=INT");
    if (st->line_failed) {
        free(c.name);
        return;
    }
    st->d->consts[st->d->n_consts++] = c;
}

/* The group of the next @tune line (struct tune_param). */
static int next_tune_group(const struct directives *d)
{
    return d->n_tunes ? d->tunes[d->n_tunes - 1].group + 1 : 0;
}

/* The configurations the @tune lines make with one more of `n` values or
 * tuples; reported at `at` when more than BW_MAX_TUNE_CONFIGS. */
static bool tune_configs_fit(struct dparse *st, size_t at, size_t n)
{
    size_t combos = directives_tune_count(st->d) * n;

    if (combos <= BW_MAX_TUNE_CONFIGS)
        return true;
    dparse_err(st, at,
               "@tune makes %zu combinations, more than %d (BW_MAX_TUNE_CONFIGS): every "
               "combination is compiled and timed",
               combos, BW_MAX_TUNE_CONFIGS);
    st->limit = true;
    return false;
}

static void dparse_tune_tuple(struct dparse *st, size_t at, size_t open);

void dparse_tune(struct dparse *st, size_t at, size_t pos)
{
    struct tune_param t = {0};
    size_t commas[BW_MAX_TUNE_VALUES], n_commas, open, close, start, i, j;
    char what[96];

    if (st->d->n_tunes >= BW_MAX_TUNE_PARAMS) {
        dparse_err(st, at, "more than %d @tune names (BW_MAX_TUNE_PARAMS)", BW_MAX_TUNE_PARAMS);
        st->limit = true;
        return;
    }
    pos = skip_blanks(st, pos);
    if (pos < st->len && st->line[pos] == '(') {
        dparse_tune_tuple(st, at, pos);
        return;
    }
    t.name = parse_assign_name(st, pos, "@tune", "@tune BLOCK=(128, 256)", &open);
    if (!t.name)
        return;
    t.line = st->lineno;
    t.group = next_tune_group(st->d);
    if (open >= st->len || st->line[open] != '(') {
        char g[64];
        dparse_err(st, open, "expected '(' after @tune %s= (e.g. @tune %s=(128, 256)), got %s",
                   t.name, t.name, dparse_got(st, open, g, sizeof(g)));
        goto free_name;
    }
    close = dparse_match_paren(st, open, commas, BW_MAX_TUNE_VALUES, &n_commas);
    if (close >= st->len) {
        char w[48];
        dparse_err(st, st->len, "expected ')' to close @tune %s=( at %s, got the end of the line",
                   t.name, dparse_where(st, open, w, sizeof(w)));
        goto free_name;
    }
    if (n_commas >= BW_MAX_TUNE_VALUES) {
        dparse_err(st, commas[BW_MAX_TUNE_VALUES - 1],
                   "more than %d values for @tune %s (BW_MAX_TUNE_VALUES)", BW_MAX_TUNE_VALUES,
                   t.name);
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
            dparse_err(st, a, "expected an integer before '%c' in @tune %s=(...)",
                       i < n_commas ? ',' : ')', t.name);
        } else if (dparse_int_token(st, a, b - a, what, &t.values[t.n_values])) {
            for (j = 0; j < t.n_values && t.values[j] != t.values[t.n_values]; j++)
                ;
            if (j < t.n_values)
                dparse_err(st, a, "value %lld repeats in @tune %s", (long long)t.values[j], t.name);
            else
                t.n_values++;
        }
        start = end + 1;
    }
    dparse_expect_eol(st, close + 1, "@tune NAME=(...)");
    if (st->line_failed || !tune_configs_fit(st, at, t.n_values))
        goto free_values;
    st->d->tunes[st->d->n_tunes++] = t;
    return;

free_values:
    free(t.values);
free_name:
    free(t.name);
}

/* ---- @tune (A, B, ...)=((a1, b1, ...), (a2, b2, ...), ...) ----------------------------- */

/* One tuple "(a, b, ...)" in line[a, b) with n values, into row[]; false if
 * reported. `names` is the tuple's names, for messages. */
static bool parse_tuple(struct dparse *st, size_t a, size_t b, size_t n, const char *names,
                        int64_t *row)
{
    size_t commas[BW_MAX_TUNE_PARAMS], n_commas, close, start;
    char g[64];

    a = skip_blanks(st, a);
    while (b > a && is_blank(st->line[b - 1]))
        b--;
    if (a >= b || st->line[a] != '(') {
        dparse_err(st, a, "expected a tuple '(' of %zu values for (%s), got %s", n, names,
                   a >= b ? "nothing" : dparse_got(st, a, g, sizeof(g)));
        return false;
    }
    close = dparse_match_paren(st, a, commas, BW_MAX_TUNE_PARAMS, &n_commas);
    if (close + 1 != b) {
        dparse_err(st, close < b ? close + 1 : a, "expected ',' or ')' after the tuple at %s",
                   dparse_where(st, a, g, sizeof(g)));
        return false;
    }
    if (n_commas + 1 != n) {
        dparse_err(st, a, "tuple of %zu value%s for the %zu names (%s)", n_commas + 1,
                   n_commas ? "s" : "", n, names);
        return false;
    }
    start = a + 1;
    for (size_t i = 0; i <= n_commas; i++) {
        size_t end = i < n_commas ? commas[i] : close, x = skip_blanks(st, start), y = end;
        while (y > x && is_blank(st->line[y - 1]))
            y--;
        if (x >= y) {
            dparse_err(st, x, "expected an integer before '%c' in the tuple",
                       i < n_commas ? ',' : ')');
            return false;
        }
        if (!dparse_int_token(st, x, y - x, "a @tune tuple value", &row[i]))
            return false;
        start = end + 1;
    }
    return true;
}

/* The names of a tuple @tune at `open` (the '('), checked, into names[] (new
 * copies) with their text "A, B" in list; returns how many, 0 if reported. */
static size_t parse_tuple_names(struct dparse *st, size_t open, size_t *close, char **names,
                                char *list, size_t cap)
{
    size_t commas[BW_MAX_TUNE_PARAMS], n_commas, start, n = 0, used = 0;
    char w[48];

    *close = dparse_match_paren(st, open, commas, BW_MAX_TUNE_PARAMS, &n_commas);
    if (*close >= st->len) {
        dparse_err(st, st->len,
                   "expected ')' to close the names of @tune ( at %s, got the end "
                   "of the line",
                   dparse_where(st, open, w, sizeof(w)));
        return 0;
    }
    if (st->d->n_tunes + n_commas + 1 > BW_MAX_TUNE_PARAMS) {
        dparse_err(st, open, "more than %d @tune names (BW_MAX_TUNE_PARAMS)", BW_MAX_TUNE_PARAMS);
        st->limit = true;
        return 0;
    }
    start = open + 1;
    for (size_t i = 0; i <= n_commas; i++) {
        size_t end = i < n_commas ? commas[i] : *close, a = skip_blanks(st, start), len;
        char *name;

        len = word_len(st, a);
        if (!dparse_check_name(st, a, len, "@tune name"))
            goto fail;
        if (skip_blanks(st, a + len) != end) {
            char g[64];
            dparse_err(st, skip_blanks(st, a + len),
                       "expected ',' or ')' after the @tune name, "
                       "got %s",
                       dparse_got(st, skip_blanks(st, a + len), g, sizeof(g)));
            goto fail;
        }
        name = dparse_copy(st, a, len);
        if (!name)
            goto fail;
        names[n++] = name;
        if (!dparse_check_macro_name(st, a, name, "@tune name") ||
            !dparse_check_unique(st, a, name))
            goto fail;
        for (size_t k = 0; k + 1 < n; k++)
            if (strcmp(names[k], name) == 0) {
                dparse_err(st, a, "duplicate name '%s' in the @tune tuple", name);
                goto fail;
            }
        used += (size_t)snprintf(list + used, cap - used, "%s%s", i ? ", " : "", name);
        if (used >= cap)
            used = cap - 1;
        start = end + 1;
    }
    return n;

fail:
    while (n > 0)
        free(names[--n]);
    return 0;
}

/* @tune (A, B, ...)=((a1, b1, ...), ...): one configuration per tuple. */
static void dparse_tune_tuple(struct dparse *st, size_t at, size_t open)
{
    char *names[BW_MAX_TUNE_PARAMS], list[BW_MAX_TUNE_PARAMS * (BW_MAX_NAME + 2) + 1], g[64];
    int64_t rows[BW_MAX_TUNE_VALUES][BW_MAX_TUNE_PARAMS];
    size_t commas[BW_MAX_TUNE_VALUES], n_commas, n, close, eq, outer, end, start, n_rows = 0;
    int group = next_tune_group(st->d);

    n = parse_tuple_names(st, open, &close, names, list, sizeof(list));
    if (n == 0)
        return;
    eq = skip_blanks(st, close + 1);
    if (eq >= st->len || st->line[eq] != '=') {
        dparse_err(st, eq,
                   "expected '=' after @tune (%s) (e.g. @tune (BM, BN)=((64, 128), (128, "
                   "64))), got %s",
                   list, dparse_got(st, eq, g, sizeof(g)));
        goto free_names;
    }
    outer = skip_blanks(st, eq + 1);
    if (outer >= st->len || st->line[outer] != '(') {
        dparse_err(st, outer,
                   "expected '(' after @tune (%s)= and then one tuple per "
                   "configuration, got %s",
                   list, dparse_got(st, outer, g, sizeof(g)));
        goto free_names;
    }
    end = dparse_match_paren(st, outer, commas, BW_MAX_TUNE_VALUES, &n_commas);
    if (end >= st->len) {
        dparse_err(st, st->len, "expected ')' to close @tune (%s)=( at %s, got the end of the line",
                   list, dparse_where(st, outer, g, sizeof(g)));
        goto free_names;
    }
    if (n_commas >= BW_MAX_TUNE_VALUES) {
        dparse_err(st, commas[BW_MAX_TUNE_VALUES - 1],
                   "more than %d tuples for @tune (%s) (BW_MAX_TUNE_VALUES)", BW_MAX_TUNE_VALUES,
                   list);
        st->limit = true;
        goto free_names;
    }
    start = outer + 1;
    for (size_t i = 0; i <= n_commas; i++) {
        size_t stop = i < n_commas ? commas[i] : end, k;
        if (parse_tuple(st, start, stop, n, list, rows[n_rows])) {
            for (k = 0; k < n_rows && memcmp(rows[k], rows[n_rows], n * sizeof(int64_t)); k++)
                ;
            if (k < n_rows)
                dparse_err(st, skip_blanks(st, start), "tuple %zu repeats tuple %zu of @tune (%s)",
                           i + 1, k + 1, list);
            else
                n_rows++;
        }
        start = stop + 1;
    }
    dparse_expect_eol(st, end + 1, "@tune (NAMES)=(...)");
    if (st->line_failed || !tune_configs_fit(st, at, n_rows))
        goto free_names;
    for (size_t k = 0; k < n; k++) {
        struct tune_param *t = &st->d->tunes[st->d->n_tunes];
        t->values = calloc(n_rows, sizeof(*t->values));
        if (!t->values) {
            st->nomem = true;
            goto free_names;
        }
        for (size_t r = 0; r < n_rows; r++)
            t->values[r] = rows[r][k];
        t->n_values = n_rows;
        t->name = names[k];
        names[k] = NULL;
        t->line = st->lineno;
        t->group = group;
        st->d->n_tunes++;
    }
    return;

free_names:
    for (size_t k = 0; k < n; k++)
        free(names[k]);
}

/* ---- @let ----------------------------------------------------------------------- */

/* What a @let's expression uses, as the parser sees it from the lines above. */
struct let_scan {
    struct dparse *st;
    size_t first;     /* the expression's first byte in the directive */
    const char *name; /* the @let's own */
    bool self;        /* it uses its own name */
};

/* A name used before any @let defines it: remembered, so that a @let of that
 * name further down reports it (it may as well be a size of the problem). */
static void remember_use(struct dparse *st, const char *name, size_t pos)
{
    struct let_use *u;

    if (st->n_pending == st->cap_pending) {
        size_t cap = st->cap_pending ? 2 * st->cap_pending : 16;
        struct let_use *grown = realloc(st->pending, cap * sizeof(*grown));
        if (!grown) {
            st->nomem = true;
            return;
        }
        st->pending = grown;
        st->cap_pending = cap;
    }
    u = &st->pending[st->n_pending++];
    snprintf(u->name, sizeof(u->name), "%s", name);
    u->line = dparse_line_at(st, pos);
    u->column = dparse_column_at(st, pos);
    u->let_line = st->lineno;
}

static void scan_let_name(const char *name, int column, void *arg)
{
    struct let_scan *ls = arg;
    const struct directives *d = ls->st->d;
    size_t pos = ls->first + (size_t)column - 1;

    if (strcmp(name, ls->name) == 0) {
        if (!ls->self)
            dparse_err(ls->st, pos,
                       "@let %s uses itself (a @let may use sizes, @const and @tune names and the "
                       "@let lines above it)",
                       name);
        ls->self = true;
        return;
    }
    for (size_t i = 0; i < d->n_consts; i++)
        if (strcmp(d->consts[i].name, name) == 0)
            return;
    for (size_t i = 0; i < d->n_tunes; i++)
        if (strcmp(d->tunes[i].name, name) == 0)
            return;
    for (size_t i = 0; i < d->n_lets; i++)
        if (strcmp(d->lets[i].name, name) == 0)
            return;
    remember_use(ls->st, name, pos);
}

/* A @let named `name` that a @let above already used: reported here. */
static bool used_above(struct dparse *st, size_t pos, const char *name)
{
    for (size_t i = 0; i < st->n_pending; i++) {
        const struct let_use *u = &st->pending[i];
        if (strcmp(u->name, name) != 0)
            continue;
        dparse_err(st, pos,
                   "@let %s is used above its line, by the @let on line %d (at line %d, column "
                   "%d): a @let may use only the @let lines above it, so move this one up",
                   name, u->let_line, u->line, u->column);
        return true;
    }
    return false;
}

/* @let NAME = e: e runs to the end of the directive. */
void dparse_let(struct dparse *st, size_t at, size_t pos)
{
    struct let t = {0};
    struct let_scan ls = {st, 0, NULL, false};
    size_t val, n_pending = st->n_pending, name_pos = skip_blanks(st, pos);

    if (st->d->n_lets >= BW_MAX_LETS) {
        dparse_err(st, at, "more than %d @let names (BW_MAX_LETS)", BW_MAX_LETS);
        st->limit = true;
        return;
    }
    t.name = parse_assign_name(st, pos, "@let", "@let KP = cdiv(K, 32) * 32", &val);
    if (!t.name)
        return;
    t.line = dparse_line_at(st, name_pos);
    t.column = dparse_column_at(st, name_pos);
    if (used_above(st, name_pos, t.name))
        goto free_name;
    if (val >= st->len) {
        dparse_err(st, val, "expected an expression after @let %s= (e.g. @let %s = cdiv(N, 128))",
                   t.name, t.name);
        goto free_name;
    }
    t.value = dparse_expr(st, val, st->len, "the @let value", ' ');
    if (!t.value)
        goto free_name;
    ls.first = val;
    ls.name = t.name;
    expr_each_name_at(t.value, scan_let_name, &ls);
    if (st->line_failed) {
        st->n_pending = n_pending; /* a failed @let uses nothing */
        goto free_value;
    }
    st->d->lets[st->d->n_lets++] = t;
    return;

free_value:
    expr_free(t.value);
free_name:
    free(t.name);
}
