/*
 * python.c - finding the Python that judged runs (python.h).
 */
#include "python.h"

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "common/error.h"
#include "common/banned.h"

int python_find(const char *python, const char *needs, char **out, char **cause)
{
    const char *name = python && *python ? python : getenv(BW_PYTHON_ENV);
    const char *path = getenv("PATH");

    if (!name || !*name)
        name = "python3";
    if (strchr(name, '/')) {
        char cwd[PATH_MAX];
        if (access(name, X_OK) != 0)
            return bw_fail(cause, BW_ERR_NOTFOUND, "no Python at %s: %s", name, strerror(errno));
        /* Absolute, but not resolved: a venv's bin/python3 is a link that must stay one. */
        if (name[0] == '/')
            *out = strdup(name);
        else if (!getcwd(cwd, sizeof(cwd)) || asprintf(out, "%s/%s", cwd, name) < 0)
            *out = NULL;
        return *out ? BW_OK : bw_fail(cause, BW_ERR_NOMEM, "cannot make %s absolute", name);
    }
    for (const char *p = path ? path : "/usr/local/bin:/usr/bin:/bin"; *p;) {
        size_t n = strcspn(p, ":");
        char *candidate = NULL;
        if (n > 0 && asprintf(&candidate, "%.*s/%s", (int)n, p, name) >= 0) {
            if (candidate[0] == '/' && access(candidate, X_OK) == 0) {
                *out = candidate;
                return BW_OK;
            }
            free(candidate);
        }
        p += n;
        if (*p == ':')
            p++;
    }
    return bw_fail(cause, BW_ERR_NOTFOUND, "no %s on PATH (set %s to the Python that has %s)", name,
                   BW_PYTHON_ENV, needs);
}
