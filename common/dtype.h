/*
 * dtype.h - the element types tensors can have, and exact conversions.
 *
 * Names are those of problem.json and of @scratch ("fp32", "fp16", "bf16",
 * "fp64", "int8", "uint8", "int32", "int64", "uint32", "uint64"). fp16 and bf16
 * conversions are done bit-exactly in software (round-to-nearest-even), so the
 * host can read any GPU buffer without CUDA headers.
 */
#ifndef BW_DTYPE_H
#define BW_DTYPE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

enum dtype {
    DTYPE_INVALID = 0,
    DTYPE_FP64,
    DTYPE_FP32,
    DTYPE_FP16,
    DTYPE_BF16,
    DTYPE_INT8,
    DTYPE_UINT8,
    DTYPE_INT32,
    DTYPE_UINT32,
    DTYPE_INT64,
    DTYPE_UINT64,
};

/* Parses a name; DTYPE_INVALID if unknown. */
enum dtype dtype_parse(const char *name);
/* The canonical name ("fp32"); "invalid" for DTYPE_INVALID. */
const char *dtype_name(enum dtype t);
/* Comma-separated list of every valid name, for error messages. */
const char *dtype_all_names(void);
/* Element size in bytes (0 for DTYPE_INVALID). */
size_t dtype_size(enum dtype t);
bool dtype_is_float(enum dtype t);
/* The C type a kernel declares for a pointer to this dtype ("float", "__half",
 * "long long", ...) - used in statements and error messages. */
const char *dtype_c_name(enum dtype t);
/* Triton's name of the dtype ("fp32", "fp16", "bf16", "i32", "u64", ...): a
 * pointer to it is "*" followed by this in a kernel's signature. */
const char *dtype_triton_name(enum dtype t);

/* Value of one element stored at p (any alignment) as a double; exact for
 * every dtype except int64/uint64 beyond 2^53. */
double dtype_load(enum dtype t, const void *p);
/* Stores v rounded to the dtype (round-to-nearest-even; saturating casts for
 * integers are not needed by callers: they store exact integers). */
void dtype_store(enum dtype t, void *p, double v);
/* Rounds v to the nearest value representable in the dtype, as a double. */
double dtype_round(enum dtype t, double v);

/* Raw conversions, exposed for tests. */
float fp16_to_float(uint16_t h);
uint16_t float_to_fp16(float f);
float bf16_to_float(uint16_t b);
uint16_t float_to_bf16(float f);

#endif
