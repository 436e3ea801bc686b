// @launch k grid=(1) block=(1) \
int not_a_comment;
// @launch k grid=(1) block=(1) \
// @const ON_ITS_OWN=1
// @launch k grid=(1) \
//   block=(1) args=(x, ) smem=4*
// @launch k grid=(1) \
//   block=(1 args=(x)
// @launch k grid=(1) block=(1) \
//   args=(x) \
//   oops=1
/* @launch k grid=(1) block=(1) args=(x) \ */
// @const B=1 \
