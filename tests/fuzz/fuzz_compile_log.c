/*
 * fuzz_compile_log.c - fuzz target of judge/compile's pure parsers: the NVRTC
 * log parsers (diagnostics, ptxas usage, the log cap) and the wire format
 * between compile_run and blockwise-compile (field reader, request decoder).
 * The log comes from a compiler fed hostile source, and the record from a
 * sandboxed child, so neither is trusted.
 *
 * tests/unit/test_compile.c replays tests/fuzz/corpus/compile_log/ through
 * fuzz_compile_log_one() in `make test`. To fuzz (from the repository root):
 *
 *   clang -g -O1 -std=c11 -D_GNU_SOURCE -DBW_FUZZ_MAIN -I. -isystem /usr/local/cuda/include \
 *     -fsanitize=fuzzer,address,undefined -fno-sanitize-recover=undefined \
 *     -o build-fuzz/fuzz_compile_log tests/fuzz/fuzz_compile_log.c judge/worker/compile.c \
 *     wire/compile_wire.c judge/sandbox/sandbox.c judge/sandbox/sandbox_job.c \
 *     judge/sandbox/spawn.c common/diag.c common/expr.c common/dtype.c common/buf.c \
 *     common/error.c common/util.c -lseccomp -lm
 *   build-fuzz/fuzz_compile_log -max_total_time=60 build-fuzz/corpus-compile_log \
 *     tests/fuzz/corpus/compile_log
 *
 * Properties beyond not crashing: every diagnostic is one line starting with
 * its severity, with a non-negative position; at most BW_MAX_DIAGS plus one
 * note; parsing is deterministic; usage names are single lines and counts are
 * non-negative; the capped log is the log itself when short and bounded when
 * long; the wire reader always advances, stays inside the input and ends.
 */
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/buf.h"
#include "common/error.h"
#include "common/limits.h"
#include "judge/worker/compile.h"
#include "plan/directive.h"
#include "common/banned.h"

int fuzz_compile_log_one(const uint8_t *data, size_t size);

#define FAIL(...)                                                                                  \
    do {                                                                                           \
        fprintf(stderr, "fuzz_compile_log: " __VA_ARGS__);                                         \
        fputc('\n', stderr);                                                                       \
        rc = -1;                                                                                   \
        goto done;                                                                                 \
    } while (0)

static bool diag_ok(const struct diag *d)
{
    static const char *const severities[] = {"error: ", "warning: ", "remark: "};

    if (!d->msg || d->line < 0 || d->column < 0 || strchr(d->msg, '\n'))
        return false;
    for (size_t i = 0; i < sizeof(severities) / sizeof(severities[0]); i++)
        if (strncmp(d->msg, severities[i], strlen(severities[i])) == 0)
            return true;
    return false;
}

static bool same_diags(const struct diag_list *a, const struct diag_list *b)
{
    if (a->n != b->n)
        return false;
    for (size_t i = 0; i < a->n; i++)
        if (a->items[i].line != b->items[i].line || a->items[i].column != b->items[i].column ||
            strcmp(a->items[i].msg, b->items[i].msg) != 0)
            return false;
    return true;
}

int fuzz_compile_log_one(const uint8_t *data, size_t size)
{
    struct diag_list d1 = {0}, d2 = {0};
    struct kernel_usage *k = NULL;
    struct compile_job job;
    struct compile_field f;
    size_t n_k = 0, pos = 0, cap = 64 + size % 512;
    struct buf capped;
    char *text = malloc(size + 1), *record = malloc(size + 1);
    int rc = 0, next;

    memset(&job, 0, sizeof(job));
    buf_init(&capped, 4 * size + 1024);
    if (!text || !record) {
        free(text);
        free(record);
        return 0;
    }
    memcpy(text, data, size);
    text[size] = '\0';
    memcpy(record, data, size);
    record[size] = '\0';

    if (compile_log_diags(text, "submission.cu", &d1) != BW_OK ||
        compile_log_diags(text, "submission.cu", &d2) != BW_OK)
        FAIL("compile_log_diags failed");
    if (!same_diags(&d1, &d2))
        FAIL("compile_log_diags is not deterministic");
    if (d1.n > BW_MAX_DIAGS + 1)
        FAIL("%zu diagnostics, over the cap", d1.n);
    for (size_t i = 0; i < d1.n; i++)
        if (!diag_ok(&d1.items[i]))
            FAIL("bad diagnostic %zu: %d:%d \"%s\"", i, d1.items[i].line, d1.items[i].column,
                 d1.items[i].msg ? d1.items[i].msg : "(null)");

    if (compile_log_usage(text, &k, &n_k) != BW_OK)
        FAIL("compile_log_usage failed");
    for (size_t i = 0; i < n_k; i++)
        if (!k[i].name || strchr(k[i].name, '\n') || k[i].registers < 0 || k[i].barriers < 0 ||
            k[i].smem_bytes < 0 || k[i].stack_bytes < 0 || k[i].spill_store_bytes < 0 ||
            k[i].spill_load_bytes < 0 || k[i].cmem0_bytes < 0)
            FAIL("bad usage of kernel %zu", i);

    if (compile_log_cap(text, size, cap, &capped) != BW_OK)
        FAIL("compile_log_cap failed");
    if (size <= cap && (capped.len != size || (size && memcmp(capped.data, text, size) != 0)))
        FAIL("a short log was changed by the cap");
    if (capped.len > 2 * cap + 64)
        FAIL("capped log of %zu bytes for a cap of %zu", capped.len, cap);

    while ((next = compile_wire_next(record, size, &pos, &f, NULL)) == 1) {
        if (pos > size || f.value + f.len > record + size || f.value[f.len] != '\0')
            FAIL("wire field outside the input");
    }
    if (next == 0 && pos > size)
        FAIL("wire end past the input");

    memcpy(record, data, size);
    next = compile_job_decode(&job, record, size, NULL);
    record = NULL; /* stolen by the job, whatever the result */
    if (next == BW_OK) {
        if (!job.rq.source || !job.rq.filename || !job.rq.arch)
            FAIL("decoded request without source, filename or arch");
        if (job.rq.n_options > BW_COMPILE_MAX_OPTIONS)
            FAIL("decoded %zu options", job.rq.n_options);
    }
done:
    compile_job_release(&job);
    free(record);
    compile_usage_free(k, n_k);
    diag_list_release(&d1);
    diag_list_release(&d2);
    buf_release(&capped);
    free(text);
    return rc;
}

#ifdef BW_FUZZ_MAIN
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (fuzz_compile_log_one(data, size) != 0)
        abort();
    return 0;
}
#endif
