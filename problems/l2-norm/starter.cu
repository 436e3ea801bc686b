// L2 vector norm: out[0] = sqrt(x[0]^2 + x[1]^2 + ... + x[N-1]^2).
//
// One plan that works: every block of BLOCK threads adds up the squares of
// its BLOCK elements and writes one partial sum to the scratch buffer
// `partial` (zeroed before every run); a second launch, one block, adds the
// partials and writes the square root of the total to out[0]. out is filled
// with NaN before each run.
//
// @const BLOCK=256
// @let BLOCKS = cdiv(N, BLOCK)
// @scratch partial fp32[BLOCKS]
// @launch block_sumsq grid=(BLOCKS) block=(BLOCK) args=(x, partial, N)
// @launch final_norm grid=(1) block=(BLOCK) args=(partial, out, N)

extern "C" __global__ void block_sumsq(const float* x, float* partial, long long n)
{
    // TODO: element i = blockIdx.x * BLOCK + threadIdx.x (64-bit; 0 past the
    // end); add the block's squares; thread 0 writes partial[blockIdx.x].
}

extern "C" __global__ void final_norm(const float* partial, float* out, long long n)
{
    // TODO: add partial[0 .. cdiv(n, BLOCK) - 1]; out[0] = sqrtf(total).
}
