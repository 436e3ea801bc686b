// Negative control: the classic vectorization mistake. Each thread adds one
// uint4 (8 halves), and the N % 8 elements after the last whole uint4 are
// never written (they keep the NaN poison) whenever N is not a multiple of 8.
// Expected verdict: Wrong Answer.
//
// @launch vadd grid=(cdiv(N, 8 * 256)) block=(256) args=(A, B, C, N)

#include <cuda_fp16.h>

__device__ __forceinline__ unsigned add2(unsigned a, unsigned b)
{
    const __half2 s =
        __hadd2(*reinterpret_cast<const __half2 *>(&a), *reinterpret_cast<const __half2 *>(&b));
    return *reinterpret_cast<const unsigned *>(&s);
}

extern "C" __global__ void vadd(const __half *A, const __half *B, __half *C, long long n)
{
    const long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n / 8) {
        const uint4 a = reinterpret_cast<const uint4 *>(A)[i];
        const uint4 b = reinterpret_cast<const uint4 *>(B)[i];
        reinterpret_cast<uint4 *>(C)[i] =
            make_uint4(add2(a.x, b.x), add2(a.y, b.y), add2(a.z, b.z), add2(a.w, b.w));
    }
}
