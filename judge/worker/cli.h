/*
 * cli.h - judged's command line, private to its files: the options every
 * subcommand shares, the exit statuses, and one function per subcommand
 * (judged_main.c dispatches; cli_judge.c: check, validate; cli_tools.c:
 * plan, dump, calibrate; cli_worker.c: the worker).
 */
#ifndef BW_CLI_H
#define BW_CLI_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "judge_config.h"
#include "common/language.h"

enum {
    EXIT_ACCEPTED = 0,
    EXIT_REJECTED = 1,
    EXIT_USAGE = 2,
    EXIT_JUDGE = 3,
    EXIT_NO_GPU = 4,
    EXIT_NO_LANGUAGE = 5 /* the submission's language cannot be compiled here (no Triton) */
};

struct cli {
    bool json, tests_only, progress, recalibrate;
    bool only_language;  /* validate: only the controls in `language` */
    bool pytorch;        /* check: PyTorch's time beside the benches; validate: check
                            baseline.py too (baseline.h) */
    bool check_baseline; /* baseline: check baseline.py against the reference, not time it */
    bool profile;        /* check: a Profile (the tests, then the plan under the profiler) */
    const char *cupti;   /* --cupti FILE: the CUPTI library Profiles use (borrowed from argv) */
    enum language language;
    uint64_t seed;
    struct judge_config cfg;
    char *cache_dir; /* owned */
};

/* Prints the usage text to f. */
void cli_usage(FILE *f);

/* Parses the options shared by every subcommand; returns the index of the
 * first operand, or -1 after printing an error. */
int cli_parse_options(int argc, char **argv, struct cli *cli);

/* Starts cli->cfg.pool for `slots` judgings at once (none without a GPU). */
int cli_start_pool(struct cli *cli, int slots, char **cause);

/* Starts cli->cfg.triton_pool (warm Triton compilers: `spares` kept, at most `max_starts`
 * started, 0: no bound) when Triton is here (judge_probe_languages first), and sizes
 * cli->cfg.triton_jobs for `slots` judgings at once. A pool already there is kept. */
int cli_start_triton(struct cli *cli, int slots, int spares, int max_starts, char **cause);

/* The subcommands: each takes its own argv (argv[0] is the subcommand) and
 * returns the process's exit status. */
int cmd_check(int argc, char **argv, struct cli *cli);
int cmd_validate(int argc, char **argv, struct cli *cli);
int cmd_dump(int argc, char **argv, struct cli *cli);
int cmd_calibrate(int argc, char **argv, struct cli *cli);
int cmd_plan(int argc, char **argv, struct cli *cli);
int cmd_worker(int argc, char **argv, struct cli *cli);
int cmd_baseline(int argc, char **argv, struct cli *cli);

struct problem;
struct judge_result;

/* check --pytorch: PyTorch's figures of p on this GPU (cached, else measured) into r. */
void cli_attach_pytorch(struct cli *cli, const struct problem *p, struct judge_result *r);

/* validate --pytorch: baseline.py against the reference on p's small test cases. */
int cli_check_baseline(struct cli *cli, const struct problem *p, bool *passed, char **report,
                       char **cause);

#endif
