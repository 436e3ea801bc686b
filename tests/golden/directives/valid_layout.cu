//@const TX=32
	//	@const TY = 8
// @launch   transpose   block = (TX, TY)   args = ( in , out , rows , cols )	grid = ( cdiv(cols, TX) , cdiv(rows, TY) , 1 )
// Keys may come in any order, with blanks around '=' and inside the parentheses.
// A line that does not start with // is never a directive: x = 1; // @launch not_this
int x = 1; // @launch not_a_directive grid=(
