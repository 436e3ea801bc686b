// Negative control: writes nothing, so every output keeps the judge's NaN
// poison. Expected verdict: Wrong Answer.
//
// @launch fma_kernel grid=(cdiv(N, 256)) block=(256) args=(A, B, C, D, N)

extern "C" __global__ void fma_kernel(const float* a, const float* b, const float* c, float* d,
                                      long long n)
{
}
