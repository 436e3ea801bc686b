// expect: compile-error
// log-has: no host file is visible
// diag: 9:2 no host file is visible
// control-log-has: root:x:0:0
// __has_include used to probe the host, then to include what exists.
#if __has_include("/etc/passwd") || __has_include("/etc/hostname") || __has_include("/proc/version")
#include "/etc/passwd"
#else
#error no host file is visible
#endif
extern "C" __global__ void k(float *x) { x[threadIdx.x] = 1.0f; }
