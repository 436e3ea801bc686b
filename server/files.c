#include "files.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "api.h"
#include "arena.h"
#include "http.h"
#include "server.h"
#include "common/limits.h"
#include "common/banned.h"

bool files_path_ok(const char *rel)
{
    if (strlen(rel) > 512)
        return false;
    const char *p = rel;
    while (*p) {
        size_t n = strcspn(p, "/");
        if (n == 0 && p[n] == '/')
            return false; /* "//" */
        if (n > 0 && p[0] == '.')
            return false;
        for (size_t i = 0; i < n; i++) {
            unsigned char c = (unsigned char)p[i];
            if (c < 0x20 || c == '\\')
                return false;
        }
        p += n;
        if (*p == '/')
            p++;
    }
    return true;
}

const char *files_content_type(const char *name)
{
    static const struct {
        const char *ext, *type;
    } types[] = {
        {".html", "text/html; charset=utf-8"},
        {".js", "text/javascript; charset=utf-8"},
        {".mjs", "text/javascript; charset=utf-8"},
        {".css", "text/css; charset=utf-8"},
        {".json", "application/json"},
        {".map", "application/json"},
        {".svg", "image/svg+xml"},
        {".png", "image/png"},
        {".ico", "image/x-icon"},
        {".woff2", "font/woff2"},
        {".woff", "font/woff"},
        {".ttf", "font/ttf"},
        {".txt", "text/plain; charset=utf-8"},
        {".wasm", "application/wasm"},
    };
    const char *dot = strrchr(name, '.');
    const char *slash = strrchr(name, '/');
    if (dot && (!slash || dot > slash)) {
        for (size_t i = 0; i < sizeof(types) / sizeof(types[0]); i++) {
            if (strcmp(dot, types[i].ext) == 0)
                return types[i].type;
        }
    }
    return "application/octet-stream";
}

/* Opens a regular file without following symlinks; -1 if there is none. */
static int open_regular(const char *path, struct stat *st)
{
    int fd = open(path, O_RDONLY | O_NOFOLLOW | O_CLOEXEC | O_NONBLOCK);
    if (fd < 0)
        return -1;
    if (fstat(fd, st) != 0 || !S_ISREG(st->st_mode) || st->st_size > BW_MAX_STATIC_BYTES) {
        close(fd);
        return -1;
    }
    return fd;
}

int files_h_get(struct http_request *req, struct http_response *res)
{
    struct server *s = req->app;
    const char *rel = req->params[0];
    if (!s->cfg->web_dir[0] || !files_path_ok(rel))
        return api_reply_error(res, 404, "not_found", NULL, "no such path");
    size_t n = strlen(rel);
    const char *path = (n == 0 || rel[n - 1] == '/')
                           ? arena_printf(req->arena, "%s/%sindex.html", s->cfg->web_dir, rel)
                           : arena_printf(req->arena, "%s/%s", s->cfg->web_dir, rel);
    if (!path)
        return api_reply_error(res, 503, "unavailable", NULL, "out of memory");
    struct stat st;
    int fd = open_regular(path, &st);
    if (fd < 0) {
        /* A directory without the trailing slash: its index. */
        const char *index = arena_printf(req->arena, "%s/index.html", path);
        struct stat dst;
        if (index && stat(path, &dst) == 0 && S_ISDIR(dst.st_mode)) {
            fd = open_regular(index, &st);
            path = index;
        }
    }
    if (fd < 0)
        return api_reply_error(res, 404, "not_found", NULL, "no such file");
    res->file_fd = fd;
    res->file_size = (uint64_t)st.st_size;
    res->content_type = files_content_type(path);
    http_add_header(req, res, "Cache-Control",
                    strstr(path, "/assets/") ? "public, max-age=31536000, immutable" : "no-cache");
    if (strncmp(res->content_type, "text/html", 9) == 0)
        http_add_header(req, res, "Content-Security-Policy", FILES_CSP);
    return 200;
}
