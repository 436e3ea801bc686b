// Negative control: writes nothing (Y keeps its NaN poison).
// Expected verdict: Wrong Answer.
//
// @launch normalize grid=(M) block=(256) args=(X, Y, M, N)

extern "C" __global__ void normalize(const float* x, float* y, long long m, long long n)
{
}
