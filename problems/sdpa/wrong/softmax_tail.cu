// Negative control: the softmax's sum stops one key short (j < Skv - 1), so
// the last key is missing from every denominator (for Skv = 1 the sum is 0).
// Expected verdict: Wrong Answer.
//
// @let BH = B * H
// @scratch S fp32[BH*Sq*Skv]
// @launch scores grid=(cdiv(Skv, 128), Sq, BH) block=(128) args=(Q, K, S, scale, causal, Sq, Skv, D)
// @launch softmax_rows grid=(Sq, BH) block=(128) args=(S, Sq, Skv)
// @launch pv grid=(cdiv(D, 64), Sq, BH) block=(64) args=(S, V, O, Sq, Skv, D)

#include <cuda_fp16.h>

extern "C" __global__ void scores(const __half* Q, const __half* K, float* S, float scale,
                                  int causal, long long Sq, long long Skv, long long D)
{
    const long long j = (long long)blockIdx.x * blockDim.x + threadIdx.x;
    const long long i = blockIdx.y, bh = blockIdx.z;
    if (j >= Skv)
        return;
    float s = 0.0f;
    for (long long d = 0; d < D; d++)
        s += __half2float(Q[(bh * Sq + i) * D + d]) * __half2float(K[(bh * Skv + j) * D + d]);
    S[(bh * Sq + i) * Skv + j] = (causal && j > i) ? __int_as_float(0xff800000) : s * scale;
}

extern "C" __global__ void softmax_rows(float* S, long long Sq, long long Skv)
{
    __shared__ float red[128];
    float* row = S + ((long long)blockIdx.y * Sq + blockIdx.x) * Skv;
    const int t = threadIdx.x;
    float m = __int_as_float(0xff800000);
    for (long long j = t; j < Skv; j += 128)
        m = fmaxf(m, row[j]);
    red[t] = m;
    __syncthreads();
    for (int s = 64; s > 0; s >>= 1) {
        if (t < s)
            red[t] = fmaxf(red[t], red[t + s]);
        __syncthreads();
    }
    m = red[0];
    __syncthreads();
    float l = 0.0f;
    for (long long j = t; j < Skv - 1; j += 128) /* should be j < Skv */
        l += expf(row[j] - m);
    red[t] = l;
    __syncthreads();
    for (int s = 64; s > 0; s >>= 1) {
        if (t < s)
            red[t] += red[t + s];
        __syncthreads();
    }
    l = red[0];
    for (long long j = t; j < Skv; j += 128)
        row[j] = expf(row[j] - m) / l;
}

extern "C" __global__ void pv(const float* S, const __half* V, __half* O, long long Sq,
                              long long Skv, long long D)
{
    const long long d = (long long)blockIdx.x * blockDim.x + threadIdx.x;
    const long long i = blockIdx.y, bh = blockIdx.z;
    if (d >= D)
        return;
    float acc = 0.0f;
    for (long long j = 0; j < Skv; j++)
        acc += S[(bh * Sq + i) * Skv + j] * __half2float(V[(bh * Skv + j) * D + d]);
    O[(bh * Sq + i) * D + d] = __float2half(acc);
}
