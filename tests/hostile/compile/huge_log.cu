// expect: ok
// log-has: bytes of the log cut
// log-has: Compiling entry function 'k'
// log-max: 140000
// limits: mem_mb=512
// Thousands of remarks: the kept log is capped, and ptxas' report still survives.
#define M _Pragma("message(\"flooding the compile log with a long and repetitive remark, again and again\")")
#define A(x) x x x x x x x x x x
#define B(x) A(A(A(x)))
B(M) B(M) B(M) B(M) B(M)
extern "C" __global__ void k(float *x) { x[threadIdx.x] = 1.0f; }
