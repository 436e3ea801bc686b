// @launch crlf grid=(cdiv(n, 128)) block=(128) args=(x, n)
// @const K=-3
