// Negative control: the naive three-pass kernel with an off-by-one bound in
// the sum: the last element of every row is left out of the denominator
// (for N = 1 the sum is 0 and y = inf). Maximum and output are right.
// Expected verdict: Wrong Answer.
//
// @const BLOCK=256
// @const CHUNK=4096
// @let CHUNKS = M * cdiv(N, CHUNK)
// @scratch rowmax uint32[M]
// @scratch rowsum fp32[M]
// @launch row_max grid=(CHUNKS) block=(BLOCK) args=(X, rowmax, M, N)
// @launch row_sum grid=(CHUNKS) block=(BLOCK) args=(X, rowmax, rowsum, M, N)
// @launch write_y grid=(CHUNKS) block=(BLOCK) args=(X, Y, rowmax, rowsum, M, N)

__device__ unsigned key_of(float f)
{
    const unsigned u = __float_as_uint(f);
    return (u & 0x80000000u) ? ~u : (u | 0x80000000u);
}

__device__ float float_of(unsigned k)
{
    return __uint_as_float((k & 0x80000000u) ? (k & 0x7fffffffu) : ~k);
}

/* Block-wide max or sum of v over BLOCK threads (a shared-memory tree). */
__device__ float block_reduce(float v, bool is_max)
{
    __shared__ float red[BLOCK];
    const int t = threadIdx.x;
    red[t] = v;
    __syncthreads();
    for (int s = BLOCK / 2; s > 0; s >>= 1) {
        if (t < s)
            red[t] = is_max ? fmaxf(red[t], red[t + s]) : red[t] + red[t + s];
        __syncthreads();
    }
    return red[0];
}

extern "C" __global__ void row_max(const float* x, unsigned* rowmax, long long m, long long n)
{
    const long long chunks = (n + CHUNK - 1) / CHUNK;
    const long long row = blockIdx.x / chunks, c = blockIdx.x % chunks;
    const long long end = min((c + 1) * CHUNK, n);
    float mx = __int_as_float(0xff800000); /* -inf */
    for (long long j = c * CHUNK + threadIdx.x; j < end; j += BLOCK)
        mx = fmaxf(mx, x[row * n + j]);
    mx = block_reduce(mx, true);
    if (threadIdx.x == 0)
        atomicMax(&rowmax[row], key_of(mx));
}

extern "C" __global__ void row_sum(const float* x, const unsigned* rowmax, float* rowsum,
                                   long long m, long long n)
{
    const long long chunks = (n + CHUNK - 1) / CHUNK;
    const long long row = blockIdx.x / chunks, c = blockIdx.x % chunks;
    const long long end = min((c + 1) * CHUNK, n - 1); /* off by one: should be n */
    const float mx = float_of(rowmax[row]);
    float s = 0.0f;
    for (long long j = c * CHUNK + threadIdx.x; j < end; j += BLOCK)
        s += expf(x[row * n + j] - mx);
    s = block_reduce(s, false);
    if (threadIdx.x == 0)
        atomicAdd(&rowsum[row], s);
}

extern "C" __global__ void write_y(const float* x, float* y, const unsigned* rowmax,
                                   const float* rowsum, long long m, long long n)
{
    const long long chunks = (n + CHUNK - 1) / CHUNK;
    const long long row = blockIdx.x / chunks, c = blockIdx.x % chunks;
    const long long end = min((c + 1) * CHUNK, n);
    const float mx = float_of(rowmax[row]), s = rowsum[row];
    for (long long j = c * CHUNK + threadIdx.x; j < end; j += BLOCK)
        y[row * n + j] = expf(x[row * n + j] - mx) / s;
}
