// Vector Max: out[0] = max(x[0], x[1], ..., x[N-1]).
//
// One plan that works: every block of BLOCK threads finds the maximum of its
// BLOCK elements and writes it to the scratch buffer `partial` (zeroed
// before every run); a second launch, one block, takes the maximum of the
// partials and writes out[0]. out is filled with NaN before each run.
//
// @const BLOCK=256
// @let BLOCKS = cdiv(N, BLOCK)
// @scratch partial fp32[BLOCKS]
// @launch block_max grid=(BLOCKS) block=(BLOCK) args=(x, partial, N)
// @launch final_max grid=(1) block=(BLOCK) args=(partial, out, N)

extern "C" __global__ void block_max(const float* x, float* partial, long long n)
{
    // TODO: element i = blockIdx.x * BLOCK + threadIdx.x (64-bit); combine
    // the block's values; thread 0 writes partial[blockIdx.x]. What should a
    // thread past the end of x contribute?
}

extern "C" __global__ void final_max(const float* partial, float* out, long long n)
{
    // TODO: the maximum of partial[0 .. cdiv(n, BLOCK) - 1], into out[0].
}
