// Reference: fp64 output, one thread per element.
// @launch vector_add_ref grid=(cdiv(N, 256)) block=(256) args=(x, y, out, N)
extern "C" __global__ void vector_add_ref(const float *x, const float *y, double *out, long long n)
{
    long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        out[i] = (double)x[i] + (double)y[i];
}
