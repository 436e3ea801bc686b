/*
 * triton_install.c - where Triton is (triton_install.h), and triton_probe().
 */
#include "triton_install.h"

#include <errno.h>
#include <limits.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "python.h"
#include "compile.h"
#include "triton_compile.h"
#include "common/error.h"
#include "common/limits.h"
#include "common/util.h"
#include "judge/sandbox/sandbox_job.h"
#include "common/banned.h"

#define COMPILER_NAME "blockwise-triton-compile"
#define VERSION_BYTES 128 /* Triton's version string, kept */

/* ---- finding the programs --------------------------------------------------------------- */

int triton_find_python(const char *python, char **out, char **cause)
{
    return python_find(python, "Triton", out, cause);
}

/* blockwise-triton-compile: as given, $BLOCKWISE_TRITON_COMPILE, or beside us (*new*). */
int triton_find_compiler(const char *compiler, char **out, char **cause)
{
    const char *env = getenv(BW_TRITON_COMPILE_ENV);
    char *dir;

    if (compiler && *compiler)
        *out = strdup(compiler);
    else if (env && *env)
        *out = strdup(env);
    else if ((dir = exe_dir())) {
        *out = path_join(dir, COMPILER_NAME);
        free(dir);
    } else {
        return bw_fail(cause, BW_ERR_SYSTEM, "cannot locate %s", COMPILER_NAME);
    }
    if (!*out)
        return bw_fail(cause, BW_ERR_NOMEM, "out of memory");
    if (access(*out, X_OK) != 0) {
        int e = errno;
        int rc =
            bw_fail(cause, BW_ERR_NOTFOUND, "no %s at %s: %s", COMPILER_NAME, *out, strerror(e));
        free(*out);
        *out = NULL;
        return rc;
    }
    return BW_OK;
}

/* ---- the installation: discovered once per Python ---------------------------------------- */

static pthread_mutex_t layouts_lock = PTHREAD_MUTEX_INITIALIZER;
static struct triton_layout *layouts; /* kept for the process's life */

static void layout_free(struct triton_layout *l)
{
    if (!l)
        return;
    for (size_t i = 0; i < l->n_paths; i++)
        free(l->paths[i]);
    free(l->paths);
    free(l->key);
    free(l->python);
    free(l->version);
    free(l);
}

/* A path the probe may name: absolute, no "..", no control bytes. */
static bool path_valid(const char *s, size_t len)
{
    if (len < 2 || len >= PATH_MAX || s[0] != '/' || memchr(s, '\0', len))
        return false;
    for (size_t i = 0; i < len; i++)
        if ((unsigned char)s[i] < 0x20 || s[i] == 0x7f)
            return false;
    for (const char *p = s; (p = strstr(p, "..")); p += 2)
        if ((p == s || p[-1] == '/') && (p[2] == '/' || p[2] == '\0'))
            return false;
    return true;
}

static int parse_probe(struct sandbox_job *job, struct triton_layout *l, char **cause)
{
    char *data = job->result.data, *why = NULL;
    const char *error = NULL, *error_step = "?";
    int64_t error_code = BW_ERR_NOTFOUND;
    struct compile_field f;
    size_t pos = 0;
    int next, rc = BW_OK;

    l->paths = calloc(BW_TRITON_MAX_BINDS, sizeof(*l->paths));
    if (!l->paths)
        return bw_fail(cause, BW_ERR_NOMEM, "out of memory");
    while (data && (next = compile_wire_next(data, job->result.len, &pos, &f, &why)) == 1) {
        if (strcmp(f.key, "error") == 0) {
            error = f.value;
        } else if (strcmp(f.key, "error_step") == 0) {
            error_step = f.value;
        } else if (strcmp(f.key, "error_code") == 0) {
            if (!parse_i64(f.value, &error_code) || error_code >= 0 || error_code < -100)
                error_code = BW_ERR_NOTFOUND;
        } else if (strcmp(f.key, "version") == 0) {
            free(l->version);
            if (!(l->version = strndup(f.value, f.len < VERSION_BYTES ? f.len : VERSION_BYTES)))
                return bw_fail(cause, BW_ERR_NOMEM, "out of memory");
        } else if (strcmp(f.key, "python") == 0 || strcmp(f.key, "path") == 0) {
            bool is_python = f.key[1] == 'y';
            if (!path_valid(f.value, f.len)) {
                rc = bw_fail(cause, BW_ERR_PROTOCOL, "the Triton probe named a bad path \"%.200s\"",
                             f.value);
                goto release;
            }
            if (!is_python && l->n_paths == BW_TRITON_MAX_BINDS) {
                rc = bw_fail(cause, BW_ERR_LIMIT,
                             "the Python + Triton installation needs more than "
                             "BW_TRITON_MAX_BINDS (%d) paths",
                             BW_TRITON_MAX_BINDS);
                goto release;
            }
            if (is_python) {
                free(l->python);
                l->python = strdup(f.value);
            } else {
                l->paths[l->n_paths] = strdup(f.value);
            }
            if (!(is_python ? l->python : l->paths[l->n_paths++]))
                return bw_fail(cause, BW_ERR_NOMEM, "out of memory");
        } else {
            rc = bw_fail(cause, BW_ERR_PROTOCOL, "the Triton probe sent an unknown field \"%s\"",
                         f.key);
            goto release;
        }
    }
    if (error) {
        rc = bw_fail(cause, error_code == BW_ERR_SANDBOX ? BW_ERR_NOTFOUND : (int)error_code,
                     "Triton is not usable with %s: %s: %s", l->key, error_step, error);
        goto release;
    }
    if (!data || next != 0 || !l->python || !l->version) {
        const char *output = job->output.data ? job->output.data : "";
        size_t n = strlen(output);
        if (job->timed_out)
            rc = bw_fail(cause, BW_ERR_NOTFOUND,
                         "Triton is not usable with %s: the probe took "
                         "over %d s",
                         l->key, job->wall_ms / 1000);
        else
            rc = bw_fail(cause, BW_ERR_NOTFOUND,
                         "Triton is not usable with %s: the probe ended (status %#x) without an "
                         "answer: %s",
                         l->key, job->status, output + (n > 400 ? n - 400 : 0));
    }
release:
    free(why);
    return rc;
}

/* Runs the probe for the Python `key` (unsandboxed: trusted code only). */
static int discover(const char *key, const char *compiler, struct triton_layout **out, char **cause)
{
    struct triton_layout *l = calloc(1, sizeof(*l));
    struct sandbox_job job;
    char parent[32], python[PATH_MAX + 16], cpu[32], mem[48];
    char *env[3] = {NULL, NULL, NULL}, *argv[8];
    const char *path = getenv("PATH"), *home = getenv("HOME");
    int rc, n_env = 0;

    if (!l || !(l->key = strdup(key))) {
        free(l);
        return bw_fail(cause, BW_ERR_NOMEM, "out of memory");
    }
    /* The judge's PATH and HOME only: a Python shim (pyenv) may need them; TRITON_* never. */
    if (path && asprintf(&env[n_env], "PATH=%s", path) >= 0)
        n_env++;
    if (home && asprintf(&env[n_env], "HOME=%s", home) >= 0)
        n_env++;
    snprintf(parent, sizeof(parent), "--parent=%ld", (long)getpid());
    snprintf(python, sizeof(python), "--python=%s", key);
    snprintf(cpu, sizeof(cpu), "--cpu-s=%d", BW_TRITON_CPU_S);
    snprintf(mem, sizeof(mem), "--mem-bytes=%llu", (unsigned long long)BW_TRITON_MEM_BYTES);
    argv[0] = (char *)compiler;
    argv[1] = parent;
    argv[2] = "--probe";
    argv[3] = python;
    argv[4] = cpu;
    argv[5] = mem;
    argv[6] = NULL;
    sandbox_job_init(&job, BW_TRITON_PROBE_MS, BW_TRITON_PROBE_BYTES, BW_TRITON_OUTPUT_BYTES);
    job.path = compiler;
    job.argv = argv;
    job.env = env;
    if ((rc = sandbox_job_run(&job, cause)))
        goto release;
    rc = parse_probe(&job, l, cause);
release:
    sandbox_job_release(&job);
    for (int i = 0; i < n_env; i++)
        free(env[i]);
    if (rc) {
        layout_free(l);
        return rc;
    }
    *out = l;
    return BW_OK;
}

/* The layout for a Python (borrowed: kept for the process's life), discovering it once. */
int triton_layout_get(const char *python, const char *compiler, const struct triton_layout **out,
                      char **cause)
{
    struct triton_layout *l;
    int rc = BW_OK;

    pthread_mutex_lock(&layouts_lock);
    for (l = layouts; l && strcmp(l->key, python) != 0; l = l->next)
        ;
    if (!l && (rc = discover(python, compiler, &l, cause)) == BW_OK) {
        l->next = layouts;
        layouts = l;
    }
    pthread_mutex_unlock(&layouts_lock);
    if (rc == BW_OK)
        *out = l;
    return rc;
}

int triton_probe(const char *python, char **version, char **cause)
{
    const struct triton_layout *l;
    char *py = NULL, *compiler = NULL;
    int rc;

    if ((rc = triton_find_python(python, &py, cause)))
        return rc;
    if ((rc = triton_find_compiler(NULL, &compiler, cause)))
        goto release;
    if ((rc = triton_layout_get(py, compiler, &l, cause)))
        goto release;
    if (version && !(*version = strdup(l->version)))
        rc = bw_fail(cause, BW_ERR_NOMEM, "out of memory");
release:
    free(py);
    free(compiler);
    return rc;
}
