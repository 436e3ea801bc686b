// Negative control: writes nothing; C keeps the values it came with, which
// are not the product. Expected verdict: Wrong Answer.
//
// @launch matmul grid=(cdiv(N, 32), cdiv(M, 8)) block=(32, 8) args=(A, B, C, M, N, K, offA, sAm, sAk, offB, sBk, sBn, offC, sCm, sCn)

#include <cuda_fp16.h>

extern "C" __global__ void matmul(const __half *A, const __half *B, __half *C, long long M,
                                  long long N, long long K, long long offA, long long sAm,
                                  long long sAk, long long offB, long long sBk, long long sBn,
                                  long long offC, long long sCm, long long sCn)
{
}
