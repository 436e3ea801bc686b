// Negative control: writes nothing, so out keeps the judge's NaN poison.
// Expected verdict: Wrong Answer.
//
// @launch mean_var grid=(cdiv(N, 256)) block=(256) args=(x, out, N)

extern "C" __global__ void mean_var(const float* x, float* out, long long n)
{
}
