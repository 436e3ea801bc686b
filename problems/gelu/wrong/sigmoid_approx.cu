// Negative control: the sigmoid approximation x * sigmoid(1.702 x) (Hendrycks
// & Gimpel's "fast" GELU). It differs from the exact form by up to 2e-2.
// Expected verdict: Wrong Answer.
//
// @launch gelu grid=(cdiv(N, 256)) block=(256) args=(x, y, N)

extern "C" __global__ void gelu(const float* x, float* y, long long n)
{
    long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        const float v = x[i];
        y[i] = v / (1.0f + expf(-1.702f * v));
    }
}
