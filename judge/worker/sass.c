/*
 * sass.c - disassembling cubins and finding opcodes in the listing (see sass.h).
 */
#include "sass.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "common/error.h"
#include "common/util.h"
#include "judge/sandbox/sandbox_job.h"
#include "judge/sandbox/spawn.h"
#include "common/banned.h"

/* ---- finding the tool -------------------------------------------------------------- */

static bool executable(const char *path)
{
    return access(path, X_OK) == 0;
}

static bool named_cuobjdump(const char *path)
{
    const char *base = strrchr(path, '/');
    return strstr(base ? base + 1 : path, "cuobjdump") != NULL;
}

int sass_find_tool(struct sass_tool *out, char **cause)
{
    const char *env = getenv(BW_SASS_TOOL_ENV), *home = getenv("CUDA_HOME");
    const char *dirs[2] = {home && *home ? home : "/usr/local/cuda", "/usr/local/cuda"};
    static const char *const tools[] = {"bin/nvdisasm", "bin/cuobjdump"};

    memset(out, 0, sizeof(*out));
    if (env && *env) {
        if (!executable(env))
            return bw_fail(cause, BW_ERR_NOTFOUND, "%s=%s: not an executable file",
                           BW_SASS_TOOL_ENV, env);
        snprintf(out->path, sizeof(out->path), "%s", env);
        out->cuobjdump = named_cuobjdump(env);
        return BW_OK;
    }
    for (size_t d = 0; d < 2; d++)
        for (size_t t = 0; t < 2; t++) {
            char *path = path_join(dirs[d], tools[t]);
            bool found = path && executable(path);
            if (found) {
                snprintf(out->path, sizeof(out->path), "%s", path);
                out->cuobjdump = t == 1;
            }
            free(path);
            if (found)
                return BW_OK;
        }
    return bw_fail(cause, BW_ERR_NOTFOUND,
                   "no disassembler: neither nvdisasm nor cuobjdump in %s/bin%s%s (set %s)",
                   dirs[0], strcmp(dirs[0], dirs[1]) ? " or " : "",
                   strcmp(dirs[0], dirs[1]) ? dirs[1] : "", BW_SASS_TOOL_ENV);
}

/* ---- running it ------------------------------------------------------------------- */

/* Writes the cubin to dir/kernel.cubin in a new private directory; *dir and *file are *new*. */
static int write_temp_cubin(const void *cubin, size_t len, char **dir, char **file, char **cause)
{
    const char *tmp = getenv("TMPDIR");
    char *tmpl = path_join(tmp && *tmp ? tmp : "/tmp", "bw-sass.XXXXXX");
    int fd, rc = BW_OK;
    size_t done = 0;

    *dir = *file = NULL;
    if (!tmpl)
        return bw_fail(cause, BW_ERR_NOMEM, "out of memory");
    if (!mkdtemp(tmpl)) {
        rc = bw_fail(cause, BW_ERR_IO, "mkdtemp(%s): %s", tmpl, strerror(errno));
        free(tmpl);
        return rc;
    }
    *dir = tmpl;
    if (!(*file = path_join(tmpl, "kernel.cubin")))
        return bw_fail(cause, BW_ERR_NOMEM, "out of memory");
    fd = open(*file, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
    if (fd < 0)
        return bw_fail(cause, BW_ERR_IO, "cannot create %s: %s", *file, strerror(errno));
    while (done < len) {
        ssize_t n = write(fd, (const char *)cubin + done, len - done);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0) {
            rc = bw_fail(cause, BW_ERR_IO, "cannot write %s: %s", *file,
                         n < 0 ? strerror(errno) : "short write");
            break;
        }
        done += (size_t)n;
    }
    close(fd);
    return rc;
}

static void remove_temp(char *dir, char *file)
{
    if (file)
        unlink(file);
    if (dir)
        rmdir(dir);
    free(file);
    free(dir);
}

/* The start of a tool's output, one line, for a message. */
static void shown_output(const struct buf *b, char *out, size_t cap)
{
    size_t o = 0;

    for (size_t i = 0; i < b->len && o + 1 < cap; i++) {
        char c = b->data[i];
        out[o++] = (c == '\n' || c == '\r' || c == '\t') ? ' ' : (c < 0x20 || c == 0x7f ? '?' : c);
    }
    while (o > 0 && out[o - 1] == ' ')
        o--;
    out[o] = '\0';
}

int sass_disassemble(const struct sass_tool *tool, const void *cubin, size_t len, int wall_ms,
                     char **listing, bool *truncated, char **cause)
{
    struct sandbox_limits limits = {
        .cpu_s = BW_SASS_CPU_S,
        .as_bytes = BW_SASS_MEM_BYTES,
        .fsize_bytes = 0,
        .nofile = BW_SASS_NOFILE,
    };
    struct sandbox_job job;
    char *dir = NULL, *file = NULL, shown[BW_SASS_SHOWN_BYTES];
    char *argv[4];
    int rc, argc = 0;

    *listing = NULL;
    *truncated = false;
    rc = write_temp_cubin(cubin, len, &dir, &file, cause);
    if (rc) {
        remove_temp(dir, file);
        return rc;
    }
    argv[argc++] = (char *)tool->path;
    if (tool->cuobjdump)
        argv[argc++] = "--dump-sass";
    argv[argc++] = file;
    argv[argc] = NULL;

    sandbox_job_init(&job, wall_ms > 0 ? wall_ms : BW_SASS_WALL_MS, 0, BW_SASS_OUTPUT_BYTES);
    job.path = tool->path;
    job.argv = argv;
    job.limits = &limits;
    rc = sandbox_job_run(&job, cause);
    if (rc)
        goto out;
    shown_output(&job.output, shown, sizeof(shown));
    if (job.timed_out) {
        rc = bw_fail(cause, BW_ERR_TIMEOUT, "%s did not finish within %d ms", tool->path,
                     job.wall_ms);
    } else if (WIFSIGNALED(job.status)) {
        int sig = WTERMSIG(job.status);
        rc = bw_fail(cause, sig == SIGXCPU || sig == SIGKILL ? BW_ERR_LIMIT : BW_ERR_INVALID,
                     "%s was killed by %s%s", tool->path, spawn_signal_name(sig),
                     sig == SIGXCPU ? " (its CPU time limit)" : "");
    } else if (WEXITSTATUS(job.status) != 0) {
        rc = bw_fail(cause, BW_ERR_INVALID, "%s exited with status %d: %s", tool->path,
                     WEXITSTATUS(job.status), shown[0] ? shown : "(no output)");
    } else {
        *truncated = job.output.len >= BW_SASS_OUTPUT_BYTES;
        *listing = buf_detach(&job.output);
        if (!*listing)
            rc = bw_fail(cause, BW_ERR_NOMEM, "out of memory");
    }
out:
    sandbox_job_release(&job);
    remove_temp(dir, file);
    return rc;
}

/* ---- matching ----------------------------------------------------------------------- */

bool sass_opcode_matches(const char *op, const char *pattern)
{
    size_t lo = strcspn(op, "."), lp = strcspn(pattern, ".");

    if (lo != lp || strncmp(op, pattern, lo) != 0)
        return false;
    op += lo;
    pattern += lp;
    /* Each of the pattern's modifiers, in order, must be one of the opcode's. */
    while (*pattern) {
        size_t want = strcspn(pattern + 1, ".");
        bool found = false;

        while (*op && !found) {
            size_t have = strcspn(op + 1, ".");
            found = have == want && strncmp(op + 1, pattern + 1, want) == 0;
            op += 1 + have;
        }
        if (!found)
            return false;
        pattern += 1 + want;
    }
    return true;
}

/* ---- scanning ------------------------------------------------------------------------ */

static const char *skip_blanks(const char *s)
{
    while (*s == ' ' || *s == '\t')
        s++;
    return s;
}

static bool in_names(const char *name, const char *const *names, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if (strcmp(name, names[i]) == 0)
            return true;
    return false;
}

/* Copies the token at s (up to a blank, ',' or end of line) into out. */
static void token(const char *s, const char *stops, char *out, size_t cap)
{
    size_t n = strcspn(s, stops);
    if (n >= cap)
        n = cap - 1;
    memcpy(out, s, n);
    out[n] = '\0';
}

/* The opcode of an instruction line, or false for other lines. `s` is past the
 * address comment. */
static bool line_opcode(const char *s, char *op, size_t cap)
{
    s = skip_blanks(s);
    if (*s == '{') /* dual-issue braces of older listings */
        s = skip_blanks(s + 1);
    if (*s == '@') { /* a predicate */
        s += strcspn(s, " \t\n");
        s = skip_blanks(s);
    }
    if (!(*s >= 'A' && *s <= 'Z'))
        return false; /* ".byte", ".word": data in a non-code section */
    token(s, " \t\n;", op, cap);
    return true;
}

/* Is this line's start an address comment: blanks, '/', '*', hex digits, '*', '/'? */
static const char *after_address(const char *line)
{
    const char *s = skip_blanks(line);
    size_t digits;

    if (s[0] != '/' || s[1] != '*')
        return NULL;
    s += 2;
    digits = strspn(s, "0123456789abcdefABCDEF");
    if (digits == 0 || s[digits] != '*' || s[digits + 1] != '/')
        return NULL;
    return s + digits + 2;
}

int sass_scan(const char *listing, struct sass_scan *scan, char **cause)
{
    char function[BW_SASS_FUNCTION_BYTES] = "", op[BW_SASS_OPCODE_BYTES];
    bool in_code = false, counted = false;
    const char *line = listing;

    if (scan->n_patterns > BW_MAX_GOAL_PATTERNS || scan->n_kernels > BW_MAX_LAUNCHES)
        return bw_fail(cause, BW_ERR_INVALID, "too many patterns or kernels for one scan");
    memset(scan->matches, 0, sizeof(scan->matches));
    memset(scan->kernel_seen, 0, sizeof(scan->kernel_seen));
    scan->instructions = 0;
    scan->functions = 0;

    while (line && *line) {
        const char *end = strchr(line, '\n'), *s = skip_blanks(line), *rest;
        size_t len = end ? (size_t)(end - s) : strlen(s);
        bool new_function = false;

        if (strncmp(s, ".section", 8) == 0 && (s[8] == ' ' || s[8] == '\t')) {
            char name[BW_SASS_FUNCTION_BYTES];
            token(skip_blanks(s + 8), " \t\n,", name, sizeof(name));
            in_code = strncmp(name, ".text.", 6) == 0 && name[6];
            if (in_code) {
                snprintf(function, sizeof(function), "%s", name + 6);
                new_function = true;
            }
        } else if ((rest = memmem(s, len, "Function : ", 11)) && !after_address(s)) {
            token(skip_blanks(rest + 11), " \t\n", function, sizeof(function));
            in_code = function[0] != '\0';
            new_function = in_code;
        } else if (in_code && counted && (rest = after_address(s)) &&
                   line_opcode(rest, op, sizeof(op))) {
            scan->instructions++;
            for (size_t i = 0; i < scan->n_patterns; i++)
                if (sass_opcode_matches(op, scan->patterns[i]))
                    scan->matches[i]++;
        }
        if (new_function) {
            bool is_entry = in_names(function, scan->entries, scan->n_entries);
            scan->functions++;
            counted =
                !scan->kernels || !is_entry || in_names(function, scan->kernels, scan->n_kernels);
            for (size_t k = 0; scan->kernels && k < scan->n_kernels; k++)
                if (strcmp(function, scan->kernels[k]) == 0)
                    scan->kernel_seen[k] = true;
        }
        line = end ? end + 1 : NULL;
    }
    return BW_OK;
}
