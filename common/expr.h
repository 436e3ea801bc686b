/*
 * expr.h - the small expression language of launch plans and problem formulas.
 *
 * Grammar (whitespace is free between tokens), C's operators and precedence,
 * loosest first:
 *   expr     := or ('?' expr ':' expr)?          right-associative
 *   or       := and ('||' and)*
 *   and      := equality ('&&' equality)*
 *   equality := relation (('==' | '!=') relation)?
 *   relation := additive (('<' | '<=' | '>' | '>=') additive)?
 *   additive := term (('+' | '-') term)*
 *   term     := unary (('*' | '/' | '%') unary)*
 *   unary    := '-' unary | '!' unary | primary
 *   primary  := NUMBER | NAME | NAME '(' expr (',' expr)* ')' | '(' expr ')'
 *   NUMBER   := decimal integer, or (only in real-valued formulas) a decimal
 *               with fraction and/or exponent, e.g. 1e-6, 2.5
 *   calls    := cdiv(a, b) = ceil(a / b) for b > 0; min(a, b, ...); max(a, b, ...)
 *               (min and max take at least 2 arguments); next_pow2(a), the least
 *               power of two >= a (1 for a <= 1), as triton.next_power_of_2
 *   NAME     := [A-Za-z_][A-Za-z0-9_]*, at most BW_MAX_NAME bytes; cdiv, min,
 *               max and next_pow2 are names too when no '(' follows
 *
 * Integer literals go up to INT64_MAX (and -9223372036854775808 with its
 * sign). '/' truncates toward zero and '%' takes the sign of the dividend
 * (C semantics); '%' by zero or by a negative number is an error, as is cdiv
 * by a divisor <= 0.
 *
 * Comparisons, '!', '&&' and '||' give 1 or 0 (any value but 0 is true).
 * '&&', '||' and '?:' are lazy as in C: the operand a case does not need is
 * not evaluated, so `N > 0 ? K / N : 0` and `N > 0 && K / N > 4` cannot fail
 * for N = 0. Unlike C, comparisons do not chain: `a < b < c` (C's (a < b) <
 * c) is a parse error unless the first comparison is in parentheses; '=',
 * '&' and '|' alone are errors that say what was probably meant.
 *
 * An expression is parsed once into a struct expr (owned, immutable) and then
 * evaluated many times against a scope of named integer values. Two ways to
 * evaluate:
 *   - expr_eval_int: int64 arithmetic; '/' truncates; a real literal, a
 *     division or modulo by zero, an overflow, or an unknown name is an error.
 *     Used for shapes, grid/block/smem, scratch sizes and @const values.
 *   - expr_eval_real: double arithmetic ('/' is real division; '%' and cdiv
 *     stay integral and require integral operands). Used for bytes and FLOPs
 *     formulas and tolerances.
 * Errors name the position (1-based column within the expression text) and
 * what was expected or what went wrong.
 */
#ifndef BW_EXPR_H
#define BW_EXPR_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct expr; /* opaque: a parsed expression */

/* One named integer visible to expressions (a size, an @const, a @tune value). */
struct expr_binding {
    const char *name; /* borrowed */
    int64_t value;
};

/* A scope is a plain array of bindings; later entries do not shadow earlier
 * ones: callers keep names unique (the directive and problem loaders do). */
struct expr_scope {
    const struct expr_binding *vars; /* borrowed */
    size_t n;
};

/*
 * Parses `text` (at most BW_MAX_EXPR_BYTES, depth BW_MAX_EXPR_DEPTH, nodes
 * BW_MAX_EXPR_NODES). Returns a *new* expression, or NULL with *cause set to
 * "column C: expected ..." and, if err_col is not NULL, *err_col set to the
 * 1-based column of the error. Every parse and evaluation message starts with
 * "column C: " (C is also *err_col), so a caller that embeds the expression
 * in a larger text may replace that prefix with its own position.
 */
struct expr *expr_parse(const char *text, int *err_col, char **cause);
void expr_free(struct expr *e);

/* The original text (borrowed from the expression). */
const char *expr_text(const struct expr *e);

/* True if the expression contains a real literal (so only eval_real applies). */
bool expr_is_real(const struct expr *e);

/* Calls fn for each distinct name the expression uses (for validation), in
 * the order of their first use; names in a branch that a case would not take
 * count too. expr_each_name_at also gives the 1-based column of that first
 * use in the expression's text. */
void expr_each_name(const struct expr *e, void (*fn)(const char *name, void *arg), void *arg);
void expr_each_name_at(const struct expr *e, void (*fn)(const char *name, int column, void *arg),
                       void *arg);

/* Evaluates; 0 and *out on success, BW_ERR_INVALID with *cause otherwise
 * (unknown name, division by zero, overflow, cdiv/ % of a negative divisor),
 * e.g. "column 7: division by zero in 'n / (k - 4)'". eval_real also fails on
 * a non-finite result rather than returning inf. */
int expr_eval_int(const struct expr *e, const struct expr_scope *scope, int64_t *out, char **cause);
int expr_eval_real(const struct expr *e, const struct expr_scope *scope, double *out, char **cause);

/* Parse and evaluate in one step (convenience for one-off values). */
int expr_calc_int(const char *text, const struct expr_scope *scope, int64_t *out, char **cause);

#endif
