// Reference for GEMV: one thread per row, fp64 arithmetic, in order over k.
// y[i] = sum_k A[i][k] * x[k] and its accumulation scale
// y_scale[i] = sum_k |A[i][k] * x[k]|, which the tolerance multiplies
// (|y - ref| <= 1e-7 + 1e-5 * y_scale). A product of two fp32 values is exact
// in fp64, so the only rounding is the fp64 sum (relative error ~K * 2^-53).
// Any M, K >= 1; 64-bit indices.
//
// @launch gemv_ref grid=(cdiv(M, 128)) block=(128) args=(A, x, y, y_scale, M, K)

extern "C" __global__ void gemv_ref(const float* A, const float* x, double* y, double* y_scale,
                                    long long M, long long K)
{
    const long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= M)
        return;
    const float* a = A + i * K;
    double dot = 0.0, scale = 0.0;
    for (long long k = 0; k < K; k++) {
        const double p = (double)a[k] * (double)x[k];
        dot += p;
        scale += fabs(p);
    }
    y[i] = dot;
    y_scale[i] = scale;
}
