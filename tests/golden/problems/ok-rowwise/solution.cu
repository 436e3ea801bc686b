// @launch rowwise grid=(M) block=(256) args=(x, xn, idx, w, y, s, cnt, M, N, eps, k)
extern "C" __global__ void rowwise(const __half *x, const __half *xn, const int *idx, float *w,
                                   __half *y, float *s, long long *cnt, long long m, long long n,
                                   float eps, int k)
{
}
