// Negative control: the classic vectorisation mistake. Each thread does one
// float4, and the N % 4 elements after the last whole float4 are never
// written (they keep the NaN poison) whenever N is not a multiple of 4.
// Expected verdict: Wrong Answer.
//
// @const BLOCK=256
// @launch relu grid=(cdiv(N, 4*BLOCK)) block=(BLOCK) args=(x, y, N)

extern "C" __global__ void relu(const float* x, float* y, long long n)
{
    long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n / 4) {
        float4 v = reinterpret_cast<const float4*>(x)[i];
        reinterpret_cast<float4*>(y)[i] =
            make_float4(fmaxf(v.x, 0.0f), fmaxf(v.y, 0.0f), fmaxf(v.z, 0.0f), fmaxf(v.w, 0.0f));
    }
}
