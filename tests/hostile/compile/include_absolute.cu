// expect: compile-error
// log-has: cannot open source file "/etc/passwd"
// control-log-has: root:x:0:0
// An absolute #include of a host file: NVRTC would print its lines in the log.
#include "/etc/passwd"
extern "C" __global__ void k(float *x) { x[threadIdx.x] = 1.0f; }
