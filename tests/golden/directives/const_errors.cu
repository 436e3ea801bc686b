// @launch k grid=(1) block=(1) args=(x)
// @const BLOCK=256.0
// @const BLOCK=2*128
// @const BLOCK
// @const BLOCK=
// @const =256
// @const int=3
// @const __FOO=1
// @const _Bar=1
// @const max=4
// @const threadIdx=1
// @const BIG=9223372036854775808
// @const SMALL=-9223372036854775808
// @const C=7 // threads
// @const D=7 x
