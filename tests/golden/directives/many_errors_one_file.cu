// Errors on several kinds of lines are all reported, in line order.
// @const BLOCK=abc
// @launch k grid=(cdiv(n, BLOCK) block=(BLOCK) args=(x)
// @scratch ws half[n]
// @tune T=(1, x)
// @flags -O3
// @nope
