// Reference for Vector Addition: one thread per element, fp64 arithmetic.
// The sum of two fp32 values computed in fp64 and rounded to fp32 is the
// correctly rounded fp32 sum, so the judge compares outputs bitwise.
//
// @launch vector_add_ref grid=(cdiv(N, 256)) block=(256) args=(A, B, C, N)

extern "C" __global__ void vector_add_ref(const float* a, const float* b, double* c, long long n)
{
    long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        c[i] = (double)a[i] + (double)b[i];
}
