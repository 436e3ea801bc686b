// Negative control: the missing tail mask. Every thread of the last block
// writes, even past the end of y (at most 255 elements, inside the judge's
// 4 KiB guard band) whenever N is not a multiple of 256.
// Expected verdict: Memory Violation.
//
// @launch silu grid=(cdiv(N, 256)) block=(256) args=(x, y, N)

extern "C" __global__ void silu(const float* x, float* y, long long n)
{
    long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x;
    const float v = x[i];
    y[i] = v / (1.0f + expf(-v));
}
