/* Tests of common/expr: grammar, int and real evaluation, every error path, caps. */
#include "tests/test.h"

#include <math.h>
#include <stdint.h>
#include <stdlib.h>

#include "common/error.h"
#include "common/expr.h"
#include "common/limits.h"
#include "common/banned.h"

static const struct expr_binding test_vars[] = {
    {"n", 1000}, {"M", 7}, {"K", 3}, {"BLOCK", 256}, {"zero", 0}, {"neg", -5}, {"big", INT64_MAX},
};
static const struct expr_scope test_scope = {test_vars, sizeof(test_vars) / sizeof(test_vars[0])};

/* Evaluates text as an integer; fails the test on any error. */
static int64_t ival(const char *text)
{
    char *cause = NULL;
    int64_t v = -999999;
    int rc = expr_calc_int(text, &test_scope, &v, &cause);
    CHECK_MSG(rc == BW_OK, "%s: %s", text, cause ? cause : "?");
    free(cause);
    return v;
}

static double rval(const char *text)
{
    char *cause = NULL;
    double v = NAN;
    struct expr *e = expr_parse(text, NULL, &cause);
    CHECK_MSG(e != NULL, "%s: %s", text, cause ? cause : "?");
    if (e) {
        int rc = expr_eval_real(e, &test_scope, &v, &cause);
        CHECK_MSG(rc == BW_OK, "%s: %s", text, cause ? cause : "?");
    }
    expr_free(e);
    free(cause);
    return v;
}

/* Parses text expecting failure at column col with a message containing msg. */
static void parse_err(const char *text, int col, const char *msg)
{
    char *cause = NULL;
    int err_col = -1;
    struct expr *e = expr_parse(text, &err_col, &cause);
    CHECK_MSG(e == NULL, "'%s' parsed but should not", text);
    expr_free(e);
    CHECK_MSG(err_col == col, "'%s': column %d, expected %d (%s)", text, err_col, col,
              cause ? cause : "?");
    CHECK_MSG(cause && strstr(cause, msg), "'%s': cause \"%s\" lacks \"%s\"", text,
              cause ? cause : "(null)", msg);
    if (cause) {
        char prefix[32];
        snprintf(prefix, sizeof(prefix), "column %d: ", col);
        CHECK_MSG(strncmp(cause, prefix, strlen(prefix)) == 0, "'%s': cause \"%s\" prefix", text,
                  cause);
    }
    free(cause);
}

/* Evaluates text as an integer expecting a failure containing msg. */
static void int_err(const char *text, const char *msg)
{
    char *cause = NULL;
    int64_t v = 12345;
    int rc = expr_calc_int(text, &test_scope, &v, &cause);
    CHECK_MSG(rc == BW_ERR_INVALID, "'%s' evaluated to %lld", text, (long long)v);
    CHECK_MSG(v == 12345, "'%s': *out written on failure", text);
    CHECK_MSG(cause && strstr(cause, msg), "'%s': cause \"%s\" lacks \"%s\"", text,
              cause ? cause : "(null)", msg);
    free(cause);
}

static void real_err(const char *text, const char *msg)
{
    char *cause = NULL;
    double v = 0;
    struct expr *e = expr_parse(text, NULL, &cause);
    CHECK_MSG(e != NULL, "%s: %s", text, cause ? cause : "?");
    if (e) {
        int rc = expr_eval_real(e, &test_scope, &v, &cause);
        CHECK_MSG(rc == BW_ERR_INVALID, "'%s' evaluated to %g", text, v);
        CHECK_MSG(cause && strstr(cause, msg), "'%s': cause \"%s\" lacks \"%s\"", text,
                  cause ? cause : "(null)", msg);
    }
    expr_free(e);
    free(cause);
}

TEST(expr_precedence_and_associativity)
{
    CHECK_INT_EQ(ival("1 + 2 * 3"), 7);
    CHECK_INT_EQ(ival("(1 + 2) * 3"), 9);
    CHECK_INT_EQ(ival("10 - 3 - 2"), 5);
    CHECK_INT_EQ(ival("100 / 10 / 5"), 2);
    CHECK_INT_EQ(ival("2 * 3 % 4"), 2);
    CHECK_INT_EQ(ival("-2 * -3"), 6);
    CHECK_INT_EQ(ival("--4"), 4);
    CHECK_INT_EQ(ival("-(1 + 2)"), -3);
    CHECK_INT_EQ(ival("  \t7\t "), 7);
    CHECK_INT_EQ(ival("1+2*3-4/2"), 5);
    CHECK_INT_EQ(ival("((((((1))))))"), 1);
}

TEST(expr_names_and_calls)
{
    CHECK_INT_EQ(ival("cdiv(n, BLOCK)"), 4);
    CHECK_INT_EQ(ival("cdiv(1024, 256)"), 4);
    CHECK_INT_EQ(ival("cdiv(1025, 256)"), 5);
    CHECK_INT_EQ(ival("cdiv(0, 256)"), 0);
    CHECK_INT_EQ(ival("cdiv(-7, 2)"), -3);
    CHECK_INT_EQ(ival("min(M, K)"), 3);
    CHECK_INT_EQ(ival("max(M, K, 11, neg)"), 11);
    CHECK_INT_EQ(ival("min(neg, 4, 9)"), -5);
    CHECK_INT_EQ(ival("max(cdiv(n, min(BLOCK, 128)), 1)"), 8);
    CHECK_INT_EQ(ival("M*K + n"), 1021);
    CHECK_INT_EQ(ival("big"), INT64_MAX);
    CHECK_INT_EQ(ival("cdiv ( n , 3 )"), 334);
    CHECK_INT_EQ(ival("next_pow2(1000)"), 1024);
    CHECK_INT_EQ(ival("next_pow2(1024)"), 1024);
    CHECK_INT_EQ(ival("next_pow2(1025)"), 2048);
    CHECK_INT_EQ(ival("next_pow2(1)"), 1);
    CHECK_INT_EQ(ival("next_pow2(0)"), 1);
    CHECK_INT_EQ(ival("next_pow2(neg)"), 1);
    CHECK_INT_EQ(ival("cdiv(n, next_pow2(K))"), 250);
    CHECK(rval("next_pow2(n) * 1.5") == 1536.0);
    int_err("next_pow2(big)", "integer overflow (next_pow2(");
    parse_err("next_pow2(1, 2)", 1, "next_pow2 takes 1 argument");
}

TEST(expr_c_division_semantics)
{
    CHECK_INT_EQ(ival("-7 / 2"), -3);
    CHECK_INT_EQ(ival("7 / -2"), -3);
    CHECK_INT_EQ(ival("-7 % 3"), -1);
    CHECK_INT_EQ(ival("7 % 3"), 1);
}

TEST(expr_large_literals)
{
    CHECK_INT_EQ(ival("9223372036854775807"), INT64_MAX);
    CHECK_INT_EQ(ival("-9223372036854775808"), INT64_MIN);
    CHECK_INT_EQ(ival("268435456 * 16"), 4294967296LL);
    CHECK_INT_EQ(ival("007"), 7);
    parse_err("9223372036854775808", 1, "out of range");
    parse_err("1 + 99999999999999999999999", 5, "out of range");
    parse_err("-9223372036854775809", 2, "out of range");
}

TEST(expr_overflow_is_an_error)
{
    int_err("big + 1", "integer overflow");
    int_err("big * 2", "integer overflow");
    int_err("-big - 2", "integer overflow");
    int_err("-(-9223372036854775808)", "integer overflow");
    int_err("-9223372036854775808 / -1", "integer overflow");
    int_err("1 + big * 2", "in 'big * 2'");
    int_err("4294967296 * 4294967296", "integer overflow");
    CHECK_INT_EQ(ival("-9223372036854775808 % 1"), 0);
}

TEST(expr_eval_errors)
{
    int_err("n / zero", "division by zero");
    int_err("n % zero", "modulo by zero");
    int_err("n % neg", "modulo by a negative number (-5)");
    int_err("cdiv(n, 0)", "cdiv needs a positive divisor, got 0");
    int_err("cdiv(n, neg)", "got -5");
    int_err("n + Q", "unknown name 'Q'");
    int_err("n + Q", "(known: n, M, K, BLOCK, zero, neg, big)");
    int_err("1e-6", "real number '1e-6' where an integer is needed");
    int_err("n * 2.5", "real number");

    /* The column points at the failing operator or name. */
    char *cause = NULL;
    int64_t v;
    CHECK_INT_EQ(expr_calc_int("1 + n / (K - 3)", &test_scope, &v, &cause), BW_ERR_INVALID);
    CHECK_STR_EQ(cause, "column 7: division by zero in 'n / (K - 3)'");
    free(cause);
    cause = NULL;
    CHECK_INT_EQ(expr_calc_int("2 + foo", NULL, &v, &cause), BW_ERR_INVALID);
    CHECK_STR_EQ(cause, "column 5: unknown name 'foo' (no names are defined here)");
    free(cause);
    /* A quoted sub-expression stays on one line (found by fuzz_expr). */
    cause = NULL;
    CHECK_INT_EQ(expr_calc_int("1 + (n\n%\tzero) * 2", &test_scope, &v, &cause), BW_ERR_INVALID);
    CHECK_STR_EQ(cause, "column 8: modulo by zero in '(n % zero)'");
    free(cause);
    /* cause may be NULL. */
    CHECK_INT_EQ(expr_calc_int("n / zero", &test_scope, &v, NULL), BW_ERR_INVALID);
    CHECK_INT_EQ(expr_calc_int("nope", &test_scope, &v, NULL), BW_ERR_INVALID);
    CHECK_INT_EQ(expr_calc_int("(", &test_scope, &v, NULL), BW_ERR_INVALID);
}

TEST(expr_real_evaluation)
{
    CHECK(rval("1e-6") == 1e-6);
    CHECK(rval("2.5") == 2.5);
    CHECK(rval("1.0e+3") == 1000.0);
    CHECK(rval("1E3") == 1000.0);
    CHECK(rval(".5") == 0.5);
    CHECK(rval("5.") == 5.0);
    CHECK(rval("7 / 2") == 3.5);
    CHECK(rval("12 * n + 4") == 12004.0);
    CHECK(rval("2 * M * K * n") == 42000.0);
    CHECK(rval("cdiv(n, 3)") == 334.0);
    CHECK(rval("cdiv(n, 3.0)") == 334.0);
    CHECK(rval("7 % 3") == 1.0);
    CHECK(rval("min(1.5, 2, -0.25)") == -0.25);
    CHECK(rval("max(1.5, 2)") == 2.0);
    CHECK(rval("-1e-5 * 2") == -2e-5);
    /* int64 products that overflow are fine as doubles. */
    CHECK(rval("big * 4") == 4.0 * 9223372036854775807.0);

    struct expr *e = expr_parse("1e-6 * n", NULL, NULL);
    CHECK(e && expr_is_real(e));
    expr_free(e);
    e = expr_parse("n * 2", NULL, NULL);
    CHECK(e && !expr_is_real(e));
    CHECK_STR_EQ(expr_text(e), "n * 2");
    expr_free(e);
}

TEST(expr_real_errors)
{
    real_err("1 / zero", "division by zero");
    real_err("2.5 % 2", "'%' needs integer operands, got 2.5");
    real_err("cdiv(n, 0.5)", "cdiv needs integer operands, got 0.5");
    real_err("cdiv(n, zero)", "positive divisor");
    real_err("1e300 * 1e300", "overflow");
    real_err("n % 0", "modulo by zero");
    real_err("Q * 2.0", "unknown name 'Q'");
    real_err("1e20 % 3", "integer operands");
}

TEST(expr_syntax_errors)
{
    parse_err("", 1, "expected a number, a name or '(', got end of expression");
    parse_err("   ", 4, "got end of expression");
    parse_err("1 +", 4, "expected a number, a name or '(', got end of expression");
    parse_err("(1 + 2", 7, "expected ')' to close '(' at column 1, got end of expression");
    parse_err("1 + 2)", 6, "unmatched ')'");
    parse_err("1 2", 3,
              "expected an operator (+ - * / %, a comparison, && || or ?:) or the end, got '2'");
    parse_err("n m", 3, "got 'm'");
    parse_err("1 $ 2", 3, "got '$'");
    parse_err("a ^ 2", 3, "got '^'");
    parse_err("* 2", 1, "expected a number, a name or '(', got '*'");
    parse_err("()", 2, "got ')'");
    parse_err("foo(1)", 1, "unknown function 'foo' (expected cdiv, min, max or next_pow2)");
    parse_err("cdiv(1)", 1, "cdiv takes 2 arguments");
    parse_err("cdiv(1, 2, 3)", 1, "got 3");
    parse_err("min(1)", 1, "min takes at least 2 arguments");
    parse_err("max(1 2)", 7, "expected ',' or ')' to close max( at column 4, got '2'");
    parse_err("max(1,", 7, "got end of expression");
    parse_err("cdiv()", 6, "got ')'");
    parse_err("1e", 3, "expected digits in the exponent");
    parse_err("1e+", 4, "malformed number");
    parse_err("12abc", 1, "malformed number '12abc'");
    parse_err("1.2.3", 1, "malformed number");
    parse_err(".", 1, "malformed number '.'");
    parse_err("1 + \xc3\xa9", 5, "got byte 0xc3");
    parse_err("1e999", 1, "real literal '1e999' is out of range");
    parse_err("n\n+", 4, "got end of expression");
}

TEST(expr_comparisons_and_logic)
{
    CHECK_INT_EQ(ival("M < K"), 0);
    CHECK_INT_EQ(ival("K < M"), 1);
    CHECK_INT_EQ(ival("K <= 3"), 1);
    CHECK_INT_EQ(ival("K > 3"), 0);
    CHECK_INT_EQ(ival("K >= 3"), 1);
    CHECK_INT_EQ(ival("K == 3"), 1);
    CHECK_INT_EQ(ival("K != 3"), 0);
    CHECK_INT_EQ(ival("neg < zero"), 1);
    CHECK_INT_EQ(ival("big > big - 1"), 1);
    CHECK_INT_EQ(ival("!zero"), 1);
    CHECK_INT_EQ(ival("!n"), 0);
    CHECK_INT_EQ(ival("!!neg"), 1);
    CHECK_INT_EQ(ival("!-3"), 0);
    CHECK_INT_EQ(ival("n && K"), 1);
    CHECK_INT_EQ(ival("n && zero"), 0);
    CHECK_INT_EQ(ival("zero || neg"), 1);
    CHECK_INT_EQ(ival("zero || zero"), 0);
    /* C precedence: * over +, + over <, < over ==, == over &&, && over ||, || over ?: */
    CHECK_INT_EQ(ival("1 + 2 < 4"), 1);
    CHECK_INT_EQ(ival("2 < 3 == 1"), 1);
    CHECK_INT_EQ(ival("1 == 1 && 0 == 1"), 0);
    CHECK_INT_EQ(ival("1 || 0 && 0"), 1);
    CHECK_INT_EQ(ival("0 && 1 || 1"), 1);
    CHECK_INT_EQ(ival("!K == 0"), 1);
    CHECK_INT_EQ(ival("K > 2 ? 10 : 20"), 10);
    CHECK_INT_EQ(ival("K > 3 ? 10 : 20"), 20);
    CHECK_INT_EQ(ival("1 ? 2 : 3 ? 4 : 5"), 2);
    CHECK_INT_EQ(ival("0 ? 2 : 0 ? 4 : 5"), 5);
    CHECK_INT_EQ(ival("0 ? 2 : 1 ? 4 : 5"), 4);
    CHECK_INT_EQ(ival("1 ? 0 ? 6 : 7 : 8"), 7);
    CHECK_INT_EQ(ival("zero || K ? M : n"), 7);
    CHECK_INT_EQ(ival("(K < M) < 2"), 1);
    CHECK_INT_EQ(ival("max(K < M, 5 > 4 ? 3 : 9) + (n ? 1 : 2)"), 4);
    CHECK_INT_EQ(ival("min(1, n % 16 + K % 16)"), ival("n % 16 != 0 || K % 16 != 0"));
    /* Lazy: the operand not needed is not evaluated. */
    CHECK_INT_EQ(ival("zero > 0 ? n / zero : 0"), 0);
    CHECK_INT_EQ(ival("zero != 0 && n / zero > 1"), 0);
    CHECK_INT_EQ(ival("zero == 0 || n / zero > 1"), 1);
    CHECK_INT_EQ(ival("K > 0 ? n / K : unknown_name"), 333);
    int_err("zero == 0 ? n / zero : 0", "division by zero in 'n / zero'");
    int_err("n && n / zero", "division by zero");
    int_err("zero || big + 1", "integer overflow");
    int_err("K ? undefined_name : 0", "unknown name 'undefined_name'");
    /* A real literal is an error in an integer expression, taken branch or not. */
    int_err("1 || 2.5", "real number '2.5' where an integer is needed");
    int_err("K > 0 ? 1 : 0.5", "real number '0.5'");
    /* Real: comparisons and logic give 1 or 0; ?: is lazy. */
    CHECK(rval("1.5 < 2") == 1.0);
    CHECK(rval("K == 3.0") == 1.0);
    CHECK(rval("0.5 && 0") == 0.0);
    CHECK(rval("!0.25") == 0.0);
    CHECK(rval("K > 2 ? 1e-6 / n : 2.5") == 1e-6 / 1000);
    CHECK(rval("zero > 0 ? 1 / zero : 0.5") == 0.5);
    real_err("zero == 0 ? 1 / zero : 0", "division by zero");
}

TEST(expr_comparison_syntax_errors)
{
    parse_err("1 < 2 < 3", 7, "comparisons do not chain: '1 < 2' is 0 or 1 here");
    parse_err("1 == 2 != 3", 8, "comparisons do not chain: '1 == 2'");
    parse_err("n > 1 >= K", 7, "comparisons do not chain");
    parse_err("n = 1", 3, "'=' is not an operator here (compare with '==')");
    parse_err("n & 1", 3, "'&' (bitwise) is not an operator here (logical: '&&')");
    parse_err("n | 1", 3, "'|' (bitwise) is not an operator here (logical: '||')");
    parse_err("n ? 1", 6, "expected ':' for the '?' at column 3, got end of expression");
    parse_err("n ? 1 , 2", 7, "expected ':' for the '?' at column 3, got ','");
    parse_err("n ? : 2", 5, "expected a number, a name or '(', got ':'");
    parse_err("n : 2", 3,
              "expected an operator (+ - * / %, a comparison, && || or ?:) or the end, "
              "got ':'");
    parse_err("n <", 4, "got end of expression");
    parse_err("n && ", 6, "got end of expression");
    parse_err("!", 2, "got end of expression");
    parse_err("n < = 1", 5, "expected a number, a name or '(', got '='");
    parse_err("n =< 1", 3, "'=' is not an operator here");
    parse_err("n <> 1", 4, "expected a number, a name or '(', got '>'");
    parse_err("(n = 1)", 4, "'=' is not an operator here");
    parse_err("max(n & 1, 2)", 7, "'&' (bitwise) is not an operator here");
    parse_err("n ? 1 | 2 : 3", 7, "'|' (bitwise) is not an operator here");
    parse_err("&n", 1, "expected a number, a name or '(', got '&'");
    parse_err("n + &&", 5, "expected a number, a name or '(', got '&&'");
    parse_err("1 ? 2 : 3 4", 11, "got '4'");
}

TEST(expr_caps)
{
    char text[BW_MAX_EXPR_BYTES + 64];
    struct expr *e;
    char *cause = NULL;
    int col = 0;
    size_t i;

    /* Length: exactly the cap parses, one more byte does not. */
    memset(text, ' ', BW_MAX_EXPR_BYTES);
    text[0] = '1';
    text[BW_MAX_EXPR_BYTES] = '\0';
    e = expr_parse(text, NULL, NULL);
    CHECK(e != NULL);
    expr_free(e);
    text[BW_MAX_EXPR_BYTES] = ' ';
    text[BW_MAX_EXPR_BYTES + 1] = '\0';
    parse_err(text, BW_MAX_EXPR_BYTES + 1, "longer than 512 bytes (BW_MAX_EXPR_BYTES)");

    /* Depth: BW_MAX_EXPR_DEPTH parentheses parse, one more does not. */
    i = 0;
    for (int d = 0; d < BW_MAX_EXPR_DEPTH; d++)
        text[i++] = '(';
    text[i++] = '1';
    for (int d = 0; d < BW_MAX_EXPR_DEPTH; d++)
        text[i++] = ')';
    text[i] = '\0';
    e = expr_parse(text, NULL, NULL);
    CHECK(e != NULL);
    expr_free(e);
    i = 0;
    for (int d = 0; d <= BW_MAX_EXPR_DEPTH; d++)
        text[i++] = '(';
    text[i++] = '1';
    for (int d = 0; d <= BW_MAX_EXPR_DEPTH; d++)
        text[i++] = ')';
    text[i] = '\0';
    parse_err(text, BW_MAX_EXPR_DEPTH + 1, "nested deeper than 32 levels");
    /* Unary minus and calls count as nesting too. */
    i = 0;
    for (int d = 0; d <= BW_MAX_EXPR_DEPTH; d++)
        text[i++] = '-';
    text[i++] = 'n';
    text[i] = '\0';
    parse_err(text, BW_MAX_EXPR_DEPTH + 1, "nested deeper");
    i = 0;
    for (int d = 0; d <= BW_MAX_EXPR_DEPTH; d++) {
        memcpy(text + i, "min(1,", 6);
        i += 6;
    }
    text[i] = '\0';
    parse_err(text, 6 * BW_MAX_EXPR_DEPTH + 4, "nested deeper");

    /* Nodes: "1+1+...": 2k-1 nodes for k ones. 128 ones = 255 nodes parse. */
    i = 0;
    for (int k = 0; k < 128; k++) {
        if (k)
            text[i++] = '+';
        text[i++] = '1';
    }
    text[i] = '\0';
    int64_t v = 0;
    CHECK_INT_EQ(expr_calc_int(text, NULL, &v, &cause), BW_OK);
    CHECK_INT_EQ(v, 128);
    memcpy(text + i, "+1+1", 5);
    e = expr_parse(text, &col, &cause);
    CHECK(e == NULL);
    CHECK_CONTAINS(cause, "more than 256 nodes (BW_MAX_EXPR_NODES)");
    free(cause);

    /* Names: BW_MAX_NAME bytes is fine, one more is not. */
    memset(text, 'a', BW_MAX_NAME + 1);
    text[BW_MAX_NAME] = '\0';
    e = expr_parse(text, NULL, NULL);
    CHECK(e != NULL);
    expr_free(e);
    text[BW_MAX_NAME] = 'a';
    text[BW_MAX_NAME + 1] = '\0';
    parse_err(text, 1, "longer than 64 bytes (BW_MAX_NAME)");
}

static void collect(const char *name, void *arg)
{
    char *out = arg;
    size_t len = strlen(out);
    snprintf(out + len, 256 - len, "%s%s", len ? "," : "", name);
}

TEST(expr_each_name_is_distinct_in_order)
{
    char names[256] = "";
    struct expr *e = expr_parse("cdiv(N, BLOCK) * N + M - min(BLOCK, K, max)", NULL, NULL);
    CHECK(e != NULL);
    if (!e)
        return;
    expr_each_name(e, collect, names);
    CHECK_STR_EQ(names, "N,BLOCK,M,K,max");
    expr_free(e);
}

static void collect_at(const char *name, int column, void *arg)
{
    char *out = arg;
    size_t len = strlen(out);
    snprintf(out + len, 256 - len, "%s%s@%d", len ? "," : "", name, column);
}

TEST(expr_each_name_at_gives_first_columns)
{
    char names[256] = "";
    struct expr *e = expr_parse("N > 0 ? K / N : cdiv(M, BLOCK) + K", NULL, NULL);
    CHECK(e != NULL);
    if (!e)
        return;
    expr_each_name_at(e, collect_at, names);
    CHECK_STR_EQ(names, "N@1,K@9,M@22,BLOCK@25");
    expr_free(e);
}

TEST(expr_reuse_across_scopes)
{
    struct expr *e = expr_parse("cdiv(N, B)", NULL, NULL);
    struct expr_binding b[2] = {{"N", 0}, {"B", 128}};
    struct expr_scope s = {b, 2};
    int64_t v;

    CHECK(e != NULL);
    if (!e)
        return;
    for (int64_t n = 0; n < 1000; n += 37) {
        b[0].value = n;
        CHECK_INT_EQ(expr_eval_int(e, &s, &v, NULL), BW_OK);
        CHECK_INT_EQ(v, (n + 127) / 128);
    }
    expr_free(e);
    expr_free(NULL);
}
