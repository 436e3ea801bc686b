// Add x and y element by element into out.
// @const BLOCK=256
// @launch vector_add grid=(cdiv(N, BLOCK)) block=(BLOCK) args=(x, y, out, N)
extern "C" __global__ void vector_add(const float *x, const float *y, float *out, long long n)
{
    // TODO: compute out[i] = x[i] + y[i] for every i < n
}
