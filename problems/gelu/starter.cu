// GELU (exact form): y[i] = 0.5 * x[i] * (1 + erf(x[i] / sqrt(2))) for 0 <= i < N.
//
// The judge launches gelu as the @launch line below says: one thread per
// element, BLOCK threads per block, enough blocks to cover all N elements.
// N is a 64-bit integer and need not be a multiple of BLOCK.
//
// @const BLOCK=256
// @launch gelu grid=(cdiv(N, BLOCK)) block=(BLOCK) args=(x, y, N)

extern "C" __global__ void gelu(const float* x, float* y, long long n)
{
    // TODO: compute this thread's element index i (64-bit), and if it is
    // inside the vector, write y[i]. CUDA's erff(float) is the error function.
}
