// Transpose: Y[j][i] = X[i][j], with X: R x C and Y: C x R, both fp32 and
// row-major (X[i][j] is x[i * C + j], Y[j][i] is y[j * R + i]).
//
// The launch below runs one thread per element of X: threadIdx.x walks the
// columns j, threadIdx.y the rows i.
//
// @const TX=32
// @const TY=8
// @launch transpose grid=(cdiv(C, TX), cdiv(R, TY)) block=(TX, TY) args=(X, Y, R, C)

extern "C" __global__ void transpose(const float* x, float* y, long long R, long long C)
{
    const long long j = (long long)blockIdx.x * blockDim.x + threadIdx.x;
    const long long i = (long long)blockIdx.y * blockDim.y + threadIdx.y;

    // TODO: if (i, j) is inside X, copy X[i][j] to Y[j][i].
}
