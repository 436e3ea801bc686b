#include "built_tool.h"

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "common/util.h"

const char *built_tool(const char *env, const char *name, char *path, size_t size)
{
    char resolved[PATH_MAX], rel[PATH_MAX], *dir, *candidate;

    if (getenv(env)) {
        snprintf(path, size, "%s", getenv(env));
        return path;
    }
    snprintf(rel, sizeof(rel), "../bin/%s", name);
    dir = exe_dir();
    candidate = dir ? path_join(dir, rel) : NULL;
    free(dir);
    if (!candidate || access(candidate, X_OK) != 0) {
        free(candidate);
        snprintf(rel, sizeof(rel), "build/bin/%s", name);
        candidate = strdup(rel);
    }
    path[0] = '\0';
    if (candidate && access(candidate, X_OK) == 0 && realpath(candidate, resolved))
        snprintf(path, size, "%s", resolved);
    free(candidate);
    return path[0] ? path : NULL;
}
