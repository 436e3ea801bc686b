// Negative control: vectorizing with the wrong type. The kernel loads 16
// bytes as a float4, as in fp32 vector addition, and adds the four "floats":
// each is really two packed halves, so the sums are the bit patterns of fp32
// additions, not of fp16 ones. Tails are handled correctly.
// Expected verdict: Wrong Answer.
//
// @launch vadd grid=(cdiv(N, 8 * 256)) block=(256) args=(A, B, C, N)

#include <cuda_fp16.h>

extern "C" __global__ void vadd(const __half *A, const __half *B, __half *C, long long n)
{
    const long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n / 8) {
        const float4 a = reinterpret_cast<const float4 *>(A)[i];
        const float4 b = reinterpret_cast<const float4 *>(B)[i];
        reinterpret_cast<float4 *>(C)[i] = make_float4(a.x + b.x, a.y + b.y, a.z + b.z, a.w + b.w);
    }
    if (i == 0)
        for (long long j = n / 8 * 8; j < n; j++)
            C[j] = __hadd(A[j], B[j]);
}
