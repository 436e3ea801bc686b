// Negative control: the wrong neutral value for the maximum. naive.cu, but
// each row's maximum starts at 0 instead of -inf. The row loss
// (m - z[t]) + log(sum exp(z - m)) is the same for any shift m, so this is
// right for every row whose largest logit is above about -87. On a row lying
// entirely below -104 every exp(z - 0) is 0 in fp32: the row loss is
// -z[t] + log(0) = -inf and so is the mean (between -104 and -87 the terms
// are subnormal, off by far more than the tolerance). Only the "below" tests
// (logits offset into [-150, -110], largest logit below about -100) have
// such rows; every other test accepts this kernel.
// Expected verdict: Wrong Answer.
//
// @const BLOCK=256
// @scratch row_loss fp32[M]
// @launch ce_rows grid=(M) block=(BLOCK) args=(Z, t, row_loss, ignore_index, M, V)
// @launch ce_mean grid=(1) block=(1) args=(row_loss, t, loss, ignore_index, M)

#include <cuda_bf16.h>

extern "C" __global__ void ce_rows(const __nv_bfloat16* Z, const int* t, float* row_loss, int ignore_index,
                                   long long M, long long V)
{
    __shared__ float red[BLOCK];
    const long long row = blockIdx.x;
    const int target = t[row];
    if (target == ignore_index)
        return; /* row_loss[row] stays 0 */
    const __nv_bfloat16* z = Z + row * V;
    const int k = threadIdx.x;

    float mx = 0.0f; /* should be -inf */
    for (long long j = k; j < V; j += BLOCK)
        mx = fmaxf(mx, __bfloat162float(z[j]));
    red[k] = mx;
    __syncthreads();
    for (int s = BLOCK / 2; s > 0; s >>= 1) {
        if (k < s)
            red[k] = fmaxf(red[k], red[k + s]);
        __syncthreads();
    }
    mx = red[0];
    __syncthreads();

    float sum = 0.0f;
    for (long long j = k; j < V; j += BLOCK)
        sum += expf(__bfloat162float(z[j]) - mx);
    red[k] = sum;
    __syncthreads();
    for (int s = BLOCK / 2; s > 0; s >>= 1) {
        if (k < s)
            red[k] += red[k + s];
        __syncthreads();
    }
    if (k == 0)
        row_loss[row] = (mx - __bfloat162float(z[target])) + logf(red[0]);
}

extern "C" __global__ void ce_mean(const float* row_loss, const int* t, float* loss, int ignore_index, long long M)
{
    float sum = 0.0f;
    long long valid = 0;
    for (long long i = 0; i < M; i++) {
        sum += row_loss[i];
        valid += t[i] != ignore_index;
    }
    loss[0] = sum / (float)valid;
}
