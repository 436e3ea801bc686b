// Negative control: float4 loads of A without checking alignment. Row i
// starts at byte 4*i*K, a multiple of 16 only when K % 4 == 0; for other K
// the float4 loads of rows 1, 2, 3 ... are misaligned, which the GPU
// reports as "misaligned address" and stops the kernel. (The K % 4 tail is
// handled correctly; x is read as floats.)
// Expected verdict: Runtime Error.
//
// @const WARPS=8
// @launch gemv grid=(cdiv(M, WARPS)) block=(32, WARPS) args=(A, x, y, M, K)

extern "C" __global__ void gemv(const float* a, const float* x, float* y, long long M, long long K)
{
    const long long i = (long long)blockIdx.x * WARPS + threadIdx.y;
    if (i >= M)
        return;
    const float* row = a + i * K;
    const long long quads = K / 4;
    float acc = 0.0f;
    for (long long q = threadIdx.x; q < quads; q += 32) {
        const float4 av = reinterpret_cast<const float4*>(row)[q]; /* BUG: row may be misaligned */
        acc = fmaf(av.x, x[4 * q], acc);
        acc = fmaf(av.y, x[4 * q + 1], acc);
        acc = fmaf(av.z, x[4 * q + 2], acc);
        acc = fmaf(av.w, x[4 * q + 3], acc);
    }
    for (long long k = quads * 4 + threadIdx.x; k < K; k += 32)
        acc = fmaf(row[k], x[k], acc);
    for (int o = 16; o > 0; o >>= 1)
        acc += __shfl_xor_sync(0xffffffffu, acc, o);
    if (threadIdx.x == 0)
        y[i] = acc;
}
