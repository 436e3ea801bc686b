// Negative control: the swapped-index bug of a tiled transpose. Tiles are
// placed at their transposed position in Y, but the elements inside a tile
// are read back from shared memory in the order they were stored
// (tile[ty + k][tx] instead of tile[tx][ty + k]), so every tile is copied
// untransposed. Bounds are checked correctly. Only a 1 x 1 matrix survives.
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

    for (int k = 0; k < TILE; k += ROWS) {
        const long long r = r0 + ty + k, c = c0 + tx;
        tile[ty + k][tx] = (r < R && c < C) ? x[r * C + c] : 0.0f;
    }
    __syncthreads();
    for (int k = 0; k < TILE; k += ROWS) {
        const long long c = c0 + ty + k, r = r0 + tx;
        if (c < C && r < R)
            y[c * R + r] = tile[ty + k][tx]; /* BUG: should be tile[tx][ty + k] */
    }
}
