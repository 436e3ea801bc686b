// Reference for Fused Multiply-Add: one thread per element, fp64 arithmetic.
// The product of two fp32 values is exact in fp64, so D = fma(a, b, c) in
// double has a single rounding at 2^-53, far below the tolerance. D_scale is
// the magnitude the tolerance is relative to: |a*b| + |c|, so that
// |D - ref| <= 1.2e-7 * (|a*b| + |c|), about 2^-23 of it (problems/NOTES.md).
//
// @launch fma_ref grid=(cdiv(N, 256)) block=(256) args=(A, B, C, D, D_scale, N)

extern "C" __global__ void fma_ref(const float* a, const float* b, const float* c, double* d,
                                   double* d_scale, long long n)
{
    long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        const double p = (double)a[i] * (double)b[i];
        d[i] = p + (double)c[i];
        d_scale[i] = fabs(p) + fabs((double)c[i]);
    }
}
