// Negative control: the tanh approximation of GELU (GPT-2 / MinGPT,
// F.gelu(x, approximate='tanh')):
//   0.5 x (1 + tanh(sqrt(2/pi) (x + 0.044715 x^3))).
// It is a different function: it differs from the exact form by up to
// 4.7e-4 near |x| = 2.7, about 17x the bound 1e-6 + 1e-5 |y| there.
// Expected verdict: Wrong Answer.
//
// @launch gelu grid=(cdiv(N, 256)) block=(256) args=(x, y, N)

extern "C" __global__ void gelu(const float* x, float* y, long long n)
{
    long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        const float v = x[i];
        y[i] = 0.5f * v * (1.0f + tanhf(0.7978845608f * (v + 0.044715f * v * v * v)));
    }
}
