/*
 * fuzz.h - the bodies of Blockwise's fuzz targets, shared by the libFuzzer
 * entry points (tests/fuzz/fuzz_*.c, built by tests/fuzz/run.sh) and by the
 * corpus replay of the unit tests (tests/unit/test_fuzz_replay.c).
 *
 * Each body runs the parser on one input and checks properties that must hold
 * for every input (beyond not crashing): results are deterministic, error
 * positions lie inside the input, messages are single lines, a successful
 * parse is well-formed. It returns 0, or -1 after printing the violated
 * property to stderr.
 */
#ifndef BW_FUZZ_H
#define BW_FUZZ_H

#include <stddef.h>
#include <stdint.h>

int fuzz_expr_one(const uint8_t *data, size_t size);
int fuzz_directive_one(const uint8_t *data, size_t size);
/* Writes the input as problem.json of a temp problem directory, then loads it. */
int fuzz_problem_one(const uint8_t *data, size_t size);
/* The first byte picks a server request-body parser (server/bodies.h), the
 * rest is the body. */
int fuzz_request_one(const uint8_t *data, size_t size);

#endif
