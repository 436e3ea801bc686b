/*
 * cupti_find.h - where judged finds the CUPTI library its profiling runners
 * open (docs/profile.md, "Where CUPTI comes from").
 *
 * The search, first found wins:
 *   1. the library named: `judged --cupti FILE`, else $BLOCKWISE_CUPTI. A
 *      name that is not a readable file is an error, not a reason to look
 *      elsewhere: the operator asked for that one.
 *   2. the CUDA toolkit: $CUDA_HOME, $CUDA_PATH, the toolkit judged was
 *      built against (the Makefile's CUDA_HOME) and /usr/local/cuda; in each,
 *      extras/CUPTI/lib64 (the runfile's and the packages' layout), lib64 and
 *      lib (a toolkit assembled from NVIDIA's wheels).
 *   3. PyTorch's NVIDIA wheels: nvidia/cu13/lib (CUDA 13's cupti wheel) and
 *      nvidia/cuda_cupti/lib (CUDA 12's) in the site-packages of the Python
 *      that $BLOCKWISE_PYTHON names, of the system's Pythons
 *      (/usr/lib/python3*, /usr/local/lib/python3*, dist-packages too) and of
 *      ~/.local.
 * In each folder: libcupti.so.13 (the headers this judge was built with),
 * libcupti.so, then libcupti.so.12 (CUDA 12.6 and later have the range
 * profiler; the runner refuses an older one by its missing entry points).
 * Finding a file proves nothing about it: the runner opens it and says why
 * when it cannot (cupti.h).
 */
#ifndef BW_CUPTI_FIND_H
#define BW_CUPTI_FIND_H

#include <stddef.h>

/*
 * Stores the library's path in out (cap bytes; a named one made absolute) and returns BW_OK; else
 * BW_ERR_NOTFOUND with *why (*new*): one sentence saying where it looked,
 * or that the named file is not there. `named`: the --cupti option, or NULL.
 */
int cupti_find(const char *named, char *out, size_t cap, char **why);

#endif
