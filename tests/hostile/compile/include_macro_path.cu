// expect: compile-error
// log-has: cannot open source file "/etc/shadow"
// control-log-has: root:
// A path built by the preprocessor, so no literal path appears in the source.
#define P(x) #x
#include P(/etc/shadow)
extern "C" __global__ void k(float *x) { x[threadIdx.x] = 1.0f; }
