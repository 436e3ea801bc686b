// Negative control: writes nothing (y keeps its NaN poison).
// Expected verdict: Wrong Answer.
//
// @launch gemv grid=(cdiv(M, 256)) block=(256) args=(A, x, y, M, K)

extern "C" __global__ void gemv(const float* a, const float* x, float* y, long long M, long long K)
{
}
