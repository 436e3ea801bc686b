// Vector addition with one float per thread and no @tune (tests/gpu/goals.sh's
// failing side): correct, but its SASS has only 32-bit loads and stores, the
// autotune goal finds no @tune sweep, and the rebuild goal no DELAY macro.
//
// @const BLOCK=256
// @launch vector_add grid=(cdiv(N, BLOCK)) block=(BLOCK) args=(x, y, out, N)

extern "C" __global__ void vector_add(const float *x, const float *y, float *out, long long n)
{
    const long long i = (long long)blockIdx.x * BLOCK + threadIdx.x;
    if (i < n)
        out[i] = x[i] + y[i];
}
