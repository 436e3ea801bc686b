#include "bundle.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <jansson.h>

#include "common/error.h"
#include "common/limits.h"
#include "common/sha256.h"
#include "common/util.h"
#include "common/banned.h"

#define BUNDLE_MAX_DEPTH 4

struct file {
    char *path; /* relative */
    char *data;
    size_t len;
};

struct file_list {
    struct file *v;
    size_t n, cap;
    size_t total;
};

static void files_release(struct file_list *fl)
{
    for (size_t i = 0; i < fl->n; i++) {
        free(fl->v[i].path);
        free(fl->v[i].data);
    }
    free(fl->v);
    memset(fl, 0, sizeof(*fl));
}

static bool component_ok(const char *s, size_t n)
{
    if (n == 0 || s[0] == '.')
        return false;
    for (size_t i = 0; i < n; i++) {
        char c = s[i];
        if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
              c == '.' || c == '_' || c == '-'))
            return false;
    }
    return true;
}

bool bundle_path_ok(const char *path)
{
    int depth = 0;
    const char *p = path;
    if (strlen(path) > 255)
        return false;
    for (;;) {
        size_t n = strcspn(p, "/");
        if (!component_ok(p, n) || ++depth > BUNDLE_MAX_DEPTH)
            return false;
        if (p[n] == '\0')
            return true;
        p += n + 1;
    }
}

bool bundle_hash_ok(const char *s)
{
    size_t n = 0;
    for (; s[n]; n++) {
        if (!((s[n] >= '0' && s[n] <= '9') || (s[n] >= 'a' && s[n] <= 'f')))
            return false;
    }
    return n == 64;
}

static int add_file(struct file_list *fl, char *rel, char *data, size_t len, char **cause)
{
    if (fl->n >= BW_MAX_BUNDLE_FILES) {
        free(rel);
        free(data);
        return bw_fail(cause, BW_ERR_LIMIT, "more than %d files (BW_MAX_BUNDLE_FILES)",
                       BW_MAX_BUNDLE_FILES);
    }
    fl->total += len;
    if (fl->total > BW_MAX_BUNDLE_BYTES / 2) {
        free(rel);
        free(data);
        return bw_fail(cause, BW_ERR_LIMIT, "files total more than %d bytes (BW_MAX_BUNDLE_BYTES)",
                       BW_MAX_BUNDLE_BYTES / 2);
    }
    if (fl->n == fl->cap) {
        size_t cap = fl->cap ? fl->cap * 2 : 16;
        struct file *v = realloc(fl->v, cap * sizeof(*v));
        if (!v) {
            free(rel);
            free(data);
            return bw_fail(cause, BW_ERR_NOMEM, "out of memory");
        }
        fl->v = v;
        fl->cap = cap;
    }
    fl->v[fl->n++] = (struct file){rel, data, len};
    return BW_OK;
}

/* Adds the files under root/rel. Everything is opened relative to root without following a
 * link (util.h, open_in_dir): a symbolic link or a FIFO, device or socket anywhere under root
 * fails the pack with its path, so a link to a host file never travels to a worker. */
static int walk(const char *root, const char *rel, int depth, struct file_list *fl, char **cause)
{
    int fd = *rel ? open_in_dir(root, rel, true, NULL, cause)
                  : open(root, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (fd < 0)
        return *rel ? fd : bw_fail(cause, BW_ERR_IO, "%s: %s", root, strerror(errno));
    DIR *d = fdopendir(fd);
    if (!d) {
        int rc = bw_fail(cause, BW_ERR_IO, "%s/%s: %s", root, rel, strerror(errno));
        close(fd);
        return rc;
    }
    int rc = BW_OK;
    struct dirent *e;
    while (rc == BW_OK && (e = readdir(d)) != NULL) {
        if (e->d_name[0] == '.')
            continue;
        char *childrel = *rel ? path_join(rel, e->d_name) : strdup(e->d_name);
        struct stat st;
        if (!childrel) {
            rc = bw_fail(cause, BW_ERR_NOMEM, "out of memory");
        } else if (fstatat(dirfd(d), e->d_name, &st, AT_SYMLINK_NOFOLLOW) != 0) {
            rc = bw_fail(cause, BW_ERR_IO, "%s/%s: %s", root, childrel, strerror(errno));
        } else if (S_ISDIR(st.st_mode)) {
            if (depth + 1 < BUNDLE_MAX_DEPTH && component_ok(e->d_name, strlen(e->d_name)))
                rc = walk(root, childrel, depth + 1, fl, cause);
        } else if (!S_ISREG(st.st_mode)) {
            rc = bw_fail(cause, BW_ERR_INVALID, "%s/%s: %s", root, childrel,
                         S_ISLNK(st.st_mode) ? "a symbolic link (the files of a problem must be "
                                               "its own, not links)"
                                             : "not a regular file");
        } else if (bundle_path_ok(childrel)) {
            char *data = NULL;
            size_t len = 0;
            rc = read_file_in_dir(root, childrel, BW_MAX_BUNDLE_BYTES / 2, &data, &len, cause);
            if (rc == BW_OK) {
                rc = add_file(fl, childrel, data, len, cause);
                childrel = NULL;
            }
        }
        free(childrel);
    }
    closedir(d);
    return rc;
}

static int file_cmp(const void *a, const void *b)
{
    return strcmp(((const struct file *)a)->path, ((const struct file *)b)->path);
}

static void hash_files(const struct file_list *fl, char hash[65])
{
    struct sha256 s;
    sha256_init(&s);
    for (size_t i = 0; i < fl->n; i++) {
        char size[32];
        int n = snprintf(size, sizeof(size), "%zu", fl->v[i].len);
        sha256_update(&s, fl->v[i].path, strlen(fl->v[i].path) + 1);
        sha256_update(&s, size, (size_t)n + 1);
        sha256_update(&s, fl->v[i].data, fl->v[i].len);
    }
    sha256_final_hex(&s, hash);
}

static const char b64[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

static char *base64_encode(const unsigned char *p, size_t n)
{
    char *out = malloc(4 * ((n + 2) / 3) + 1), *o = out;
    if (!out)
        return NULL;
    for (size_t i = 0; i < n; i += 3) {
        uint32_t v = (uint32_t)p[i] << 16;
        if (i + 1 < n)
            v |= (uint32_t)p[i + 1] << 8;
        if (i + 2 < n)
            v |= p[i + 2];
        *o++ = b64[v >> 18 & 63];
        *o++ = b64[v >> 12 & 63];
        *o++ = i + 1 < n ? b64[v >> 6 & 63] : '=';
        *o++ = i + 2 < n ? b64[v & 63] : '=';
    }
    *o = '\0';
    return out;
}

/* Decodes strict padded base64 into a *new* buffer; NULL on junk. */
static unsigned char *base64_decode(const char *s, size_t n, size_t *out_len)
{
    if (n % 4 != 0)
        return NULL;
    unsigned char *out = malloc(n / 4 * 3 + 1), *o = out;
    if (!out)
        return NULL;
    for (size_t i = 0; i < n; i += 4) {
        uint32_t v = 0;
        int pad = 0;
        for (int j = 0; j < 4; j++) {
            char c = s[i + j];
            const char *pos = c ? strchr(b64, c) : NULL;
            if (c == '=' && i + 4 == n && j >= 2) {
                pad++;
                v <<= 6;
                continue;
            }
            if (!pos || pad) {
                free(out);
                return NULL;
            }
            v = v << 6 | (uint32_t)(pos - b64);
        }
        *o++ = (unsigned char)(v >> 16);
        if (pad < 2)
            *o++ = (unsigned char)(v >> 8);
        if (pad < 1)
            *o++ = (unsigned char)v;
    }
    *out_len = (size_t)(o - out);
    return out;
}

int bundle_pack(const char *dir, const char *id, char **out, size_t *len, char hash[65],
                char **cause)
{
    struct file_list fl = {0};
    int rc = walk(dir, "", 0, &fl, cause);
    if (rc < 0) {
        files_release(&fl);
        return bw_wrap(cause, rc, "bundle %s", dir);
    }
    qsort(fl.v, fl.n, sizeof(*fl.v), file_cmp);
    hash_files(&fl, hash);
    json_t *files = json_array();
    json_t *doc =
        json_pack("{s:i, s:s, s:s, s:o}", "format", 1, "id", id, "hash", hash, "files", files);
    for (size_t i = 0; doc && i < fl.n; i++) {
        char *enc = base64_encode((const unsigned char *)fl.v[i].data, fl.v[i].len);
        json_t *f = enc ? json_pack("{s:s, s:s}", "path", fl.v[i].path, "data", enc) : NULL;
        free(enc);
        if (!f || json_array_append_new(files, f) != 0) {
            json_decref(doc);
            doc = NULL;
        }
    }
    files_release(&fl);
    char *text = doc ? json_dumps(doc, JSON_COMPACT) : NULL;
    json_decref(doc);
    if (!text)
        return bw_fail(cause, BW_ERR_NOMEM, "bundle %s: out of memory", dir);
    *len = strlen(text);
    if (*len > BW_MAX_BUNDLE_BYTES) {
        free(text);
        return bw_fail(cause, BW_ERR_LIMIT, "bundle %s: over %d bytes (BW_MAX_BUNDLE_BYTES)", dir,
                       BW_MAX_BUNDLE_BYTES);
    }
    *out = text;
    return BW_OK;
}

static int mkdirs_for(const char *root, const char *rel, char **cause)
{
    char *copy = strdup(rel);
    if (!copy)
        return bw_fail(cause, BW_ERR_NOMEM, "out of memory");
    for (char *slash = strchr(copy, '/'); slash; slash = strchr(slash + 1, '/')) {
        *slash = '\0';
        char *d = path_join(root, copy);
        if (!d || (mkdir(d, 0755) != 0 && errno != EEXIST)) {
            int rc = bw_fail(cause, BW_ERR_IO, "mkdir %s: %s", d ? d : copy, strerror(errno));
            free(d);
            free(copy);
            return rc;
        }
        free(d);
        *slash = '/';
    }
    free(copy);
    return BW_OK;
}

static int write_new(const char *path, const void *data, size_t len, char **cause)
{
    int fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0644);
    if (fd < 0)
        return bw_fail(cause, BW_ERR_IO, "create %s: %s", path, strerror(errno));
    const char *p = data;
    while (len > 0) {
        ssize_t w = write(fd, p, len);
        if (w < 0 && errno == EINTR)
            continue;
        if (w <= 0) {
            int rc = bw_fail(cause, BW_ERR_IO, "write %s: %s", path, strerror(errno));
            close(fd);
            return rc;
        }
        p += w;
        len -= (size_t)w;
    }
    if (fsync(fd) != 0 || close(fd) != 0)
        return bw_fail(cause, BW_ERR_IO, "write %s: %s", path, strerror(errno));
    return BW_OK;
}

static void remove_tree(const char *path)
{
    DIR *d = opendir(path);
    if (d) {
        struct dirent *e;
        while ((e = readdir(d)) != NULL) {
            if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0)
                continue;
            char *child = path_join(path, e->d_name);
            struct stat st;
            if (child && lstat(child, &st) == 0) {
                if (S_ISDIR(st.st_mode))
                    remove_tree(child);
                else
                    unlink(child);
            }
            free(child);
        }
        closedir(d);
    }
    rmdir(path);
}

static int parse_files(const char *text, size_t len, struct file_list *fl, char **cause)
{
    json_error_t jerr;
    json_t *doc = json_loadb(text, len, JSON_REJECT_DUPLICATES, &jerr);
    if (!doc)
        return bw_fail(cause, BW_ERR_PROTOCOL, "bundle: not JSON: %s", jerr.text);
    int rc = BW_OK;
    json_t *files = json_object_get(doc, "files");
    json_int_t format = json_integer_value(json_object_get(doc, "format"));
    if (format != 1 || !json_is_array(files)) {
        rc = bw_fail(cause, BW_ERR_PROTOCOL, "bundle: expected format 1 with a files array");
        goto out_doc;
    }
    size_t i;
    json_t *f;
    json_array_foreach (files, i, f) {
        const char *path = json_string_value(json_object_get(f, "path"));
        json_t *data = json_object_get(f, "data");
        if (!path || !json_is_string(data) || !bundle_path_ok(path)) {
            rc = bw_fail(cause, BW_ERR_PROTOCOL, "bundle: files[%zu]: bad path or data", i);
            goto out_doc;
        }
        for (size_t j = 0; j < fl->n; j++) {
            if (strcmp(fl->v[j].path, path) == 0) {
                rc = bw_fail(cause, BW_ERR_PROTOCOL, "bundle: %s: listed twice", path);
                goto out_doc;
            }
        }
        size_t n = 0;
        unsigned char *bytes = base64_decode(json_string_value(data), json_string_length(data), &n);
        char *p = strdup(path);
        if (!bytes || !p) {
            free(bytes);
            free(p);
            rc = bw_fail(cause, BW_ERR_PROTOCOL, "bundle: %s: bad base64", path);
            goto out_doc;
        }
        rc = add_file(fl, p, (char *)bytes, n, cause);
        if (rc < 0)
            goto out_doc;
    }
out_doc:
    json_decref(doc);
    return rc;
}

int bundle_unpack(const char *text, size_t len, const char *hash, const char *dest, char **cause)
{
    struct file_list fl = {0};
    char got[65];
    char *tmp = NULL;
    int rc = parse_files(text, len, &fl, cause);
    if (rc < 0)
        goto out_files;
    qsort(fl.v, fl.n, sizeof(*fl.v), file_cmp);
    hash_files(&fl, got);
    if (strcmp(got, hash) != 0) {
        rc =
            bw_fail(cause, BW_ERR_PROTOCOL, "bundle: content hash %s does not match %s", got, hash);
        goto out_files;
    }
    size_t n = strlen(dest) + 32;
    tmp = malloc(n);
    if (!tmp) {
        rc = bw_fail(cause, BW_ERR_NOMEM, "out of memory");
        goto out_files;
    }
    snprintf(tmp, n, "%s.tmp.%ld", dest, (long)getpid());
    remove_tree(tmp);
    if (mkdir(tmp, 0755) != 0) {
        rc = bw_fail(cause, BW_ERR_IO, "mkdir %s: %s", tmp, strerror(errno));
        goto out_tmp;
    }
    for (size_t i = 0; i < fl.n && rc == BW_OK; i++) {
        rc = mkdirs_for(tmp, fl.v[i].path, cause);
        char *full = rc == BW_OK ? path_join(tmp, fl.v[i].path) : NULL;
        if (rc == BW_OK && !full)
            rc = bw_fail(cause, BW_ERR_NOMEM, "out of memory");
        if (rc == BW_OK)
            rc = write_new(full, fl.v[i].data, fl.v[i].len, cause);
        free(full);
    }
    if (rc == BW_OK && rename(tmp, dest) != 0) {
        if (errno != EEXIST && errno != ENOTEMPTY)
            rc = bw_fail(cause, BW_ERR_IO, "rename %s to %s: %s", tmp, dest, strerror(errno));
    }
out_tmp:
    remove_tree(tmp);
    free(tmp);
out_files:
    files_release(&fl);
    return rc;
}
