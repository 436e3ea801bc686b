// Softmax of every row of X (M x N, fp32, row-major), for rows of up to 2^24
// elements (64 MB: far more than one block can keep on chip):
//
//   Y[r][j] = exp(X[r][j] - m_r) / l_r,  m_r = max_j X[r][j],  l_r = sum_j exp(X[r][j] - m_r)
//
// The plan below cuts each row into chunks of CHUNK elements, one block per
// chunk, and runs two kernels:
//   1. chunk_stats: the (max, sum of exp(x - max)) state of each chunk, into
//      part[2*b] and part[2*b + 1] for block b = row * chunks + chunk;
//   2. normalize: each block combines the states of its row's chunks into
//      (m_r, l_r), then writes Y for its chunk.
// Two states combine as (m1, l1) + (m2, l2) = (M, l1*exp(m1 - M) + l2*exp(m2 - M))
// with M = max(m1, m2).
//
// @const BLOCK=256
// @const CHUNK=4096
// @let CHUNKS = M * cdiv(N, CHUNK)
// @scratch part fp32[2*CHUNKS]
// @launch chunk_stats grid=(CHUNKS) block=(BLOCK) args=(X, part, M, N)
// @launch normalize grid=(CHUNKS) block=(BLOCK) args=(X, Y, part, M, N)

extern "C" __global__ void chunk_stats(const float* x, float* part, long long m, long long n)
{
    const long long chunks = (n + CHUNK - 1) / CHUNK;
    const long long row = blockIdx.x / chunks, chunk = blockIdx.x % chunks;

    // TODO: the max and the sum of exp(x - max) over elements
    // chunk * CHUNK .. min((chunk + 1) * CHUNK, n) - 1 of row `row`;
    // write them to part[2 * blockIdx.x] and part[2 * blockIdx.x + 1].
}

extern "C" __global__ void normalize(const float* x, float* y, const float* part, long long m,
                                     long long n)
{
    const long long chunks = (n + CHUNK - 1) / CHUNK;
    const long long row = blockIdx.x / chunks, chunk = blockIdx.x % chunks;

    // TODO: combine the `chunks` states of row `row` into (m_r, l_r), then
    // write y = exp(x - m_r) / l_r for this block's chunk.
}
