// Negative control: an off-by-one bound (i < n - 1), so the last element is
// never written and keeps the NaN poison. Expected verdict: Wrong Answer.
//
// @launch gelu grid=(cdiv(N, 256)) block=(256) args=(x, y, N)

extern "C" __global__ void gelu(const float* x, float* y, long long n)
{
    long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n - 1) {
        const float v = x[i];
        y[i] = 0.5f * v * (1.0f + erff(v * 0.70710678f));
    }
}
