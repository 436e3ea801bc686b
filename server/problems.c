#include "problems.h"

#include <dirent.h>
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <time.h>

#include <md4c-html.h>

#include "api.h"
#include "bodies.h"
#include "store/store.h"
#include "http.h"
#include "server.h"
#include "common/buf.h"
#include "common/dtype.h"
#include "common/error.h"
#include "common/expr.h"
#include "common/language.h"
#include "common/limits.h"
#include "common/log.h"
#include "common/util.h"
#include "problem/bundle.h"
#include "problem/problem.h"
#include "common/banned.h"

struct problem_set_holder {
    pthread_mutex_t lock;
    struct problem_set *cur;
};

static void html_out(const MD_CHAR *text, MD_SIZE size, void *arg)
{
    struct buf *b = arg;
    if (buf_append(b, text, size) < 0)
        b->max = 0; /* mark as failed; later appends fail too */
}

bool problems_url_allowed(const char *v, size_t n)
{
    static const char *const allowed[] = {"http", "https", "mailto"};
    size_t i = 0;
    while (i < n &&
           ((v[i] >= 'a' && v[i] <= 'z') || (v[i] >= 'A' && v[i] <= 'Z') ||
            (i > 0 && ((v[i] >= '0' && v[i] <= '9') || v[i] == '+' || v[i] == '-' || v[i] == '.'))))
        i++;
    if (i == 0 || i >= n || v[i] != ':')
        return true; /* no scheme: a relative link or a fragment */
    for (size_t k = 0; k < sizeof(allowed) / sizeof(allowed[0]); k++) {
        if (strlen(allowed[k]) == i && strncasecmp(v, allowed[k], i) == 0)
            return true;
    }
    return false;
}

/* The first `needle` in the `n` bytes at `hay`, or NULL. */
static const char *find(const char *hay, size_t n, const char *needle)
{
    size_t m = strlen(needle);
    for (size_t k = 0; k + m <= n; k++)
        if (hay[k] == needle[0] && strncmp(hay + k, needle, m) == 0)
            return hay + k;
    return NULL;
}

/* Drops every href or src attribute whose URL problems_url_allowed() refuses
 * (the link text or the image's alt stays). With raw HTML off, md4c writes
 * every '"' of text as &quot;, so ` href="` and ` src="` in its output are
 * always its own attributes, and it has decoded entities in the URL already
 * (&#106;avascript: and javascript&colon; arrive as javascript:), leaving
 * only &amp; and &#x27; as entities and percent-encoding blanks and controls,
 * which no browser strips from a scheme. Returns a *new* string, or NULL. */
static char *drop_unsafe_urls(const char *html, size_t len)
{
    struct buf out;
    if (!html)
        return NULL;
    buf_init(&out, BW_MAX_STATEMENT_HTML_BYTES);
    size_t i = 0;
    int rc = BW_OK;
    while (i < len && rc == BW_OK) {
        const char *href = find(html + i, len - i, " href=\"");
        const char *src = find(html + i, len - i, " src=\"");
        const char *at = href && (!src || href < src) ? href : src;
        if (!at) {
            rc = buf_append(&out, html + i, len - i);
            break;
        }
        size_t skip = at == href ? 7 : 6;
        const char *value = at + skip;
        const char *end = memchr(value, '"', (size_t)(html + len - value));
        if (!end) {
            rc = buf_append(&out, html + i, len - i);
            break;
        }
        rc = buf_append(&out, html + i, (size_t)(at - (html + i)));
        if (rc == BW_OK && problems_url_allowed(value, (size_t)(end - value)))
            rc = buf_append(&out, at, (size_t)(end + 1 - at));
        i = (size_t)(end + 1 - html);
    }
    if (rc < 0) {
        buf_release(&out);
        return NULL;
    }
    return buf_detach(&out);
}

char *problems_markdown_html(const char *md, size_t len)
{
    struct buf b;
    buf_init(&b, BW_MAX_STATEMENT_HTML_BYTES);
    unsigned flags = MD_FLAG_TABLES | MD_FLAG_STRIKETHROUGH | MD_FLAG_LATEXMATHSPANS |
                     MD_FLAG_NOHTML | MD_FLAG_PERMISSIVEURLAUTOLINKS;
    if (md_html(md, (MD_SIZE)len, html_out, &b, flags, MD_HTML_FLAG_SKIP_UTF8_BOM) != 0 ||
        b.max == 0) {
        buf_release(&b);
        return NULL;
    }
    if (!b.data) /* nothing rendered: an empty statement */
        return buf_detach(&b);
    char *safe = drop_unsafe_urls(b.data, b.len);
    buf_release(&b);
    return safe;
}

static const char *role_name(enum tensor_role r)
{
    return r == ROLE_IN ? "in" : r == ROLE_OUT ? "out" : "inout";
}

static const char *peak_name(enum peak_kind k)
{
    switch (k) {
    case PEAK_FP32:
        return "fp32";
    case PEAK_FP16_TENSOR:
        return "fp16_tensor";
    case PEAK_BF16_TENSOR:
        return "bf16_tensor";
    default:
        return "none";
    }
}

/* The shapes a goal looks at, by name; null when it looks at every benchmark. */
static json_t *goal_shapes_json(const struct problem *p, const struct goal_spec *g)
{
    json_t *names = json_array();
    size_t n = 0;
    for (size_t b = 0; b < p->n_benchmarks; b++)
        if (g->shapes[b]) {
            json_array_append_new(names, json_string(p->benchmarks[b].name));
            n++;
        }
    if (n == p->n_benchmarks) {
        json_decref(names);
        return json_null();
    }
    return names;
}

/*
 * One learning goal as the problem page shows it before a submission: what
 * is checked and the line to reach (docs/problem-format.md §9), the fields
 * of its kind only. The page words it; the judge's outcome comes later.
 */
static json_t *goal_json(const struct problem *p, const struct goal_spec *g)
{
    json_t *j = json_pack("{s:s, s:s, s:s?}", "name", g->name, "kind", goal_kind_name(g->kind),
                          "description", g->description);
    switch (g->kind) {
    case GOAL_AUTOTUNE:
        json_object_set_new(j, "min_configs", json_integer(g->min_configs));
        if (g->min_gain > 0)
            json_object_set_new(j, "min_gain", json_real(g->min_gain));
        break;
    case GOAL_REBUILD: {
        json_t *defs = json_object();
        for (size_t i = 0; i < g->n_defines; i++)
            json_object_set_new(defs, g->defines[i].name, json_integer(g->defines[i].value));
        json_object_set_new(j, "const", defs);
        json_object_set_new(j, "min_speedup", json_real(g->min_speedup));
        json_object_set_new(j, "shapes", goal_shapes_json(p, g));
        break;
    }
    case GOAL_SASS: {
        json_t *req = json_array();
        for (size_t i = 0; i < g->n_require; i++)
            json_array_append_new(req, json_string(g->require[i]));
        json_object_set_new(j, "require", req);
        if (g->n_kernels) {
            json_t *k = json_array();
            for (size_t i = 0; i < g->n_kernels; i++)
                json_array_append_new(k, json_string(g->kernels[i]));
            json_object_set_new(j, "kernels", k);
        }
        break;
    }
    case GOAL_BANDWIDTH:
        json_object_set_new(j, "bytes", json_string(expr_text(g->bytes)));
        json_object_set_new(j, "min_pct", json_real(g->min_pct));
        json_object_set_new(j, "shapes", goal_shapes_json(p, g));
        break;
    case GOAL_COMPARE: {
        json_t *pairs = json_array();
        for (size_t i = 0; i < g->n_pairs; i++)
            json_array_append_new(
                pairs, json_pack("{s:s, s:s}", "shape", p->benchmarks[g->pairs[i].shape].name,
                                 "baseline", p->benchmarks[g->pairs[i].baseline].name));
        json_object_set_new(j, "pairs", pairs);
        json_object_set_new(j, "min_speedup", json_real(g->min_speedup));
        break;
    }
    case GOAL_ROOFLINE:
        json_object_set_new(j, "min_pct", json_real(g->min_pct));
        json_object_set_new(j, "shapes", goal_shapes_json(p, g));
        break;
    }
    return j;
}

/* The languages a problem is offered in, by name: ["cuda", "triton"]. */
static json_t *languages_json(const struct problem *p)
{
    json_t *a = json_array();
    for (int l = 0; l < LANG_COUNT; l++)
        if (p->languages[l])
            json_array_append_new(a, json_string(language_name((enum language)l)));
    return a;
}

static json_t *summary_json(const struct problem_entry *e)
{
    const struct problem *p = e->p;
    return json_pack("{s:s, s:i, s:s, s:i, s:s, s:o}", "id", p->id, "number", p->number, "title",
                     p->title, "step", p->step, "hash", e->hash, "languages", languages_json(p));
}

/*
 * The Triton type of an argument as the learner declares it, the type
 * kernel[grid](...) would give it and the judge's plan gives it
 * (plan_arg_triton_type; docs/submission-format.md, "Types and
 * specialisation"): a tensor is a pointer to its dtype (dtype_triton_name); a
 * float scalar is fp32, as Triton types a Python float; an integer (a size or
 * an integer scalar) i32 when its value fits in 32 bits in a case and i64
 * otherwise, which only the case decides (an unsigned 64-bit one above
 * 2^63 - 1 is u64).
 */
static void triton_pointer(enum dtype t, char *out, size_t cap)
{
    snprintf(out, cap, "*%s", dtype_triton_name(t));
}

static const char *triton_scalar(enum dtype t)
{
    switch (t) {
    case DTYPE_FP64:
    case DTYPE_FP32:
        return "fp32";
    case DTYPE_INT8:
    case DTYPE_UINT8:
    case DTYPE_INT32:
        return "i32";
    case DTYPE_UINT64:
        return "i32, i64 or u64";
    default:
        return "i32 or i64";
    }
}

#define TRITON_SIZE_TYPE "i32 or i64"
#define CUDA_SIZE_TYPE   "long long"

/* The arguments args=() may name, with the types a kernel declares for them
 * in language `l`: tensors, then sizes, then scalars. */
static json_t *signature_json(const struct problem *p, enum language l)
{
    json_t *a = json_array();
    for (size_t i = 0; i < p->n_tensors; i++) {
        const struct tensor_spec *t = &p->tensors[i];
        char type[64];
        if (l == LANG_TRITON)
            triton_pointer(t->dtype, type, sizeof(type));
        else
            snprintf(type, sizeof(type), "%s%s*", t->role == ROLE_IN ? "const " : "",
                     dtype_c_name(t->dtype));
        json_t *shape = json_array();
        for (int d = 0; d < t->ndim; d++)
            json_array_append_new(shape, json_string(expr_text(t->shape[d])));
        json_array_append_new(a, json_pack("{s:s, s:s, s:s, s:o, s:s}", "name", t->name, "kind",
                                           "tensor", "type", type, "shape", shape, "role",
                                           role_name(t->role)));
    }
    for (size_t i = 0; i < p->n_sizes; i++)
        json_array_append_new(a, json_pack("{s:s, s:s, s:s}", "name", p->size_names[i], "kind",
                                           "size", "type",
                                           l == LANG_TRITON ? TRITON_SIZE_TYPE : CUDA_SIZE_TYPE));
    for (size_t i = 0; i < p->n_scalars; i++)
        json_array_append_new(a, json_pack("{s:s, s:s, s:s, s:f}", "name", p->scalars[i].name,
                                           "kind", "scalar", "type",
                                           l == LANG_TRITON ? triton_scalar(p->scalars[i].dtype)
                                                            : dtype_c_name(p->scalars[i].dtype),
                                           "default", p->scalars[i].value));
    return a;
}

/* Builds the detail JSON of one problem; NULL with *cause on failure. */
static char *detail_json(const struct problem_entry *e, size_t *len, char **cause)
{
    const struct problem *p = e->p;
    char *md = NULL, *html = NULL, *text = NULL;
    char *starter[LANG_COUNT] = {NULL};
    size_t md_len = 0, starter_len = 0;
    char *md_path = path_join(p->dir, "statement.md");
    if (!md_path) {
        bw_fail(cause, BW_ERR_NOMEM, "out of memory");
        goto out;
    }
    /* opened within the directory, never through a link (the loader refused links already;
     * this holds if one was put there since) */
    if (read_file_in_dir(p->dir, "statement.md", BW_MAX_STATEMENT_BYTES, &md, &md_len, cause) < 0)
        goto out;
    /* The starter of each language: starter.cu, starter.py (common/language.h). */
    for (int l = 0; l < LANG_COUNT; l++) {
        if (!p->languages[l])
            continue;
        char name[32];
        snprintf(name, sizeof(name), "starter%s", language_extension((enum language)l));
        if (read_file_in_dir(p->dir, name, BW_MAX_SOURCE_BYTES, &starter[l], &starter_len, cause) <
            0)
            goto out;
    }
    html = problems_markdown_html(md, md_len);
    if (!html) {
        bw_fail(cause, BW_ERR_LIMIT, "%s: rendered HTML over %d bytes or not renderable", md_path,
                BW_MAX_STATEMENT_HTML_BYTES);
        goto out;
    }
    json_t *sizes = json_array(), *scalars = json_array(), *tensors = json_array(),
           *benches = json_array(), *goals = json_array();
    for (size_t i = 0; i < p->n_goals; i++)
        json_array_append_new(goals, goal_json(p, &p->goals[i]));
    for (size_t i = 0; i < p->n_sizes; i++)
        json_array_append_new(sizes, json_string(p->size_names[i]));
    for (size_t i = 0; i < p->n_scalars; i++)
        json_array_append_new(scalars, json_pack("{s:s, s:s, s:s, s:f}", "name", p->scalars[i].name,
                                                 "dtype", dtype_name(p->scalars[i].dtype), "c_type",
                                                 dtype_c_name(p->scalars[i].dtype), "default",
                                                 p->scalars[i].value));
    for (size_t i = 0; i < p->n_tensors; i++) {
        const struct tensor_spec *t = &p->tensors[i];
        json_t *shape = json_array();
        for (int d = 0; d < t->ndim; d++)
            json_array_append_new(shape, json_string(expr_text(t->shape[d])));
        char ctype[64];
        snprintf(ctype, sizeof(ctype), "%s%s*", t->role == ROLE_IN ? "const " : "",
                 dtype_c_name(t->dtype));
        json_array_append_new(tensors,
                              json_pack("{s:s, s:s, s:s, s:o, s:s}", "name", t->name, "dtype",
                                        dtype_name(t->dtype), "role", role_name(t->role), "shape",
                                        shape, "c_type", ctype));
    }
    for (size_t i = 0; i < p->n_benchmarks; i++) {
        json_t *bs = json_object();
        for (size_t k = 0; k < p->n_sizes; k++)
            json_object_set_new(bs, p->size_names[k], json_integer(p->benchmarks[i].sizes[k]));
        json_array_append_new(benches,
                              json_pack("{s:s, s:o}", "name", p->benchmarks[i].name, "sizes", bs));
    }
    json_t *starters = json_object(), *signatures = json_object();
    for (int l = 0; l < LANG_COUNT; l++) {
        if (!p->languages[l])
            continue;
        json_t *text_l = json_string(starter[l]);
        if (!text_l) {
            bw_fail(cause, BW_ERR_INVALID, "%s: starter%s is not UTF-8 text", p->dir,
                    language_extension((enum language)l));
            json_decref(starters);
            json_decref(signatures);
            json_decref(sizes);
            json_decref(scalars);
            json_decref(tensors);
            json_decref(benches);
            json_decref(goals);
            goto out;
        }
        json_object_set_new(starters, language_name((enum language)l), text_l);
        json_object_set_new(signatures, language_name((enum language)l),
                            signature_json(p, (enum language)l));
    }
    json_t *doc = json_pack(
        "{s:o, s:s, s:s, s:o, s:o, s:o, s:o, s:o, s:o, s:i, s:o, s:s, "
        "s:{s:i}, s:o}",
        "problem", summary_json(e), "statement_html", html, "starter", starter[LANG_CUDA],
        "languages", languages_json(p), "starters", starters, "signatures", signatures, "sizes",
        sizes, "scalars", scalars, "tensors", tensors, "tests", (int)p->n_tests, "benchmarks",
        benches, "peak", peak_name(p->peak), "limits", "run_ms", p->run_ms, "goals", goals);
    if (!doc) {
        bw_fail(cause, BW_ERR_INVALID, "%s: statement or starter is not UTF-8 text", p->dir);
        goto out;
    }
    text = json_dumps(doc, JSON_COMPACT);
    json_decref(doc);
    if (!text)
        bw_fail(cause, BW_ERR_NOMEM, "out of memory");
    else
        *len = strlen(text);
out:
    free(md_path);
    free(md);
    for (int l = 0; l < LANG_COUNT; l++)
        free(starter[l]);
    free(html);
    return text;
}

static void entry_release(struct problem_entry *e)
{
    problem_free(e->p);
    free(e->detail_json);
}

void problems_set_unref_unlocked(struct problem_set *set)
{
    if (!set || --set->refs > 0)
        return;
    for (size_t i = 0; i < set->n; i++)
        entry_release(&set->v[i]);
    for (size_t i = 0; i < set->n_failed; i++) {
        free(set->failed[i].dir);
        free(set->failed[i].error);
    }
    free(set->v);
    free(set->failed);
    free(set->list_json);
    free(set);
}

static int entry_cmp(const void *a, const void *b)
{
    const struct problem_entry *x = a, *y = b;
    if (x->p->number != y->p->number)
        return x->p->number < y->p->number ? -1 : 1;
    return strcmp(x->p->id, y->p->id);
}

static int add_failure(struct problem_set *set, const char *dir, const char *error)
{
    struct problem_failure *f = realloc(set->failed, (set->n_failed + 1) * sizeof(*f));
    if (!f)
        return BW_ERR_NOMEM;
    set->failed = f;
    f[set->n_failed].dir = strdup(dir);
    f[set->n_failed].error = strdup(error ? error : "unknown error");
    set->n_failed++;
    log_error("problems: %s: not served: %s", dir, error ? error : "unknown error");
    return BW_OK;
}

/* Stores the bundle and the problem row. */
static int record(struct store *st, const struct problem_entry *e, const char *bundle, size_t len,
                  char **cause)
{
    if (!st)
        return BW_OK; /* a check (--check-config): nothing is recorded */
    return store_problem_record(st, e->p->id, e->p->title, e->hash, bundle, len,
                                (int64_t)time(NULL), cause);
}

/* The entry already loaded with path number n (problem.json "number"), or NULL. */
static const struct problem_entry *find_number(const struct problem_set *set, int n)
{
    for (size_t i = 0; i < set->n; i++)
        if (set->v[i].p->number == n)
            return &set->v[i];
    return NULL;
}

static int name_cmp(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

int problems_load(const char *dir, struct store *store, struct problem_set **out, char **cause)
{
    DIR *d = opendir(dir);
    if (!d)
        return bw_fail(cause, BW_ERR_IO, "problems directory %s: %s", dir, strerror(errno));
    char **names = NULL;
    size_t n_names = 0;
    struct dirent *de;
    int rc = BW_OK;
    while ((de = readdir(d)) != NULL) {
        if (de->d_name[0] == '.')
            continue;
        char **grown = realloc(names, (n_names + 1) * sizeof(*names));
        if (!grown || !(grown[n_names] = strdup(de->d_name))) {
            names = grown ? grown : names;
            rc = bw_fail(cause, BW_ERR_NOMEM, "out of memory");
            break;
        }
        names = grown;
        n_names++;
    }
    closedir(d);
    struct problem_set *set = calloc(1, sizeof(*set));
    if (!set && rc == BW_OK)
        rc = bw_fail(cause, BW_ERR_NOMEM, "out of memory");
    if (rc == BW_OK) {
        set->refs = 1;
        set->v = calloc(n_names ? n_names : 1, sizeof(*set->v));
        if (!set->v)
            rc = bw_fail(cause, BW_ERR_NOMEM, "out of memory");
    }
    if (names)
        qsort(names, n_names, sizeof(*names), name_cmp);
    for (size_t i = 0; rc == BW_OK && i < n_names; i++) {
        char *path = path_join(dir, names[i]);
        struct stat st;
        if (!path) {
            rc = bw_fail(cause, BW_ERR_NOMEM, "out of memory");
            break;
        }
        if (stat(path, &st) != 0 || !S_ISDIR(st.st_mode)) {
            free(path);
            continue;
        }
        char *err = NULL, *bundle = NULL;
        size_t bundle_len = 0;
        struct problem_entry e = {0};
        e.p = problem_load(path, &err);
        if (e.p && !body_problem_id_ok(e.p->id))
            bw_fail(&err, BW_ERR_INVALID, "%s: id \"%s\" is not [a-z0-9-]", path, e.p->id);
        else if (e.p && problems_find(set, e.p->id))
            bw_fail(&err, BW_ERR_INVALID, "%s: id \"%s\" is used twice", path, e.p->id);
        else if (e.p && find_number(set, e.p->number))
            /* two problems at one place of the path: the first in name order is served */
            bw_fail(&err, BW_ERR_INVALID, "%s: number %d is already %s's (%s)", path, e.p->number,
                    find_number(set, e.p->number)->p->id, find_number(set, e.p->number)->p->dir);
        else if (e.p && bundle_pack(path, e.p->id, &bundle, &bundle_len, e.hash, &err) == BW_OK &&
                 (e.detail_json = detail_json(&e, &e.detail_len, &err)) != NULL &&
                 record(store, &e, bundle, bundle_len, &err) == BW_OK) {
            set->v[set->n++] = e;
            e.p = NULL;
            e.detail_json = NULL;
            log_info("problems: loaded %s (%s) hash %.12s", set->v[set->n - 1].p->id,
                     set->v[set->n - 1].p->title, set->v[set->n - 1].hash);
        }
        if (e.p || err) {
            if (add_failure(set, path, err) < 0)
                rc = bw_fail(cause, BW_ERR_NOMEM, "out of memory");
            entry_release(&e);
        }
        free(bundle);
        free(err);
        free(path);
    }
    for (size_t i = 0; i < n_names; i++)
        free(names[i]);
    free(names);
    if (rc == BW_OK) {
        qsort(set->v, set->n, sizeof(*set->v), entry_cmp);
        json_t *list = json_array();
        for (size_t i = 0; i < set->n; i++)
            json_array_append_new(list, summary_json(&set->v[i]));
        json_t *doc = json_pack("{s:o}", "problems", list);
        set->list_json = doc ? json_dumps(doc, JSON_COMPACT) : NULL;
        json_decref(doc);
        if (!set->list_json)
            rc = bw_fail(cause, BW_ERR_NOMEM, "out of memory");
        else
            set->list_len = strlen(set->list_json);
    }
    if (rc < 0) {
        problems_set_unref_unlocked(set);
        return rc;
    }
    *out = set;
    return BW_OK;
}

struct problem_set_holder *problems_holder_new(struct problem_set *initial)
{
    struct problem_set_holder *h = calloc(1, sizeof(*h));
    if (!h)
        return NULL;
    pthread_mutex_init(&h->lock, NULL);
    h->cur = initial;
    return h;
}

void problems_holder_free(struct problem_set_holder *h)
{
    if (!h)
        return;
    problems_set_unref_unlocked(h->cur);
    pthread_mutex_destroy(&h->lock);
    free(h);
}

void problems_swap(struct problem_set_holder *h, struct problem_set *set)
{
    pthread_mutex_lock(&h->lock);
    struct problem_set *old = h->cur;
    h->cur = set;
    problems_set_unref_unlocked(old);
    pthread_mutex_unlock(&h->lock);
}

struct problem_set *problems_get(struct problem_set_holder *h)
{
    pthread_mutex_lock(&h->lock);
    struct problem_set *set = h->cur;
    set->refs++;
    pthread_mutex_unlock(&h->lock);
    return set;
}

void problems_put(struct problem_set_holder *h, struct problem_set *set)
{
    pthread_mutex_lock(&h->lock);
    problems_set_unref_unlocked(set);
    pthread_mutex_unlock(&h->lock);
}

const struct problem_entry *problems_find(const struct problem_set *set, const char *id)
{
    for (size_t i = 0; i < set->n; i++) {
        if (strcmp(set->v[i].p->id, id) == 0)
            return &set->v[i];
    }
    return NULL;
}

int problems_h_list(struct http_request *req, struct http_response *res)
{
    struct server *s = req->app;
    struct problem_set *set = problems_get(s->problems);
    int status = http_text(res, 200, "application/json", set->list_json, set->list_len);
    problems_put(s->problems, set);
    return status;
}

int problems_h_get(struct http_request *req, struct http_response *res)
{
    struct server *s = req->app;
    struct problem_set *set = problems_get(s->problems);
    const struct problem_entry *e = problems_find(set, req->params[0]);
    const char *id = req->params[0];
    int status =
        e ? http_text(res, 200, "application/json", e->detail_json, e->detail_len)
        : body_problem_id_ok(id)
            ? api_reply_error(res, 404, "not_found", NULL, "no problem \"%s\"", id)
            : api_reply_error(res, 404, "not_found", NULL,
                              "no problem \"%.64s%s\": problem ids are 1 to 64 of a-z 0-9 -", id,
                              strlen(id) > 64 ? "..." : "");
    problems_put(s->problems, set);
    return status;
}
