/*
 * dump.h - a problem's test cases written out for the independent oracle
 * (tests/oracle/: PyTorch recomputes every expected output from the inputs).
 *
 * Only the trusted side runs: reference.cu in a reference runner, with its
 * inputs returned as well as its outputs.
 */
#ifndef BW_DUMP_H
#define BW_DUMP_H

#include <stddef.h>
#include <stdint.h>

#include "judge_config.h"
#include "judging.h"
#include "problem/problem.h"

/*
 * Writes the test cases of `p` whose buffers total at most max_case_bytes to
 * out_dir/case-NNN/: the inputs as generated from `seed` (0: a fresh one),
 * in their dtypes, and the reference's outputs (fp64, or int64 for integer
 * outputs; "<out>_scale" too), each as raw little-endian NAME.bin, and
 * case.json describing them (name, index, sizes, scalars, tensors with dtype,
 * shape, role and file). *dumped counts the cases written. Needs a GPU
 * (BW_ERR_NODEVICE without).
 */
int judge_dump(const struct judge_config *cfg, const struct problem *p, uint64_t seed,
               const char *out_dir, uint64_t max_case_bytes, size_t *dumped, char **cause);

#endif
