#include "bodies.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>

#include "common/limits.h"
#include "common/banned.h"

#define SMALL_DEPTH 4 /* bodies of users are flat objects */

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

/* Parses, refuses unknown keys; NULL with *e on failure. */
static json_t *open_body(const char *data, size_t len, int depth, const char *const *keys,
                         struct api_error *e)
{
    json_t *j = api_parse_object(data, len, depth, e);
    if (j && !api_only_keys(j, keys, e)) {
        json_decref(j);
        return NULL;
    }
    return j;
}

static json_t *fail(json_t *j)
{
    json_decref(j);
    return NULL;
}

bool body_empty_ok(const char *data, size_t len, struct api_error *e)
{
    static const char *const none[] = {NULL};
    if (len == 0)
        return true;
    json_t *j = open_body(data, len, SMALL_DEPTH, none, e);
    json_decref(j);
    return j != NULL;
}

json_t *body_parse_credentials(const char *data, size_t len, struct body_credentials *out,
                               struct api_error *e)
{
    static const char *const keys[] = {"name", "password", NULL};
    memset(out, 0, sizeof(*out));
    json_t *j = open_body(data, len, SMALL_DEPTH, keys, e);
    if (!j)
        return NULL;
    if (!api_get_string(j, "name", true, 1, BW_MAX_USERNAME, &out->name, e) ||
        !api_get_string(j, "password", true, 1, BW_MAX_PASSWORD, &out->password, e))
        return fail(j);
    return j;
}

json_t *body_parse_submission(const char *data, size_t len, struct body_submission *out,
                              struct api_error *e)
{
    static const char *const keys[] = {"problem", "source", "mode", "language", NULL};
    const char *mode = NULL, *language = NULL;
    memset(out, 0, sizeof(*out));
    json_t *j = open_body(data, len, SMALL_DEPTH, keys, e);
    if (!j)
        return NULL;
    if (!api_get_string(j, "problem", true, 1, 64, &out->problem, e) ||
        !api_get_string(j, "source", true, 1, BW_MAX_SOURCE_BYTES, &out->source, e) ||
        !api_get_string(j, "mode", true, 1, 16, &mode, e) ||
        !api_get_string(j, "language", false, 1, 32, &language, e))
        return fail(j);
    out->language = LANG_CUDA;
    if (language && !language_from_name(language, &out->language)) {
        api_fail(e, 400, "invalid", "language", "language: \"%s\" is not \"cuda\" or \"triton\"",
                 language);
        return fail(j);
    }
    if (!body_problem_id_ok(out->problem)) {
        api_fail(e, 400, "invalid", "problem", "problem: \"%s\" is not a problem id", out->problem);
        return fail(j);
    }
    if (strcmp(mode, "run") == 0) {
        out->submit = false;
    } else if (strcmp(mode, "submit") == 0) {
        out->submit = true;
    } else {
        api_fail(e, 400, "invalid", "mode", "mode: \"%s\" is not \"run\" or \"submit\"", mode);
        return fail(j);
    }
    out->source_len = strlen(out->source);
    int lines = 1;
    for (const char *p = out->source; *p; p++)
        lines += *p == '\n';
    if (lines > BW_MAX_SOURCE_LINES) {
        api_fail(e, 413, "too_large", "source", "source: more than %d lines", BW_MAX_SOURCE_LINES);
        return fail(j);
    }
    return j;
}

json_t *body_parse_name(const char *data, size_t len, struct body_name *out, struct api_error *e)
{
    static const char *const keys[] = {"name", NULL};
    memset(out, 0, sizeof(*out));
    json_t *j = open_body(data, len, SMALL_DEPTH, keys, e);
    if (!j)
        return NULL;
    if (!api_get_string(j, "name", true, 1, BW_MAX_TOKEN_NAME, &out->name, e))
        return fail(j);
    for (const char *p = out->name; *p; p++) {
        if ((unsigned char)*p < 0x20) {
            api_fail(e, 400, "invalid", "name", "name: contains a control character");
            return fail(j);
        }
    }
    return j;
}

json_t *body_parse_unlock(const char *data, size_t len, struct body_unlock *out,
                          struct api_error *e)
{
    static const char *const keys[] = {"name", "address", NULL};
    unsigned char buf[sizeof(struct in6_addr)];
    memset(out, 0, sizeof(*out));
    json_t *j = open_body(data, len, SMALL_DEPTH, keys, e);
    if (!j)
        return NULL;
    if (!api_get_string(j, "name", false, 1, BW_MAX_USERNAME, &out->name, e) ||
        !api_get_string(j, "address", false, 1, 64, &out->address, e))
        return fail(j);
    if ((out->name != NULL) == (out->address != NULL)) {
        api_fail(e, 400, "invalid", out->name ? "address" : "name",
                 "give a user name (\"name\") or a client address (\"address\"), one of them");
        return fail(j);
    }
    if (out->address && inet_pton(AF_INET, out->address, buf) != 1 &&
        inet_pton(AF_INET6, out->address, buf) != 1) {
        api_fail(e, 400, "invalid", "address",
                 "address: \"%s\" is not a numeric IPv4 or IPv6 address", out->address);
        return fail(j);
    }
    return j;
}

json_t *body_parse_role(const char *data, size_t len, struct body_role *out, struct api_error *e)
{
    static const char *const keys[] = {"role", NULL};
    memset(out, 0, sizeof(*out));
    json_t *j = open_body(data, len, SMALL_DEPTH, keys, e);
    if (!j)
        return NULL;
    if (!api_get_string(j, "role", true, 1, 16, &out->role, e))
        return fail(j);
    if (strcmp(out->role, "learner") && strcmp(out->role, "instructor") &&
        strcmp(out->role, "admin")) {
        api_fail(e, 400, "invalid", "role", "role: \"%s\" is not learner, instructor or admin",
                 out->role);
        return fail(j);
    }
    return j;
}

json_t *body_parse_enable(const char *data, size_t len, struct body_enable *out,
                          struct api_error *e)
{
    static const char *const keys[] = {"enabled", NULL};
    memset(out, 0, sizeof(*out));
    json_t *j = open_body(data, len, SMALL_DEPTH, keys, e);
    if (!j)
        return NULL;
    if (!api_get_bool(j, "enabled", true, &out->enabled, e))
        return fail(j);
    return j;
}

json_t *body_parse_rejudge(const char *data, size_t len, struct body_rejudge *out,
                           struct api_error *e)
{
    static const char *const keys[] = {"submission", "problem", NULL};
    memset(out, 0, sizeof(*out));
    json_t *j = open_body(data, len, SMALL_DEPTH, keys, e);
    if (!j)
        return NULL;
    if (!api_get_int(j, "submission", false, 1, INT64_MAX, &out->submission, e) ||
        !api_get_string(j, "problem", false, 1, 64, &out->problem, e))
        return fail(j);
    if ((out->submission != 0) == (out->problem != NULL)) {
        api_fail(e, 400, "invalid", NULL, "give exactly one of \"submission\" and \"problem\"");
        return fail(j);
    }
    if (out->problem && !body_problem_id_ok(out->problem)) {
        api_fail(e, 400, "invalid", "problem", "problem: \"%s\" is not a problem id", out->problem);
        return fail(j);
    }
    return j;
}

/* Names a field inside an element of an array, "languages[1].name", and
 * puts the element before the message: "languages[1]: name: missing". */
static void in_element(struct api_error *e, const char *array, size_t i)
{
    char field[sizeof(e->field)], message[sizeof(e->message)];
    snprintf(field, sizeof(field), "%.12s[%zu]%s%.24s", array, i, e->field[0] ? "." : "", e->field);
    snprintf(message, sizeof(message), "%s[%zu]: %.280s", array, i, e->message);
    api_fail(e, e->status, e->code, field, "%s", message);
}

static bool language_name_ok(const char *s)
{
    for (const char *p = s; *p; p++)
        if (!((*p >= 'a' && *p <= 'z') || (*p >= '0' && *p <= '9') || *p == '_' || *p == '-'))
            return false;
    return true;
}

/* The register body's "languages" (see bodies.h). */
static bool parse_languages(json_t *j, struct body_register *out, struct api_error *e)
{
    static const char *const keys[] = {"name", "version", NULL};
    json_t *list = json_object_get(j, "languages");
    if (!list) {
        out->languages[0] = (struct body_language){LANG_CUDA, ""};
        out->n_languages = 1;
        return true;
    }
    if (!json_is_array(list)) {
        api_fail(e, 400, "invalid", "languages",
                 "languages: expected an array of {\"name\", \"version\"}");
        return false;
    }
    if (json_array_size(list) == 0) {
        api_fail(e, 400, "invalid", "languages",
                 "languages: empty (a worker compiles at least one language)");
        return false;
    }
    if (json_array_size(list) > BW_MAX_WORKER_LANGUAGES) {
        api_fail(e, 400, "invalid", "languages", "languages: more than %d entries",
                 BW_MAX_WORKER_LANGUAGES);
        return false;
    }
    size_t i;
    json_t *l;
    json_array_foreach (list, i, l) {
        const char *name = NULL, *version = NULL;
        if (!json_is_object(l)) {
            api_fail(e, 400, "invalid", "", "expected an object {\"name\", \"version\"}");
            in_element(e, "languages", i);
            return false;
        }
        if (!api_only_keys(l, keys, e) || !api_get_string(l, "name", true, 1, 32, &name, e) ||
            !api_get_string(l, "version", false, 0, BW_MAX_LANGUAGE_VERSION, &version, e)) {
            in_element(e, "languages", i);
            return false;
        }
        if (!language_name_ok(name)) {
            api_fail(e, 400, "invalid", "name", "name: \"%s\" is not a language name (a-z 0-9 _ -)",
                     name);
            in_element(e, "languages", i);
            return false;
        }
        for (size_t k = 0; k < i; k++)
            if (strcmp(json_string_value(json_object_get(json_array_get(list, k), "name")), name) ==
                0) {
                api_fail(e, 400, "invalid", "name", "name: \"%s\" is listed twice", name);
                in_element(e, "languages", i);
                return false;
            }
        enum language lang;
        if (!language_from_name(name, &lang)) {
            out->ignored[out->n_ignored++] = name;
            continue;
        }
        out->languages[out->n_languages++] = (struct body_language){lang, version ? version : ""};
    }
    return true;
}

json_t *body_parse_register(const char *data, size_t len, struct body_register *out,
                            struct api_error *e)
{
    static const char *const keys[] = {"hostname", "version",   "can_execute",
                                       "gpu",      "languages", NULL};
    memset(out, 0, sizeof(*out));
    out->gpu_name = "";
    json_t *j = open_body(data, len, SMALL_DEPTH, keys, e);
    if (!j)
        return NULL;
    if (!api_get_string(j, "hostname", true, 1, 255, &out->hostname, e) ||
        !api_get_string(j, "version", false, 0, 64, &out->version, e) ||
        !api_get_bool(j, "can_execute", true, &out->can_execute, e))
        return fail(j);
    json_t *gpu = json_object_get(j, "gpu");
    if (gpu && !json_is_object(gpu)) {
        api_fail(e, 400, "invalid", "gpu", "gpu: expected an object");
        return fail(j);
    }
    if (gpu) {
        out->gpu = gpu;
        if (!api_get_string(gpu, "name", false, 0, 127, &out->gpu_name, e)) {
            snprintf(e->field, sizeof(e->field), "gpu.name");
            return fail(j);
        }
    }
    if (!parse_languages(j, out, e))
        return fail(j);
    if (!out->version)
        out->version = "";
    return j;
}

json_t *body_parse_claim(const char *data, size_t len, struct body_claim *out, struct api_error *e)
{
    static const char *const keys[] = {"wait", NULL};
    memset(out, 0, sizeof(*out));
    out->wait_s = -1;
    if (len == 0) /* an empty body is a claim with the default wait */
        return json_object();
    json_t *j = open_body(data, len, SMALL_DEPTH, keys, e);
    if (!j)
        return NULL;
    if (!api_get_int(j, "wait", false, 0, 300, &out->wait_s, e))
        return fail(j);
    return j;
}

json_t *body_parse_progress(const char *data, size_t len, struct body_progress *out,
                            struct api_error *e)
{
    static const char *const keys[] = {"events", NULL};
    memset(out, 0, sizeof(*out));
    json_t *j = open_body(data, len, 8, keys, e);
    if (!j)
        return NULL;
    json_t *events = json_object_get(j, "events");
    if (!json_is_array(events)) {
        api_fail(e, 400, "invalid", "events", "events: expected an array");
        return fail(j);
    }
    if (json_array_size(events) > BW_MAX_EVENTS_PER_POST) {
        api_fail(e, 413, "too_large", "events", "events: more than %d in one post",
                 BW_MAX_EVENTS_PER_POST);
        return fail(j);
    }
    size_t i;
    json_t *ev;
    json_array_foreach (events, i, ev) {
        const char *name = json_string_value(json_object_get(ev, "event"));
        if (!json_is_object(ev) || !name || !*name || strlen(name) > 32) {
            api_fail(e, 400, "invalid", "events",
                     "events[%zu]: expected an object with a string \"event\"", i);
            return fail(j);
        }
    }
    out->events = events;
    return j;
}

static bool get_verdict(json_t *obj, const char *key, bool required, enum verdict *out,
                        struct api_error *e, const char *field)
{
    const char *s = NULL;
    if (!api_get_string(obj, key, required, 1, 32, &s, e)) {
        snprintf(e->field, sizeof(e->field), "%s", field);
        return false;
    }
    if (!s) {
        *out = VERDICT_NONE;
        return true;
    }
    *out = verdict_parse(s);
    if (*out == VERDICT_NONE && strcasecmp(s, verdict_code(VERDICT_NONE)) != 0 &&
        strcasecmp(s, verdict_name(VERDICT_NONE)) != 0) {
        api_fail(e, 400, "invalid", field, "%s: unknown verdict \"%s\"", field, s);
        return false;
    }
    return true;
}

json_t *body_parse_result(const char *data, size_t len, struct body_result *out,
                          struct api_error *e)
{
    static const char *const keys[] = {"result", NULL};
    memset(out, 0, sizeof(*out));
    out->message = "";
    out->gpu_name = "";
    json_t *j = open_body(data, len, BW_MAX_JSON_DEPTH, keys, e);
    if (!j)
        return NULL;
    json_t *r = json_object_get(j, "result");
    if (!json_is_object(r)) {
        api_fail(e, 400, "invalid", "result", "result: expected an object");
        return fail(j);
    }
    out->result = r;
    out->executed = true;
    if (!get_verdict(r, "verdict", false, &out->verdict, e, "result.verdict"))
        return fail(j);
    if (!api_get_string(r, "message", false, 0, 1 << 16, &out->message, e) ||
        !api_get_number(r, "score", false, 0, 1e9, &out->score, e) ||
        !api_get_bool(r, "executed", false, &out->executed, e)) {
        char f[sizeof(e->field)];
        memcpy(f, e->field, sizeof(f));
        snprintf(e->field, sizeof(e->field), "result.%.48s", f);
        return fail(j);
    }
    if (out->verdict == VERDICT_NONE && out->executed) {
        api_fail(e, 400, "invalid", "result.verdict",
                 "result.verdict: missing (only a compile-only result, executed false, has none)");
        return fail(j);
    }
    json_t *gpu = json_object_get(r, "gpu");
    if (json_is_object(gpu) && !api_get_string(gpu, "name", false, 0, 127, &out->gpu_name, e)) {
        snprintf(e->field, sizeof(e->field), "result.gpu.name");
        return fail(j);
    }
    json_t *tests = json_object_get(r, "tests");
    if (tests && !json_is_array(tests)) {
        api_fail(e, 400, "invalid", "result.tests", "result.tests: expected an array");
        return fail(j);
    }
    if (json_array_size(tests) > BW_MAX_CASES) {
        api_fail(e, 413, "too_large", "result.tests",
                 "result.tests: more than BW_MAX_CASES (%d), the test cases a problem may have",
                 BW_MAX_CASES);
        return fail(j);
    }
    size_t i;
    json_t *t;
    json_array_foreach (tests, i, t) {
        struct body_test *bt = &out->tests[i];
        char field[64];
        snprintf(field, sizeof(field), "result.tests[%zu]", i);
        bt->message = NULL;
        if (!json_is_object(t) || !api_get_string(t, "name", true, 1, 256, &bt->name, e) ||
            !api_get_string(t, "message", false, 0, 4096, &bt->message, e) ||
            !api_get_number(t, "ms", false, 0, 1e12, &bt->ms, e)) {
            if (!json_is_object(t))
                api_fail(e, 400, "invalid", field, "%s: expected an object", field);
            snprintf(e->field, sizeof(e->field), "%s", field);
            return fail(j);
        }
        if (!get_verdict(t, "verdict", false, &bt->verdict, e, field))
            return fail(j);
        out->n_tests++;
    }
    json_t *benches = json_object_get(r, "benches");
    if (benches && !json_is_array(benches)) {
        api_fail(e, 400, "invalid", "result.benches", "result.benches: expected an array");
        return fail(j);
    }
    if (json_array_size(benches) > BW_MAX_BENCHMARKS) {
        api_fail(e, 413, "too_large", "result.benches",
                 "result.benches: more than BW_MAX_BENCHMARKS (%d), the shapes a problem may have",
                 BW_MAX_BENCHMARKS);
        return fail(j);
    }
    json_array_foreach (benches, i, t) {
        struct body_bench *bb = &out->benches[i];
        char field[64];
        snprintf(field, sizeof(field), "result.benches[%zu]", i);
        if (!json_is_object(t) || !api_get_string(t, "name", true, 1, 256, &bb->name, e) ||
            !api_get_int(t, "samples", false, 0, 1 << 30, &bb->samples, e) ||
            !api_get_int(t, "clock_mhz", false, 0, 100000, &bb->clock_mhz, e) ||
            !api_get_number(t, "median_ms", true, 0, 1e12, &bb->median_ms, e) ||
            !api_get_number(t, "min_ms", false, 0, 1e12, &bb->min_ms, e) ||
            !api_get_number(t, "max_ms", false, 0, 1e12, &bb->max_ms, e) ||
            !api_get_number(t, "gbps", false, 0, 1e9, &bb->gbps, e) ||
            !api_get_number(t, "tflops", false, 0, 1e9, &bb->tflops, e) ||
            !api_get_number(t, "sol_pct", false, 0, 1e9, &bb->sol_pct, e)) {
            if (!json_is_object(t))
                api_fail(e, 400, "invalid", field, "%s: expected an object", field);
            snprintf(e->field, sizeof(e->field), "%s", field);
            return fail(j);
        }
        out->n_benches++;
    }
    return j;
}

json_t *body_parse_internal_error(const char *data, size_t len, struct body_internal_error *out,
                                  struct api_error *e)
{
    static const char *const keys[] = {"message", "problem_fault", NULL};
    memset(out, 0, sizeof(*out));
    json_t *j = open_body(data, len, SMALL_DEPTH, keys, e);
    if (!j)
        return NULL;
    if (!api_get_string(j, "message", true, 1, BW_MAX_MESSAGE_FIELD, &out->message, e) ||
        !api_get_bool(j, "problem_fault", false, &out->problem_fault, e))
        return fail(j);
    return j;
}
