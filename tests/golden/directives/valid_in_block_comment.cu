/*
// @launch inside_block_comment grid=(1) block=(1) args=(x)
   The rule is lexical: the line above is a directive even inside a block comment.
   @launch here is not: this line does not start with //.
*/
#if 0
// @const IN_IF_ZERO=1
#endif
const char *s = "// @launch not_here grid=(1)";
