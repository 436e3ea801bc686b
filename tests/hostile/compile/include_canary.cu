// expect: compile-error
// log-has: cannot open source file "/tmp/bw-secret-canary.h"
// control-log-has: bw-canary-5b1e0d9c
// A file the test writes on the host, holding the canary: it must not reach the log.
#include "/tmp/bw-secret-canary.h"
extern "C" __global__ void k(float *x) { x[threadIdx.x] = 1.0f; }
