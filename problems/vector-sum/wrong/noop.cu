// Negative control: writes nothing, so out keeps the judge's NaN poison.
// Expected verdict: Wrong Answer.
//
// @launch vector_sum grid=(cdiv(N, 256)) block=(256) args=(x, out, N)

extern "C" __global__ void vector_sum(const float* x, float* out, long long n)
{
}
