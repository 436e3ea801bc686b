/*
 * cli_judge.c - `judged check` (one file against one problem) and `judged
 * validate` (a problem's own controls), and the runner pool they judge with.
 */
#include "cli.h"

#include <errno.h>
#include <getopt.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <jansson.h>

#include "judge.h"
#include "report.h"
#include "runner_pool.h"
#include "triton_pool.h"
#include "common/error.h"
#include "common/limits.h"
#include "common/util.h"
#include "problem/problem.h"
#include "common/banned.h"

/* Keeps runners ready for the judgings ahead (none without a GPU): `slots`
 * judgings at once, each with a reference runner and BW_POOL_SPARES_PER_SLOT
 * spare submission runners: two starts at once take ~340 ms on the H200
 * (`judged check`'s runners_ms), a Run that fails its first test 0.08-0.12 s,
 * and with one spare a slot every other back-to-back failing Run waited for a
 * start (latency.sh: 0.152 s p50, 0.304 s p90; with two, 0.114 s p50). */
int cli_start_pool(struct cli *cli, int slots, char **cause)
{
    struct runner_pool_options o = {
        .device = cli->cfg.device,
        .no_sandbox = cli->cfg.no_sandbox,
        .spares = slots * BW_POOL_SPARES_PER_SLOT,
        .references = slots,
    };

    if (!cli->cfg.have_gpu)
        return BW_OK;
    return runner_pool_new(&o, &cli->cfg.pool, cause);
}

int cli_start_triton(struct cli *cli, int slots, int spares, int max_starts, char **cause)
{
    struct triton_pool_options o = {
        .start = {.no_sandbox = cli->cfg.no_sandbox},
        .spares = spares < 1                    ? 1
                  : spares > BW_TRITON_POOL_MAX ? BW_TRITON_POOL_MAX
                                                : spares,
        .max_starts = max_starts,
    };

    cli->cfg.triton_jobs = triton_pool_jobs(slots);
    if (cli->cfg.triton_pool || !cli->cfg.languages[LANG_TRITON].available)
        return BW_OK;
    return triton_pool_new(&o, &cli->cfg.triton_pool, cause);
}

static void print_event(json_t *event, void *arg)
{
    (void)arg;
    report_print_event(stderr, event);
}

static int exit_for(const struct judge_result *r)
{
    if (!r->executed && r->verdict == VERDICT_NONE)
        return EXIT_NO_GPU;
    if (r->verdict == VERDICT_ACCEPTED)
        return EXIT_ACCEPTED;
    if (r->verdict == VERDICT_JUDGE_ERROR)
        return EXIT_JUDGE;
    return EXIT_REJECTED;
}

int cmd_check(int argc, char **argv, struct cli *cli)
{
    struct judge_options opts = {0};
    struct judge_result result;
    struct problem *p;
    char *cause = NULL, *source = NULL;
    size_t len = 0;
    int first, rc, status = EXIT_USAGE;

    first = cli_parse_options(argc, argv, cli);
    if (first < 0)
        return EXIT_USAGE;
    if (argc - first != 2) {
        fprintf(stderr, "judged check: expected PROBLEM_DIR FILE.cu or FILE.py\n");
        cli_usage(stderr);
        return EXIT_USAGE;
    }
    opts = (struct judge_options){.tests_only = cli->tests_only || cli->profile,
                                  .profile = cli->profile,
                                  .seed = cli->seed,
                                  .job = argv[first + 1]};
    if (!language_of_file(argv[first + 1], &opts.language)) {
        fprintf(stderr, "judged check: %s: a submission is FILE.cu (CUDA) or FILE.py (Triton)\n",
                argv[first + 1]);
        return EXIT_USAGE;
    }
    if (opts.language != LANG_CUDA) {
        judge_probe_languages(&cli->cfg, NULL);
        if (!cli->cfg.languages[opts.language].available) {
            fprintf(stderr, "judged: cannot judge %s here: %s\n", language_title(opts.language),
                    cli->cfg.languages[opts.language].reason);
            return EXIT_NO_LANGUAGE;
        }
        /* One compiler, warming while the problem loads and the GPU is probed. */
        if (opts.language == LANG_TRITON && cli_start_triton(cli, 1, 1, 1, &cause)) {
            fprintf(stderr, "judged: %s\n", cause ? cause : "cannot start a Triton compiler");
            free(cause);
            return EXIT_JUDGE;
        }
    }
    p = problem_load(argv[first], &cause);
    if (!p) {
        fprintf(stderr, "judged: %s\n", cause ? cause : "cannot load the problem");
        goto out;
    }
    if (read_file(argv[first + 1], BW_MAX_SOURCE_BYTES, &source, &len, &cause)) {
        fprintf(stderr, "judged: %s\n", cause);
        goto free_problem;
    }
    if (judge_probe_gpu(&cli->cfg, cli->recalibrate, &cause)) {
        fprintf(stderr, "judged: %s\n", cause ? cause : "cannot probe the GPU");
        status = EXIT_JUDGE;
        goto free_source;
    }
    if (cli->progress) {
        opts.on_event = print_event;
    }
    if (opts.profile && cli->cfg.have_gpu)
        judge_find_profiler(&cli->cfg, cli->cupti);
    if (cli_start_pool(cli, 1, &cause)) {
        fprintf(stderr, "judged: %s\n", cause ? cause : "cannot start the runner pool");
        status = EXIT_JUDGE;
        goto free_source;
    }
    rc = judge_submission(&cli->cfg, p, source, len, &opts, &result, &cause);
    if (rc) {
        fprintf(stderr, "judged: %s\n", cause ? cause : bw_strerror(rc));
        status = EXIT_JUDGE;
        goto free_source;
    }
    if (cli->pytorch && !opts.tests_only && result.executed)
        cli_attach_pytorch(cli, p, &result);
    if (cli->json) {
        json_t *j = judge_result_json(&result);
        json_dumpf(j, stdout, JSON_INDENT(2) | JSON_SORT_KEYS);
        fputc('\n', stdout);
        json_decref(j);
    } else {
        report_print(stdout, p, argv[first + 1], &result, isatty(STDOUT_FILENO));
    }
    status = exit_for(&result);
    judge_result_release(&result);
free_source:
    free(source);
free_problem:
    problem_free(p);
out:
    free(cause);
    return status;
}

/* How the controls of a validate went, for its last line: a control compiled where there is no
 * GPU proves only that it compiles, so it is counted apart, never as one that got its verdict. */
struct validate_tally {
    int got, wrong, compiled, skipped, errors;
};

/* Judges every control of one problem; returns the exit status for it. */
static int validate_one(struct cli *cli, const char *dir, json_t *all, struct validate_tally *t)
{
    struct problem *p;
    char *cause = NULL;
    int status = EXIT_ACCEPTED;
    json_t *rows = json_array();

    p = problem_load(dir, &cause);
    if (!p) {
        fprintf(stderr, "judged: %s\n", cause ? cause : "cannot load the problem");
        free(cause);
        json_decref(rows);
        return EXIT_USAGE;
    }
    if (!cli->json)
        printf("%s (P%d %s): %zu controls\n", p->id, p->number, p->title, p->n_controls);

    /* The reference is proven by every control: each judge run compiles and
     * runs it first. A control expecting Accepted is timed unless --tests-only. */
    for (size_t i = 0; i < p->n_controls; i++) {
        const struct control *ctl = &p->controls[i];
        if (cli->only_language && ctl->lang != cli->language)
            continue;
        struct judge_options opts = {.language = ctl->lang, .seed = cli->seed, .job = ctl->file};
        struct judge_result r;
        char *path = path_join(p->dir, ctl->file), *source = NULL;
        size_t len;
        bool ok;
        const char *got;

        opts.tests_only = cli->tests_only || ctl->expect != VERDICT_ACCEPTED;
        if (ctl->lang != LANG_CUDA) /* triton_probe answers from memory after the first */
            judge_probe_languages(&cli->cfg, NULL);
        if (ctl->lang == LANG_TRITON && cli_start_triton(cli, 1, 2, 0, &cause)) {
            fprintf(stderr, "judged: %s\n", cause ? cause : "cannot start Triton compilers");
            free(cause);
            cause = NULL;
        }
        if (ctl->lang != LANG_CUDA && !cli->cfg.languages[ctl->lang].available) {
            /* Not this machine's to judge (no Triton here): said, not failed. */
            if (!cli->json)
                printf("  %-4s %-28s expected %-17s skipped: no %s here (%s)\n", "skip", ctl->file,
                       verdict_name(ctl->expect), language_title(ctl->lang),
                       cli->cfg.languages[ctl->lang].reason);
            json_array_append_new(rows, json_pack("{s:s, s:s, s:s, s:b, s:b, s:s}", "file",
                                                  ctl->file, "expected", verdict_code(ctl->expect),
                                                  "got", "skipped", "ok", true, "ran", false,
                                                  "reason", cli->cfg.languages[ctl->lang].reason));
            t->skipped++;
            free(path);
            continue;
        }
        if (!path || read_file(path, BW_MAX_SOURCE_BYTES, &source, &len, &cause)) {
            fprintf(stderr, "judged: %s\n", cause ? cause : "out of memory");
            free(path);
            status = EXIT_USAGE;
            t->errors++;
            continue;
        }
        if (judge_submission(&cli->cfg, p, source, len, &opts, &r, &cause)) {
            fprintf(stderr, "judged: %s: %s\n", ctl->file, cause ? cause : "judge failed");
            free(cause);
            cause = NULL;
            free(source);
            free(path);
            status = EXIT_JUDGE;
            t->errors++;
            continue;
        }
        bool compiled_only = !r.executed && r.verdict == VERDICT_NONE;
        if (compiled_only) {
            ok = true; /* it compiled, which is all that could be checked: not its verdict */
            got = "compiled, not run";
            t->compiled++;
            if (status == EXIT_ACCEPTED)
                status = EXIT_NO_GPU;
        } else {
            ok = r.verdict == ctl->expect;
            got = verdict_name(r.verdict);
            if (ok)
                t->got++;
            else
                t->wrong++;
            if (!ok)
                status = EXIT_REJECTED;
        }
        if (!cli->json && compiled_only) {
            printf("  %-4s %-28s expected %-17s compiled, not run (no GPU here)\n", "comp",
                   ctl->file, verdict_name(ctl->expect));
        } else if (!cli->json) {
            printf("  %-4s %-28s expected %-17s got %-17s", ok ? "ok" : "FAIL", ctl->file,
                   verdict_name(ctl->expect), got);
            if (r.n_benches)
                printf(" score %.1f", r.score);
            if (!ok && r.message)
                printf("  (%s)", r.message);
            printf("\n");
            for (size_t g = 0; g < r.n_goals; g++)
                printf("       goal %s (%s): %s: %s\n", r.goals[g].name,
                       goal_kind_name(r.goals[g].kind), goal_status_name(r.goals[g].status),
                       r.goals[g].detail ? r.goals[g].detail : "");
        }
        /* "ok" of a compiled-only row says that it compiled; "ran" tells the two apart */
        json_t *row = json_pack("{s:s, s:s, s:s, s:b, s:b}", "file", ctl->file, "expected",
                                verdict_code(ctl->expect), "got",
                                r.executed ? verdict_code(r.verdict) : "compiled", "ok", ok, "ran",
                                !compiled_only);
        json_object_set_new(row, "result", judge_result_json(&r));
        json_array_append_new(rows, row);
        judge_result_release(&r);
        free(source);
        free(path);
    }
    if (cli->pytorch && !cli->json) { /* baseline.py against the reference (baseline.h) */
        bool passed = false;
        char *report = NULL, *why = NULL;
        int rc = cli_check_baseline(cli, p, &passed, &report, &why);
        if (rc == BW_ERR_NOTFOUND || rc == BW_ERR_NODEVICE)
            printf("  %-4s %-28s skipped: %s\n", "skip", "baseline.py", why ? why : "");
        else if (!rc && report && strncmp(report, "  not checked", 13) == 0)
            printf("  %-4s %-28s skipped:\n%s", "skip", "baseline.py", report);
        else
            printf("  %-4s %-28s %s\n%s", !rc && passed ? "ok" : "FAIL", "baseline.py",
                   rc       ? why
                   : passed ? "PyTorch matches the reference"
                            : "PyTorch differs",
                   report ? report : "");
        if ((rc && rc != BW_ERR_NOTFOUND && rc != BW_ERR_NODEVICE) || (!rc && !passed))
            status = EXIT_REJECTED;
        free(report);
        free(why);
    }
    json_object_set_new(all, p->id, rows);
    problem_free(p);
    return status;
}

int cmd_validate(int argc, char **argv, struct cli *cli)
{
    char *cause = NULL;
    int first, status = EXIT_ACCEPTED;
    json_t *all;

    first = cli_parse_options(argc, argv, cli);
    if (first < 0)
        return EXIT_USAGE;
    if (first == argc) {
        fprintf(stderr, "judged validate: expected at least one PROBLEM_DIR\n");
        return EXIT_USAGE;
    }
    if (judge_probe_gpu(&cli->cfg, cli->recalibrate, &cause)) {
        fprintf(stderr, "judged: %s\n", cause ? cause : "cannot probe the GPU");
        free(cause);
        return EXIT_JUDGE;
    }
    if (!cli->cfg.have_gpu && !cli->json)
        printf("no GPU (%s): compiling only\n",
               cli->cfg.no_gpu_reason ? cli->cfg.no_gpu_reason : "unknown");
    if (cli_start_pool(cli, 1, &cause)) {
        fprintf(stderr, "judged: %s\n", cause ? cause : "cannot start the runner pool");
        free(cause);
        return EXIT_JUDGE;
    }
    all = json_object();
    struct validate_tally t = {0};
    for (int i = first; i < argc; i++) {
        int s = validate_one(cli, argv[i], all, &t);
        /* The worst status wins: usage > judge > rejected > no GPU > accepted. */
        if (s == EXIT_USAGE || (s == EXIT_JUDGE && status != EXIT_USAGE) ||
            (s == EXIT_REJECTED && status != EXIT_USAGE && status != EXIT_JUDGE) ||
            (s == EXIT_NO_GPU && status == EXIT_ACCEPTED))
            status = s;
    }
    if (cli->json) {
        json_dumpf(all, stdout, JSON_INDENT(2));
        fputc('\n', stdout);
    } else {
        printf("%d controls: %d got their verdict, %d did not, %d compiled, not run (no GPU "
               "here), %d skipped, %d could not be judged\n",
               t.got + t.wrong + t.compiled + t.skipped + t.errors, t.got, t.wrong, t.compiled,
               t.skipped, t.errors);
    }
    json_decref(all);
    return status;
}
