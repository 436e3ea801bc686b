// Naive but correct: one thread per element of C's view, following the
// strides, fp32 FMA accumulation on the CUDA cores. Elements of C outside the
// view are never touched. Control: must be Accepted.
//
// @launch matmul grid=(cdiv(N, 32), cdiv(M, 8)) block=(32, 8) args=(A, B, C, M, N, K, offA, sAm, sAk, offB, sBk, sBn, offC, sCm, sCn)

#include <cuda_fp16.h>

extern "C" __global__ void matmul(const __half *A, const __half *B, __half *C, long long M,
                                  long long N, long long K, long long offA, long long sAm,
                                  long long sAk, long long offB, long long sBk, long long sBn,
                                  long long offC, long long sCm, long long sCn)
{
    const long long n = (long long)blockIdx.x * blockDim.x + threadIdx.x;
    const long long m = (long long)blockIdx.y * blockDim.y + threadIdx.y;
    if (m >= M || n >= N)
        return;
    float acc = 0.0f;
    for (long long k = 0; k < K; k++)
        acc = fmaf(__half2float(A[offA + m * sAm + k * sAk]),
                   __half2float(B[offB + k * sBk + n * sBn]), acc);
    C[offC + m * sCm + n * sCn] = __float2half_rn(acc);
}
