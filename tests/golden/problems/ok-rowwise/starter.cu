// @launch rowwise grid=(M) block=(256) args=(x, xn, idx, w, y, s, cnt, M, N, eps, k)
