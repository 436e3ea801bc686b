// Negative control: half-precision arithmetic. Inputs are rounded to fp16
// and the running sum is kept in fp16 (11-bit significand), so the error
// grows with K to hundreds of times the 2e-6 * S allowed (problems/NOTES.md).
// Expected verdict: Wrong Answer.
//
// @launch sgemm grid=(cdiv(N, 32), cdiv(M, 8)) block=(32, 8) args=(A, B, C, M, N, K)

#include <cuda_fp16.h>

extern "C" __global__ void sgemm(const float* a, const float* b, float* c, long long M,
                                 long long N, long long K)
{
    const long long j = (long long)blockIdx.x * blockDim.x + threadIdx.x;
    const long long i = (long long)blockIdx.y * blockDim.y + threadIdx.y;
    if (i >= M || j >= N)
        return;
    __half acc = __float2half(0.0f);
    for (long long k = 0; k < K; k++)
        acc = __hfma(__float2half(a[i * K + k]), __float2half(b[k * N + j]), acc);
    c[i * N + j] = __half2float(acc);
}
