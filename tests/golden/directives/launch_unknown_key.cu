// @launch k grd=(cdiv(n, 256)) block=(256) args=(x)
// @launch k grid=(1) blocks=(1) shared=1024 args=(x)
// @launch k grid=(1) block=(1) args=(x) stream=2
// @launch k grid=(1) block=(1) args=(x) 5
// @launch k grid=(1) block=(1) args=(x) smem 4
// @launch k grid=(1) block=(1) maxnreg=128 args=(x)
