// Negative control: writes nothing (Y keeps its NaN poison).
// Expected verdict: Wrong Answer.
//
// @launch transpose grid=(cdiv(C, 32), cdiv(R, 8)) block=(32, 8) args=(X, Y, R, C)

extern "C" __global__ void transpose(const float* x, float* y, long long R, long long C)
{
}
