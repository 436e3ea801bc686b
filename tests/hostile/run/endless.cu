// expect: Time Limit
// A kernel that never ends: the runner is killed at the wall limit.
// @launch vector_add grid=(cdiv(N, 256)) block=(256) args=(x, y, out, N)
extern "C" __global__ void vector_add(const float *x, const float *y, float *out, long long n)
{
    volatile int forever = 1;
    while (forever)
        ;
}
