// GEMV: y = A x, with A: M x K (row-major, A[i][k] is a[i * K + k]), x: K,
// y: M, all fp32.
//
// The launch below runs one thread per row i. Accumulate in fp32.
//
// @const BLOCK=256
// @launch gemv grid=(cdiv(M, BLOCK)) block=(BLOCK) args=(A, x, y, M, K)

extern "C" __global__ void gemv(const float* a, const float* x, float* y, long long M, long long K)
{
    const long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x;

    // TODO: if i < M, write y[i] = sum over k of a[i * K + k] * x[k].
}
