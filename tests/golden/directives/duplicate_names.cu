// @launch k grid=(1) block=(1) args=(x, BLOCK)
// @const BLOCK=128
// @const BLOCK=256
// @tune BLOCK=(1, 2)
// @scratch BLOCK fp32[1]
// @scratch ws fp32[1]
// @tune ws=(1, 2)
// @const ws=1
