/*
 * gen_host.c - the judge's input generator (judge/runner/kernels/gen_value.h) on the
 * host, for the CPU simulator: the same bits as the GPU generator writes
 * (tests/cpu/cuda_host_equiv.sh proves the rounding identical).
 */
#include <string.h>

#include "common/dtype.h"
#include "common/gen.h"
#include "judge/runner/kernels/gen_value.h"

void sim_generate(const struct gen_spec *g, unsigned long long seed, unsigned case_index, void *out,
                  long long count);

/* Writes `count` elements of g->dtype to out. */
void sim_generate(const struct gen_spec *g, unsigned long long seed, unsigned case_index, void *out,
                  long long count)
{
    const enum dtype t = (enum dtype)g->dtype;
    const size_t es = dtype_size(t);
    unsigned char *p = out;

    for (long long i = 0; i < count; i++) {
        struct gen_value v = gen_value_at(g, seed, case_index, (uint64_t)i);
        if (dtype_is_float(t)) {
            dtype_store(t, p + (size_t)i * es, v.f);
        } else {
            uint64_t bits = gen_int_bits(v, g->dtype);
            memcpy(p + (size_t)i * es, &bits, es); /* little-endian: the low bytes */
        }
    }
}
