// Issue 12: a plan that splits the work over two launches, with C type names
// for its scratch buffers.
// @const BLOCK=256
// @scratch stats float[2 * M]
// @scratch counts unsigned[cdiv(N, BLOCK)]
// @scratch wide unsigned long long [1]
// @scratch halves __half[N]
// @scratch bf __nv_bfloat16[N]
// @scratch idx long long[N]
// @scratch flags_ unsigned char[16]
// @launch k grid=(cdiv(N / 2, BLOCK)) block=(BLOCK) args=(A, B, C, 0, N / 2)
// @launch k grid=(cdiv(N - N / 2, BLOCK)) block=(BLOCK) args=(A, B, C, N / 2, N - N / 2)
// @launch fix grid=(1) block=(32) args=(stats, cdiv(N, 2), max(M, BLOCK * 2), (N), -N, -3, BLOCK)
extern "C" __global__ void k(const float* A, const float* B, float* C, int first, int count) {}
