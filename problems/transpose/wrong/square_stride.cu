// Negative control: the row stride of Y taken from X. Y has C rows of R
// elements, so Y[j][i] is y[j * R + i]; this kernel writes y[j * C + i],
// which is right only when R == C. On the first non-square test (R = 1,
// C = 7) it writes up to y[42], far past the end of Y's 7 elements.
// Expected verdict: Memory Violation.
//
// @launch transpose grid=(cdiv(C, 32), cdiv(R, 8)) block=(32, 8) args=(X, Y, R, C)

extern "C" __global__ void transpose(const float* x, float* y, long long R, long long C)
{
    const long long j = (long long)blockIdx.x * blockDim.x + threadIdx.x;
    const long long i = (long long)blockIdx.y * blockDim.y + threadIdx.y;
    if (i < R && j < C)
        y[j * C + i] = x[i * C + j]; /* BUG: the stride of Y is R */
}
