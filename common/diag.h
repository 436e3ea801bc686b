/*
 * diag.h - located messages: what a learner's file did wrong, at which line
 * and column.
 *
 * Every stage that reads a learner's file reports through a diag_list: the
 * directive parser, the plan checker, NVRTC's log and Triton's errors, so the
 * editor underlines them all alike. Lines and columns are 1-based; columns
 * count bytes (a tab is one column).
 */
#ifndef BW_DIAG_H
#define BW_DIAG_H

#include <stdbool.h>
#include <stddef.h>

/* A located message (an error in a learner's file). */
struct diag {
    int line;   /* 1-based; 0 when not tied to a line */
    int column; /* 1-based; 0 when not tied to a column */
    char *msg;  /* owned */
};

struct diag_list {
    struct diag *items; /* owned */
    size_t n;
};
void diag_list_release(struct diag_list *l);
/* Appends a formatted diagnostic; returns BW_OK or BW_ERR_NOMEM. */
int diag_list_addf(struct diag_list *l, int line, int column, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));

/*
 * What every compiler refuses before it sees a source: more than
 * BW_MAX_SOURCE_BYTES, or a NUL byte (at its line and column). Appends the
 * error to *diags and sets *refused; returns BW_OK or BW_ERR_NOMEM.
 */
int diag_refuse_source(const char *source, size_t len, struct diag_list *diags, bool *refused);

#endif
