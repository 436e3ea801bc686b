/*
 * cli_baseline.c - `judged baseline` (PyTorch's time on a problem's benchmark shapes, or with
 * --check baseline.py against the reference), and the --pytorch of `judged check` and
 * `judged validate` (baseline.h).
 */
#include "cli.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <jansson.h>

#include "baseline.h"
#include "common/error.h"
#include "common/util.h"
#include "problem/bundle.h"
#include "problem/problem.h"
#include "common/banned.h"

/* The PyTorch of this run, probed once. */
static const struct baseline_python *pytorch(struct cli *cli)
{
    static struct baseline_python found;
    static bool probed;

    if (!probed) {
        baseline_probe(NULL, &cli->cfg, &found);
        probed = true;
    }
    return &found;
}

/* The problem version's hash, as the server's bundle names it (*out). */
static int version_of(const struct problem *p, char out[65], char **cause)
{
    char *text = NULL;
    size_t len = 0;
    int rc = bundle_pack(p->dir, p->id, &text, &len, out, cause);
    free(text);
    return rc;
}

/* PyTorch's figures of p on this GPU: from the cache unless `fresh`, else measured (and
 * cached). */
static int figures_of(struct cli *cli, const struct problem *p, bool fresh,
                      struct baseline_figures *f, bool *cached, char **cause)
{
    const struct baseline_python *py = pytorch(cli);
    char hash[65];
    int rc;

    *cached = false;
    if (!py->available)
        return bw_fail(cause, BW_ERR_NOTFOUND, "%s", py->reason);
    if ((rc = version_of(p, hash, cause)))
        return rc;
    if (!fresh && baseline_cache_load(cli->cfg.cache_dir, hash, cli->cfg.gpu.uuid, py->torch, f)) {
        *cached = true;
        return BW_OK;
    }
    struct baseline_job job = {.p = p, .bundle = hash, .jc = &cli->cfg};
    rc = baseline_measure(&job, f, cause);
    if (rc == BW_OK && cli->cfg.cache_dir) {
        char *why = NULL;
        if (baseline_cache_store(cli->cfg.cache_dir, f, &why))
            fprintf(stderr, "judged: cannot cache PyTorch's figures: %s\n", why);
        free(why);
    }
    return rc;
}

void cli_attach_pytorch(struct cli *cli, const struct problem *p, struct judge_result *r)
{
    struct baseline_figures f;
    char *cause = NULL;
    bool cached;

    if (r->n_benches == 0)
        return;
    r->pytorch.attached = true;
    if (figures_of(cli, p, false, &f, &cached, &cause) == BW_OK) {
        baseline_attach_figures(&f, r);
        baseline_figures_release(&f);
    } else {
        free(r->pytorch.reason);
        r->pytorch.reason = cause;
        cause = NULL;
    }
    free(cause);
}

int cli_check_baseline(struct cli *cli, const struct problem *p, bool *passed, char **report,
                       char **cause)
{
    const struct baseline_python *py = pytorch(cli);
    char tmpl[] = "/tmp/blockwise-baseline-XXXXXX";
    struct baseline_job job = {.p = p, .jc = &cli->cfg};
    int rc;

    if (!cli->cfg.have_gpu)
        return bw_fail(cause, BW_ERR_NODEVICE, "no GPU here");
    if (!py->available)
        return bw_fail(cause, BW_ERR_NOTFOUND, "%s", py->reason);
    if (!mkdtemp(tmpl))
        return bw_fail(cause, BW_ERR_SYSTEM, "mkdtemp: cannot make a directory for the cases");
    rc = baseline_check(&job, tmpl, passed, report, cause);
    char *rm = NULL;
    if (asprintf(&rm, "rm -rf '%s'", tmpl) >= 0 && system(rm) != 0)
        fprintf(stderr, "judged: could not remove %s\n", tmpl);
    free(rm);
    return rc;
}

/* `judged baseline [--check] [--json] PROBLEM_DIR...`. */
int cmd_baseline(int argc, char **argv, struct cli *cli)
{
    char *cause = NULL;
    int first = cli_parse_options(argc, argv, cli), status = EXIT_ACCEPTED;
    json_t *all = json_object();

    if (first < 0)
        return EXIT_USAGE;
    if (first == argc) {
        fprintf(stderr, "judged baseline: expected at least one PROBLEM_DIR\n");
        return EXIT_USAGE;
    }
    if (judge_probe_gpu(&cli->cfg, cli->recalibrate, &cause) || !cli->cfg.have_gpu) {
        fprintf(stderr, "judged: %s\n",
                cause                    ? cause
                : cli->cfg.no_gpu_reason ? cli->cfg.no_gpu_reason
                                         : "no GPU");
        free(cause);
        json_decref(all);
        return cli->cfg.have_gpu ? EXIT_JUDGE : EXIT_NO_GPU;
    }
    if (!pytorch(cli)->available) {
        fprintf(stderr, "judged: %s\n", pytorch(cli)->reason);
        json_decref(all);
        return EXIT_NO_LANGUAGE;
    }
    if (cli_start_pool(cli, 1, &cause)) {
        fprintf(stderr, "judged: %s\n", cause ? cause : "cannot start the runner pool");
        free(cause);
        json_decref(all);
        return EXIT_JUDGE;
    }
    for (int i = first; i < argc; i++) {
        struct problem *p = problem_load(argv[i], &cause);
        if (!p) {
            fprintf(stderr, "judged: %s\n", cause ? cause : "cannot load the problem");
            free(cause);
            cause = NULL;
            status = EXIT_USAGE;
            continue;
        }
        if (cli->check_baseline) {
            bool passed = false;
            char *report = NULL;
            int rc = cli_check_baseline(cli, p, &passed, &report, &cause);
            bool unchecked = !rc && report && strncmp(report, "  not checked", 13) == 0;
            if (!cli->json)
                printf("%s %s: baseline.py %s\n%s",
                       rc          ? "FAIL"
                       : !passed   ? "FAIL"
                       : unchecked ? "skip"
                                   : "ok  ",
                       p->id,
                       rc          ? cause
                       : !passed   ? "differs from the reference"
                       : unchecked ? "is not compared with the reference here"
                                   : "matches the reference",
                       report ? report : "");
            json_object_set_new(all, p->id,
                                json_pack("{s:b, s:s?, s:s?}", "ok", rc == 0 && passed, "report",
                                          report, "error", rc ? cause : NULL));
            if (rc || !passed)
                status = rc ? EXIT_JUDGE : EXIT_REJECTED;
            free(report);
        } else {
            struct baseline_figures f;
            bool cached;
            double t0 = now_ms();
            int rc = figures_of(cli, p, true, &f, &cached, &cause);
            if (rc) {
                fprintf(stderr, "judged: %s: %s\n", p->id, cause ? cause : bw_strerror(rc));
                json_object_set_new(all, p->id, json_pack("{s:s}", "error", cause ? cause : ""));
                status = EXIT_JUDGE;
            } else {
                json_t *j = baseline_figures_json(&f);
                json_object_set_new(j, "wall_ms", json_real(now_ms() - t0));
                json_object_set_new(all, p->id, j);
                if (!cli->json) {
                    printf("%s (PyTorch %s, %.1f s)\n", p->id, f.torch, (now_ms() - t0) / 1000);
                    for (size_t s = 0; s < f.n_shapes; s++) {
                        const struct baseline_shape *b = &f.shapes[s];
                        if (b->error)
                            printf("  %-28s error: %s\n", b->name, b->error);
                        else
                            printf("  %-28s %10.4f ms  p10-p90 %.4f-%.4f  n %d (%s)\n", b->name,
                                   b->median_ms, b->p10_ms, b->p90_ms, b->samples, b->stop);
                    }
                }
                for (size_t s = 0; s < f.n_shapes; s++)
                    if (f.shapes[s].error && status == EXIT_ACCEPTED)
                        status = EXIT_REJECTED;
                baseline_figures_release(&f);
            }
            free(cause);
            cause = NULL;
        }
        free(cause);
        cause = NULL;
        problem_free(p);
    }
    if (cli->json) {
        json_dumpf(all, stdout, JSON_INDENT(2));
        fputc('\n', stdout);
    }
    json_decref(all);
    return status;
}
