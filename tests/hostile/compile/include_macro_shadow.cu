// expect: compile-error
// log-has: cannot open source file "/etc/shadow"
// The same trick on /etc/shadow (readable when the judge runs as root).
#define P(x) #x
#include P(/etc/shadow)
extern "C" __global__ void k(float *x) { x[threadIdx.x] = 1.0f; }
