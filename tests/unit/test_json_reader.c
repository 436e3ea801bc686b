/*
 * Tests of the one JSON field reader (common/json_reader.c): each typed read,
 * the first failure kept, the path and key of a failure, the did-you-mean of
 * unknown keys, and the three shapes a caller turns a failure into.
 */
#include "tests/test.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "common/error.h"
#include "common/json_reader.h"
#include "common/banned.h"

static json_t *parse(const char *text)
{
    json_t *j = json_loads(text, JSON_REJECT_DUPLICATES | JSON_ALLOW_NUL, NULL);
    CHECK_MSG(j != NULL, "cannot parse %s", text);
    return j;
}

TEST(json_reader_typed_reads)
{
    json_t *j = parse("{\"s\":\"abc\",\"b\":true,\"i\":7,\"x\":2.5,\"a\":[1,2],\"o\":{}}");
    struct json_reader r;
    const char *s = NULL;
    bool b = false;
    int64_t i = 0;
    double x = 0;
    json_t *v;

    json_reader_init(&r, 0);
    CHECK_INT_EQ(json_reader_get_string(&r, "", j, "s", true, 1, 3, NULL, &s), BW_OK);
    CHECK_STR_EQ(s, "abc");
    CHECK_INT_EQ(json_reader_get_bool(&r, "", j, "b", true, &b), BW_OK);
    CHECK(b);
    CHECK_INT_EQ(json_reader_get_int(&r, "", j, "i", true, 0, 7, &i), BW_OK);
    CHECK_INT_EQ(i, 7);
    CHECK_INT_EQ(json_reader_get_number(&r, "", j, "x", true, 0, 3, &x), BW_OK);
    CHECK(x == 2.5);
    CHECK_INT_EQ(json_reader_get_number(&r, "", j, "i", true, -HUGE_VAL, HUGE_VAL, &x), BW_OK);
    CHECK(x == 7); /* an integer is a number */
    CHECK_INT_EQ(json_reader_get(&r, "", j, "a", true, &v), BW_OK);
    CHECK_INT_EQ(json_reader_array(&r, "a", v, 2, 2, "TWO"), BW_OK);
    CHECK_INT_EQ(json_reader_get(&r, "", j, "o", true, &v), BW_OK);
    CHECK_INT_EQ(json_reader_object(&r, "o", v), BW_OK);
    CHECK_INT_EQ(json_reader_get(&r, "", j, "none", false, &v), BW_OK);
    CHECK(v == NULL);
    CHECK_INT_EQ(json_reader_string(&r, "none", v, 1, 2, NULL, &s), BW_OK); /* absent: nothing */
    CHECK_STR_EQ(s, "abc");
    CHECK(!json_reader_failed(&r));
    json_decref(j);
}

/* One document, one bad field each: the code, where the message is said, the
 * field at fault and the message. */
TEST(json_reader_failures_name_the_field)
{
    static const struct {
        const char *doc;
        int code;
        const char *field, *text;
    } cases[] = {
        {"{}", BW_ERR_INVALID, "t.s", "t: missing field \"s\""},
        {"{\"s\":1}", BW_ERR_INVALID, "t.s", "t.s: expected a string, got 1"},
        {"{\"s\":\"\"}", BW_ERR_INVALID, "t.s", "t.s: empty"},
        {"{\"s\":\"abcdef\"}", BW_ERR_INVALID, "t.s", "t.s: 6 bytes, more than 4"},
        {"{\"s\":\"a\\u0000b\"}", BW_ERR_INVALID, "t.s", "t.s: contains a NUL character"},
        {"{\"s\":\"ab\",\"i\":2.0}", BW_ERR_INVALID, "t.i", "t.i: expected an integer, got 2"},
        {"{\"s\":\"ab\",\"i\":9}", BW_ERR_INVALID, "t.i",
         "t.i: 9 is out of range (expected an integer in 1..8)"},
        {"{\"s\":\"ab\",\"a\":[1,2,3]}", BW_ERR_LIMIT, "t.a",
         "t.a: 3 elements, over the limit of 2 (BW_TWO)"},
        {"{\"s\":\"ab\",\"a\":[]}", BW_ERR_INVALID, "t.a",
         "t.a: expected at least 1 element, got 0"},
        {"{\"s\":\"ab\",\"x\":\"1\"}", BW_ERR_INVALID, "t.x", "t.x: expected a number, got \"1\""},
        {"{\"s\":\"ab\",\"x\":-1}", BW_ERR_INVALID, "t.x",
         "t.x: -1 is out of range (expected >= 0)"},
        {"{\"s\":\"ab\",\"b\":null}", BW_ERR_INVALID, "t.b",
         "t.b: expected true or false, got null"},
        {"{\"s\":\"ab\",\"tolerence\":1}", BW_ERR_INVALID, "t.tolerence",
         "t: unknown field \"tolerence\" (did you mean \"tolerance\"?)"},
        {"{\"s\":\"ab\",\"zzzzz\":1}", BW_ERR_INVALID, "t.zzzzz",
         "t: unknown field \"zzzzz\" (expected s, i, a, x, b, tolerance)"},
    };
    static const char *const keys[] = {"s", "i", "a", "x", "b", "tolerance", NULL};

    for (size_t k = 0; k < sizeof(cases) / sizeof(cases[0]); k++) {
        json_t *j = parse(cases[k].doc), *a;
        struct json_reader r;
        const char *s = NULL;
        int64_t i = 0;
        double x = 0;
        bool b = false;
        char field[JSON_PATH_BYTES], text[JSON_PATH_BYTES + JSON_MESSAGE_BYTES];

        json_reader_init(&r, 0);
        json_reader_only_keys(&r, "t", j, keys);
        json_reader_get_string(&r, "t", j, "s", true, 1, 4, NULL, &s);
        json_reader_get_int(&r, "t", j, "i", false, 1, 8, &i);
        json_reader_get(&r, "t", j, "a", false, &a);
        json_reader_array(&r, "t.a", a, 1, 2, "BW_TWO");
        json_reader_get_number(&r, "t", j, "x", false, 0, HUGE_VAL, &x);
        json_reader_get_bool(&r, "t", j, "b", false, &b);
        CHECK_INT_EQ(r.code, cases[k].code);
        json_reader_field(&r, field, sizeof(field));
        json_reader_text(&r, text, sizeof(text));
        CHECK_STR_EQ(field, cases[k].field);
        CHECK_STR_EQ(text, cases[k].text);
        json_decref(j);
    }
}

TEST(json_reader_keeps_the_first_failure)
{
    json_t *j = parse("{\"a\":\"x\",\"b\":\"y\"}");
    struct json_reader r;
    int64_t i = 5;
    char *cause = NULL;

    json_reader_init(&r, 0);
    CHECK_INT_EQ(json_reader_get_int(&r, "", j, "a", true, 0, 1, &i), BW_ERR_INVALID);
    CHECK_INT_EQ(json_reader_fail(&r, BW_ERR_LIMIT, "c", "later"), BW_ERR_INVALID);
    CHECK_INT_EQ(json_reader_get_int(&r, "", j, "b", true, 0, 1, &i), BW_ERR_INVALID);
    CHECK_INT_EQ(i, 5); /* nothing read after a failure */
    CHECK_INT_EQ(json_reader_cause(&r, &cause), BW_ERR_INVALID);
    CHECK_STR_EQ(cause, "a: expected an integer, got \"x\"");
    free(cause);
    json_decref(j);
}

TEST(json_reader_null_is_absent_when_asked)
{
    json_t *j = parse("{\"a\":null}"), *v;
    struct json_reader r;
    const char *s = "kept";
    char field[64];

    json_reader_init(&r, JSON_READER_NULL_IS_ABSENT);
    CHECK_INT_EQ(json_reader_get_string(&r, "", j, "a", false, 0, 9, NULL, &s), BW_OK);
    CHECK_STR_EQ(s, "kept");
    CHECK_INT_EQ(json_reader_get(&r, "", j, "a", true, &v), BW_ERR_INVALID);
    json_reader_field(&r, field, sizeof(field));
    CHECK_STR_EQ(field, "a");
    CHECK_STR_EQ(r.message, "missing field \"a\"");
    json_reader_init(&r, 0);
    CHECK_INT_EQ(json_reader_get(&r, "", j, "a", true, &v), BW_OK);
    CHECK(json_is_null(v));
    json_decref(j);
}

TEST(json_reader_messages_show_values_safely)
{
    json_t *j = parse("{\"k\\u0001\\\"\":1}");
    static const char *const none[] = {NULL};
    static const char *const names[] = {"a", NULL, "b"};
    struct json_reader r;
    char longer[300];

    json_reader_init(&r, 0);
    CHECK_INT_EQ(json_reader_only_keys(&r, "", j, none), BW_ERR_INVALID);
    CHECK_STR_EQ(r.message, "unknown field \"k\\x01\\\"\" (expected no fields)");
    memset(longer, 'x', sizeof(longer) - 1);
    longer[sizeof(longer) - 1] = '\0';
    CHECK(strlen(json_quote(longer).s) < JSON_SHOW_BYTES);
    CHECK_CONTAINS(json_quote(longer).s, "...\"");
    CHECK_STR_EQ(json_join(names, 3).s, "a, b");
    CHECK_STR_EQ(json_path_at("tests", "[%d]", 3).s, "tests[3]");
    CHECK_STR_EQ(json_path_key("", "id").s, "id");
    CHECK_STR_EQ(json_path_key("tests[3]", "sizes").s, "tests[3].sizes");
    json_decref(j);
}
