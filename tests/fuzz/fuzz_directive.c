/*
 * fuzz_directive.c - fuzz target of the directive parser (plan/directive*.c):
 * parse a whole source file, as CUDA and as Triton, and check the result. Built with BW_FUZZ_MAIN
 * by run.sh; the unit tests link fuzz_directive_one() alone.
 */
#include "fuzz.h"

#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/error.h"
#include "common/limits.h"
#include "common/util.h"
#include "plan/directive.h"
#include "plan/flags.h"
#include "plan/tune.h"
#include "common/banned.h"

#define FAIL(...)                                                                                  \
    do {                                                                                           \
        fprintf(stderr, "fuzz_directive: " __VA_ARGS__);                                           \
        fputc('\n', stderr);                                                                       \
        rc = -1;                                                                                   \
        goto done;                                                                                 \
    } while (0)

/* Length in bytes of line `line` (1-based) of data, without its line break;
 * -1 if there is no such line. */
static long line_length(const uint8_t *data, size_t size, int line)
{
    size_t pos = 0, end;
    int at = 1;

    while (at < line) {
        const uint8_t *nl = memchr(data + pos, '\n', size - pos);
        if (!nl)
            return -1;
        pos = (size_t)(nl - data) + 1;
        at++;
    }
    if (pos > size)
        return -1;
    end = pos;
    while (end < size && data[end] != '\n')
        end++;
    if (end > pos && data[end - 1] == '\r')
        end--;
    return (long)(end - pos);
}

static bool same_diags(const struct diag_list *a, const struct diag_list *b)
{
    if (a->n != b->n)
        return false;
    for (size_t i = 0; i < a->n; i++)
        if (a->items[i].line != b->items[i].line || a->items[i].column != b->items[i].column ||
            strcmp(a->items[i].msg, b->items[i].msg) != 0)
            return false;
    return true;
}

static int check_plan(const struct directives *d)
{
    int64_t values[BW_MAX_TUNE_PARAMS];
    size_t i, j, k, combos;

    if (d->n_launches < 1 || d->n_launches > BW_MAX_LAUNCHES || d->n_scratches > BW_MAX_SCRATCH ||
        d->n_consts > BW_MAX_CONSTS || d->n_tunes > BW_MAX_TUNE_PARAMS ||
        d->n_flags > BW_MAX_FLAGS || d->n_lets > BW_MAX_LETS)
        return -1;
    for (i = 0; i < d->n_launches; i++) {
        const struct launch *l = &d->launches[i];
        if (!is_identifier(l->kernel) || !l->grid[0] ||
            (d->lang == LANG_CUDA) != (l->block[0] != NULL) || l->n_args > BW_MAX_LAUNCH_ARGS)
            return -1;
        for (k = 1; k < 3; k++)
            if ((l->grid[k] && !l->grid[k - 1]) || (l->block[k] && !l->block[k - 1]))
                return -1;
        for (k = 0; k < 3; k++)
            if ((l->grid[k] && expr_is_real(l->grid[k])) ||
                (l->block[k] && expr_is_real(l->block[k])))
                return -1;
        for (j = 0; j < l->n_args; j++) {
            const struct launch_arg *a = &l->args[j];
            switch (a->kind) {
            case LAUNCH_ARG_NAME:
                if (!is_identifier(a->name) || a->expr)
                    return -1;
                break;
            case LAUNCH_ARG_INTEGER:
                if (a->name || a->expr)
                    return -1;
                break;
            case LAUNCH_ARG_EXPR:
                if (a->name || !a->expr || expr_is_real(a->expr))
                    return -1;
                break;
            default:
                return -1;
            }
        }
    }
    for (i = 0; i < d->n_scratches; i++)
        if (!is_identifier(d->scratches[i].name) || dtype_size(d->scratches[i].dtype) == 0 ||
            expr_is_real(d->scratches[i].count))
            return -1;
    for (i = 0; i < d->n_consts; i++)
        if (!is_identifier(d->consts[i].name))
            return -1;
    for (i = 0; i < d->n_lets; i++) {
        if (!is_identifier(d->lets[i].name) || !d->lets[i].value ||
            expr_is_real(d->lets[i].value) || d->lets[i].line < 1 || d->lets[i].column < 1)
            return -1;
        for (j = 0; j < i; j++)
            if (strcmp(d->lets[j].name, d->lets[i].name) == 0)
                return -1;
    }
    for (i = 0; i < d->n_flags; i++)
        if (!directive_flag_allowed(d->flags[i]))
            return -1;
    for (i = 0; i < d->n_tunes; i++) {
        const struct tune_param *t = &d->tunes[i];
        if (!is_identifier(t->name) || t->n_values < 1 || t->n_values > BW_MAX_TUNE_VALUES)
            return -1;
        /* a group is consecutive names of one line, each with a value per tuple */
        if (i > 0 && t->group != d->tunes[i - 1].group &&
            (t->group != d->tunes[i - 1].group + 1 || t->line < d->tunes[i - 1].line))
            return -1;
        if (i > 0 && t->group == d->tunes[i - 1].group &&
            (t->n_values != d->tunes[i - 1].n_values || t->line != d->tunes[i - 1].line))
            return -1;
    }
    combos = directives_tune_count(d);
    if (combos < 1 || combos > BW_MAX_TUNE_CONFIGS)
        return -1;
    for (i = 0; i < combos; i++) {
        directives_tune_combo(d, i, values);
        for (j = 0; j < d->n_tunes; j++) {
            for (k = 0; k < d->tunes[j].n_values && d->tunes[j].values[k] != values[j]; k++)
                ;
            if (k == d->tunes[j].n_values)
                return -1;
        }
    }
    return 0;
}

/* Parses data as a source of `lang` (twice) and checks every property. */
static int fuzz_directive_as(enum language lang, const uint8_t *data, size_t size)
{
    struct directives d, d2;
    struct diag_list l = {0}, l2 = {0};
    int rc = 0, prc, prc2;

    prc = directives_parse_as(lang, (const char *)data, size, &d, &l);
    prc2 = directives_parse_as(lang, (const char *)data, size, &d2, &l2);
    if (prc != prc2 || !same_diags(&l, &l2))
        FAIL("parse is not deterministic");
    if (prc != BW_OK && prc != BW_ERR_INVALID && prc != BW_ERR_LIMIT)
        FAIL("directives_parse returned %d", prc);
    if ((prc == BW_OK) != (l.n == 0))
        FAIL("return code %d with %zu diagnostics", prc, l.n);
    if (l.n > BW_MAX_DIAGS + 1)
        FAIL("%zu diagnostics, over BW_MAX_DIAGS", l.n);
    for (size_t i = 0; i < l.n; i++) {
        const struct diag *g = &l.items[i];
        long len;
        if (!g->msg[0] || strchr(g->msg, '\n'))
            FAIL("diagnostic %zu is empty or spans lines: \"%s\"", i, g->msg);
        if (g->line == 0) {
            if (g->column != 0)
                FAIL("file diagnostic with column %d: %s", g->column, g->msg);
            continue;
        }
        len = line_length(data, size, g->line);
        if (len < 0 || g->column < 0 || g->column > len + 1)
            FAIL("diagnostic %d:%d outside the input (line length %ld): %s", g->line, g->column,
                 len, g->msg);
        if (i > 0 && l.items[i - 1].line > g->line && l.items[i - 1].line != 0)
            FAIL("diagnostics out of line order at %d:%d", g->line, g->column);
    }
    if (prc == BW_OK) {
        if (check_plan(&d) != 0)
            FAIL("a successful parse gave a malformed plan");
        directives_release(&d);
        directives_release(&d2);
    } else if (d.n_launches || d.launches || d.n_consts || d.consts) {
        FAIL("a failed parse left data in *out");
    }

done:
    if (prc == BW_OK && rc != 0) {
        directives_release(&d);
        directives_release(&d2);
    }
    diag_list_release(&l);
    diag_list_release(&l2);
    return rc;
}

/* Every input is read as a .cu file and as a .py file: the same parser, two
 * comment markers and two sets of @launch keys. */
int fuzz_directive_one(const uint8_t *data, size_t size)
{
    if (fuzz_directive_as(LANG_CUDA, data, size) != 0)
        return -1;
    return fuzz_directive_as(LANG_TRITON, data, size);
}

#ifdef BW_FUZZ_MAIN
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (fuzz_directive_one(data, size) != 0)
        abort();
    return 0;
}
#endif

#undef FAIL
