// A grid-stride-free vector add: one thread per element, tail masked.
// @const BLOCK=256
// @launch vector_add grid=(cdiv(N, BLOCK)) block=(BLOCK) args=(x, y, out, N)
extern "C" __global__ void vector_add(const float *x, const float *y, float *out, long long n)
{
    long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        out[i] = x[i] + y[i];
}
