// Negative control: writes nothing, so every output keeps the judge's NaN
// poison. Expected verdict: Wrong Answer.
//
// @launch dropout grid=(cdiv(N, 256)) block=(256) args=(x, y, p, seed, N)

extern "C" __global__ void dropout(const float* x, float* y, float p, unsigned long long seed,
                                   long long n)
{
}
