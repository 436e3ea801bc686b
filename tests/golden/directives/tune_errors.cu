// @launch k grid=(1) block=(1) args=(x)
// @tune A=(1, 2, 2)
// @tune B=()
// @tune C=(1,, 3)
// @tune D=(1, n, 3)
// @tune E=(1, 2
// @tune F=4
// @tune G=(1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17)
// @tune void=(1, 2)
