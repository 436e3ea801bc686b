/*
 * language.h - the languages a submission may be written in, and what tells
 * them apart: a name ("cuda", "triton"), a file extension (.cu, .py) and the
 * comment that starts a directive (// or #).
 */
#ifndef BW_LANGUAGE_H
#define BW_LANGUAGE_H

#include <stdbool.h>

enum language {
    LANG_CUDA,   /* CUDA C++ device code, compiled with NVRTC */
    LANG_TRITON, /* Python with @triton.jit kernels, compiled with Triton ahead of time */
};

#define LANG_COUNT 2

/* "cuda", "triton" */
const char *language_name(enum language l);
/* "CUDA", "Triton": for people */
const char *language_title(enum language l);
/* ".cu", ".py" */
const char *language_extension(enum language l);
/* "//", "#" */
const char *language_comment(enum language l);

/* The language named `name` ("cuda", "triton"); false if none. */
bool language_from_name(const char *name, enum language *out);

/* The language of a file by its extension (".cu", ".py"); false if neither. */
bool language_of_file(const char *path, enum language *out);

#endif
