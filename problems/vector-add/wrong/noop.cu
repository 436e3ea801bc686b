// Negative control: writes nothing, so every output keeps the judge's NaN
// poison. Expected verdict: Wrong Answer.
//
// @launch vector_add grid=(cdiv(N, 256)) block=(256) args=(A, B, C, N)

extern "C" __global__ void vector_add(const float* a, const float* b, float* c, long long n)
{
}
