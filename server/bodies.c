#include "bodies.h"

#include <stdio.h>
#include <string.h>
#include <strings.h>

#include "common/error.h"
#include "common/json_reader.h"
#include "common/limits.h"
#include "common/banned.h"

#define SMALL_DEPTH          4           /* bodies of users are flat objects */
#define RESULT_MESSAGE_BYTES (64 * 1024) /* a result's "message" */

bool body_problem_id_ok(const char *s)
{
    size_t n = 0;
    for (; s[n]; n++) {
        char c = s[n];
        if (!((c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '-'))
            return false;
    }
    return n >= 1 && n <= 64;
}

/*
 * Parses the body, opens *r on it (null reads as absent, as clients send it)
 * and refuses unknown keys into *r. When the body is no JSON object, *e says
 * why and *r is failed too, so that the reads after it do nothing.
 */
static json_t *open_body(const char *data, size_t len, int depth, const char *const *keys,
                         struct json_reader *r, struct api_error *e)
{
    json_t *j = api_parse_object(data, len, depth, e);

    json_reader_init(r, JSON_READER_NULL_IS_ABSENT);
    if (!j)
        json_reader_fail(r, BW_ERR_INVALID, "", "%s", e->message);
    json_reader_only_keys(r, "", j, keys);
    return j;
}

/* The document j, or NULL with *e when reading it failed (j is released). */
static json_t *finish(json_t *j, const struct json_reader *r, struct api_error *e)
{
    if (!j)
        return NULL; /* *e is api_parse_object's */
    if (!json_reader_failed(r))
        return j;
    api_fail_reader(e, r);
    json_decref(j);
    return NULL;
}

json_t *body_parse_credentials(const char *data, size_t len, struct body_credentials *out,
                               struct api_error *e)
{
    static const char *const keys[] = {"name", "password", NULL};
    struct json_reader r;

    memset(out, 0, sizeof(*out));
    json_t *j = open_body(data, len, SMALL_DEPTH, keys, &r, e);
    json_reader_get_string(&r, "", j, "name", true, 1, BW_MAX_USERNAME, NULL, &out->name);
    json_reader_get_string(&r, "", j, "password", true, 1, BW_MAX_PASSWORD, NULL, &out->password);
    return finish(j, &r, e);
}

static int read_submission(struct json_reader *r, json_t *j, struct body_submission *out)
{
    const char *mode = NULL, *language = NULL;
    int lines = 1;

    if (json_reader_get_string(r, "", j, "problem", true, 1, 64, NULL, &out->problem) ||
        json_reader_get_string(r, "", j, "source", true, 1, BW_MAX_SOURCE_BYTES,
                               "BW_MAX_SOURCE_BYTES", &out->source) ||
        json_reader_get_string(r, "", j, "mode", true, 1, 16, NULL, &mode) ||
        json_reader_get_string(r, "", j, "language", false, 1, 32, NULL, &language))
        return r->code;
    out->language = LANG_CUDA;
    if (language && !language_from_name(language, &out->language))
        return json_reader_fail(r, BW_ERR_INVALID, "language", "%s is not \"cuda\" or \"triton\"",
                                json_quote(language).s);
    if (!body_problem_id_ok(out->problem))
        return json_reader_fail(r, BW_ERR_INVALID, "problem", "%s is not a problem id",
                                json_quote(out->problem).s);
    if (strcmp(mode, "run") == 0)
        out->submit = false;
    else if (strcmp(mode, "submit") == 0)
        out->submit = true;
    else
        return json_reader_fail(r, BW_ERR_INVALID, "mode", "%s is not \"run\" or \"submit\"",
                                json_quote(mode).s);
    out->source_len = strlen(out->source);
    for (const char *p = out->source; *p; p++)
        lines += *p == '\n';
    if (lines > BW_MAX_SOURCE_LINES)
        return json_reader_fail(r, BW_ERR_LIMIT, "source",
                                "more than %d lines (BW_MAX_SOURCE_LINES)", BW_MAX_SOURCE_LINES);
    return BW_OK;
}

json_t *body_parse_submission(const char *data, size_t len, struct body_submission *out,
                              struct api_error *e)
{
    static const char *const keys[] = {"problem", "source", "mode", "language", NULL};
    struct json_reader r;

    memset(out, 0, sizeof(*out));
    json_t *j = open_body(data, len, SMALL_DEPTH, keys, &r, e);
    read_submission(&r, j, out);
    return finish(j, &r, e);
}

json_t *body_parse_name(const char *data, size_t len, struct body_name *out, struct api_error *e)
{
    static const char *const keys[] = {"name", NULL};
    struct json_reader r;

    memset(out, 0, sizeof(*out));
    json_t *j = open_body(data, len, SMALL_DEPTH, keys, &r, e);
    if (json_reader_get_string(&r, "", j, "name", true, 1, BW_MAX_TOKEN_NAME, NULL, &out->name))
        return finish(j, &r, e);
    for (const char *p = out->name; p && *p; p++)
        if ((unsigned char)*p < 0x20) {
            json_reader_fail(&r, BW_ERR_INVALID, "name", "contains a control character");
            break;
        }
    return finish(j, &r, e);
}

json_t *body_parse_role(const char *data, size_t len, struct body_role *out, struct api_error *e)
{
    static const char *const keys[] = {"role", NULL};
    struct json_reader r;

    memset(out, 0, sizeof(*out));
    json_t *j = open_body(data, len, SMALL_DEPTH, keys, &r, e);
    if (!json_reader_get_string(&r, "", j, "role", true, 1, 16, NULL, &out->role) &&
        strcmp(out->role, "learner") && strcmp(out->role, "instructor") &&
        strcmp(out->role, "admin"))
        json_reader_fail(&r, BW_ERR_INVALID, "role", "%s is not learner, instructor or admin",
                         json_quote(out->role).s);
    return finish(j, &r, e);
}

json_t *body_parse_enable(const char *data, size_t len, struct body_enable *out,
                          struct api_error *e)
{
    static const char *const keys[] = {"enabled", NULL};
    struct json_reader r;

    memset(out, 0, sizeof(*out));
    json_t *j = open_body(data, len, SMALL_DEPTH, keys, &r, e);
    json_reader_get_bool(&r, "", j, "enabled", true, &out->enabled);
    return finish(j, &r, e);
}

static int read_rejudge(struct json_reader *r, json_t *j, struct body_rejudge *out)
{
    if (json_reader_get_int(r, "", j, "submission", false, 1, INT64_MAX, &out->submission) ||
        json_reader_get_string(r, "", j, "problem", false, 1, 64, NULL, &out->problem))
        return r->code;
    if ((out->submission != 0) == (out->problem != NULL))
        return json_reader_fail(r, BW_ERR_INVALID, "",
                                "give exactly one of \"submission\" and \"problem\"");
    if (out->problem && !body_problem_id_ok(out->problem))
        return json_reader_fail(r, BW_ERR_INVALID, "problem", "%s is not a problem id",
                                json_quote(out->problem).s);
    return BW_OK;
}

json_t *body_parse_rejudge(const char *data, size_t len, struct body_rejudge *out,
                           struct api_error *e)
{
    static const char *const keys[] = {"submission", "problem", NULL};
    struct json_reader r;

    memset(out, 0, sizeof(*out));
    json_t *j = open_body(data, len, SMALL_DEPTH, keys, &r, e);
    read_rejudge(&r, j, out);
    return finish(j, &r, e);
}

static bool language_name_ok(const char *s)
{
    for (const char *p = s; *p; p++)
        if (!((*p >= 'a' && *p <= 'z') || (*p >= '0' && *p <= '9') || *p == '_' || *p == '-'))
            return false;
    return true;
}

/* One entry of "languages", at path: a name listed once, a version. */
static int read_language(struct json_reader *r, const char *path, json_t *list, size_t i,
                         struct body_register *out)
{
    static const char *const keys[] = {"name", "version", NULL};
    json_t *l = json_array_get(list, i);
    const char *name = NULL, *version = NULL;
    enum language lang;

    if (json_reader_object(r, path, l) || json_reader_only_keys(r, path, l, keys) ||
        json_reader_get_string(r, path, l, "name", true, 1, 32, NULL, &name) ||
        json_reader_get_string(r, path, l, "version", false, 0, BW_MAX_LANGUAGE_VERSION, NULL,
                               &version))
        return r->code;
    struct json_path np = json_path_key(path, "name");
    if (!language_name_ok(name))
        return json_reader_fail(r, BW_ERR_INVALID, np.s, "%s is not a language name (a-z 0-9 _ -)",
                                json_quote(name).s);
    for (size_t k = 0; k < i; k++)
        if (strcmp(json_string_value(json_object_get(json_array_get(list, k), "name")), name) == 0)
            return json_reader_fail(r, BW_ERR_INVALID, np.s, "%s is listed twice",
                                    json_quote(name).s);
    if (!language_from_name(name, &lang))
        out->ignored[out->n_ignored++] = name;
    else
        out->languages[out->n_languages++] = (struct body_language){lang, version ? version : ""};
    return BW_OK;
}

/* The register body's "languages" (see bodies.h). */
static int read_languages(struct json_reader *r, json_t *j, struct body_register *out)
{
    json_t *list;

    if (json_reader_get(r, "", j, "languages", false, &list))
        return r->code;
    if (!list) {
        out->languages[0] = (struct body_language){LANG_CUDA, ""};
        out->n_languages = 1;
        return BW_OK;
    }
    if (json_reader_array(r, "languages", list, 0, SIZE_MAX, NULL))
        return r->code;
    if (json_array_size(list) == 0)
        return json_reader_fail(r, BW_ERR_INVALID, "languages",
                                "empty (a worker compiles at least one language)");
    if (json_array_size(list) > BW_MAX_WORKER_LANGUAGES)
        return json_reader_fail(r, BW_ERR_INVALID, "languages",
                                "more than %d entries (BW_MAX_WORKER_LANGUAGES)",
                                BW_MAX_WORKER_LANGUAGES);
    for (size_t i = 0; i < json_array_size(list); i++)
        if (read_language(r, json_path_at("languages", "[%zu]", i).s, list, i, out))
            return r->code;
    return BW_OK;
}

static int read_register(struct json_reader *r, json_t *j, struct body_register *out)
{
    json_t *gpu;

    if (json_reader_get_string(r, "", j, "hostname", true, 1, 255, NULL, &out->hostname) ||
        json_reader_get_string(r, "", j, "version", false, 0, 64, NULL, &out->version) ||
        json_reader_get_bool(r, "", j, "can_execute", true, &out->can_execute) ||
        json_reader_get(r, "", j, "gpu", false, &gpu) || json_reader_object(r, "gpu", gpu) ||
        json_reader_get_string(r, "gpu", gpu, "name", false, 0, 127, NULL, &out->gpu_name) ||
        read_languages(r, j, out))
        return r->code;
    out->gpu = gpu;
    if (!out->version)
        out->version = "";
    return BW_OK;
}

json_t *body_parse_register(const char *data, size_t len, struct body_register *out,
                            struct api_error *e)
{
    static const char *const keys[] = {"hostname", "version",   "can_execute",
                                       "gpu",      "languages", NULL};
    struct json_reader r;

    memset(out, 0, sizeof(*out));
    out->gpu_name = "";
    json_t *j = open_body(data, len, SMALL_DEPTH, keys, &r, e);
    read_register(&r, j, out);
    return finish(j, &r, e);
}

json_t *body_parse_claim(const char *data, size_t len, struct body_claim *out, struct api_error *e)
{
    static const char *const keys[] = {"wait", NULL};
    struct json_reader r;

    memset(out, 0, sizeof(*out));
    out->wait_s = -1;
    if (len == 0) /* an empty body is a claim with the default wait */
        return json_object();
    json_t *j = open_body(data, len, SMALL_DEPTH, keys, &r, e);
    json_reader_get_int(&r, "", j, "wait", false, 0, 300, &out->wait_s);
    return finish(j, &r, e);
}

json_t *body_parse_progress(const char *data, size_t len, struct body_progress *out,
                            struct api_error *e)
{
    static const char *const keys[] = {"events", NULL};
    struct json_reader r;
    json_t *events;

    memset(out, 0, sizeof(*out));
    json_t *j = open_body(data, len, 8, keys, &r, e);
    if (json_reader_get(&r, "", j, "events", true, &events) ||
        json_reader_array(&r, "events", events, 0, BW_MAX_EVENTS_PER_POST,
                          "BW_MAX_EVENTS_PER_POST"))
        return finish(j, &r, e);
    for (size_t i = 0; i < json_array_size(events); i++) {
        json_t *ev = json_array_get(events, i);
        const char *name = json_string_value(json_object_get(ev, "event"));
        /* said of "events", the field the API names for a bad event */
        if (!json_is_object(ev) || !name || !*name || strlen(name) > 32) {
            json_reader_fail(&r, BW_ERR_INVALID, "events",
                             "element %zu is not an object with a string \"event\" of 1..32 "
                             "bytes",
                             i);
            return finish(j, &r, e);
        }
    }
    out->events = events;
    return finish(j, &r, e);
}

/* An optional verdict (name or code) at path.key; VERDICT_NONE when absent. */
static int read_verdict(struct json_reader *r, const char *path, json_t *obj, const char *key,
                        enum verdict *out)
{
    const char *s = NULL;

    *out = VERDICT_NONE;
    if (json_reader_get_string(r, path, obj, key, false, 1, 32, NULL, &s) || !s)
        return r->code;
    *out = verdict_parse(s);
    if (*out == VERDICT_NONE && strcasecmp(s, verdict_code(VERDICT_NONE)) != 0 &&
        strcasecmp(s, verdict_name(VERDICT_NONE)) != 0)
        return json_reader_fail(r, BW_ERR_INVALID, json_path_key(path, key).s, "unknown verdict %s",
                                json_quote(s).s);
    return BW_OK;
}

static int read_test(struct json_reader *r, const char *path, json_t *t, struct body_test *bt)
{
    bt->message = NULL;
    json_reader_object(r, path, t);
    json_reader_get_string(r, path, t, "name", true, 1, 256, NULL, &bt->name);
    json_reader_get_string(r, path, t, "message", false, 0, 4096, NULL, &bt->message);
    json_reader_get_number(r, path, t, "ms", false, 0, 1e12, &bt->ms);
    return read_verdict(r, path, t, "verdict", &bt->verdict);
}

static int read_bench(struct json_reader *r, const char *path, json_t *t, struct body_bench *bb)
{
    json_reader_object(r, path, t);
    json_reader_get_string(r, path, t, "name", true, 1, 256, NULL, &bb->name);
    json_reader_get_int(r, path, t, "samples", false, 0, 1 << 30, &bb->samples);
    json_reader_get_int(r, path, t, "clock_mhz", false, 0, 100000, &bb->clock_mhz);
    json_reader_get_number(r, path, t, "median_ms", true, 0, 1e12, &bb->median_ms);
    json_reader_get_number(r, path, t, "min_ms", false, 0, 1e12, &bb->min_ms);
    json_reader_get_number(r, path, t, "max_ms", false, 0, 1e12, &bb->max_ms);
    json_reader_get_number(r, path, t, "gbps", false, 0, 1e9, &bb->gbps);
    json_reader_get_number(r, path, t, "tflops", false, 0, 1e9, &bb->tflops);
    return json_reader_get_number(r, path, t, "sol_pct", false, 0, 1e9, &bb->sol_pct);
}

static int read_result(struct json_reader *r, json_t *j, struct body_result *out)
{
    json_t *res, *gpu, *tests, *benches;

    if (json_reader_get(r, "", j, "result", true, &res) || json_reader_object(r, "result", res))
        return r->code;
    out->result = res;
    out->executed = true;
    if (read_verdict(r, "result", res, "verdict", &out->verdict) ||
        json_reader_get_string(r, "result", res, "message", false, 0, RESULT_MESSAGE_BYTES,
                               "64 KiB", &out->message) ||
        json_reader_get_number(r, "result", res, "score", false, 0, 1e9, &out->score) ||
        json_reader_get_bool(r, "result", res, "executed", false, &out->executed))
        return r->code;
    if (out->verdict == VERDICT_NONE && out->executed)
        return json_reader_fail(r, BW_ERR_INVALID, "result.verdict",
                                "missing (only a compile-only result, executed false, has none)");
    gpu = json_object_get(res, "gpu"); /* not an object: not read, kept as sent */
    if (json_is_object(gpu) &&
        json_reader_get_string(r, "result.gpu", gpu, "name", false, 0, 127, NULL, &out->gpu_name))
        return r->code;
    if (json_reader_get(r, "result", res, "tests", false, &tests) ||
        json_reader_array(r, "result.tests", tests, 0, BW_MAX_CASES, "BW_MAX_CASES"))
        return r->code;
    for (size_t i = 0; i < json_array_size(tests); i++, out->n_tests++)
        if (read_test(r, json_path_at("result.tests", "[%zu]", i).s, json_array_get(tests, i),
                      &out->tests[i]))
            return r->code;
    if (json_reader_get(r, "result", res, "benches", false, &benches) ||
        json_reader_array(r, "result.benches", benches, 0, BW_MAX_BENCHMARKS, "BW_MAX_BENCHMARKS"))
        return r->code;
    for (size_t i = 0; i < json_array_size(benches); i++, out->n_benches++)
        if (read_bench(r, json_path_at("result.benches", "[%zu]", i).s, json_array_get(benches, i),
                       &out->benches[i]))
            return r->code;
    return BW_OK;
}

json_t *body_parse_result(const char *data, size_t len, struct body_result *out,
                          struct api_error *e)
{
    static const char *const keys[] = {"result", NULL};
    struct json_reader r;

    memset(out, 0, sizeof(*out));
    out->message = "";
    out->gpu_name = "";
    json_t *j = open_body(data, len, BW_MAX_JSON_DEPTH, keys, &r, e);
    read_result(&r, j, out);
    return finish(j, &r, e);
}

json_t *body_parse_internal_error(const char *data, size_t len, struct body_internal_error *out,
                                  struct api_error *e)
{
    static const char *const keys[] = {"message", "problem_fault", NULL};
    struct json_reader r;

    memset(out, 0, sizeof(*out));
    json_t *j = open_body(data, len, SMALL_DEPTH, keys, &r, e);
    json_reader_get_string(&r, "", j, "message", true, 1, BW_MAX_MESSAGE_FIELD, NULL,
                           &out->message);
    json_reader_get_bool(&r, "", j, "problem_fault", false, &out->problem_fault);
    return finish(j, &r, e);
}
