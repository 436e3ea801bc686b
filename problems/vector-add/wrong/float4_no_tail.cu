// Negative control: the classic vectorisation mistake. Each thread adds one
// float4, and the N % 4 elements after the last whole float4 are never
// written (they keep the NaN poison) whenever N is not a multiple of 4.
// Expected verdict: Wrong Answer.
//
// @const BLOCK=256
// @launch vector_add grid=(cdiv(N, 4*BLOCK)) block=(BLOCK) args=(A, B, C, N)

extern "C" __global__ void vector_add(const float* a, const float* b, float* c, long long n)
{
    long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n / 4) {
        float4 x = reinterpret_cast<const float4*>(a)[i];
        float4 y = reinterpret_cast<const float4*>(b)[i];
        reinterpret_cast<float4*>(c)[i] = make_float4(x.x + y.x, x.y + y.y, x.z + y.z, x.w + y.w);
    }
}
