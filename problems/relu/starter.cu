// ReLU: y[i] = max(x[i], 0) for 0 <= i < N.
//
// The judge launches relu as the @launch line below says: one thread per
// element, BLOCK threads per block, enough blocks to cover all N elements.
// N is a 64-bit integer and need not be a multiple of BLOCK.
//
// @const BLOCK=256
// @launch relu grid=(cdiv(N, BLOCK)) block=(BLOCK) args=(x, y, N)

extern "C" __global__ void relu(const float* x, float* y, long long n)
{
    // TODO: compute this thread's element index i (64-bit), and if it is
    // inside the vector, write y[i] = max(x[i], 0).
}
