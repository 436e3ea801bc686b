#include "bodies.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>

#include "common/error.h"
#include "common/json_reader.h"
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

bool body_empty_ok(const char *data, size_t len, struct api_error *e)
{
    static const char *const none[] = {NULL};
    struct json_reader r;

    if (len == 0)
        return true;
    json_t *j = finish(open_body(data, len, SMALL_DEPTH, none, &r, e), &r, e);
    json_decref(j);
    return j != NULL;
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
    if (!wp_mode_from_name(mode, &out->mode))
        return json_reader_fail(r, BW_ERR_INVALID, "mode",
                                "%s is not \"run\", \"submit\" or \"profile\"", json_quote(mode).s);
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

json_t *body_parse_unlock(const char *data, size_t len, struct body_unlock *out,
                          struct api_error *e)
{
    static const char *const keys[] = {"name", "address", NULL};
    unsigned char buf[sizeof(struct in6_addr)];
    struct json_reader r;

    memset(out, 0, sizeof(*out));
    json_t *j = open_body(data, len, SMALL_DEPTH, keys, &r, e);
    json_reader_get_string(&r, "", j, "name", false, 1, BW_MAX_USERNAME, NULL, &out->name);
    json_reader_get_string(&r, "", j, "address", false, 1, 64, NULL, &out->address);
    if (!json_reader_failed(&r) && (out->name != NULL) == (out->address != NULL))
        json_reader_fail(&r, BW_ERR_INVALID, out->name ? "address" : "name",
                         "give a user name (\"name\") or a client address (\"address\"), one "
                         "of them");
    else if (!json_reader_failed(&r) && out->address &&
             inet_pton(AF_INET, out->address, buf) != 1 &&
             inet_pton(AF_INET6, out->address, buf) != 1)
        json_reader_fail(&r, BW_ERR_INVALID, "address",
                         "\"%s\" is not a numeric IPv4 or IPv6 address", out->address);
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

/* ---- the worker protocol (wire/worker_proto.h decodes; these open the bodies) ---- */

/* Parses a worker's body, an object at most `depth` deep, with null read as absent. */
static json_t *open_worker_body(const char *data, size_t len, int depth, struct json_reader *r,
                                struct api_error *e)
{
    json_t *j = api_parse_object(data, len, depth, e);

    json_reader_init(r, JSON_READER_NULL_IS_ABSENT);
    return j;
}

json_t *body_parse_register(const char *data, size_t len, struct wp_register *out,
                            struct api_error *e)
{
    struct json_reader r;
    json_t *j = open_worker_body(data, len, SMALL_DEPTH, &r, e);

    if (j)
        wp_register_decode(j, out, &r);
    return finish(j, &r, e);
}

json_t *body_parse_claim(const char *data, size_t len, struct wp_claim *out, struct api_error *e)
{
    struct json_reader r;

    out->wait_s = -1;
    if (len == 0) /* an empty body is a claim with the default wait */
        return json_object();
    json_t *j = open_worker_body(data, len, SMALL_DEPTH, &r, e);
    if (j)
        wp_claim_decode(j, out, &r);
    return finish(j, &r, e);
}

json_t *body_parse_progress(const char *data, size_t len, struct wp_progress *out,
                            struct api_error *e)
{
    struct json_reader r;
    json_t *j = open_worker_body(data, len, 8, &r, e);

    out->events = NULL;
    if (j)
        wp_progress_decode(j, out, &r);
    return finish(j, &r, e);
}

json_t *body_parse_result(const char *data, size_t len, struct wp_result *out, struct api_error *e)
{
    struct json_reader r;
    json_t *j = open_worker_body(data, len, BW_MAX_JSON_DEPTH, &r, e);

    if (j)
        wp_result_decode(j, out, &r);
    return finish(j, &r, e);
}

json_t *body_parse_internal_error(const char *data, size_t len, struct wp_internal_error *out,
                                  struct api_error *e)
{
    struct json_reader r;
    json_t *j = open_worker_body(data, len, SMALL_DEPTH, &r, e);

    memset(out, 0, sizeof(*out));
    if (j)
        wp_internal_error_decode(j, out, &r);
    return finish(j, &r, e);
}
