// Negative control: the unfused pipeline with the score matrix stored in
// fp16 to halve its memory. The probabilities P may be fp16 (each is off by
// at most 2^-11 relative, well inside the tolerance), but the scores may not:
// a score between 32 and 64 (common with scale 1.3 and D = 128) is rounded
// by up to 2^-6, and exp(s - m) inherits that as a relative error of up to
// 1.6% in the weights of the few keys that dominate a row (problems/NOTES.md).
// Expected verdict: Wrong Answer.
//
// @let BH = B * H
// @scratch S fp16[BH*Sq*Skv]
// @launch scores grid=(cdiv(Skv, 128), Sq, BH) block=(128) args=(Q, K, S, scale, causal, Sq, Skv, D)
// @launch softmax_rows grid=(Sq, BH) block=(128) args=(S, Sq, Skv)
// @launch pv grid=(cdiv(D, 64), Sq, BH) block=(64) args=(S, V, O, Sq, Skv, D)

#include <cuda_fp16.h>

extern "C" __global__ void scores(const __half* Q, const __half* K, __half* S, float scale,
                                  int causal, long long Sq, long long Skv, long long D)
{
    const long long j = (long long)blockIdx.x * blockDim.x + threadIdx.x;
    const long long i = blockIdx.y, bh = blockIdx.z;
    if (j >= Skv)
        return;
    float s = 0.0f;
    for (long long d = 0; d < D; d++)
        s += __half2float(Q[(bh * Sq + i) * D + d]) * __half2float(K[(bh * Skv + j) * D + d]);
    S[(bh * Sq + i) * Skv + j] = __float2half((causal && j > i) ? __int_as_float(0xff800000) : s * scale);
}

extern "C" __global__ void softmax_rows(__half* S, long long Sq, long long Skv)
{
    __shared__ float red[128];
    __half* row = S + ((long long)blockIdx.y * Sq + blockIdx.x) * Skv;
    const int t = threadIdx.x;
    float m = __int_as_float(0xff800000);
    for (long long j = t; j < Skv; j += 128)
        m = fmaxf(m, __half2float(row[j]));
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
    for (long long j = t; j < Skv; j += 128)
        l += expf(__half2float(row[j]) - m);
    red[t] = l;
    __syncthreads();
    for (int s = 64; s > 0; s >>= 1) {
        if (t < s)
            red[t] += red[t + s];
        __syncthreads();
    }
    l = red[0];
    for (long long j = t; j < Skv; j += 128)
        row[j] = __float2half(expf(__half2float(row[j]) - m) / l);
}

extern "C" __global__ void pv(const __half* S, const __half* V, __half* O, long long Sq,
                              long long Skv, long long D)
{
    const long long d = (long long)blockIdx.x * blockDim.x + threadIdx.x;
    const long long i = blockIdx.y, bh = blockIdx.z;
    if (d >= D)
        return;
    float acc = 0.0f;
    for (long long j = 0; j < Skv; j++)
        acc += __half2float(S[(bh * Sq + i) * Skv + j]) * __half2float(V[(bh * Skv + j) * D + d]);
    O[(bh * Sq + i) * D + d] = __float2half(acc);
}
