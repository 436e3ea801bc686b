// Vector Sum: out[0] = x[0] + x[1] + ... + x[N-1].
//
// One plan that works: every block of BLOCK threads adds up its BLOCK
// elements and writes one partial sum to the scratch buffer `partial`
// (zeroed before every run); a second launch, one block, adds the partials
// and writes out[0]. Launches run in order, so the second sees all of the
// first's writes. out is filled with NaN before each run: it must be written.
//
// @const BLOCK=256
// @let BLOCKS = cdiv(N, BLOCK)
// @scratch partial fp32[BLOCKS]
// @launch block_sums grid=(BLOCKS) block=(BLOCK) args=(x, partial, N)
// @launch final_sum grid=(1) block=(BLOCK) args=(partial, out, N)

extern "C" __global__ void block_sums(const float* x, float* partial, long long n)
{
    // TODO: element i = blockIdx.x * BLOCK + threadIdx.x (64-bit; 0 if past
    // the end); combine the block's BLOCK values (e.g. a tree in __shared__
    // memory with __syncthreads() between levels); thread 0 writes
    // partial[blockIdx.x].
}

extern "C" __global__ void final_sum(const float* partial, float* out, long long n)
{
    // TODO: add partial[0 .. cdiv(n, BLOCK) - 1] with the BLOCK threads of
    // this one block, then write out[0].
}
