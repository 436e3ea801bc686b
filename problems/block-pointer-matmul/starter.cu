// Block-pointer (strided) matmul: C = A * B over strided views, fp16 in and
// out, fp32 accumulation:
//   A(m, k) = A[offA + m * sAm + k * sAk]    0 <= m < M, 0 <= k < K
//   B(k, n) = B[offB + k * sBk + n * sBn]    0 <= k < K, 0 <= n < N
//   C(m, n) = C[offC + m * sCm + n * sCn]    0 <= m < M, 0 <= n < N
// Strides and offsets are in elements. The elements of C's buffer that are
// not part of the view must keep their values.
//
// The launch below runs one thread per element of C's view.
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

    // TODO: if (m, n) is inside the view, accumulate A(m, k) * B(k, n) over k
    // in a float and store the fp16 result at C(m, n).
}
