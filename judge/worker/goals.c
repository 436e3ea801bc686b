/*
 * goals.c - learning-goal outcomes: evaluation, JSON and report lines (see goals.h).
 */
#include "goals.h"

#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "common/error.h"
#include "common/limits.h"
#include "common/banned.h"

#define C_RESET  "\033[0m"
#define C_GREEN  "\033[32m"
#define C_RED    "\033[31m"
#define C_YELLOW "\033[33m"
#define C_DIM    "\033[2m"

#define DEFINES_BYTES 512 /* "SPLIT_K=1, GROUP_M=1" in a message */

const char *goal_status_name(enum goal_status s)
{
    switch (s) {
    case GOAL_STATUS_PASSED:
        return "passed";
    case GOAL_STATUS_SKIPPED:
        return "skipped";
    case GOAL_STATUS_FAILED:
        break;
    }
    return "failed";
}

int goal_outcome_init(struct goal_outcome *o, const struct goal_spec *g)
{
    memset(o, 0, sizeof(*o));
    o->kind = g->kind;
    o->status = GOAL_STATUS_FAILED;
    o->name = strdup(g->name);
    o->description = g->description ? strdup(g->description) : NULL;
    o->data = json_object();
    if (!o->name || !o->data || (g->description && !o->description)) {
        goal_outcome_release(o);
        return BW_ERR_NOMEM;
    }
    return BW_OK;
}

void goal_outcome_release(struct goal_outcome *o)
{
    free(o->name);
    free(o->description);
    free(o->detail);
    json_decref(o->data);
    memset(o, 0, sizeof(*o));
}

void goal_outcome_set(struct goal_outcome *o, enum goal_status st, const char *fmt, ...)
{
    va_list ap;

    o->status = st;
    free(o->detail);
    o->detail = NULL;
    va_start(ap, fmt);
    if (vasprintf(&o->detail, fmt, ap) < 0)
        o->detail = NULL;
    va_end(ap);
}

/* "SPLIT_K=1, GROUP_M=1" */
static void defines_text(const struct goal_spec *g, char *out, size_t cap)
{
    size_t len = 0;

    out[0] = '\0';
    for (size_t k = 0; k < g->n_defines; k++) {
        int n = snprintf(out + len, cap - len, "%s%s=%lld", k ? ", " : "", g->defines[k].name,
                         (long long)g->defines[k].value);
        if (n < 0 || (size_t)n >= cap - len)
            return;
        len += (size_t)n;
    }
}

/* ---- evaluations --------------------------------------------------------------------- */

int goal_eval_autotune(const struct goal_spec *g, const struct problem *p, size_t n_configs,
                       const char *const *config_names, const double *ms, struct goal_outcome *out)
{
    size_t ns = p->n_benchmarks, best_fixed = 0;
    json_t *shapes = json_array();
    double log_best_sum = 0, best_fixed_log = INFINITY, gain = 0;
    bool complete = ns > 0;

    if (!shapes)
        return BW_ERR_NOMEM;
    json_object_set_new(out->data, "configs", json_integer((json_int_t)n_configs));
    json_object_set_new(out->data, "min_configs", json_integer(g->min_configs));
    if (g->min_gain > 0)
        json_object_set_new(out->data, "min_gain", json_real(g->min_gain));
    for (size_t s = 0; s < ns && n_configs > 1; s++) {
        size_t best = 0, worst = 0;
        for (size_t c = 0; c < n_configs; c++) {
            double t = ms[c * ns + s];
            if (!(t > 0)) {
                complete = false;
                continue;
            }
            if (!(ms[best * ns + s] > 0) || t < ms[best * ns + s])
                best = c;
            if (!(ms[worst * ns + s] > 0) || t > ms[worst * ns + s])
                worst = c;
        }
        if (!(ms[best * ns + s] > 0))
            continue;
        log_best_sum += log(ms[best * ns + s]);
        json_array_append_new(shapes, json_pack("{s:s, s:s, s:f, s:s, s:f, s:f}", "shape",
                                                p->benchmarks[s].name, "best", config_names[best],
                                                "best_ms", ms[best * ns + s], "worst",
                                                config_names[worst], "worst_ms", ms[worst * ns + s],
                                                "gain", ms[worst * ns + s] / ms[best * ns + s]));
    }
    json_object_set_new(out->data, "shapes", shapes);

    if (n_configs < (size_t)g->min_configs) {
        if (n_configs <= 1)
            goal_outcome_set(out, GOAL_STATUS_FAILED,
                             "declare @tune with at least %d combinations (this submission has "
                             "no @tune)",
                             g->min_configs);
        else
            goal_outcome_set(
                out, GOAL_STATUS_FAILED,
                "declare @tune with at least %d combinations (this submission has %zu)",
                g->min_configs, n_configs);
        return BW_OK;
    }
    if (ns == 0) {
        goal_outcome_set(out, GOAL_STATUS_SKIPPED, "the problem has no benchmark to time");
        return BW_OK;
    }
    if (!complete) {
        goal_outcome_set(out, GOAL_STATUS_SKIPPED,
                         "not every configuration was timed on every shape");
        return BW_OK;
    }
    for (size_t c = 0; c < n_configs; c++) {
        double sum = 0;
        for (size_t s = 0; s < ns; s++)
            sum += log(ms[c * ns + s]);
        if (sum < best_fixed_log) {
            best_fixed_log = sum;
            best_fixed = c;
        }
    }
    gain = exp((best_fixed_log - log_best_sum) / (double)ns);
    json_object_set_new(out->data, "gain", json_real(gain));
    json_object_set_new(out->data, "best_fixed", json_string(config_names[best_fixed]));
    if (g->min_gain > 0 && gain < g->min_gain)
        goal_outcome_set(out, GOAL_STATUS_FAILED,
                         "%zu configurations: autotune gain %.3fx over the best single "
                         "configuration (%s), below the %.3fx required",
                         n_configs, gain, config_names[best_fixed], g->min_gain);
    else
        goal_outcome_set(out, GOAL_STATUS_PASSED,
                         "%zu configurations: autotune gain %.3fx over the best single "
                         "configuration (%s)",
                         n_configs, gain, config_names[best_fixed]);
    return BW_OK;
}

int goal_eval_rebuild(const struct goal_spec *g, const struct problem *p,
                      const double *submitted_ms, const double *rebuilt_ms,
                      const char *const *configs, struct goal_outcome *out)
{
    json_t *shapes = json_array(), *consts = json_object();
    char defs[DEFINES_BYTES];
    double lo = INFINITY, hi = 0;
    size_t worst = 0, n = 0;

    if (!shapes || !consts) {
        json_decref(shapes);
        json_decref(consts);
        return BW_ERR_NOMEM;
    }
    defines_text(g, defs, sizeof(defs));
    for (size_t k = 0; k < g->n_defines; k++)
        json_object_set_new(consts, g->defines[k].name, json_integer(g->defines[k].value));
    json_object_set_new(out->data, "const", consts);
    json_object_set_new(out->data, "min_speedup", json_real(g->min_speedup));
    for (size_t b = 0; b < p->n_benchmarks; b++) {
        double sp;
        if (!g->shapes[b])
            continue;
        if (!(submitted_ms[b] > 0) || !(rebuilt_ms[b] > 0)) {
            json_object_set_new(out->data, "shapes", shapes);
            goal_outcome_set(out, GOAL_STATUS_SKIPPED, "%s was not timed", p->benchmarks[b].name);
            return BW_OK;
        }
        sp = rebuilt_ms[b] / submitted_ms[b];
        json_array_append_new(
            shapes, json_pack("{s:s, s:s, s:f, s:f, s:f}", "shape", p->benchmarks[b].name, "config",
                              configs && configs[b] ? configs[b] : "", "submitted_ms",
                              submitted_ms[b], "rebuilt_ms", rebuilt_ms[b], "speedup", sp));
        if (sp < lo) {
            lo = sp;
            worst = b;
        }
        if (sp > hi)
            hi = sp;
        n++;
    }
    json_object_set_new(out->data, "shapes", shapes);
    if (n == 0) {
        goal_outcome_set(out, GOAL_STATUS_SKIPPED, "no benchmark to time");
        return BW_OK;
    }
    if (lo < g->min_speedup)
        goal_outcome_set(out, GOAL_STATUS_FAILED,
                         "speedup %.2fx on %s over the same kernel built with %s (%.2fx "
                         "required)",
                         lo, p->benchmarks[worst].name, defs, g->min_speedup);
    else if (n == 1 || hi - lo < 0.005)
        goal_outcome_set(out, GOAL_STATUS_PASSED,
                         "speedup %.2fx over the same kernel built with %s (%.2fx required)", lo,
                         defs, g->min_speedup);
    else
        goal_outcome_set(out, GOAL_STATUS_PASSED,
                         "speedup %.2fx to %.2fx over the same kernel built with %s (%.2fx "
                         "required)",
                         lo, hi, defs, g->min_speedup);
    return BW_OK;
}

int goal_eval_bandwidth(const struct goal_spec *g, const struct problem *p, const double *median_ms,
                        double copy_gbps, struct goal_outcome *out)
{
    json_t *shapes = json_array();
    double lo = INFINITY;
    size_t worst = 0, n = 0;

    if (!shapes)
        return BW_ERR_NOMEM;
    json_object_set_new(out->data, "bytes", json_string(expr_text(g->bytes)));
    json_object_set_new(out->data, "min_pct", json_real(g->min_pct));
    json_object_set_new(out->data, "copy_gbps", json_real(copy_gbps));
    json_object_set_new(out->data, "shapes", shapes);
    if (!(copy_gbps > 0)) {
        goal_outcome_set(out, GOAL_STATUS_SKIPPED,
                         "this worker has not measured its copy bandwidth (run `judged "
                         "calibrate`)");
        return BW_OK;
    }
    for (size_t b = 0; b < p->n_benchmarks; b++) {
        struct expr_binding vars[BW_MAX_SIZES + BW_MAX_SCALARS];
        struct expr_scope scope;
        char *why = NULL;
        double bytes, gbps, pct;

        if (!g->shapes[b])
            continue;
        if (!(median_ms[b] > 0)) {
            goal_outcome_set(out, GOAL_STATUS_SKIPPED, "%s was not timed", p->benchmarks[b].name);
            return BW_OK;
        }
        problem_formula_scope(p, &p->benchmarks[b], vars, &scope);
        if (expr_eval_real(g->bytes, &scope, &bytes, &why)) {
            goal_outcome_set(out, GOAL_STATUS_SKIPPED, "bytes on %s: %s", p->benchmarks[b].name,
                             why ? why : "cannot evaluate");
            free(why);
            return BW_OK;
        }
        gbps = bytes / (median_ms[b] * 1e6);
        pct = 100.0 * gbps / copy_gbps;
        json_array_append_new(shapes, json_pack("{s:s, s:f, s:f, s:f, s:f}", "shape",
                                                p->benchmarks[b].name, "bytes", bytes, "median_ms",
                                                median_ms[b], "gbps", gbps, "pct", pct));
        if (pct < lo) {
            lo = pct;
            worst = b;
        }
        n++;
    }
    if (n == 0) {
        goal_outcome_set(out, GOAL_STATUS_SKIPPED, "no benchmark to time");
        return BW_OK;
    }
    if (lo < g->min_pct)
        goal_outcome_set(out, GOAL_STATUS_FAILED,
                         "%.1f%% of the copy bandwidth (%.0f GB/s) on %s under the bytes model "
                         "%s (%.0f%% required)",
                         lo, copy_gbps, p->benchmarks[worst].name, expr_text(g->bytes), g->min_pct);
    else
        goal_outcome_set(out, GOAL_STATUS_PASSED,
                         "%s%.1f%% of the copy bandwidth (%.0f GB/s) under the bytes model %s "
                         "(%.0f%% required)",
                         n > 1 ? "at least " : "", lo, copy_gbps, expr_text(g->bytes), g->min_pct);
    return BW_OK;
}

int goal_eval_compare(const struct goal_spec *g, const struct problem *p, const double *median_ms,
                      struct goal_outcome *out)
{
    json_t *pairs = json_array();
    double lo = INFINITY;
    size_t worst = 0;

    if (!pairs)
        return BW_ERR_NOMEM;
    json_object_set_new(out->data, "min_speedup", json_real(g->min_speedup));
    json_object_set_new(out->data, "pairs", pairs);
    for (size_t i = 0; i < g->n_pairs; i++) {
        const struct goal_pair *pr = &g->pairs[i];
        double a = median_ms[pr->shape], b = median_ms[pr->baseline], sp;

        if (!(a > 0) || !(b > 0)) {
            goal_outcome_set(out, GOAL_STATUS_SKIPPED, "%s was not timed",
                             p->benchmarks[a > 0 ? pr->baseline : pr->shape].name);
            return BW_OK;
        }
        sp = b / a;
        json_array_append_new(pairs, json_pack("{s:s, s:s, s:f, s:f, s:f}", "shape",
                                               p->benchmarks[pr->shape].name, "baseline",
                                               p->benchmarks[pr->baseline].name, "shape_ms", a,
                                               "baseline_ms", b, "speedup", sp));
        if (sp < lo) {
            lo = sp;
            worst = i;
        }
    }
    if (g->n_pairs == 0) {
        goal_outcome_set(out, GOAL_STATUS_SKIPPED, "no pair of shapes");
        return BW_OK;
    }
    goal_outcome_set(out, lo < g->min_speedup ? GOAL_STATUS_FAILED : GOAL_STATUS_PASSED,
                     "%s runs %.2fx as fast as %s (%.2fx required)",
                     p->benchmarks[g->pairs[worst].shape].name, lo,
                     p->benchmarks[g->pairs[worst].baseline].name, g->min_speedup);
    return BW_OK;
}

int goal_eval_roofline(const struct goal_spec *g, const struct problem *p, const double *sol_pct,
                       bool calibrated, struct goal_outcome *out)
{
    json_t *shapes = json_array();
    double lo = INFINITY;
    size_t worst = 0, n = 0;

    if (!shapes)
        return BW_ERR_NOMEM;
    json_object_set_new(out->data, "min_pct", json_real(g->min_pct));
    json_object_set_new(out->data, "shapes", shapes);
    if (!calibrated) {
        goal_outcome_set(out, GOAL_STATUS_SKIPPED,
                         "this worker has not measured its GPU's limits (run `judged calibrate`)");
        return BW_OK;
    }
    for (size_t b = 0; b < p->n_benchmarks; b++) {
        if (!g->shapes[b])
            continue;
        if (!(sol_pct[b] > 0)) {
            goal_outcome_set(out, GOAL_STATUS_SKIPPED, "%s was not timed", p->benchmarks[b].name);
            return BW_OK;
        }
        json_array_append_new(
            shapes, json_pack("{s:s, s:f}", "shape", p->benchmarks[b].name, "sol_pct", sol_pct[b]));
        if (sol_pct[b] < lo) {
            lo = sol_pct[b];
            worst = b;
        }
        n++;
    }
    if (n == 0) {
        goal_outcome_set(out, GOAL_STATUS_SKIPPED, "no benchmark to time");
        return BW_OK;
    }
    if (lo < g->min_pct)
        goal_outcome_set(out, GOAL_STATUS_FAILED,
                         "%.1f%% of the speed of light on %s (%.0f%% required)", lo,
                         p->benchmarks[worst].name, g->min_pct);
    else
        goal_outcome_set(out, GOAL_STATUS_PASSED,
                         "%s%.1f%% of the speed of light (%.0f%% required)",
                         n > 1 ? "at least " : "", lo, g->min_pct);
    return BW_OK;
}

int goal_eval_sass(const struct goal_spec *g, const struct sass_scan *scans, size_t n_scans,
                   const char *const *config_names, struct goal_outcome *out)
{
    json_t *found = json_array(), *configs = json_array();
    long fewest[BW_MAX_GOAL_PATTERNS];
    size_t missing = g->n_require;
    char list[512];
    size_t len = 0;

    if (!found || !configs) {
        json_decref(found);
        json_decref(configs);
        return BW_ERR_NOMEM;
    }
    for (size_t c = 0; c < n_scans; c++)
        json_array_append_new(configs, json_string(config_names[c] ? config_names[c] : ""));
    json_object_set_new(out->data, "configs", configs);
    if (g->n_kernels) {
        json_t *k = json_array();
        for (size_t i = 0; i < g->n_kernels; i++)
            json_array_append_new(k, json_string(g->kernels[i]));
        json_object_set_new(out->data, "kernels", k);
    }
    for (size_t i = 0; i < g->n_require; i++) {
        fewest[i] = -1;
        for (size_t c = 0; c < n_scans; c++)
            if (fewest[i] < 0 || scans[c].matches[i] < fewest[i])
                fewest[i] = scans[c].matches[i];
        json_array_append_new(found, json_pack("{s:s, s:I}", "pattern", g->require[i], "count",
                                               (json_int_t)(fewest[i] < 0 ? 0 : fewest[i])));
    }
    json_object_set_new(out->data, "require", found);
    if (n_scans == 0) {
        goal_outcome_set(out, GOAL_STATUS_SKIPPED, "no machine code to inspect");
        return BW_OK;
    }
    for (size_t c = 0; c < n_scans; c++) {
        if (scans[c].instructions == 0) {
            goal_outcome_set(out, GOAL_STATUS_SKIPPED,
                             "the disassembly held no instruction the judge could read");
            return BW_OK;
        }
        for (size_t k = 0; k < g->n_kernels; k++)
            if (!scans[c].kernel_seen[k]) {
                goal_outcome_set(out, GOAL_STATUS_FAILED, "no kernel named %s in the machine code",
                                 g->kernels[k]);
                return BW_OK;
            }
    }
    list[0] = '\0';
    for (size_t i = 0; i < g->n_require; i++) {
        int w;
        if (fewest[i] > 0) {
            missing--;
            w = snprintf(list + len, sizeof(list) - len, "%s%s (%ld)", len ? ", " : "",
                         g->require[i], fewest[i]);
            if (w > 0 && (size_t)w < sizeof(list) - len)
                len += (size_t)w;
        }
    }
    if (missing == 0) {
        goal_outcome_set(out, GOAL_STATUS_PASSED, "found %s%s", list,
                         n_scans > 1 ? " in every configuration's machine code" : "");
        return BW_OK;
    }
    for (size_t i = 0; i < g->n_require; i++) {
        const char *cfg = NULL;
        if (fewest[i] > 0)
            continue;
        for (size_t c = 0; c < n_scans && !cfg; c++)
            if (scans[c].matches[i] == 0)
                cfg = config_names[c];
        goal_outcome_set(out, GOAL_STATUS_FAILED, "no %s in the machine code%s%s%s%s%s",
                         g->require[i], cfg && *cfg ? " of " : "", cfg ? cfg : "",
                         len ? " (found " : "", list, len ? ")" : "");
        break;
    }
    return BW_OK;
}

/* ---- showing ------------------------------------------------------------------------- */

json_t *goal_outcome_json(const struct goal_outcome *o)
{
    json_t *j = json_pack("{s:s, s:s, s:s, s:b, s:s}", "name", o->name ? o->name : "", "kind",
                          goal_kind_name(o->kind), "status", goal_status_name(o->status), "passed",
                          o->status == GOAL_STATUS_PASSED, "detail", o->detail ? o->detail : "");
    if (!j)
        return NULL;
    if (o->description)
        json_object_set_new(j, "description", json_string(o->description));
    if (o->data)
        json_object_update_missing(j, o->data);
    return j;
}

static const char *col(bool color, const char *code)
{
    return color ? code : "";
}

static double num(json_t *obj, const char *key)
{
    return json_number_value(json_object_get(obj, key));
}

static const char *str(json_t *obj, const char *key)
{
    const char *s = json_string_value(json_object_get(obj, key));
    return s ? s : "";
}

/* The per-shape (or per-pattern) lines of one outcome. */
static void print_figures(FILE *f, const struct goal_outcome *o)
{
    json_t *rows, *r;
    size_t i;

    switch (o->kind) {
    case GOAL_AUTOTUNE:
        json_array_foreach (json_object_get(o->data, "shapes"), i, r)
            fprintf(f, "         %-22s best %s %.4f ms, worst %s %.4f ms: %.2fx\n", str(r, "shape"),
                    str(r, "best"), num(r, "best_ms"), str(r, "worst"), num(r, "worst_ms"),
                    num(r, "gain"));
        return;
    case GOAL_REBUILD:
        json_array_foreach (json_object_get(o->data, "shapes"), i, r)
            fprintf(f, "         %-22s %.4f ms, rebuilt %.4f ms: speedup %.2fx\n", str(r, "shape"),
                    num(r, "submitted_ms"), num(r, "rebuilt_ms"), num(r, "speedup"));
        return;
    case GOAL_BANDWIDTH:
        json_array_foreach (json_object_get(o->data, "shapes"), i, r)
            fprintf(f, "         %-22s %.4f ms, %.0f GB/s: %.1f%% of copy\n", str(r, "shape"),
                    num(r, "median_ms"), num(r, "gbps"), num(r, "pct"));
        return;
    case GOAL_ROOFLINE:
        json_array_foreach (json_object_get(o->data, "shapes"), i, r)
            fprintf(f, "         %-22s %.1f%% of the speed of light\n", str(r, "shape"),
                    num(r, "sol_pct"));
        return;
    case GOAL_COMPARE:
        json_array_foreach (json_object_get(o->data, "pairs"), i, r)
            fprintf(f, "         %s %.4f ms vs %s %.4f ms: %.2fx\n", str(r, "shape"),
                    num(r, "shape_ms"), str(r, "baseline"), num(r, "baseline_ms"),
                    num(r, "speedup"));
        return;
    case GOAL_SASS:
        rows = json_object_get(o->data, "require");
        json_array_foreach (rows, i, r)
            fprintf(f, "         %-22s %lld instruction%s\n", str(r, "pattern"),
                    (long long)json_integer_value(json_object_get(r, "count")),
                    json_integer_value(json_object_get(r, "count")) == 1 ? "" : "s");
        return;
    }
}

void goal_outcomes_print(FILE *f, const struct goal_outcome *o, size_t n, bool color)
{
    size_t passed = 0, skipped = 0;

    if (n == 0)
        return;
    for (size_t i = 0; i < n; i++) {
        passed += o[i].status == GOAL_STATUS_PASSED;
        skipped += o[i].status == GOAL_STATUS_SKIPPED;
    }
    fprintf(f, "goals     %zu of %zu passed", passed, n);
    if (skipped)
        fprintf(f, ", %zu not checked here", skipped);
    fprintf(f, " %s(learning goals: reported beside the verdict, never changing it)%s\n",
            col(color, C_DIM), col(color, C_RESET));
    for (size_t i = 0; i < n; i++) {
        const char *mark = o[i].status == GOAL_STATUS_PASSED    ? "ok"
                           : o[i].status == GOAL_STATUS_SKIPPED ? "skip"
                                                                : "FAIL";
        const char *c = o[i].status == GOAL_STATUS_PASSED    ? C_GREEN
                        : o[i].status == GOAL_STATUS_SKIPPED ? C_YELLOW
                                                             : C_RED;
        fprintf(f, "  %s%-4s%s %s (%s): %s\n", col(color, c), mark, col(color, C_RESET),
                o[i].name ? o[i].name : "?", goal_kind_name(o[i].kind),
                o[i].detail ? o[i].detail : goal_status_name(o[i].status));
        print_figures(f, &o[i]);
    }
}
