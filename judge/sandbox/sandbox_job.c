#include "sandbox_job.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <string.h>
#include <stdint.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "spawn.h"
#include "common/error.h"
#include "common/limits.h"
#include "common/util.h"
#include "common/banned.h"

static void close_fd(int *fd)
{
    if (*fd >= 0)
        close(*fd);
    *fd = -1;
}

void sandbox_job_init(struct sandbox_job *job, int wall_ms, size_t result_max, size_t output_max)
{
    memset(job, 0, sizeof(*job));
    job->request_fd = -1;
    job->wall_ms = wall_ms;
    job->result_max = result_max;
    job->output_max = output_max;
    buf_init(&job->result, result_max);
    buf_init(&job->output, output_max);
    job->pid = -1;
    job->result_r = job->output_r = job->request_w = job->pidfd = -1;
    job->cancel_fd = -1;
}

static void close_job_fds(struct sandbox_job *job)
{
    close_fd(&job->result_r);
    close_fd(&job->output_r);
    close_fd(&job->request_w);
    close_fd(&job->pidfd);
}

/* Reaps the child (after a kill, or once it exited) and closes what the job holds. */
static int reap(struct sandbox_job *job, char **cause)
{
    int rc = BW_OK;

    while (wait4(job->pid, &job->status, 0, &job->rusage) < 0) {
        if (errno != EINTR) {
            rc = bw_fail(cause, BW_ERR_SYSTEM, "wait4(%ld): %s", (long)job->pid, strerror(errno));
            break;
        }
    }
    job->ms = now_ms() - job->start_ms;
    job->started = false;
    close_job_fds(job);
    return rc;
}

void sandbox_job_release(struct sandbox_job *job)
{
    if (job->started) {
        spawn_kill_group(job->pid);
        reap(job, NULL);
    }
    close_job_fds(job);
    buf_release(&job->result);
    buf_release(&job->output);
}

/* Reads what is available from fd into b (kept up to b->max; the rest dropped). Returns false at
 * EOF. */
static bool drain(int fd, struct buf *b, bool *overflow)
{
    char chunk[65536];

    for (;;) {
        ssize_t n = read(fd, chunk, sizeof(chunk));
        if (n < 0 && errno == EINTR)
            continue;
        if (n < 0)
            return errno == EAGAIN;
        if (n == 0)
            return false;
        size_t room = b->max - b->len;
        size_t keep = (size_t)n < room ? (size_t)n : room;
        if (keep < (size_t)n && overflow)
            *overflow = true;
        if (keep && buf_append(b, chunk, keep) < 0 && overflow)
            *overflow = true;
        if (overflow && *overflow)
            return false;
    }
}

/* Starts the child with the job layout; the pipes' write ends are the caller's to close. */
static int spawn_job(struct sandbox_job *job, int result_w, int output_w, int request_r,
                     char **cause)
{
    struct spawn s;
    int rc;

    spawn_init(&s);
    s.path = job->path;
    s.argv = job->argv;
    s.env = job->env;
    s.limits = job->limits;
    s.fds[0] = SPAWN_FD_NULL;
    s.fds[1] = output_w;
    s.fds[2] = output_w;
    s.fds[SANDBOX_FD_REQUEST] = request_r >= 0 ? request_r : SPAWN_FD_CLOSED;
    s.fds[SANDBOX_FD_RESULT] = result_w;
    s.n_fds = SANDBOX_FD_RESULT + 1;
    rc = spawn_start(&s, cause);
    job->pid = s.pid;
    return rc;
}

int sandbox_job_start(struct sandbox_job *job, char **cause)
{
    int result_pipe[2] = {-1, -1}, output_pipe[2] = {-1, -1}, request[2] = {-1, -1};
    int rc;

    if (job->started)
        return bw_fail(cause, BW_ERR_INTERNAL, "the job is already started");
    if (job->request_stream && job->request_fd >= 0)
        return bw_fail(cause, BW_ERR_INTERNAL, "a job has a request fd or a request stream");
    buf_reset(&job->result);
    buf_reset(&job->output);
    job->timed_out = job->result_overflow = job->exited = job->cancelled = false;
    job->start_ms = now_ms();
    job->deadline_ms = 0;
    if (pipe2(result_pipe, O_CLOEXEC) < 0 || pipe2(output_pipe, O_CLOEXEC) < 0 ||
        (job->request_stream && socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, request) < 0)) {
        rc = bw_fail(cause, BW_ERR_SYSTEM, "pipe: %s", strerror(errno));
        goto close_pipes;
    }
    if ((rc = spawn_job(job, result_pipe[1], output_pipe[1],
                        job->request_stream ? request[1] : job->request_fd, cause)))
        goto close_pipes;
    job->started = true;
    job->result_r = result_pipe[0];
    job->output_r = output_pipe[0];
    job->request_w = request[0];
    result_pipe[0] = output_pipe[0] = request[0] = -1;
    fcntl(job->result_r, F_SETFL, O_NONBLOCK);
    fcntl(job->output_r, F_SETFL, O_NONBLOCK);
    if (job->request_w >= 0)
        fcntl(job->request_w, F_SETFL, O_NONBLOCK);
    job->pidfd = (int)syscall(SYS_pidfd_open, job->pid, 0);
close_pipes:
    close_fd(&result_pipe[0]);
    close_fd(&result_pipe[1]);
    close_fd(&output_pipe[0]);
    close_fd(&output_pipe[1]);
    close_fd(&request[0]);
    close_fd(&request[1]);
    return rc;
}

/* Writes what it can of the input without blocking; closes the socket when done or refused. */
static void feed(struct sandbox_job *job, const char *input, size_t len, size_t *sent)
{
    while (job->request_w >= 0 && *sent < len) {
        ssize_t n = send(job->request_w, input + *sent, len - *sent, MSG_NOSIGNAL | MSG_DONTWAIT);
        if (n < 0 && errno == EINTR)
            continue;
        if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK))
            return;
        if (n <= 0) {
            close_fd(&job->request_w); /* the child closed its end or died: its end shows */
            return;
        }
        *sent += (size_t)n;
    }
    if (job->request_w >= 0 && *sent >= len) {
        shutdown(job->request_w, SHUT_WR);
        close_fd(&job->request_w);
    }
}

enum pump_end { PUMP_DONE, PUMP_TIMEOUT };

/* min_bytes for pump(): until the input is written (or refused), then return. */
#define UNTIL_SENT (SIZE_MAX - 1)

/* The cancel fd is readable: the group dies now (the reap stays the caller's). */
static void cancel(struct sandbox_job *job)
{
    if (!job->cancelled && !job->exited)
        spawn_kill_group(job->pid);
    job->cancelled = true;
}

/*
 * The one loop of a job: feeds the input (if any), reads both pipes, and
 * watches the child, until the result holds `min_bytes` (SIZE_MAX: until both
 * pipes are at EOF and the child exited; UNTIL_SENT: until the input is
 * written), the result pipe is at EOF or the child exited (waiting for
 * bytes), or the deadline passes. *end says which. A readable cancel_fd kills
 * the group and the loop goes on to its end (the child's exit comes at once).
 */
static int pump(struct sandbox_job *job, double deadline, size_t min_bytes, const char *input,
                size_t len, size_t *sent, enum pump_end *end, char **cause)
{
    bool to_exit = min_bytes == SIZE_MAX, to_send = min_bytes == UNTIL_SENT;

    *end = PUMP_DONE;
    for (;;) {
        struct pollfd p[5];
        int n = 0, i_result = -1, i_output = -1, i_pid = -1, i_request = -1, i_cancel = -1;
        double left = deadline - now_ms();
        int timeout;

        if (to_send   ? job->request_w < 0 || job->exited
            : to_exit ? job->result_r < 0 && job->output_r < 0 && job->exited
                      : job->result.len >= min_bytes || job->result_r < 0 || job->exited)
            return BW_OK;
        if (left <= 0) {
            *end = PUMP_TIMEOUT;
            return BW_OK;
        }
        timeout = left > 1e6 ? 1000000 : (int)left + 1;
        if (job->result_r >= 0)
            p[i_result = n++] = (struct pollfd){.fd = job->result_r, .events = POLLIN};
        if (job->output_r >= 0)
            p[i_output = n++] = (struct pollfd){.fd = job->output_r, .events = POLLIN};
        if (job->request_w >= 0 && input)
            p[i_request = n++] = (struct pollfd){.fd = job->request_w, .events = POLLOUT};
        if (!job->exited && job->pidfd >= 0)
            p[i_pid = n++] = (struct pollfd){.fd = job->pidfd, .events = POLLIN};
        if (job->cancel_fd >= 0 && !job->cancelled)
            p[i_cancel = n++] = (struct pollfd){.fd = job->cancel_fd, .events = POLLIN};
        else if (!job->exited && timeout > BW_JOB_POLL_MS)
            timeout = BW_JOB_POLL_MS; /* no pidfd (kernel < 5.3): look at the child now and then */
        if (poll(p, (nfds_t)n, timeout) < 0) {
            if (errno == EINTR)
                continue;
            return bw_fail(cause, BW_ERR_SYSTEM, "poll: %s", strerror(errno));
        }
        if (i_cancel >= 0 && p[i_cancel].revents)
            cancel(job);
        if (i_request >= 0 && p[i_request].revents)
            feed(job, input, len, sent);
        if (i_result >= 0 && p[i_result].revents &&
            !drain(job->result_r, &job->result, &job->result_overflow)) {
            /* Kill before closing: a writer that met a closed pipe first
             * would die of SIGPIPE, or its shell would exit 141, and the
             * job's end would depend on who won the race. */
            if (job->result_overflow) {
                spawn_kill_group(job->pid);
                close_fd(&job->result_r);
                job->exited = true; /* killed: nothing more to wait for but the reap */
                close_fd(&job->output_r);
                return BW_OK;
            }
            close_fd(&job->result_r);
        }
        if (i_output >= 0 && p[i_output].revents && !drain(job->output_r, &job->output, NULL))
            close_fd(&job->output_r);
        if (i_pid >= 0 && p[i_pid].revents)
            job->exited = true;
        if (job->pidfd < 0 && !job->exited) {
            siginfo_t si = {0};
            if (waitid(P_PID, (id_t)job->pid, &si, WEXITED | WNOHANG | WNOWAIT) == 0 &&
                si.si_pid == job->pid)
                job->exited = true;
        }
        if (job->exited && !to_exit && job->result_r >= 0 &&
            !drain(job->result_r, &job->result, &job->result_overflow))
            close_fd(&job->result_r);
    }
}

int sandbox_job_wait_result(struct sandbox_job *job, size_t min_bytes, int timeout_ms, char **cause)
{
    enum pump_end end;
    size_t sent = 0;
    int rc;

    if (!job->started)
        return bw_fail(cause, BW_ERR_INTERNAL, "the job is not started");
    if ((rc = pump(job, now_ms() + timeout_ms, min_bytes, NULL, 0, &sent, &end, cause)))
        return rc;
    if (end == PUMP_TIMEOUT && job->result.len < min_bytes)
        return bw_fail(cause, BW_ERR_TIMEOUT, "no answer from %s within %d ms", job->path,
                       timeout_ms);
    return BW_OK;
}

int sandbox_job_send(struct sandbox_job *job, const void *input, size_t len, char **cause)
{
    enum pump_end end = PUMP_DONE;
    size_t sent = 0;
    int rc;

    if (!job->started)
        return bw_fail(cause, BW_ERR_INTERNAL, "the job is not started");
    job->deadline_ms = now_ms() + job->wall_ms;
    if (job->request_w < 0)
        return BW_OK;
    feed(job, input, len, &sent);
    if ((rc = pump(job, job->deadline_ms, UNTIL_SENT, input, len, &sent, &end, cause)))
        return rc;
    if (end == PUMP_TIMEOUT)
        return bw_fail(cause, BW_ERR_TIMEOUT, "%s did not take its request within %d ms", job->path,
                       job->wall_ms);
    close_fd(&job->request_w); /* a child that died before reading it all */
    return BW_OK;
}

int sandbox_job_finish(struct sandbox_job *job, const void *input, size_t len, char **cause)
{
    enum pump_end end = PUMP_DONE;
    size_t sent = 0;
    double deadline = job->deadline_ms > 0 ? job->deadline_ms : now_ms() + job->wall_ms;
    int rc, rc2;

    if (!job->started)
        return bw_fail(cause, BW_ERR_INTERNAL, "the job is not started");
    if (job->request_w >= 0 && !input)
        close_fd(&job->request_w); /* no input: the child reads EOF */
    else if (job->request_w >= 0)
        feed(job, input, len, &sent);
    rc = pump(job, deadline, SIZE_MAX, input, len, &sent, &end, cause);
    if (rc == BW_OK && end == PUMP_TIMEOUT)
        job->timed_out = true;
    if (rc || job->timed_out || !job->exited)
        spawn_kill_group(job->pid);
    rc2 = reap(job, rc ? NULL : cause);
    return rc ? rc : rc2;
}

int sandbox_job_run(struct sandbox_job *job, char **cause)
{
    int rc = sandbox_job_start(job, cause);

    if (rc)
        return rc;
    return sandbox_job_finish(job, NULL, 0, cause);
}
