// Negative control: "ignored" taken to mean "negative target" (t < 0), which
// works for PyTorch's default ignore_index = -100 and for -1, but
// ignore_index can be any integer, including a real class: with
// ignore_index = 3 the rows with target 3 must be skipped, and this kernel
// counts them. Otherwise like naive.cu. Expected verdict: Wrong Answer.
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
    if (target < 0)
        return; /* BUG: should compare with ignore_index */
    const __nv_bfloat16* z = Z + row * V;
    const int k = threadIdx.x;

    float mx = __int_as_float(0xff800000); /* -inf */
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
        valid += t[i] >= 0; /* BUG: should compare with ignore_index */
    }
    loss[0] = sum / (float)valid;
}
