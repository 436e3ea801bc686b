/*
 * compare_bench.c - throughput of the trusted output comparison
 * (judge/worker/compare.c), which runs on the CPU for every test case: P1's tests
 * alone compare 63 million elements, so it is part of the verdict latency.
 * Prints ns per element for fp32, fp16 and fp64 outputs with a tolerance and
 * for an exact fp32 output (P1's rule), median of 5 runs each, in one thread
 * and as compare_output splits it over this machine's CPUs.
 *
 *   build/tests/compare_bench [ELEMENTS]     (default 25,000,000)
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

#include "common/dtype.h"
#include "judge/worker/compare.h"

static double now_ns(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec * 1e9 + (double)t.tv_nsec;
}

static int by_value(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* Median ns per element of 5 comparisons with `threads` parts (0: as the judge does). */
static double median_ns(struct compare_spec s, const void *got, const double *ref, int64_t n,
                        int threads)
{
    double ns[5];
    struct compare_report r;
    for (int k = 0; k < 5; k++) {
        double t0 = now_ns();
        int rc = threads ? compare_output_threads(&s, got, ref, NULL, n, threads, &r, NULL)
                         : compare_output(&s, got, ref, NULL, n, &r, NULL);
        if (rc != 0 || r.mismatches != 0)
            return -1;
        ns[k] = (now_ns() - t0) / (double)n;
    }
    qsort(ns, 5, sizeof(ns[0]), by_value);
    return ns[2];
}

static void run(const char *name, struct compare_spec s, const void *got, const double *ref,
                int64_t n)
{
    double one = median_ns(s, got, ref, n, 1), all = median_ns(s, got, ref, n, 0);
    if (one < 0 || all < 0) {
        printf("%-14s failed: mismatches on equal data\n", name);
        return;
    }
    printf("%-14s one thread %6.2f ns/element (%4.0f M/s); as judged (%ld CPUs) %6.2f ns/element "
           "(%4.0f M/s)\n",
           name, one, 1e3 / one, sysconf(_SC_NPROCESSORS_ONLN), all, 1e3 / all);
}

int main(int argc, char **argv)
{
    int64_t n = argc > 1 ? strtoll(argv[1], NULL, 10) : 25000000;
    if (n <= 0) {
        fprintf(stderr, "usage: compare_bench [ELEMENTS > 0]\n");
        return 2;
    }
    unsigned char *got = malloc((size_t)n * 8);
    double *ref = malloc((size_t)n * sizeof(double));
    if (!got || !ref) {
        fprintf(stderr, "compare_bench: out of memory for %" PRId64 " elements\n", n);
        return 1;
    }
    static const struct {
        const char *name;
        enum dtype t;
        bool exact;
    } cases[] = {{"fp32, tolerance", DTYPE_FP32, false},
                 {"fp16, tolerance", DTYPE_FP16, false},
                 {"fp64, tolerance", DTYPE_FP64, false},
                 {"fp32, exact", DTYPE_FP32, true}};
    for (size_t c = 0; c < sizeof(cases) / sizeof(cases[0]); c++) {
        size_t size = dtype_size(cases[c].t);
        for (int64_t i = 0; i < n; i++) {
            ref[i] = dtype_round(cases[c].t, (double)(i % 1000) * 0.001 - 0.5);
            dtype_store(cases[c].t, got + (size_t)i * size, ref[i]);
        }
        struct compare_spec s = {.dtype = cases[c].t,
                                 .ref_dtype = DTYPE_FP64,
                                 .exact = cases[c].exact,
                                 .atol = cases[c].exact ? 0 : 1e-5,
                                 .rtol = cases[c].exact ? 0 : 1e-3};
        run(cases[c].name, s, got, ref, n);
    }
    free(got);
    free(ref);
    return 0;
}
