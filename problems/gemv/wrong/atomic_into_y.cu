// Negative control: splitting long rows across blocks (right idea) and
// adding the partial sums straight into y with atomicAdd. y is not zero when
// the kernel starts: the judge fills every output with NaN (0xFF bytes), so
// every sum is NaN. Partial sums need a zeroed @scratch buffer and a second
// launch that copies it to y (or a first launch that writes y before the
// others add to it).
// Expected verdict: Wrong Answer.
//
// @const CHUNK=1024
// @launch gemv grid=(cdiv(K, CHUNK), M) block=(256) args=(A, x, y, M, K)

extern "C" __global__ void gemv(const float* a, const float* x, float* y, long long M, long long K)
{
    __shared__ float part[8];
    const long long i = blockIdx.y;
    const long long k0 = (long long)blockIdx.x * CHUNK;
    const long long k1 = min(K, k0 + CHUNK);
    float acc = 0.0f;
    for (long long k = k0 + threadIdx.x; k < k1; k += 256)
        acc = fmaf(a[i * K + k], x[k], acc);
    for (int o = 16; o > 0; o >>= 1)
        acc += __shfl_xor_sync(0xffffffffu, acc, o);
    if ((threadIdx.x & 31) == 0)
        part[threadIdx.x >> 5] = acc;
    __syncthreads();
    if (threadIdx.x == 0) {
        float s = 0.0f;
        for (int w = 0; w < 8; w++)
            s += part[w];
        atomicAdd(&y[i], s); /* BUG: y starts as NaN, not 0 */
    }
}
