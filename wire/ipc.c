#include "ipc.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>

#include "common/error.h"
#include "common/limits.h"
#include "common/util.h"
#include "common/banned.h"

/* Room for a few descriptors, so that a peer sending more than one is seen
 * (and each one closed) rather than silently truncated. */
#define IPC_MAX_FDS_SEEN 4
#define IPC_SEALS        (F_SEAL_WRITE | F_SEAL_GROW | F_SEAL_SHRINK)

uint64_t ipc_deadline_in(int64_t ms)
{
    if (ms < 0)
        return IPC_NO_DEADLINE;
    return now_ns() + (uint64_t)ms * 1000000ull;
}

/* Waits until `fd` is ready for `events` or the deadline passes. */
static int wait_ready(int fd, short events, uint64_t deadline, const char *what, char **cause)
{
    for (;;) {
        struct pollfd p = {.fd = fd, .events = events};
        int timeout = -1, n;

        if (deadline != IPC_NO_DEADLINE) {
            uint64_t now = now_ns();
            uint64_t left_ms;
            if (now >= deadline)
                return bw_fail(cause, BW_ERR_TIMEOUT, "timed out %s", what);
            left_ms = (deadline - now + 999999) / 1000000;
            timeout = left_ms > INT_MAX ? INT_MAX : (int)left_ms;
        }
        n = poll(&p, 1, timeout);
        if (n < 0 && errno == EINTR)
            continue;
        if (n < 0)
            return bw_fail(cause, BW_ERR_SYSTEM, "poll while %s: %s", what, strerror(errno));
        if (n == 0)
            continue; /* the deadline check above decides */
        if (p.revents & POLLNVAL)
            return bw_fail(cause, BW_ERR_IO, "%s: descriptor %d is not open", what, fd);
        return BW_OK; /* ready, hung up or in error: the read or write says which */
    }
}

/* Sends all `len` bytes at p; the first byte sent carries `fd` if fd >= 0. */
static int send_all(int sock, const char *p, size_t len, int fd, uint64_t deadline, char **cause)
{
    while (len > 0) {
        struct iovec iov = {.iov_base = (void *)p, .iov_len = len};
        union {
            char buf[CMSG_SPACE(sizeof(int))];
            struct cmsghdr align;
        } ctl;
        struct msghdr mh = {.msg_iov = &iov, .msg_iovlen = 1};
        ssize_t n;
        int rc;

        if (fd >= 0) {
            struct cmsghdr *c;
            memset(&ctl, 0, sizeof(ctl));
            mh.msg_control = ctl.buf;
            mh.msg_controllen = sizeof(ctl.buf);
            c = CMSG_FIRSTHDR(&mh);
            c->cmsg_level = SOL_SOCKET;
            c->cmsg_type = SCM_RIGHTS;
            c->cmsg_len = CMSG_LEN(sizeof(int));
            memcpy(CMSG_DATA(c), &fd, sizeof(int));
        }
        n = sendmsg(sock, &mh, MSG_DONTWAIT | MSG_NOSIGNAL);
        if (n < 0 && errno == EINTR)
            continue;
        if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) {
            rc = wait_ready(sock, POLLOUT, deadline, "sending a message", cause);
            if (rc)
                return rc;
            continue;
        }
        if (n < 0 && (errno == EPIPE || errno == ECONNRESET))
            return bw_fail(cause, BW_ERR_IO, "sending a message: peer closed the connection");
        if (n < 0)
            return bw_fail(cause, BW_ERR_IO, "sending a message: %s", strerror(errno));
        p += n;
        len -= (size_t)n;
        fd = -1; /* attached to the bytes just sent */
    }
    return BW_OK;
}

int ipc_send_text(int sock, const char *text, size_t len, int fd, uint64_t deadline, char **cause)
{
    unsigned char prefix[4];
    int rc;

    if (len > BW_MAX_MESSAGE_BYTES)
        return bw_fail(cause, BW_ERR_LIMIT,
                       "message of %zu bytes is over the limit of %d bytes (BW_MAX_MESSAGE_BYTES)",
                       len, BW_MAX_MESSAGE_BYTES);
    if (len == 0)
        return bw_fail(cause, BW_ERR_INVALID, "cannot send an empty message");
    prefix[0] = (unsigned char)(len & 0xff);
    prefix[1] = (unsigned char)((len >> 8) & 0xff);
    prefix[2] = (unsigned char)((len >> 16) & 0xff);
    prefix[3] = (unsigned char)((len >> 24) & 0xff);
    rc = send_all(sock, (const char *)prefix, sizeof(prefix), fd, deadline, cause);
    if (rc)
        return rc;
    return send_all(sock, text, len, -1, deadline, cause);
}

int ipc_send(int sock, const json_t *msg, int fd, uint64_t deadline, char **cause)
{
    char *text;
    int rc;

    if (!json_is_object(msg))
        return bw_fail(cause, BW_ERR_INTERNAL, "ipc_send: the message is not a JSON object");
    text = json_dumps(msg, JSON_COMPACT);
    if (!text)
        return bw_fail(cause, BW_ERR_NOMEM, "cannot encode a message (out of memory)");
    rc = ipc_send_text(sock, text, strlen(text), fd, deadline, cause);
    free(text);
    return rc;
}

/* Closes every descriptor in fds[0..n). */
static void close_fds(const int *fds, int n)
{
    for (int i = 0; i < n; i++)
        close(fds[i]);
}

/*
 * Reads up to `len` bytes into dst, stopping early only at end of stream
 * (*got tells how many). Descriptors that arrive are appended to fds (count in nfds)
 * (at most IPC_MAX_FDS_SEEN; more, or a truncated control message, is a
 * protocol error after closing what arrived).
 */
static int recv_upto(int sock, char *dst, size_t len, uint64_t deadline, int *fds, int *nfds,
                     size_t *got, char **cause)
{
    *got = 0;
    while (*got < len) {
        struct iovec iov = {.iov_base = dst + *got, .iov_len = len - *got};
        union {
            char buf[CMSG_SPACE(sizeof(int) * IPC_MAX_FDS_SEEN)];
            struct cmsghdr align;
        } ctl;
        struct msghdr mh = {.msg_iov = &iov,
                            .msg_iovlen = 1,
                            .msg_control = ctl.buf,
                            .msg_controllen = sizeof(ctl.buf)};
        struct cmsghdr *c;
        ssize_t n;
        int rc;

        n = recvmsg(sock, &mh, MSG_DONTWAIT | MSG_CMSG_CLOEXEC);
        if (n < 0 && errno == EINTR)
            continue;
        if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) {
            rc = wait_ready(sock, POLLIN, deadline, "waiting for a message", cause);
            if (rc)
                return rc;
            continue;
        }
        if (n < 0 && errno == ECONNRESET)
            return BW_OK; /* as end of stream */
        if (n < 0)
            return bw_fail(cause, BW_ERR_IO, "receiving a message: %s", strerror(errno));
        for (c = CMSG_FIRSTHDR(&mh); c; c = CMSG_NXTHDR(&mh, c)) {
            size_t bytes, count;
            if (c->cmsg_level != SOL_SOCKET || c->cmsg_type != SCM_RIGHTS)
                continue;
            bytes = c->cmsg_len - CMSG_LEN(0);
            count = bytes / sizeof(int);
            for (size_t i = 0; i < count; i++) {
                int fd;
                memcpy(&fd, CMSG_DATA(c) + i * sizeof(int), sizeof(int));
                if (*nfds < IPC_MAX_FDS_SEEN)
                    fds[(*nfds)++] = fd;
                else
                    close(fd);
            }
        }
        if (mh.msg_flags & MSG_CTRUNC)
            return bw_fail(cause, BW_ERR_PROTOCOL,
                           "a message carried more file descriptors than fit (control data "
                           "truncated)");
        if (n == 0)
            return BW_OK; /* end of stream */
        *got += (size_t)n;
    }
    return BW_OK;
}

int ipc_recv(int sock, uint64_t deadline, json_t **msg, int *fd, char **cause)
{
    unsigned char prefix[4];
    int fds[IPC_MAX_FDS_SEEN], nfds = 0, body_fds[IPC_MAX_FDS_SEEN], n_body_fds = 0;
    size_t got = 0, len;
    char *body = NULL;
    json_error_t err;
    json_t *root;
    int rc;

    *msg = NULL;
    if (fd)
        *fd = -1;
    rc = recv_upto(sock, (char *)prefix, sizeof(prefix), deadline, fds, &nfds, &got, cause);
    if (rc)
        goto close_fds;
    if (got == 0) {
        rc = bw_fail(cause, BW_ERR_IO, "peer closed the connection");
        goto close_fds;
    }
    if (got < sizeof(prefix)) {
        rc = bw_fail(cause, BW_ERR_PROTOCOL,
                     "truncated frame: stream ended after %zu of 4 length "
                     "bytes",
                     got);
        goto close_fds;
    }
    len = (size_t)prefix[0] | (size_t)prefix[1] << 8 | (size_t)prefix[2] << 16 |
          (size_t)prefix[3] << 24;
    if (len == 0) {
        rc = bw_fail(cause, BW_ERR_PROTOCOL, "empty frame (length 0)");
        goto close_fds;
    }
    if (len > BW_MAX_MESSAGE_BYTES) {
        rc = bw_fail(cause, BW_ERR_PROTOCOL,
                     "frame of %zu bytes is over the limit of %d bytes (BW_MAX_MESSAGE_BYTES)", len,
                     BW_MAX_MESSAGE_BYTES);
        goto close_fds;
    }
    body = malloc(len);
    if (!body) {
        rc = bw_fail(cause, BW_ERR_NOMEM, "out of memory for a frame of %zu bytes", len);
        goto close_fds;
    }
    rc = recv_upto(sock, body, len, deadline, body_fds, &n_body_fds, &got, cause);
    if (n_body_fds > 0) {
        close_fds(body_fds, n_body_fds);
        if (!rc)
            rc = bw_fail(cause, BW_ERR_PROTOCOL,
                         "a file descriptor arrived attached to the body of a frame, not to its "
                         "length prefix");
    }
    if (rc)
        goto free_body;
    if (got < len) {
        rc = bw_fail(cause, BW_ERR_PROTOCOL, "truncated frame: stream ended after %zu of %zu bytes",
                     got, len);
        goto free_body;
    }
    if (nfds > 1) {
        rc = bw_fail(cause, BW_ERR_PROTOCOL, "a frame carried %d file descriptors (at most 1)",
                     nfds);
        goto free_body;
    }
    if (nfds == 1 && !fd) {
        rc = bw_fail(cause, BW_ERR_PROTOCOL, "unexpected file descriptor attached to a frame");
        goto free_body;
    }
    root = json_loadb(body, len, JSON_REJECT_DUPLICATES, &err);
    if (!root) {
        rc = bw_fail(cause, BW_ERR_PROTOCOL, "invalid JSON in a frame at byte %d: %s", err.position,
                     err.text);
        goto free_body;
    }
    if (!json_is_object(root)) {
        json_decref(root);
        rc = bw_fail(cause, BW_ERR_PROTOCOL, "a frame's JSON is not an object");
        goto free_body;
    }
    free(body);
    *msg = root;
    if (fd)
        *fd = nfds == 1 ? fds[0] : -1;
    return BW_OK;

free_body:
    free(body);
close_fds:
    close_fds(fds, nfds);
    return rc;
}

int ipc_memfd_create(const char *name, size_t size, int *fd, char **cause)
{
    int m;

    *fd = -1;
    if (size > (size_t)INT64_MAX)
        return bw_fail(cause, BW_ERR_LIMIT, "memfd %s: size %zu is too large", name, size);
    m = memfd_create(name, MFD_CLOEXEC | MFD_ALLOW_SEALING);
    if (m < 0)
        return bw_fail(cause, BW_ERR_SYSTEM, "memfd_create %s: %s", name, strerror(errno));
    if (ftruncate(m, (off_t)size) < 0) {
        int e = errno;
        close(m);
        return bw_fail(cause, e == EFBIG ? BW_ERR_LIMIT : BW_ERR_SYSTEM,
                       "memfd %s: cannot size it to %zu bytes: %s", name, size, strerror(e));
    }
    *fd = m;
    return BW_OK;
}

/* The size of the file behind fd. */
static int fd_size(int fd, size_t *size, char **cause)
{
    struct stat st;

    if (fstat(fd, &st) < 0)
        return bw_fail(cause, BW_ERR_SYSTEM, "fstat of memfd %d: %s", fd, strerror(errno));
    if (!S_ISREG(st.st_mode))
        return bw_fail(cause, BW_ERR_PROTOCOL, "descriptor %d is not a memfd", fd);
    if (st.st_size < 0 || (uint64_t)st.st_size > SIZE_MAX)
        return bw_fail(cause, BW_ERR_PROTOCOL, "memfd %d has an invalid size", fd);
    *size = (size_t)st.st_size;
    return BW_OK;
}

int ipc_memfd_map(int fd, void **addr, size_t *size, char **cause)
{
    void *p;
    int rc;

    *addr = NULL;
    *size = 0;
    rc = fd_size(fd, size, cause);
    if (rc)
        return rc;
    if (*size == 0)
        return BW_OK;
    p = mmap(NULL, *size, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
    if (p == MAP_FAILED) {
        *size = 0;
        return bw_fail(cause, BW_ERR_SYSTEM, "mmap of a memfd: %s", strerror(errno));
    }
    *addr = p;
    return BW_OK;
}

int ipc_memfd_seal(int fd, char **cause)
{
    if (fcntl(fd, F_ADD_SEALS, IPC_SEALS | F_SEAL_SEAL) < 0)
        return bw_fail(cause, BW_ERR_SYSTEM, "sealing a memfd: %s", strerror(errno));
    return BW_OK;
}

#define IPC_SIZE_SEALS (F_SEAL_GROW | F_SEAL_SHRINK)

int ipc_memfd_seal_size(int fd, char **cause)
{
    if (fcntl(fd, F_ADD_SEALS, IPC_SIZE_SEALS | F_SEAL_SEAL) < 0)
        return bw_fail(cause, BW_ERR_SYSTEM, "sealing a memfd's size: %s", strerror(errno));
    return BW_OK;
}

int ipc_memfd_map_lent(int fd, void **addr, size_t *size, char **cause)
{
    int seals = fcntl(fd, F_GET_SEALS);

    *addr = NULL;
    *size = 0;
    if (seals < 0)
        return bw_fail(cause, BW_ERR_PROTOCOL, "descriptor %d is not a memfd (%s)", fd,
                       strerror(errno));
    if ((seals & IPC_SIZE_SEALS) != IPC_SIZE_SEALS || (seals & F_SEAL_WRITE))
        return bw_fail(cause, BW_ERR_PROTOCOL,
                       "lent memfd %d must be sealed against growth and shrinking, not writes", fd);
    return ipc_memfd_map(fd, addr, size, cause);
}

int ipc_memfd_map_sealed(int fd, const void **addr, size_t *size, char **cause)
{
    void *p;
    int seals, rc;

    *addr = NULL;
    *size = 0;
    seals = fcntl(fd, F_GET_SEALS);
    if (seals < 0)
        return bw_fail(cause, BW_ERR_PROTOCOL, "descriptor %d is not a memfd (%s)", fd,
                       strerror(errno));
    if ((seals & IPC_SEALS) != IPC_SEALS)
        return bw_fail(cause, BW_ERR_PROTOCOL,
                       "memfd %d is not sealed against writes, growth and shrinking", fd);
    rc = fd_size(fd, size, cause);
    if (rc)
        return rc;
    if (*size == 0)
        return BW_OK;
    p = mmap(NULL, *size, PROT_READ, MAP_SHARED, fd, 0);
    if (p == MAP_FAILED) {
        *size = 0;
        return bw_fail(cause, BW_ERR_SYSTEM, "mmap of a received memfd: %s", strerror(errno));
    }
    *addr = p;
    return BW_OK;
}

int ipc_memfd_from_bytes(const char *name, const void *data, size_t len, int *fd, char **cause)
{
    const char *p = data;
    size_t done = 0;
    int m, rc;

    rc = ipc_memfd_create(name, len, &m, cause);
    if (rc)
        return rc;
    while (done < len) {
        ssize_t n = pwrite(m, p + done, len - done, (off_t)done);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0) {
            rc = bw_fail(cause, BW_ERR_SYSTEM, "writing memfd %s: %s", name,
                         n < 0 ? strerror(errno) : "no progress");
            goto close_memfd;
        }
        done += (size_t)n;
    }
    rc = ipc_memfd_seal(m, cause);
    if (rc)
        goto close_memfd;
    *fd = m;
    return BW_OK;

close_memfd:
    close(m);
    *fd = -1;
    return rc;
}

void ipc_unmap(const void *addr, size_t size)
{
    if (addr && size)
        munmap((void *)addr, size);
}
