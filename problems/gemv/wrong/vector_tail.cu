// Negative control: one warp per row with float4 loads that forgets the
// tail. The loop covers the K / 4 whole float4 of the row and drops the last
// K % 4 products (for K < 4 it computes 0). To stay aligned it takes the
// float4 path only when K % 4 == 0 and falls back to scalar loads otherwise,
// but the scalar loop has the same bound K / 4 * 4.
// Expected verdict: Wrong Answer.
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
    if (K % 4 == 0) {
        for (long long q = threadIdx.x; q < quads; q += 32) {
            const float4 av = reinterpret_cast<const float4*>(row)[q];
            const float4 xv = reinterpret_cast<const float4*>(x)[q];
            acc += av.x * xv.x + av.y * xv.y + av.z * xv.z + av.w * xv.w;
        }
    } else {
        for (long long k = threadIdx.x; k < quads * 4; k += 32) /* BUG: the last K % 4 are lost */
            acc = fmaf(row[k], x[k], acc);
    }
    for (int o = 16; o > 0; o >>= 1)
        acc += __shfl_xor_sync(0xffffffffu, acc, o);
    if (threadIdx.x == 0)
        y[i] = acc;
}
