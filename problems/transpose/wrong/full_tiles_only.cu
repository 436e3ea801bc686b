// Negative control: a 32 x 32 tiled transpose written for sizes that are
// multiples of 32 (it was only tried on 4096 x 4096): a block whose tile
// crosses the right or bottom edge returns without doing anything, so the
// last R % 32 columns and C % 32 rows of Y keep their NaN poison.
// Expected verdict: Wrong Answer.
//
// @const TILE=32
// @const ROWS=8
// @launch transpose grid=(cdiv(C, TILE), cdiv(R, TILE)) block=(TILE, ROWS) args=(X, Y, R, C)

extern "C" __global__ void transpose(const float* x, float* y, long long R, long long C)
{
    __shared__ float tile[TILE][TILE + 1];
    const long long r0 = (long long)blockIdx.y * TILE, c0 = (long long)blockIdx.x * TILE;
    const int tx = threadIdx.x, ty = threadIdx.y;
    if (r0 + TILE > R || c0 + TILE > C)
        return; /* BUG: partial tiles are skipped */

    for (int k = 0; k < TILE; k += ROWS)
        tile[ty + k][tx] = x[(r0 + ty + k) * C + c0 + tx];
    __syncthreads();
    for (int k = 0; k < TILE; k += ROWS)
        y[(c0 + ty + k) * R + r0 + tx] = tile[tx][ty + k];
}
