/*
 * launcher_form.h - which form a Triton source takes: a Python launcher
 * (a top-level `def solve(...)`) or directives (`# @launch` lines), read from
 * its text alone, before any Python runs. It owns struct launcher_form.
 *
 * The judge runs a Triton file one way or the other (docs/submission-format.md):
 * a solve(...) that the compile sandbox records (plan/recorded.h), or the
 * directives that plan/directive.h parses. A file holding both is refused, as
 * is one holding kernels that neither launches (the learner forgot the
 * launch): those messages need the lines this scan finds.
 */
#ifndef BW_LAUNCHER_FORM_H
#define BW_LAUNCHER_FORM_H

#include <stddef.h>

#include "common/limits.h"

struct launcher_form {
    int solve_line;               /* the line of a top-level `def solve(`, or 0 */
    int directive_line;           /* the first `# @word ...` directive line, or 0 (not a
                                     comment naming a decorator: `# @triton.jit`) */
    int kernel_line;              /* the `def` of the first @triton.jit / @gluon.jit, or 0 */
    char kernel[BW_MAX_NAME + 1]; /* that kernel's name ("" when none) */
};

/* Scans `len` bytes of Python source (need not be NUL-terminated) into *out. */
void launcher_form_scan(const char *source, size_t len, struct launcher_form *out);

#endif
