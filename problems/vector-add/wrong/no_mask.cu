// Negative control: the missing tail mask. Every thread of the last block
// writes, even past the end of C (at most 255 elements = 1020 bytes, inside
// the judge's 4 KiB guard band) whenever N is not a multiple of 256.
// Expected verdict: Memory Violation.
//
// @launch vector_add grid=(cdiv(N, 256)) block=(256) args=(A, B, C, N)

extern "C" __global__ void vector_add(const float* a, const float* b, float* c, long long n)
{
    long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x;
    c[i] = a[i] + b[i];
}
