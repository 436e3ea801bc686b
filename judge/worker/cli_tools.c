/*
 * cli_tools.c - the subcommands that look without judging: `judged plan`
 * (what the judge would launch, per configuration and case), `judged dump`
 * (test inputs and reference outputs for the oracle), `judged calibrate`.
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

#include "dump.h"
#include "program.h"
#include "report.h"
#include "common/error.h"
#include "common/limits.h"
#include "common/util.h"
#include "plan/plan.h"
#include "problem/problem.h"
#include "common/banned.h"

int cmd_dump(int argc, char **argv, struct cli *cli)
{
    struct problem *p;
    char *cause = NULL;
    size_t dumped = 0;
    int first = cli_parse_options(argc, argv, cli), status = EXIT_ACCEPTED;

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

int cmd_calibrate(int argc, char **argv, struct cli *cli)
{
    char *cause = NULL;
    int first = cli_parse_options(argc, argv, cli);

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

/* The cases of configuration `config` of pg as plan_json objects, with what each is. */
static json_t *plan_cases(const struct program *pg, size_t config)
{
    const struct problem *p = pg->p;
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
        if (program_plan(pg, config, c, pl, &why) == BW_OK)
            o = plan_json(pl, pg->lang);
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

/* Records a launcher (a Triton source with solve(...)) without building it: its plans. The
 * exit status when it cannot: EXIT_NO_LANGUAGE without Triton here, EXIT_REJECTED when the
 * launcher does not record (its diags printed), EXIT_JUDGE otherwise. */
static int record_launcher(struct program *pg, const char *file, const char *source, size_t len,
                           struct cli *cli)
{
    struct program_target t = {
        .gpu = &cli->cfg.gpu, .record_only = true, .no_sandbox = cli->cfg.no_sandbox};
    char *cause = NULL;
    int rc;

    if (sscanf(cli->cfg.gpu.cc, "%d.%d", &t.cc_major, &t.cc_minor) != 2)
        t.cc_major = t.cc_minor = 0;
    rc = program_compile(pg, &t, source, len, "submission.py", &cause);
    if (rc) {
        fprintf(stderr, "judged: %s\n", cause ? cause : bw_strerror(rc));
        free(cause);
        return rc == BW_ERR_NOTFOUND ? EXIT_NO_LANGUAGE : EXIT_JUDGE;
    }
    if (!pg->builds[0].ok) {
        print_diags(file, &pg->triton.result.diags);
        if (pg->triton.result.failure)
            fprintf(stderr, "%s: %s\n", file, pg->triton.result.failure);
        return EXIT_REJECTED;
    }
    return EXIT_ACCEPTED;
}

/* `judged plan PROBLEM_DIR FILE`: what the judge would run, as JSON. A Triton launcher is
 * recorded in the Triton compile sandbox first (judged plan needs Triton then). */
int cmd_plan(int argc, char **argv, struct cli *cli)
{
    struct problem *p = NULL;
    struct program pg = {0};
    struct diag_list diags = {0};
    char *cause = NULL, *source = NULL;
    size_t len = 0;
    enum language lang = LANG_CUDA;
    int first = cli_parse_options(argc, argv, cli), status = EXIT_USAGE;
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
    if (program_parse(&pg, p, lang, source, len, PLAN_SUBMISSION, &diags)) {
        print_diags(argv[first + 1], &diags);
        status = EXIT_REJECTED;
        goto out;
    }
    if (pg.launcher && (status = record_launcher(&pg, argv[first + 1], source, len, cli)))
        goto out;
    configs = json_array();
    for (size_t k = 0; k < pg.n_configs; k++) {
        char name[BW_LAUNCHER_CONFIG_NAME + 64];

        program_describe_config(&pg, k, name, sizeof(name));
        json_array_append_new(configs, json_pack("{s:I, s:s, s:o}", "index", (json_int_t)k, "name",
                                                 name, "cases", plan_cases(&pg, k)));
    }
    all = json_pack("{s:s, s:s, s:o}", "problem", p->id, "language", language_name(lang), "configs",
                    configs);
    if (pg.launcher)
        json_object_set_new(
            all, "launcher",
            json_pack("{s:i, s:f}", "solve_line", pg.solve_line, "record_ms", pg.rec.record_ms));
    json_dumpf(all, stdout, JSON_INDENT(1));
    fputc('\n', stdout);
    json_decref(all);
    status = EXIT_ACCEPTED;
out:
    program_release(&pg);
    diag_list_release(&diags);
    free(source);
    free(cause);
    problem_free(p);
    return status;
}
