/* Tests of judge/ipc: framing, fd passing, deadlines and malformed frames over a socketpair. */
#include "tests/test.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdint.h>
#include <stdlib.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include "common/error.h"
#include "common/limits.h"
#include "common/util.h"
#include "wire/ipc.h"
#include "common/banned.h"

/* A connected pair; false (and a failed check) if it cannot be made. */
static bool make_pair(int sv[2])
{
    if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv) < 0) {
        CHECK_MSG(0, "socketpair: %s", strerror(errno));
        return false;
    }
    return true;
}

static void close_pair(int sv[2])
{
    close(sv[0]);
    close(sv[1]);
}

/* Writes raw bytes, all of them. */
static void write_raw(int fd, const void *p, size_t len)
{
    const char *c = p;
    while (len > 0) {
        ssize_t n = write(fd, c, len);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0)
            return;
        c += n;
        len -= (size_t)n;
    }
}

static void write_prefix(int fd, uint32_t len)
{
    unsigned char p[4] = {(unsigned char)len, (unsigned char)(len >> 8), (unsigned char)(len >> 16),
                          (unsigned char)(len >> 24)};
    write_raw(fd, p, 4);
}

/* Sends raw bytes with a descriptor attached to them. */
static void send_raw_with_fd(int sock, const void *p, size_t len, int fd)
{
    struct iovec iov = {.iov_base = (void *)p, .iov_len = len};
    union {
        char buf[CMSG_SPACE(sizeof(int) * 2)];
        struct cmsghdr align;
    } ctl;
    struct msghdr mh = {.msg_iov = &iov, .msg_iovlen = 1};
    struct cmsghdr *c;

    memset(&ctl, 0, sizeof(ctl));
    mh.msg_control = ctl.buf;
    mh.msg_controllen = CMSG_SPACE(sizeof(int));
    c = CMSG_FIRSTHDR(&mh);
    c->cmsg_level = SOL_SOCKET;
    c->cmsg_type = SCM_RIGHTS;
    c->cmsg_len = CMSG_LEN(sizeof(int));
    memcpy(CMSG_DATA(c), &fd, sizeof(int));
    CHECK(sendmsg(sock, &mh, MSG_NOSIGNAL) == (ssize_t)len);
}

/* Number of open descriptors of this process (to catch leaks). */
static int count_open_fds(void)
{
    int n = 0;
    for (int fd = 0; fd < 1024; fd++)
        if (fcntl(fd, F_GETFD) >= 0)
            n++;
    return n;
}

TEST(ipc_round_trip)
{
    int sv[2];
    json_t *msg, *got = NULL;
    char *cause = NULL;
    int fd = 99;

    if (!make_pair(sv))
        return;
    msg = json_pack("{s:s, s:i, s:[f, s]}", "type", "run", "case", 3, "x", 0.25, "nan");
    CHECK_INT_EQ(ipc_send(sv[0], msg, -1, ipc_deadline_in(1000), &cause), BW_OK);
    CHECK_INT_EQ(ipc_recv(sv[1], ipc_deadline_in(1000), &got, &fd, &cause), BW_OK);
    CHECK_INT_EQ(fd, -1);
    CHECK(got && json_equal(msg, got));
    json_decref(got);
    json_decref(msg);
    free(cause);
    close_pair(sv);
}

TEST(ipc_fd_passing_with_sealed_memfd)
{
    int sv[2], mfd = -1, rfd = -1;
    const char data[] = "raw output bytes";
    const void *map = NULL;
    size_t size = 0;
    json_t *msg, *got = NULL;
    char *cause = NULL;

    if (!make_pair(sv))
        return;
    CHECK_INT_EQ(ipc_memfd_from_bytes("test", data, sizeof(data), &mfd, &cause), BW_OK);
    msg = json_pack("{s:s}", "type", "load");
    CHECK_INT_EQ(ipc_send(sv[0], msg, mfd, IPC_NO_DEADLINE, &cause), BW_OK);
    close(mfd);
    CHECK_INT_EQ(ipc_recv(sv[1], ipc_deadline_in(1000), &got, &rfd, &cause), BW_OK);
    CHECK(rfd >= 0);
    CHECK(fcntl(rfd, F_GETFD) & FD_CLOEXEC);
    CHECK_INT_EQ(ipc_memfd_map_sealed(rfd, &map, &size, &cause), BW_OK);
    CHECK_INT_EQ(size, sizeof(data));
    CHECK(map && memcmp(map, data, sizeof(data)) == 0);
    /* The seals hold: the receiver cannot be surprised by a shrink or a write. */
    CHECK(ftruncate(rfd, 0) < 0);
    CHECK(pwrite(rfd, "x", 1, 0) < 0);
    ipc_unmap(map, size);
    close(rfd);
    json_decref(got);
    json_decref(msg);
    free(cause);
    close_pair(sv);
}

TEST(ipc_empty_memfd_maps_to_null)
{
    int mfd = -1;
    const void *map = (const void *)1;
    size_t size = 7;
    char *cause = NULL;

    CHECK_INT_EQ(ipc_memfd_from_bytes("empty", "", 0, &mfd, &cause), BW_OK);
    CHECK_INT_EQ(ipc_memfd_map_sealed(mfd, &map, &size, &cause), BW_OK);
    CHECK(map == NULL);
    CHECK_INT_EQ(size, 0);
    close(mfd);
    free(cause);
}

TEST(ipc_unsealed_memfd_and_pipe_are_refused)
{
    int mfd = -1, p[2];
    const void *map = NULL;
    size_t size = 0;
    char *cause = NULL;
    void *wmap = NULL;

    CHECK_INT_EQ(ipc_memfd_create("unsealed", 4096, &mfd, &cause), BW_OK);
    CHECK_INT_EQ(ipc_memfd_map_sealed(mfd, &map, &size, &cause), BW_ERR_PROTOCOL);
    CHECK_CONTAINS(cause, "not sealed");
    /* Sealing needs every writable mapping gone. */
    CHECK_INT_EQ(ipc_memfd_map(mfd, &wmap, &size, &cause), BW_OK);
    CHECK_INT_EQ(size, 4096);
    CHECK(ipc_memfd_seal(mfd, &cause) < 0);
    ipc_unmap(wmap, size);
    CHECK_INT_EQ(ipc_memfd_seal(mfd, &cause), BW_OK);
    CHECK_INT_EQ(ipc_memfd_map_sealed(mfd, &map, &size, &cause), BW_OK);
    ipc_unmap(map, size);
    close(mfd);

    CHECK(pipe(p) == 0);
    CHECK_INT_EQ(ipc_memfd_map_sealed(p[0], &map, &size, &cause), BW_ERR_PROTOCOL);
    CHECK_CONTAINS(cause, "not a memfd");
    close(p[0]);
    close(p[1]);
    free(cause);
}

TEST(ipc_big_message_through_a_small_socket_buffer)
{
    int sv[2];
    size_t n = BW_MAX_MESSAGE_BYTES - 64;
    char *big = malloc(n + 1);
    json_t *got = NULL;
    char *cause = NULL;
    pid_t pid;
    int status = 0;

    if (!big || !make_pair(sv)) {
        free(big);
        return;
    }
    memset(big, 'a', n);
    big[n] = '\0';
    pid = fork();
    if (pid == 0) {
        /* Sender: the frame is far bigger than the socket buffer, so it
         * goes out in many partial writes while the parent reads. */
        json_t *msg = json_pack("{s:s}", "s", big);
        int rc = ipc_send(sv[0], msg, -1, ipc_deadline_in(20000), NULL);
        _exit(rc == BW_OK ? 0 : 1);
    }
    CHECK(pid > 0);
    CHECK_INT_EQ(ipc_recv(sv[1], ipc_deadline_in(20000), &got, NULL, &cause), BW_OK);
    CHECK(got && json_string_length(json_object_get(got, "s")) == n);
    waitpid(pid, &status, 0);
    CHECK(WIFEXITED(status) && WEXITSTATUS(status) == 0);
    json_decref(got);
    free(big);
    free(cause);
    close_pair(sv);
}

TEST(ipc_oversize_send_is_refused)
{
    int sv[2];
    size_t n = BW_MAX_MESSAGE_BYTES + 1;
    char *big = malloc(n);
    char *cause = NULL;

    if (!big || !make_pair(sv)) {
        free(big);
        return;
    }
    memset(big, ' ', n);
    CHECK_INT_EQ(ipc_send_text(sv[0], big, n, -1, IPC_NO_DEADLINE, &cause), BW_ERR_LIMIT);
    CHECK_CONTAINS(cause, "BW_MAX_MESSAGE_BYTES");
    free(big);
    free(cause);
    close_pair(sv);
}

TEST(ipc_partial_writes_are_reassembled)
{
    int sv[2];
    const char *text = "{\"type\":\"ready\",\"n\":12345}";
    uint32_t len = (uint32_t)strlen(text);
    json_t *got = NULL;
    char *cause = NULL;
    pid_t pid;

    if (!make_pair(sv))
        return;
    pid = fork();
    if (pid == 0) {
        unsigned char p[4] = {(unsigned char)len, 0, 0, 0};
        for (int i = 0; i < 4; i++) {
            write_raw(sv[0], p + i, 1);
            usleep(2000);
        }
        for (uint32_t i = 0; i < len; i++) {
            write_raw(sv[0], text + i, 1);
            usleep(500);
        }
        _exit(0);
    }
    CHECK_INT_EQ(ipc_recv(sv[1], ipc_deadline_in(5000), &got, NULL, &cause), BW_OK);
    CHECK(got && json_integer_value(json_object_get(got, "n")) == 12345);
    waitpid(pid, NULL, 0);
    json_decref(got);
    free(cause);
    close_pair(sv);
}

TEST(ipc_recv_deadline)
{
    int sv[2];
    json_t *got = NULL;
    char *cause = NULL;
    double t0;

    if (!make_pair(sv))
        return;
    t0 = now_ms();
    CHECK_INT_EQ(ipc_recv(sv[1], ipc_deadline_in(50), &got, NULL, &cause), BW_ERR_TIMEOUT);
    CHECK(now_ms() - t0 >= 49.0);
    CHECK(now_ms() - t0 < 2000.0);
    CHECK(got == NULL);
    CHECK_CONTAINS(cause, "timed out");
    /* A deadline already passed fails at once. */
    CHECK_INT_EQ(ipc_recv(sv[1], now_ns() - 1, &got, NULL, &cause), BW_ERR_TIMEOUT);
    free(cause);
    close_pair(sv);
}

TEST(ipc_send_deadline_when_peer_does_not_read)
{
    int sv[2];
    size_t n = 8 * 1024 * 1024;
    char *big = malloc(n);
    char *cause = NULL;
    double t0;

    if (!big || !make_pair(sv)) {
        free(big);
        return;
    }
    memset(big, ' ', n);
    big[0] = '{';
    big[n - 1] = '}';
    t0 = now_ms();
    CHECK_INT_EQ(ipc_send_text(sv[0], big, n, -1, ipc_deadline_in(100), &cause), BW_ERR_TIMEOUT);
    CHECK(now_ms() - t0 < 2000.0);
    free(big);
    free(cause);
    close_pair(sv);
}

TEST(ipc_closed_peer)
{
    int sv[2];
    json_t *got = NULL, *msg;
    char *cause = NULL;

    if (!make_pair(sv))
        return;
    close(sv[0]);
    CHECK_INT_EQ(ipc_recv(sv[1], ipc_deadline_in(1000), &got, NULL, &cause), BW_ERR_IO);
    CHECK_CONTAINS(cause, "closed");
    /* Sending to a closed peer is an error, not a SIGPIPE. */
    msg = json_pack("{s:s}", "type", "exit");
    CHECK_INT_EQ(ipc_send(sv[1], msg, -1, ipc_deadline_in(1000), &cause), BW_ERR_IO);
    json_decref(msg);
    close(sv[1]);
    free(cause);
}

/* Writes `raw` (len bytes) to one end, closes it, and expects ipc_recv on the
 * other to fail with `code` and a cause containing `needle`. */
static void expect_malformed(const void *raw, size_t len, int code, const char *needle)
{
    int sv[2];
    json_t *got = NULL;
    char *cause = NULL;
    int fd = -1;

    if (!make_pair(sv))
        return;
    write_raw(sv[0], raw, len);
    close(sv[0]);
    CHECK_INT_EQ(ipc_recv(sv[1], ipc_deadline_in(1000), &got, &fd, &cause), code);
    CHECK_CONTAINS(cause, needle);
    CHECK(got == NULL);
    CHECK_INT_EQ(fd, -1);
    free(cause);
    close(sv[1]);
}

TEST(ipc_malformed_frames)
{
    unsigned char buf[64];

    /* A prefix cut short. */
    buf[0] = 10;
    buf[1] = 0;
    expect_malformed(buf, 2, BW_ERR_PROTOCOL, "2 of 4 length bytes");
    /* A body cut short. */
    memcpy(buf, "\x64\x00\x00\x00{\"a\":1", 10);
    expect_malformed(buf, 10, BW_ERR_PROTOCOL, "truncated frame: stream ended after 6 of 100");
    /* Zero and oversize lengths. */
    memset(buf, 0, 4);
    expect_malformed(buf, 4, BW_ERR_PROTOCOL, "empty frame");
    memset(buf, 0xff, 4);
    expect_malformed(buf, 4, BW_ERR_PROTOCOL, "over the limit");
    /* Invalid JSON, a non-object, duplicate keys. */
    memcpy(buf, "\x05\x00\x00\x00{\"a\":", 9);
    expect_malformed(buf, 9, BW_ERR_PROTOCOL, "invalid JSON");
    memcpy(buf, "\x03\x00\x00\x00[1]", 7);
    expect_malformed(buf, 7, BW_ERR_PROTOCOL, "not an object");
    memcpy(buf, "\x0d\x00\x00\x00{\"a\":1,\"a\":2}", 17);
    expect_malformed(buf, 17, BW_ERR_PROTOCOL, "invalid JSON");
    /* Nothing at all: a clean end of stream. */
    expect_malformed(buf, 0, BW_ERR_IO, "peer closed the connection");
}

TEST(ipc_unexpected_fd_is_refused_and_closed)
{
    int sv[2], p[2], before;
    const char *text = "\x02\x00\x00\x00{}";
    json_t *got = NULL;
    char *cause = NULL;

    if (!make_pair(sv))
        return;
    CHECK(pipe(p) == 0);
    before = count_open_fds();
    send_raw_with_fd(sv[0], text, 6, p[0]);
    CHECK_INT_EQ(ipc_recv(sv[1], ipc_deadline_in(1000), &got, NULL, &cause), BW_ERR_PROTOCOL);
    CHECK_CONTAINS(cause, "unexpected file descriptor");
    CHECK_INT_EQ(count_open_fds(), before); /* the received duplicate was closed */
    close(p[0]);
    close(p[1]);
    free(cause);
    close_pair(sv);
}

TEST(ipc_fd_on_the_body_is_refused)
{
    int sv[2], p[2], fd = -1, before;
    json_t *got = NULL;
    char *cause = NULL;

    if (!make_pair(sv))
        return;
    CHECK(pipe(p) == 0);
    before = count_open_fds();
    write_prefix(sv[0], 2);
    usleep(1000);
    send_raw_with_fd(sv[0], "{}", 2, p[0]);
    CHECK_INT_EQ(ipc_recv(sv[1], ipc_deadline_in(1000), &got, &fd, &cause), BW_ERR_PROTOCOL);
    CHECK_CONTAINS(cause, "body");
    CHECK_INT_EQ(fd, -1);
    CHECK_INT_EQ(count_open_fds(), before);
    close(p[0]);
    close(p[1]);
    free(cause);
    close_pair(sv);
}

TEST(ipc_two_fds_are_refused)
{
    int sv[2], p[2], fd = -1, before;
    const char *text = "\x02\x00\x00\x00{}";
    struct iovec iov = {.iov_base = (void *)text, .iov_len = 6};
    union {
        char buf[CMSG_SPACE(sizeof(int) * 2)];
        struct cmsghdr align;
    } ctl;
    struct msghdr mh = {.msg_iov = &iov, .msg_iovlen = 1};
    struct cmsghdr *c;
    json_t *got = NULL;
    char *cause = NULL;

    if (!make_pair(sv))
        return;
    CHECK(pipe(p) == 0);
    before = count_open_fds();
    memset(&ctl, 0, sizeof(ctl));
    mh.msg_control = ctl.buf;
    mh.msg_controllen = sizeof(ctl.buf);
    c = CMSG_FIRSTHDR(&mh);
    c->cmsg_level = SOL_SOCKET;
    c->cmsg_type = SCM_RIGHTS;
    c->cmsg_len = CMSG_LEN(sizeof(int) * 2);
    memcpy(CMSG_DATA(c), p, sizeof(int) * 2);
    CHECK(sendmsg(sv[0], &mh, MSG_NOSIGNAL) == 6);
    CHECK_INT_EQ(ipc_recv(sv[1], ipc_deadline_in(1000), &got, &fd, &cause), BW_ERR_PROTOCOL);
    CHECK_CONTAINS(cause, "2 file descriptors");
    CHECK_INT_EQ(fd, -1);
    CHECK_INT_EQ(count_open_fds(), before);
    close(p[0]);
    close(p[1]);
    free(cause);
    close_pair(sv);
}

TEST(ipc_messages_in_sequence_keep_their_fds)
{
    int sv[2], m1 = -1, m2 = -1, r1 = -1, r2 = -1, r3 = -1;
    json_t *a, *b, *c, *g1 = NULL, *g2 = NULL, *g3 = NULL;
    const void *map = NULL;
    size_t size = 0;
    char *cause = NULL;

    if (!make_pair(sv))
        return;
    CHECK_INT_EQ(ipc_memfd_from_bytes("one", "1", 1, &m1, &cause), BW_OK);
    CHECK_INT_EQ(ipc_memfd_from_bytes("two", "22", 2, &m2, &cause), BW_OK);
    a = json_pack("{s:i}", "i", 1);
    b = json_pack("{s:i}", "i", 2);
    c = json_pack("{s:i}", "i", 3);
    /* Three frames back to back: the fds must stay with their frames. */
    CHECK_INT_EQ(ipc_send(sv[0], a, m1, IPC_NO_DEADLINE, &cause), BW_OK);
    CHECK_INT_EQ(ipc_send(sv[0], b, -1, IPC_NO_DEADLINE, &cause), BW_OK);
    CHECK_INT_EQ(ipc_send(sv[0], c, m2, IPC_NO_DEADLINE, &cause), BW_OK);
    CHECK_INT_EQ(ipc_recv(sv[1], ipc_deadline_in(1000), &g1, &r1, &cause), BW_OK);
    CHECK_INT_EQ(ipc_recv(sv[1], ipc_deadline_in(1000), &g2, &r2, &cause), BW_OK);
    CHECK_INT_EQ(ipc_recv(sv[1], ipc_deadline_in(1000), &g3, &r3, &cause), BW_OK);
    CHECK(r1 >= 0 && r2 == -1 && r3 >= 0);
    CHECK(json_equal(a, g1) && json_equal(b, g2) && json_equal(c, g3));
    CHECK_INT_EQ(ipc_memfd_map_sealed(r3, &map, &size, &cause), BW_OK);
    CHECK(size == 2 && memcmp(map, "22", 2) == 0);
    ipc_unmap(map, size);
    close(m1);
    close(m2);
    if (r1 >= 0)
        close(r1);
    if (r3 >= 0)
        close(r3);
    json_decref(a);
    json_decref(b);
    json_decref(c);
    json_decref(g1);
    json_decref(g2);
    json_decref(g3);
    free(cause);
    close_pair(sv);
}
