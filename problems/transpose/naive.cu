// Naive but correct: one thread per element, reading X row-wise (a warp reads
// 32 adjacent floats of one row: coalesced) and writing Y column-wise (a warp
// writes 32 floats R*4 bytes apart: 32 separate memory transactions, each
// using 4 of its 32 bytes). Control: must be Accepted; it is the baseline the
// tiled kernel should beat by a wide margin.
//
// @const TX=32
// @const TY=8
// @launch transpose grid=(cdiv(C, TX), cdiv(R, TY)) block=(TX, TY) args=(X, Y, R, C)

extern "C" __global__ void transpose(const float* x, float* y, long long R, long long C)
{
    const long long j = (long long)blockIdx.x * blockDim.x + threadIdx.x;
    const long long i = (long long)blockIdx.y * blockDim.y + threadIdx.y;
    if (i < R && j < C)
        y[j * R + i] = x[i * C + j];
}
