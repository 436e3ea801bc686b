// Reference for online softmax: the plain two-pass safe softmax in fp64,
// split into chunks of CH elements so that long rows use many blocks.
//   1. chunk_max_ref: the maximum of each chunk        -> part_max[row][chunk]
//   2. chunk_sum_ref: with m = max over the row's part_max,
//                     sum of exp(x - m) over the chunk -> part_sum[row][chunk]
//   3. write_ref:     with s = sum over the row's part_sum,
//                     y = exp(x - m) / s
// Reductions inside a block are a shared-memory tree; across a row's chunks
// (at most 256 of them) each thread simply loops. Any M, N >= 1; 64-bit
// indices. exp(-inf - m) = 0 for the -inf inputs; every row has a finite
// maximum.
//
// @const CH=65536
// @let CHUNKS = M * cdiv(N, CH)
// @scratch part_max fp64[CHUNKS]
// @scratch part_sum fp64[CHUNKS]
// @launch chunk_max_ref grid=(CHUNKS) block=(256) args=(X, part_max, M, N)
// @launch chunk_sum_ref grid=(CHUNKS) block=(256) args=(X, part_max, part_sum, M, N)
// @launch write_ref grid=(CHUNKS) block=(256) args=(X, Y, part_max, part_sum, M, N)

#define THREADS 256

/* Block-wide reduction of v (max or sum) over the block's 256 threads. */
__device__ double block_reduce(double v, bool is_max)
{
    __shared__ double red[THREADS];
    const int t = threadIdx.x;
    red[t] = v;
    __syncthreads();
    for (int s = THREADS / 2; s > 0; s >>= 1) {
        if (t < s)
            red[t] = is_max ? fmax(red[t], red[t + s]) : red[t] + red[t + s];
        __syncthreads();
    }
    const double r = red[0];
    __syncthreads();
    return r;
}

__device__ double row_max(const double* part_max, long long row, long long chunks)
{
    double m = -__longlong_as_double(0x7ff0000000000000ll); /* -inf */
    for (long long c = 0; c < chunks; c++)
        m = fmax(m, part_max[row * chunks + c]);
    return m;
}

extern "C" __global__ void chunk_max_ref(const float* x, double* part_max, long long M, long long N)
{
    const long long chunks = (N + CH - 1) / CH;
    const long long row = blockIdx.x / chunks, c = blockIdx.x % chunks;
    const long long end = min((c + 1) * CH, N);
    double m = -__longlong_as_double(0x7ff0000000000000ll);
    for (long long j = c * CH + threadIdx.x; j < end; j += THREADS)
        m = fmax(m, (double)x[row * N + j]);
    m = block_reduce(m, true);
    if (threadIdx.x == 0)
        part_max[blockIdx.x] = m;
}

extern "C" __global__ void chunk_sum_ref(const float* x, const double* part_max, double* part_sum,
                                         long long M, long long N)
{
    const long long chunks = (N + CH - 1) / CH;
    const long long row = blockIdx.x / chunks, c = blockIdx.x % chunks;
    const long long end = min((c + 1) * CH, N);
    const double m = row_max(part_max, row, chunks);
    double s = 0.0;
    for (long long j = c * CH + threadIdx.x; j < end; j += THREADS)
        s += exp((double)x[row * N + j] - m);
    s = block_reduce(s, false);
    if (threadIdx.x == 0)
        part_sum[blockIdx.x] = s;
}

extern "C" __global__ void write_ref(const float* x, double* y, const double* part_max,
                                     const double* part_sum, long long M, long long N)
{
    const long long chunks = (N + CH - 1) / CH;
    const long long row = blockIdx.x / chunks, c = blockIdx.x % chunks;
    const long long end = min((c + 1) * CH, N);
    const double m = row_max(part_max, row, chunks);
    double s = 0.0;
    for (long long k = 0; k < chunks; k++)
        s += part_sum[row * chunks + k];
    for (long long j = c * CH + threadIdx.x; j < end; j += THREADS)
        y[row * N + j] = exp((double)x[row * N + j] - m) / s;
}
