// expect: compile-error
// log-has: #pragma message: "learner output"
// diag: 7:2 #error directive: stop here
// #pragma message and #error text reach the log and the diagnostics, nothing more.
#pragma message("learner output")
#warning a warning of the learner's own
#error stop here
extern "C" __global__ void k(float *x) { x[threadIdx.x] = 1.0f; }
