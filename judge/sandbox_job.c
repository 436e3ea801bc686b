#include "sandbox_job.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <string.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "spawn.h"
#include "common/error.h"
#include "common/limits.h"
#include "common/util.h"
#include "common/banned.h"

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
}

void sandbox_job_release(struct sandbox_job *job)
{
    buf_release(&job->result);
    buf_release(&job->output);
}

static void close_fd(int *fd)
{
    if (*fd >= 0)
        close(*fd);
    *fd = -1;
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
static int start(struct sandbox_job *job, int result_w, int output_w, char **cause)
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
    s.fds[SANDBOX_FD_REQUEST] = job->request_fd >= 0 ? job->request_fd : SPAWN_FD_CLOSED;
    s.fds[SANDBOX_FD_RESULT] = result_w;
    s.n_fds = SANDBOX_FD_RESULT + 1;
    rc = spawn_start(&s, cause);
    job->pid = s.pid;
    return rc;
}

int sandbox_job_run(struct sandbox_job *job, char **cause)
{
    int result_pipe[2] = {-1, -1}, output_pipe[2] = {-1, -1};
    int pidfd = -1, rc;
    bool exited = false, killed = false;
    double start_ms = now_ms(), deadline = start_ms + job->wall_ms;

    buf_reset(&job->result);
    buf_reset(&job->output);
    job->timed_out = job->result_overflow = false;
    if (pipe2(result_pipe, O_CLOEXEC) < 0 || pipe2(output_pipe, O_CLOEXEC) < 0) {
        rc = bw_fail(cause, BW_ERR_SYSTEM, "pipe: %s", strerror(errno));
        goto close_pipes;
    }
    if ((rc = start(job, result_pipe[1], output_pipe[1], cause)))
        goto close_pipes;
    close_fd(&result_pipe[1]);
    close_fd(&output_pipe[1]);
    fcntl(result_pipe[0], F_SETFL, O_NONBLOCK);
    fcntl(output_pipe[0], F_SETFL, O_NONBLOCK);
    pidfd = (int)syscall(SYS_pidfd_open, job->pid, 0);

    while (result_pipe[0] >= 0 || output_pipe[0] >= 0 || !exited) {
        struct pollfd p[3];
        int n = 0, i_result = -1, i_output = -1, i_pid = -1;
        double left = deadline - now_ms();
        int timeout;

        if (left <= 0) {
            job->timed_out = true;
            break;
        }
        timeout = left > 1e6 ? 1000000 : (int)left + 1;
        if (result_pipe[0] >= 0)
            p[i_result = n++] = (struct pollfd){.fd = result_pipe[0], .events = POLLIN};
        if (output_pipe[0] >= 0)
            p[i_output = n++] = (struct pollfd){.fd = output_pipe[0], .events = POLLIN};
        if (!exited && pidfd >= 0)
            p[i_pid = n++] = (struct pollfd){.fd = pidfd, .events = POLLIN};
        else if (!exited && timeout > BW_JOB_POLL_MS)
            timeout = BW_JOB_POLL_MS; /* no pidfd (kernel < 5.3): look at the child now and then */
        if (poll(p, (nfds_t)n, timeout) < 0) {
            if (errno == EINTR)
                continue;
            rc = bw_fail(cause, BW_ERR_SYSTEM, "poll: %s", strerror(errno));
            spawn_kill_group(job->pid);
            killed = true;
            goto reap;
        }
        if (i_result >= 0 && p[i_result].revents &&
            !drain(result_pipe[0], &job->result, &job->result_overflow)) {
            /* Kill before closing: a writer that met a closed pipe first
             * would die of SIGPIPE, or its shell would exit 141, and the
             * job's end would depend on who won the race. */
            if (job->result_overflow) {
                spawn_kill_group(job->pid);
                killed = true;
                close_fd(&result_pipe[0]);
                break;
            }
            close_fd(&result_pipe[0]);
        }
        if (i_output >= 0 && p[i_output].revents && !drain(output_pipe[0], &job->output, NULL))
            close_fd(&output_pipe[0]);
        if (i_pid >= 0 && p[i_pid].revents)
            exited = true;
        if (pidfd < 0 && !exited) {
            siginfo_t si = {0};
            if (waitid(P_PID, (id_t)job->pid, &si, WEXITED | WNOHANG | WNOWAIT) == 0 &&
                si.si_pid == job->pid)
                exited = true;
        }
    }
    if (job->timed_out && !killed) {
        spawn_kill_group(job->pid);
        killed = true;
    }
    rc = BW_OK;
reap:
    while (wait4(job->pid, &job->status, 0, &job->rusage) < 0) {
        if (errno != EINTR) {
            rc = bw_fail(cause, BW_ERR_SYSTEM, "wait4(%ld): %s", (long)job->pid, strerror(errno));
            break;
        }
    }
    job->ms = now_ms() - start_ms;
    if (pidfd >= 0)
        close(pidfd);
close_pipes:
    close_fd(&result_pipe[0]);
    close_fd(&result_pipe[1]);
    close_fd(&output_pipe[0]);
    close_fd(&output_pipe[1]);
    return rc;
}
