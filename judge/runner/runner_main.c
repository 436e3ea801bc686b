/*
 * blockwise-runner - the only Blockwise process that touches CUDA.
 *
 *   blockwise-runner --device N [--no-sandbox] [--cupti PATH]
 *
 * judged starts it with one end of a socketpair as fd 3 (ipc.h framing) and
 * talks to it with the messages of docs/runner-protocol.md. The set-up is one
 * linear list of named steps; the first that fails is reported in the ready
 * message ({"type": "ready", "error": {"kind", "message"}}) and the runner
 * exits. Then it answers requests one at a time until "exit", the end of the
 * stream, or a CUDA error that leaves its context unusable.
 *
 * With --cupti, CUPTI's profiler (the library at PATH) is set up after CUDA
 * and before the seccomp filter, for `profile` requests (cupti.h); its
 * failure does not stop the runner: each profile request says why instead.
 *
 * Exit status: 0 after "exit" or the end of the stream, 1 when a step or the
 * protocol failed, 2 for a bad command line, 3 after a sticky CUDA error.
 */
#include <errno.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cuda.h"
#include "cupti.h"
#include "runner_exec.h"
#include "runner_sandbox.h"
#include "common/error.h"
#include "common/limits.h"
#include "common/log.h"
#include "common/util.h"
#include "wire/ipc.h"
#include "wire/runner_proto.h"
#include "common/banned.h"

#define RUNNER_SOCKET_FD 3

/* The harness kernels, embedded by the Makefile (judge/runner/kernels/harness.cu). */
extern const char harness_fatbin[];
extern const char harness_fatbin_end[];

/* A buffer judged lent for full returns (runner_proto.h, run_request.into):
 * mapped writable, pinned when the driver agrees, until replaced or exit. */
struct lent {
    void *map; /* NULL: slot empty */
    size_t size;
    bool pinned;
};

struct runner {
    int device;
    bool sandbox;
    int sock;
    const char *cupti_path; /* --cupti: the library to profile with; NULL: no profiler */
    struct cupti *cupti;    /* the profiler, when it came up */
    char *cupti_why;        /* owned: why it did not */
    struct runner_exec *exec;
    struct gpu_props props;
    struct lent lent[BW_RUNNER_LENT_SLOTS];
};

/* --- set-up steps --------------------------------------------------------------- */

struct step {
    const char *name;
    bool sandbox_only;
    int (*run)(struct runner *r, char **cause);
};

static int step_process(struct runner *r, char **cause)
{
    (void)r;
    return runner_sandbox_process(RUNNER_SOCKET_FD, cause);
}

static int step_rlimits(struct runner *r, char **cause)
{
    (void)r;
    return runner_sandbox_rlimits(cause);
}

static int step_namespaces(struct runner *r, char **cause)
{
    (void)r;
    return runner_sandbox_namespaces(cause);
}

static int step_cuda(struct runner *r, char **cause)
{
    int rc = cuda_open(cause);
    if (rc)
        return rc;
    return runner_exec_open(r->device, harness_fatbin, &r->exec, &r->props, cause);
}

/* Never fails the start: a profiler that does not come up is each profile's "why". */
static int step_cupti(struct runner *r, char **cause)
{
    (void)cause;
    if (!r->cupti_path)
        return BW_OK;
    if (cupti_open(r->cupti_path, r->device, runner_exec_context(r->exec), &r->cupti,
                   &r->cupti_why))
        log_warn("no profiler: %s", r->cupti_why ? r->cupti_why : "unknown");
    return BW_OK;
}

static int step_seccomp(struct runner *r, char **cause)
{
    (void)r;
    return runner_sandbox_seccomp(cause);
}

static const struct step steps[] = {
    {"die with the parent, new session, close descriptors", false, step_process},
    {"resource limits", false, step_rlimits},
    {"namespaces and read-only mounts", true, step_namespaces},
    {"CUDA device and harness", false, step_cuda},
    {"CUPTI profiler", false, step_cupti},
    {"seccomp filter", true, step_seccomp},
};

static enum ready_error ready_kind(int rc)
{
    switch (rc) {
    case BW_ERR_NODEVICE:
        return READY_NO_DEVICE;
    case BW_ERR_SANDBOX:
        return READY_SANDBOX;
    case BW_ERR_INVALID:
        return READY_USAGE;
    default:
        return READY_CUDA;
    }
}

static int send_json(struct runner *r, json_t *msg, int fd)
{
    char *cause = NULL;
    int rc;

    if (!msg) {
        log_error("cannot build a reply (out of memory)");
        return BW_ERR_NOMEM;
    }
    rc = ipc_send(r->sock, msg, fd, ipc_deadline_in(BW_RUNNER_REPLY_SEND_MS), &cause);
    if (rc)
        log_error("sending a reply: %s", cause ? cause : bw_strerror(rc));
    json_decref(msg);
    free(cause);
    return rc;
}

/* Sends the ready message with the failure of step `name` and returns 1. */
static int fail_ready(struct runner *r, const char *name, int rc, const char *cause)
{
    struct ready_msg m;

    memset(&m, 0, sizeof(m));
    m.error = ready_kind(rc);
    snprintf(m.message, sizeof(m.message), "%s: %s", name, cause ? cause : bw_strerror(rc));
    log_error("%s", m.message);
    send_json(r, ready_to_json(&m), -1);
    return 1;
}

/* --- requests ------------------------------------------------------------------------ */

/* A request's bulk bytes: the received memfd, mapped read-only. */
struct blob {
    int fd;
    const void *data;
    size_t size;
};

static void blob_release(struct blob *b)
{
    ipc_unmap(b->data, b->size);
    if (b->fd >= 0)
        close(b->fd);
    b->fd = -1;
    b->data = NULL;
    b->size = 0;
}

/* Maps the request's fd; `needed` says whether the request must carry one. */
static int blob_map(struct blob *b, bool needed, const char *type, char **cause)
{
    if (b->fd < 0)
        return needed ? bw_fail(cause, BW_ERR_PROTOCOL, "%s: the request carries no memfd", type)
                      : BW_OK;
    if (!needed)
        return bw_fail(cause, BW_ERR_PROTOCOL, "%s: unexpected file descriptor", type);
    return ipc_memfd_map_sealed(b->fd, &b->data, &b->size, cause);
}

/* Gather indices from the blob (a whole number of int64). */
static int blob_indices(const struct blob *b, const int64_t **idx, size_t *n, char **cause)
{
    if (b->size % sizeof(int64_t))
        return bw_fail(cause, BW_ERR_PROTOCOL,
                       "gather indices: %zu bytes is not a whole number "
                       "of int64",
                       b->size);
    *idx = b->data;
    *n = b->size / sizeof(int64_t);
    return BW_OK;
}

static int handle_load(struct runner *r, const json_t *msg, struct blob *b)
{
    struct load_request req;
    struct load_reply reply;
    char *cause = NULL;
    int rc;

    if ((rc = blob_map(b, true, "load", &cause)) ||
        (rc = load_request_from_json(msg, &req, &cause)) ||
        (rc = runner_exec_load(r->exec, b->data, b->size, &req, &reply, &cause))) {
        rc = send_json(r, error_reply_to_json("loaded", NULL, cause), -1);
        free(cause);
        return rc;
    }
    return send_json(r, load_reply_to_json(&reply), -1);
}

static void lent_drop(struct runner *r, struct lent *l)
{
    if (!l->map)
        return;
    if (l->pinned)
        runner_exec_unpin(r->exec, l->map);
    ipc_unmap(l->map, l->size);
    memset(l, 0, sizeof(*l));
}

/* Takes the request's fd as lent buffer k (replacing the one before): maps
 * it writable, touching every page now, and pins it. The fd is closed here. */
static int lent_take(struct runner *r, int k, struct blob *b, char **cause)
{
    struct lent *l = &r->lent[k];
    void *map = NULL;
    size_t size = 0;
    int rc;

    if (b->fd < 0)
        return bw_fail(cause, BW_ERR_PROTOCOL, "run: lends buffer %d without a memfd", k);
    lent_drop(r, l);
    rc = ipc_memfd_map_lent(b->fd, &map, &size, cause);
    close(b->fd);
    b->fd = -1;
    if (rc)
        return rc;
    if (size == 0)
        return bw_fail(cause, BW_ERR_PROTOCOL, "run: lent buffer %d is empty", k);
    l->map = map;
    l->size = size;
    l->pinned = runner_exec_pin(r->exec, map, size);
    if (!l->pinned)
        log_warn("lent buffer %d (%zu bytes) could not be pinned; copies to it are pageable", k,
                 size);
    return BW_OK;
}

/* Where a full return of req goes: its lent buffer, when it names one. */
static int lent_bind(struct runner *r, struct run_request *req, struct blob *b, char **cause)
{
    if (req->into < 0)
        return BW_OK;
    if (req->lend) {
        int rc = lent_take(r, req->into, b, cause);
        if (rc)
            return rc;
    }
    if (!r->lent[req->into].map)
        return bw_fail(cause, BW_ERR_PROTOCOL, "run: lent buffer %d was never lent", req->into);
    req->into_map = r->lent[req->into].map;
    req->into_size = r->lent[req->into].size;
    return BW_OK;
}

/* The error an error reply names: RUN_ERROR_OUT_OF_MEMORY when the request ran short of device
 * memory (judged tries it again once other runners have freed theirs), else none. */
static const char *oom_error(const struct runner *r)
{
    return runner_exec_out_of_memory(r->exec) ? RUN_ERROR_OUT_OF_MEMORY : NULL;
}

static int handle_run(struct runner *r, const json_t *msg, struct blob *b)
{
    struct run_request *req = calloc(1, sizeof(*req));
    struct run_reply *reply = calloc(1, sizeof(*reply));
    char *cause = NULL;
    int rc, out_fd = -1;

    if (!req || !reply) {
        rc = send_json(r, error_reply_to_json("result", NULL, "out of memory"), -1);
        goto free_all;
    }
    rc = run_request_from_json(msg, req, &cause);
    if (!rc)
        rc = lent_bind(r, req, b, &cause);
    if (!rc)
        rc = blob_map(b, req->ret == RUN_RETURN_GATHER, "run", &cause);
    if (!rc && req->ret == RUN_RETURN_GATHER)
        rc = blob_indices(b, &req->indices, &req->n_indices, &cause);
    if (!rc)
        rc = runner_exec_run(r->exec, req, reply, &out_fd, &cause);
    if (rc)
        rc = send_json(r, error_reply_to_json("result", oom_error(r), cause), -1);
    else
        rc = send_json(r, run_reply_to_json(reply), out_fd);

free_all:
    if (out_fd >= 0)
        close(out_fd);
    free(cause);
    free(reply);
    free(req);
    return rc;
}

static int handle_bench(struct runner *r, const json_t *msg, struct blob *b)
{
    struct bench_request *req = calloc(1, sizeof(*req));
    struct bench_reply reply;
    char *cause = NULL;
    int rc, out_fd = -1;

    memset(&reply, 0, sizeof(reply));
    if (!req) {
        rc = send_json(r, error_reply_to_json("bench_result", NULL, "out of memory"), -1);
        goto free_all;
    }
    rc = bench_request_from_json(msg, req, &cause);
    if (!rc)
        rc = blob_map(b, req->plan.n_gather > 0, "bench", &cause);
    if (!rc && req->plan.n_gather > 0)
        rc = blob_indices(b, &req->indices, &req->n_indices, &cause);
    if (!rc)
        rc = runner_exec_bench(r->exec, req, &reply, &out_fd, &cause);
    if (rc)
        rc = send_json(r, error_reply_to_json("bench_result", oom_error(r), cause), -1);
    else
        rc = send_json(r, bench_reply_to_json(&reply), out_fd);

free_all:
    if (out_fd >= 0)
        close(out_fd);
    bench_reply_release(&reply);
    free(cause);
    free(req);
    return rc;
}

static int handle_calibrate(struct runner *r, struct blob *b)
{
    struct calibration c;
    struct run_failure f;
    char *cause = NULL;
    int rc;

    run_failure_init(&f);
    rc = blob_map(b, false, "calibrate", &cause);
    if (!rc)
        rc = runner_exec_calibrate(r->exec, &c, &cause);
    if (rc) {
        rc = send_json(r, error_reply_to_json("calibration", NULL, cause), -1);
        free(cause);
        return rc;
    }
    return send_json(r, calibration_to_json(&c, &f), -1);
}

static int handle_profile(struct runner *r, const json_t *msg, struct blob *b)
{
    struct profile_request *req = calloc(1, sizeof(*req));
    struct profile_reply *reply = calloc(1, sizeof(*reply));
    char *cause = NULL;
    int rc;

    if (!req || !reply) {
        rc = send_json(r, error_reply_to_json("profile_result", NULL, "out of memory"), -1);
        goto free_all;
    }
    rc = blob_map(b, false, "profile", &cause);
    if (!rc)
        rc = profile_request_from_json(msg, req, &cause);
    if (!rc)
        rc = runner_exec_profile(r->exec, r->cupti, r->cupti_why, req, reply, &cause);
    if (rc)
        rc = send_json(r, error_reply_to_json("profile_result", oom_error(r), cause), -1);
    else
        rc = send_json(r, profile_reply_to_json(reply), -1);

free_all:
    free(cause);
    free(reply);
    free(req);
    return rc;
}

/* Answers requests until exit, end of stream or a lost context; the exit status. */
static int serve(struct runner *r)
{
    for (;;) {
        struct blob b = {.fd = -1};
        json_t *msg = NULL;
        char *cause = NULL;
        const char *type;
        int rc;

        rc = ipc_recv(r->sock, IPC_NO_DEADLINE, &msg, &b.fd, &cause);
        if (rc == BW_ERR_IO) {
            free(cause);
            return 0; /* judged closed the connection: nothing more to do */
        }
        if (rc) {
            log_error("receiving a request: %s", cause ? cause : bw_strerror(rc));
            free(cause);
            return 1;
        }
        type = msg_type(msg);
        if (strcmp(type, "exit") == 0) {
            blob_release(&b);
            json_decref(msg);
            return 0;
        } else if (strcmp(type, "load") == 0) {
            rc = handle_load(r, msg, &b);
        } else if (strcmp(type, "run") == 0) {
            rc = handle_run(r, msg, &b);
        } else if (strcmp(type, "bench") == 0) {
            rc = handle_bench(r, msg, &b);
        } else if (strcmp(type, "calibrate") == 0) {
            rc = handle_calibrate(r, &b);
        } else if (strcmp(type, "profile") == 0) {
            rc = handle_profile(r, msg, &b);
        } else {
            char text[160];
            snprintf(text, sizeof(text), "unknown request type \"%.64s\"", type);
            rc = send_json(r, error_reply_to_json("error", NULL, text), -1);
        }
        blob_release(&b);
        json_decref(msg);
        if (rc)
            return 1; /* the reply could not be sent: judged is gone or stuck */
        if (runner_exec_broken(r->exec)) {
            log_error("a CUDA error left the context unusable; exiting");
            return 3;
        }
        runner_exec_release(r->exec); /* a run's buffers, freed once its reply is out */
    }
}

/* --- main ------------------------------------------------------------------------------- */

static int usage(const char *why)
{
    fprintf(stderr,
            "blockwise-runner: %s\nusage: blockwise-runner --device N [--no-sandbox] [--cupti "
            "PATH]\n",
            why);
    return 2;
}

int main(int argc, char **argv)
{
    struct runner r = {.device = -1, .sandbox = true, .sock = RUNNER_SOCKET_FD};
    struct stat st;
    int rc, status;

    log_init("blockwise-runner", LOG_INFO, LOG_FORMAT_TEXT);
    signal(SIGPIPE, SIG_IGN);
    for (int i = 1; i < argc; i++) {
        int64_t v;
        if (strcmp(argv[i], "--device") == 0 && i + 1 < argc && parse_i64(argv[i + 1], &v) &&
            v >= 0 && v < BW_RUNNER_MAX_DEVICE) {
            r.device = (int)v;
            i++;
        } else if (strcmp(argv[i], "--no-sandbox") == 0) {
            r.sandbox = false;
        } else if (strcmp(argv[i], "--cupti") == 0 && i + 1 < argc && argv[i + 1][0]) {
            r.cupti_path = argv[++i];
        } else {
            return usage("bad argument");
        }
    }
    if (r.device < 0)
        return usage("--device N is required");
    if (fstat(RUNNER_SOCKET_FD, &st) < 0 || !S_ISSOCK(st.st_mode))
        return usage("fd 3 must be the socket to judged");

    for (size_t i = 0; i < sizeof(steps) / sizeof(steps[0]); i++) {
        char *cause = NULL;
        if (steps[i].sandbox_only && !r.sandbox)
            continue;
        rc = steps[i].run(&r, &cause);
        if (rc) {
            status = fail_ready(&r, steps[i].name, rc, cause);
            free(cause);
            return status;
        }
    }
    {
        struct ready_msg m;
        memset(&m, 0, sizeof(m));
        m.gpu = r.props;
        if (send_json(&r, ready_to_json(&m), -1))
            return 1;
    }
    status = serve(&r);
    if (status != 3) {
        for (int k = 0; k < BW_RUNNER_LENT_SLOTS; k++)
            lent_drop(&r, &r.lent[k]);
        cupti_close(r.cupti);
        runner_exec_close(r.exec);
    }
    free(r.cupti_why);
    return status;
}
