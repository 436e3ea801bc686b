// Fused Multiply-Add: D[i] = A[i] * B[i] + C[i] for 0 <= i < N.
//
// The judge launches fma_kernel as the @launch line below says: one thread per
// element, BLOCK threads per block, enough blocks to cover all N elements.
// N is a 64-bit integer and need not be a multiple of BLOCK.
//
// @const BLOCK=256
// @launch fma_kernel grid=(cdiv(N, BLOCK)) block=(BLOCK) args=(A, B, C, D, N)

extern "C" __global__ void fma_kernel(const float* a, const float* b, const float* c, float* d,
                                      long long n)
{
    // TODO: compute this thread's element index i (64-bit), and if it is
    // inside the vector, write d[i] = a[i] * b[i] + c[i].
}
