// @launch k grid=(1) block=(1) args=(x)
// @lanch k grid=(1) block=(1) args=(x)
// @param x the input vector
// @
//@Launch k
// @const@x
