// @launch grid=(1) block=(1) args=(x)
// @launch 2fast grid=(1) block=(1) args=(x)
// @launch my-kernel grid=(1) block=(1) args=(x)
// @launch k_aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa grid=(1) block=(1) args=(x)
