// Negative control: the wrong neutral value for the softmax's maximum.
// naive.cu, but each row's maximum starts at 0 instead of -inf. Softmax does
// not depend on the shift, so this is right for every query whose largest
// score is above about -87. When every score of a row is below -104,
// exp(s - 0) is 0 for each of them in fp32, the sum is 0 and the row of P is
// 0 / 0 = NaN, and so is O. Only the "below" tests (Q ~ N(5, 1) and
// K ~ N(-5, 1): scores around -25 * D * scale, at most about -150) have such
// rows; every other test accepts this kernel.
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
    float m = 0.0f; /* should be -inf */
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
    for (long long j = t; j < Skv; j += 128)
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
