// Naive but correct: one thread per output, fp32 FMA accumulation straight
// from global memory (A[i][k] is a broadcast within a warp, B[k][j] loads are
// coalesced). Control: must be Accepted; it is the baseline that tiling
// should beat by a large factor.
//
// @const TX=32
// @const TY=8
// @launch sgemm grid=(cdiv(N, TX), cdiv(M, TY)) block=(TX, TY) args=(A, B, C, M, N, K)

extern "C" __global__ void sgemm(const float* a, const float* b, float* c, long long M,
                                 long long N, long long K)
{
    const long long j = (long long)blockIdx.x * blockDim.x + threadIdx.x;
    const long long i = (long long)blockIdx.y * blockDim.y + threadIdx.y;
    if (i >= M || j >= N)
        return;
    float acc = 0.0f;
    for (long long k = 0; k < K; k++)
        acc = fmaf(a[i * K + k], b[k * N + j], acc);
    c[i * N + j] = acc;
}
