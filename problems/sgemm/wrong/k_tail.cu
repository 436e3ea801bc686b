// Negative control: the K-tail bug of a shared-memory tiled kernel. The loop
// over K runs K / TILE whole tiles and drops the last K % TILE terms of every
// dot product (for K < TILE it computes nothing and writes 0). Rows and
// columns are masked correctly. Expected verdict: Wrong Answer.
//
// @const TILE=16
// @launch sgemm grid=(cdiv(N, TILE), cdiv(M, TILE)) block=(TILE, TILE) args=(A, B, C, M, N, K)

extern "C" __global__ void sgemm(const float* a, const float* b, float* c, long long M,
                                 long long N, long long K)
{
    __shared__ float as[TILE][TILE], bs[TILE][TILE];
    const int tx = threadIdx.x, ty = threadIdx.y;
    const long long j = (long long)blockIdx.x * TILE + tx;
    const long long i = (long long)blockIdx.y * TILE + ty;
    float acc = 0.0f;
    for (long long t = 0; t < K / TILE; t++) {
        as[ty][tx] = i < M ? a[i * K + t * TILE + tx] : 0.0f;
        bs[ty][tx] = j < N ? b[(t * TILE + ty) * N + j] : 0.0f;
        __syncthreads();
        for (int k = 0; k < TILE; k++)
            acc = fmaf(as[ty][k], bs[k][tx], acc);
        __syncthreads();
    }
    if (i < M && j < N)
        c[i * N + j] = acc;
}
