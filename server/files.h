/*
 * files.h - the static files of web/ (the learner's pages), served by GET
 * for any path outside /api. "/" and directories serve their index.html.
 * Paths with a component starting with '.' (so "..", dot-files) are 404;
 * symlinks are not followed; only regular files up to BW_MAX_STATIC_BYTES.
 */
#ifndef BW_SERVER_FILES_H
#define BW_SERVER_FILES_H

#include <stdbool.h>

struct http_request;
struct http_response;

/* True if a URL path (after "/") may name a file under web/. */
bool files_path_ok(const char *rel);
/* The Content-Type for a file name, by extension. */
const char *files_content_type(const char *name);

int files_h_get(struct http_request *req, struct http_response *res);

/* The policy of every HTML page served: scripts, styles, fonts and
 * connections from this server only (the web app bundles everything);
 * inline styles are allowed (KaTeX and CodeMirror set style attributes),
 * inline scripts are not. */
#define FILES_CSP                                                                                  \
    "default-src 'self'; script-src 'self'; style-src 'self' 'unsafe-inline'; "                    \
    "img-src 'self' data:; font-src 'self'; connect-src 'self'; object-src 'none'; "               \
    "base-uri 'none'; form-action 'self'; frame-ancestors 'none'"

#endif
