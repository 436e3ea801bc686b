// Negative control: the textbook 32 x 32 shared-memory tile with the loads
// masked but the stores not. In a tile on the edge, threads whose output
// position lies outside Y still write: past the end of a row of Y (into the
// next row) and, in the last tile, past the end of Y into the judge's guard
// band, whenever R or C is not a multiple of 32.
// Expected verdict: Memory Violation.
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
        if (r < R && c < C)
            tile[ty + k][tx] = x[r * C + c];
    }
    __syncthreads();
    for (int k = 0; k < TILE; k += ROWS) {
        const long long c = c0 + ty + k, r = r0 + tx;
        y[c * R + r] = tile[tx][ty + k]; /* BUG: no (c < C && r < R) check */
    }
}
