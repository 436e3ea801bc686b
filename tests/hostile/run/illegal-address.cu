// expect: Runtime Error
// Writes far outside any allocation.
// @launch vector_add grid=(cdiv(N, 256)) block=(256) args=(A, B, C, N)
extern "C" __global__ void vector_add(const float *x, const float *y, float *out, long long n)
{
    long long i = blockIdx.x * (long long)blockDim.x + threadIdx.x;
    if (i < n)
        out[i + (1ll << 40)] = x[i] + y[i];
}
