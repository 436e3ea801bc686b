// expect: compile-error
// log-has: cannot open source file "/proc/self/environ"
// The process environment (the judge's secrets, were they passed on).
#include "/proc/self/environ"
#include "/proc/self/cmdline"
extern "C" __global__ void k(float *x) { x[threadIdx.x] = 1.0f; }
