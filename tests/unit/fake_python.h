/*
 * fake_python.h - a Python whose `import triton` is the fake triton package
 * (tests/fake/triton): a venv beside the test binary whose site-packages links
 * it, as an editable install would, made of $BW_TEST_PYTHON or
 * /usr/bin/python3. For tests of the Triton compile sandbox on machines
 * without Triton; with BW_TRITON_REAL=1 (the GPU machine), the real one.
 */
#ifndef BW_TESTS_FAKE_PYTHON_H
#define BW_TESTS_FAKE_PYTHON_H

#include <stdbool.h>

/* True under BW_TRITON_REAL=1: tests run against the real Triton of $BLOCKWISE_PYTHON. */
bool fake_python_real(void);

/* The venv's python3 (made once per process), $BLOCKWISE_PYTHON (or python3) under
 * BW_TRITON_REAL=1, or NULL when no venv can be made. */
const char *fake_python(void);

#endif
