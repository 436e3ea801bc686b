/*
 * hostile_header.h - the "key: value" header of a hostile program
 * (the tests/hostile/compile/ files as "// " lines, the tests/hostile/triton/ files as
 * "# " lines), read by test_compile.c and test_triton_compile.c.
 *
 * The keys both corpora share are read here; every other header line goes to
 * the caller's `other` callback, which reads the keys only its corpus has and
 * returns false for a malformed value of one (the file is then refused), true
 * otherwise (a line nobody knows is prose). The header ends at the first line
 * without the comment prefix.
 */
#ifndef BW_TESTS_HOSTILE_HEADER_H
#define BW_TESTS_HOSTILE_HEADER_H

#include <stdbool.h>
#include <stddef.h>

#include "plan/directive.h"

#define HOSTILE_MAX_EXPECT 8

struct hostile_header {
    char expect[32];                       /* expect: the result's kind */
    char failure[160];                     /* failure: text of the failure */
    char log_has[HOSTILE_MAX_EXPECT][160]; /* log-has: (repeatable) */
    int n_log_has;
    char log_lacks[HOSTILE_MAX_EXPECT][160]; /* log-lacks: (repeatable) */
    int n_log_lacks;
    char control_has[160]; /* control-log-has: */
    char diag[200];        /* diag: LINE:COL text, or LINE:* text (diag_col -1) */
    int diag_line, diag_col;
    int wall_ms, cpu_s; /* limits: wall_ms=N cpu_s=N mem_mb=N */
    long mem_mb;
    int max_ms;   /* max-ms: */
    long log_max; /* log-max: */
};

/* A compile's result as the header's checks see it: CUDA's compile_result
 * or Triton's triton_result, whose fields these point into. */
struct hostile_result {
    bool ok;
    const char *failure, *log; /* NULL when there is none */
    const struct diag_list *diags;
    size_t errors; /* diagnostics of severity error, as each compiler counts them */
    double ms;
};

/* True if text appears in r's log, its failure or one of its diagnostics. */
bool hostile_anywhere(const struct hostile_result *r, const char *text);

/* The diagnostic at line:column (column -1: any) whose message holds text, or NULL. */
const struct diag *hostile_find_diag(const struct diag_list *d, int line, int column,
                                     const char *text);

/* Checks r against every expectation of h, naming `name` in each failure:
 * expect: (`built` says what "ok" produces, e.g. "a cubin"), failure:,
 * log-has:, log-lacks:, diag:, log-max:, max-ms:, and that neither `canary`
 * nor a line of /etc/passwd or /etc/shadow is anywhere in it. */
void hostile_check(const struct hostile_header *h, const char *name, const char *built,
                   const char *canary, const struct hostile_result *r);

/* If `line` is "KEY: value", copies the value into out (size bytes). */
bool hostile_value(const char *line, const char *key, char *out, size_t size);

/* Reads src's header (lines starting with `prefix`, e.g. "// ") into *h.
 * False when a value is malformed, `other` refuses a line, or there is no
 * expect: key. */
bool hostile_header_parse(const char *src, const char *prefix, struct hostile_header *h,
                          bool (*other)(const char *line, void *ctx), void *ctx);

#endif
