// expect: failure
// mode: no-sandbox
// setup: fifo /tmp/bw-fifo
// limits: wall_ms=1500
// failure: compilation exceeded the time limit of 1.5 s
// max-ms: 10000
// The same FIFO without the sandbox (the --no-sandbox diagnosis mode): NVRTC hangs
// in open(), and the parent's wall-clock limit must kill it.
#include "/tmp/bw-fifo"
extern "C" __global__ void k(float *x) { x[threadIdx.x] = 1.0f; }
