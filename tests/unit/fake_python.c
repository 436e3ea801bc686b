#include "fake_python.h"

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "common/error.h"
#include "common/util.h"
#include "judge/worker/python.h"
#include "judge/worker/triton_compile.h"

#define FAKE_TRITON "tests/fake/triton"

bool fake_python_real(void)
{
    const char *v = getenv("BW_TRITON_REAL");
    return v && strcmp(v, "1") == 0;
}

/* Writes a symbolic link, replacing what is there. */
static bool relink(const char *target, const char *link)
{
    unlink(link);
    return symlink(target, link) == 0;
}

const char *fake_python(void)
{
    static char exe[PATH_MAX + 64];
    static bool made;
    char base[PATH_MAX], root[PATH_MAX], dir[PATH_MAX + 64], cfg[PATH_MAX + 512], fake[PATH_MAX];
    const char *name = getenv("BW_TEST_PYTHON"), *slash, *version;
    char *bin;

    if (fake_python_real())
        return getenv(BW_PYTHON_ENV) ? getenv(BW_PYTHON_ENV) : "python3";
    if (made)
        return exe[0] ? exe : NULL;
    made = true;
    if (!realpath(name ? name : "/usr/bin/python3", base) || access(base, X_OK) != 0 ||
        !realpath(FAKE_TRITON, fake) || !(bin = exe_dir()))
        return NULL;
    slash = strrchr(base, '/');
    version = strstr(slash, "python3.") ? strstr(slash, "python") + 6 : NULL;
    snprintf(root, sizeof(root), "%s/fake-triton-venv", bin);
    free(bin);
    if (!version)
        return NULL;
    snprintf(dir, sizeof(dir), "%s/lib/python%s/site-packages", root, version);
    snprintf(cfg, sizeof(cfg), "%s/triton", dir);
    if (mkdirs(dir, NULL) != BW_OK || !relink(fake, cfg))
        return NULL;
    snprintf(dir, sizeof(dir), "%s/bin", root);
    snprintf(exe, sizeof(exe), "%s/bin/python3", root);
    if (mkdirs(dir, NULL) != BW_OK || !relink(base, exe)) {
        exe[0] = '\0';
        return NULL;
    }
    snprintf(dir, sizeof(dir), "%s/pyvenv.cfg", root);
    snprintf(cfg, sizeof(cfg), "home = %.*s\ninclude-system-site-packages = false\n",
             (int)(slash - base), base);
    if (write_file_atomic(dir, cfg, strlen(cfg), NULL) != BW_OK)
        exe[0] = '\0';
    return exe[0] ? exe : NULL;
}
