/*
 * worker_proto.c - the worker protocol's messages (worker_proto.h).
 */
#include "worker_proto.h"

#include <stdio.h>
#include <string.h>
#include <strings.h>

#include "common/error.h"
#include "common/util.h"
#include "common/banned.h"

/* Sets o[key] = v (stolen); clears *ok when v is NULL or the set fails. */
static void put(json_t *o, const char *key, json_t *v, bool *ok)
{
    if (!v || json_object_set_new(o, key, v) != 0)
        *ok = false;
}

/* o, or NULL (freeing o) when something failed. */
static json_t *done(json_t *o, bool ok)
{
    if (ok)
        return o;
    json_decref(o);
    return NULL;
}

/* ---- register ------------------------------------------------------------------------- */

static bool language_name_ok(const char *s)
{
    for (const char *p = s; *p; p++)
        if (!((*p >= 'a' && *p <= 'z') || (*p >= '0' && *p <= '9') || *p == '_' || *p == '-'))
            return false;
    return true;
}

json_t *wp_register_encode(const struct wp_register *m)
{
    json_t *o = json_object(), *list = json_array();
    bool ok = o && list;

    for (size_t i = 0; ok && i < m->n_languages; i++) {
        json_t *l = json_pack("{s:s, s:s}", "name", language_name(m->languages[i].language),
                              "version", m->languages[i].version ? m->languages[i].version : "");
        ok = l && json_array_append_new(list, l) == 0;
    }
    if (!ok) {
        json_decref(list);
        json_decref(o);
        return NULL;
    }
    put(o, "hostname", json_string(m->hostname), &ok);
    put(o, "version", json_string(m->version ? m->version : ""), &ok);
    put(o, "can_execute", json_boolean(m->can_execute), &ok);
    put(o, "languages", list, &ok);
    if (m->gpu)
        put(o, "gpu", json_incref(m->gpu), &ok);
    return done(o, ok);
}

/* One entry of "languages", at path: a name listed once, a version. */
static int read_language(struct json_reader *r, const char *path, json_t *list, size_t i,
                         struct wp_register *out)
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
        out->languages[out->n_languages++] = (struct wp_language){lang, version ? version : ""};
    return BW_OK;
}

static int read_languages(struct json_reader *r, json_t *j, struct wp_register *out)
{
    json_t *list;

    if (json_reader_get(r, "", j, "languages", false, &list))
        return r->code;
    if (!list) {
        out->languages[0] = (struct wp_language){LANG_CUDA, ""};
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

int wp_register_decode(json_t *j, struct wp_register *out, struct json_reader *r)
{
    static const char *const keys[] = {"hostname", "version",   "can_execute",
                                       "gpu",      "languages", NULL};
    json_t *gpu;

    memset(out, 0, sizeof(*out));
    out->gpu_name = "";
    out->version = "";
    if (json_reader_object(r, "", j) || json_reader_only_keys(r, "", j, keys) ||
        json_reader_get_string(r, "", j, "hostname", true, 1, 255, NULL, &out->hostname) ||
        json_reader_get_string(r, "", j, "version", false, 0, 64, NULL, &out->version) ||
        json_reader_get_bool(r, "", j, "can_execute", true, &out->can_execute) ||
        json_reader_get(r, "", j, "gpu", false, &gpu) || json_reader_object(r, "gpu", gpu) ||
        json_reader_get_string(r, "gpu", gpu, "name", false, 0, 127, NULL, &out->gpu_name) ||
        read_languages(r, j, out))
        return r->code;
    out->gpu = gpu;
    return BW_OK;
}

json_t *wp_welcome_encode(const struct wp_welcome *m)
{
    json_t *o = json_pack("{s:{s:I, s:s}, s:i, s:i, s:i}", "worker", "id", (json_int_t)m->worker_id,
                          "name", m->worker_name, "lease_seconds", m->lease_s, "heartbeat_seconds",
                          m->heartbeat_s, "claim_wait", m->claim_wait_s);
    bool ok = o != NULL;

    if (!ok)
        return NULL;
    put(o, "reclaimed", m->reclaimed ? json_incref(m->reclaimed) : json_array(), &ok);
    put(o, "languages", m->languages ? json_incref(m->languages) : json_array(), &ok);
    return done(o, ok);
}

int wp_welcome_decode(json_t *j, struct wp_welcome *out, struct json_reader *r)
{
    json_t *worker;
    int64_t lease = 0, hb = 0, wait = 0;

    memset(out, 0, sizeof(*out));
    out->worker_name = "";
    if (json_reader_object(r, "", j) || json_reader_get(r, "", j, "worker", true, &worker) ||
        json_reader_object(r, "worker", worker) ||
        json_reader_get_int(r, "worker", worker, "id", true, 1, INT64_MAX, &out->worker_id) ||
        json_reader_get_string(r, "worker", worker, "name", true, 1, WP_NAME_BYTES, NULL,
                               &out->worker_name) ||
        json_reader_get(r, "", j, "reclaimed", false, &out->reclaimed) ||
        json_reader_array(r, "reclaimed", out->reclaimed, 0, SIZE_MAX, NULL) ||
        json_reader_get(r, "", j, "languages", false, &out->languages) ||
        json_reader_array(r, "languages", out->languages, 0, SIZE_MAX, NULL) ||
        json_reader_get_int(r, "", j, "lease_seconds", false, 1, 86400, &lease) ||
        json_reader_get_int(r, "", j, "heartbeat_seconds", false, 1, 86400, &hb) ||
        json_reader_get_int(r, "", j, "claim_wait", false, 0, BW_MAX_CLAIM_WAIT_S, &wait))
        return r->code;
    out->lease_s = (int)lease; /* 0: the server did not say */
    out->heartbeat_s = (int)hb;
    out->claim_wait_s = (int)wait;
    return BW_OK;
}

/* ---- claim and job -------------------------------------------------------------------- */

json_t *wp_claim_encode(const struct wp_claim *m)
{
    json_t *o = json_object();
    bool ok = o != NULL;

    if (ok && m->wait_s >= 0)
        put(o, "wait", json_integer(m->wait_s), &ok);
    return done(o, ok);
}

int wp_claim_decode(json_t *j, struct wp_claim *out, struct json_reader *r)
{
    static const char *const keys[] = {"wait", NULL};

    out->wait_s = -1;
    if (json_reader_object(r, "", j) || json_reader_only_keys(r, "", j, keys))
        return r->code;
    return json_reader_get_int(r, "", j, "wait", false, 0, BW_MAX_CLAIM_WAIT_S, &out->wait_s);
}

static const char *const mode_names[WP_MODE_COUNT] = {"run", "submit", "profile"};

const char *wp_mode_name(enum wp_mode mode)
{
    return (unsigned)mode < WP_MODE_COUNT ? mode_names[mode] : "run";
}

bool wp_mode_from_name(const char *name, enum wp_mode *out)
{
    for (int i = 0; i < WP_MODE_COUNT; i++)
        if (strcmp(name, mode_names[i]) == 0) {
            *out = (enum wp_mode)i;
            return true;
        }
    return false;
}

json_t *wp_job_encode(const struct wp_job *m)
{
    char seed[32];

    snprintf(seed, sizeof(seed), "%llu", (unsigned long long)m->seed);
    return json_pack("{s:s, s:I, s:s, s:s, s:s, s:s, s:s%, s:s, s:I, s:i, s:i}", "lease", m->lease,
                     "submission", (json_int_t)m->submission, "problem", m->problem, "bundle",
                     m->bundle, "mode", wp_mode_name(m->mode), "language",
                     language_name(m->language), "source", m->source, m->source_len, "seed", seed,
                     "attempt", (json_int_t)m->attempt, "lease_seconds", m->lease_s,
                     "heartbeat_seconds", m->heartbeat_s);
}

int wp_job_decode(json_t *j, struct wp_job *out, struct json_reader *r)
{
    const char *mode = NULL, *language = NULL, *seed = NULL;
    json_t *source;
    int64_t lease = 0, hb = 0;

    memset(out, 0, sizeof(*out));
    out->language = LANG_CUDA; /* a server from before languages sends none */
    if (json_reader_object(r, "", j) ||
        json_reader_get_string(r, "", j, "lease", true, 1, 64, NULL, &out->lease) ||
        json_reader_get_int(r, "", j, "submission", true, 1, INT64_MAX, &out->submission) ||
        json_reader_get_string(r, "", j, "problem", true, 1, 64, NULL, &out->problem) ||
        json_reader_get_string(r, "", j, "bundle", true, 64, 64, NULL, &out->bundle) ||
        json_reader_get_string(r, "", j, "mode", true, 1, 16, NULL, &mode) ||
        json_reader_get_string(r, "", j, "language", false, 1, 32, NULL, &language) ||
        json_reader_get(r, "", j, "source", true, &source) ||
        json_reader_string(r, "source", source, 0, BW_MAX_SOURCE_BYTES, "BW_MAX_SOURCE_BYTES",
                           &out->source) ||
        json_reader_get_string(r, "", j, "seed", false, 1, 20, NULL, &seed) ||
        json_reader_get_int(r, "", j, "attempt", false, 0, INT32_MAX, &out->attempt) ||
        json_reader_get_int(r, "", j, "lease_seconds", false, 1, 86400, &lease) ||
        json_reader_get_int(r, "", j, "heartbeat_seconds", false, 1, 86400, &hb))
        return r->code;
    out->source_len = json_string_length(source);
    if (!wp_mode_from_name(mode, &out->mode))
        return json_reader_fail(r, BW_ERR_INVALID, "mode",
                                "%s is neither \"run\", \"submit\" nor \"profile\"",
                                json_quote(mode).s);
    if (language && !language_from_name(language, &out->language))
        return json_reader_fail(r, BW_ERR_INVALID, "language", "%s is no language this judge knows",
                                json_quote(language).s);
    if (seed && !parse_u64(seed, &out->seed))
        return json_reader_fail(r, BW_ERR_INVALID, "seed", "%s is not a decimal 64-bit seed",
                                json_quote(seed).s);
    out->lease_s = (int)lease;
    out->heartbeat_s = (int)hb;
    return BW_OK;
}

/* ---- progress ------------------------------------------------------------------------- */

json_t *wp_progress_encode(json_t *events)
{
    if (!events)
        return NULL;
    return json_pack("{s:o}", "events", events);
}

int wp_progress_decode(json_t *j, struct wp_progress *out, struct json_reader *r)
{
    static const char *const keys[] = {"events", NULL};
    json_t *events;

    out->events = NULL;
    if (json_reader_object(r, "", j) || json_reader_only_keys(r, "", j, keys) ||
        json_reader_get(r, "", j, "events", true, &events) ||
        json_reader_array(r, "events", events, 0, BW_MAX_EVENTS_PER_POST, "BW_MAX_EVENTS_PER_POST"))
        return r->code;
    for (size_t i = 0; i < json_array_size(events); i++) {
        json_t *ev = json_array_get(events, i);
        const char *name = json_string_value(json_object_get(ev, "event"));
        /* said of "events", the field the API names for a bad event */
        if (!json_is_object(ev) || !name || !*name || strlen(name) > 32)
            return json_reader_fail(r, BW_ERR_INVALID, "events",
                                    "element %zu is not an object with a string \"event\" of "
                                    "1..32 bytes",
                                    i);
    }
    out->events = events;
    return BW_OK;
}

/* ---- result --------------------------------------------------------------------------- */

json_t *wp_result_encode(json_t *result)
{
    if (!result)
        return NULL;
    return json_pack("{s:o}", "result", result);
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

static int read_test(struct json_reader *r, const char *path, json_t *t, struct wp_test *bt)
{
    bt->message = NULL;
    json_reader_object(r, path, t);
    json_reader_get_string(r, path, t, "name", true, 1, 256, NULL, &bt->name);
    json_reader_get_string(r, path, t, "message", false, 0, 4096, NULL, &bt->message);
    json_reader_get_number(r, path, t, "ms", false, 0, 1e12, &bt->ms);
    return read_verdict(r, path, t, "verdict", &bt->verdict);
}

static int read_bench(struct json_reader *r, const char *path, json_t *t, struct wp_bench *bb)
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
    json_reader_get_number(r, path, t, "sol_pct", false, 0, 1e9, &bb->sol_pct);
    return json_reader_get_number(r, path, t, "pytorch_ms", false, 0, 1e12, &bb->pytorch_ms);
}

/* A profile's number at path.key: absent, null (the GPU did not give it) or in 0..hi. */
static int profile_number(struct json_reader *r, const char *path, json_t *obj, const char *key,
                          double hi)
{
    json_t *v;
    double x;

    if (json_reader_get(r, path, obj, key, false, &v) || !v || json_is_null(v))
        return r->code;
    return json_reader_number(r, json_path_key(path, key).s, v, 0, hi, &x);
}

/* A profile's string at path.key: absent, null, or at most BW_MAX_PROFILE_TEXT bytes; with `words`
 * (NULL-terminated), one of them. */
static int profile_text(struct json_reader *r, const char *path, json_t *obj, const char *key,
                        const char *const *words)
{
    json_t *v;
    const char *s;

    if (json_reader_get(r, path, obj, key, false, &v) || !v || json_is_null(v))
        return r->code;
    struct json_path at = json_path_key(path, key);
    if (json_reader_string(r, at.s, v, 0, BW_MAX_PROFILE_TEXT, "BW_MAX_PROFILE_TEXT", &s) || !words)
        return r->code;
    size_t n = 0;
    for (; words[n]; n++)
        if (strcmp(s, words[n]) == 0)
            return BW_OK;
    return json_reader_fail(r, BW_ERR_INVALID, at.s, "%s is not a known word (expected one of: %s)",
                            json_quote(s).s, json_join(words, n).s);
}

/* [x, y, z] of a launch's grid or block, each 0..2^31-1; absent or null is fine. */
static int profile_dims(struct json_reader *r, const char *path, json_t *obj, const char *key)
{
    json_t *v;
    int64_t x;

    if (json_reader_get(r, path, obj, key, false, &v) || !v || json_is_null(v))
        return r->code;
    struct json_path at = json_path_key(path, key);
    if (json_reader_array(r, at.s, v, 3, 3, NULL))
        return r->code;
    for (size_t i = 0; i < 3; i++)
        if (json_reader_int(r, json_path_at(at.s, "[%zu]", i).s, json_array_get(v, i), 0, INT32_MAX,
                            &x))
            return r->code;
    return BW_OK;
}

/* A profile is stored inside its result: the result's body cap must leave room for the rest of
 * it (tests, compile log, diagnostics) beside the largest profile. */
_Static_assert(BW_MAX_PROFILE_BYTES * 4 <= BW_MAX_RESULT_BODY_BYTES,
               "a result body must hold the largest profile with room to spare");

#define PROFILE_PCT_MAX 1000.0 /* a counter's % of peak can pass 100 a little; not by 10x */

static int read_profile_kernel(struct json_reader *r, const char *path, json_t *k)
{
    static const char *const pcts[] = {
        "dram_pct",
        "l2_pct",
        "l1_pct",
        "sm_pct",
        "fma_pct",
        "tensor_pct",
        "l1_hit_pct",
        "l2_hit_pct",
        "occupancy_achieved_pct",
        "occupancy_theoretical_pct",
    };
    static const char *const limiters[] = {"memory", "compute", "latency", NULL};
    static const char *const occupancy[] = {"registers",     "shared memory", "threads per block",
                                            "blocks per SM", "none",          NULL};
    json_t *stalls;
    const char *name;
    int64_t launch;

    if (json_reader_object(r, path, k) ||
        json_reader_get_string(r, path, k, "kernel", true, 1, 256, NULL, &name) ||
        json_reader_get_int(r, path, k, "launch", true, 0, BW_MAX_LAUNCHES - 1, &launch) ||
        profile_dims(r, path, k, "grid") || profile_dims(r, path, k, "block") ||
        profile_number(r, path, k, "duration_ms", 1e9) ||
        profile_number(r, path, k, "dram_bytes", 1e18) ||
        profile_number(r, path, k, "model_bytes", 1e18) ||
        profile_text(r, path, k, "occupancy_limiter", occupancy) ||
        profile_text(r, path, k, "limiter", limiters) || profile_text(r, path, k, "reading", NULL))
        return r->code;
    for (size_t i = 0; i < sizeof(pcts) / sizeof(pcts[0]); i++)
        if (profile_number(r, path, k, pcts[i], PROFILE_PCT_MAX))
            return r->code;
    struct json_path at = json_path_key(path, "stalls");
    if (json_reader_get(r, path, k, "stalls", false, &stalls) ||
        (stalls && !json_is_null(stalls) &&
         json_reader_array(r, at.s, stalls, 0, BW_MAX_PROFILE_STALLS, "BW_MAX_PROFILE_STALLS")))
        return r->code;
    for (size_t i = 0; json_is_array(stalls) && i < json_array_size(stalls); i++) {
        struct json_path st = json_path_at(at.s, "[%zu]", i);
        json_t *one = json_array_get(stalls, i);
        if (json_reader_object(r, st.s, one) ||
            json_reader_get_string(r, st.s, one, "reason", true, 1, BW_MAX_PROFILE_TEXT,
                                   "BW_MAX_PROFILE_TEXT", &name) ||
            profile_number(r, st.s, one, "pct", PROFILE_PCT_MAX))
            return r->code;
    }
    return BW_OK;
}

/* "raw": {"KERNEL#LAUNCH": {METRIC: number, string or null}}, one entry per kernel launch. */
static int read_profile_raw(struct json_reader *r, const char *path, json_t *raw)
{
    const char *name, *metric;
    json_t *metrics, *v;

    if (json_reader_object(r, path, raw))
        return r->code;
    if (json_object_size(raw) > BW_MAX_LAUNCHES)
        return json_reader_fail(r, BW_ERR_LIMIT, path,
                                "%zu kernel launches is over the limit of %d (BW_MAX_LAUNCHES)",
                                json_object_size(raw), BW_MAX_LAUNCHES);
    json_object_foreach (raw, name, metrics) {
        struct json_path at = json_path_key(path, name);
        if (strlen(name) > 300)
            return json_reader_fail(r, BW_ERR_INVALID, path,
                                    "a key of %zu bytes is not KERNEL#LAUNCH (at most 300)",
                                    strlen(name));
        if (json_reader_object(r, at.s, metrics))
            return r->code;
        if (json_object_size(metrics) > BW_MAX_PROFILE_METRICS)
            return json_reader_fail(r, BW_ERR_LIMIT, at.s,
                                    "%zu metrics is over the limit of %d (BW_MAX_PROFILE_METRICS)",
                                    json_object_size(metrics), BW_MAX_PROFILE_METRICS);
        json_object_foreach (metrics, metric, v) {
            if (strlen(metric) < 1 || strlen(metric) > 128)
                return json_reader_fail(r, BW_ERR_INVALID, at.s,
                                        "a metric name of %zu bytes (expected 1..128)",
                                        strlen(metric));
            if (json_is_string(v) && json_string_length(v) > BW_MAX_PROFILE_TEXT)
                return json_reader_fail(r, BW_ERR_LIMIT, json_path_key(at.s, metric).s,
                                        "a value of %zu bytes is over the limit of %d "
                                        "(BW_MAX_PROFILE_TEXT)",
                                        json_string_length(v), BW_MAX_PROFILE_TEXT);
            if (!json_is_number(v) && !json_is_string(v) && !json_is_null(v))
                return json_reader_fail(r, BW_ERR_INVALID, json_path_key(at.s, metric).s,
                                        "%s is not a metric's value (expected a number, a "
                                        "string or null)",
                                        json_show(v).s);
        }
    }
    return BW_OK;
}

static int read_profile(struct json_reader *r, json_t *res, struct wp_profile *out)
{
    static const char path[] = "result.profile";
    json_t *p, *kernels, *raw;

    out->why = "";
    if (json_reader_get(r, "result", res, "profile", false, &p) || !p || json_is_null(p))
        return r->code;
    if (json_reader_object(r, path, p))
        return r->code;
    size_t bytes = json_dumpb(p, NULL, 0, JSON_COMPACT);
    if (bytes > BW_MAX_PROFILE_BYTES)
        return json_reader_fail(r, BW_ERR_LIMIT, path,
                                "%zu bytes is over the limit of %d (BW_MAX_PROFILE_BYTES)", bytes,
                                BW_MAX_PROFILE_BYTES);
    out->present = true;
    if (json_reader_get_bool(r, path, p, "available", true, &out->available))
        return r->code;
    if (!out->available)
        return json_reader_get_string(r, path, p, "why", true, 1, BW_MAX_PROFILE_TEXT,
                                      "BW_MAX_PROFILE_TEXT", &out->why);
    if (profile_text(r, path, p, "case", NULL) || profile_text(r, path, p, "profiler", NULL) ||
        profile_text(r, path, p, "reading", NULL) || profile_number(r, path, p, "wall_ms", 1e9) ||
        json_reader_get(r, path, p, "kernels", true, &kernels) ||
        json_reader_array(r, "result.profile.kernels", kernels, 0, BW_MAX_LAUNCHES,
                          "BW_MAX_LAUNCHES"))
        return r->code;
    for (size_t i = 0; i < json_array_size(kernels); i++, out->n_kernels++)
        if (read_profile_kernel(r, json_path_at("result.profile.kernels", "[%zu]", i).s,
                                json_array_get(kernels, i)))
            return r->code;
    if (json_reader_get(r, path, p, "raw", false, &raw) || !raw || json_is_null(raw))
        return r->code;
    return read_profile_raw(r, "result.profile.raw", raw);
}

int wp_result_decode(json_t *j, struct wp_result *out, struct json_reader *r)
{
    static const char *const keys[] = {"result", NULL};
    json_t *res, *gpu, *tests, *benches;

    memset(out, 0, sizeof(*out));
    out->message = "";
    out->gpu_name = "";
    if (json_reader_object(r, "", j) || json_reader_only_keys(r, "", j, keys) ||
        json_reader_get(r, "", j, "result", true, &res) || json_reader_object(r, "result", res))
        return r->code;
    out->result = res;
    out->executed = true;
    if (read_verdict(r, "result", res, "verdict", &out->verdict) ||
        json_reader_get_string(r, "result", res, "message", false, 0, WP_RESULT_MESSAGE_BYTES,
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
    return read_profile(r, res, &out->profile);
}

/* ---- internal error ------------------------------------------------------------------- */

json_t *wp_internal_error_encode(const struct wp_internal_error *m)
{
    return json_pack("{s:s, s:b}", "message",
                     m->message && *m->message ? m->message : "unknown error", "problem_fault",
                     m->problem_fault);
}

int wp_internal_error_decode(json_t *j, struct wp_internal_error *out, struct json_reader *r)
{
    static const char *const keys[] = {"message", "problem_fault", NULL};

    memset(out, 0, sizeof(*out));
    if (json_reader_object(r, "", j) || json_reader_only_keys(r, "", j, keys))
        return r->code;
    json_reader_get_string(r, "", j, "message", true, 1, BW_MAX_MESSAGE_FIELD, NULL, &out->message);
    return json_reader_get_bool(r, "", j, "problem_fault", false, &out->problem_fault);
}
