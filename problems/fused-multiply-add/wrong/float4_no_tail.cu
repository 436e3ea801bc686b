// Negative control: the classic vectorisation mistake. Each thread does one
// float4, and the N % 4 elements after the last whole float4 are never
// written (they keep the NaN poison) whenever N is not a multiple of 4.
// Expected verdict: Wrong Answer.
//
// @const BLOCK=256
// @launch fma_kernel grid=(cdiv(N, 4*BLOCK)) block=(BLOCK) args=(A, B, C, D, N)

extern "C" __global__ void fma_kernel(const float* a, const float* b, const float* c, float* d,
                                      long long n)
{
    long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n / 4) {
        float4 x = reinterpret_cast<const float4*>(a)[i];
        float4 y = reinterpret_cast<const float4*>(b)[i];
        float4 z = reinterpret_cast<const float4*>(c)[i];
        reinterpret_cast<float4*>(d)[i] = make_float4(fmaf(x.x, y.x, z.x), fmaf(x.y, y.y, z.y),
                                                      fmaf(x.z, y.z, z.z), fmaf(x.w, y.w, z.w));
    }
}
