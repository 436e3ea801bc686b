// Vector Addition: C[i] = A[i] + B[i] for 0 <= i < N.
//
// The judge launches vector_add as the @launch line below says: one thread per
// element, BLOCK threads per block, enough blocks to cover all N elements.
// N is a 64-bit integer and need not be a multiple of BLOCK.
//
// @const BLOCK=256
// @launch vector_add grid=(cdiv(N, BLOCK)) block=(BLOCK) args=(A, B, C, N)

extern "C" __global__ void vector_add(const float* a, const float* b, float* c, long long n)
{
    // TODO: compute this thread's element index i from blockIdx.x, blockDim.x
    // and threadIdx.x (as a 64-bit integer), and if it is inside the vector,
    // write c[i] = a[i] + b[i].
}
