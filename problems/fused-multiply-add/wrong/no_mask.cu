// Negative control: the missing tail mask. Every thread of the last block
// reads and writes, even past the end of D (at most 255 elements = 1020 bytes,
// inside the judge's 4 KiB guard band) whenever N is not a multiple of 256.
// Expected verdict: Memory Violation.
//
// @launch fma_kernel grid=(cdiv(N, 256)) block=(256) args=(A, B, C, D, N)

extern "C" __global__ void fma_kernel(const float* a, const float* b, const float* c, float* d,
                                      long long n)
{
    long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x;
    d[i] = fmaf(a[i], b[i], c[i]);
}
