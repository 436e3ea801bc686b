/*
 * expr.c - recursive-descent parser and tree evaluator of expr.h's language.
 *
 * A parsed expression is a flat array of nodes (at most BW_MAX_EXPR_NODES)
 * that refer to each other by index; call arguments are chained through
 * `next`. Every node keeps the byte span of its source text and the column of
 * its operator, so evaluation errors can quote the sub-expression that failed.
 * Recursion is bounded: the parser counts parentheses, calls and unary minus
 * against BW_MAX_EXPR_DEPTH, and the evaluator's depth is bounded by the node
 * count.
 */
#include "expr.h"

#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "buf.h"
#include "error.h"
#include "limits.h"
#include "banned.h"

enum node_kind {
    NODE_INT,       /* integer literal: ival */
    NODE_REAL,      /* real literal: rval */
    NODE_NAME,      /* name: name */
    NODE_NEG,       /* -a */
    NODE_ADD,       /* a + b */
    NODE_SUB,       /* a - b */
    NODE_MUL,       /* a * b */
    NODE_DIV,       /* a / b */
    NODE_MOD,       /* a % b */
    NODE_CDIV,      /* cdiv(a, b): args chained from a */
    NODE_MIN,       /* min(a, ...) */
    NODE_MAX,       /* max(a, ...) */
    NODE_NEXT_POW2, /* next_pow2(a): the least power of two >= a (1 for a <= 1) */
    NODE_LT,        /* a < b: 1 or 0 */
    NODE_LE,        /* a <= b */
    NODE_GT,        /* a > b */
    NODE_GE,        /* a >= b */
    NODE_EQ,        /* a == b */
    NODE_NE,        /* a != b */
    NODE_AND,       /* a && b: b is evaluated only when a is not 0 */
    NODE_OR,        /* a || b: b is evaluated only when a is 0 */
    NODE_NOT,       /* !a */
    NODE_COND,      /* a ? b : c: only the branch taken is evaluated */
};

struct node {
    enum node_kind kind;
    int a, b, c;    /* operands (node indices), -1 if unused; c: NODE_COND's else branch */
    int next;       /* next argument of the enclosing call, -1 at the end */
    int n_args;     /* calls only */
    int start, end; /* byte span [start, end) of this node's text */
    int op;         /* byte offset of the operator or function name */
    bool parens;    /* written in parentheses (so a comparison of it does not chain) */
    int64_t ival;
    double rval;
    char *name; /* owned; NODE_NAME */
};

struct expr {
    char *text; /* owned copy of the source */
    struct node *nodes;
    int n_nodes;
    int root;
    bool is_real;
};

/* ------------------------------------------------------------------------ */
/* Parsing                                                                   */

enum tok_kind {
    TOK_END,
    TOK_INT,
    TOK_REAL,
    TOK_NAME,
    TOK_PUNCT, /* one of + - * / % ( ) , ? : ! < > = & | and the pairs <= >= == != && || */
    TOK_BAD,   /* a character that starts no token */
};

struct parser {
    const char *text;
    int len;
    int pos; /* byte offset of the current token */
    enum tok_kind tok;
    int tok_len;
    int depth;
    struct expr *e;
    bool failed;
    int err_pos;
    char *cause;
};

static bool is_name_start(int c)
{
    return isalpha(c) || c == '_';
}

static bool is_name_char(int c)
{
    return isalnum(c) || c == '_';
}

static __attribute__((format(printf, 3, 4))) void fail_at(struct parser *p, int pos,
                                                          const char *fmt, ...)
{
    struct buf b;
    va_list ap;

    if (p->failed)
        return;
    p->failed = true;
    p->err_pos = pos;
    buf_init(&b, 1024);
    buf_addf(&b, "column %d: ", pos + 1);
    va_start(ap, fmt);
    buf_vaddf(&b, fmt, ap);
    va_end(ap);
    p->cause = buf_detach(&b);
}

/* Describes the current token for "got ..." parts of messages, into out. */
static void describe_token(const struct parser *p, char *out, size_t n)
{
    unsigned char c;

    if (p->tok == TOK_END) {
        snprintf(out, n, "end of expression");
        return;
    }
    if (p->tok == TOK_INT || p->tok == TOK_REAL || p->tok == TOK_NAME) {
        int shown = p->tok_len > 40 ? 40 : p->tok_len;
        snprintf(out, n, "'%.*s%s'", shown, p->text + p->pos, shown < p->tok_len ? "..." : "");
        return;
    }
    c = (unsigned char)p->text[p->pos];
    if (p->tok == TOK_PUNCT)
        snprintf(out, n, "'%.*s'", p->tok_len, p->text + p->pos);
    else if (isprint(c))
        snprintf(out, n, "'%c'", c);
    else
        snprintf(out, n, "byte 0x%02x", c);
}

/* Scans a number at p->pos: digits, then optionally a fraction and/or an
 * exponent (which make it real). Sets tok and tok_len or fails. */
static void scan_number(struct parser *p)
{
    const char *s = p->text + p->pos;
    int i = 0;
    bool real = false;

    while (isdigit((unsigned char)s[i]))
        i++;
    if (s[i] == '.') {
        real = true;
        i++;
        while (isdigit((unsigned char)s[i]))
            i++;
    }
    if (i == 1 && s[0] == '.') {
        fail_at(p, p->pos, "malformed number '.' (expected digits around the point)");
        return;
    }
    if (s[i] == 'e' || s[i] == 'E') {
        int j = i + 1;
        if (s[j] == '+' || s[j] == '-')
            j++;
        if (!isdigit((unsigned char)s[j])) {
            fail_at(p, p->pos + j, "malformed number '%.*s' (expected digits in the exponent)", j,
                    s);
            return;
        }
        while (isdigit((unsigned char)s[j]))
            j++;
        i = j;
        real = true;
    }
    if (is_name_char((unsigned char)s[i]) || s[i] == '.') {
        int j = i;
        while (is_name_char((unsigned char)s[j]) || s[j] == '.')
            j++;
        fail_at(p, p->pos, "malformed number '%.*s'", j > 40 ? 40 : j, s);
        return;
    }
    p->tok = real ? TOK_REAL : TOK_INT;
    p->tok_len = i;
}

/* Moves to the next token, skipping whitespace. */
static void advance(struct parser *p)
{
    const char *s;
    unsigned char c;

    p->pos += p->tok_len;
    p->tok_len = 0;
    while (p->pos < p->len && isspace((unsigned char)p->text[p->pos]))
        p->pos++;
    if (p->pos >= p->len) {
        p->tok = TOK_END;
        return;
    }
    s = p->text + p->pos;
    c = (unsigned char)s[0];
    if (isdigit(c) || (c == '.' && isdigit((unsigned char)s[1]))) {
        scan_number(p);
    } else if (c == '.') {
        fail_at(p, p->pos, "malformed number '.' (expected digits around the point)");
        p->tok = TOK_BAD;
        p->tok_len = 1;
    } else if (is_name_start(c)) {
        int i = 1;
        while (is_name_char((unsigned char)s[i]))
            i++;
        p->tok = TOK_NAME;
        p->tok_len = i;
    } else if (strchr("+-*/%(),?:", c)) {
        p->tok = TOK_PUNCT;
        p->tok_len = 1;
    } else if (c == '<' || c == '>' || c == '!') {
        p->tok = TOK_PUNCT;
        p->tok_len = s[1] == '=' ? 2 : 1;
    } else if (c == '=' || c == '&' || c == '|') { /* alone, not operators: see wrong_operator */
        p->tok = TOK_PUNCT;
        p->tok_len = s[1] == c ? 2 : 1;
    } else {
        p->tok = TOK_BAD;
        p->tok_len = 1;
    }
    if (p->failed) {
        p->tok = TOK_BAD;
        if (p->tok_len == 0)
            p->tok_len = 1;
    }
}

/* The one-byte operator or punctuation c. */
static bool at_punct(const struct parser *p, char c)
{
    return p->tok == TOK_PUNCT && p->tok_len == 1 && p->text[p->pos] == c;
}

/* The two-byte operator op ("<=", "&&", ...). */
static bool at_op2(const struct parser *p, const char *op)
{
    return p->tok == TOK_PUNCT && p->tok_len == 2 && p->text[p->pos] == op[0] &&
           p->text[p->pos + 1] == op[1];
}

/* Where an operator may follow an operand: '=', '&' or '|' alone are C
 * operators this language lacks; fails saying what was probably meant and
 * returns true. */
static bool wrong_operator(struct parser *p)
{
    char c = p->text[p->pos];

    if (p->failed || p->tok != TOK_PUNCT || p->tok_len != 1)
        return false;
    if (c == '=')
        fail_at(p, p->pos, "'=' is not an operator here (compare with '==')");
    else if (c == '&' || c == '|')
        fail_at(p, p->pos, "'%c' (bitwise) is not an operator here (logical: '%c%c')", c, c, c);
    return p->failed;
}

/* Adds a node; returns its index or -1 (and fails) past BW_MAX_EXPR_NODES. */
static int new_node(struct parser *p, enum node_kind kind, int start, int op)
{
    struct node *n;

    if (p->failed)
        return -1;
    if (p->e->n_nodes >= BW_MAX_EXPR_NODES) {
        fail_at(p, op, "expression has more than %d nodes (BW_MAX_EXPR_NODES)", BW_MAX_EXPR_NODES);
        return -1;
    }
    n = &p->e->nodes[p->e->n_nodes];
    memset(n, 0, sizeof(*n));
    n->kind = kind;
    n->a = n->b = n->c = n->next = -1;
    n->start = start;
    n->end = start;
    n->op = op;
    return p->e->n_nodes++;
}

static int parse_expr(struct parser *p);

static bool enter(struct parser *p)
{
    if (p->depth >= BW_MAX_EXPR_DEPTH) {
        fail_at(p, p->pos, "expression nested deeper than %d levels (BW_MAX_EXPR_DEPTH)",
                BW_MAX_EXPR_DEPTH);
        return false;
    }
    p->depth++;
    return true;
}

/* The end offset of the previous token (the current one's start without the
 * whitespace before it). */
static int prev_end(const struct parser *p)
{
    int i = p->pos;
    while (i > 0 && isspace((unsigned char)p->text[i - 1]))
        i--;
    return i;
}

/* Parses an integer literal token; `negate` folds a preceding unary minus so
 * that -9223372036854775808 is representable. */
static int parse_int_literal(struct parser *p, bool negate, int start)
{
    uint64_t v = 0;
    uint64_t limit = negate ? (uint64_t)INT64_MAX + 1 : (uint64_t)INT64_MAX;
    int i, idx;

    for (i = 0; i < p->tok_len; i++) {
        unsigned d = (unsigned)(p->text[p->pos + i] - '0');
        if (v > (limit - d) / 10) {
            fail_at(p, p->pos, "integer literal '%.*s' is out of range (at most %lld)",
                    p->tok_len > 40 ? 40 : p->tok_len, p->text + p->pos, (long long)INT64_MAX);
            return -1;
        }
        v = v * 10 + d;
    }
    idx = new_node(p, NODE_INT, start, p->pos);
    if (idx < 0)
        return -1;
    if (negate)
        p->e->nodes[idx].ival = v == (uint64_t)INT64_MAX + 1 ? INT64_MIN : -(int64_t)v;
    else
        p->e->nodes[idx].ival = (int64_t)v;
    advance(p);
    p->e->nodes[idx].end = prev_end(p);
    return idx;
}

static int parse_real_literal(struct parser *p)
{
    char tmp[96];
    char *end;
    double v;
    int idx;

    if (p->tok_len >= (int)sizeof(tmp)) {
        fail_at(p, p->pos, "real literal '%.40s...' is too long", p->text + p->pos);
        return -1;
    }
    memcpy(tmp, p->text + p->pos, (size_t)p->tok_len);
    tmp[p->tok_len] = '\0';
    errno = 0;
    v = strtod(tmp, &end);
    if (*end || !isfinite(v) || (errno == ERANGE && fabs(v) > 1.0)) {
        fail_at(p, p->pos, "real literal '%s' is out of range", tmp);
        return -1;
    }
    idx = new_node(p, NODE_REAL, p->pos, p->pos);
    if (idx < 0)
        return -1;
    p->e->nodes[idx].rval = v;
    p->e->is_real = true;
    advance(p);
    p->e->nodes[idx].end = prev_end(p);
    return idx;
}

static const char *const function_list = "cdiv, min, max or next_pow2";

/* NAME '(' expr (',' expr)* ')' with the current token at '('. */
static int parse_call(struct parser *p, int name_pos, int name_len)
{
    const char *name = p->text + name_pos;
    enum node_kind kind;
    int idx, last = -1, open_pos;
    char got[64];

    if (name_len == 4 && memcmp(name, "cdiv", 4) == 0)
        kind = NODE_CDIV;
    else if (name_len == 3 && memcmp(name, "min", 3) == 0)
        kind = NODE_MIN;
    else if (name_len == 3 && memcmp(name, "max", 3) == 0)
        kind = NODE_MAX;
    else if (name_len == 9 && memcmp(name, "next_pow2", 9) == 0)
        kind = NODE_NEXT_POW2;
    else {
        fail_at(p, name_pos, "unknown function '%.*s' (expected %s)", name_len > 40 ? 40 : name_len,
                name, function_list);
        return -1;
    }
    idx = new_node(p, kind, name_pos, name_pos);
    if (idx < 0 || !enter(p))
        return -1;
    open_pos = p->pos;
    advance(p); /* '(' */
    for (;;) {
        int arg = parse_expr(p);
        if (arg < 0)
            return -1;
        if (last < 0)
            p->e->nodes[idx].a = arg;
        else
            p->e->nodes[last].next = arg;
        last = arg;
        p->e->nodes[idx].n_args++;
        if (at_punct(p, ',')) {
            advance(p);
            continue;
        }
        if (at_punct(p, ')'))
            break;
        if (wrong_operator(p))
            return -1;
        describe_token(p, got, sizeof(got));
        fail_at(p, p->pos, "expected ',' or ')' to close %.*s( at column %d, got %s", name_len,
                name, open_pos + 1, got);
        return -1;
    }
    if (kind == NODE_CDIV && p->e->nodes[idx].n_args != 2) {
        fail_at(p, name_pos, "cdiv takes 2 arguments (cdiv(a, b) = ceil(a / b)), got %d",
                p->e->nodes[idx].n_args);
        return -1;
    }
    if (kind == NODE_NEXT_POW2 && p->e->nodes[idx].n_args != 1) {
        fail_at(p, name_pos,
                "next_pow2 takes 1 argument (next_pow2(n) = the least power of two >= n), got %d",
                p->e->nodes[idx].n_args);
        return -1;
    }
    if (kind != NODE_CDIV && kind != NODE_NEXT_POW2 && p->e->nodes[idx].n_args < 2) {
        fail_at(p, name_pos, "%.*s takes at least 2 arguments, got 1", name_len, name);
        return -1;
    }
    p->depth--;
    advance(p); /* ')' */
    p->e->nodes[idx].end = prev_end(p);
    return idx;
}

static int parse_unary(struct parser *p);

static int parse_primary(struct parser *p)
{
    char got[64];
    int start = p->pos;

    if (p->failed)
        return -1;
    if (p->tok == TOK_INT)
        return parse_int_literal(p, false, start);
    if (p->tok == TOK_REAL)
        return parse_real_literal(p);
    if (p->tok == TOK_NAME) {
        int name_pos = p->pos, name_len = p->tok_len, idx;
        if (name_len > BW_MAX_NAME) {
            fail_at(p, name_pos, "name '%.40s...' is longer than %d bytes (BW_MAX_NAME)",
                    p->text + name_pos, BW_MAX_NAME);
            return -1;
        }
        advance(p);
        if (at_punct(p, '('))
            return parse_call(p, name_pos, name_len);
        idx = new_node(p, NODE_NAME, name_pos, name_pos);
        if (idx < 0)
            return -1;
        p->e->nodes[idx].end = name_pos + name_len;
        p->e->nodes[idx].name = strndup(p->text + name_pos, (size_t)name_len);
        if (!p->e->nodes[idx].name) {
            fail_at(p, name_pos, "out of memory");
            return -1;
        }
        return idx;
    }
    if (at_punct(p, '(')) {
        int open_pos = p->pos, inner;
        if (!enter(p))
            return -1;
        advance(p);
        inner = parse_expr(p);
        if (inner < 0)
            return -1;
        if (!at_punct(p, ')')) {
            if (wrong_operator(p))
                return -1;
            describe_token(p, got, sizeof(got));
            fail_at(p, p->pos, "expected ')' to close '(' at column %d, got %s", open_pos + 1, got);
            return -1;
        }
        p->depth--;
        advance(p);
        /* The parenthesised node's span grows to include the parentheses. */
        p->e->nodes[inner].start = open_pos;
        p->e->nodes[inner].end = prev_end(p);
        p->e->nodes[inner].parens = true;
        return inner;
    }
    describe_token(p, got, sizeof(got));
    fail_at(p, p->pos, "expected a number, a name or '(', got %s", got);
    return -1;
}

static int parse_unary(struct parser *p)
{
    int start = p->pos, idx, operand;
    bool is_not = at_punct(p, '!');

    if (!at_punct(p, '-') && !is_not)
        return parse_primary(p);
    if (!enter(p))
        return -1;
    advance(p);
    if (!is_not && p->tok == TOK_INT) {
        idx = parse_int_literal(p, true, start);
        p->depth--;
        return idx;
    }
    operand = parse_unary(p);
    if (operand < 0)
        return -1;
    p->depth--;
    idx = new_node(p, is_not ? NODE_NOT : NODE_NEG, start, start);
    if (idx < 0)
        return -1;
    p->e->nodes[idx].a = operand;
    p->e->nodes[idx].end = p->e->nodes[operand].end;
    return idx;
}

static int binary(struct parser *p, enum node_kind kind, int lhs, int op, int rhs)
{
    int idx;

    if (rhs < 0)
        return -1;
    idx = new_node(p, kind, p->e->nodes[lhs].start, op);
    if (idx < 0)
        return -1;
    p->e->nodes[idx].a = lhs;
    p->e->nodes[idx].b = rhs;
    p->e->nodes[idx].end = p->e->nodes[rhs].end;
    return idx;
}

static int parse_term(struct parser *p)
{
    int lhs = parse_unary(p);

    while (lhs >= 0 && (at_punct(p, '*') || at_punct(p, '/') || at_punct(p, '%'))) {
        char c = p->text[p->pos];
        int op = p->pos;
        advance(p);
        lhs = binary(p,
                     c == '*'   ? NODE_MUL
                     : c == '/' ? NODE_DIV
                                : NODE_MOD,
                     lhs, op, parse_unary(p));
    }
    return lhs;
}

static int parse_additive(struct parser *p)
{
    int lhs = parse_term(p);

    while (lhs >= 0 && (at_punct(p, '+') || at_punct(p, '-'))) {
        char c = p->text[p->pos];
        int op = p->pos;
        advance(p);
        lhs = binary(p, c == '+' ? NODE_ADD : NODE_SUB, lhs, op, parse_term(p));
    }
    return lhs;
}

static bool is_relational(enum node_kind k)
{
    return k == NODE_LT || k == NODE_LE || k == NODE_GT || k == NODE_GE;
}

static bool is_equality(enum node_kind k)
{
    return k == NODE_EQ || k == NODE_NE;
}

/* a < b < c is C's (a < b) < c, a 0 or 1 compared with c, and never what a
 * launch means: refused unless the first comparison is in parentheses. */
static bool chained(struct parser *p, int lhs, bool (*same_level)(enum node_kind), int op)
{
    const struct node *n = &p->e->nodes[lhs];

    char quoted[48];
    int len = n->end - n->start > 40 ? 40 : n->end - n->start;

    if (!same_level(n->kind) || n->parens)
        return false;
    /* quoted on one line: line breaks and other control bytes become blanks */
    for (int i = 0; i < len; i++) {
        unsigned char c = (unsigned char)p->text[n->start + i];
        quoted[i] = c < 0x20 || c == 0x7f ? ' ' : (char)c;
    }
    quoted[len] = '\0';
    fail_at(p, op,
            "comparisons do not chain: '%s%s' is 0 or 1 here (write a < b && b < c, or put the "
            "first comparison in parentheses)",
            quoted, n->end - n->start > 40 ? "..." : "");
    return true;
}

static int parse_relational(struct parser *p)
{
    int lhs = parse_additive(p);

    while (lhs >= 0 &&
           (at_punct(p, '<') || at_punct(p, '>') || at_op2(p, "<=") || at_op2(p, ">="))) {
        enum node_kind k = p->text[p->pos] == '<' ? (p->tok_len == 2 ? NODE_LE : NODE_LT)
                                                  : (p->tok_len == 2 ? NODE_GE : NODE_GT);
        int op = p->pos;
        if (chained(p, lhs, is_relational, op))
            return -1;
        advance(p);
        lhs = binary(p, k, lhs, op, parse_additive(p));
    }
    return lhs;
}

static int parse_equality(struct parser *p)
{
    int lhs = parse_relational(p);

    while (lhs >= 0 && (at_op2(p, "==") || at_op2(p, "!="))) {
        enum node_kind k = p->text[p->pos] == '=' ? NODE_EQ : NODE_NE;
        int op = p->pos;
        if (chained(p, lhs, is_equality, op))
            return -1;
        advance(p);
        lhs = binary(p, k, lhs, op, parse_relational(p));
    }
    return lhs;
}

static int parse_and(struct parser *p)
{
    int lhs = parse_equality(p);

    while (lhs >= 0 && at_op2(p, "&&")) {
        int op = p->pos;
        advance(p);
        lhs = binary(p, NODE_AND, lhs, op, parse_equality(p));
    }
    return lhs;
}

static int parse_or(struct parser *p)
{
    int lhs = parse_and(p);

    while (lhs >= 0 && at_op2(p, "||")) {
        int op = p->pos;
        advance(p);
        lhs = binary(p, NODE_OR, lhs, op, parse_and(p));
    }
    return lhs;
}

/* or ('?' expr ':' cond)?, right-associative as in C: a ? b : c ? d : e is
 * a ? b : (c ? d : e). Each '?' counts as a level of nesting. */
static int parse_expr(struct parser *p)
{
    int cond = parse_or(p), q, then, other, idx;
    char got[64];

    if (cond < 0 || !at_punct(p, '?'))
        return cond;
    q = p->pos;
    if (!enter(p))
        return -1;
    advance(p);
    then = parse_expr(p);
    if (then < 0)
        return -1;
    if (!at_punct(p, ':')) {
        if (wrong_operator(p))
            return -1;
        describe_token(p, got, sizeof(got));
        fail_at(p, p->pos, "expected ':' for the '?' at column %d, got %s", q + 1, got);
        return -1;
    }
    advance(p);
    other = parse_expr(p);
    if (other < 0)
        return -1;
    p->depth--;
    idx = new_node(p, NODE_COND, p->e->nodes[cond].start, q);
    if (idx < 0)
        return -1;
    p->e->nodes[idx].a = cond;
    p->e->nodes[idx].b = then;
    p->e->nodes[idx].c = other;
    p->e->nodes[idx].end = p->e->nodes[other].end;
    return idx;
}

void expr_free(struct expr *e)
{
    int i;

    if (!e)
        return;
    for (i = 0; i < e->n_nodes; i++)
        free(e->nodes[i].name);
    free(e->nodes);
    free(e->text);
    free(e);
}

struct expr *expr_parse(const char *text, int *err_col, char **cause)
{
    struct parser p = {0};
    struct expr *e;
    size_t len = text ? strlen(text) : 0;
    char got[64];

    if (!text) {
        if (err_col)
            *err_col = 1;
        bw_fail(cause, BW_ERR_INVALID, "column 1: expected an expression, got nothing");
        return NULL;
    }
    if (len > BW_MAX_EXPR_BYTES) {
        if (err_col)
            *err_col = BW_MAX_EXPR_BYTES + 1;
        bw_fail(cause, BW_ERR_LIMIT,
                "column %d: expression is longer than %d bytes (BW_MAX_EXPR_BYTES)",
                BW_MAX_EXPR_BYTES + 1, BW_MAX_EXPR_BYTES);
        return NULL;
    }
    e = calloc(1, sizeof(*e));
    if (!e)
        goto nomem;
    e->text = strdup(text);
    e->nodes = calloc(BW_MAX_EXPR_NODES, sizeof(*e->nodes));
    if (!e->text || !e->nodes)
        goto free_e;

    p.text = e->text;
    p.len = (int)len;
    p.e = e;
    advance(&p);
    e->root = parse_expr(&p);
    if (!p.failed && p.tok != TOK_END && !wrong_operator(&p)) {
        describe_token(&p, got, sizeof(got));
        if (at_punct(&p, ')'))
            fail_at(&p, p.pos, "unmatched ')'");
        else
            fail_at(&p, p.pos,
                    "expected an operator (+ - * / %%, a comparison, && || or ?:) or the end, got "
                    "%s",
                    got);
    }
    if (p.failed) {
        if (err_col)
            *err_col = p.err_pos + 1;
        if (cause) {
            free(*cause);
            *cause = p.cause;
        } else {
            free(p.cause);
        }
        expr_free(e);
        return NULL;
    }
    return e;

free_e:
    expr_free(e);
nomem:
    if (err_col)
        *err_col = 1;
    bw_fail(cause, BW_ERR_NOMEM, "column 1: out of memory parsing an expression");
    return NULL;
}

const char *expr_text(const struct expr *e)
{
    return e->text;
}

bool expr_is_real(const struct expr *e)
{
    return e->is_real;
}

void expr_each_name_at(const struct expr *e, void (*fn)(const char *name, int column, void *arg),
                       void *arg)
{
    int i, j;

    /* Nodes are made in source order of their first byte, names included. */
    for (i = 0; i < e->n_nodes; i++) {
        bool seen = false;
        if (e->nodes[i].kind != NODE_NAME)
            continue;
        for (j = 0; j < i && !seen; j++)
            seen = e->nodes[j].kind == NODE_NAME && strcmp(e->nodes[j].name, e->nodes[i].name) == 0;
        if (!seen)
            fn(e->nodes[i].name, e->nodes[i].op + 1, arg);
    }
}

struct each_name {
    void (*fn)(const char *name, void *arg);
    void *arg;
};

static void each_name_only(const char *name, int column, void *arg)
{
    struct each_name *en = arg;
    (void)column;
    en->fn(name, en->arg);
}

void expr_each_name(const struct expr *e, void (*fn)(const char *name, void *arg), void *arg)
{
    struct each_name en = {fn, arg};
    expr_each_name_at(e, each_name_only, &en);
}

/* ------------------------------------------------------------------------ */
/* Evaluation                                                                */

/* Fails with "column C: what in 'SPAN'", quoting the node's source text. */
static __attribute__((format(printf, 4, 5))) int eval_fail(const struct expr *e, int n,
                                                           char **cause, const char *fmt, ...)
{
    const struct node *nd = &e->nodes[n];
    int span = nd->end - nd->start;
    struct buf b;
    va_list ap;

    if (!cause)
        return BW_ERR_INVALID;
    buf_init(&b, 1024);
    buf_addf(&b, "column %d: ", nd->op + 1);
    va_start(ap, fmt);
    buf_vaddf(&b, fmt, ap);
    va_end(ap);
    if (span > 0 && span < (int)strlen(e->text)) {
        /* Quoted on one line: line breaks and other control bytes become blanks. */
        buf_puts(&b, " in '");
        for (int i = 0; i < span && i < 80; i++) {
            unsigned char c = (unsigned char)e->text[nd->start + i];
            buf_putc(&b, c < 0x20 || c == 0x7f ? ' ' : (char)c);
        }
        buf_puts(&b, span > 80 ? "...'" : "'");
    }
    free(*cause);
    *cause = buf_detach(&b);
    return BW_ERR_INVALID;
}

static int lookup(const struct expr *e, int n, const struct expr_scope *scope, int64_t *out,
                  char **cause)
{
    const char *name = e->nodes[n].name;
    struct buf b;
    size_t i;

    for (i = 0; scope && i < scope->n; i++) {
        if (strcmp(scope->vars[i].name, name) == 0) {
            *out = scope->vars[i].value;
            return BW_OK;
        }
    }
    if (!cause)
        return BW_ERR_INVALID;
    buf_init(&b, 1024);
    buf_addf(&b, "column %d: unknown name '%s' ", e->nodes[n].op + 1, name);
    if (!scope || scope->n == 0) {
        buf_puts(&b, "(no names are defined here)");
    } else {
        buf_puts(&b, "(known: ");
        for (i = 0; i < scope->n; i++) {
            if (b.len > 900) {
                buf_puts(&b, ", ...");
                break;
            }
            buf_addf(&b, "%s%s", i ? ", " : "", scope->vars[i].name);
        }
        buf_putc(&b, ')');
    }
    free(*cause);
    *cause = buf_detach(&b);
    return BW_ERR_INVALID;
}

/* Integer arithmetic shared by both evaluators. cdiv and % require a
 * positive divisor for cdiv and a non-zero, non-negative one for %. */
static int int_binop(const struct expr *e, int n, int64_t a, int64_t b, int64_t *out, char **cause)
{
    const struct node *nd = &e->nodes[n];
    bool ok = true;

    switch (nd->kind) {
    case NODE_ADD:
        ok = !__builtin_add_overflow(a, b, out);
        break;
    case NODE_SUB:
        ok = !__builtin_sub_overflow(a, b, out);
        break;
    case NODE_MUL:
        ok = !__builtin_mul_overflow(a, b, out);
        break;
    case NODE_DIV:
        if (b == 0)
            return eval_fail(e, n, cause, "division by zero");
        if (a == INT64_MIN && b == -1)
            ok = false;
        else
            *out = a / b;
        break;
    case NODE_MOD:
        if (b == 0)
            return eval_fail(e, n, cause, "modulo by zero");
        if (b < 0)
            return eval_fail(e, n, cause, "modulo by a negative number (%lld)", (long long)b);
        *out = a % b;
        break;
    case NODE_CDIV:
        if (b <= 0)
            return eval_fail(e, n, cause, "cdiv needs a positive divisor, got %lld", (long long)b);
        *out = a / b + (a % b != 0 && a > 0);
        break;
    default:
        return eval_fail(e, n, cause, "internal error: not a binary operator");
    }
    if (!ok)
        return eval_fail(e, n, cause, "integer overflow (%lld %c %lld)", (long long)a,
                         nd->kind == NODE_ADD   ? '+'
                         : nd->kind == NODE_SUB ? '-'
                         : nd->kind == NODE_MUL ? '*'
                                                : '/',
                         (long long)b);
    return BW_OK;
}

/* The least power of two >= a (1 when a <= 1), as triton.next_power_of_2. */
static int next_pow2(const struct expr *e, int n, int64_t a, int64_t *out, char **cause)
{
    int64_t p = 1;

    if (a > ((int64_t)1 << 62))
        return eval_fail(e, n, cause, "integer overflow (next_pow2(%lld))", (long long)a);
    while (p < a)
        p *= 2;
    *out = p;
    return BW_OK;
}

/* A comparison's 1 or 0, from whether a < b and whether a == b. */
static int compare(enum node_kind k, bool lt, bool eq)
{
    switch (k) {
    case NODE_LT:
        return lt;
    case NODE_LE:
        return lt || eq;
    case NODE_GT:
        return !lt && !eq;
    case NODE_GE:
        return !lt;
    case NODE_EQ:
        return eq;
    default:
        return !eq;
    }
}

static int eval_int(const struct expr *e, int n, const struct expr_scope *scope, int64_t *out,
                    char **cause)
{
    const struct node *nd = &e->nodes[n];
    int64_t a, b;
    int rc, arg;

    switch (nd->kind) {
    case NODE_INT:
        *out = nd->ival;
        return BW_OK;
    case NODE_REAL:
        return eval_fail(e, n, cause, "real number '%.*s' where an integer is needed",
                         nd->end - nd->start > 40 ? 40 : nd->end - nd->start, e->text + nd->start);
    case NODE_NAME:
        return lookup(e, n, scope, out, cause);
    case NODE_NEG:
        rc = eval_int(e, nd->a, scope, &a, cause);
        if (rc)
            return rc;
        if (a == INT64_MIN)
            return eval_fail(e, n, cause, "integer overflow (-(%lld))", (long long)a);
        *out = -a;
        return BW_OK;
    case NODE_MIN:
    case NODE_MAX:
        rc = eval_int(e, nd->a, scope, &a, cause);
        for (arg = e->nodes[nd->a].next; !rc && arg >= 0; arg = e->nodes[arg].next) {
            rc = eval_int(e, arg, scope, &b, cause);
            if (!rc && (nd->kind == NODE_MIN ? b < a : b > a))
                a = b;
        }
        if (!rc)
            *out = a;
        return rc;
    case NODE_CDIV:
        rc = eval_int(e, nd->a, scope, &a, cause);
        if (!rc)
            rc = eval_int(e, e->nodes[nd->a].next, scope, &b, cause);
        if (!rc)
            rc = int_binop(e, n, a, b, out, cause);
        return rc;
    case NODE_NEXT_POW2:
        rc = eval_int(e, nd->a, scope, &a, cause);
        if (!rc)
            rc = next_pow2(e, n, a, out, cause);
        return rc;
    case NODE_NOT:
        rc = eval_int(e, nd->a, scope, &a, cause);
        if (!rc)
            *out = a == 0;
        return rc;
    case NODE_AND:
    case NODE_OR:
        rc = eval_int(e, nd->a, scope, &a, cause);
        if (rc)
            return rc;
        if ((a != 0) == (nd->kind == NODE_OR)) { /* decided: the right side is not evaluated */
            *out = a != 0;
            return BW_OK;
        }
        rc = eval_int(e, nd->b, scope, &b, cause);
        if (!rc)
            *out = b != 0;
        return rc;
    case NODE_COND:
        rc = eval_int(e, nd->a, scope, &a, cause);
        if (!rc)
            rc = eval_int(e, a != 0 ? nd->b : nd->c, scope, out, cause);
        return rc;
    case NODE_LT:
    case NODE_LE:
    case NODE_GT:
    case NODE_GE:
    case NODE_EQ:
    case NODE_NE:
        rc = eval_int(e, nd->a, scope, &a, cause);
        if (!rc)
            rc = eval_int(e, nd->b, scope, &b, cause);
        if (!rc)
            *out = compare(nd->kind, a < b, a == b);
        return rc;
    default:
        rc = eval_int(e, nd->a, scope, &a, cause);
        if (!rc)
            rc = eval_int(e, nd->b, scope, &b, cause);
        if (!rc)
            rc = int_binop(e, n, a, b, out, cause);
        return rc;
    }
}

int expr_eval_int(const struct expr *e, const struct expr_scope *scope, int64_t *out, char **cause)
{
    int64_t v;
    int rc;

    /* A real literal makes the whole expression real, even in a branch that
     * &&, || or ?: would not evaluate: the first one is the error. */
    for (int i = 0; e->is_real && i < e->n_nodes; i++)
        if (e->nodes[i].kind == NODE_REAL)
            return eval_int(e, i, scope, &v, cause);
    rc = eval_int(e, e->root, scope, &v, cause);

    if (rc == BW_OK)
        *out = v;
    return rc;
}

/* A double that is an exact integer within int64 range, as an int64. */
static bool integral(double v, int64_t *out)
{
    if (!(v >= -9223372036854775808.0 && v < 9223372036854775808.0) || v != floor(v))
        return false;
    *out = (int64_t)v;
    return true;
}

static int eval_real(const struct expr *e, int n, const struct expr_scope *scope, double *out,
                     char **cause);

static int real_integral_op(const struct expr *e, int n, double x, double y, double *out,
                            char **cause)
{
    int64_t a, b, r;
    int rc;
    const char *what = e->nodes[n].kind == NODE_MOD ? "'%'" : "cdiv";

    if (!integral(x, &a))
        return eval_fail(e, n, cause, "%s needs integer operands, got %g", what, x);
    if (!integral(y, &b))
        return eval_fail(e, n, cause, "%s needs integer operands, got %g", what, y);
    rc = int_binop(e, n, a, b, &r, cause);
    if (!rc)
        *out = (double)r;
    return rc;
}

static int eval_real(const struct expr *e, int n, const struct expr_scope *scope, double *out,
                     char **cause)
{
    const struct node *nd = &e->nodes[n];
    double a, b, r;
    int64_t iv;
    int rc, arg;

    switch (nd->kind) {
    case NODE_INT:
        *out = (double)nd->ival;
        return BW_OK;
    case NODE_REAL:
        *out = nd->rval;
        return BW_OK;
    case NODE_NAME:
        rc = lookup(e, n, scope, &iv, cause);
        if (!rc)
            *out = (double)iv;
        return rc;
    case NODE_NEG:
        rc = eval_real(e, nd->a, scope, &a, cause);
        if (!rc)
            *out = -a;
        return rc;
    case NODE_MIN:
    case NODE_MAX:
        rc = eval_real(e, nd->a, scope, &a, cause);
        for (arg = e->nodes[nd->a].next; !rc && arg >= 0; arg = e->nodes[arg].next) {
            rc = eval_real(e, arg, scope, &b, cause);
            if (!rc && (nd->kind == NODE_MIN ? b < a : b > a))
                a = b;
        }
        if (!rc)
            *out = a;
        return rc;
    case NODE_CDIV:
        rc = eval_real(e, nd->a, scope, &a, cause);
        if (!rc)
            rc = eval_real(e, e->nodes[nd->a].next, scope, &b, cause);
        if (!rc)
            rc = real_integral_op(e, n, a, b, out, cause);
        return rc;
    case NODE_NEXT_POW2: {
        int64_t p = 0;
        rc = eval_real(e, nd->a, scope, &a, cause);
        if (!rc && !integral(a, &iv))
            return eval_fail(e, n, cause, "next_pow2 needs an integer operand, got %g", a);
        if (!rc)
            rc = next_pow2(e, n, iv, &p, cause);
        if (!rc)
            *out = (double)p;
        return rc;
    }
    case NODE_NOT:
        rc = eval_real(e, nd->a, scope, &a, cause);
        if (!rc)
            *out = a == 0.0;
        return rc;
    case NODE_AND:
    case NODE_OR:
        rc = eval_real(e, nd->a, scope, &a, cause);
        if (rc)
            return rc;
        if ((a != 0.0) == (nd->kind == NODE_OR)) {
            *out = a != 0.0;
            return BW_OK;
        }
        rc = eval_real(e, nd->b, scope, &b, cause);
        if (!rc)
            *out = b != 0.0;
        return rc;
    case NODE_COND:
        rc = eval_real(e, nd->a, scope, &a, cause);
        if (!rc)
            rc = eval_real(e, a != 0.0 ? nd->b : nd->c, scope, out, cause);
        return rc;
    case NODE_LT:
    case NODE_LE:
    case NODE_GT:
    case NODE_GE:
    case NODE_EQ:
    case NODE_NE:
        rc = eval_real(e, nd->a, scope, &a, cause);
        if (!rc)
            rc = eval_real(e, nd->b, scope, &b, cause);
        if (!rc)
            *out = compare(nd->kind, a < b, a == b);
        return rc;
    default:
        break;
    }
    rc = eval_real(e, nd->a, scope, &a, cause);
    if (!rc)
        rc = eval_real(e, nd->b, scope, &b, cause);
    if (rc)
        return rc;
    switch (nd->kind) {
    case NODE_ADD:
        r = a + b;
        break;
    case NODE_SUB:
        r = a - b;
        break;
    case NODE_MUL:
        r = a * b;
        break;
    case NODE_DIV:
        if (b == 0.0)
            return eval_fail(e, n, cause, "division by zero");
        r = a / b;
        break;
    case NODE_MOD:
        return real_integral_op(e, n, a, b, out, cause);
    default:
        return eval_fail(e, n, cause, "internal error: not a binary operator");
    }
    if (!isfinite(r))
        return eval_fail(e, n, cause, "overflow (%g %c %g)", a,
                         nd->kind == NODE_ADD   ? '+'
                         : nd->kind == NODE_SUB ? '-'
                         : nd->kind == NODE_MUL ? '*'
                                                : '/',
                         b);
    *out = r;
    return BW_OK;
}

int expr_eval_real(const struct expr *e, const struct expr_scope *scope, double *out, char **cause)
{
    double v;
    int rc = eval_real(e, e->root, scope, &v, cause);

    if (rc == BW_OK)
        *out = v;
    return rc;
}

int expr_calc_int(const char *text, const struct expr_scope *scope, int64_t *out, char **cause)
{
    struct expr *e = expr_parse(text, NULL, cause);
    int rc;

    if (!e)
        return BW_ERR_INVALID;
    rc = expr_eval_int(e, scope, out, cause);
    expr_free(e);
    return rc;
}
