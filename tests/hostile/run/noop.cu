// expect: Wrong Answer
// Writes nothing: the poisoned outputs stay NaN.
// @launch vector_add grid=(cdiv(N, 256)) block=(256) args=(A, B, C, N)
extern "C" __global__ void vector_add(const float *x, const float *y, float *out, long long n)
{
}
