#include "report.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "baseline.h"
#include "goals.h"
#include "wire/runner_proto.h"
#include "common/banned.h"

#define C_RESET "\033[0m"
#define C_BOLD  "\033[1m"
#define C_GREEN "\033[32m"
#define C_RED   "\033[31m"
#define C_DIM   "\033[2m"

static const char *col(bool color, const char *code)
{
    return color ? code : "";
}

void report_print_gpu(FILE *f, const struct gpu_info *g)
{
    if (!g->name[0]) {
        fprintf(f, "gpu       none\n");
        return;
    }
    fprintf(f, "gpu       %s (cc %s, %d SMs, %s, driver %s)\n", g->name, g->cc, g->sm_count,
            g->arch[0] ? g->arch : "?", g->driver[0] ? g->driver : "?");
    if (g->calibrated)
        fprintf(f,
                "limits    copy %.0f GB/s, fp32 %.1f TFLOP/s, fp16 tensor %.0f TFLOP/s, bf16 "
                "tensor %.0f TFLOP/s\n",
                g->copy_gbps, g->fp32_tflops, g->fp16_tflops, g->bf16_tflops);
}

/* Prints a JSON number or the special strings "nan", "inf", "-inf". */
static void print_value(FILE *f, json_t *v)
{
    if (json_is_number(v))
        fprintf(f, "%.9g", json_number_value(v));
    else if (json_is_string(v))
        fputs(json_string_value(v), f);
    else
        fputs("-", f);
}

static void print_index(FILE *f, json_t *idx)
{
    size_t i;
    json_t *v;

    if (!json_is_array(idx)) {
        fputs("?", f);
        return;
    }
    fputc('[', f);
    json_array_foreach (idx, i, v)
        fprintf(f, "%s%lld", i ? ", " : "", (long long)json_integer_value(v));
    fputc(']', f);
}

/* The mismatch table of one failing test, from its detail JSON. */
static void print_detail(FILE *f, json_t *detail)
{
    const char *kind = json_string_value(json_object_get(detail, "kind"));
    json_t *outputs, *o;
    size_t i, j;

    if (!kind)
        return;
    if (strcmp(kind, "mismatch") != 0) {
        const char *hint = json_string_value(json_object_get(detail, "hint"));
        if (hint)
            fprintf(f, "      hint: %s\n", hint);
        return;
    }
    outputs = json_object_get(detail, "outputs");
    json_array_foreach (outputs, i, o) {
        json_t *first = json_object_get(o, "first"), *m;
        json_t *scanned = json_object_get(o, "scanned_unwritten"); /* a test checked by sample */
        long long bad = json_integer_value(json_object_get(o, "mismatches"));
        long long checked = json_integer_value(json_object_get(o, "checked"));
        long long count = json_integer_value(json_object_get(o, "count"));
        const char *name = json_string_value(json_object_get(o, "name"));
        if (bad == 0)
            continue;
        if (scanned)
            fprintf(f,
                    "      output %s: checked by sample: %lld of its %lld elements compared, every "
                    "one scanned for the judge's poison\n"
                    "      output %s: %lld element%s wrong (%lld never written); max abs error "
                    "%.3g, max rel error %.3g\n",
                    name, checked, count, name, bad, bad == 1 ? "" : "s",
                    (long long)json_integer_value(json_object_get(o, "unwritten")),
                    json_number_value(json_object_get(o, "max_abs_err")),
                    json_number_value(json_object_get(o, "max_rel_err")));
        else
            fprintf(f,
                    "      output %s: %lld of %lld elements wrong; max abs error %.3g, max rel "
                    "error %.3g\n",
                    name, bad, checked, json_number_value(json_object_get(o, "max_abs_err")),
                    json_number_value(json_object_get(o, "max_rel_err")));
        if (json_array_size(first) == 0)
            continue;
        fprintf(f, "        %-20s %-16s %-16s %-12s %s\n", "index", "expected", "got", "abs err",
                "why");
        json_array_foreach (first, j, m) {
            fprintf(f, "        ");
            print_index(f, json_object_get(m, "index"));
            fprintf(f, "%*s", 4, "");
            print_value(f, json_object_get(m, "expected"));
            fputs("  ", f);
            print_value(f, json_object_get(m, "got"));
            fputs("  ", f);
            print_value(f, json_object_get(m, "abs_err"));
            fprintf(f, "  %s\n", json_string_value(json_object_get(m, "reason")) ?: "");
        }
    }
}

/* A number of the profile's JSON with `digits` decimals, or "-" when it is null. */
static const char *fig(json_t *v, int digits, char *buf, size_t cap)
{
    if (!json_is_number(v))
        return "-";
    snprintf(buf, cap, "%.*f", digits, json_number_value(v));
    return buf;
}

/* A byte count as "1.34 GB", "786 kB" (decimal units), or "-". */
static const char *gbytes(json_t *v, char *buf, size_t cap)
{
    double b = json_number_value(v);

    if (!json_is_number(v))
        return "-";
    if (b >= 1e9)
        snprintf(buf, cap, "%.3g GB", b / 1e9);
    else if (b >= 1e6)
        snprintf(buf, cap, "%.3g MB", b / 1e6);
    else if (b >= 1e3)
        snprintf(buf, cap, "%.3g kB", b / 1e3);
    else
        snprintf(buf, cap, "%.0f B", b);
    return buf;
}

/* A Profile's figures, one row per kernel launch, from the result's "profile" (the same
 * object the JSON carries). */
static void print_profile(FILE *f, json_t *prof, bool color)
{
    json_t *kernels = json_object_get(prof, "kernels"), *k;
    char b[8][32];
    size_t i;

    if (!json_is_true(json_object_get(prof, "available"))) {
        fprintf(f, "profile   %snot available%s: %s\n", col(color, C_BOLD), col(color, C_RESET),
                json_string_value(json_object_get(prof, "why")) ?: "?");
        return;
    }
    fprintf(f, "profile   %s, %s (%.0f ms)\n", json_string_value(json_object_get(prof, "case")),
            json_string_value(json_object_get(prof, "profiler")),
            json_number_value(json_object_get(prof, "wall_ms")));
    fprintf(f, "  %-22s %9s %6s %6s %6s %6s %6s %6s %13s %-17s %6s %6s %21s %s\n",
            "kernel (launch)", "time ms", "DRAM%", "L2%", "L1%", "SM%", "FMA%", "TC%",
            "occupancy %", "(limited by)", "L1hit", "L2hit", "DRAM bytes / model", "limiter");
    json_array_foreach (kernels, i, k) {
        char name[96], occ[72], moved[72];
        json_t *stalls = json_object_get(k, "stalls"), *st;
        size_t j;

        snprintf(name, sizeof(name), "%s (%lld)", json_string_value(json_object_get(k, "kernel")),
                 (long long)json_integer_value(json_object_get(k, "launch")));
        snprintf(occ, sizeof(occ), "%s/%s",
                 fig(json_object_get(k, "occupancy_achieved_pct"), 0, b[0], sizeof(b[0])),
                 fig(json_object_get(k, "occupancy_theoretical_pct"), 0, b[1], sizeof(b[1])));
        snprintf(moved, sizeof(moved), "%s / %s",
                 gbytes(json_object_get(k, "dram_bytes"), b[2], sizeof(b[2])),
                 gbytes(json_object_get(k, "model_bytes"), b[3], sizeof(b[3])));
        fprintf(f, "  %-22s %9s", name,
                fig(json_object_get(k, "duration_ms"), 4, b[4], sizeof(b[4])));
        static const char *const pcts[] = {"dram_pct", "l2_pct",  "l1_pct",
                                           "sm_pct",   "fma_pct", "tensor_pct"};
        for (size_t q = 0; q < sizeof(pcts) / sizeof(pcts[0]); q++)
            fprintf(f, " %6s", fig(json_object_get(k, pcts[q]), 1, b[5], sizeof(b[5])));
        fprintf(f, " %13s %-17s %6s %6s %21s %s\n", occ,
                json_string_value(json_object_get(k, "occupancy_limiter")) ?: "-",
                fig(json_object_get(k, "l1_hit_pct"), 1, b[6], sizeof(b[6])),
                fig(json_object_get(k, "l2_hit_pct"), 1, b[7], sizeof(b[7])), moved,
                json_string_value(json_object_get(k, "limiter")) ?: "-");
        if (json_array_size(stalls) > 0) {
            fprintf(f, "    stalls:");
            json_array_foreach (stalls, j, st)
                fprintf(f, "%s %s %.0f%%", j ? "," : "",
                        json_string_value(json_object_get(st, "reason")),
                        json_number_value(json_object_get(st, "pct")));
            fprintf(f, "\n");
        }
        fprintf(f, "    %s\n", json_string_value(json_object_get(k, "reading")) ?: "");
    }
    fprintf(f, "reading   %s%s%s\n", col(color, C_BOLD),
            json_string_value(json_object_get(prof, "reading")) ?: "", col(color, C_RESET));
}

void report_print(FILE *f, const struct problem *p, const char *file, const struct judge_result *r,
                  bool color)
{
    size_t passed = 0, run = 0;
    json_t *k;
    size_t i;

    fprintf(f, "problem   %s (P%d %s)\n", p->id, p->number, p->title);
    fprintf(f, "file      %s\n", file);
    report_print_gpu(f, &r->gpu);

    for (i = 0; i < r->diags.n; i++)
        fprintf(f, "%s:%d:%d: %s\n", file, r->diags.items[i].line, r->diags.items[i].column,
                r->diags.items[i].msg);
    if (r->verdict == VERDICT_COMPILE_ERROR && r->compile_log && r->compile_log[0] &&
        r->diags.n == 0)
        fprintf(f, "%s\n", r->compile_log);
    if (r->compile_ms > 0)
        fprintf(f, "compile   %s in %.0f ms\n",
                r->verdict == VERDICT_COMPILE_ERROR ? "failed" : "ok", r->compile_ms);
    json_array_foreach (r->kernels, i, k) {
        fprintf(f, "  kernel %s: %lld registers, %lld B shared, %lld B stack, %lld B spilled\n",
                json_string_value(json_object_get(k, "name")),
                (long long)json_integer_value(json_object_get(k, "registers")),
                (long long)json_integer_value(json_object_get(k, "smem_bytes")),
                (long long)json_integer_value(json_object_get(k, "stack_bytes")),
                (long long)(json_integer_value(json_object_get(k, "spill_store_bytes")) +
                            json_integer_value(json_object_get(k, "spill_load_bytes"))));
    }

    for (i = 0; i < r->n_tests; i++) {
        if (r->tests[i].verdict == VERDICT_NONE)
            continue;
        run++;
        if (r->tests[i].verdict == VERDICT_ACCEPTED)
            passed++;
    }
    if (r->n_tests && r->executed) {
        fprintf(f, "tests     %zu/%zu passed\n", passed, r->n_tests);
        for (i = 0; i < r->n_tests; i++) {
            const struct test_outcome *t = &r->tests[i];
            if (t->verdict == VERDICT_NONE)
                continue;
            if (t->verdict == VERDICT_ACCEPTED) {
                fprintf(f, "  %sok%s   %s\n", col(color, C_GREEN), col(color, C_RESET), t->name);
                continue;
            }
            fprintf(f, "  %s%-4s%s %s: %s\n", col(color, C_RED), verdict_code(t->verdict),
                    col(color, C_RESET), t->name,
                    t->message ? t->message : verdict_name(t->verdict));
            print_detail(f, t->detail);
        }
        if (run < r->n_tests)
            fprintf(f, "  %s%zu tests not run after the first failure%s\n", col(color, C_DIM),
                    r->n_tests - run, col(color, C_RESET));
    }
    if (r->n_benches) {
        fprintf(f, "timing    median of n runs, L2 flushed before each\n");
        fprintf(f, "  %-22s %10s %10s %14s %5s %9s %9s %7s %10s\n", "shape", "median", "min",
                "p10-p90", "n", "GB/s", "TFLOP/s", "SoL %", "x PyTorch");
        for (i = 0; i < r->n_benches; i++) {
            const struct bench_outcome *b = &r->benches[i];
            char spread[32], pt[32] = "-";
            snprintf(spread, sizeof(spread), "%.3f-%.3f", b->p10_ms, b->p90_ms);
            if (b->pytorch_ms > 0 && b->median_ms > 0)
                snprintf(pt, sizeof(pt), "%.2f", b->pytorch_ms / b->median_ms);
            fprintf(f, "  %-22s %8.3fms %8.3fms %14s %5d %9.1f %9.2f %7.1f %10s\n", b->name,
                    b->median_ms, b->min_ms, spread, b->samples, b->gbps, b->tflops, b->sol_pct,
                    pt);
        }
        if (r->pytorch.attached && r->pytorch.measured)
            fprintf(f,
                    "pytorch   PyTorch %s's median / yours (baseline.py, timed the judge's way)"
                    "; geometric mean %.2f\n",
                    r->pytorch.torch, baseline_speedup(r));
        else if (r->pytorch.attached)
            fprintf(f, "pytorch   %s\n", r->pytorch.reason ? r->pytorch.reason : "not measured");
    }
    goal_outcomes_print(f, r->goals, r->n_goals, color);
    if (r->profile_mode && r->profile)
        print_profile(f, r->profile, color);
    if (!r->executed && r->verdict == VERDICT_NONE) {
        fprintf(f, "verdict   %snot executed%s: %s\n", col(color, C_BOLD), col(color, C_RESET),
                r->message ? r->message : "no GPU");
        return;
    }
    fprintf(f, "verdict   %s%s%s%s", col(color, C_BOLD),
            col(color, r->verdict == VERDICT_ACCEPTED ? C_GREEN : C_RED), verdict_name(r->verdict),
            col(color, C_RESET));
    if (r->message && r->verdict != VERDICT_ACCEPTED)
        fprintf(f, ": %s", r->message);
    if (r->n_benches && r->verdict == VERDICT_ACCEPTED && isfinite(r->score))
        fprintf(f, "   score %.1f (geometric mean of speed-of-light %%)", r->score);
    fprintf(f, "\n");
}

void report_print_event(FILE *f, json_t *event)
{
    const char *ev = json_string_value(json_object_get(event, "event"));

    if (!ev)
        return;
    if (strcmp(ev, "test") == 0)
        fprintf(f, "  test %lld/%lld %s: %s\n",
                (long long)json_integer_value(json_object_get(event, "index")) + 1,
                (long long)json_integer_value(json_object_get(event, "of")),
                json_string_value(json_object_get(event, "name")),
                json_string_value(json_object_get(event, "verdict")));
    else if (strcmp(ev, "bench") == 0)
        fprintf(f, "  bench %s: %.4f ms\n", json_string_value(json_object_get(event, "name")),
                json_number_value(json_object_get(event, "median_ms")));
    else if (strcmp(ev, "profiling") == 0)
        fprintf(f, "  %s\n", json_string_value(json_object_get(event, "message")) ?: "profiling");
    else if (strcmp(ev, "profile") == 0)
        fprintf(f, "  profile %s: %s (%.0f ms)\n",
                json_string_value(json_object_get(event, "case")) ?: "-",
                json_is_true(json_object_get(event, "available")) ? "done" : "not available",
                json_number_value(json_object_get(event, "ms")));
    else if (strcmp(ev, "goal") == 0)
        fprintf(f, "  goal %s (%s): %s\n", json_string_value(json_object_get(event, "name")),
                json_string_value(json_object_get(event, "kind")),
                json_string_value(json_object_get(event, "status")));
    else
        fprintf(f, "  %s\n", ev);
    fflush(f);
}

/* ---- JSON ------------------------------------------------------------------------ */

/* The result's "pytorch" (baseline.h): null unless the worker said something about PyTorch's
 * time beside these benches; else whether it was measured, with which PyTorch, when, the
 * geometric mean of its time over the kernel's (null when a shape has none), why not, and how
 * it is measured. */
static json_t *pytorch_json(const struct judge_result *r)
{
    const struct pytorch_note *n = &r->pytorch;
    double speedup = baseline_speedup(r);

    if (!n->attached)
        return json_null();
    return json_pack("{s:b, s:s?, s:o, s:o, s:s?, s:s}", "measured", n->measured, "torch",
                     n->torch[0] ? n->torch : NULL, "measured_at",
                     n->measured_at > 0 ? json_integer((json_int_t)n->measured_at) : json_null(),
                     "speedup", speedup > 0 ? json_real(speedup) : json_null(), "reason", n->reason,
                     "method", baseline_method_text);
}

json_t *judge_result_json(const struct judge_result *r)
{
    json_t *j = json_object(), *tests = json_array(), *benches = json_array(),
           *diags = json_array(), *goals = json_array();
    char seed[24];

    for (size_t i = 0; i < r->diags.n; i++)
        json_array_append_new(diags, json_pack("{s:i, s:i, s:s}", "line", r->diags.items[i].line,
                                               "column", r->diags.items[i].column, "message",
                                               r->diags.items[i].msg));
    for (size_t i = 0; i < r->n_tests; i++) {
        const struct test_outcome *t = &r->tests[i];
        json_t *tj = json_pack("{s:s, s:s, s:f}", "name", t->name, "verdict",
                               verdict_code(t->verdict), "ms", t->ms);
        if (t->message)
            json_object_set_new(tj, "message", json_string(t->message));
        if (t->detail)
            json_object_set(tj, "detail", t->detail);
        json_array_append_new(tests, tj);
    }
    for (size_t i = 0; i < r->n_benches; i++) {
        const struct bench_outcome *b = &r->benches[i];
        json_array_append_new(
            benches,
            json_pack("{s:s, s:i, s:f, s:f, s:f, s:f, s:f, s:f, s:f, s:f, s:f, s:i, s:s, s:i}",
                      "name", b->name, "samples", b->samples, "median_ms", b->median_ms, "min_ms",
                      b->min_ms, "max_ms", b->max_ms, "p10_ms", b->p10_ms, "p90_ms", b->p90_ms,
                      "rse", b->rse, "gbps", b->gbps, "tflops", b->tflops, "sol_pct", b->sol_pct,
                      "clock_mhz", b->clock_mhz, "stop", b->stop ? b->stop : "", "screened",
                      b->screened));
        json_t *bj = json_array_get(benches, i);
        bool pt = b->pytorch_ms > 0 && b->median_ms > 0;
        json_object_set_new(bj, "pytorch_ms", pt ? json_real(b->pytorch_ms) : json_null());
        json_object_set_new(bj, "pytorch_speedup",
                            pt ? json_real(b->pytorch_ms / b->median_ms) : json_null());
    }
    for (size_t i = 0; i < r->n_goals; i++)
        json_array_append_new(goals, goal_outcome_json(&r->goals[i]));
    snprintf(seed, sizeof(seed), "%016llx", (unsigned long long)r->seed);
    json_object_set_new(j, "verdict", json_string(verdict_code(r->verdict)));
    json_object_set_new(j, "verdict_name", json_string(verdict_name(r->verdict)));
    json_object_set_new(j, "message", r->message ? json_string(r->message) : json_null());
    json_object_set_new(j, "mode",
                        json_string(r->profile_mode ? "profile"
                                    : r->tests_only ? "run"
                                                    : "submit"));
    if (r->profile_mode)
        json_object_set_new(j, "profile", r->profile ? json_incref(r->profile) : json_null());
    json_object_set_new(j, "executed", json_boolean(r->executed));
    json_object_set_new(j, "diagnostics", diags);
    json_object_set_new(j, "compile_log", json_string(r->compile_log ? r->compile_log : ""));
    json_object_set_new(j, "kernels", r->kernels ? json_incref(r->kernels) : json_array());
    json_object_set_new(j, "tests", tests);
    json_object_set_new(j, "benches", benches);
    json_object_set_new(j, "score", json_real(r->score));
    json_object_set_new(j, "goals", goals);
    json_object_set_new(j, "pytorch", pytorch_json(r));
    json_object_set_new(j, "gpu", gpu_info_json(&r->gpu));
    json_object_set_new(j, "compile_ms", json_real(r->compile_ms));
    json_object_set_new(j, "compile_cached", json_boolean(r->compile_cached));
    json_object_set_new(j, "total_ms", json_real(r->total_ms));
    json_object_set_new(j, "timing",
                        json_pack("{s:f, s:f, s:f, s:f, s:f, s:f}", "compile_ms", r->compile_ms,
                                  "runners_ms", r->runners_ms, "tests_ms", r->tests_ms, "bench_ms",
                                  r->bench_ms, "goals_ms", r->goals_ms, "total_ms", r->total_ms));
    json_t *timing = json_object_get(j, "timing");
    json_object_set_new(timing, "build_wait_ms", json_real(r->build_wait_ms));
    json_object_set_new(timing, "compiler_ms", json_real(r->compiler_ms));
    json_object_set_new(
        timing, "compile_breakdown",
        json_pack("{s:f, s:f, s:f, s:I, s:I, s:b, s:b, s:f}", "first_ms", r->compile_first_ms,
                  "compiler_wait_ms", r->compiler_wait_ms, "compiler_cpu_ms", r->compiler_cpu_ms,
                  "builds_cached", (json_int_t)r->builds_cached, "builds_compiled",
                  (json_int_t)r->builds_compiled, "streamed", r->compile_streamed, "stopped",
                  r->compile_stopped, "tests_build_wait_ms", r->tests_build_wait_ms));
    json_object_set_new(timing, "reference_load_ms", json_real(r->reference_load_ms));
    json_object_set_new(timing, "profile_ms", json_real(r->profile_ms));
    json_object_set_new(timing, "finish_ms", json_real(r->finish_ms));
    json_object_set_new(timing, "tests_breakdown",
                        json_pack("{s:f, s:I, s:I, s:f, s:f, s:f, s:f, s:f, s:f}",
                                  "reference_wait_ms", r->tests_reference_wait_ms,
                                  "reference_ready", (json_int_t)r->tests_reference_ready,
                                  "reference_reused", (json_int_t)r->tests_reference_reused,
                                  "reference_lend_ms", r->tests_reference_lend_ms, "submission_ms",
                                  r->tests_submission_ms, "submission_plan_ms",
                                  r->tests_submission_plan_ms, "submission_lend_ms",
                                  r->tests_submission_lend_ms, "compare_ms", r->tests_compare_ms,
                                  "memory_wait_ms", r->tests_memory_wait_ms));
    json_t *tests_breakdown = json_object_get(timing, "tests_breakdown");
    for (int k = 0; tests_breakdown && k < RUN_PHASES; k++) {
        char key[40];
        snprintf(key, sizeof(key), "submission_%s_ms", run_phase_name((enum run_phase)k));
        json_object_set_new(tests_breakdown, key, json_real(r->tests_submission_phase_ms[k]));
    }
    json_object_set_new(timing, "bench_breakdown",
                        json_pack("{s:f, s:f, s:f, s:f, s:f, s:f, s:f, s:i, s:i, s:i}", "gate_ms",
                                  r->bench_gate_ms, "reference_ms", r->bench_reference_ms,
                                  "reference_wait_ms", r->bench_reference_wait_ms, "runner_ms",
                                  r->bench_runner_ms, "samples_ms", r->bench_samples_ms,
                                  "verify_ms", r->bench_verify_ms, "switch_ms", r->bench_switch_ms,
                                  "screenings", r->bench_screenings, "timings", r->bench_timings,
                                  "screenings_stood", r->bench_screenings_stood));
    json_object_set_new(j, "seed", json_string(seed));
    return j;
}
