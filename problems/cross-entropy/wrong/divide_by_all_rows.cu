// Negative control: the classic mistake of a mean cross-entropy, dividing the
// sum of the row losses by M, the number of rows, instead of by the number of
// rows whose target is not ignore_index. Right when no row is ignored; when
// 10% are, the loss comes out 10% too small (and 0 instead of NaN when all
// are). Otherwise like naive.cu.
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
    for (long long i = 0; i < M; i++)
        sum += row_loss[i];
    loss[0] = sum / (float)M; /* BUG: ignored rows are counted */
}
