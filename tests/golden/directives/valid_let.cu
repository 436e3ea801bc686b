// The @let directive: named values evaluated for each case, in file order; each may use
// sizes, @const and @tune names and the @let lines above it.
// @const BK=32
// @tune BM=(64, 128)
// @let Kp = cdiv(K, BK) * BK
// @let PACK = N % 16 != 0 || K % 16 != 0
// @let TILES = cdiv(M, BM) * cdiv(N, 128)
// @let SAFE = N > 0 ? K / N : 0
//@let   spaced   =   (Kp + 1)   *   2
// @let LONG = PACK ? \
//     M * Kp : \
//     1
// @scratch Ap fp32[LONG]
// @launch sgemm grid=(TILES) block=(256) smem=(PACK * 4096) args=(A, B, C, Ap, M, N, K, Kp, SAFE)
