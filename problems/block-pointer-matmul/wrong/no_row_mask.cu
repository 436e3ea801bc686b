// Negative control: the missing row mask. naive.cu with blocks of 16 rows
// whose stores only check the column: for M = 1 (the first test) rows 1-15
// are written at offC + m * sCm, past the end of C's buffer (its length ends
// at the view's last element), into the judge's guard band.
// Expected verdict: Memory Violation.
//
// @launch matmul grid=(cdiv(N, 32), cdiv(M, 16)) block=(32, 16) args=(A, B, C, M, N, K, offA, sAm, sAk, offB, sBk, sBn, offC, sCm, sCn)

#include <cuda_fp16.h>

extern "C" __global__ void matmul(const __half *A, const __half *B, __half *C, long long M,
                                  long long N, long long K, long long offA, long long sAm,
                                  long long sAk, long long offB, long long sBk, long long sBn,
                                  long long offC, long long sCm, long long sCn)
{
    const long long n = (long long)blockIdx.x * blockDim.x + threadIdx.x;
    const long long m = (long long)blockIdx.y * blockDim.y + threadIdx.y;
    if (n >= N) /* no m >= M check */
        return;
    float acc = 0.0f;
    for (long long k = 0; k < K; k++)
        if (m < M) /* the loads are guarded, the store is not */
            acc = fmaf(__half2float(A[offA + m * sAm + k * sAk]),
                       __half2float(B[offB + k * sBk + n * sBn]), acc);
    C[offC + m * sCm + n * sCn] = __float2half_rn(acc);
}
