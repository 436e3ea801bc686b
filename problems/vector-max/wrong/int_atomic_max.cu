// Negative control: the "atomicMax on the float's bits" shortcut. Block
// maxima are right, and each block does atomicMax((int*)acc,
// __float_as_int(m)) on a zeroed scratch word, then a second launch copies
// it to out. For non-negative floats the int order is the float order, but
// a negative float's bits are a negative int, which loses to the scratch's
// initial 0 (and negative floats order backwards as ints): all-negative data
// gives 0. Expected verdict: Wrong Answer.
//
// @const BLOCK=256
// @scratch acc int32[1]
// @launch block_max grid=(cdiv(N, BLOCK)) block=(BLOCK) args=(x, acc, N)
// @launch copy_out grid=(1) block=(1) args=(acc, out)

extern "C" __global__ void block_max(const float* x, int* acc, long long n)
{
    __shared__ float s[BLOCK];
    const int t = threadIdx.x;
    const long long i = (long long)blockIdx.x * BLOCK + t;
    s[t] = i < n ? x[i] : __int_as_float(0xff800000);
    __syncthreads();
    for (int k = BLOCK / 2; k > 0; k >>= 1) {
        if (t < k)
            s[t] = fmaxf(s[t], s[t + k]);
        __syncthreads();
    }
    if (t == 0)
        atomicMax(acc, __float_as_int(s[0]));
}

extern "C" __global__ void copy_out(const int* acc, float* out)
{
    out[0] = __int_as_float(acc[0]);
}
