// Negative control: the missing cross-block combine. Every block finds its
// own maximum correctly and writes it straight to out[0]; the last writer
// wins. Right only when one block covers x (N <= 256) or happens to hold
// the overall maximum and write last.
// Expected verdict: Wrong Answer.
//
// @const BLOCK=256
// @launch vector_max grid=(cdiv(N, BLOCK)) block=(BLOCK) args=(x, out, N)

extern "C" __global__ void vector_max(const float* x, float* out, long long n)
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
        out[0] = s[0];
}
