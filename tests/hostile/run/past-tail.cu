// expect: Memory Violation
// Writes one element past the end of out (no tail mask on the last block).
// @launch vector_add grid=(cdiv(N, 256)) block=(256) args=(A, B, C, N)
extern "C" __global__ void vector_add(const float *x, const float *y, float *out, long long n)
{
    long long i = blockIdx.x * (long long)blockDim.x + threadIdx.x;
    if (i <= n)
        out[i] = (i < n) ? x[i] + y[i] : 0.0f;
}
