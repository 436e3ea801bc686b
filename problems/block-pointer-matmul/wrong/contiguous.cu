// Negative control: the classic mistake of this problem, a kernel that
// assumes contiguous row-major operands (A[m * K + k], B[k * N + n],
// C[m * N + n]) and ignores the offsets and strides it is given. It passes
// the dense tests and fails the first padded one: it reads the wrong
// elements and writes over the gaps between C's rows.
// Expected verdict: Wrong Answer.
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
    for (long long k = 0; k < K; k++) /* assumes A is M x K and B is K x N, dense */
        acc = fmaf(__half2float(A[m * K + k]), __half2float(B[k * N + n]), acc);
    C[m * N + n] = __float2half_rn(acc);
}
