/*
 * controls.c - the files of a problem directory (see load.h): the standard
 * files, the controls problem.json declares with the verdict each must get,
 * every wrong/ file having an entry, and the languages the files make
 * possible (Triton when starter.py is there).
 */
#include "load.h"

#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "common/error.h"
#include "common/language.h"
#include "common/util.h"
#include "common/verdict.h"
#include "common/banned.h"

#define CONTROL_DEPTH 4 /* path components of a control file */

/* The standard files of every problem directory. */
static const struct {
    const char *name;
    size_t max;
} standard_files[] = {
    {"statement.md", BW_MAX_STATEMENT_BYTES},
    {"starter.cu", BW_MAX_SOURCE_BYTES},
    {"reference.cu", BW_MAX_SOURCE_BYTES},
    {"solution.cu", BW_MAX_SOURCE_BYTES},
};

/* A control key: a plain relative path to a .cu or .py file, components of
 * [A-Za-z0-9._-] that do not start with '.', at most CONTROL_DEPTH deep. */
static bool is_control_path(const char *s)
{
    const char *comp = s;
    int depth = 0;
    enum language lang;

    if (strlen(s) > 255 || !language_of_file(s, &lang))
        return false;
    for (;;) {
        const char *end = strchr(comp, '/');
        size_t n = end ? (size_t)(end - comp) : strlen(comp);
        if (n == 0 || comp[0] == '.' || ++depth > CONTROL_DEPTH)
            return false;
        for (size_t i = 0; i < n; i++) {
            char ch = comp[i];
            if (!((ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z') ||
                  (ch >= '0' && ch <= '9') || ch == '_' || ch == '-' || ch == '.'))
                return false;
        }
        if (!end)
            return true;
        comp = end + 1;
    }
}

/*
 * dir/rel must be a regular file of at most `max` bytes. The message names
 * the file; with a json_path it is reported against problem.json (a control
 * entry), else against the file itself (a standard file).
 */
static int check_file(struct loader *ld, const char *rel, size_t max, const char *limit_name,
                      const char *json_path, const char *missing_hint)
{
    char *full = path_join(ld->p->dir, rel), *why = NULL;
    struct stat st;
    int rc = 0, code = 0, fd;
    char msg[512];

    if (!full)
        return loader_nomem(ld);
    /* opened, not stat'ed: a link anywhere under the directory is refused, a FIFO does not block */
    fd = open_in_dir(ld->p->dir, rel, false, &st, &why);
    if (fd == BW_ERR_NOTFOUND) {
        code = BW_ERR_NOTFOUND;
        snprintf(msg, sizeof(msg), "%s: %s", full, missing_hint);
    } else if (fd < 0) {
        code = fd;
        snprintf(msg, sizeof(msg), "%s", why ? why : full);
    } else if ((uint64_t)st.st_size > max) {
        code = BW_ERR_LIMIT;
        snprintf(msg, sizeof(msg), "%s: %lld bytes, over the limit of %zu (%s)", full,
                 (long long)st.st_size, max, limit_name);
    }
    if (fd >= 0)
        close(fd);
    if (code && json_path)
        rc = json_reader_fail(&ld->r, code, json_path, "%s", msg);
    else if (code)
        rc = bw_fail(ld->cause, code, "%s", msg);
    free(why);
    free(full);
    return rc;
}

int loader_standard_files(struct loader *ld)
{
    int rc;

    for (size_t i = 0; i < sizeof(standard_files) / sizeof(standard_files[0]); i++) {
        const char *limit = standard_files[i].max == BW_MAX_STATEMENT_BYTES
                                ? "BW_MAX_STATEMENT_BYTES"
                                : "BW_MAX_SOURCE_BYTES";
        if ((rc = check_file(ld, standard_files[i].name, standard_files[i].max, limit, NULL,
                             "missing (every problem has statement.md, starter.cu, reference.cu "
                             "and solution.cu)")))
            return rc;
    }
    return 0;
}

static const struct control *find_control(const struct problem *p, const char *file)
{
    for (size_t i = 0; i < p->n_controls; i++)
        if (p->controls[i].file && strcmp(p->controls[i].file, file) == 0)
            return &p->controls[i];
    return NULL;
}

/* Triton is a language of the problem when starter.py is there: then
 * solution.py must be too, Accepted, and both need control entries (as the
 * CUDA pair); a Triton control without starter.py is an error. */
static int load_triton_files(struct loader *ld)
{
    struct problem *p = ld->p;
    const struct control *c;
    char *path = path_join(p->dir, "starter.py");
    struct stat st;
    bool starter;
    int rc;

    if (!path)
        return loader_nomem(ld);
    starter = lstat(path, &st) == 0; /* a link is there, and check_file refuses it */
    free(path);
    p->languages[LANG_CUDA] = true;
    if (!starter) {
        for (size_t i = 0; i < p->n_controls; i++)
            if (p->controls[i].lang == LANG_TRITON)
                return json_reader_fail(
                    &ld->r, BW_ERR_INVALID, "controls",
                    "%s is a Triton control, but the problem has no starter.py (Triton "
                    "needs starter.py and solution.py)",
                    json_quote(p->controls[i].file).s);
        return 0;
    }
    if ((rc = check_file(ld, "starter.py", BW_MAX_SOURCE_BYTES, "BW_MAX_SOURCE_BYTES", NULL,
                         "missing")) ||
        (rc = check_file(ld, "solution.py", BW_MAX_SOURCE_BYTES, "BW_MAX_SOURCE_BYTES", NULL,
                         "missing (a problem with starter.py needs a Triton solution.py)")))
        return rc;
    if (!(c = find_control(p, "solution.py")))
        return json_reader_fail(&ld->r, BW_ERR_INVALID, "controls",
                                "no entry for \"solution.py\" (expected \"Accepted\")");
    if (c->expect != VERDICT_ACCEPTED)
        return json_reader_fail(&ld->r, BW_ERR_INVALID, "controls[\"solution.py\"]",
                                "expects %s (the solution must be Accepted)",
                                verdict_name(c->expect));
    if (!find_control(p, "starter.py"))
        return json_reader_fail(&ld->r, BW_ERR_INVALID, "controls", "no entry for \"starter.py\"");
    p->languages[LANG_TRITON] = true;
    return 0;
}

int loader_controls(struct loader *ld, json_t *v)
{
    struct problem *p = ld->p;
    const struct control *c;
    const char *file;
    json_t *cv;
    size_t i = 0, n;
    int rc;

    if ((rc = json_reader_object(&ld->r, "controls", v)))
        return rc;
    n = json_object_size(v);
    if (n > BW_MAX_CONTROLS)
        return json_reader_fail(&ld->r, BW_ERR_LIMIT, "controls",
                                "%zu entries, over the limit of %d (BW_MAX_CONTROLS)", n,
                                BW_MAX_CONTROLS);
    if (n && !(p->controls = calloc(n, sizeof(*p->controls))))
        return loader_nomem(ld);
    p->n_controls = n;
    json_object_foreach (v, file, cv) {
        struct json_path path = json_path_at("controls", "[%s]", json_quote(file).s);
        struct control *ctl = &p->controls[i++];
        const char *verdict = NULL;

        if (!is_control_path(file))
            return json_reader_fail(
                &ld->r, BW_ERR_INVALID, path.s,
                "not a relative path to a .cu (CUDA) or .py (Triton) file in the problem "
                "directory (letters, digits, '.', '_', '-' and '/', no component starting "
                "with '.')");
        language_of_file(file, &ctl->lang);
        if (strcmp(file, "reference.cu") == 0)
            return json_reader_fail(&ld->r, BW_ERR_INVALID, path.s,
                                    "reference.cu is the reference, not a control");
        if ((rc = json_reader_string(&ld->r, path.s, cv, 0, SIZE_MAX, NULL, &verdict)))
            return rc;
        ctl->expect = verdict_parse(verdict);
        if (ctl->expect == VERDICT_NONE)
            return json_reader_fail(
                &ld->r, BW_ERR_INVALID, path.s,
                "unknown verdict %s (expected a name such as \"Wrong Answer\" or a code "
                "such as \"WA\")",
                json_quote(verdict).s);
        if (ctl->expect == VERDICT_JUDGE_ERROR)
            return json_reader_fail(&ld->r, BW_ERR_INVALID, path.s,
                                    "Judge Error is never an expected verdict");
        if (!(ctl->file = strdup(file)))
            return loader_nomem(ld);
        if ((rc = check_file(ld, file, BW_MAX_SOURCE_BYTES, "BW_MAX_SOURCE_BYTES", path.s,
                             "no such file")))
            return rc;
        if (strncmp(file, "wrong/", 6) == 0 && ctl->expect == VERDICT_ACCEPTED)
            return json_reader_fail(&ld->r, BW_ERR_INVALID, path.s,
                                    "a negative control cannot expect Accepted");
    }
    if (!(c = find_control(p, "solution.cu")))
        return json_reader_fail(&ld->r, BW_ERR_INVALID, "controls",
                                "no entry for \"solution.cu\" (expected \"Accepted\")");
    if (c->expect != VERDICT_ACCEPTED)
        return json_reader_fail(&ld->r, BW_ERR_INVALID, "controls[\"solution.cu\"]",
                                "expects %s (the solution must be Accepted)",
                                verdict_name(c->expect));
    if (!find_control(p, "starter.cu"))
        return json_reader_fail(&ld->r, BW_ERR_INVALID, "controls", "no entry for \"starter.cu\"");
    return load_triton_files(ld);
}

static int compare_names(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

/* Every wrong/NAME.cu needs a control entry (checked in name order). */
int loader_wrong_dir(struct loader *ld)
{
    char *dirpath = path_join(ld->p->dir, "wrong"), *why = NULL;
    char *names[BW_MAX_WRONG_CONTROLS];
    size_t n = 0;
    struct dirent *de;
    DIR *d;
    int rc = 0, fd;

    if (!dirpath)
        return loader_nomem(ld);
    /* no wrong/ is fine; a link or a file named wrong is not */
    fd = open_in_dir(ld->p->dir, "wrong", true, NULL, &why);
    if (fd < 0 || !(d = fdopendir(fd))) {
        if (fd >= 0)
            rc = bw_fail(ld->cause, BW_ERR_IO, "%s: cannot open: %s", dirpath, strerror(errno));
        else if (fd != BW_ERR_NOTFOUND)
            rc = bw_fail(ld->cause, fd, "%s", why);
        if (fd >= 0)
            close(fd);
        free(why);
        goto free_path;
    }
    while ((de = readdir(d))) {
        enum language lang;
        if (de->d_name[0] == '.' || !language_of_file(de->d_name, &lang))
            continue;
        if (n == BW_MAX_WRONG_CONTROLS) {
            rc = bw_fail(ld->cause, BW_ERR_LIMIT,
                         "%s: more than %d .cu and .py files (BW_MAX_WRONG_CONTROLS)", dirpath,
                         BW_MAX_WRONG_CONTROLS);
            goto free_names;
        }
        if (!(names[n] = strdup(de->d_name))) {
            rc = loader_nomem(ld);
            goto free_names;
        }
        n++;
    }
    qsort(names, n, sizeof(names[0]), compare_names);
    for (size_t i = 0; i < n && !rc; i++) {
        struct json_path rel = json_path_at("wrong/", "%s", names[i]);
        if (!find_control(ld->p, rel.s))
            rc = json_reader_fail(
                &ld->r, BW_ERR_INVALID, "controls",
                "no entry for %s (every wrong/*.cu and wrong/*.py needs an expected verdict)",
                json_quote(rel.s).s);
    }
free_names:
    for (size_t i = 0; i < n; i++)
        free(names[i]);
    closedir(d);
free_path:
    free(dirpath);
    return rc;
}
