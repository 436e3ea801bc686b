// Negative control: online softmax without the rescaling. Each thread runs
// the one-pass update over its strided elements but forgets to rescale the
// running sum when the maximum grows,
//     m' = max(m, x);  l' = l + exp(x - m')        (should be l*exp(m - m') + exp(x - m'))
// and states are merged the same way, (max(m1, m2), l1 + l2). Terms added
// before the maximum grew stay measured against the old maximum, so l is too
// large whenever a row's maximum is not its first element.
// Expected verdict: Wrong Answer.
//
// @const BLOCK=256
// @const CHUNK=4096
// @let CHUNKS = M * cdiv(N, CHUNK)
// @scratch part fp32[2*CHUNKS]
// @launch chunk_stats grid=(CHUNKS) block=(BLOCK) args=(X, part, M, N)
// @launch normalize grid=(CHUNKS) block=(BLOCK) args=(X, Y, part, M, N)

__device__ void merge_no_rescale(float& m, float& l, float m2, float l2)
{
    m = fmaxf(m, m2);
    l = l + l2;
}

extern "C" __global__ void chunk_stats(const float* x, float* part, long long m, long long n)
{
    __shared__ float sm[BLOCK], sl[BLOCK];
    const long long chunks = (n + CHUNK - 1) / CHUNK;
    const long long row = blockIdx.x / chunks, c = blockIdx.x % chunks;
    const long long end = min((c + 1) * CHUNK, n);
    float mx = __int_as_float(0xff800000), l = 0.0f;
    for (long long j = c * CHUNK + threadIdx.x; j < end; j += BLOCK) {
        const float v = x[row * n + j];
        mx = fmaxf(mx, v);
        l += expf(v - mx);
    }
    sm[threadIdx.x] = mx;
    sl[threadIdx.x] = l;
    __syncthreads();
    for (int s = BLOCK / 2; s > 0; s >>= 1) {
        if (threadIdx.x < s) {
            float a = sm[threadIdx.x], b = sl[threadIdx.x];
            merge_no_rescale(a, b, sm[threadIdx.x + s], sl[threadIdx.x + s]);
            sm[threadIdx.x] = a;
            sl[threadIdx.x] = b;
        }
        __syncthreads();
    }
    if (threadIdx.x == 0) {
        part[2 * blockIdx.x] = sm[0];
        part[2 * blockIdx.x + 1] = sl[0];
    }
}

extern "C" __global__ void normalize(const float* x, float* y, const float* part, long long m,
                                     long long n)
{
    const long long chunks = (n + CHUNK - 1) / CHUNK;
    const long long row = blockIdx.x / chunks, c = blockIdx.x % chunks;
    const long long end = min((c + 1) * CHUNK, n);
    float mx = __int_as_float(0xff800000), l = 0.0f;
    for (long long k = 0; k < chunks; k++)
        merge_no_rescale(mx, l, part[2 * (row * chunks + k)], part[2 * (row * chunks + k) + 1]);
    for (long long j = c * CHUNK + threadIdx.x; j < end; j += BLOCK)
        y[row * n + j] = expf(x[row * n + j] - mx) / l;
}
