/*
 * fuzz_expr.c - fuzz target of common/expr: parse, then evaluate as integer
 * and as real against a fixed scope. Built with BW_FUZZ_MAIN by run.sh; the
 * unit tests link fuzz_expr_one() alone.
 */
#include "fuzz.h"

#include <inttypes.h>
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/error.h"
#include "common/expr.h"
#include "common/util.h"
#include "common/banned.h"

#define FAIL(...)                                                                                  \
    do {                                                                                           \
        fprintf(stderr, "fuzz_expr: " __VA_ARGS__);                                                \
        fputc('\n', stderr);                                                                       \
        rc = -1;                                                                                   \
        goto done;                                                                                 \
    } while (0)

static const struct expr_binding fuzz_vars[] = {
    {"n", 1000},        {"N", 268435456},     {"M", 7},    {"K", 0}, {"BLOCK", 256},
    {"big", INT64_MAX}, {"small", INT64_MIN}, {"neg", -3},
};
static const struct expr_scope fuzz_scope = {fuzz_vars, sizeof(fuzz_vars) / sizeof(fuzz_vars[0])};

/* A cause must be one line starting with "column C: " with 1 <= C <= max. */
static bool cause_ok(const char *cause, int max_col, int *col)
{
    int c = 0, used = 0;

    if (!cause || sscanf(cause, "column %d: %n", &c, &used) != 1 || used == 0)
        return false;
    if (strchr(cause, '\n') || cause[used] == '\0')
        return false;
    if (col)
        *col = c;
    return c >= 1 && c <= max_col;
}

static void check_name(const char *name, void *arg)
{
    bool *ok = arg;
    if (!is_identifier(name))
        *ok = false;
}

int fuzz_expr_one(const uint8_t *data, size_t size)
{
    char *text = strndup((const char *)data, size); /* stops at a NUL byte */
    char *cause = NULL, *cause2 = NULL;
    struct expr *e = NULL, *again = NULL;
    int rc = 0, col = 0, col2 = 0, max_col;
    int64_t iv = 0, iv2 = 0;
    double rv = 0, rv2 = 0;
    int irc, rrc;
    bool names_ok = true;

    if (!text)
        return 0;
    max_col = (int)strlen(text) + 1;
    e = expr_parse(text, &col, &cause);
    again = expr_parse(text, &col2, &cause2);
    if (!e != !again)
        FAIL("parse is not deterministic on \"%s\"", text);
    if (!e) {
        if (col != col2 || strcmp(cause, cause2) != 0)
            FAIL("parse errors differ on \"%s\"", text);
        if (!cause_ok(cause, max_col, &col2) || col2 != col)
            FAIL("bad parse error \"%s\" (column %d) on \"%s\"", cause ? cause : "(null)", col,
                 text);
        goto done;
    }
    if (strcmp(expr_text(e), text) != 0)
        FAIL("expr_text differs from the input \"%s\"", text);
    expr_each_name(e, check_name, &names_ok);
    if (!names_ok)
        FAIL("expr_each_name gave a non-identifier on \"%s\"", text);

    free(cause);
    cause = NULL;
    irc = expr_eval_int(e, &fuzz_scope, &iv, &cause);
    if (irc != BW_OK && irc != BW_ERR_INVALID)
        FAIL("expr_eval_int returned %d", irc);
    if (irc && !cause_ok(cause, max_col, NULL))
        FAIL("bad eval_int error \"%s\" on \"%s\"", cause ? cause : "(null)", text);
    if (!irc && expr_is_real(e))
        FAIL("eval_int succeeded on a real expression \"%s\"", text);
    if ((expr_eval_int(again, &fuzz_scope, &iv2, NULL) == BW_OK) != (irc == BW_OK) ||
        (!irc && iv != iv2))
        FAIL("eval_int is not deterministic on \"%s\"", text);
    /* Evaluating against an empty scope fails exactly when a name is used. */
    if (!irc && expr_eval_int(e, NULL, &iv2, NULL) == BW_OK && iv2 != iv)
        FAIL("eval_int without names differs on \"%s\"", text);

    free(cause);
    cause = NULL;
    rrc = expr_eval_real(e, &fuzz_scope, &rv, &cause);
    if (rrc != BW_OK && rrc != BW_ERR_INVALID)
        FAIL("expr_eval_real returned %d", rrc);
    if (rrc && !cause_ok(cause, max_col, NULL))
        FAIL("bad eval_real error \"%s\" on \"%s\"", cause ? cause : "(null)", text);
    if (!rrc && !isfinite(rv))
        FAIL("eval_real returned a non-finite value on \"%s\"", text);
    if ((expr_eval_real(again, &fuzz_scope, &rv2, NULL) == BW_OK) != (rrc == BW_OK) ||
        (!rrc && memcmp(&rv, &rv2, sizeof(rv)) != 0))
        FAIL("eval_real is not deterministic on \"%s\"", text);

done:
    expr_free(e);
    expr_free(again);
    free(cause);
    free(cause2);
    free(text);
    return rc;
}

#ifdef BW_FUZZ_MAIN
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (fuzz_expr_one(data, size) != 0)
        abort();
    return 0;
}
#endif

#undef FAIL
