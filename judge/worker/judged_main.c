/*
 * judged - the Blockwise GPU worker and its command-line tools.
 *
 *   judged --server URL --token-file F --gpu N    the worker: pull jobs from blockwise-server
 *   judged check [options] PROBLEM_DIR FILE.cu    judge one file, print the verdict
 *                                                  (--profile: profile its plan too)
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
#include "cli.h"

#include <errno.h>
#include <getopt.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <jansson.h>

#include "build_cache.h"
#include "runner_pool.h"
#include "triton_pool.h"
#include "common/limits.h"
#include "common/log.h"
#include "common/util.h"
#include "common/banned.h"

/* The usage text: a format taking the full-check limit, the --grace range and default, the
 * --slots range and default, the --triton-spares range and default. */
#define USAGE_TEXT                                                                                 \
    "usage: judged --server URL --token-file FILE [--gpu N] [options]   (the worker)\n"            \
    "       judged check [options] PROBLEM_DIR FILE.cu|FILE.py   (.py: Triton)\n"                  \
    "       judged validate [options] PROBLEM_DIR...\n"                                            \
    "       judged calibrate [options]\n"                                                          \
    "       judged dump [options] PROBLEM_DIR OUT_DIR    write test inputs and reference "         \
    "outputs\n"                                                                                    \
    "       judged plan PROBLEM_DIR FILE    the launches of every configuration and case, as "     \
    "JSON\n"                                                                                       \
    "       judged baseline [--check] PROBLEM_DIR...   PyTorch's time on the benchmark shapes\n"   \
    "                    (baseline.py, timed the judge's way); --check: against the reference\n"   \
    "\n"                                                                                           \
    "options:\n"                                                                                   \
    "  --json            print the result as JSON (for tools)\n"                                   \
    "  --tests-only      check correctness only, skip timing (a Run, not a Submit)\n"              \
    "  --profile         check: a Profile: the tests as a Run, then the plan on the largest\n"     \
    "                    benchmark shape under CUPTI's profiler, summarised (docs/profile.md)\n"   \
    "  --cupti FILE      the CUPTI library Profiles use (default: $BLOCKWISE_CUPTI, else the\n"    \
    "                    CUDA toolkit's, else PyTorch's nvidia wheels; also a worker option)\n"    \
    "  --progress        print progress events as they happen (to stderr)\n"                       \
    "  --language L      validate: only the controls in L (cuda or triton)\n"                      \
    "  --seed HEX        input seed (default: a fresh secret one)\n"                               \
    "  --device N        CUDA device ordinal (default 0)\n"                                        \
    "  --arch SM         NVRTC target, e.g. sm_90a (default: the GPU's; sm_90a without one)\n"     \
    "  --cache DIR       cache for GPU calibration (default ~/.cache/blockwise)\n"                 \
    "  --recalibrate     measure the GPU again instead of using the cached figures\n"              \
    "  --pytorch         check: PyTorch's time beside each shape (x PyTorch); validate: also\n"    \
    "                    check baseline.py against the reference (needs PyTorch)\n"                \
    "  --no-sandbox      run children without namespaces/seccomp (diagnostics only)\n"             \
    "  --full-check-max-bytes N  a test whose outputs take more than N bytes is checked by\n"      \
    "                    sample (default %llu; lowered by tests on the fake driver)\n"             \
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
    "  --triton-spares N warm Triton compilers kept ready (1..%d, default %d a slot)\n"            \
    "\n"                                                                                           \
    "Triton (.py) submissions compile with $BLOCKWISE_PYTHON, else python3 on PATH, which\n"       \
    "must import triton (3.3 or later); a worker registers Triton only when it does.\n"

void cli_usage(FILE *f)
{
    fprintf(f, USAGE_TEXT, (unsigned long long)BW_FULL_CHECK_MAX_BYTES, BW_WORKER_MAX_GRACE_S,
            BW_WORKER_GRACE_S, BW_WORKER_MAX_SLOTS, BW_WORKER_SLOTS, BW_TRITON_POOL_MAX,
            BW_TRITON_SPARES_PER_SLOT);
}

/* Parses the options shared by every subcommand; returns the index of the
 * first operand, or -1 after printing an error. */
int cli_parse_options(int argc, char **argv, struct cli *cli)
{
    static const struct option longopts[] = {
        {"json", no_argument, NULL, 'j'},
        {"tests-only", no_argument, NULL, 't'},
        {"profile", no_argument, NULL, 'R'},
        {"cupti", required_argument, NULL, 'U'},
        {"progress", no_argument, NULL, 'p'},
        {"seed", required_argument, NULL, 's'},
        {"device", required_argument, NULL, 'd'},
        {"arch", required_argument, NULL, 'a'},
        {"cache", required_argument, NULL, 'c'},
        {"recalibrate", no_argument, NULL, 'r'},
        {"no-sandbox", no_argument, NULL, 'n'},
        {"log-level", required_argument, NULL, 'l'},
        {"language", required_argument, NULL, 'L'},
        {"pytorch", no_argument, NULL, 'P'},
        {"check", no_argument, NULL, 'C'},
        {"full-check-max-bytes", required_argument, NULL, 'F'},
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
        case 'R':
            cli->profile = true;
            break;
        case 'U':
            cli->cupti = optarg;
            break;
        case 'p':
            cli->progress = true;
            break;
        case 'r':
            cli->recalibrate = true;
            break;
        case 'P':
            cli->pytorch = true;
            break;
        case 'C':
            cli->check_baseline = true;
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
        case 'F':
            if (!parse_i64(optarg, &v) || v < 1) {
                fprintf(stderr,
                        "judged: --full-check-max-bytes: expected a byte count >= 1, got \"%s\"\n",
                        optarg);
                return -1;
            }
            cli->cfg.full_check_max_bytes = (uint64_t)v;
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
            cli_usage(stdout);
            exit(0);
        default:
            cli_usage(stderr);
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

int main(int argc, char **argv)
{
    struct cli cli = {0};
    int status;

    log_init("judged", LOG_WARN, LOG_FORMAT_TEXT);
    cli.cfg.builds = build_cache_new(); /* NULL (out of memory): every build is compiled */
    if (argc < 2) {
        cli_usage(stderr);
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
    else if (strcmp(argv[1], "baseline") == 0)
        status = cmd_baseline(argc - 1, argv + 1, &cli);
    else if (strcmp(argv[1], "--help") == 0 || strcmp(argv[1], "-h") == 0) {
        cli_usage(stdout);
        return 0;
    } else {
        fprintf(stderr, "judged: unknown command \"%s\"\n", argv[1]);
        cli_usage(stderr);
        return EXIT_USAGE;
    }
    triton_pool_free(cli.cfg.triton_pool);
    runner_pool_free(cli.cfg.pool);
    runner_discard_drain(); /* no runner outlives the command */
    build_cache_free(cli.cfg.builds);
    judge_config_release(&cli.cfg);
    free(cli.cache_dir);
    return status;
}
