// expect: Memory Violation
// A correct vector add, except on exactly N = 2^28 (the shape a Profile runs): the last thread
// also writes the element just past the end of the output, into the judge's guard band.
// @launch vector_add grid=(cdiv(N, 256)) block=(256) args=(A, B, C, N)
extern "C" __global__ void vector_add(const float* x, const float* y, float* out, long long n)
{
    long long i = blockIdx.x * (long long)blockDim.x + threadIdx.x;
    if (i < n)
        out[i] = x[i] + y[i];
    if (n == (1ll << 28) && i == n - 1)
        out[n] = 1.0f;
}
