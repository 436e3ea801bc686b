// Naive but correct: one thread per element, x / (1 + expf(-x)). For
// x < -88.7, expf(-x) overflows to +inf and the quotient is -0, which is
// within the absolute tolerance of the true (tiny) value.
// Control: must be Accepted.
//
// @const BLOCK=256
// @launch silu grid=(cdiv(N, BLOCK)) block=(BLOCK) args=(x, y, N)

extern "C" __global__ void silu(const float* x, float* y, long long n)
{
    long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        const float v = x[i];
        y[i] = v / (1.0f + expf(-v));
    }
}
