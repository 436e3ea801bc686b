// expect: failure
// limits: mem_mb=384 wall_ms=60000
// failure: compilation exceeded the memory limit of 384 MiB
// Exponential macro expansion: 10^9 tokens.
#define A(x) x x x x x x x x x x
#define B(x) A(A(A(x)))
#define C(x) B(B(B(x)))
C(int a;)
extern "C" __global__ void k(float *x) { x[threadIdx.x] = 1.0f; }
