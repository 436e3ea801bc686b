// Negative control: an off-by-one bound (i < n - 1), so the last element is
// never written. Expected verdict: Wrong Answer.
//
// @launch vector_add grid=(cdiv(N, 256)) block=(256) args=(A, B, C, N)

extern "C" __global__ void vector_add(const float* a, const float* b, float* c, long long n)
{
    long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n - 1)
        c[i] = a[i] + b[i];
}
