// Negative control: one atomicAdd per element into a zeroed fp32 scratch
// accumulator, then a copy to out. Correct on paper, but it is one long
// chain of N fp32 roundings: with 15M elements of mean ~50, the running sum
// reaches ~1e9, where one ulp is 64-128, and every addition of a value ~50
// rounds by tens. The error is thousands of times the 1e-5 * sum|x| allowed
// (problems/NOTES.md). It is also slow: N atomics on one address.
// Expected verdict: Wrong Answer.
//
// @scratch acc fp32[1]
// @launch accumulate grid=(cdiv(N, 256)) block=(256) args=(x, acc, N)
// @launch copy_out grid=(1) block=(1) args=(acc, out)

extern "C" __global__ void accumulate(const float* x, float* acc, long long n)
{
    const long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        atomicAdd(acc, x[i]);
}

extern "C" __global__ void copy_out(const float* acc, float* out)
{
    out[0] = acc[0];
}
