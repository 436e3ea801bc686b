// expect: compile-error
// log-has: cannot open source file
// control-log-has: root:x:0:0
// Climbing out of the CUDA header directory, as the sandbox shows it and as the host has it.
#if __has_include(</cuda/include/../../../../etc/passwd>)
#include </cuda/include/../../../../etc/passwd>
#else
#include </usr/local/cuda/include/../../../../etc/passwd>
#endif
extern "C" __global__ void k(float *x) { x[threadIdx.x] = 1.0f; }
