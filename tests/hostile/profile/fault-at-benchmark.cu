// expect: Runtime Error
// A correct vector add, except on exactly N = 2^28 (vector-add's largest benchmark, the shape a
// Profile runs): thread 0 writes through a null pointer there.
// @launch vector_add grid=(cdiv(N, 256)) block=(256) args=(A, B, C, N)
extern "C" __global__ void vector_add(const float* x, const float* y, float* out, long long n)
{
    long long i = blockIdx.x * (long long)blockDim.x + threadIdx.x;
    if (i < n)
        out[i] = x[i] + y[i];
    if (n == (1ll << 28) && i == 0)
        *(volatile float*)0 = 1.0f;
}
