/*
 * ptx.h - kernel signatures read from the PTX that NVRTC produced.
 *
 * Knowing each entry's parameters before any GPU is involved lets the judge
 * report, as a compile error at the @launch line, a kernel name that does
 * not exist (or exists only C++-mangled: a missing extern "C"), a wrong
 * number of arguments, or an argument whose width or kind does not match the
 * parameter (an int64 size passed to an `int`). The runner checks widths
 * again with cuFuncGetParamInfo before launching.
 */
#ifndef BW_PTX_H
#define BW_PTX_H

#include <stddef.h>

#define PTX_MAX_PARAMS 64

enum ptx_param_kind {
    PTX_PARAM_INT,   /* .u8/.s8 ... .u64/.s64: integers and pointers (pointers are .u64) */
    PTX_PARAM_FLOAT, /* .f16/.f32/.f64 */
    PTX_PARAM_BYTES, /* .b8 ... .b64 or an aggregate .b8 name[N] */
};

struct ptx_param {
    enum ptx_param_kind kind;
    int size; /* bytes */
};

struct ptx_entry {
    char *name; /* owned: the symbol, mangled if the kernel is not extern "C" */
    struct ptx_param params[PTX_MAX_PARAMS];
    int n_params;
};

struct ptx_entries {
    struct ptx_entry *items; /* owned */
    size_t n;
};

/* Parses every `.entry NAME( .param ... )` of a PTX module. Returns BW_OK and
 * fills *out, or BW_ERR_INVALID with *cause for PTX it cannot read. */
int ptx_parse_entries(const char *ptx, struct ptx_entries *out, char **cause);
void ptx_entries_release(struct ptx_entries *e);

/* The entry named exactly `name`, or NULL. */
const struct ptx_entry *ptx_find(const struct ptx_entries *e, const char *name);

/* A C++-mangled entry whose source name is `name` (for "did you forget
 * extern \"C\"?"), or NULL. */
const struct ptx_entry *ptx_find_mangled(const struct ptx_entries *e, const char *name);

#endif
