// @launch k grid=(cdiv(n, 256) block=(256) args=(x)
// @launch k grid=(1) block=(1) args=(x, n
// @launch k grid=(1) block=(1 args=(x)
// @launch k grid=(1) block=(1) smem=(4 * (n + 1) args=(x)
// @launch k grid=(1 maxnreg=128 block=(1) args=(x)
