/*
 * judged - the Blockwise GPU worker and its command-line tools.
 *
 *   judged --server URL --token-file F --gpu N    the worker: pull jobs from blockwise-server
 *   judged check [options] PROBLEM_DIR FILE.cu    judge one file, print the verdict
 *   judged validate [options] PROBLEM_DIR...      prove a problem directory by its controls
 *   judged calibrate [options]                    measure this GPU's limits and print them
 *   judged dump [options] PROBLEM_DIR OUT_DIR     write test cases for the oracle (tests/oracle/)
 *   judged plan PROBLEM_DIR FILE                  the plan of every configuration and case, as JSON
 *
 * Exit status of check: 0 Accepted, 1 another verdict, 2 bad usage or input,
 * 3 the judge itself failed, 4 compiled but not executed (no GPU here), 5 the
 * language cannot be compiled here (a .py file where there is no Triton).
 * Exit status of validate: 0 every control got its verdict, 1 otherwise,
 * 2 bad usage or a directory that does not load, 4 compile-only (no GPU).
 */
#include <errno.h>
#include <signal.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <jansson.h>

#include "common/error.h"
#include "common/limits.h"
#include "common/log.h"
#include "common/problem.h"
#include "common/util.h"
#include "judge/build_cache.h"
#include "judge/dump.h"
#include "judge/judge.h"
#include "judge/plan.h"
#include "judge/report.h"
#include "judge/runner_pool.h"
#include "judge/worker.h"
#include "common/banned.h"

enum {
    EXIT_ACCEPTED = 0,
    EXIT_REJECTED = 1,
    EXIT_USAGE = 2,
    EXIT_JUDGE = 3,
    EXIT_NO_GPU = 4,
    EXIT_NO_LANGUAGE = 5 /* the submission's language cannot be compiled here (no Triton) */
};

/* The usage text: a format taking the --grace range and default. */
#define USAGE_TEXT                                                                                 \
    "usage: judged --server URL --token-file FILE [--gpu N] [options]   (the worker)\n"            \
    "       judged check [options] PROBLEM_DIR FILE.cu|FILE.py   (.py: Triton)\n"                  \
    "       judged validate [options] PROBLEM_DIR...\n"                                            \
    "       judged calibrate [options]\n"                                                          \
    "       judged dump [options] PROBLEM_DIR OUT_DIR    write test inputs and reference "         \
    "outputs\n"                                                                                    \
    "       judged plan PROBLEM_DIR FILE    the launches of every configuration and case, as "     \
    "JSON\n"                                                                                       \
    "\n"                                                                                           \
    "options:\n"                                                                                   \
    "  --json            print the result as JSON (for tools)\n"                                   \
    "  --tests-only      check correctness only, skip timing (a Run, not a Submit)\n"              \
    "  --progress        print progress events as they happen (to stderr)\n"                       \
    "  --language L      validate: only the controls in L (cuda or triton)\n"                      \
    "  --seed HEX        input seed (default: a fresh secret one)\n"                               \
    "  --device N        CUDA device ordinal (default 0)\n"                                        \
    "  --arch SM         NVRTC target, e.g. sm_90a (default: the GPU's; sm_90a without one)\n"     \
    "  --cache DIR       cache for GPU calibration (default ~/.cache/blockwise)\n"                 \
    "  --recalibrate     measure the GPU again instead of using the cached figures\n"              \
    "  --no-sandbox      run children without namespaces/seccomp (diagnostics only)\n"             \
    "  --log-level L     debug, info, warn, error (default warn; the worker's: info)\n"            \
    "\n"                                                                                           \
    "worker options:\n"                                                                            \
    "  --server URL      blockwise-server's base URL (http:// or https://)\n"                      \
    "  --token-file F    the worker token (one line), from `blockwise-server create-worker`\n"     \
    "  --gpu N           CUDA device ordinal to judge on (default 0)\n"                            \
    "  --grace S         on SIGTERM, finish a job that ends within S seconds, else give it\n"      \
    "                    back to the queue (1..%d, default %d)\n"                                  \
    "  --slots N         jobs judged at once on this GPU (1..%d, default %d): Runs overlap,\n"     \
    "                    timing runs alone\n"                                                      \
    "\n"                                                                                           \
    "Triton (.py) submissions compile with $BLOCKWISE_PYTHON, else python3 on PATH, which\n"       \
    "must import triton (3.3 or later); a worker registers Triton only when it does.\n"

struct cli {
    bool json, tests_only, progress, recalibrate;
    bool only_language; /* validate: only the controls in `language` */
    enum language language;
    uint64_t seed;
    struct judge_config cfg;
    char *cache_dir; /* owned */
};

static void usage(FILE *f)
{
    fprintf(f, USAGE_TEXT, BW_WORKER_MAX_GRACE_S, BW_WORKER_GRACE_S, BW_WORKER_MAX_SLOTS,
            BW_WORKER_SLOTS);
}

/* Parses the options shared by every subcommand; returns the index of the
 * first operand, or -1 after printing an error. */
static int parse_options(int argc, char **argv, struct cli *cli)
{
    static const struct option longopts[] = {
        {"json", no_argument, NULL, 'j'},
        {"tests-only", no_argument, NULL, 't'},
        {"progress", no_argument, NULL, 'p'},
        {"seed", required_argument, NULL, 's'},
        {"device", required_argument, NULL, 'd'},
        {"arch", required_argument, NULL, 'a'},
        {"cache", required_argument, NULL, 'c'},
        {"recalibrate", no_argument, NULL, 'r'},
        {"no-sandbox", no_argument, NULL, 'n'},
        {"log-level", required_argument, NULL, 'l'},
        {"language", required_argument, NULL, 'L'},
        {"help", no_argument, NULL, 'h'},
        {NULL, 0, NULL, 0},
    };
    enum log_level level = LOG_WARN;
    int c;
    int64_t v;
    char *end;

    optind = 1;
    while ((c = getopt_long(argc, argv, "", longopts, NULL)) != -1) {
        switch (c) {
        case 'j':
            cli->json = true;
            break;
        case 't':
            cli->tests_only = true;
            break;
        case 'p':
            cli->progress = true;
            break;
        case 'r':
            cli->recalibrate = true;
            break;
        case 'L':
            if (!language_from_name(optarg, &cli->language)) {
                fprintf(stderr, "judged: --language: expected cuda or triton, got \"%s\"\n",
                        optarg);
                return -1;
            }
            cli->only_language = true;
            break;
        case 'n':
            cli->cfg.no_sandbox = true;
            break;
        case 's':
            errno = 0;
            cli->seed = strtoull(optarg, &end, 16);
            if (errno || *end || !*optarg || cli->seed == 0) {
                fprintf(stderr,
                        "judged: --seed: expected a non-zero hexadecimal number, got \"%s\"\n",
                        optarg);
                return -1;
            }
            break;
        case 'd':
            if (!parse_i64(optarg, &v) || v < 0 || v > 255) {
                fprintf(stderr, "judged: --device: expected a device ordinal 0..255, got \"%s\"\n",
                        optarg);
                return -1;
            }
            cli->cfg.device = (int)v;
            break;
        case 'a':
            if (strncmp(optarg, "sm_", 3) != 0 || strlen(optarg) > 10) {
                fprintf(stderr, "judged: --arch: expected a target like sm_90a, got \"%s\"\n",
                        optarg);
                return -1;
            }
            cli->cfg.arch = optarg;
            break;
        case 'c':
            free(cli->cache_dir);
            cli->cache_dir = strdup(optarg);
            break;
        case 'l':
            if (!log_level_parse(optarg, &level)) {
                fprintf(stderr,
                        "judged: --log-level: expected debug, info, warn or error, got \"%s\"\n",
                        optarg);
                return -1;
            }
            break;
        case 'h':
            usage(stdout);
            exit(0);
        default:
            usage(stderr);
            return -1;
        }
    }
    log_init("judged", level, LOG_FORMAT_TEXT);
    if (!cli->cache_dir) {
        const char *home = getenv("HOME");
        if (home && *home)
            cli->cache_dir = path_join(home, ".cache/blockwise");
    }
    cli->cfg.cache_dir = cli->cache_dir;
    return optind;
}

/* Keeps runners ready for the judgings ahead (none without a GPU): `slots`
 * judgings at once, each with a reference runner and BW_POOL_SPARES_PER_SLOT
 * spare submission runners: two starts at once take ~340 ms on the H200
 * (`judged check`'s runners_ms), a Run that fails its first test 0.08-0.12 s,
 * and with one spare a slot every other back-to-back failing Run waited for a
 * start (latency.sh: 0.152 s p50, 0.304 s p90; with two, 0.114 s p50). */
static int start_pool(struct cli *cli, int slots, char **cause)
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

static int cmd_check(int argc, char **argv, struct cli *cli)
{
    struct judge_options opts = {0};
    struct judge_result result;
    struct problem *p;
    char *cause = NULL, *source = NULL;
    size_t len = 0;
    int first, rc, status = EXIT_USAGE;

    first = parse_options(argc, argv, cli);
    if (first < 0)
        return EXIT_USAGE;
    if (argc - first != 2) {
        fprintf(stderr, "judged check: expected PROBLEM_DIR FILE.cu or FILE.py\n");
        usage(stderr);
        return EXIT_USAGE;
    }
    opts = (struct judge_options){
        .tests_only = cli->tests_only, .seed = cli->seed, .job = argv[first + 1]};
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
    if (start_pool(cli, 1, &cause)) {
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
    json_object_set_new(all, p->id, rows);
    problem_free(p);
    return status;
}

static int cmd_validate(int argc, char **argv, struct cli *cli)
{
    char *cause = NULL;
    int first, status = EXIT_ACCEPTED;
    json_t *all;

    first = parse_options(argc, argv, cli);
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
    if (start_pool(cli, 1, &cause)) {
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

static int cmd_dump(int argc, char **argv, struct cli *cli)
{
    struct problem *p;
    char *cause = NULL;
    size_t dumped = 0;
    int first = parse_options(argc, argv, cli), status = EXIT_ACCEPTED;

    if (first < 0)
        return EXIT_USAGE;
    if (argc - first != 2) {
        fprintf(stderr, "judged dump: expected PROBLEM_DIR OUT_DIR\n");
        return EXIT_USAGE;
    }
    p = problem_load(argv[first], &cause);
    if (!p) {
        fprintf(stderr, "judged: %s\n", cause ? cause : "cannot load the problem");
        free(cause);
        return EXIT_USAGE;
    }
    if (judge_probe_gpu(&cli->cfg, false, &cause) ||
        judge_dump(&cli->cfg, p, cli->seed, argv[first + 1], BW_DUMP_MAX_CASE_BYTES, &dumped,
                   &cause)) {
        fprintf(stderr, "judged: %s\n", cause ? cause : "dump failed");
        status = cli->cfg.have_gpu ? EXIT_JUDGE : EXIT_NO_GPU;
    } else {
        printf("%s: %zu of %zu test cases written to %s\n", p->id, dumped, p->n_tests,
               argv[first + 1]);
    }
    free(cause);
    problem_free(p);
    return status;
}

static int cmd_calibrate(int argc, char **argv, struct cli *cli)
{
    char *cause = NULL;
    int first = parse_options(argc, argv, cli);

    if (first < 0)
        return EXIT_USAGE;
    if (judge_probe_gpu(&cli->cfg, true, &cause)) {
        fprintf(stderr, "judged: %s\n", cause ? cause : "cannot probe the GPU");
        free(cause);
        return EXIT_JUDGE;
    }
    if (!cli->cfg.have_gpu) {
        fprintf(stderr, "judged: no GPU: %s\n",
                cli->cfg.no_gpu_reason ? cli->cfg.no_gpu_reason : "unknown");
        return EXIT_NO_GPU;
    }
    report_print_gpu(stdout, &cli->cfg.gpu);
    return 0;
}

/* Prints diagnostics as FILE:LINE:COLUMN: message, one per line. */
static void print_diags(const char *file, const struct diag_list *d)
{
    for (size_t i = 0; i < d->n; i++)
        fprintf(stderr, "%s:%d:%d: %s\n", file, d->items[i].line, d->items[i].column,
                d->items[i].msg);
}

/* The cases of one configuration as plan_json objects, with what each is. */
static json_t *plan_cases(const struct problem *p, const struct directives *d, const int64_t *tv)
{
    json_t *cases = json_array();
    struct plan *pl = calloc(1, sizeof(*pl));

    for (size_t i = 0; pl && i < p->n_tests + p->n_benchmarks; i++) {
        bool test = i < p->n_tests;
        const struct problem_case *c = test ? &p->tests[i] : &p->benchmarks[i - p->n_tests];
        json_t *sizes = json_object(), *scalars = json_object(), *o;
        char *why = NULL;

        for (size_t k = 0; k < p->n_sizes; k++)
            json_object_set_new(sizes, p->size_names[k], json_integer(c->sizes[k]));
        for (size_t k = 0; k < p->n_scalars; k++)
            json_object_set_new(scalars, p->scalars[k].name, json_real(c->scalars[k]));
        if (plan_build(p, d, tv, c, PLAN_SUBMISSION, pl, &why) == BW_OK)
            o = plan_json(pl, d->lang);
        else
            o = json_pack("{s:s}", "error", why ? why : "the plan cannot be built");
        free(why);
        json_object_set_new(o, "kind", json_string(test ? "test" : "bench"));
        json_object_set_new(o, "index", json_integer((json_int_t)(test ? i : i - p->n_tests)));
        json_object_set_new(o, "name", json_string(c->name));
        json_object_set_new(o, "sizes", sizes);
        json_object_set_new(o, "scalars", scalars);
        json_array_append_new(cases, o);
    }
    free(pl);
    return cases;
}

/* `judged plan PROBLEM_DIR FILE`: what the judge would run, as JSON. */
static int cmd_plan(int argc, char **argv, struct cli *cli)
{
    struct problem *p = NULL;
    struct directives d = {0};
    struct diag_list diags = {0};
    char *cause = NULL, *source = NULL;
    size_t len = 0;
    enum language lang = LANG_CUDA;
    int first = parse_options(argc, argv, cli), status = EXIT_USAGE;
    json_t *configs, *all;

    if (first < 0)
        return EXIT_USAGE;
    if (argc - first != 2) {
        fprintf(stderr, "judged plan: expected PROBLEM_DIR FILE (.cu or .py)\n");
        return EXIT_USAGE;
    }
    language_of_file(argv[first + 1], &lang);
    p = problem_load(argv[first], &cause);
    if (!p || read_file(argv[first + 1], BW_MAX_SOURCE_BYTES, &source, &len, &cause)) {
        fprintf(stderr, "judged: %s\n", cause ? cause : "cannot load the problem");
        goto out;
    }
    if (directives_parse_as(lang, source, len, &d, &diags) ||
        plan_check(p, &d, PLAN_SUBMISSION, &diags)) {
        print_diags(argv[first + 1], &diags);
        status = EXIT_REJECTED;
        goto out;
    }
    configs = json_array();
    for (size_t k = 0; k < directives_tune_count(&d); k++) {
        int64_t tv[BW_MAX_TUNE_PARAMS] = {0};
        char name[256] = "";
        size_t used = 0;

        directives_tune_combo(&d, k, tv);
        for (size_t t = 0; t < d.n_tunes; t++) {
            int w = snprintf(name + used, sizeof(name) - used, "%s%s=%lld", t ? ", " : "",
                             d.tunes[t].name, (long long)tv[t]);
            if (w > 0 && (size_t)w < sizeof(name) - used)
                used += (size_t)w;
        }
        json_array_append_new(configs,
                              json_pack("{s:I, s:s, s:o}", "index", (json_int_t)k, "name", name,
                                        "cases", plan_cases(p, &d, d.n_tunes ? tv : NULL)));
    }
    all = json_pack("{s:s, s:s, s:o}", "problem", p->id, "language", language_name(lang), "configs",
                    configs);
    json_dumpf(all, stdout, JSON_INDENT(1));
    fputc('\n', stdout);
    json_decref(all);
    status = EXIT_ACCEPTED;
out:
    directives_release(&d);
    diag_list_release(&diags);
    free(source);
    free(cause);
    problem_free(p);
    return status;
}

static volatile sig_atomic_t worker_stop;

static void on_stop_signal(int sig)
{
    (void)sig;
    worker_stop = 1;
}

/* Reads a token file: one line, at most 256 bytes, surrounding blanks dropped. */
static char *read_token(const char *path)
{
    char *text = NULL, *cause = NULL, *start, *end;

    if (read_file(path, 4096, &text, NULL, &cause)) {
        fprintf(stderr, "judged: --token-file: %s\n", cause);
        free(cause);
        return NULL;
    }
    for (start = text; *start == ' ' || *start == '\t' || *start == '\n' || *start == '\r'; start++)
        ;
    end = start + strlen(start);
    while (end > start && (end[-1] == ' ' || end[-1] == '\t' || end[-1] == '\n' || end[-1] == '\r'))
        *--end = '\0';
    if (!*start || strlen(start) > 256 || strchr(start, '\n')) {
        fprintf(stderr, "judged: --token-file %s: expected one token on one line\n", path);
        free(text);
        return NULL;
    }
    memmove(text, start, strlen(start) + 1);
    return text;
}

/* The worker: `judged --server URL --token-file F [--gpu N] [options]`. */
static int cmd_worker(int argc, char **argv, struct cli *cli)
{
    static const struct option longopts[] = {
        {"server", required_argument, NULL, 'S'},
        {"token-file", required_argument, NULL, 'T'},
        {"gpu", required_argument, NULL, 'g'},
        {"cache", required_argument, NULL, 'c'},
        {"log-level", required_argument, NULL, 'l'},
        {"no-sandbox", no_argument, NULL, 'n'},
        {"grace", required_argument, NULL, 'G'},
        {"recalibrate", no_argument, NULL, 'r'},
        {"slots", required_argument, NULL, 'L'},
        {"help", no_argument, NULL, 'h'},
        {NULL, 0, NULL, 0},
    };
    struct worker_config wc = {.stop = &worker_stop}; /* worker.h's defaults */
    struct sigaction sa = {.sa_handler = on_stop_signal};
    const char *token_file = NULL;
    enum log_level level = LOG_INFO;
    char *token = NULL, *cause = NULL;
    int c, status;
    int64_t v;

    optind = 1;
    while ((c = getopt_long(argc, argv, "", longopts, NULL)) != -1) {
        switch (c) {
        case 'S':
            wc.server = optarg;
            break;
        case 'T':
            token_file = optarg;
            break;
        case 'g':
            if (!parse_i64(optarg, &v) || v < 0 || v > 255) {
                fprintf(stderr, "judged: --gpu: expected a device ordinal 0..255, got \"%s\"\n",
                        optarg);
                return EXIT_USAGE;
            }
            cli->cfg.device = (int)v;
            break;
        case 'c':
            free(cli->cache_dir);
            cli->cache_dir = strdup(optarg);
            break;
        case 'l':
            if (!log_level_parse(optarg, &level)) {
                fprintf(stderr, "judged: --log-level: expected debug, info, warn or error\n");
                return EXIT_USAGE;
            }
            break;
        case 'n':
            cli->cfg.no_sandbox = true;
            break;
        case 'r':
            cli->recalibrate = true;
            break;
        case 'G':
            if (!parse_i64(optarg, &v) || v < 1 || v > BW_WORKER_MAX_GRACE_S) {
                fprintf(stderr, "judged: --grace: expected seconds 1..%d, got \"%s\"\n",
                        BW_WORKER_MAX_GRACE_S, optarg);
                return EXIT_USAGE;
            }
            wc.grace_s = (int)v;
            break;
        case 'L':
            if (!parse_i64(optarg, &v) || v < 1 || v > BW_WORKER_MAX_SLOTS) {
                fprintf(stderr, "judged: --slots: expected 1..%d jobs at once, got \"%s\"\n",
                        BW_WORKER_MAX_SLOTS, optarg);
                return EXIT_USAGE;
            }
            wc.slots = (int)v;
            break;
        case 'h':
            usage(stdout);
            exit(0);
        default:
            usage(stderr);
            return EXIT_USAGE;
        }
    }
    if (!wc.server || !token_file || optind != argc) {
        fprintf(stderr,
                "judged: the worker needs --server URL and --token-file FILE (and no operands)\n");
        return EXIT_USAGE;
    }
    if (strncmp(wc.server, "http://", 7) != 0 && strncmp(wc.server, "https://", 8) != 0) {
        fprintf(stderr, "judged: --server: expected an http:// or https:// URL, got \"%s\"\n",
                wc.server);
        return EXIT_USAGE;
    }
    log_init("judged", level, LOG_FORMAT_TEXT);
    token = read_token(token_file);
    if (!token)
        return EXIT_USAGE;
    wc.token = token;
    if (!cli->cache_dir) {
        const char *home = getenv("HOME");
        cli->cache_dir = path_join(home && *home ? home : "/tmp", ".cache/blockwise");
    }
    cli->cfg.cache_dir = cli->cache_dir;
    sigaction(SIGTERM, &sa, NULL);
    sigaction(SIGINT, &sa, NULL);
    signal(SIGPIPE, SIG_IGN);

    /* A worker always measures its GPU when it starts: its figures are what it registers with. */
    if (judge_probe_gpu(&cli->cfg, true, &cause)) {
        log_error("cannot probe the GPU: %s", cause ? cause : "unknown");
        status = EXIT_JUDGE;
        goto out;
    }
    if (cli->cfg.have_gpu)
        log_info("GPU %d: %s, copy %.0f GB/s, fp32 %.1f TFLOP/s", cli->cfg.device,
                 cli->cfg.gpu.name, cli->cfg.gpu.copy_gbps, cli->cfg.gpu.fp32_tflops);
    else
        log_warn("no GPU (%s): this worker compiles; running waits for a GPU worker",
                 cli->cfg.no_gpu_reason ? cli->cfg.no_gpu_reason : "unknown");
    /* What it compiles is what it registers, and the server routes jobs by it. */
    judge_probe_languages(&cli->cfg, NULL);
    if (cli->cfg.languages[LANG_TRITON].available)
        log_info("Triton %s: this worker judges Triton submissions too",
                 cli->cfg.languages[LANG_TRITON].version);
    else
        log_info("no Triton (%s): this worker judges CUDA submissions only",
                 cli->cfg.languages[LANG_TRITON].reason);
    if (start_pool(cli, wc.slots > 0 ? wc.slots : BW_WORKER_SLOTS, &cause)) {
        log_error("%s", cause ? cause : "cannot start the runner pool");
        status = EXIT_JUDGE;
        goto out;
    }
    if (worker_run(&wc, &cli->cfg, &cause)) {
        log_error("worker stopped: %s", cause ? cause : "unknown");
        status = EXIT_JUDGE;
    } else {
        status = EXIT_ACCEPTED;
    }
out:
    free(cause);
    free(token);
    return status;
}

int main(int argc, char **argv)
{
    struct cli cli = {0};
    int status;

    log_init("judged", LOG_WARN, LOG_FORMAT_TEXT);
    cli.cfg.builds = build_cache_new(); /* NULL (out of memory): every build is compiled */
    if (argc < 2) {
        usage(stderr);
        return EXIT_USAGE;
    }
    if (strncmp(argv[1], "--server", 8) == 0 || strncmp(argv[1], "--token-file", 12) == 0 ||
        strncmp(argv[1], "--gpu", 5) == 0)
        status = cmd_worker(argc, argv, &cli);
    else if (strcmp(argv[1], "check") == 0)
        status = cmd_check(argc - 1, argv + 1, &cli);
    else if (strcmp(argv[1], "validate") == 0)
        status = cmd_validate(argc - 1, argv + 1, &cli);
    else if (strcmp(argv[1], "calibrate") == 0)
        status = cmd_calibrate(argc - 1, argv + 1, &cli);
    else if (strcmp(argv[1], "dump") == 0)
        status = cmd_dump(argc - 1, argv + 1, &cli);
    else if (strcmp(argv[1], "plan") == 0)
        status = cmd_plan(argc - 1, argv + 1, &cli);
    else if (strcmp(argv[1], "--help") == 0 || strcmp(argv[1], "-h") == 0) {
        usage(stdout);
        return 0;
    } else {
        fprintf(stderr, "judged: unknown command \"%s\"\n", argv[1]);
        usage(stderr);
        return EXIT_USAGE;
    }
    runner_pool_free(cli.cfg.pool);
    runner_discard_drain(); /* no runner outlives the command */
    build_cache_free(cli.cfg.builds);
    judge_config_release(&cli.cfg);
    free(cli.cache_dir);
    return status;
}
