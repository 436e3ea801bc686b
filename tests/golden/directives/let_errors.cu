// @let A1 = A1 + 1
// @let B1 = C1 * 2
// @let C1 = 4
// @const K1=1
// @let K1 = 2
// @let cdiv = 3
// @let max = 3
// @let E1 =
// @let E2 = 1 +
// @let E3 = 2.5
// @let E4 = N < M < K
// @let E5 = N ? 1
// @let 9x = 1
// @let NOEQ 1
// @let E6 = (1
// @let E7 = N = 1
// @launch k grid=(1) block=(1) args=(x)
