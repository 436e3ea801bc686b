/*
 * cli_worker.c - `judged --server URL --token-file F [--gpu N]`: the worker's
 * command line, signals and token; the worker itself is worker.h's.
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

#include "baseline.h"
#include "device_memory.h"
#include "report.h"
#include "worker.h"
#include "common/error.h"
#include "common/limits.h"
#include "common/log.h"
#include "common/util.h"
#include "common/banned.h"

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
int cmd_worker(int argc, char **argv, struct cli *cli)
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
        {"triton-spares", required_argument, NULL, 'P'},
        {"cupti", required_argument, NULL, 'U'},
        {"help", no_argument, NULL, 'h'},
        {NULL, 0, NULL, 0},
    };
    struct worker_config wc = {.stop = &worker_stop}; /* worker.h's defaults */
    struct sigaction sa = {.sa_handler = on_stop_signal};
    const char *token_file = NULL;
    enum log_level level = LOG_INFO;
    char *token = NULL, *cause = NULL;
    struct baseline_service *baselines = NULL;
    int c, status, spares = -1;
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
        case 'U':
            cli->cupti = optarg;
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
        case 'P':
            if (!parse_i64(optarg, &v) || v < 1 || v > BW_TRITON_POOL_MAX) {
                fprintf(stderr, "judged: --triton-spares: expected 1..%d, got \"%s\"\n",
                        BW_TRITON_POOL_MAX, optarg);
                return EXIT_USAGE;
            }
            spares = (int)v;
            break;
        case 'h':
            cli_usage(stdout);
            exit(0);
        default:
            cli_usage(stderr);
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
    if (cli->cfg.have_gpu) {
        struct device_memory_state dm;
        log_info("GPU %d: %s, copy %.0f GB/s, fp32 %.1f TFLOP/s", cli->cfg.device,
                 cli->cfg.gpu.name, cli->cfg.gpu.copy_gbps, cli->cfg.gpu.fp32_tflops);
        device_memory_set_total(cli->cfg.gpu.memory_bytes);
        device_memory_state(&dm);
        log_info("GPU %d: %.1f GB of its %.1f GB of memory for the buffers of the jobs' runs at "
                 "once; a run that does not fit waits (docs/operations.md, Device memory)",
                 cli->cfg.device, (double)dm.capacity / 1e9,
                 (double)cli->cfg.gpu.memory_bytes / 1e9);
    } else
        log_warn("no GPU (%s): this worker compiles; running waits for a GPU worker",
                 cli->cfg.no_gpu_reason ? cli->cfg.no_gpu_reason : "unknown");
    /* Profiles: where CUPTI is (cupti_find.h); without it a Profile says why it has no figures. */
    if (cli->cfg.have_gpu) {
        judge_find_profiler(&cli->cfg, cli->cupti);
        if (cli->cfg.cupti_path[0])
            log_info("Profiles use CUPTI from %s", cli->cfg.cupti_path);
        else
            log_warn("Profiles will have no figures: %s", cli->cfg.cupti_why);
    }
    /* What it compiles is what it registers, and the server routes jobs by it. */
    judge_probe_languages(&cli->cfg, NULL);
    if (cli->cfg.languages[LANG_TRITON].available)
        log_info("Triton %s: this worker judges Triton submissions too",
                 cli->cfg.languages[LANG_TRITON].version);
    else
        log_info("no Triton (%s): this worker judges CUDA submissions only",
                 cli->cfg.languages[LANG_TRITON].reason);
    /* Warm Triton compilers for every slot, a few each: a burst of Runs takes them fast. */
    if (spares < 0)
        spares = (wc.slots > 0 ? wc.slots : BW_WORKER_SLOTS) * BW_TRITON_SPARES_PER_SLOT;
    if (cli_start_triton(cli, wc.slots > 0 ? wc.slots : BW_WORKER_SLOTS, spares, 0, &cause)) {
        log_error("%s", cause ? cause : "cannot start the Triton compiler pool");
        status = EXIT_JUDGE;
        goto out;
    }
    if (cli_start_pool(cli, wc.slots > 0 ? wc.slots : BW_WORKER_SLOTS, &cause)) {
        log_error("%s", cause ? cause : "cannot start the runner pool");
        status = EXIT_JUDGE;
        goto out;
    }
    /* PyTorch's time beside every Submit's, where PyTorch is there (baseline.h). */
    struct baseline_service_config bc = {.jc = &cli->cfg};
    if (cli->cfg.have_gpu)
        baseline_probe(NULL, &cli->cfg, &bc.found);
    else
        snprintf(bc.found.reason, sizeof(bc.found.reason), "this worker has no GPU");
    if (bc.found.available)
        log_info("PyTorch %s (Python %s): each problem's baseline.py is timed beside Submits",
                 bc.found.torch, bc.found.python_ver);
    else
        log_info("no PyTorch baseline: %s", bc.found.reason);
    if (baseline_service_new(&bc, &baselines, &cause)) {
        log_error("%s", cause ? cause : "cannot start the baseline service");
        status = EXIT_JUDGE;
        goto out;
    }
    wc.baselines = baselines;
    if (worker_run(&wc, &cli->cfg, &cause)) {
        log_error("worker stopped: %s", cause ? cause : "unknown");
        status = EXIT_JUDGE;
    } else {
        status = EXIT_ACCEPTED;
    }
out:
    baseline_service_free(baselines);
    free(cause);
    free(token);
    return status;
}
