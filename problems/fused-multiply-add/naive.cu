// Naive but correct: one thread per element, one 4-byte load per input, one
// fmaf (a single rounding). Control: must be Accepted.
//
// @const BLOCK=256
// @launch fma_kernel grid=(cdiv(N, BLOCK)) block=(BLOCK) args=(A, B, C, D, N)

extern "C" __global__ void fma_kernel(const float* a, const float* b, const float* c, float* d,
                                      long long n)
{
    long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        d[i] = fmaf(a[i], b[i], c[i]);
}
