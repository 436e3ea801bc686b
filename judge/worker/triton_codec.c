/*
 * triton_codec.c - the judged side of the Triton compile child's protocol
 * (triton_compile.h): a request checked and encoded, and the result record
 * decoded, whole or as it arrives, each build checked before it is given
 * out. The child's side is judge/triton/driver.py (Python: the one side of a
 * boundary that cannot link C); the process that speaks it is
 * triton_compile.c.
 */
#include "triton_compile.h"
#include "triton_codec.h"

#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "compile.h"
#include "common/error.h"
#include "common/limits.h"
#include "common/util.h"
#include "wire/compile_wire.h"
#include "common/banned.h"

#define DEFAULT_CC       90
#define MAX_NUM_STAGES   16
#define FAILURE_BYTES    1024 /* a failure text the driver sends, kept */
#define VERSION_BYTES    128  /* Triton's version string, kept */
#define TRAILING_SCRATCH 2    /* Triton's global and profile scratch pointers */

/* ---- types and requests -------------------------------------------------------------- */

static const char *const dtypes[] = {"i1",   "i8",      "i16",   "i32",     "i64",  "u8",
                                     "u16",  "u32",     "u64",   "fp16",    "bf16", "fp32",
                                     "fp64", "fp8e4nv", "fp8e5", "fp8e4b15"};

static bool is_dtype(const char *s)
{
    for (size_t i = 0; i < sizeof(dtypes) / sizeof(dtypes[0]); i++)
        if (strcmp(s, dtypes[i]) == 0)
            return true;
    return false;
}

bool triton_arg_type_valid(const char *type)
{
    if (!type)
        return false;
    return is_dtype(type[0] == '*' ? type + 1 : type);
}

/* A type the cubin may take: an argument type, or a const pointer "*k..." (annotations). */
static bool build_type_valid(const char *type)
{
    if (strncmp(type, "*k", 2) == 0)
        return is_dtype(type + 2);
    return triton_arg_type_valid(type);
}

static bool is_int_type(const char *type)
{
    return type[0] == 'i' || type[0] == 'u';
}

static int request_cc(const struct triton_request *rq)
{
    return rq->cc_major == 0 && rq->cc_minor == 0 ? DEFAULT_CC : rq->cc_major * 10 + rq->cc_minor;
}

static int check_kernel(const struct triton_kernel_request *k, size_t i, char **cause)
{
    if (!k->kernel || !is_identifier(k->kernel))
        return bw_fail(cause, BW_ERR_INVALID, "kernel %zu: bad kernel name \"%.64s\"", i,
                       k->kernel ? k->kernel : "(null)");
    if (k->n_args > BW_MAX_LAUNCH_ARGS || k->n_constexprs > BW_MAX_LAUNCH_ARGS)
        return bw_fail(cause, BW_ERR_LIMIT,
                       "kernel %s: %zu arguments and %zu constexprs, over BW_MAX_LAUNCH_ARGS (%d)",
                       k->kernel, k->n_args, k->n_constexprs, BW_MAX_LAUNCH_ARGS);
    if ((k->n_args && !k->args) || (k->n_constexprs && !k->constexprs))
        return bw_fail(cause, BW_ERR_INVALID, "kernel %s: arguments missing", k->kernel);
    if (k->num_warps < 1 || k->num_warps > 32 || (k->num_warps & (k->num_warps - 1)))
        return bw_fail(cause, BW_ERR_INVALID,
                       "kernel %s: num_warps=%d (expected 1, 2, 4, 8, 16 or 32)", k->kernel,
                       k->num_warps);
    if (k->num_stages < 1 || k->num_stages > MAX_NUM_STAGES)
        return bw_fail(cause, BW_ERR_INVALID, "kernel %s: num_stages=%d (expected 1 to %d)",
                       k->kernel, k->num_stages, MAX_NUM_STAGES);
    if (k->maxnreg != 0 &&
        (k->maxnreg < BW_TRITON_MAXNREG_MIN || k->maxnreg > BW_TRITON_MAXNREG_MAX))
        return bw_fail(cause, BW_ERR_INVALID,
                       "kernel %s: maxnreg=%d (expected 0, or %d to %d: BW_TRITON_MAXNREG_MIN, "
                       "BW_TRITON_MAXNREG_MAX)",
                       k->kernel, k->maxnreg, BW_TRITON_MAXNREG_MIN, BW_TRITON_MAXNREG_MAX);
    if (k->line < 0)
        return bw_fail(cause, BW_ERR_INVALID, "kernel %s: line %d", k->kernel, k->line);
    for (size_t a = 0; a < k->n_args; a++) {
        const struct triton_arg *arg = &k->args[a];
        if (arg->type && strncmp(arg->type, "tensordesc", 10) == 0)
            return bw_fail(cause, BW_ERR_INVALID,
                           "kernel %s: argument %zu: host-side tensor descriptors are not "
                           "supported",
                           k->kernel, a);
        if (!triton_arg_type_valid(arg->type))
            return bw_fail(cause, BW_ERR_INVALID, "kernel %s: argument %zu: bad type \"%.32s\"",
                           k->kernel, a, arg->type ? arg->type : "(null)");
        if (arg->equal1 && (arg->type[0] == '*' || !is_int_type(arg->type) || arg->div16))
            return bw_fail(cause, BW_ERR_INVALID,
                           "kernel %s: argument %zu: only an integer not divisible by 16 can "
                           "equal 1",
                           k->kernel, a);
    }
    for (size_t c = 0; c < k->n_constexprs; c++) {
        const char *name = k->constexprs[c].name;
        if (!name || !is_identifier(name))
            return bw_fail(cause, BW_ERR_INVALID, "kernel %s: bad constexpr name \"%.64s\"",
                           k->kernel, name ? name : "(null)");
        for (size_t d = 0; d < c; d++)
            if (strcmp(k->constexprs[d].name, name) == 0)
                return bw_fail(cause, BW_ERR_INVALID, "kernel %s: constexpr %s given twice",
                               k->kernel, name);
    }
    return BW_OK;
}

int triton_request_check(const struct triton_request *rq, char **cause)
{
    const char *filename = rq->filename ? rq->filename : BW_TRITON_DEFAULT_FILENAME;
    int rc;

    if (!compile_wire_filename_valid(filename))
        return bw_fail(cause, BW_ERR_INVALID, "bad Triton file name \"%.64s\"", filename);
    if (!rq->source && rq->len)
        return bw_fail(cause, BW_ERR_INVALID, "no source to compile");
    if (rq->cc_major < 0 || rq->cc_major > 15 || rq->cc_minor < 0 || rq->cc_minor > 9 ||
        (request_cc(rq) < 50 && !(rq->cc_major == 0 && rq->cc_minor == 0)))
        return bw_fail(cause, BW_ERR_INVALID, "bad compute capability %d.%d", rq->cc_major,
                       rq->cc_minor);
    if (rq->n_kernels == 0 || !rq->kernels)
        return bw_fail(cause, BW_ERR_INVALID, "a Triton compile request names no kernel");
    if (rq->jobs < 0 || rq->jobs > BW_TRITON_JOBS)
        return bw_fail(cause, BW_ERR_INVALID, "jobs=%d (expected 0 to %d: BW_TRITON_JOBS)",
                       rq->jobs, BW_TRITON_JOBS);
    if (rq->n_kernels > BW_TRITON_MAX_KERNELS)
        return bw_fail(cause, BW_ERR_LIMIT, "%zu kernel variants, over BW_TRITON_MAX_KERNELS (%d)",
                       rq->n_kernels, BW_TRITON_MAX_KERNELS);
    for (size_t i = 0; i < rq->n_kernels; i++)
        if ((rc = check_kernel(&rq->kernels[i], i, cause)))
            return rc;
    return BW_OK;
}

int triton_request_encode(const struct triton_request *rq, struct buf *out, char **cause)
{
    char n[64];
    int rc;

    if ((rc = triton_request_check(rq, cause)))
        return rc;
    rc = compile_wire_puts(out, "filename",
                           rq->filename ? rq->filename : BW_TRITON_DEFAULT_FILENAME);
    rc = rc ? rc : compile_wire_put(out, "source", rq->source ? rq->source : "", rq->len);
    snprintf(n, sizeof(n), "%d", request_cc(rq));
    rc = rc ? rc : compile_wire_puts(out, "cc", n);
    snprintf(n, sizeof(n), "%d", rq->jobs > 0 ? rq->jobs : BW_TRITON_JOBS);
    rc = rc ? rc : compile_wire_puts(out, "jobs", n);
    for (size_t i = 0; i < rq->n_kernels && !rc; i++) {
        const struct triton_kernel_request *k = &rq->kernels[i];
        rc = compile_wire_puts(out, "kernel", k->kernel);
        snprintf(n, sizeof(n), "%d", k->line);
        rc = rc ? rc : compile_wire_puts(out, "line", n);
        snprintf(n, sizeof(n), "%d", k->num_warps);
        rc = rc ? rc : compile_wire_puts(out, "num_warps", n);
        snprintf(n, sizeof(n), "%d", k->num_stages);
        rc = rc ? rc : compile_wire_puts(out, "num_stages", n);
        if (k->maxnreg) {
            snprintf(n, sizeof(n), "%d", k->maxnreg);
            rc = rc ? rc : compile_wire_puts(out, "maxnreg", n);
        }
        for (size_t a = 0; a < k->n_args && !rc; a++) {
            const struct triton_arg *arg = &k->args[a];
            snprintf(n, sizeof(n), "%s %s", arg->type,
                     arg->equal1                         ? "1"
                     : arg->div16 || arg->type[0] == '*' ? "D"
                                                         : "-");
            rc = compile_wire_puts(out, "arg", n);
        }
        for (size_t c = 0; c < k->n_constexprs && !rc; c++) {
            char lit[96], *kv = NULL;
            triton_constexpr_literal(&k->constexprs[c], lit, sizeof(lit));
            if (asprintf(&kv, "%s=%s", k->constexprs[c].name, lit) < 0)
                return bw_fail(cause, BW_ERR_NOMEM, "out of memory");
            rc = compile_wire_puts(out, "constexpr", kv);
            free(kv);
        }
    }
    rc = rc ? rc : compile_wire_end(out);
    if (rc)
        return bw_fail(cause, rc, "cannot encode the Triton compile request: %s", bw_strerror(rc));
    return BW_OK;
}

/* ---- results ------------------------------------------------------------------------------ */

void triton_build_release(struct triton_build *b)
{
    free(b->cubin);
    free(b->ptx);
    free(b->name);
    free(b->params);
    for (size_t i = 0; b->param_types && i < b->n_params; i++)
        free(b->param_types[i]);
    free(b->param_types);
    memset(b, 0, sizeof(*b));
}

void triton_result_release(struct triton_result *r)
{
    for (size_t i = 0; r->builds && i < r->n_builds; i++)
        triton_build_release(&r->builds[i]);
    free(r->builds);
    diag_list_release(&r->diags);
    free(r->log);
    free(r->failure);
    free(r->triton_version);
    memset(r, 0, sizeof(*r));
}

static void *dup_bytes(const void *src, size_t len, size_t extra)
{
    void *p = malloc(len + extra);

    if (p) {
        memcpy(p, src, len);
        memset((char *)p + len, 0, extra);
    }
    return p;
}

bool triton_build_copy(struct triton_build *dst, const struct triton_build *src)
{
    bool ok;

    *dst = *src;
    dst->cubin = dst->ptx = dst->name = NULL;
    dst->params = NULL;
    dst->param_types = NULL;
    dst->n_params = 0;
    if (src->cubin)
        dst->cubin = dup_bytes(src->cubin, src->cubin_len, 1);
    dst->ptx = strdup_or_null(src->ptx);
    dst->name = strdup_or_null(src->name);
    ok = (!src->cubin || dst->cubin) && (!src->ptx || dst->ptx) && (!src->name || dst->name);
    if (ok && src->n_params) {
        dst->params = dup_bytes(src->params, src->n_params * sizeof(*src->params), 0);
        dst->param_types = calloc(src->n_params, sizeof(*dst->param_types));
        ok = dst->params && dst->param_types;
        for (size_t i = 0; ok && i < src->n_params; i++) {
            dst->param_types[i] = strdup_or_null(src->param_types[i]);
            ok = dst->param_types[i] != NULL;
            dst->n_params = i + 1;
        }
    }
    if (!ok)
        triton_build_release(dst);
    return ok;
}

bool triton_result_copy(struct triton_result *dst, const struct triton_result *src)
{
    bool ok = true;

    memset(dst, 0, sizeof(*dst));
    dst->ok = src->ok;
    dst->ms = src->ms;
    dst->driver_ms = src->driver_ms;
    dst->cpu_ms = src->cpu_ms;
    dst->log = strdup_or_null(src->log);
    dst->failure = strdup_or_null(src->failure);
    dst->triton_version = strdup_or_null(src->triton_version);
    ok = (!src->log || dst->log) && (!src->failure || dst->failure) &&
         (!src->triton_version || dst->triton_version);
    for (size_t i = 0; ok && i < src->diags.n; i++)
        ok = diag_list_addf(&dst->diags, src->diags.items[i].line, src->diags.items[i].column, "%s",
                            src->diags.items[i].msg) == BW_OK;
    if (ok && src->n_builds) {
        dst->builds = calloc(src->n_builds, sizeof(*dst->builds));
        ok = dst->builds != NULL;
        for (size_t i = 0; ok && i < src->n_builds; i++) {
            ok = triton_build_copy(&dst->builds[i], &src->builds[i]);
            dst->n_builds = i + (ok ? 1 : 0);
        }
    }
    if (!ok)
        triton_result_release(dst);
    return ok;
}

int triton_result_fail(struct triton_result *out, const char *fmt, ...)
{
    va_list ap;
    char *msg = NULL;
    int n;

    if (out->failure)
        return BW_OK;
    va_start(ap, fmt);
    n = vasprintf(&msg, fmt, ap);
    va_end(ap);
    if (n < 0)
        return BW_ERR_NOMEM;
    out->failure = msg;
    return BW_OK;
}

/* What the decoder has seen of one build. */
struct partial {
    bool reported;  /* a build or failed field named it */
    bool closed;    /* its "built" field came: whole, to be checked and given out now */
    bool delivered; /* final: told to the stream's on_build, never changed or freed after */
    bool has_name, has_cubin, has_ptx, has_warps, has_params, has_types;
    size_t n_types;
    int64_t ptx_params;
};

static bool parse_u64_max(const char *s, uint64_t max, uint64_t *v)
{
    int64_t x;
    if (!parse_i64(s, &x) || x < 0 || (uint64_t)x > max)
        return false;
    *v = (uint64_t)x;
    return true;
}

static bool name_valid(const char *s, size_t len)
{
    if (len == 0 || len > BW_TRITON_NAME_BYTES)
        return false;
    for (size_t i = 0; i < len; i++)
        if (!((s[i] >= 'a' && s[i] <= 'z') || (s[i] >= 'A' && s[i] <= 'Z') ||
              (s[i] >= '0' && s[i] <= '9') || s[i] == '_' || s[i] == '$' || s[i] == '.'))
            return false;
    return true;
}

/* Parses "0,1,3" into a *new* array of indices: strictly increasing, each below n_args. */
static bool parse_params(const char *s, size_t n_args, int **out, size_t *n)
{
    int *v = calloc(n_args ? n_args : 1, sizeof(*v));
    size_t k = 0;
    int64_t last = -1;

    if (!v)
        return false;
    while (*s) {
        char num[16];
        size_t len = strcspn(s, ",");
        int64_t x;
        if (len == 0 || len >= sizeof(num) || k == n_args)
            goto bad;
        memcpy(num, s, len);
        num[len] = '\0';
        if (!parse_i64(num, &x) || x <= last || x >= (int64_t)n_args)
            goto bad;
        v[k++] = (int)x;
        last = x;
        s += len;
        if (*s == ',' && *++s == '\0')
            goto bad;
    }
    *out = v;
    *n = k;
    return true;
bad:
    free(v);
    return false;
}

/* Splits "a,b,c" into a *new* array of *new* strings; false when out of memory or over max. */
static bool split_types(const char *s, size_t max, char ***out, size_t *n)
{
    char **v = calloc(max ? max : 1, sizeof(*v));
    size_t k = 0;

    if (!v)
        return false;
    while (*s) {
        size_t len = strcspn(s, ",");
        if (k == max || len == 0 || !(v[k] = strndup(s, len)))
            goto bad;
        k++;
        s += len;
        if (*s == ',' && *++s == '\0')
            goto bad;
    }
    *out = v;
    *n = k;
    return true;
bad:
    for (size_t i = 0; i < k; i++)
        free(v[i]);
    free(v);
    return false;
}

/* Checks a build once its fields are in; false (with *why) when it is not sound. */
static bool build_sound(const struct triton_build *b, const struct partial *p,
                        const struct triton_kernel_request *k, const char **why)
{
    size_t next = 0;

    if (!p->has_name || !p->has_cubin || !p->has_ptx || !p->has_warps || !p->has_params ||
        !p->has_types) {
        *why = "a build lacks a field";
        return false;
    }
    if (!memmem(b->cubin, b->cubin_len, b->name, strlen(b->name))) {
        *why = "the cubin does not hold its entry's name";
        return false;
    }
    if (p->n_types != b->n_params) {
        *why = "the build's parameter types do not match its parameters";
        return false;
    }
    for (size_t i = 0; i < b->n_params; i++)
        if (!build_type_valid(b->param_types[i])) {
            *why = "a parameter type is not one the judge knows";
            return false;
        }
    /* Only arguments equal to 1 may be folded away. */
    for (size_t a = 0; a < k->n_args; a++) {
        if (next < b->n_params && b->params[next] == (int)a) {
            next++;
            continue;
        }
        if (!k->args[a].equal1) {
            *why = "the build drops an argument that is not a constant 1";
            return false;
        }
    }
    if (p->ptx_params != (int64_t)b->n_params + TRAILING_SCRATCH) {
        *why = "the PTX entry does not take the kept arguments and Triton's two scratch "
               "pointers";
        return false;
    }
    if (b->num_ctas != 1) {
        *why = "the build asks for a thread-block cluster (num_ctas > 1)";
        return false;
    }
    return true;
}

/* Appends a diag field "LINE:COL:MSG" (the driver's), normalised, within the caps. */
static int add_diag(struct triton_result *out, const char *value, size_t len)
{
    int64_t line = 0, column = 0;
    const char *p = value, *msg;
    char num[16];
    size_t n;

    if (out->diags.n >= BW_MAX_DIAGS)
        return BW_OK;
    for (int part = 0; part < 2; part++) {
        n = strcspn(p, ":");
        if (n == 0 || n >= sizeof(num) || p[n] != ':')
            return BW_ERR_PROTOCOL;
        memcpy(num, p, n);
        num[n] = '\0';
        if (!parse_i64(num, part ? &column : &line) || (part ? column : line) < 0 ||
            (part ? column : line) > INT_MAX)
            return BW_ERR_PROTOCOL;
        p += n + 1;
    }
    msg = p;
    n = len - (size_t)(p - value);
    if (n > BW_TRITON_DIAG_BYTES)
        n = BW_TRITON_DIAG_BYTES;
    if (strncmp(msg, "error: ", 7) == 0 || strncmp(msg, "warning: ", 9) == 0 ||
        strncmp(msg, "remark: ", 8) == 0)
        return diag_list_addf(&out->diags, (int)line, (int)column, "%.*s", (int)n, msg);
    return diag_list_addf(&out->diags, (int)line, (int)column, "error: %.*s", (int)n, msg);
}

static bool is_build_key(const char *key)
{
    static const char *const keys[] = {"name",
                                       "cubin",
                                       "ptx",
                                       "num_warps",
                                       "num_ctas",
                                       "shared",
                                       "global_scratch_size",
                                       "global_scratch_align",
                                       "profile_scratch_size",
                                       "params",
                                       "types",
                                       "ptx_params"};
    for (size_t i = 0; i < sizeof(keys) / sizeof(keys[0]); i++)
        if (strcmp(key, keys[i]) == 0)
            return true;
    return false;
}

/* A field every compile's answer may hold (the rest are a caller's own: triton_fields). */
static bool is_compile_key(const char *key)
{
    static const char *const keys[] = {"build", "built",   "failed",   "cached",
                                       "diag",  "failure", "driver_ms"};
    for (size_t i = 0; i < sizeof(keys) / sizeof(keys[0]); i++)
        if (strcmp(key, keys[i]) == 0)
            return true;
    return is_build_key(key);
}

/* The meaning of one field after "accepted"; a message in *bad when it is malformed. */
static int decode_field(const struct compile_field *f, const struct triton_request *rq,
                        struct triton_result *out, struct partial *parts, long *current,
                        const char **bad)
{
    struct triton_build *b = *current >= 0 ? &out->builds[*current] : NULL;
    struct partial *p = *current >= 0 ? &parts[*current] : NULL;
    uint64_t v;

    if (strcmp(f->key, "build") == 0 || strcmp(f->key, "failed") == 0 ||
        strcmp(f->key, "cached") == 0) {
        if (rq->n_kernels == 0 || !parse_u64_max(f->value, rq->n_kernels - 1, &v) ||
            parts[v].reported) {
            *bad = "a build index is out of range or repeated";
            return BW_OK;
        }
        parts[v].reported = true;
        *current = f->key[0] == 'b' ? (long)v : -1;
        return BW_OK;
    }
    if (strcmp(f->key, "built") == 0) {
        if (!b || !parse_u64_max(f->value, rq->n_kernels - 1, &v) || (long)v != *current) {
            *bad = "a built field does not close the build it follows";
            return BW_OK;
        }
        p->closed = true;
        *current = -1;
        return BW_OK;
    }
    if (strcmp(f->key, "diag") == 0) {
        int rc = add_diag(out, f->value, f->len);
        if (rc == BW_ERR_PROTOCOL)
            *bad = "a diagnostic is malformed";
        return rc == BW_ERR_PROTOCOL ? BW_OK : rc;
    }
    if (strcmp(f->key, "failure") == 0)
        return triton_result_fail(out, "%.*s",
                                  (int)(f->len < FAILURE_BYTES ? f->len : FAILURE_BYTES), f->value);
    if (strcmp(f->key, "driver_ms") == 0) {
        if (!parse_double(f->value, &out->driver_ms))
            *bad = "driver_ms is not a number";
        *current = -1;
        return BW_OK;
    }
    if (!is_build_key(f->key)) {
        *bad = "an unknown field";
        return BW_OK;
    }
    if (!b) {
        *bad = "a build field outside a build";
        return BW_OK;
    }
    if (strcmp(f->key, "name") == 0) {
        if (p->has_name || !name_valid(f->value, f->len)) {
            *bad = "a build's entry name is malformed";
            return BW_OK;
        }
        if (!(b->name = strndup(f->value, f->len)))
            return BW_ERR_NOMEM;
        p->has_name = true;
    } else if (strcmp(f->key, "cubin") == 0) {
        if (p->has_cubin || f->len < 4 || memcmp(f->value, "\177ELF", 4) != 0 ||
            f->len > BW_MAX_CUBIN_BYTES) {
            *bad = "a cubin is not an ELF image of at most BW_MAX_CUBIN_BYTES";
            return BW_OK;
        }
        if (!(b->cubin = malloc(f->len + 1)))
            return BW_ERR_NOMEM;
        memcpy(b->cubin, f->value, f->len);
        ((char *)b->cubin)[f->len] = '\0';
        b->cubin_len = f->len;
        p->has_cubin = true;
    } else if (strcmp(f->key, "ptx") == 0) {
        if (p->has_ptx || f->len > BW_MAX_CUBIN_BYTES || memchr(f->value, '\0', f->len)) {
            *bad = "a PTX text is malformed or over BW_MAX_CUBIN_BYTES";
            return BW_OK;
        }
        if (!(b->ptx = strndup(f->value, f->len)))
            return BW_ERR_NOMEM;
        p->has_ptx = true;
    } else if (strcmp(f->key, "num_warps") == 0) {
        /* not a power of 2 for a warp-specialised kernel: every partition's warps */
        if (!parse_u64_max(f->value, 32, &v) || v == 0) {
            *bad = "num_warps is not 1 to 32";
            return BW_OK;
        }
        b->num_warps = (int)v;
        p->has_warps = true;
    } else if (strcmp(f->key, "num_ctas") == 0) {
        if (!parse_u64_max(f->value, 64, &v)) {
            *bad = "num_ctas is malformed";
            return BW_OK;
        }
        b->num_ctas = (int)v;
    } else if (strcmp(f->key, "shared") == 0) {
        if (!parse_u64_max(f->value, BW_TRITON_MAX_SHARED, &v)) {
            *bad = "the shared memory size is malformed or over BW_TRITON_MAX_SHARED";
            return BW_OK;
        }
        b->shared = (int)v;
    } else if (strcmp(f->key, "global_scratch_size") == 0 ||
               strcmp(f->key, "profile_scratch_size") == 0) {
        if (!parse_u64_max(f->value, BW_TRITON_MAX_SCRATCH, &v)) {
            *bad = "a scratch size is malformed or over BW_TRITON_MAX_SCRATCH";
            return BW_OK;
        }
        if (f->key[0] == 'g')
            b->global_scratch_size = v;
        else
            b->profile_scratch_size = v;
    } else if (strcmp(f->key, "global_scratch_align") == 0) {
        if (!parse_u64_max(f->value, 4096, &v) || v == 0 || (v & (v - 1))) {
            *bad = "the scratch alignment is not a power of 2 up to 4096";
            return BW_OK;
        }
        b->global_scratch_align = v;
    } else if (strcmp(f->key, "params") == 0) {
        if (p->has_params ||
            !parse_params(f->value, rq->kernels[*current].n_args, &b->params, &b->n_params)) {
            *bad = "a build's parameter list is malformed";
            return BW_OK;
        }
        p->has_params = true;
    } else if (strcmp(f->key, "types") == 0) {
        if (p->has_types ||
            !split_types(f->value, BW_MAX_LAUNCH_ARGS, &b->param_types, &p->n_types)) {
            *bad = "a build's parameter types are malformed";
            return BW_OK;
        }
        p->has_types = true;
    } else if (!parse_i64(f->value, &p->ptx_params)) { /* ptx_params */
        *bad = "ptx_params is not a number";
    }
    return BW_OK;
}

int triton_decoder_init(struct decoder *d, const struct triton_request *rq,
                        struct triton_result *out, triton_build_fn on_build, void *arg,
                        char **cause)
{
    memset(d, 0, sizeof(*d));
    d->rq = rq;
    d->out = out;
    d->current = -1;
    d->error_code = BW_ERR_PROTOCOL;
    d->on_build = on_build;
    d->arg = arg;
    if (!out->builds) {
        out->builds = calloc(rq->n_kernels ? rq->n_kernels : 1, sizeof(*out->builds));
        if (!out->builds)
            return bw_fail(cause, BW_ERR_NOMEM, "out of memory");
        out->n_builds = rq->n_kernels;
    }
    d->parts = calloc(rq->n_kernels ? rq->n_kernels : 1, sizeof(*d->parts));
    if (!d->parts)
        return bw_fail(cause, BW_ERR_NOMEM, "out of memory");
    for (size_t i = 0; i < rq->n_kernels; i++)
        d->parts[i].ptx_params = -1;
    return BW_OK;
}

void triton_decoder_release(struct decoder *d)
{
    free(d->parts);
    free(d->error);
    free(d->error_step);
    memset(d, 0, sizeof(*d));
}

/* The caller's hook named the request's kernels (a launcher's, once planned): the builds that
 * follow are theirs. Once only, and before any build. */
static int adopt(struct decoder *d, const struct triton_request *rq)
{
    struct triton_build *builds;
    struct partial *parts;

    if (d->rq->n_kernels || d->out->n_builds) {
        d->bad = "the kernels of the answer are named twice";
        return BW_OK;
    }
    builds = calloc(rq->n_kernels ? rq->n_kernels : 1, sizeof(*builds));
    parts = calloc(rq->n_kernels ? rq->n_kernels : 1, sizeof(*parts));
    if (!builds || !parts) {
        free(builds);
        free(parts);
        return BW_ERR_NOMEM;
    }
    for (size_t i = 0; i < rq->n_kernels; i++)
        parts[i].ptx_params = -1;
    free(d->out->builds);
    free(d->parts);
    d->out->builds = builds;
    d->out->n_builds = rq->n_kernels;
    d->parts = parts;
    d->rq = rq;
    return BW_OK;
}

/* Releases build i, and first the types beyond its parameters (triton_build_release frees
 * n_params of them: an answer may have named more). */
static void drop_build(struct decoder *d, size_t i)
{
    struct triton_build *b = &d->out->builds[i];

    for (size_t t = b->n_params; b->param_types && t < d->parts[i].n_types; t++) {
        free(b->param_types[t]);
        b->param_types[t] = NULL;
    }
    triton_build_release(b);
}

/* Gives build i out as it stands (ok or not): once. */
void triton_decoder_deliver(struct decoder *d, size_t i)
{
    if (d->parts[i].delivered)
        return;
    d->parts[i].delivered = true;
    if (d->on_build)
        d->on_build(d->arg, i);
}

/* Checks build i once it is whole; a build that is not sound is the submission's failure. */
static int settle(struct decoder *d, size_t i)
{
    struct triton_build *b = &d->out->builds[i];
    const char *not_sound = NULL;
    bool built = b->name || b->cubin || b->ptx || d->parts[i].has_params;

    if (built && build_sound(b, &d->parts[i], &d->rq->kernels[i], &not_sound)) {
        b->ok = true;
        return BW_OK;
    }
    drop_build(d, i);
    if (built)
        return triton_result_fail(
            d->out, "kernel %s: the Triton compiler's answer is not a sound build: %s",
            d->rq->kernels[i].kernel, not_sound);
    return BW_OK;
}

/* Takes the whole fields of data[d->pos, len): up to "end", a malformed one, or the last whole
 * one. Negative only when out of memory, or for the judge's errors before "accepted". */
int triton_decoder_feed(struct decoder *d, char *data, size_t len, char **cause)
{
    struct compile_field f;
    char *why = NULL;
    int next, rc = BW_OK;

    while (data && !d->stopped && !d->complete) {
        int whole = compile_wire_complete(data, len, d->pos);
        if (whole == 0)
            break;
        next = whole < 0 ? -1 : compile_wire_next(data, len, &d->pos, &f, &why);
        free(why);
        why = NULL;
        if (next < 0) {
            d->stopped = true; /* malformed at the wire level: the record is not complete */
            break;
        }
        if (next == 0) {
            d->complete = true;
            break;
        }
        if (!d->accepted) {
            if (strcmp(f.key, "ready") == 0) {
                free(d->out->triton_version);
                d->out->triton_version =
                    strndup(f.value, f.len < VERSION_BYTES ? f.len : VERSION_BYTES);
                if (!d->out->triton_version)
                    return bw_fail(cause, BW_ERR_NOMEM, "out of memory");
            } else if (strcmp(f.key, "accepted") == 0) {
                d->accepted = true;
            } else if (strcmp(f.key, "error") == 0 || strcmp(f.key, "error_step") == 0) {
                char **to = f.key[5] == '_' ? &d->error_step : &d->error;
                free(*to);
                if (!(*to = strndup(f.value, f.len)))
                    return bw_fail(cause, BW_ERR_NOMEM, "out of memory");
            } else if (strcmp(f.key, "error_code") == 0) {
                if (!parse_i64(f.value, &d->error_code) || d->error_code >= 0 ||
                    d->error_code < -100)
                    d->error_code = BW_ERR_PROTOCOL;
            } else {
                d->stopped = true;
                return bw_fail(
                    cause, BW_ERR_PROTOCOL,
                    "blockwise-triton-compile sent \"%s\" before it accepted the request", f.key);
            }
            continue;
        }
        if (d->own && !is_compile_key(f.key)) {
            struct triton_field_verdict v = {0};
            if ((rc = d->own->field(d->own->arg, &f, &v)) ||
                (v.taken && !v.bad && v.kernels && (rc = adopt(d, v.kernels))))
                return bw_fail(cause, rc, "out of memory reading the Triton compile result");
            d->bad = d->bad ? d->bad : v.bad ? v.bad : v.taken ? NULL : "an unknown field";
            if (v.halt && !d->bad) {
                d->halt = v.halt;
                d->stopped = true;
                break;
            }
            if (d->bad) {
                d->stopped = true;
                break;
            }
            continue;
        }
        bool named = strcmp(f.key, "failed") == 0 || strcmp(f.key, "cached") == 0;
        if ((rc = decode_field(&f, d->rq, d->out, d->parts, &d->current, &d->bad)))
            return bw_fail(cause, rc, "out of memory reading the Triton compile result");
        if (d->bad) {
            d->stopped = true;
            break;
        }
        if (named) { /* "failed I", "cached I": final at once, as not built here */
            uint64_t i;
            if (parse_u64_max(f.value, d->rq->n_kernels - 1, &i)) {
                drop_build(d, (size_t)i);
                triton_decoder_deliver(d, (size_t)i);
            }
        }
        for (size_t i = 0; i < d->rq->n_kernels; i++)
            if (d->parts[i].closed && !d->parts[i].delivered) {
                if ((rc = settle(d, i)))
                    return bw_fail(cause, rc, "out of memory");
                triton_decoder_deliver(d, i);
            }
    }
    return BW_OK;
}

/* The record's end (whole or not): the judge's error before "accepted", or every build not given
 * out yet settled and given out. */
int triton_decoder_finish(struct decoder *d, char **cause)
{
    int rc = BW_OK;

    if (!d->accepted) {
        if (d->error) {
            const char *step = d->error_step ? d->error_step : "?";
            rc = d->error_code == BW_ERR_SANDBOX
                     ? bw_fail(cause, BW_ERR_SANDBOX, "Triton compile sandbox unavailable: %s: %s",
                               step, d->error)
                     : bw_fail(cause, (int)d->error_code, "blockwise-triton-compile: %s: %s", step,
                               d->error);
        }
        /* A record cut short (the child died) is the caller's to explain. */
        return rc;
    }
    /* From here on the record is the submission's: a fault is its failure. A record
     * cut short or broken at the wire level is not complete: the caller explains it
     * with the child's end. A build given out already stays as it was. */
    if (d->bad) {
        d->complete = false;
        if ((rc = triton_result_fail(d->out, "the Triton compiler's answer is malformed: %s",
                                     d->bad)))
            goto nomem;
        for (size_t i = 0; i < d->rq->n_kernels; i++) {
            if (!d->parts[i].delivered)
                drop_build(d, i);
            triton_decoder_deliver(d, i);
        }
        return BW_OK;
    }
    for (size_t i = 0; i < d->rq->n_kernels; i++) {
        if (d->parts[i].delivered)
            continue;
        if ((rc = settle(d, i)))
            goto nomem;
        if (d->complete && !d->out->builds[i].ok && !d->parts[i].reported &&
            (rc = triton_result_fail(d->out, "the Triton compiler said nothing of kernel %s",
                                     d->rq->kernels[i].kernel)))
            goto nomem;
        triton_decoder_deliver(d, i);
    }
    return BW_OK;
nomem:
    return bw_fail(cause, BW_ERR_NOMEM, "out of memory");
}

int triton_result_decode(char *data, size_t len, const struct triton_request *rq,
                         struct triton_result *out, bool *accepted, bool *complete, char **cause)
{
    struct decoder d;
    int rc;

    *accepted = *complete = false;
    if ((rc = triton_decoder_init(&d, rq, out, NULL, NULL, cause)))
        return rc;
    rc = triton_decoder_feed(&d, data, len, cause);
    if (rc == BW_OK && data && !d.complete && !d.stopped)
        d.stopped = true; /* the whole record is here: a field cut short ends it */
    if (rc == BW_OK)
        rc = triton_decoder_finish(&d, cause);
    *accepted = d.accepted;
    *complete = d.complete;
    triton_decoder_release(&d);
    return rc;
}

int triton_result_decode_with(char *data, size_t len, const struct triton_fields *own,
                              struct triton_result *out, bool *accepted, bool *complete,
                              char **cause)
{
    static const struct triton_request none = {0};
    struct decoder d;
    int rc;

    *accepted = *complete = false;
    if ((rc = triton_decoder_init(&d, &none, out, NULL, NULL, cause)))
        return rc;
    d.own = own;
    rc = triton_decoder_feed(&d, data, len, cause);
    if (rc == BW_OK && data && !d.complete && !d.stopped)
        d.stopped = true; /* the whole record is here: a field cut short ends it */
    if (rc == BW_OK)
        rc = triton_decoder_finish(&d, cause);
    if (rc == BW_OK && d.halt)
        rc = triton_result_fail(out, "%s", d.halt) ? bw_fail(cause, BW_ERR_NOMEM, "out of memory")
                                                   : BW_OK;
    *accepted = d.accepted;
    *complete = d.complete;
    triton_decoder_release(&d);
    return rc;
}
