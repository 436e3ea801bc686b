/*
 * sass.h - what a cubin's machine code holds: disassembling it and finding opcodes in it.
 *
 * A "sass" learning goal (problem.h) asks whether the compiled kernel uses
 * certain instructions, e.g. 128-bit global loads and stores (LDG.E.128,
 * STG.E.128) for the vectorised vector add. NVRTC gives a cubin but no
 * disassembler; CUDA's own tools do: nvdisasm, or cuobjdump --dump-sass. The
 * judge runs one as a child process with rlimits and a wall-clock limit, no
 * shell and an empty environment (the cubin came from untrusted source; the
 * tool itself is trusted), and scans its listing here.
 *
 * The scan is pure and reads either listing. An instruction is a line that
 * starts with its address in a C comment, then an optional predicate (@P0,
 * @!PT), the opcode with its modifiers, the operands and ';'. nvdisasm starts
 * a function's code with ".section .text.NAME,...", cuobjdump with
 * "Function : NAME"; other sections (.nv.info, .debug_frame: data written as
 * ".byte" lines after the same address comments) are skipped.
 */
#ifndef BW_SASS_H
#define BW_SASS_H

#include <limits.h>
#include <stdbool.h>
#include <stddef.h>

#include "common/limits.h"

/* The environment variable naming the disassembler (nvdisasm, or cuobjdump when
 * its name says so): tests, odd installs. */
#define BW_SASS_TOOL_ENV "BLOCKWISE_NVDISASM"

struct sass_tool {
    char path[PATH_MAX];
    bool cuobjdump; /* run as "cuobjdump --dump-sass FILE", else "nvdisasm FILE" */
};

/*
 * Finds a disassembler: $BLOCKWISE_NVDISASM if set (it must exist), else
 * nvdisasm then cuobjdump in $CUDA_HOME/bin, then in /usr/local/cuda/bin.
 * Returns BW_OK, or BW_ERR_NOTFOUND with a cause saying where it looked.
 */
int sass_find_tool(struct sass_tool *out, char **cause);

/*
 * Disassembles a cubin of `len` bytes (written to a private temporary file)
 * with `tool`, limited by BW_SASS_CPU_S, BW_SASS_MEM_BYTES and a wall clock of
 * wall_ms (0: BW_SASS_WALL_MS). On BW_OK *listing is the *new*, NUL-terminated
 * listing (at most BW_SASS_OUTPUT_BYTES; *truncated says it was cut).
 * Otherwise a negative code with the cause: BW_ERR_TIMEOUT (the wall limit),
 * BW_ERR_LIMIT (the CPU or memory limit), BW_ERR_INVALID (the tool failed:
 * its exit status and the start of what it printed), BW_ERR_NOTFOUND,
 * BW_ERR_IO, BW_ERR_SYSTEM.
 */
int sass_disassemble(const struct sass_tool *tool, const void *cubin, size_t len, int wall_ms,
                     char **listing, bool *truncated, char **cause);

/*
 * True if instruction opcode `op` (with its modifiers, "LDG.E.128.CONSTANT")
 * matches `pattern` ("LDG.E.128"): the mnemonics (before the first '.') are
 * equal and the pattern's modifiers appear among the opcode's in the same
 * order, so "LDG.E.128" matches "LDG.E.128", "LDG.E.128.CONSTANT" and
 * "LDG.E.EF.128" but not "LDG.E.64" or "LDGSTS.E.128".
 */
bool sass_opcode_matches(const char *op, const char *pattern);

/* What a scan looks at and what it found. */
struct sass_scan {
    /* in */
    const char *const *patterns; /* borrowed */
    size_t n_patterns;           /* at most BW_MAX_GOAL_PATTERNS */
    const char *const *kernels;  /* borrowed: the entry functions to count; NULL: every function */
    size_t n_kernels;
    const char *const *entries; /* borrowed: every entry function of the cubin; a function
                                   not among them is a device function, always counted */
    size_t n_entries;
    /* out */
    long matches[BW_MAX_GOAL_PATTERNS]; /* per pattern: matching instructions counted */
    bool kernel_seen[BW_MAX_LAUNCHES];  /* per kernel: its code was in the listing */
    long instructions;                  /* instructions in counted functions */
    long functions;                     /* functions with code in the listing, counted or not */
};

/*
 * Scans a listing. Returns BW_OK, or BW_ERR_INVALID when n_patterns or
 * n_kernels exceed the arrays of struct sass_scan.
 */
int sass_scan(const char *listing, struct sass_scan *scan, char **cause);

#endif
