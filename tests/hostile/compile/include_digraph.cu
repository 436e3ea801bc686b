// expect: compile-error
// log-has: cannot open source file "/etc/passwd"
// control-log-has: root:x:0:0
// The digraph spelling of #include.
%:include "/etc/passwd"
extern "C" __global__ void k(float *x) { x[threadIdx.x] = 1.0f; }
