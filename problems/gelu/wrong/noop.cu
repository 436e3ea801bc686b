// Negative control: writes nothing, so every output keeps the judge's NaN
// poison. Expected verdict: Wrong Answer.
//
// @launch gelu grid=(cdiv(N, 256)) block=(256) args=(x, y, N)

extern "C" __global__ void gelu(const float* x, float* y, long long n)
{
}
