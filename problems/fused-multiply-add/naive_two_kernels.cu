// Correct but unfused: one kernel writes D = A * B, a second one reads D back
// and adds C. Two roundings (the tolerance admits them) and two passes over
// memory: 24 bytes moved per element instead of 16, so at best about 2/3 of
// the fused kernel's speed. Control: must be Accepted.
//
// @const BLOCK=256
// @let BLOCKS = cdiv(N, BLOCK)
// @launch mul_kernel grid=(BLOCKS) block=(BLOCK) args=(A, B, D, N)
// @launch add_kernel grid=(BLOCKS) block=(BLOCK) args=(D, C, N)

extern "C" __global__ void mul_kernel(const float* a, const float* b, float* d, long long n)
{
    long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        d[i] = __fmul_rn(a[i], b[i]);
}

extern "C" __global__ void add_kernel(float* d, const float* c, long long n)
{
    long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        d[i] = __fadd_rn(d[i], c[i]);
}
