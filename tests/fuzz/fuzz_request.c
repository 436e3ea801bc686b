/*
 * fuzz_request.c - fuzz target of the server's request bodies: the first
 * byte picks the endpoint's parser (server/bodies.h), the rest is the body.
 * The handlers call exactly these parsers, so what holds here holds for the
 * server. Properties, for every input:
 *   - a refusal is a 4xx with a code, a one-line message and (if any) a
 *     field, all valid UTF-8, and the error response renders as JSON;
 *   - an acceptance has every required string set, within its cap;
 *   - parsing is deterministic (the same input gives the same answer).
 * Built with BW_FUZZ_MAIN by tests/fuzz/run.sh; test_server_fuzz replays the
 * corpus through fuzz_request_one().
 */
#include "fuzz.h"

#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "common/limits.h"
#include "server/api.h"
#include "server/bodies.h"
#include "server/http.h"
#include "common/banned.h"

#define FAIL(...)                                                                                  \
    do {                                                                                           \
        fprintf(stderr, "fuzz_request: " __VA_ARGS__);                                             \
        fputc('\n', stderr);                                                                       \
        return -1;                                                                                 \
    } while (0)

enum { N_PARSERS = 11 };

/* Runs parser k; returns the document (new) or NULL with *e. Checks the
 * accepted struct's invariants into *bad. */
static json_t *parse(int k, const char *data, size_t len, struct api_error *e, bool *bad)
{
    static struct wp_result result; /* large: not on the stack */
    json_t *j = NULL;
    *bad = false;
    switch (k) {
    case 0: {
        struct body_credentials b;
        j = body_parse_credentials(data, len, &b, e);
        *bad = j && (!b.name || !b.password || strlen(b.name) > BW_MAX_USERNAME);
        break;
    }
    case 1: {
        struct body_submission b;
        j = body_parse_submission(data, len, &b, e);
        *bad = j && (!b.problem || !b.source || b.source_len == 0 ||
                     b.source_len > BW_MAX_SOURCE_BYTES || !body_problem_id_ok(b.problem) ||
                     (unsigned)b.mode >= WP_MODE_COUNT);
        break;
    }
    case 2: {
        struct body_name b;
        j = body_parse_name(data, len, &b, e);
        *bad = j && (!b.name || !*b.name || strlen(b.name) > BW_MAX_TOKEN_NAME);
        break;
    }
    case 3: {
        struct body_role b;
        j = body_parse_role(data, len, &b, e);
        *bad = j && (!b.role || (strcmp(b.role, "learner") && strcmp(b.role, "instructor") &&
                                 strcmp(b.role, "admin")));
        break;
    }
    case 4: {
        struct body_enable b;
        j = body_parse_enable(data, len, &b, e);
        break;
    }
    case 5: {
        struct body_rejudge b;
        j = body_parse_rejudge(data, len, &b, e);
        *bad = j && ((b.submission != 0) == (b.problem != NULL));
        break;
    }
    case 6: {
        struct wp_register b;
        j = body_parse_register(data, len, &b, e);
        *bad = j && (!b.hostname || !b.version || !b.gpu_name);
        break;
    }
    case 7: {
        struct wp_claim b;
        j = body_parse_claim(data, len, &b, e);
        *bad = j && (b.wait_s < -1 || b.wait_s > 300);
        break;
    }
    case 8: {
        struct wp_progress b;
        j = body_parse_progress(data, len, &b, e);
        *bad =
            j && (!json_is_array(b.events) || json_array_size(b.events) > BW_MAX_EVENTS_PER_POST);
        break;
    }
    case 9:
        j = body_parse_result(data, len, &result, e);
        *bad = j && (!result.result || !result.message || !result.gpu_name ||
                     (result.verdict == VERDICT_NONE && result.executed));
        for (size_t i = 0; j && i < result.n_tests; i++)
            *bad = *bad || !result.tests[i].name;
        for (size_t i = 0; j && i < result.n_benches; i++)
            *bad = *bad || !result.benches[i].name;
        /* a profile: at most a plan's launches, and a sentence whenever it is not available */
        *bad =
            *bad ||
            (j && (!result.profile.why || result.profile.n_kernels > BW_MAX_LAUNCHES ||
                   (result.profile.present && !result.profile.available && !*result.profile.why)));
        break;
    default: {
        struct wp_internal_error b;
        j = body_parse_internal_error(data, len, &b, e);
        *bad = j && (!b.message || strlen(b.message) > BW_MAX_MESSAGE_FIELD);
        break;
    }
    }
    return j;
}

int fuzz_request_one(const uint8_t *data, size_t size)
{
    if (size == 0)
        return 0;
    int k = data[0] % N_PARSERS;
    const char *body = (const char *)data + 1;
    size_t len = size - 1;
    struct api_error e1, e2;
    bool bad = false;
    memset(&e1, 0, sizeof(e1));
    memset(&e2, 0, sizeof(e2));
    json_t *j1 = parse(k, body, len, &e1, &bad);
    if (bad) {
        json_decref(j1);
        FAIL("parser %d accepted a body that breaks its invariants", k);
    }
    json_t *j2 = parse(k, body, len, &e2, &bad);
    bool same = (j1 != NULL) == (j2 != NULL);
    json_decref(j1);
    json_decref(j2);
    if (!same)
        FAIL("parser %d is not deterministic", k);
    if (j1)
        return 0;
    if (e1.status < 400 || e1.status > 499)
        FAIL("parser %d refused with status %d (not a 4xx)", k, e1.status);
    if (e1.status != e2.status || strcmp(e1.message, e2.message) != 0)
        FAIL("parser %d gave two different errors", k);
    if (!e1.code || !*e1.code || !*e1.message)
        FAIL("parser %d: empty error code or message", k);
    if (strchr(e1.message, '\n'))
        FAIL("parser %d: message is not one line: %s", k, e1.message);
    json_t *m = json_string(e1.message);
    json_t *f = json_string(e1.field);
    bool utf8 = m && f;
    json_decref(m);
    json_decref(f);
    if (!utf8)
        FAIL("parser %d: message or field is not UTF-8", k);
    struct http_response res;
    memset(&res, 0, sizeof(res));
    buf_init(&res.body, 1 << 20);
    int status = api_error_response(&res, &e1);
    json_t *rendered = json_loadb(res.body.data ? res.body.data : "", res.body.len, 0, NULL);
    bool shape = rendered && json_is_object(json_object_get(rendered, "error"));
    json_decref(rendered);
    buf_release(&res.body);
    if (status != e1.status || !shape)
        FAIL("parser %d: the error response did not render", k);
    return 0;
}

#ifdef BW_FUZZ_MAIN
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (fuzz_request_one(data, size) != 0)
        abort();
    return 0;
}
#endif

#undef FAIL
