// Naive but correct: one thread per row, a sequential fp32 loop over k.
// Neighbouring threads read addresses K*4 bytes apart (uncoalesced), and
// with few rows only a few threads run: 256 rows are one block on one SM.
// Control: must be Accepted; it is the baseline.
//
// @const BLOCK=256
// @launch gemv grid=(cdiv(M, BLOCK)) block=(BLOCK) args=(A, x, y, M, K)

extern "C" __global__ void gemv(const float* a, const float* x, float* y, long long M, long long K)
{
    const long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= M)
        return;
    const float* row = a + i * K;
    float acc = 0.0f;
    for (long long k = 0; k < K; k++)
        acc = fmaf(row[k], x[k], acc);
    y[i] = acc;
}
