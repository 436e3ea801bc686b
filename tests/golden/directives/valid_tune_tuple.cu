// A tuple tune line: one configuration per tuple (2 here), times the values
// of the other tune lines (3): 6 configurations. Values may repeat in a column.
// @tune (BM, BN, W)=((64, 128, 4), (128, 128, 8))
// @tune STAGES=(2, 3, 4)
//@tune (U,V)=((1,2))
// @tune ( X , Y ) = ( ( -1 , 2 ) , (3, -4) , \
//     (5, 6) )
// @launch matmul grid=(cdiv(N, BN), cdiv(M, BM)) block=(32 * W) smem=((BM + BN) * 32 * 2 * STAGES) args=(A, B, C, M, N, K)
