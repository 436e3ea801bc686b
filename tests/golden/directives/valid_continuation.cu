// A directive ending in '\' continues on the next // line: the text after
// the comment marker and its blanks is appended as it is.
// @const BLOCK=256
// @launch add grid=(cdiv(n, BLOCK)) \
//         block=(BLOCK) \
//   smem=(4 * BLOCK) args=(x, \
//   y, out, n)
  //   @launch add grid=(1) block=(1) args=(x, y, out, n) \
  //
// @launch add grid=(cdiv(n, \
// BLOCK)) block=(BLOCK) args=(x, y, out, n) \   
//
int x; // @launch not_a_directive grid=(1) \
// @const AFTER_CODE=1
