// Negative control: sigmoid written as e^x / (1 + e^x), equal on paper. For
// x > 88.7, expf(x) overflows to +inf and the ratio is inf / inf = NaN, where
// the answer is x. Expected verdict: Wrong Answer.
//
// @launch silu grid=(cdiv(N, 256)) block=(256) args=(x, y, N)

extern "C" __global__ void silu(const float* x, float* y, long long n)
{
    long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        const float v = x[i];
        const float e = expf(v);
        y[i] = v * (e / (1.0f + e));
    }
}
