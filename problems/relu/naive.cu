// Naive but correct: one thread per element, one 4-byte load and store.
// Control: must be Accepted.
//
// @const BLOCK=256
// @launch relu grid=(cdiv(N, BLOCK)) block=(BLOCK) args=(x, y, N)

extern "C" __global__ void relu(const float* x, float* y, long long n)
{
    long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        y[i] = fmaxf(x[i], 0.0f);
}
