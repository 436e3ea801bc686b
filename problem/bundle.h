/*
 * bundle.h - a problem directory as one JSON document addressed by a content
 * hash: how problem files travel from blockwise-server to judged.
 *
 *   {"format": 1, "id": "vector-add", "hash": "<sha256 hex>",
 *    "files": [{"path": "problem.json", "data": "<base64>"}, ...]}
 *
 * The hash is SHA-256 over the files sorted by path, each as
 * path NUL size-in-decimal NUL bytes; it depends on nothing but the files, so
 * the server and every worker compute the same one, and a worker caches a
 * bundle under its hash and checks it after every download. Paths are
 * relative, '/'-separated, made of [A-Za-z0-9._-] components that do not
 * start with '.', at most 4 deep.
 */
#ifndef BW_BUNDLE_H
#define BW_BUNDLE_H

#include <stdbool.h>
#include <stddef.h>

/* Packs every regular file under `dir` (dot-files skipped) into a *new*
 * bundle text (*out, *len) and its hash. A symbolic link, FIFO, device or
 * socket under `dir` is an error naming it (BW_ERR_INVALID): nothing is read
 * through a link. Caps: BW_MAX_BUNDLE_FILES files and BW_MAX_BUNDLE_BYTES of
 * text. */
int bundle_pack(const char *dir, const char *id, char **out, size_t *len, char hash[65],
                char **cause);

/* Checks that `text` is a bundle whose files hash to `hash` and writes them
 * into the directory `dest`, which must not exist yet: they are written to a
 * sibling temporary directory that is renamed into place, so `dest` is
 * either complete or absent. A `dest` created meanwhile by another process
 * counts as success. */
int bundle_unpack(const char *text, size_t len, const char *hash, const char *dest, char **cause);

/* True if `path` is an acceptable bundle path (see above). */
bool bundle_path_ok(const char *path);

/* True if `s` is 64 lower-case hex digits. */
bool bundle_hash_ok(const char *s);

#endif
