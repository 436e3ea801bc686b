// Negative control: writes nothing (C keeps its NaN poison).
// Expected verdict: Wrong Answer.
//
// @launch sgemm grid=(cdiv(N, 32), cdiv(M, 8)) block=(32, 8) args=(A, B, C, M, N, K)

extern "C" __global__ void sgemm(const float* a, const float* b, float* c, long long M,
                                 long long N, long long K)
{
}
