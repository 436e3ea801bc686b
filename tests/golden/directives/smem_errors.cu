// @launch k grid=(1) block=(1) smem= args=(x)
// @launch k grid=(1) block=(1) smem=4 * n args=(x)
// @launch k grid=(1) block=(1) smem=0.5 args=(x)
// @launch k grid=(1) block=(1) smem=(1024)x args=(x)
