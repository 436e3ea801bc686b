// Negative control: no tail mask, writes past the end of out.
// @launch vector_add grid=(cdiv(N, 256)) block=(256) args=(x, y, out, N)
extern "C" __global__ void vector_add(const float *x, const float *y, float *out, long long n)
{
    long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x;
    out[i] = x[i] + y[i];
}
