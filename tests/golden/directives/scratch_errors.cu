// @launch k grid=(1) block=(1) args=(x, ws)
// @scratch ws flaot[n]
// @scratch ws fp32 n
// @scratch ws fp32[n
// @scratch ws fp32[]
// @scratch ws fp32[n * 0.5]
// @scratch ws fp32[n] extra
// @scratch
// @scratch 1ws fp32[n]
// @scratch ws
// @scratch ws[n]
// @scratch ws fp32[n / ]
