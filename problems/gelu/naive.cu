// Naive but correct: one thread per element, the textbook formula with the
// fp32 erff. Control: must be Accepted.
//
// @const BLOCK=256
// @launch gelu grid=(cdiv(N, BLOCK)) block=(BLOCK) args=(x, y, N)

extern "C" __global__ void gelu(const float* x, float* y, long long n)
{
    long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        const float v = x[i];
        y[i] = 0.5f * v * (1.0f + erff(v * 0.70710678f));
    }
}
