// Negative control: a 32-bit element index. blockIdx.x * blockDim.x +
// threadIdx.x is kept in an int, which is right for every N below 2^31. In
// the last test, N = 2^31 + 129, the threads of elements 2^31 and up get a
// negative index (the product wraps), pass i < n, and read 8 GiB before the
// start of x, where nothing is mapped. Expected verdict: Runtime Error (an
// illegal address). The statement asks for 64-bit indices for this reason.
//
// @launch relu grid=(cdiv(N, 256)) block=(256) args=(x, y, N)

extern "C" __global__ void relu(const float* x, float* y, long long n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x; // BUG: wraps past 2^31 - 1
    if (i < n)
        y[i] = fmaxf(x[i], 0.0f);
}
