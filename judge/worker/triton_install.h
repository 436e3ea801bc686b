/*
 * triton_install.h - where Triton is, for judge/worker/triton_compile.c only:
 * the Python to run, blockwise-triton-compile, and the installation's paths
 * (the root of the compile sandbox), discovered once per Python per process
 * by running the trusted probe (triton_compile.h, "The installation").
 */
#ifndef BW_TRITON_INSTALL_H
#define BW_TRITON_INSTALL_H

#include <stddef.h>

/* An installation as the probe found it (kept for the process's life). */
struct triton_layout {
    char *key;     /* the Python as found (triton_find_python) */
    char *python;  /* sys.executable: what the sandbox execs */
    char *version; /* triton.__version__ */
    char **paths;  /* the root's read-only entries */
    size_t n_paths;
    struct triton_layout *next;
};

/* The Python to run: as given, $BLOCKWISE_PYTHON, else python3 on PATH (*new* absolute path). */
int triton_find_python(const char *python, char **out, char **cause);

/* blockwise-triton-compile: as given, $BLOCKWISE_TRITON_COMPILE, or beside us (*new*). */
int triton_find_compiler(const char *compiler, char **out, char **cause);

/* The installation of Python `python` (*out borrowed: kept for the process's life), running
 * the probe with `compiler` the first time. BW_ERR_NOTFOUND with why when Triton is not usable. */
int triton_layout_get(const char *python, const char *compiler, const struct triton_layout **out,
                      char **cause);

#endif
