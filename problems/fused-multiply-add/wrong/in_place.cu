// Negative control: accumulates into the input C ("C += A * B", the BLAS
// axpy habit) and then copies C to D. D is right, but an input changed: the
// judge checks that inputs are untouched after every run.
// Expected verdict: Input Modified.
//
// @launch fma_kernel grid=(cdiv(N, 256)) block=(256) args=(A, B, C, D, N)

extern "C" __global__ void fma_kernel(const float* a, const float* b, const float* c, float* d,
                                      long long n)
{
    long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        float* cw = const_cast<float*>(c);
        cw[i] = fmaf(a[i], b[i], cw[i]);
        d[i] = cw[i];
    }
}
