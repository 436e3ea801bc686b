/*
 * triton_launcher.c - a launcher request and its answer (triton_launcher.h).
 */
#include "triton_launcher.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "compile.h"
#include "triton_pool.h"
#include "common/error.h"
#include "common/limits.h"
#include "common/util.h"
#include "wire/compile_wire.h"
#include "common/banned.h"

/* ---- the worker GPU, as a launcher asks about it ------------------------------------ */

/* What torch and Triton report that struct gpu_info does not hold, by compute capability
 * (CUDA C++ Programming Guide, "Compute Capabilities"): shared memory a block may opt in to,
 * an SM's shared memory, an SM's resident threads. Registers are 64K per SM and a warp 32
 * threads on all of them. */
static const struct {
    int cc, smem_optin, smem_sm, threads_sm;
} cc_table[] = {
    {70, 98304, 98304, 2048},   {75, 65536, 65536, 1024},    {80, 166912, 167936, 2048},
    {86, 101376, 102400, 1536}, {87, 166912, 167936, 2048},  {89, 101376, 102400, 1536},
    {90, 232448, 233472, 2048}, {100, 232448, 233472, 2048}, {120, 101376, 102400, 1536},
};

struct device_figures {
    char name[128];
    int cc_major, cc_minor, sm_count, smem_optin, smem_sm, threads_sm, clock_khz;
    unsigned long long memory, l2;
};

/* The figures a launcher sees: the worker's GPU, or an H200's where there is none. */
static void device_figures(const struct triton_launch_request *rq, struct device_figures *d)
{
    const struct gpu_info *g = rq->gpu && rq->gpu->name[0] ? rq->gpu : NULL;
    int major = 9, minor = 0, cc;
    size_t k;

    memset(d, 0, sizeof(*d));
    snprintf(d->name, sizeof(d->name), "%s", g ? g->name : "NVIDIA H200");
    for (char *s = d->name; *s; s++)
        if ((unsigned char)*s < 0x20 || *s == 0x7f)
            *s = ' ';
    if (g && sscanf(g->cc, "%d.%d", &major, &minor) != 2)
        major = 9, minor = 0;
    if (rq->cc_major || rq->cc_minor)
        major = rq->cc_major, minor = rq->cc_minor;
    d->cc_major = major;
    d->cc_minor = minor;
    d->sm_count = g && g->sm_count > 0 ? g->sm_count : 132;
    d->memory = g && g->memory_bytes ? g->memory_bytes : 150ULL << 30;
    d->l2 = g && g->l2_bytes ? g->l2_bytes : 60ULL << 20;
    d->clock_khz = (g && g->max_clock_mhz > 0 ? g->max_clock_mhz : 1980) * 1000;
    cc = major * 10 + minor;
    for (k = 0; k + 1 < sizeof(cc_table) / sizeof(cc_table[0]) && cc_table[k + 1].cc <= cc; k++)
        ;
    d->smem_optin = cc_table[k].smem_optin;
    d->smem_sm = cc_table[k].smem_sm;
    d->threads_sm = cc_table[k].threads_sm;
}

void triton_launch_device(const struct triton_launch_request *rq, char *out, size_t cap)
{
    struct device_figures d;

    device_figures(rq, &d);
    snprintf(out, cap, "name=%s cc=%d.%d sm=%d memory=%llu l2=%llu smem=%d/%d threads=%d clock=%d",
             d.name, d.cc_major, d.cc_minor, d.sm_count, d.memory, d.l2, d.smem_optin, d.smem_sm,
             d.threads_sm, d.clock_khz);
}

/* ---- the request --------------------------------------------------------------------- */

static int putf(struct buf *b, const char *key, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
static int putf(struct buf *b, const char *key, const char *fmt, ...)
{
    va_list ap;
    char *text = NULL;
    int n, rc;

    va_start(ap, fmt);
    n = vasprintf(&text, fmt, ap);
    va_end(ap);
    if (n < 0)
        return BW_ERR_NOMEM;
    rc = compile_wire_put(b, key, text, (size_t)n);
    free(text);
    return rc;
}

static const char *role_word(enum tensor_role r)
{
    return r == ROLE_IN ? "in" : r == ROLE_OUT ? "out" : "inout";
}

/* One case's fields: its name, every tensor's shape, every size and scalar, the scratch cap. */
static int put_case(struct buf *b, const struct problem *p, const struct problem_case *c,
                    size_t index, bool bench, char **cause)
{
    struct plan *pl = malloc(sizeof(*pl));
    int64_t cap = 0;
    int rc;

    if (!pl)
        return bw_fail(cause, BW_ERR_NOMEM, "out of memory");
    /* the scratch cap, evaluated as plan.c does */
    rc = plan_build_tensors(p, c, PLAN_SUBMISSION, pl, &cap, cause);
    free(pl);
    if (rc)
        return rc;
    rc = putf(b, "case", "%zu %s %s", index, bench ? "bench" : "test", c->name);
    for (size_t t = 0; t < p->n_tensors && !rc; t++) {
        struct buf dims;
        buf_init(&dims, 1024);
        rc = buf_addf(&dims, "%s", p->tensors[t].name);
        for (int d = 0; d < p->tensors[t].ndim && !rc; d++) {
            char *why = NULL;
            int64_t v;
            struct expr_binding vars[BW_MAX_SIZES];
            struct expr_scope scope = {vars, p->n_sizes};
            for (size_t s = 0; s < p->n_sizes; s++)
                vars[s] = (struct expr_binding){p->size_names[s], c->sizes[s]};
            if (expr_eval_int(p->tensors[t].shape[d], &scope, &v, &why)) {
                rc = bw_fail(cause, BW_ERR_INTERNAL, "tensor %s for case %s: %s",
                             p->tensors[t].name, c->name, why ? why : "evaluation failed");
                free(why);
                break;
            }
            rc = buf_addf(&dims, " %lld", (long long)v);
        }
        if (!rc)
            rc = compile_wire_put(b, "shape", dims.data, dims.len);
        buf_release(&dims);
    }
    for (size_t s = 0; s < p->n_sizes && !rc; s++)
        rc = putf(b, "value", "%s %lld", p->size_names[s], (long long)c->sizes[s]);
    for (size_t s = 0; s < p->n_scalars && !rc; s++) {
        double v = c->scalars[s];
        const char *n = p->scalars[s].name;
        if (!dtype_is_float(p->scalars[s].dtype))
            rc = v >= 9.2e18 ? putf(b, "value", "%s %llu", n, (unsigned long long)v)
                             : putf(b, "value", "%s %lld", n, (long long)v);
        else if (isnan(v))
            rc = putf(b, "value", "%s nan", n);
        else if (isinf(v))
            rc = putf(b, "value", "%s %s", n, v > 0 ? "inf" : "-inf");
        else
            rc = putf(b, "value", "%s %.17g", n, v);
    }
    if (!rc)
        rc = putf(b, "scratch_limit", "%lld", (long long)cap);
    return rc == BW_ERR_NOMEM ? bw_fail(cause, rc, "out of memory") : rc;
}

int triton_launch_encode(const struct triton_launch_request *rq, struct buf *out, char **cause)
{
    const struct problem *p = rq->p;
    struct device_figures d;
    int rc;

    device_figures(rq, &d);
    rc = compile_wire_puts(out, "filename",
                           rq->filename ? rq->filename : BW_TRITON_DEFAULT_FILENAME);
    rc = rc ? rc : compile_wire_put(out, "source", rq->source ? rq->source : "", rq->len);
    rc = rc ? rc : putf(out, "cc", "%d", d.cc_major * 10 + d.cc_minor);
    rc = rc ? rc
            : putf(out, "jobs", "%d",
                   rq->jobs > 0 && rq->jobs <= BW_TRITON_JOBS ? rq->jobs : BW_TRITON_JOBS);
    rc = rc ? rc : compile_wire_puts(out, "mode", "launch");
    if (rq->record_only)
        rc = rc ? rc : compile_wire_puts(out, "record_only", "1");
    if (rq->tests_only)
        rc = rc ? rc : compile_wire_puts(out, "tests_only", "1");
    if (rq->compile_source)
        rc = rc ? rc : compile_wire_put(out, "compile_source", rq->compile_source, rq->compile_len);
    for (size_t i = 0; i < rq->n_have && !rc; i++)
        rc = compile_wire_puts(out, "have", rq->have[i]);
    rc = rc ? rc : putf(out, "device", "name=%s", d.name);
    rc = rc ? rc : putf(out, "device", "cc_major=%d", d.cc_major);
    rc = rc ? rc : putf(out, "device", "cc_minor=%d", d.cc_minor);
    rc = rc ? rc : putf(out, "device", "sm_count=%d", d.sm_count);
    rc = rc ? rc : putf(out, "device", "total_memory=%llu", d.memory);
    rc = rc ? rc : putf(out, "device", "l2_bytes=%llu", d.l2);
    rc = rc ? rc : putf(out, "device", "max_shared_mem=%d", d.smem_optin);
    rc = rc ? rc : putf(out, "device", "max_shared_mem_sm=%d", d.smem_sm);
    rc = rc ? rc : putf(out, "device", "max_num_regs=%d", 65536);
    rc = rc ? rc : putf(out, "device", "warp_size=%d", 32);
    rc = rc ? rc : putf(out, "device", "max_threads_per_sm=%d", d.threads_sm);
    rc = rc ? rc : putf(out, "device", "sm_clock_khz=%d", d.clock_khz);
    rc = rc ? rc : putf(out, "device", "mem_clock_khz=%d", 0);
    rc = rc ? rc : putf(out, "device", "mem_bus_width=%d", 0);
    rc = rc ? rc
            : putf(out, "limit", "case_ms=%d", rq->case_ms > 0 ? rq->case_ms : BW_LAUNCHER_CASE_MS);
    rc = rc ? rc : putf(out, "limit", "max_launches=%d", BW_MAX_LAUNCHES);
    rc = rc ? rc : putf(out, "limit", "max_scratch=%d", BW_MAX_SCRATCH);
    rc = rc ? rc : putf(out, "limit", "max_configs=%d", BW_MAX_TUNE_CONFIGS);
    rc = rc ? rc : putf(out, "limit", "max_launch_args=%d", BW_MAX_LAUNCH_ARGS);
    rc = rc ? rc : putf(out, "limit", "max_builds=%d", BW_TRITON_MAX_KERNELS);
    for (size_t t = 0; t < p->n_tensors && !rc; t++)
        rc = putf(out, "tensor", "%s %s %s", p->tensors[t].name, dtype_name(p->tensors[t].dtype),
                  role_word(p->tensors[t].role));
    for (size_t s = 0; s < p->n_scalars && !rc; s++)
        rc = putf(out, "scalar", "%s %s", p->scalars[s].name, dtype_name(p->scalars[s].dtype));
    for (size_t s = 0; s < p->n_sizes && !rc; s++)
        rc = compile_wire_puts(out, "size", p->size_names[s]);
    if (rc)
        return bw_fail(cause, rc, "cannot encode the launcher request: %s", bw_strerror(rc));
    for (size_t i = 0; i < p->n_tests + p->n_benchmarks && !rc; i++) {
        bool bench = i >= p->n_tests;
        rc = put_case(out, p, bench ? &p->benchmarks[i - p->n_tests] : &p->tests[i], i, bench,
                      cause);
    }
    if (rc)
        return rc;
    if ((rc = compile_wire_end(out)))
        return bw_fail(cause, rc, "cannot encode the launcher request: %s", bw_strerror(rc));
    return BW_OK;
}

/* ---- the answer ---------------------------------------------------------------------- */

#define KEY_BYTES 4096 /* one variant key: a kernel, 32 arguments and 32 constexpr values */

/* The answer's launcher fields as they are read, and the request the builds answer. */
struct reader {
    struct triton_launch_result *out;
    size_t n_cases;
    const struct triton_launch_stream *st; /* the caller's: on_planned (or NULL) */
    bool planned;                   /* "planned" came: the recording and variants are whole */
    struct triton_request rq;       /* the builds' request, once planned: ks[0..n_keys) */
    struct recorded_plan *plan;     /* the plan being read */
    struct recorded_launch *launch; /* its launch being read */
    const char *bad;                /* why the answer is malformed (the first reason) */
    struct triton_kernel_request ks[BW_TRITON_MAX_KERNELS];
    struct triton_arg args[BW_TRITON_MAX_KERNELS][BW_MAX_LAUNCH_ARGS];
    char types[BW_TRITON_MAX_KERNELS][BW_MAX_LAUNCH_ARGS][16];
    char names[BW_TRITON_MAX_KERNELS][BW_MAX_NAME + 1];
};

static bool is_launch_key(const char *key)
{
    static const char *const keys[] = {
        "record_ms", "record_cases", "record_failed", "configs", "config",    "record", "scratch",
        "launch",    "grid",         "options",       "arg",     "constexpr", "variant"};
    for (size_t i = 0; i < sizeof(keys) / sizeof(keys[0]); i++)
        if (strcmp(key, keys[i]) == 0)
            return true;
    return false;
}

/* Splits `s` (NUL-terminated, modified) at blanks into at most max words (the others NULL);
 * the last one takes the rest when `rest`. Returns the count (max + 1 when there is more). */
static size_t words(char *s, char **w, size_t max, bool rest)
{
    size_t n = 0;

    for (size_t i = 0; i < max; i++)
        w[i] = NULL;
    while (*s && n < max) {
        w[n++] = s;
        if (rest && n == max)
            break;
        s += strcspn(s, " ");
        if (*s)
            *s++ = '\0';
    }
    return *s && !rest ? max + 1 : n;
}

static bool int_in(const char *s, int64_t lo, int64_t hi, int64_t *v)
{
    return parse_i64(s, v) && *v >= lo && *v <= hi;
}

static bool name_ok(const char *s)
{
    return is_identifier(s) && strlen(s) <= BW_MAX_NAME;
}

/* A float as the driver writes it: %.17g, or inf, -inf, nan. */
static bool float_of(const char *s, double *v)
{
    if (strcmp(s, "inf") == 0 || strcmp(s, "-inf") == 0 || strcmp(s, "nan") == 0) {
        *v = strcmp(s, "nan") == 0 ? NAN : s[0] == '-' ? -INFINITY : INFINITY;
        return true;
    }
    return parse_double(s, v);
}

/* A constexpr literal (plan_constexpr_literal's form) into *c; false when malformed. */
static bool literal_of(struct reader *r, const char *s, struct plan_constexpr *c)
{
    size_t n = strlen(s);

    if (strcmp(s, "True") == 0 || strcmp(s, "False") == 0) {
        c->kind = CONSTEXPR_BOOL;
        c->value = s[0] == 'T';
        return true;
    }
    if (strcmp(s, "None") == 0) {
        c->kind = CONSTEXPR_NONE;
        return true;
    }
    if (n >= 2 && s[0] == '\'' && s[n - 1] == '\'') {
        if (n - 2 > BW_LAUNCHER_STR_BYTES)
            return false;
        for (size_t i = 1; i + 1 < n; i++)
            if (!((s[i] >= 'a' && s[i] <= 'z') || (s[i] >= 'A' && s[i] <= 'Z') ||
                  (s[i] >= '0' && s[i] <= '9') || strchr("_ .:+-/", s[i])))
                return false;
        c->kind = CONSTEXPR_STR;
        c->s = recording_string(&r->out->rec, s + 1, n - 2);
        return c->s != NULL;
    }
    if (parse_i64(s, &c->value)) {
        c->kind = CONSTEXPR_INT;
        return true;
    }
    c->kind = CONSTEXPR_FLOAT;
    return strpbrk(s, ".eEn") && float_of(s, &c->f);
}

/* The kernel and the arguments of a variant key, as the request the build answers. */
static bool variant_of_key(struct reader *r, size_t i, const char *key)
{
    const char *open = strchr(key, '('), *close = open ? strchr(open, ')') : NULL;
    struct triton_kernel_request *k = &r->ks[i];
    size_t n = open ? (size_t)(open - key) : 0;

    if (!close || n == 0 || n > BW_MAX_NAME)
        return false;
    memcpy(r->names[i], key, n);
    r->names[i][n] = '\0';
    if (!name_ok(r->names[i]))
        return false;
    memset(k, 0, sizeof(*k));
    k->kernel = r->names[i];
    k->args = r->args[i];
    for (const char *a = open + 1; a < close;) {
        const char *end = memchr(a, ',', (size_t)(close - a)), *colon;
        size_t len = end ? (size_t)(end - a) : (size_t)(close - a);
        if (k->n_args == BW_MAX_LAUNCH_ARGS || !(colon = memchr(a, ':', len)) ||
            (size_t)(colon - a) >= sizeof(r->types[i][0]) || a + len != colon + 2)
            return false;
        memcpy(r->types[i][k->n_args], a, (size_t)(colon - a));
        r->types[i][k->n_args][colon - a] = '\0';
        if (!triton_arg_type_valid(r->types[i][k->n_args]) || !strchr("D1-", colon[1]))
            return false;
        r->args[i][k->n_args] = (struct triton_arg){
            .type = r->types[i][k->n_args], .div16 = colon[1] == 'D', .equal1 = colon[1] == '1'};
        k->n_args++;
        a += len + (end ? 1 : 0);
    }
    return true;
}

/* One launcher field of the answer; sets r->bad when it is malformed. */
static int read_field(struct reader *r, const struct compile_field *f)
{
    struct recording *rec = &r->out->rec;
    char *w[6], *value;
    int64_t a, b, c;

    if (strlen(f->value) != f->len) {
        r->bad = "a launcher field holds a NUL byte";
        return BW_OK;
    }
    if (!(value = strdup(f->value)))
        return BW_ERR_NOMEM;
    if (strcmp(f->key, "record_ms") == 0) {
        if (!parse_double(value, &rec->record_ms))
            r->bad = "record_ms is not a number";
    } else if (strcmp(f->key, "record_cases") == 0) {
        if (!int_in(value, 0, BW_MAX_CASES + BW_MAX_BENCHMARKS, &a))
            r->bad = "record_cases is malformed";
    } else if (strcmp(f->key, "record_failed") == 0) {
        r->out->record_failed = true;
    } else if (strcmp(f->key, "configs") == 0) {
        char *why = NULL;
        double ms = rec->record_ms;
        if (rec->plans || !int_in(value, 1, BW_MAX_TUNE_CONFIGS, &a))
            r->bad = "configs is repeated or outside 1 to BW_MAX_TUNE_CONFIGS";
        else if (recording_init(rec, (size_t)a, r->n_cases, &why))
            r->bad = "the recording cannot be held";
        rec->record_ms = ms;
        free(why);
    } else if (strcmp(f->key, "config") == 0) {
        if (words(value, w, 2, true) < 1 || !rec->plans ||
            !int_in(w[0], 0, (int64_t)rec->n_configs - 1, &a) || rec->config_names[a] ||
            strlen(w[1] ? w[1] : "") >= BW_LAUNCHER_CONFIG_NAME)
            r->bad = "a configuration's name is malformed";
        else if (!(rec->config_names[a] = strdup(w[1] ? w[1] : "")))
            goto nomem;
    } else if (strcmp(f->key, "record") == 0) {
        if (words(value, w, 2, false) != 2 || !rec->plans ||
            !int_in(w[0], 0, (int64_t)rec->n_configs - 1, &a) ||
            !int_in(w[1], 0, (int64_t)rec->n_cases - 1, &b) ||
            recording_plan(rec, (size_t)a, (size_t)b)->present)
            r->bad = "a recorded plan's configuration or case is out of range or repeated";
        else {
            r->plan = recording_plan(rec, (size_t)a, (size_t)b);
            r->plan->present = true;
            r->launch = NULL;
        }
    } else if (strcmp(f->key, "scratch") == 0) {
        struct recorded_scratch *s;
        if (!r->plan || r->plan->n_launches || r->plan->n_scratch == BW_MAX_SCRATCH ||
            words(value, w, 4, false) != 4 || !name_ok(w[0]) ||
            dtype_parse(w[1]) == DTYPE_INVALID || !int_in(w[2], 1, INT64_MAX, &a) ||
            !int_in(w[3], 0, INT32_MAX, &b)) {
            r->bad = "a recorded buffer is malformed";
        } else {
            s = &r->plan->scratch[r->plan->n_scratch++];
            s->dtype = dtype_parse(w[1]);
            s->count = a;
            s->line = (int)b;
            if (!(s->name = recording_string(rec, w[0], strlen(w[0]))))
                r->bad = "too many names in the recording";
        }
    } else if (strcmp(f->key, "launch") == 0) {
        struct recorded_plan *pl = r->plan;
        if (!pl || pl->n_launches == BW_MAX_LAUNCHES || words(value, w, 2, false) != 2 ||
            !name_ok(w[0]) || !int_in(w[1], 0, INT32_MAX, &a)) {
            r->bad = "a recorded launch is malformed or one too many";
        } else {
            if (!pl->launches && !(pl->launches = calloc(BW_MAX_LAUNCHES, sizeof(*pl->launches))))
                goto nomem;
            r->launch = &pl->launches[pl->n_launches++];
            r->launch->line = (int)a;
            r->launch->num_warps = 4;
            r->launch->num_stages = 3;
            if (!(r->launch->kernel = recording_string(rec, w[0], strlen(w[0]))))
                r->bad = "too many names in the recording";
        }
    } else if (strcmp(f->key, "grid") == 0) {
        if (!r->launch || words(value, w, 3, false) != 3 || !int_in(w[0], 0, UINT32_MAX, &a) ||
            !int_in(w[1], 0, UINT32_MAX, &b) || !int_in(w[2], 0, UINT32_MAX, &c))
            r->bad = "a recorded grid is malformed";
        else {
            r->launch->grid[0] = (uint32_t)a;
            r->launch->grid[1] = (uint32_t)b;
            r->launch->grid[2] = (uint32_t)c;
        }
    } else if (strcmp(f->key, "options") == 0) {
        if (!r->launch || words(value, w, 3, false) != 3 || !int_in(w[0], 0, 1024, &a) ||
            !int_in(w[1], 0, 1024, &b) || !int_in(w[2], 0, 1024, &c))
            r->bad = "recorded options are malformed";
        else {
            r->launch->num_warps = (int)a;
            r->launch->num_stages = (int)b;
            r->launch->maxnreg = (int)c;
        }
    } else if (strcmp(f->key, "arg") == 0) {
        struct recorded_launch *L = r->launch;
        struct recorded_arg *ra;
        size_t nw = words(value, w, 4, false);
        if (!L || L->n_args == BW_MAX_LAUNCH_ARGS || nw < 2) {
            r->bad = "a recorded argument is malformed or one too many";
            goto out;
        }
        if (!L->args && !(L->args = calloc(BW_MAX_LAUNCH_ARGS, sizeof(*L->args))))
            goto nomem;
        ra = &L->args[L->n_args];
        if (strcmp(w[0], "buf") == 0 && nw == 4 && name_ok(w[1]) &&
            int_in(w[2], 0, INT64_MAX, &a) && int_in(w[3], 0, INT64_MAX, &b)) {
            ra->kind = RECORDED_BUF;
            ra->offset = a;
            ra->span = b;
            if (!(ra->buf = recording_string(rec, w[1], strlen(w[1]))))
                r->bad = "too many names in the recording";
        } else if (strcmp(w[0], "int") == 0 && nw == 2 && parse_i64(w[1], &a)) {
            ra->kind = RECORDED_INT;
            ra->i = a;
        } else if (strcmp(w[0], "int") == 0 && nw == 2 && w[1][0] != '-' &&
                   strspn(w[1], "0123456789") == strlen(w[1]) && strlen(w[1]) <= 20 &&
                   strtoull(w[1], NULL, 10) > (unsigned long long)INT64_MAX &&
                   (strlen(w[1]) < 20 || strcmp(w[1], "18446744073709551615") <= 0)) {
            ra->kind = RECORDED_INT;
            ra->u64 = true;
            ra->i = (int64_t)strtoull(w[1], NULL, 10);
        } else if (strcmp(w[0], "float") == 0 && nw == 2 && float_of(w[1], &ra->f)) {
            ra->kind = RECORDED_FLOAT;
        } else {
            r->bad = "a recorded argument is malformed";
            goto out;
        }
        L->n_args++;
    } else if (strcmp(f->key, "constexpr") == 0) {
        struct recorded_launch *L = r->launch;
        char *eq = strchr(value, '=');
        struct plan_constexpr *cx;
        if (!L || L->n_constexprs == BW_MAX_LAUNCH_ARGS || !eq) {
            r->bad = "a recorded constexpr is malformed or one too many";
            goto out;
        }
        *eq = '\0';
        if (!L->constexprs && !(L->constexprs = calloc(BW_MAX_LAUNCH_ARGS, sizeof(*L->constexprs))))
            goto nomem;
        cx = &L->constexprs[L->n_constexprs];
        memset(cx, 0, sizeof(*cx));
        if (!name_ok(value) || !(cx->name = recording_string(rec, value, strlen(value))) ||
            !literal_of(r, eq + 1, cx)) {
            r->bad = "a recorded constexpr is malformed";
            goto out;
        }
        L->n_constexprs++;
    } else if (strcmp(f->key, "variant") == 0) {
        struct triton_launch_result *o = r->out;
        if (words(value, w, 2, true) != 2 || !int_in(w[0], 0, BW_TRITON_MAX_KERNELS - 1, &a) ||
            (size_t)a != o->n_keys || strlen(w[1]) >= KEY_BYTES ||
            !variant_of_key(r, (size_t)a, w[1])) {
            r->bad = "a variant is malformed, out of order or one too many";
            goto out;
        }
        if (!o->keys && !(o->keys = calloc(BW_TRITON_MAX_KERNELS, sizeof(*o->keys))))
            goto nomem;
        if (!(o->keys[o->n_keys] = strdup(w[1])))
            goto nomem;
        o->n_keys++;
    }
out:
    free(value);
    return BW_OK;
nomem:
    free(value);
    return BW_ERR_NOMEM;
}

/* The answer's fields that are the launcher's (triton_fields): the recording, the variants,
 * "planned" (the builds' request known: the caller's on_planned sees the whole recording). */
static int own_field(void *arg, const struct compile_field *f, struct triton_field_verdict *v)
{
    struct reader *r = arg;
    struct triton_launch_result *o = r->out;
    int64_t n;
    int rc;

    if (strcmp(f->key, "planned") == 0) {
        v->taken = true;
        if (r->planned || strlen(f->value) != f->len ||
            !int_in(f->value, 0, BW_TRITON_MAX_KERNELS, &n) || (size_t)n != o->n_keys ||
            o->rec.n_configs == 0 || o->record_failed) {
            v->bad = "planned does not follow the recording and its variants";
            return BW_OK;
        }
        r->planned = true;
        r->plan = NULL;
        r->launch = NULL;
        r->rq.kernels = r->ks;
        r->rq.n_kernels = o->n_keys;
        v->kernels = &r->rq;
        if (r->st && r->st->on_planned)
            v->halt = r->st->on_planned(r->st->arg, o);
        return BW_OK;
    }
    if (!is_launch_key(f->key))
        return BW_OK; /* not taken: an unknown field */
    v->taken = true;
    if (r->planned) {
        v->bad = "a launcher field after the plans were whole";
        return BW_OK;
    }
    if ((rc = read_field(r, f)))
        return rc;
    v->bad = r->bad;
    return BW_OK;
}

/* A reader of an answer for n_cases cases into *out (zeroed first); NULL when out of memory. */
static struct reader *reader_new(struct triton_launch_result *out, size_t n_cases,
                                 const struct triton_launch_stream *st)
{
    struct reader *r = calloc(1, sizeof(*r));

    memset(out, 0, sizeof(*out));
    if (r) {
        r->out = out;
        r->n_cases = n_cases;
        r->st = st;
    }
    return r;
}

/* The answer's end: a malformed launcher part fails every build. */
static int reader_finish(struct reader *r, char **cause)
{
    struct triton_launch_result *out = r->out;

    if (r->bad && !out->compiled.failure) {
        if (asprintf(&out->compiled.failure, "the Triton compiler's answer is malformed: %s",
                     r->bad) < 0) {
            out->compiled.failure = NULL;
            return bw_fail(cause, BW_ERR_NOMEM, "out of memory reading the launcher's answer");
        }
        for (size_t i = 0; i < out->compiled.n_builds; i++)
            out->compiled.builds[i].ok = false;
    }
    return BW_OK;
}

int triton_launch_decode(char *data, size_t len, size_t n_cases, struct triton_launch_result *out,
                         bool *accepted, bool *complete, char **cause)
{
    struct reader *r = reader_new(out, n_cases, NULL);
    struct triton_fields own = {own_field, r};
    int rc;

    *accepted = *complete = false;
    if (!r)
        return bw_fail(cause, BW_ERR_NOMEM, "out of memory");
    rc = triton_result_decode_with(data, len, &own, &out->compiled, accepted, complete, cause);
    if (rc == BW_OK)
        rc = reader_finish(r, cause);
    free(r);
    return rc;
}

/* ---- the whole exchange -------------------------------------------------------------- */

int triton_launch_run(const struct triton_launch_request *rq, const struct triton_launch_stream *st,
                      struct triton_launch_result *out, char **cause)
{
    struct triton_options o = {
        .python = rq->python, .compiler = rq->compiler, .no_sandbox = rq->no_sandbox};
    struct reader *r = reader_new(out, rq->p->n_tests + rq->p->n_benchmarks, st);
    struct triton_fields own = {own_field, r};
    struct triton_stream stream = {.on_build = st ? st->on_build : NULL,
                                   .arg = st ? st->arg : NULL,
                                   .cancel_fd = st ? st->cancel_fd : -1};
    struct triton_launch_request shared = *rq; /* with a pool, its share of the CPUs as jobs */
    struct triton_compiler *c = NULL;
    struct buf req;
    double t0 = now_ms();
    int rc;

    if (rq->pool)
        shared.jobs = triton_pool_share(rq->pool);
    buf_init(&req, BW_MAX_MESSAGE_BYTES);
    if (!r) {
        rc = bw_fail(cause, BW_ERR_NOMEM, "out of memory");
        goto release;
    }
    if ((rc = triton_launch_encode(&shared, &req, cause)))
        goto release;
    if ((rc = rq->pool ? triton_pool_take(rq->pool, &c, cause)
                       : triton_compiler_start(&o, &c, cause)))
        goto release;
    out->wait_ms = now_ms() - t0;
    rc = triton_compiler_exchange(c, &req, rq->source, rq->len, rq->wall_ms, &own, &stream,
                                  &out->compiled, cause);
    if (rc == BW_OK)
        rc = reader_finish(r, cause);
    out->compiled.ms = now_ms() - t0;
release:
    if (rq->pool)
        triton_pool_unshare(rq->pool);
    triton_compiler_free(c);
    buf_release(&req);
    free(r);
    return rc;
}

void triton_launch_result_release(struct triton_launch_result *r)
{
    recording_release(&r->rec);
    triton_result_release(&r->compiled);
    for (size_t i = 0; r->keys && i < r->n_keys; i++)
        free(r->keys[i]);
    free(r->keys);
    memset(r, 0, sizeof(*r));
}

int triton_launch_find(const struct triton_launch_result *r, const char *key)
{
    for (size_t i = 0; i < r->n_keys; i++)
        if (strcmp(r->keys[i], key) == 0)
            return (int)i;
    return -1;
}
