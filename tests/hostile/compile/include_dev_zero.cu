// expect: compile-error
// log-has: cannot open source file "/dev/zero"
// max-ms: 10000
// An endless device: outside the sandbox NVRTC would read it until memory runs out.
#include "/dev/zero"
extern "C" __global__ void k(float *x) { x[threadIdx.x] = 1.0f; }
