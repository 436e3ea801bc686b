// Negative control: the textbook formula exp(x) / sum exp(x) without the
// maximum. Mathematically equal, but exp overflows fp32 for x > 88.7: rows
// around +1000 (and U(-100, 100) rows) give inf / inf = NaN.
// Expected verdict: Wrong Answer.
//
// @const BLOCK=256
// @const CHUNK=4096
// @let CHUNKS = M * cdiv(N, CHUNK)
// @scratch rowsum fp32[M]
// @launch row_sum grid=(CHUNKS) block=(BLOCK) args=(X, rowsum, M, N)
// @launch write_y grid=(CHUNKS) block=(BLOCK) args=(X, Y, rowsum, M, N)

extern "C" __global__ void row_sum(const float* x, float* rowsum, long long m, long long n)
{
    __shared__ float red[BLOCK];
    const long long chunks = (n + CHUNK - 1) / CHUNK;
    const long long row = blockIdx.x / chunks, c = blockIdx.x % chunks;
    const long long end = min((c + 1) * CHUNK, n);
    float s = 0.0f;
    for (long long j = c * CHUNK + threadIdx.x; j < end; j += BLOCK)
        s += expf(x[row * n + j]);
    red[threadIdx.x] = s;
    __syncthreads();
    for (int k = BLOCK / 2; k > 0; k >>= 1) {
        if (threadIdx.x < k)
            red[threadIdx.x] += red[threadIdx.x + k];
        __syncthreads();
    }
    if (threadIdx.x == 0)
        atomicAdd(&rowsum[row], red[0]);
}

extern "C" __global__ void write_y(const float* x, float* y, const float* rowsum, long long m,
                                   long long n)
{
    const long long chunks = (n + CHUNK - 1) / CHUNK;
    const long long row = blockIdx.x / chunks, c = blockIdx.x % chunks;
    const long long end = min((c + 1) * CHUNK, n);
    for (long long j = c * CHUNK + threadIdx.x; j < end; j += BLOCK)
        y[row * n + j] = expf(x[row * n + j]) / rowsum[row];
}
