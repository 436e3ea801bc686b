// expect: Runtime Error
// A float4 store through a pointer that is not 16-byte aligned.
// @launch vector_add grid=(cdiv(N, 256)) block=(256) args=(A, B, C, N)
extern "C" __global__ void vector_add(const float *x, const float *y, float *out, long long n)
{
    long long i = blockIdx.x * (long long)blockDim.x + threadIdx.x;
    if (i == 0)
        *(float4 *)(out + 1) = make_float4(1, 2, 3, 4);
}
