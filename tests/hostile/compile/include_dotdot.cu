// expect: compile-error
// log-has: cannot open source file
// control-log-has: root:x:0:0
// A relative path that climbs out of any directory NVRTC searches.
#include "../../../../../../../../../../etc/passwd"
extern "C" __global__ void k(float *x) { x[threadIdx.x] = 1.0f; }
