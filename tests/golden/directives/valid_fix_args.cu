// Integer literal arguments (negative too) and names; args=() for a kernel without parameters.
// @const BLOCK=256
// @launch init grid=(1) block=(32) args=()
// @launch step grid=(cdiv(n, BLOCK), 1, 1) block=(BLOCK, 1) args=(x, out, n, -1, 0, 9223372036854775807, -9223372036854775808)
