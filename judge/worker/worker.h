/*
 * worker.h - the judged worker loop: pull jobs from blockwise-server and
 * judge them (docs/api.md, "Worker API"; the server side is server/judgeapi.h).
 *
 *   register (GPU figures; the server requeues what this worker held before
 *   a crash) -> claim (long-poll) -> fetch the problem bundle by content hash
 *   (cached under cache_dir/bundles/HASH, checked against the hash) ->
 *   judge_submission() in a thread, its events batched into progress posts
 *   that double as the lease heartbeat -> post the result (retried until the
 *   server has it: results are idempotent per lease), or internal-error when
 *   the judge could not work at all.
 *
 * Network trouble: every request is retried with exponential backoff (1 s
 * doubling to max_backoff_s) and the worker registers again after an
 * outage, so a restarted server and a restarted worker find each other.
 * A rejected token (401/403 at register) is fatal: worker_run returns.
 *
 * Stopping: when *wc->stop becomes nonzero (SIGTERM), an idle worker returns
 * at once; a busy one finishes its job if it ends within grace_s, else gives
 * it back (release: requeued without counting an attempt) and returns while
 * the judge thread is abandoned (the process is about to exit; runner
 * children die with it).
 */
#ifndef BW_JUDGE_WORKER_H
#define BW_JUDGE_WORKER_H

#include <signal.h>
#include <stdbool.h>

struct judge_config;
struct baseline_service;

struct worker_config {
    const char *server;    /* base URL, "http://127.0.0.1:8080" (no trailing slash needed) */
    const char *token;     /* the worker token, "bww_..." */
    const char *cache_dir; /* bundles are kept under cache_dir/bundles/; NULL: jc->cache_dir */
    const char *hostname;  /* NULL: gethostname() */
    int grace_s;       /* SIGTERM: finish the job if it ends within this; 0: BW_WORKER_GRACE_S */
    int max_backoff_s; /* longest wait between retries; 0: BW_WORKER_MAX_BACKOFF_S */
    int claim_wait_s;  /* long-poll length asked for; 0: the server's */
    volatile sig_atomic_t *stop;        /* nonzero: stop (see above); may be NULL */
    int max_jobs;                       /* > 0: return after this many jobs in all (tests) */
    int slots;                          /* jobs judged at once (threads); 0: BW_WORKER_SLOTS */
    struct baseline_service *baselines; /* optional (borrowed): PyTorch's time beside every
                                           Submit's (baseline.h); NULL: none measured */
};

/* Runs until stopped (returns BW_OK) or until the server refuses the token
 * (BW_ERR_INVALID with *cause). `jc` must have been probed
 * (judge_probe_gpu): its gpu figures are what the worker registers with. */
int worker_run(const struct worker_config *wc, struct judge_config *jc, char **cause);

#endif
