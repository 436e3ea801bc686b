// Negative control: writes only the positive elements, assuming the output
// starts out zeroed (as torch.zeros would give). The judge fills y with NaN
// before every run, so every element with x <= 0 stays NaN.
// Expected verdict: Wrong Answer.
//
// @launch relu grid=(cdiv(N, 256)) block=(256) args=(x, y, N)

extern "C" __global__ void relu(const float* x, float* y, long long n)
{
    long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n && x[i] > 0.0f)
        y[i] = x[i];
}
