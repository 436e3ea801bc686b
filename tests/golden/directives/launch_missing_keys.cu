// @launch k grid=(1) args=(x)
// @launch k block=(1) args=(x)
// @launch k grid=(1) block=(1)
// @launch k
// @launch
