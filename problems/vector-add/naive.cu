// Naive but correct: one thread per element, one 4-byte load per input.
// Control: must be Accepted.
//
// @const BLOCK=256
// @launch vector_add grid=(cdiv(N, BLOCK)) block=(BLOCK) args=(A, B, C, N)

extern "C" __global__ void vector_add(const float* a, const float* b, float* c, long long n)
{
    long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        c[i] = a[i] + b[i];
}
