// Reference for ok-rowwise: fp64 outputs (y, s), the scale tensor s_scale, long long cnt.
// @launch rowwise_ref grid=(M) block=(1) args=(x, xn, idx, w, y, s, s_scale, cnt, M, N, eps, k)
extern "C" __global__ void rowwise_ref(const __half *x, const __half *xn, const int *idx,
                                       float *w, double *y, double *s, double *s_scale,
                                       long long *cnt, long long m, long long n, float eps, int k)
{
}
