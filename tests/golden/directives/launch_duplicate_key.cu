// @launch k grid=(1) block=(1) grid=(2) args=(x)
// @launch k grid=(1) block=(1) args=(x) args=(y) smem=0 smem=1
