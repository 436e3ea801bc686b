// expect: Time Limit
// A kernel that never ends: the runner is killed at the wall limit. The loop
// reads global memory through a volatile pointer, so the compiler must keep
// it (an empty infinite loop may be deleted under C++'s forward-progress rule).
// @launch vector_add grid=(cdiv(N, 256)) block=(256) args=(A, B, C, N)
extern "C" __global__ void vector_add(const float *x, const float *y, float *out, long long n)
{
    volatile float *p = out;
    while (p[0] != 12345.0f) /* out is poisoned with NaN: never equal */
        ;
}
