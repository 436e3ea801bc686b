#include "cupti_find.h"

#include <errno.h>
#include <glob.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "common/error.h"
#include "common/banned.h"

/* The toolkit judged was built against (the Makefile passes its CUDA_HOME). */
#ifndef BW_CUDA_HOME
#define BW_CUDA_HOME "/usr/local/cuda"
#endif

static const char *const lib_names[] = {"libcupti.so.13", "libcupti.so", "libcupti.so.12"};

/* Looks for the library in dir; true with its path in out. */
static bool in_dir(const char *dir, char *out, size_t cap)
{
    for (size_t i = 0; i < sizeof(lib_names) / sizeof(lib_names[0]); i++) {
        if (snprintf(out, cap, "%s/%s", dir, lib_names[i]) >= (int)cap)
            continue;
        if (access(out, R_OK) == 0)
            return true;
    }
    return false;
}

/* The toolkit's folders under root (NULL or "": skipped). */
static bool in_toolkit(const char *root, char *out, size_t cap)
{
    static const char *const subdirs[] = {"extras/CUPTI/lib64", "lib64", "lib"};
    char dir[4096];

    if (!root || !root[0])
        return false;
    for (size_t i = 0; i < sizeof(subdirs) / sizeof(subdirs[0]); i++)
        if (snprintf(dir, sizeof(dir), "%s/%s", root, subdirs[i]) < (int)sizeof(dir) &&
            in_dir(dir, out, cap))
            return true;
    return false;
}

/* Every folder `pattern` (a glob of site-packages folders) matches, with the wheels' lib
 * folders under it. */
static bool in_wheels(const char *pattern, char *out, size_t cap)
{
    static const char *const wheels[] = {"nvidia/cu13/lib", "nvidia/cuda_cupti/lib"};
    glob_t g;
    bool found = false;

    if (glob(pattern, GLOB_ONLYDIR | GLOB_NOSORT, NULL, &g) != 0)
        return false;
    for (size_t i = 0; !found && i < g.gl_pathc; i++) {
        for (size_t w = 0; !found && w < sizeof(wheels) / sizeof(wheels[0]); w++) {
            char dir[4096];
            if (snprintf(dir, sizeof(dir), "%s/%s", g.gl_pathv[i], wheels[w]) < (int)sizeof(dir))
                found = in_dir(dir, out, cap);
        }
    }
    globfree(&g);
    return found;
}

/* The site-packages of the Python $BLOCKWISE_PYTHON names: PREFIX/lib/python3.X/site-packages,
 * PREFIX being its bin folder's parent (a venv, or an installation). */
static bool in_blockwise_python(char *out, size_t cap)
{
    const char *py = getenv("BLOCKWISE_PYTHON");
    char pattern[4096];
    const char *slash;
    int bin;

    if (!py || !(slash = strrchr(py, '/')))
        return false;
    bin = (int)(slash - py);
    while (bin > 0 && py[bin - 1] != '/') /* back over "bin" */
        bin--;
    if (snprintf(pattern, sizeof(pattern), "%.*slib/python3*/site-packages", bin, py) >=
        (int)sizeof(pattern))
        return false;
    return in_wheels(pattern, out, cap);
}

int cupti_find(const char *named, char *out, size_t cap, char **why)
{
    static const char *const system_sites[] = {
        "/usr/lib/python3*/site-packages",       "/usr/lib/python3*/dist-packages",
        "/usr/lib/python3/dist-packages",        "/usr/local/lib/python3*/site-packages",
        "/usr/local/lib/python3*/dist-packages",
    };
    const char *env = getenv("BLOCKWISE_CUPTI"), *home = getenv("HOME");
    char pattern[4096];

    if (!named || !named[0])
        named = env && env[0] ? env : NULL;
    if (named) {
        char *abs;
        int n;
        if (access(named, R_OK) != 0)
            return bw_fail(why, BW_ERR_NOTFOUND, "the CUPTI library named (%s) cannot be read: %s",
                           named, strerror(errno));
        /* absolute: the runner opens it, wherever it runs */
        abs = realpath(named, NULL);
        n = snprintf(out, cap, "%s", abs ? abs : named);
        free(abs);
        if (n >= (int)cap)
            return bw_fail(why, BW_ERR_NOTFOUND, "the CUPTI library's path is too long");
        return BW_OK;
    }
    if (in_toolkit(getenv("CUDA_HOME"), out, cap) || in_toolkit(getenv("CUDA_PATH"), out, cap) ||
        in_toolkit(BW_CUDA_HOME, out, cap) || in_toolkit("/usr/local/cuda", out, cap))
        return BW_OK;
    if (in_blockwise_python(out, cap))
        return BW_OK;
    for (size_t i = 0; i < sizeof(system_sites) / sizeof(system_sites[0]); i++)
        if (in_wheels(system_sites[i], out, cap))
            return BW_OK;
    if (home && home[0] &&
        snprintf(pattern, sizeof(pattern), "%s/.local/lib/python3*/site-packages", home) <
            (int)sizeof(pattern) &&
        in_wheels(pattern, out, cap))
        return BW_OK;
    return bw_fail(why, BW_ERR_NOTFOUND,
                   "no CUPTI library on this worker (looked for libcupti.so.13, .so and .so.12 "
                   "in the CUDA toolkit's extras/CUPTI/lib64, lib64 and lib under $CUDA_HOME, "
                   "$CUDA_PATH, %s and /usr/local/cuda, and in PyTorch's nvidia wheels); name "
                   "one with judged --cupti FILE or $BLOCKWISE_CUPTI",
                   BW_CUDA_HOME);
}
