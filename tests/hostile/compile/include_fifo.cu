// expect: compile-error
// setup: fifo /tmp/bw-fifo
// log-has: cannot open source file "/tmp/bw-fifo"
// max-ms: 10000
// A FIFO would block NVRTC in open() forever; in the sandbox the path does not exist.
#include "/tmp/bw-fifo"
extern "C" __global__ void k(float *x) { x[threadIdx.x] = 1.0f; }
