// Negative control: the missing tail mask. Every thread of the last block
// writes, even past the end of y (at most 255 elements, inside the judge's
// 4 KiB guard band) whenever N is not a multiple of 256.
// Expected verdict: Memory Violation.
//
// @launch gelu grid=(cdiv(N, 256)) block=(256) args=(x, y, N)

extern "C" __global__ void gelu(const float* x, float* y, long long n)
{
    long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x;
    const float v = x[i];
    y[i] = 0.5f * v * (1.0f + erff(v * 0.70710678f));
}
