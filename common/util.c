#include "util.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "error.h"
#include "limits.h"
#include "banned.h"

bool parse_i64(const char *s, int64_t *out)
{
    char *end;
    long long v;

    if (!s || !*s)
        return false;
    errno = 0;
    v = strtoll(s, &end, 10);
    if (errno || *end || end == s)
        return false;
    *out = v;
    return true;
}

bool parse_u64(const char *s, uint64_t *out)
{
    uint64_t v = 0;

    if (!*s || strlen(s) > 20)
        return false;
    for (const char *p = s; *p; p++) {
        if (*p < '0' || *p > '9' || v > (UINT64_MAX - (uint64_t)(*p - '0')) / 10)
            return false;
        v = v * 10 + (uint64_t)(*p - '0');
    }
    *out = v;
    return true;
}

bool parse_double(const char *s, double *out)
{
    char *end;
    double v;

    if (!s || !*s)
        return false;
    errno = 0;
    v = strtod(s, &end);
    if (errno || *end || end == s || !isfinite(v))
        return false;
    *out = v;
    return true;
}

/* Reads the open file fd (named `path` in messages) as read_file does, and closes it. */
static int read_fd(int fd, const char *path, size_t max, char **out, size_t *len, char **cause)
{
    struct stat st;
    char *data = NULL;
    size_t got = 0;
    int rc = BW_OK;

    if (fstat(fd, &st) < 0) {
        rc = bw_fail(cause, BW_ERR_IO, "cannot stat %s: %s", path, strerror(errno));
        goto close_fd;
    }
    if (!S_ISREG(st.st_mode)) {
        rc = bw_fail(cause, BW_ERR_INVALID, "%s is not a regular file", path);
        goto close_fd;
    }
    if ((uint64_t)st.st_size > max) {
        rc = bw_fail(cause, BW_ERR_LIMIT, "%s is %lld bytes, over the limit of %zu", path,
                     (long long)st.st_size, max);
        goto close_fd;
    }
    data = malloc((size_t)st.st_size + 1);
    if (!data) {
        rc = bw_fail(cause, BW_ERR_NOMEM, "out of memory reading %s", path);
        goto close_fd;
    }
    while (got < (size_t)st.st_size) {
        ssize_t n = read(fd, data + got, (size_t)st.st_size - got);
        if (n < 0 && errno == EINTR)
            continue;
        if (n < 0) {
            rc = bw_fail(cause, BW_ERR_IO, "cannot read %s: %s", path, strerror(errno));
            goto free_data;
        }
        if (n == 0)
            break;
        got += (size_t)n;
    }
    data[got] = '\0';
    *out = data;
    if (len)
        *len = got;
    goto close_fd;

free_data:
    free(data);
close_fd:
    close(fd);
    return rc;
}

int read_file(const char *path, size_t max, char **out, size_t *len, char **cause)
{
    int fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY);

    if (fd < 0)
        return bw_fail(cause, errno == ENOENT ? BW_ERR_NOTFOUND : BW_ERR_IO, "cannot open %s: %s",
                       path, strerror(errno));
    return read_fd(fd, path, max, out, len, cause);
}

/* What a file that is not regular is, for a message. */
static const char *file_kind(mode_t mode)
{
    return S_ISDIR(mode)    ? "a directory"
           : S_ISFIFO(mode) ? "a FIFO"
           : S_ISLNK(mode)  ? "a symbolic link"
           : S_ISSOCK(mode) ? "a socket"
           : S_ISCHR(mode)  ? "a character device"
           : S_ISBLK(mode)  ? "a block device"
                            : "of an unknown kind";
}

int open_in_dir(const char *dir, const char *rel, bool directory, struct stat *st, char **cause)
{
    char part[PATH_MAX];
    size_t n = strlen(rel);
    struct stat sb;
    char *comp = part;
    int fd, next = -1, dl = (int)strlen(dir);

    while (dl > 1 && dir[dl - 1] == '/')
        dl--; /* messages name "dir/rel" without a doubled slash */

    if (n == 0 || n >= sizeof(part) || rel[0] == '/')
        return bw_fail(cause, BW_ERR_INVALID, "%.*s/%s: not a relative path", dl, dir, rel);
    memcpy(part, rel, n + 1);
    fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (fd < 0)
        return bw_fail(cause, errno == ENOENT ? BW_ERR_NOTFOUND : BW_ERR_IO,
                       "cannot open %.*s/%s: %s", dl, dir, rel, strerror(errno));
    for (;;) {
        char *slash = strchr(comp, '/');
        bool want_dir = slash != NULL || directory;
        int rc = BW_OK;

        if (slash)
            *slash = '\0';
        /* part is now dir-relative up to this component: the name in every message */
        if (!*comp || strcmp(comp, ".") == 0 || strcmp(comp, "..") == 0)
            rc = bw_fail(cause, BW_ERR_INVALID, "%.*s/%s: not a plain relative path", dl, dir, rel);
        else if (fstatat(fd, comp, &sb, AT_SYMLINK_NOFOLLOW) < 0)
            rc = bw_fail(cause, errno == ENOENT ? BW_ERR_NOTFOUND : BW_ERR_IO, "%.*s/%s: %s", dl,
                         dir, part, errno == ENOENT ? "no such file" : strerror(errno));
        else if (S_ISLNK(sb.st_mode))
            rc = bw_fail(cause, BW_ERR_INVALID,
                         "%.*s/%s: a symbolic link (the files of a problem must be its own, not "
                         "links)",
                         dl, dir, part);
        else if (want_dir ? !S_ISDIR(sb.st_mode) : !S_ISREG(sb.st_mode))
            rc = bw_fail(cause, BW_ERR_INVALID, "%.*s/%s: not a %s (%s)", dl, dir, part,
                         want_dir ? "directory" : "regular file", file_kind(sb.st_mode));
        /* O_NOFOLLOW and the fstat below hold if it was swapped since; O_NONBLOCK: a FIFO
         * put there meanwhile does not block the open */
        else if ((next = openat(fd, comp,
                                O_RDONLY | O_NOFOLLOW | O_CLOEXEC | O_NOCTTY | O_NONBLOCK |
                                    (want_dir ? O_DIRECTORY : 0))) < 0)
            rc = bw_fail(cause, errno == ELOOP ? BW_ERR_INVALID : BW_ERR_IO, "%.*s/%s: %s", dl, dir,
                         part, errno == ELOOP ? "a symbolic link" : strerror(errno));
        close(fd);
        if (rc)
            return rc;
        fd = next;
        if (!slash)
            break;
        *slash = '/';
        comp = slash + 1;
    }
    if (fstat(fd, &sb) < 0 || (directory ? !S_ISDIR(sb.st_mode) : !S_ISREG(sb.st_mode))) {
        close(fd);
        return bw_fail(cause, BW_ERR_INVALID, "%.*s/%s: not a %s", dl, dir, rel,
                       directory ? "directory" : "regular file");
    }
    if (st)
        *st = sb;
    return fd;
}

int read_file_in_dir(const char *dir, const char *rel, size_t max, char **out, size_t *len,
                     char **cause)
{
    char *path = path_join(dir, rel);
    int fd, rc;

    if (!path)
        return bw_fail(cause, BW_ERR_NOMEM, "out of memory");
    fd = open_in_dir(dir, rel, false, NULL, cause);
    rc = fd < 0 ? fd : read_fd(fd, path, max, out, len, cause);
    free(path);
    return rc;
}

int mkdirs(const char *path, char **cause)
{
    char dir[PATH_MAX];
    size_t len = strlen(path);

    if (len == 0 || len >= sizeof(dir))
        return bw_fail(cause, BW_ERR_INVALID, "mkdir: bad path \"%.200s\"", path);
    memcpy(dir, path, len + 1);
    for (size_t i = 1; i <= len; i++) {
        if (dir[i] != '/' && dir[i] != '\0')
            continue;
        dir[i] = '\0';
        if (mkdir(dir, 0755) != 0 && errno != EEXIST)
            return bw_fail(cause, BW_ERR_IO, "mkdir %s: %s", dir, strerror(errno));
        dir[i] = path[i];
    }
    return BW_OK;
}

int write_file_atomic(const char *path, const void *data, size_t len, char **cause)
{
    char tmp[PATH_MAX];
    const char *p = data;
    int fd, n;

    n = snprintf(tmp, sizeof(tmp), "%s.tmp.%ld", path, (long)getpid());
    if (n < 0 || (size_t)n >= sizeof(tmp))
        return bw_fail(cause, BW_ERR_LIMIT, "path too long: %s", path);
    fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
    if (fd < 0)
        return bw_fail(cause, BW_ERR_IO, "cannot create %s: %s", tmp, strerror(errno));
    while (len) {
        ssize_t w = write(fd, p, len);
        if (w < 0 && errno == EINTR)
            continue;
        if (w < 0) {
            int e = errno;
            close(fd);
            unlink(tmp);
            return bw_fail(cause, BW_ERR_IO, "cannot write %s: %s", tmp, strerror(e));
        }
        p += w;
        len -= (size_t)w;
    }
    if (fsync(fd) < 0 || close(fd) < 0) {
        unlink(tmp);
        return bw_fail(cause, BW_ERR_IO, "cannot flush %s: %s", tmp, strerror(errno));
    }
    if (rename(tmp, path) < 0) {
        int e = errno;
        unlink(tmp);
        return bw_fail(cause, BW_ERR_IO, "cannot rename %s to %s: %s", tmp, path, strerror(e));
    }
    return BW_OK;
}

char *strdup_or_null(const char *s)
{
    return s ? strdup(s) : NULL;
}

char *path_join(const char *a, const char *b)
{
    size_t la = strlen(a);
    char *s;

    while (la > 1 && a[la - 1] == '/')
        la--;
    while (*b == '/')
        b++;
    if (asprintf(&s, "%.*s/%s", (int)la, a, b) < 0)
        return NULL;
    return s;
}

char *exe_dir(void)
{
    char path[PATH_MAX];
    ssize_t n = readlink("/proc/self/exe", path, sizeof(path) - 1);
    char *slash;

    if (n <= 0)
        return NULL;
    path[n] = '\0';
    slash = strrchr(path, '/');
    if (!slash)
        return NULL;
    *slash = '\0';
    return strdup(path[0] ? path : "/");
}

uint64_t now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

double now_ms(void)
{
    return (double)now_ns() / 1e6;
}

struct timespec monotonic_timespec(double ms)
{
    double s = floor(ms / 1000);
    struct timespec t = {(time_t)s, (long)((ms - 1000 * s) * 1e6)};

    if (t.tv_nsec >= 1000000000L) { /* rounding at the edge of a second */
        t.tv_sec++;
        t.tv_nsec -= 1000000000L;
    }
    return t;
}

void monotonic_cond_init(pthread_cond_t *c)
{
    pthread_condattr_t ca;

    pthread_condattr_init(&ca);
    pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
    pthread_cond_init(c, &ca);
    pthread_condattr_destroy(&ca);
}

int64_t wall_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

bool is_identifier(const char *name)
{
    size_t n = 0;

    if (!name ||
        !(*name == '_' || (*name >= 'A' && *name <= 'Z') || (*name >= 'a' && *name <= 'z')))
        return false;
    for (; name[n]; n++) {
        char c = name[n];
        if (!(c == '_' || (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') ||
              (c >= '0' && c <= '9')))
            return false;
    }
    return n <= BW_MAX_NAME;
}
