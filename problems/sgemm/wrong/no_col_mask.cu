// Negative control: the one-thread-per-output kernel with the column mask
// forgotten (only i < M is checked). Threads with j >= N write into the next
// row, and on the last row up to 31 floats past the end of C, inside the
// judge's guard band, whenever N is not a multiple of 32.
// Expected verdict: Memory Violation.
//
// @launch sgemm grid=(cdiv(N, 32), cdiv(M, 8)) block=(32, 8) args=(A, B, C, M, N, K)

extern "C" __global__ void sgemm(const float* a, const float* b, float* c, long long M,
                                 long long N, long long K)
{
    const long long j = (long long)blockIdx.x * blockDim.x + threadIdx.x;
    const long long i = (long long)blockIdx.y * blockDim.y + threadIdx.y;
    if (i >= M)
        return;
    float acc = 0.0f;
    for (long long k = 0; k < K; k++)
        acc = fmaf(a[i * K + k], b[k * N + j], acc);
    c[i * N + j] = acc;
}
