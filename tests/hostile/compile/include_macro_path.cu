// expect: compile-error
// log-has: cannot open source file "/tmp/bw-secret-canary.h"
// control-log-has: bw-canary-5b1e0d9c
// A path built by the preprocessor, so no literal path appears in the source.
#define STR(x) #x
#define PATH(x) STR(x)
#include PATH(/tmp/bw-secret-canary.h)
extern "C" __global__ void k(float *x) { x[threadIdx.x] = 1.0f; }
