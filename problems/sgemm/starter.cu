// SGEMM: C = A * B, with A: M x K, B: K x N, C: M x N, all fp32 and row-major
// (A[i][k] is a[i * K + k], B[k][j] is b[k * N + j], C[i][j] is c[i * N + j]).
//
// The launch below runs one thread per element of C: threadIdx.x walks the
// columns j, threadIdx.y the rows i. Accumulate in fp32; tensor cores (TF32)
// are not precise enough for this problem.
//
// @const TX=32
// @const TY=8
// @launch sgemm grid=(cdiv(N, TX), cdiv(M, TY)) block=(TX, TY) args=(A, B, C, M, N, K)

extern "C" __global__ void sgemm(const float* a, const float* b, float* c, long long M,
                                 long long N, long long K)
{
    const long long j = (long long)blockIdx.x * blockDim.x + threadIdx.x;
    const long long i = (long long)blockIdx.y * blockDim.y + threadIdx.y;

    // TODO: if (i, j) is inside C, write c[i * N + j] = sum over k of
    // a[i * K + k] * b[k * N + j].
}
