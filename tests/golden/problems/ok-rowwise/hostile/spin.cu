// Hostile: loops forever.
// @launch rowwise grid=(1) block=(1) args=(x, xn, idx, w, y, s, cnt, M, N, eps, k)
extern "C" __global__ void rowwise(...)
{
    for (;;) {
    }
}
