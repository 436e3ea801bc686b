// The example of docs/submission-format.md: one launch, one @const.
// @const BLOCK=256
// @launch vector_add grid=(cdiv(n, BLOCK)) block=(BLOCK) args=(x, y, out, n)
extern "C" __global__ void vector_add(const float* x, const float* y, float* out, long n)
{
    long i = (long)blockIdx.x * BLOCK + threadIdx.x;
    if (i < n)
        out[i] = x[i] + y[i];
}
