// Reference for the mean cross-entropy loss, fp64, two launches.
// ce_ref_rows: one block of 256 threads per row; the row's maximum, then
// lse = max + log(sum exp(z - max)) in double, and the row's loss
// lse - z[t] (0 for an ignored row) into the scratch buffer row_loss.
// ce_ref_mean: one thread adds the row losses and counts the rows whose
// target is not ignore_index, in order, and writes their quotient (0/0 = NaN
// when every row is ignored, as PyTorch). Any M, V >= 1; 64-bit indices.
//
// @scratch row_loss fp64[M]
// @launch ce_ref_rows grid=(M) block=(256) args=(Z, t, row_loss, ignore_index, M, V)
// @launch ce_ref_mean grid=(1) block=(1) args=(row_loss, t, loss, ignore_index, M)

#include <cuda_bf16.h>

#define THREADS 256

extern "C" __global__ void ce_ref_rows(const __nv_bfloat16* Z, const int* t, double* row_loss, int ignore_index,
                                       long long M, long long V)
{
    __shared__ double red[THREADS];
    const long long row = blockIdx.x;
    const int target = t[row];
    if (target == ignore_index) {
        if (threadIdx.x == 0)
            row_loss[row] = 0.0;
        return;
    }
    const __nv_bfloat16* z = Z + row * V;
    const int k = threadIdx.x;

    double mx = -__longlong_as_double(0x7ff0000000000000ll); /* -inf */
    for (long long j = k; j < V; j += THREADS)
        mx = fmax(mx, (double)__bfloat162float(z[j]));
    red[k] = mx;
    __syncthreads();
    for (int s = THREADS / 2; s > 0; s >>= 1) {
        if (k < s)
            red[k] = fmax(red[k], red[k + s]);
        __syncthreads();
    }
    mx = red[0];
    __syncthreads();

    double sum = 0.0;
    for (long long j = k; j < V; j += THREADS)
        sum += exp((double)__bfloat162float(z[j]) - mx);
    red[k] = sum;
    __syncthreads();
    for (int s = THREADS / 2; s > 0; s >>= 1) {
        if (k < s)
            red[k] += red[k + s];
        __syncthreads();
    }
    if (k == 0)
        row_loss[row] = mx + log(red[0]) - (double)__bfloat162float(z[target]);
}

extern "C" __global__ void ce_ref_mean(const double* row_loss, const int* t, double* loss, int ignore_index,
                                       long long M)
{
    double sum = 0.0, valid = 0.0;
    for (long long i = 0; i < M; i++)
        if (t[i] != ignore_index) {
            sum += row_loss[i];
            valid += 1.0;
        }
    loss[0] = sum / valid;
}
