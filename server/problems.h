/*
 * problems.h - the problems the server serves, loaded from problems/.
 *
 * A problem set is every subdirectory of the problems directory that
 * problem_load() accepts, each with its content hash (problem/bundle.h), its
 * statement rendered to HTML with md4c (math spans kept for KaTeX as
 * <x-equation> elements), the languages it is offered in (CUDA always,
 * Triton with starter.py) with each one's starter and signature (the types a
 * kernel declares in that language: const float* or *fp32), and the JSON of
 * the list and detail endpoints rendered once at load. A directory that fails to load is
 * reported (log and admin API) and not served; the rest are. Each loaded
 * version's bundle is stored in the database, so a submission queued before
 * a reload is still judged against the files it was submitted for.
 *
 * Sets are immutable and reference-counted: a reload (SIGHUP) builds a new
 * set and swaps it in; requests holding the old one finish with it.
 */
#ifndef BW_SERVER_PROBLEMS_H
#define BW_SERVER_PROBLEMS_H

#include <stdbool.h>
#include <stddef.h>

#include <jansson.h>

struct store;
struct http_request;
struct http_response;
struct problem;

struct problem_entry {
    struct problem *p; /* owned */
    char hash[65];
    char *detail_json; /* owned: the detail endpoint's body */
    size_t detail_len;
};

struct problem_failure {
    char *dir;   /* owned */
    char *error; /* owned */
};

struct problem_set {
    int refs; /* guarded by the holder's lock */
    struct problem_entry *v;
    size_t n;
    struct problem_failure *failed;
    size_t n_failed;
    char *list_json; /* owned: the list endpoint's body */
    size_t list_len;
};

struct problem_set_holder;

/* Loads every problem under `dir` and records bundles and problems in the
 * store (`st` NULL: records nothing, for --check-config). Fails only when
 * `dir` itself cannot be read; broken problems go to set->failed, so a set
 * may serve none (the caller decides). *out is new (refs = 1). */
int problems_load(const char *dir, struct store *st, struct problem_set **out, char **cause);
void problems_set_unref_unlocked(struct problem_set *set);

struct problem_set_holder *problems_holder_new(struct problem_set *initial /* stolen */);
void problems_holder_free(struct problem_set_holder *h);
/* Replaces the current set (the new one is stolen). */
void problems_swap(struct problem_set_holder *h, struct problem_set *set);
/* The current set with a reference; give it back with problems_put. */
struct problem_set *problems_get(struct problem_set_holder *h);
void problems_put(struct problem_set_holder *h, struct problem_set *set);

/* Borrowed from set; NULL if not served. */
const struct problem_entry *problems_find(const struct problem_set *set, const char *id);

/* Renders Markdown to a *new* HTML string (NULL if over the cap or out of
 * memory). Links and images whose URL problems_url_allowed() refuses lose
 * their href or src: the text (or alt) stays, and nothing can be clicked. */
char *problems_markdown_html(const char *md, size_t len);
/* True if a statement may link to this URL (`n` bytes, as md4c wrote it into
 * an attribute): one without a scheme (relative, or a #fragment), or http:,
 * https: or mailto: in any case. javascript: and vbscript: run code when
 * clicked and data: can hold a whole page; the pages' Content-Security-Policy
 * blocks the first, but a problem statement has no use for any of them. */
bool problems_url_allowed(const char *v, size_t n);

int problems_h_list(struct http_request *req, struct http_response *res);
int problems_h_get(struct http_request *req, struct http_response *res);

#endif
