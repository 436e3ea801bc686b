// Negative control: writes nothing (lse keeps its NaN poison).
// Expected verdict: Wrong Answer.
//
// @launch logsumexp grid=(M) block=(256) args=(X, lse, M, N)

extern "C" __global__ void logsumexp(const float* x, float* lse, long long m, long long n)
{
}
