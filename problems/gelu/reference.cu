// Reference for GELU: one thread per element, the exact (erf) form in fp64:
// y = 0.5 x (1 + erf(x / sqrt(2))), PyTorch's F.gelu(x, approximate='none').
// For x < 0 the same value is computed as 0.5 x erfc(-x / sqrt(2)), which
// avoids the cancellation in 1 + erf when erf(x / sqrt 2) is close to -1.
//
// @launch gelu_ref grid=(cdiv(N, 256)) block=(256) args=(x, y, N)

extern "C" __global__ void gelu_ref(const float* x, double* y, long long n)
{
    long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        const double v = (double)x[i];
        const double s = 0.70710678118654752440; /* 1 / sqrt(2) */
        y[i] = v >= 0.0 ? 0.5 * v * (1.0 + erf(v * s)) : 0.5 * v * erfc(-v * s);
    }
}
