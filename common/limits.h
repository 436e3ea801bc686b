/*
 * limits.h - every hard limit of Blockwise, one commented line each.
 *
 * A limit is part of the product's contract: the docs (docs/limits.md) list
 * them for learners and admins, and every check that enforces one names it in
 * its error message. Change a value here and nowhere else.
 */
#ifndef BW_LIMITS_H
#define BW_LIMITS_H

/* --- submissions and directives ------------------------------------------ */
#define BW_MAX_SOURCE_BYTES   (256 * 1024) /* one .cu submission */
#define BW_MAX_SOURCE_LINES   10000        /* lines in one submission */
#define BW_MAX_DIRECTIVE_LINE 1024         /* bytes in one // @directive line */
#define BW_MAX_CONT_LINES     16           /* lines of one directive continued with '\' */
#define BW_MAX_JOINED_BYTES   4096         /* bytes of one directive, its lines joined */
#define BW_MAX_LAUNCHES       8            /* @launch lines run in order per plan */
#define BW_MAX_LAUNCH_ARGS    32           /* arguments of one @launch */
#define BW_MAX_SCRATCH        8            /* @scratch buffers per submission */
#define BW_MAX_CONSTS         32           /* @const names per submission */
#define BW_MAX_TUNE_PARAMS    8            /* @tune names (a tuple @tune has several) */
#define BW_MAX_TUNE_VALUES    16           /* values of one @tune name */
#define BW_MAX_TUNE_CONFIGS   64           /* combinations of all @tune values */
#define BW_MAX_LETS           32           /* @let names per submission */
#define BW_MAX_FLAGS          16           /* options given by @flags */
#define BW_MAX_NAME           64           /* bytes in a kernel, tensor, size or const name */
#define BW_MAX_DIAGS          100          /* directive errors reported for one file */
/* Triton's maxnreg= caps the registers per thread (ptxas's .maxnreg). The most is 255, a
 * thread's maximum on every GPU since compute capability 3.5 (CUDA C++ Programming Guide,
 * "Compute Capabilities": maximum number of 32-bit registers per thread). ptxas documents no
 * least cap (nvcc's --maxrregcount: one below the ABI's minimum is raised to that minimum); 24
 * is the least PTX's setmaxnreg gives a warp group (PTX ISA, "setmaxnreg": 24 to 256), which is
 * how a warp-specialised kernel shares the cap among its partitions. */
#define BW_TRITON_MAXNREG_MIN 24  /* least maxnreg= of a Triton @launch (setmaxnreg's least) */
#define BW_TRITON_MAXNREG_MAX 255 /* most maxnreg= of a Triton @launch (a thread's registers) */

/* --- expressions (shapes, grids, formulas) -------------------------------- */
#define BW_MAX_EXPR_BYTES 512 /* one expression's text */
#define BW_MAX_EXPR_DEPTH 32  /* nesting of parentheses and calls */
#define BW_MAX_EXPR_NODES 256 /* nodes in one parsed expression */

/* --- problem directories --------------------------------------------------- */
/* BW_MAX_TENSOR_BYTES is 17 GiB, not 16: the tests past 2^31 elements (vector-add, relu: 64-bit
 * offsets) have fp64 reference outputs of 8 x (2^31 + 129) bytes, just over 16 GiB. */
#define BW_MAX_PROBLEM_JSON_BYTES (1024 * 1024) /* problem.json */
#define BW_MAX_STATEMENT_BYTES    (256 * 1024)  /* statement.md */
#define BW_MAX_JSON_DEPTH         32            /* nesting in any JSON we parse */
#define BW_MAX_TENSORS            16            /* tensors of one problem */
#define BW_MAX_SCALARS            16            /* scalar parameters of one problem */
#define BW_MAX_SIZES              8             /* size names of one problem */
#define BW_MAX_DIMS               6             /* dimensions of one tensor */
#define BW_MAX_CASES              256           /* test cases after expansion */
#define BW_MAX_BENCHMARKS         16            /* benchmark shapes of one problem */
#define BW_MAX_WRONG_CONTROLS     32            /* files in a problem's wrong/ */
#define BW_MAX_CONTROLS           64            /* entries of a problem's "controls" */
#define BW_MAX_PROFILES           16    /* data profiles (input distributions) of one problem */
#define BW_MAX_TITLE_BYTES        128   /* a problem's title */
#define BW_MAX_RUN_MS             60000 /* largest limits.run_ms a problem may set */
#define BW_MAX_TENSOR_BYTES       (17ULL << 30)     /* one tensor of one case, on the GPU */
#define BW_MAX_CASE_BYTES         (48ULL << 30)     /* all buffers of one case, on the GPU */
#define BW_MAX_SCRATCH_BYTES      (4ULL << 30)      /* default cap on all @scratch bytes */
#define BW_MAX_GOALS              12                /* learning goals of one problem */
#define BW_MAX_GOAL_PATTERNS      16                /* SASS patterns (require) of one sass goal */
#define BW_MAX_GOAL_DEFINES       8                 /* @const/@tune overrides of one rebuild goal */
#define BW_MAX_GOAL_PAIRS         BW_MAX_BENCHMARKS /* shape pairs of one compare goal */

/* --- compilation sandbox --------------------------------------------------- */
#define BW_COMPILE_WALL_MS      30000        /* wall-clock kill of one NVRTC compile */
#define BW_COMPILE_CPU_S        20           /* RLIMIT_CPU of the compile child */
#define BW_COMPILE_MEM_BYTES    (4ULL << 30) /* RLIMIT_AS of the compile child (no CUDA in it) */
#define BW_COMPILE_LOG_BYTES    (64 * 1024)  /* NVRTC log kept, per part (front end, ptxas) */
#define BW_MAX_CUBIN_BYTES      (64 * 1024 * 1024) /* one compiled cubin */
#define BW_COMPILE_NOFILE       64 /* RLIMIT_NOFILE of the compile child (headers open at once) */
#define BW_COMPILE_NPROC        16 /* RLIMIT_NPROC of the compile child: its threads, in its user ns */
#define BW_COMPILE_MAX_OPTIONS  64  /* extra NVRTC options of one compile (flags, consts, tune) */
#define BW_COMPILE_OPTION_BYTES 256 /* bytes in one extra NVRTC option */
#define BW_COMPILE_OUTPUT_BYTES (16 * 1024) /* compile child's stdout+stderr kept for diagnosis */
#define BW_BUILD_CACHE_ENTRIES  4096        /* builds a judge keeps (a Triton build: one variant) */
#define BW_BUILD_CACHE_BYTES    (256 << 20) /* their cubins, PTX, logs: the bound; LRU evicted */
#define BW_SASS_WALL_MS         30000       /* wall-clock kill of one disassembly (sass goals) */
#define BW_SASS_CPU_S           20          /* RLIMIT_CPU of the disassembler */
#define BW_SASS_MEM_BYTES       (4ULL << 30)       /* RLIMIT_AS of the disassembler */
#define BW_SASS_OUTPUT_BYTES    (64 * 1024 * 1024) /* disassembly listing kept; the rest dropped */

/* --- Triton compile sandbox ------------------------------------------------ */
#define BW_TRITON_WALL_MS         60000 /* wall-clock kill of one Triton compile request */
#define BW_TRITON_CPU_S           120   /* RLIMIT_CPU of the Triton compiler (LLVM threads) */
#define BW_TRITON_MEM_BYTES       (8ULL << 30) /* RLIMIT_AS of the Triton compiler (no CUDA in it) */
#define BW_TRITON_TMPFS_BYTES     (256 << 20)  /* its tmpfs: TMPDIR, HOME, TRITON_CACHE_DIR */
#define BW_TRITON_FILE_BYTES      (128 << 20)  /* RLIMIT_FSIZE: one file it writes (cache, ptxas) */
#define BW_TRITON_NOFILE          256          /* RLIMIT_NOFILE of the Triton compiler */
#define BW_TRITON_NPROC           256 /* RLIMIT_NPROC: its threads and processes (user ns) */
#define BW_TRITON_MAX_KERNELS     128 /* kernel variants in one compile request */
#define BW_TRITON_JOBS            16  /* most processes compiling one request (CPUs shared) */
#define BW_TRITON_POOL_MAX        16  /* warm Triton compilers a pool keeps (triton_pool.h) */
#define BW_TRITON_SPARES_PER_SLOT 3   /* warm compilers judged keeps a job slot (bursts) */
#define BW_TRITON_MAX_VARIANTS                                                                     \
    64                             /* builds of one @tune configuration (one runner load; the      \
                                    load's bitmask of final builds holds 64) */
#define BW_TRITON_MAX_BINDS    112 /* paths of the Python + Triton install in its root */
#define BW_TRITON_OUTPUT_BYTES (64 * 1024) /* its stdout+stderr kept as the log */
#define BW_TRITON_RESULT_BYTES (256 << 20) /* one result record: cubins, PTX, diagnostics */
#define BW_TRITON_DIAG_BYTES   2048        /* one diagnostic's message, as the compiler sends it */
#define BW_TRITON_NAME_BYTES   256         /* a kernel's entry symbol in its cubin */
#define BW_TRITON_MAX_SHARED   (1 << 20)   /* dynamic shared memory a build may ask (sanity) */
#define BW_TRITON_MAX_SCRATCH  (1 << 20)   /* global or profile scratch a build asks per program */
#define BW_TRITON_START_MS     30000       /* a started compiler's wait for readiness */
#define BW_TRITON_PROBE_MS     60000       /* triton_probe: import Triton, compile one kernel */
#define BW_TRITON_PROBE_BYTES  (1 << 20)   /* the probe's answer: the installation's paths */

/* --- Triton launchers (solve(...), recorded in the Triton compile sandbox) ------ */
#define BW_LAUNCHER_CASE_MS     10000 /* wall time of one case's recording, all configurations */
#define BW_LAUNCHER_MAX_STRINGS 4096  /* distinct names and strings in one recording */
#define BW_LAUNCHER_STR_BYTES   64    /* a str constexpr ('leaky_relu'); safe characters only */
#define BW_LAUNCHER_CONFIG_NAME 256   /* bytes of one autotune configuration's name */

/* --- running ------------------------------------------------------------------ */
#define BW_GUARD_BYTES         4096  /* sentinel bytes before and after every buffer */
#define BW_RUN_WALL_MS_DEFAULT 2000  /* one plan run, unless problem.json says otherwise */
#define BW_RUNNER_START_MS     20000 /* runner start-up (cuInit, context) before it is killed */
#define BW_MISMATCHES_SHOWN    5     /* mismatches listed per failing output */
#define BW_CHECK_SAMPLES       4096  /* elements per output checked after each timed run */
#define BW_MAX_BUFFERS                                                                             \
    (2 * BW_MAX_TENSORS +                                                                          \
     BW_MAX_SCRATCH)             /* device buffers of one plan (with a reference's scale outputs) */
#define BW_MAX_BENCH_SETS     8  /* input sets a bench rotates through */
#define BW_MAX_LOADED_KERNELS 64 /* kernels one runner load names (Triton: compiled variants) */
#define BW_MAX_RETURN_BYTES                                                                        \
    (32ULL << 30)                /* one memfd of outputs a runner returns (its RLIMIT_FSIZE) */
#define BW_RUNNER_LENT_SLOTS   4 /* buffers the judge lends one runner for full returns */
#define BW_RUNNER_LENT_MIN     (1u << 20)   /* bytes: the smallest lent buffer */
#define BW_RUNNER_LENT_MAX     (1ull << 30) /* bytes: a larger return goes in a memfd of its own */
#define BW_LENT_KEPT_BUFFERS   8 /* lent buffers kept (zeroed) from ended runners for the next */
#define BW_LENT_KEPT_BYTES     (2ull << 30) /* bytes: the most those kept buffers hold */
#define BW_LENT_KEPT_WASTE     16  /* a kept buffer serves returns down to 1/16 of its size */
#define BW_RUNNER_NOFILE       256 /* RLIMIT_NOFILE of a runner (the driver opens a few dozen) */
#define BW_RUNNER_LOG_BYTES    (64 * 1024) /* runner stderr kept by the client, the rest dropped */
#define BW_RUNNER_CALIBRATE_MS 120000      /* one calibrate request, before the runner is killed */
#define BW_RUNNER_LOAD_MS      30000       /* one load request (module load, function attributes) */
/* Device memory (judge/worker/device_memory.h): the runners' calls reserve their buffers' bytes
 * within the GPU's memory less 1/BW_DEVICE_MEMORY_RESERVE_PART of it (every runner's context
 * and harness, some hundreds of MB each, and PyTorch's baselines live in that part: 10 GB of
 * an 80 GB H100). A call that ran short all the same (another runner's buffers freed just after
 * its reply) is tried again every BW_RUNNER_OOM_PAUSE_MS for up to BW_RUNNER_OOM_RETRY_MS. */
#define BW_DEVICE_MEMORY_RESERVE_PART 8
#define BW_RUNNER_OOM_PAUSE_MS        20
#define BW_RUNNER_OOM_RETRY_MS        5000

/* --- judging: the steps' deadlines and design figures ---------------------- */
#define BW_REFERENCE_TIME_FACTOR    10    /* the fp64 reference may take this many times run_ms */
#define BW_REFERENCE_CASE_SLACK_MS  10000 /* plus this, per test case */
#define BW_REFERENCE_BENCH_SLACK_MS 30000 /* plus this, per benchmark input set (large shapes) */
#define BW_REFERENCE_KEEP_BYTES                                                                    \
    (256ULL << 20) /* a judging keeps its tests' expected outputs for its next configurations */
#define BW_BENCH_OVERRUN_RUNS  4     /* a bench call may overrun its budget by this many runs */
#define BW_BENCH_CALL_SLACK_MS 20000 /* plus this, before the runner is killed */
#define BW_GPU_CACHE_SECONDS   86400 /* a `judged check` reuses a GPU's measured figures */
#define BW_DUMP_MAX_CASE_BYTES (256ULL << 20) /* `judged dump` skips larger test cases */
/* A test's run is killed at run_ms plus the harness's allowance for the case's bytes
 * (tests.h: tests_run_deadline_ms), so that run_ms bounds the plan, not the harness around it:
 * allocating, generating, hashing, poisoning and scanning the buffers on the GPU, and copying
 * outputs to the judge. The runner's own measure of the plan (its launch phase) is held to
 * run_ms. Design figures with their basis, not a per-phase measurement (tests/gpu/huge.sh
 * prints the phases): a vector-add test's whole round trip averaged 4.9 ms on the H200 (38
 * cases in 185 ms, tests/fixtures/gpu-results/vector-add-submit.json); the harness makes about
 * six passes over a case's bytes (generate, hash twice, poison, scan) plus Philox and the
 * allocations, against a measured copy bandwidth of 4240 GB/s (docs/speed-of-light.md), on a
 * GPU another judging may share; outputs cross PCIe Gen5 x16 (64 GB/s at most), a return above
 * BW_RUNNER_LENT_MAX into a fresh pageable memfd whose pages are made as they are written. */
#define BW_HARNESS_BASE_MS 50 /* a run's fixed harness time allowed (10x a vector-add test's) */
#define BW_HARNESS_DEVICE_BYTES_PER_MS                                                             \
    (20ULL * 1000 * 1000) /* 20 GB/s of buffers: 1/200 of the H200's copy bandwidth */
#define BW_HARNESS_HOST_BYTES_PER_MS                                                               \
    (1000ULL * 1000) /* 1 GB/s of outputs and indices to or from the judge: 1/64 of PCIe */
/* A test whose outputs take more than BW_FULL_CHECK_MAX_BYTES is checked by sample (checks.h):
 * the runner scans every element for poison and returns only the chosen elements, which the
 * reference computes too. The largest case of the 30 problems below it is transpose's 268 MB
 * (8191 x 8193 fp32); above it, only vector-add's and relu's 8.6 GB past 2^31. Its random
 * elements are BW_CHECK_SAMPLES per output, besides the head, the tail and the windows. */
#define BW_FULL_CHECK_MAX_BYTES                                                                    \
    (1ULL << 30) /* outputs of one test compared whole up to this (the submission's dtypes) */
#define BW_SAMPLED_HEAD   1024  /* elements checked at the start of each output of a sampled test */
#define BW_SAMPLED_TAIL   65536 /* ... at its end: past the last full block of up to this many */
#define BW_SAMPLED_WINDOW 1024  /* ... each side of every 2^31 bytes or elements: 32-bit wraps */

/* --- sandboxes and child processes ------------------------------------------ */
#define BW_SANDBOX_ROOT_BYTES   65536 /* tmpfs of a sandbox's new root (it holds mount points) */
#define BW_SANDBOX_ROOT_INODES  1024  /* inodes of that tmpfs: the mount points and their dirs */
#define BW_SANDBOX_MAX_MOUNTS   128   /* binds and tmpfs directories in one sandbox root */
#define BW_SANDBOX_CLOSE_FDS    65536 /* fds closed one by one without close_range, /proc, NOFILE */
#define BW_MOUNTINFO_LINE_BYTES 16384 /* one /proc/self/mountinfo line (longer: set-up fails) */
#define BW_SPAWN_MAX_FDS        8     /* descriptors of a child's fixed fd layout (0 to N-1) */
#define BW_SPAWN_STACK_BYTES    65536 /* stack of a spawned child until it execs */
#define BW_JOB_POLL_MS          10    /* a job's exit is polled this often without pidfd_open */
#define BW_COMPILE_RESULT_SLACK 4096  /* compile result record bytes beyond cubin and logs */
#define BW_SASS_NOFILE          64    /* RLIMIT_NOFILE of the disassembler */
#define BW_SASS_SHOWN_BYTES     400   /* of a failing disassembler's output, quoted in the error */
#define BW_SASS_OPCODE_BYTES    96    /* an opcode with its modifiers, as a listing is scanned */
#define BW_SASS_FUNCTION_BYTES  1024  /* a function name, as a listing is scanned */
#define BW_RUNNER_MAX_ENV       16    /* extra environment variables of a runner (fake driver) */
#define BW_RUNNER_REAP_MS       5000  /* a runner that closed its socket must exit within this */
#define BW_RUNNER_REAP_POLL_US  1000  /* how often a runner being reaped is looked at */
#define BW_RUNNER_MAX_DEVICE    1024  /* --device N of a runner: 0 to this minus 1 */
#define BW_RUNNER_REPLY_SEND_MS 60000 /* a runner reply unread this long: the runner exits */

/* --- timing ------------------------------------------------------------------- */
#define BW_BENCH_MIN_SAMPLES 10    /* timed runs before the stop rule may stop */
#define BW_BENCH_MAX_SAMPLES 500   /* timed runs per shape at most */
#define BW_BENCH_TARGET_RSE  0.005 /* stop when the median's relative standard error is below */
#define BW_BENCH_BUDGET_MS   1500  /* wall budget of timed runs per shape */
#define BW_BENCH_WARMUP_MS   100   /* warm-up runs per shape, at least BW_BENCH_WARMUP_RUNS */
#define BW_BENCH_WARMUP_RUNS 3     /* untimed runs before a shape's samples, at least */
#define BW_BENCH_MAX_WARMUP_RUNS                                                                   \
    1000 /* a bench request's warmup_runs at most (docs/runner-protocol.md, bench) */
#define BW_BENCH_WARMUP_NEXT_MS                                                                    \
    20 /* the same after a judging's first timed shape: the GPU is warm (and the runs) */
#define BW_BENCH_SCREEN_MIN_CONFIGS                                                                \
    3 /* with this many @tune configurations or more, a shape screens them before timing */
#define BW_BENCH_SCREEN_SAMPLES                                                                    \
    10 /* timed runs of a screening at most (checked as any timed run) */
#define BW_BENCH_SCREEN_MIN_SAMPLES                                                                \
    3 /* and at least: a slow kernel's screening stops at BW_BENCH_SCREEN_BUDGET_MS */
#define BW_BENCH_SCREEN_BUDGET_MS                                                                  \
    100 /* wall budget of a screening's timed runs (Triton's autotuner times a config ~100 ms) */
#define BW_BENCH_SCREEN_WARMUP_RUNS                                                                \
    2 /* untimed runs before a screening's samples: one per input set (the GPU is warm) */
#define BW_BENCH_SCREEN_MARGIN                                                                     \
    0.05 /* configurations screened within this fraction of the fastest are timed in full */
#define BW_BENCH_KEPT_RUNNERS                                                                      \
    8 /* a Submit's timing keeps the runners of this many @tune configurations across shapes */
#define BW_L2_FLUSH_BYTES                                                                          \
    (256ULL << 20) /* bytes written to flush L2 before each sample (>= 2x L2) */
#define BW_L2_FLUSH_WORD                                                                           \
    0 /* the 32-bit word they repeat: zeros, as do_bench writes (a half-ones word's writes drew    \
         enough power to slow a GEMM timed after them: an H100's 8192^3 fp16 by 9%) */
#define BW_FLOOR_MARGIN 0.9 /* a median below this fraction of the physical floor is rejected */
#define BW_BENCH_SETS   2   /* input sets a benchmark rotates through (<= BW_MAX_BENCH_SETS) */
#define BW_TENSOR_PEAK_HEADROOM                                                                    \
    1.6 /* floor: wgmma may outrun the mma.sync peak the worker measures by this */

/* --- profiling (a Profile: docs/profile.md) ------------------------------------ */
#define BW_PROFILE_METRIC_BYTES 96 /* bytes of one metric name (with its NUL) */
#define BW_PROFILE_MAX_METRICS  48 /* metrics one profile reads per kernel launch */
#define BW_PROFILE_MAX_PASSES                                                                      \
    64 /* replays of each kernel a metric set may need, else the profiler refuses it */
#define BW_PROFILE_PLAN_MS                                                                         \
    60000 /* the plan's profiled run (every replay of every kernel), before the runner is killed   \
           */
#define BW_PROFILE_START_MS                                                                        \
    60000 /* a profiling runner's start (CUDA, then CUPTI's set-up of the metric set) */
#define BW_PROFILE_WHY_BYTES 512 /* one sentence saying why a profile is not available */
#define BW_PROFILE_BUSY_PCT                                                                        \
    60.0 /* a unit above this % of its peak is busy: it limits the kernel (memory or compute) */
#define BW_PROFILE_LEVEL_SLACK_PCT                                                                 \
    10.0 /* memory-bound: DRAM is named unless L2 or L1 is busier by more points than this */

/* --- a runner's kept allocations (judge/runner/runner_staged.c) --------------- */
#define BW_RUNNER_KEEP_BYTES                                                                       \
    (64ULL << 20) /* device memory a runner keeps allocated after a run for the next run's         \
                     buffers (a judging's tests run case after case in one runner), at most */
#define BW_RUNNER_KEEP_PART                                                                        \
    1024 /* and at most this part of the device's memory (the judge's ledger does not see it) */
#define BW_RUNNER_KEEP_ALLOCS 32 /* allocations a runner keeps at most */

/* --- PyTorch's baseline (judge/worker/baseline.h) ---------------------------- */
#define BW_BASELINE_PROBE_MS                                                                       \
    120000 /* the probe: import torch (cold disks are slow), find the GPU */
#define BW_BASELINE_WALL_MS     600000 /* one measurement of every shape, before it is killed */
#define BW_BASELINE_IDLE_MS     120000 /* silence between two messages (gate waits excluded) */
#define BW_BASELINE_CPU_S       900    /* RLIMIT_CPU of the Python process */
#define BW_BASELINE_NOFILE      4096   /* RLIMIT_NOFILE of it (PyTorch maps many libraries) */
#define BW_BASELINE_FSIZE_BYTES (8ULL << 30) /* RLIMIT_FSIZE: check mode writes outputs */
#define BW_BASELINE_GPU_MEM_BYTES                                                                  \
    (48ULL << 30) /* GPU memory PyTorch may take (set_per_process_memory_fraction) */
#define BW_BASELINE_OUTPUT_BYTES (64 * 1024) /* its stdout and stderr kept, for errors */
#define BW_BASELINE_LINE_BYTES   (1 << 20)   /* one message of the driver */
#define BW_BASELINE_CACHE_BYTES  (1 << 20)   /* one cached figures file */
#define BW_BASELINE_ENTRIES      64          /* problem versions a worker keeps figures of */
#define BW_BASELINE_WAIT_MS                                                                        \
    20000 /* a Submit waits this long for its problem's measurement in progress */
#define BW_BASELINE_REST_MS                                                                        \
    1000 /* the GPU rests this long before each shape's warm-up (the gate free, or the driver      \
            idling in it): a power-capped GPU's clock depends on the last second's work */
#define BW_BASELINE_WARMUP_MS                                                                      \
    500 /* then PyTorch's calls run this long before the samples: past a power-capped GPU's first  \
           ~150 ms of boost, so its sustained time (a 100 ms warm-up sampled the swing between) */
#define BW_BASELINE_GATE_PATIENCE_MS                                                               \
    5000 /* a shape's timing waits this long for no judging and a rested GPU, then queues */
#define BW_BASELINE_RETRY_S 3600 /* a measurement that failed is tried again after this */
#define BW_BASELINE_CHECK_CASE_BYTES                                                               \
    (64ULL << 20) /* validate: test cases up to this size check baseline.py */

/* --- the judged worker ------------------------------------------------------ */
#define BW_POOL_MAX_SPARES 16 /* submission runners a runner pool keeps started */
#define BW_POOL_SPARES_PER_SLOT                                                                    \
    2 /* judged keeps this many a job slot: one ran dry under back-to-back failing Runs */
#define BW_POOL_MAX_REFERENCES  16 /* reference runners a pool keeps (two a slot: tests, timing) */
#define BW_POOL_STARTERS        2  /* threads of a runner pool starting runners side by side */
#define BW_POOL_RETRY_MAX_S     30 /* longest back-off between failed runner starts */
#define BW_WORKER_GRACE_S       30 /* default --grace: on SIGTERM a job ending within it is finished */
#define BW_WORKER_MAX_GRACE_S   3600 /* largest --grace */
#define BW_WORKER_MAX_BACKOFF_S 60   /* longest wait between retries of a request to the server */
#define BW_WORKER_LEASE_S       120 /* assumed lease when the server names none (heartbeat: a third) */
#define BW_WORKER_CONNECT_S     10  /* connecting to the server */
#define BW_WORKER_HTTP_S        30  /* one register or progress request */
#define BW_WORKER_FINAL_HTTP_S  60  /* one post of a result, internal error or release */
#define BW_WORKER_BUNDLE_HTTP_S 120 /* one problem bundle download */
#define BW_MAX_CLAIM_WAIT_S     300 /* longest claim long-poll the server holds */
#define BW_WORKER_CLAIM_HTTP_S  (BW_MAX_CLAIM_WAIT_S + 30) /* one claim, its long poll included */
#define BW_WORKER_REPLY_BYTES   (1 << 20)                  /* one JSON reply from the server */
#define BW_WORKER_PROBLEMS      16  /* problems a worker keeps loaded (bundles by hash) */
#define BW_WORKER_POST_MS       250 /* progress events wait at most this long to be posted */
#define BW_WORKER_TICK_MS       50  /* a job's monitor wakes this often (its verdict: at once) */
#define BW_WORKER_MAX_SLOTS     8   /* jobs one worker judges at once (--slots) */
#define BW_WORKER_SLOTS         2   /* default --slots: 2 doubled an AC burst on the H200 (bench) */

/* --- IPC between judged and its children -------------------------------- */
#define BW_MAX_MESSAGE_BYTES (16 * 1024 * 1024) /* one framed JSON message */

/* --- server (blockwise-server) and worker API ------------------------------ */
#define BW_MAX_BODY_BYTES                                                                          \
    (BW_MAX_SOURCE_BYTES * 2 + 64 * 1024) /* one JSON request body (a source, escaped) */
#define BW_MAX_RESULT_BODY_BYTES                                                                   \
    (8 * 1024 * 1024)                           /* one worker result body (tests, logs, benches) */
#define BW_MAX_REQUEST_JSON_DEPTH   16          /* nesting of a user request body */
#define BW_MAX_URL_BYTES            2048        /* request path plus query */
#define BW_MAX_USERNAME             32          /* bytes in a user name: [a-z0-9_.-], 3.. */
#define BW_MIN_PASSWORD             8           /* bytes in a password, at least */
#define BW_MAX_PASSWORD             256         /* bytes in a password, at most */
#define BW_MAX_TOKEN_NAME           64          /* bytes in an API or worker token's label */
#define BW_MAX_EVENTS_PER_POST      256         /* progress events in one worker post */
#define BW_MAX_EVENT_BYTES          (16 * 1024) /* one progress event, serialised */
#define BW_MAX_SSE_EVENTS           4096        /* events kept per submission stream */
#define BW_MAX_LIST_LIMIT           200         /* rows in one page of a list endpoint */
#define BW_MAX_BUNDLE_BYTES         (8 * 1024 * 1024) /* one problem bundle (all its files, base64) */
#define BW_MAX_BUNDLE_FILES         128               /* files in one problem bundle */
#define BW_MAX_STATEMENT_HTML_BYTES (1024 * 1024)     /* statement.md rendered as HTML */
#define BW_MAX_STATIC_BYTES         (32 * 1024 * 1024) /* one file served from web/ */
#define BW_MAX_CONFIG_BYTES         (64 * 1024)        /* the server's config file */
#define BW_MAX_MESSAGE_FIELD        4096               /* a worker's internal-error message, kept */
#define BW_JUDGE_ATTEMPTS           3  /* leases of one submission before Judge Error */
#define BW_WORKER_LOST_S            12 /* default lease: no heartbeat this long, lost (3 missed) */
#define BW_MAX_STATUS_GPUS          8  /* GPU models named by GET /api/status */
#define BW_MAX_WORKER_LANGUAGES     8  /* entries in a worker's register "languages" */
#define BW_MAX_LANGUAGE_VERSION     64 /* bytes in a language's version a worker registers */
#define BW_MAX_STATUS_VERSIONS      8  /* versions of one language named by GET /api/status */

/* --- Profile mode: its quota, and what a worker's profile may hold ------------ */
/* A Profile holds a GPU's exclusive section for its profiler's passes (docs/profile.md), so its
 * window quota is small by default and bounded well below the Run and Submit quotas' bound. */
#define BW_QUOTA_PROFILE_DEFAULT 10   /* default quota_profile: Profiles per user per window */
#define BW_QUOTA_PROFILE_MAX     1000 /* largest quota_profile the configuration accepts */
#define BW_MAX_PROFILE_BYTES     (1024 * 1024) /* a result's "profile" object, serialised */
#define BW_MAX_PROFILE_METRICS   512  /* metrics of one kernel launch in a profile's "raw" */
#define BW_MAX_PROFILE_STALLS    8    /* warp-stall reasons listed for one kernel launch */
#define BW_MAX_PROFILE_TEXT      1024 /* bytes of one string of a profile (a reading, why) */

/* --- server: endpoint body caps, responses, sign-in throttling ------------ */
#define BW_MAX_SMALL_BODY_BYTES    4096 /* small JSON bodies: sign-in, tokens, admin, claim */
#define BW_MAX_REGISTER_BODY_BYTES (64 * 1024)   /* a worker's register body (host, GPU figures) */
#define BW_MAX_PROGRESS_BODY_BYTES (1024 * 1024) /* one worker progress post (its events) */
#define BW_MAX_IERROR_BODY_BYTES   (16 * 1024)   /* one worker internal-error post */
#define BW_MAX_DISCARD_BYTES       (1024 * 1024) /* body past a cap read for the 413, then closed */
#define BW_MAX_RESPONSE_BYTES      (16 << 20)    /* one response body built in memory */
#define BW_HTTP_CONN_MEMORY_BYTES  (128 * 1024)  /* per connection: request head, buffers */
#define BW_MAX_HEADER_BYTES        (16 * 1024)   /* request headers; over it, 431 in JSON */
#define BW_MAX_API_TOKENS          20            /* personal API tokens of one user */
#define BW_MAX_THROTTLE_ENTRIES    4096 /* sign-in failures tracked: names, and addresses */
#define BW_SIGNIN_ADDRESS_BURST    64   /* sign-ins from one address checked at once, unlocked */
#define BW_DEVICE_COOKIE_DAYS      180  /* a known-device cookie is good for, renewed at sign-in */

/* --- server: password hashing, sign-ups ----------------------------------------- */
#define BW_PWHASH_QUEUE       64 /* default pwhash_queue: sign-ins waiting; more get 429 busy */
#define BW_PWHASH_RETRY_MAX_S 60 /* the longest Retry-After of a 429 busy */
#define BW_PWHASH_NICE        10 /* hashing threads' nice: the HTTP threads come first */
#define BW_SIGNUP_PER_ADDRESS 30 /* default signup_address_limit: a class behind one NAT */

/* --- server: slow clients, connections per client ---------------------------- */
#define BW_HTTP_REQUEST_DEADLINE_S      30 /* default request_deadline: s for line, headers, body */
#define BW_HTTP_CONNECTIONS_PER_ADDRESS 256 /* default connections_per_address (one client) */

/* --- server: a submission posted again (the Idempotency-Key header) ------------ */
#define BW_IDEMPOTENCY_KEY_MAX 128 /* bytes of one key: printable ASCII, no spaces */

/* --- server: the store (SQLite or PostgreSQL), several servers ---------------- */
#define BW_DB_TX_RETRIES      8   /* a transaction run again after a deadlock (PostgreSQL) */
#define BW_DB_SIGNAL_BYTES    64  /* one signal's payload between servers (NOTIFY) */
#define BW_EVENTS_KEEP_S      600 /* a finished submission's events kept for late readers, s */
#define BW_DUMP_LINE_BYTES    (16 * 1024 * 1024) /* one row of an export file */
#define BW_THROTTLE_PENDING_S 120 /* s until a dead server's shared sign-in hold is freed */

#endif
