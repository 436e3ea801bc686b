/*
 * blockwise-compile - compiles one untrusted CUDA source with NVRTC, locked down.
 *
 *   blockwise-compile --parent=PID [--no-sandbox]
 *
 * Started only by compile_run() (judge/worker/compile.c), which passes the request
 * record on fd 3 and reads the result record from fd 4 (the wire format of
 * compile.h); stdout and stderr go to the parent, capped, for diagnosis.
 *
 * The set-up is one linear list of named steps (below, `steps`), in the style
 * of ioi/isolate; the first that fails is reported back as an `error` record
 * and the process exits. This file is the compile child's policy: which
 * primitives of judge/sandbox/sandbox.h run, in which order, with which values (every
 * namespace, a root of the CUDA headers only, the allowlist seccomp profile);
 * the mechanisms are shared with the runner. docs/sandbox.md explains each step and what it
 * defends. --no-sandbox skips the isolation steps (namespaces, root, privileges,
 * seccomp) but keeps the rlimits: it exists to diagnose the sandbox itself,
 * and compile_run() never uses it unless the request asks.
 */
#include <dlfcn.h>
#include <errno.h>
#include <limits.h>
#include <nvrtc.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "common/buf.h"
#include "common/error.h"
#include "common/limits.h"
#include "common/util.h"
#include "judge/sandbox/child.h"
#include "judge/sandbox/sandbox.h"
#include "judge/sandbox/sandbox_job.h"
#include "wire/compile_wire.h"
#include "common/banned.h"

/* Where the CUDA headers appear inside the sandbox's root. */
#define ROOT_INCLUDE "/cuda/include"
/* Every namespace there is: NVRTC needs no network, IPC, host name or other processes. */
#define NAMESPACES                                                                                 \
    (SANDBOX_NS_MOUNT | SANDBOX_NS_NET | SANDBOX_NS_IPC | SANDBOX_NS_UTS | SANDBOX_NS_PID)
/* Used when the headers are not beside libnvrtc (lib/../include). */
#define FALLBACK_INCLUDE "/usr/local/cuda/include"

struct child {
    struct sandbox_child base; /* first: the steps of child.h see it */
    struct compile_job job;
    char include_dir[PATH_MAX]; /* host path of CUDA's include directory */
    bool has_cccl;              /* include_dir/cccl exists (CUDA 13 keeps libcu++ there) */
};

/* System calls NVRTC and this file need once the filter is on (found with strace -f;
 * open/openat read-only, clone for threads, tgkill and prlimit64 are added by
 * sandbox_seccomp_allowlist() with their argument checks). */
static const char *const allowed_syscalls[] = {
    "read",
    "write",
    "readv",
    "writev",
    "pread64",
    "lseek",
    "close",
    "fstat",
    "stat",
    "lstat",
    "newfstatat",
    "statx",
    "access",
    "faccessat",
    "faccessat2",
    "readlink",
    "readlinkat",
    "getcwd",
    "getdents64",
    "fcntl",
    "mmap",
    "munmap",
    "mremap",
    "mprotect",
    "brk",
    "madvise",
    "futex",
    "set_robust_list",
    "rseq",
    "set_tid_address",
    "exit",
    "exit_group",
    "rt_sigaction",
    "rt_sigprocmask",
    "rt_sigreturn",
    "sigaltstack",
    "getpid",
    "gettid",
    "getuid",
    "geteuid",
    "getgid",
    "getegid",
    "clock_gettime",
    "clock_getres",
    "clock_nanosleep",
    "nanosleep",
    "gettimeofday",
    "time",
    "getrusage",
    "sched_getaffinity",
    "sched_yield",
    "getrandom",
    "sysinfo",
    "uname",
};

static int step_read_request(struct sandbox_child *base, char **cause)
{
    struct child *c = (struct child *)base;
    struct buf b;
    char chunk[65536];
    size_t len;
    int rc = BW_OK;

    buf_init(&b, BW_MAX_MESSAGE_BYTES);
    for (;;) {
        ssize_t n = read(SANDBOX_FD_REQUEST, chunk, sizeof(chunk));
        if (n < 0 && errno == EINTR)
            continue;
        if (n < 0) {
            rc = bw_fail(cause, BW_ERR_IO, "read(fd %d): %s", SANDBOX_FD_REQUEST, strerror(errno));
            goto release;
        }
        if (n == 0)
            break;
        if ((rc = buf_append(&b, chunk, (size_t)n))) {
            rc = bw_fail(cause, rc, "the request is over %d bytes", BW_MAX_MESSAGE_BYTES);
            goto release;
        }
    }
    close(SANDBOX_FD_REQUEST);
    if (!b.data)
        return bw_fail(cause, BW_ERR_PROTOCOL, "empty request");
    len = b.len;
    return compile_job_decode(&c->job, buf_detach(&b), len, cause);
release:
    buf_release(&b);
    return rc;
}

/* The directory of the file a symbol was loaded from, resolved (a *new* string). */
static char *library_dir(void *symbol)
{
    Dl_info info;
    char *real, *slash;

    if (!dladdr(symbol, &info) || !info.dli_fname)
        return NULL;
    real = realpath(info.dli_fname, NULL);
    if (!real)
        return NULL;
    slash = strrchr(real, '/');
    if (slash)
        *slash = '\0';
    return real;
}

static bool is_dir(const char *path)
{
    struct stat st;
    return stat(path, &st) == 0 && S_ISDIR(st.st_mode);
}

/* Finds CUDA's include directory: lib/../include beside libnvrtc, else the usual place. */
static int step_find_headers(struct sandbox_child *base, char **cause)
{
    struct child *c = (struct child *)base;
    char *lib = library_dir((void *)nvrtcVersion);
    char probe[PATH_MAX + 32];
    int n = -1;

    if (lib) {
        char *slash = strrchr(lib, '/');
        if (slash)
            *slash = '\0';
        n = snprintf(c->include_dir, sizeof(c->include_dir), "%s/include", lib);
        free(lib);
    }
    snprintf(probe, sizeof(probe), "%s/cuda_fp16.h", c->include_dir);
    if (n < 0 || (size_t)n >= sizeof(c->include_dir) || access(probe, R_OK) != 0)
        snprintf(c->include_dir, sizeof(c->include_dir), "%s", FALLBACK_INCLUDE);
    snprintf(probe, sizeof(probe), "%s/cuda_fp16.h", c->include_dir);
    if (access(probe, R_OK) != 0)
        return bw_fail(cause, BW_ERR_NVRTC, "cannot find the CUDA headers (%s): %s", probe,
                       strerror(errno));
    snprintf(probe, sizeof(probe), "%s/cccl", c->include_dir);
    c->has_cccl = is_dir(probe);
    return BW_OK;
}

/*
 * NVRTC dlopens libnvrtc-builtins.so.MAJOR.MINOR on its first compile, by that
 * name. Loading it now, before the root changes, makes that later dlopen find
 * the library already mapped.
 */
static int step_preload_builtins(struct sandbox_child *base, char **cause)
{
    char name[64], path[PATH_MAX + 64];
    int major = 0, minor = 0;
    char *lib;

    (void)base;
    if (nvrtcVersion(&major, &minor) != NVRTC_SUCCESS)
        return bw_fail(cause, BW_ERR_NVRTC, "nvrtcVersion failed");
    snprintf(name, sizeof(name), "libnvrtc-builtins.so.%d.%d", major, minor);
    if (dlopen(name, RTLD_NOW | RTLD_GLOBAL))
        return BW_OK;
    lib = library_dir((void *)nvrtcVersion);
    if (lib) {
        snprintf(path, sizeof(path), "%s/%s", lib, name);
        free(lib);
        if (dlopen(path, RTLD_NOW | RTLD_GLOBAL))
            return BW_OK;
    }
    return bw_fail(cause, BW_ERR_NVRTC, "cannot load %s: %s", name, dlerror());
}

static int step_unshare(struct sandbox_child *base, char **cause)
{
    (void)base;
    return sandbox_unshare(NAMESPACES, cause);
}

static int step_rlimits(struct sandbox_child *base, char **cause)
{
    struct child *c = (struct child *)base;
    struct sandbox_limits l = {
        .cpu_s = c->job.rq.cpu_s > 0 ? c->job.rq.cpu_s : BW_COMPILE_CPU_S,
        .as_bytes = c->job.rq.mem_bytes > 0 ? c->job.rq.mem_bytes : BW_COMPILE_MEM_BYTES,
        .fsize_bytes = 0,
        .nofile = BW_COMPILE_NOFILE,
        /* Outside a user namespace RLIMIT_NPROC counts every process of the uid. */
        .nproc = c->base.sandbox ? BW_COMPILE_NPROC : 0,
    };
    int rc;
#ifdef BW_SANITIZE
    l.as_bytes = 0; /* AddressSanitizer reserves terabytes of address space */
#endif
    if ((rc = sandbox_set_rlimits(&l, cause)))
        return rc;
    return sandbox_not_dumpable(cause);
}

static int step_make_root(struct sandbox_child *base, char **cause)
{
    struct child *c = (struct child *)base;
    const struct sandbox_bind binds[] = {{.source = c->include_dir, .target = ROOT_INCLUDE}};
    return sandbox_make_root(binds, sizeof(binds) / sizeof(binds[0]), cause);
}

static int step_seccomp(struct sandbox_child *base, char **cause)
{
    (void)base;
    return sandbox_seccomp_allowlist(allowed_syscalls,
                                     sizeof(allowed_syscalls) / sizeof(allowed_syscalls[0]), cause);
}

static const struct sandbox_step steps[] = {
    {"die with parent", sandbox_step_die_with_parent, false},
    {"new session", sandbox_step_new_session, false},
    {"close fds", sandbox_step_close_fds, false},
    {"read request", step_read_request, false},
    {"find CUDA headers", step_find_headers, false},
    {"preload NVRTC builtins", step_preload_builtins, false},
    {"unshare namespaces", step_unshare, true},
    {"enter pid namespace", sandbox_step_enter_pid_namespace, true},
    {"rlimits", step_rlimits, false},
    {"make root", step_make_root, true},
    {"drop privileges", sandbox_step_drop_privileges, true},
    {"seccomp", step_seccomp, true},
};

/* Result fields go straight to the pipe; a parent gone is the pipe's problem (PDEATHSIG). */
static void send_field(const char *key, const void *value, size_t len)
{
    compile_wire_write(SANDBOX_FD_RESULT, key, value, len);
}

static void send_text(const char *key, const char *value)
{
    send_field(key, value, strlen(value));
}

static _Noreturn void report_setup_failure(const char *step, int code, const char *cause)
{
    compile_wire_fail_setup(SANDBOX_FD_RESULT, "blockwise-compile", step, code, cause);
}

/* Runs NVRTC and sends the answer. Never returns. */
static _Noreturn void compile_and_answer(struct child *c)
{
    const struct compile_request *rq = &c->job.rq;
    const char *opts[BW_COMPILE_MAX_OPTIONS + 8];
    char arch[64], inc[PATH_MAX + 8], cccl[PATH_MAX + 16], ms[32];
    const char *inc_dir = c->base.sandbox ? ROOT_INCLUDE : c->include_dir;
    const char *failure = NULL;
    bool has_std = false;
    size_t n = 0, log_size = 0, cubin_size = 0;
    nvrtcProgram prog;
    nvrtcResult r;
    char *log = NULL, *cubin = NULL;
    struct buf capped;
    char too_big[128];
    double t0;

    if (memchr(rq->source, '\0', rq->len))
        report_setup_failure("compile", BW_ERR_INVALID, "the source contains a NUL byte");
    r = nvrtcCreateProgram(&prog, rq->source, rq->filename, 0, NULL, NULL);
    if (r != NVRTC_SUCCESS)
        report_setup_failure("nvrtcCreateProgram", BW_ERR_NVRTC, nvrtcGetErrorString(r));
    snprintf(arch, sizeof(arch), "--gpu-architecture=%s", rq->arch);
    snprintf(inc, sizeof(inc), "-I%s", inc_dir);
    snprintf(cccl, sizeof(cccl), "-I%s/cccl", inc_dir);
    for (size_t i = 0; i < rq->n_options; i++)
        if (strncmp(rq->options[i], "-std=", 5) == 0 || strncmp(rq->options[i], "--std=", 6) == 0)
            has_std = true;
    opts[n++] = arch;
    opts[n++] = "--ptxas-options=-v";
    if (!has_std)
        opts[n++] = "-std=c++17";
    opts[n++] = inc;
    if (c->has_cccl)
        opts[n++] = cccl;
    for (size_t i = 0; i < rq->n_options; i++)
        opts[n++] = rq->options[i];

    t0 = now_ms();
    r = nvrtcCompileProgram(prog, (int)n, opts);
    snprintf(ms, sizeof(ms), "%.3f", now_ms() - t0);

    buf_init(&capped, 2 * BW_COMPILE_LOG_BYTES + 256);
    if (nvrtcGetProgramLogSize(prog, &log_size) == NVRTC_SUCCESS && log_size > 0) {
        log = malloc(log_size);
        if (!log)
            failure = "compilation exceeded the memory limit (the compiler's log does not fit)";
        else if (nvrtcGetProgramLog(prog, log) == NVRTC_SUCCESS)
            compile_log_cap(log, strnlen(log, log_size), BW_COMPILE_LOG_BYTES, &capped);
        free(log);
    }
    if (r == NVRTC_SUCCESS && !failure) {
        if (nvrtcGetCUBINSize(prog, &cubin_size) != NVRTC_SUCCESS || cubin_size == 0) {
            failure = "NVRTC produced no cubin";
        } else if (cubin_size > BW_MAX_CUBIN_BYTES) {
            snprintf(too_big, sizeof(too_big),
                     "the compiled cubin is %zu bytes, over the limit of %d bytes", cubin_size,
                     BW_MAX_CUBIN_BYTES);
            failure = too_big;
        } else if (!(cubin = malloc(cubin_size))) {
            failure = "compilation exceeded the memory limit (the cubin does not fit)";
        } else if (nvrtcGetCUBIN(prog, cubin) != NVRTC_SUCCESS) {
            failure = "NVRTC could not return the cubin";
        }
    }
    send_text("nvrtc", nvrtcGetErrorString(r));
    send_text("nvrtc_ms", ms);
    send_field("log", capped.data ? capped.data : "", capped.len);
    if (failure)
        send_text("failure", failure);
    else if (cubin) {
        size_t ptx_size = 0;
        char *ptx = NULL;
        send_field("cubin", cubin, cubin_size);
        /* The PTX carries each kernel's parameter list: the judge checks
         * @launch arguments against it before any GPU is involved. */
        if (nvrtcGetPTXSize(prog, &ptx_size) == NVRTC_SUCCESS && ptx_size > 1 &&
            ptx_size <= BW_MAX_CUBIN_BYTES && (ptx = malloc(ptx_size)) &&
            nvrtcGetPTX(prog, ptx) == NVRTC_SUCCESS)
            send_field("ptx", ptx, strnlen(ptx, ptx_size));
        free(ptx);
    }
    send_field("end", "", 0);
    _exit(0);
}

static void usage(void)
{
    fprintf(stderr, "usage: blockwise-compile --parent=PID [--no-sandbox]\n"
                    "(started by judged with a request on fd 3 and a result pipe on fd 4)\n");
}

int main(int argc, char **argv);
int main(int argc, char **argv)
{
    struct child c = {.base.sandbox = true, .base.fail = report_setup_failure};

    for (int i = 1; i < argc; i++) {
        int64_t pid;
        if (strcmp(argv[i], "--no-sandbox") == 0) {
            c.base.sandbox = false;
        } else if (strncmp(argv[i], "--parent=", 9) == 0 && parse_i64(argv[i] + 9, &pid) &&
                   pid > 0 && pid <= INT_MAX) {
            c.base.parent = (pid_t)pid;
        } else {
            usage();
            return 2;
        }
    }
    sandbox_child_setup(&c.base, steps, sizeof(steps) / sizeof(steps[0]));
    compile_and_answer(&c);
}
