// Two-pass reduction: partial sums into a scratch buffer, then one block finishes.
// @const BLOCK=512
// @const FINISH_THREADS=1024
// @scratch partial fp32[cdiv(n, BLOCK)]
// @scratch counter uint32[1]
// @flags --use_fast_math -lineinfo
// @flags --maxrregcount=64
// @launch partial_sums grid=(cdiv(n, BLOCK)) block=(BLOCK) smem=BLOCK*4 args=(x, partial, n)
// @launch finish grid=(1) block=(FINISH_THREADS) smem=(FINISH_THREADS * 4) args=(partial, counter, out, n)
#include <cuda_fp16.h>
extern "C" __global__ void partial_sums(const float* x, float* partial, long n) {}
