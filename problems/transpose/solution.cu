// Tiled transpose through shared memory: both the reads of X and the writes
// of Y are coalesced.
//
// A block of 32 x 8 threads moves one TILE x TILE = 64 x 64 tile: it reads the
// tile's 64 rows of X (each warp reads 32 adjacent floats of a row, twice),
// stores them into shared memory, and after a barrier reads the tile back by
// columns to write 64 rows of Y (again 32 adjacent floats per warp). Each
// thread moves 16 elements, all 16 loads issued before the first store, so
// plenty of bytes are in flight per SM. The tile's rows are padded by one
// float (TILE + 1 = 65 words, 65 mod 32 = 1): reading a column then touches 32
// different banks instead of one bank 32 times.
//
// Interior tiles take an unmasked path; tiles on the right or bottom edge
// (R or C not a multiple of 64) check every index. Indices are 64-bit.
//
// @const TILE=64
// @launch transpose grid=(cdiv(C, TILE), cdiv(R, TILE)) block=(32, 8) args=(X, Y, R, C)

#define BX 32
#define BY 8
#define CPT (TILE / BX) /* columns of the tile per thread */
#define RPT (TILE / BY) /* rows of the tile per thread */

static_assert(TILE % BX == 0 && TILE % BY == 0, "the tile must split evenly over the block");

extern "C" __global__ void __launch_bounds__(BX * BY)
transpose(const float* __restrict__ x, float* __restrict__ y, long long R, long long C)
{
    __shared__ float tile[TILE][TILE + 1];

    const long long r0 = (long long)blockIdx.y * TILE; /* first row of X in this tile */
    const long long c0 = (long long)blockIdx.x * TILE; /* first column of X in this tile */
    const int tx = threadIdx.x, ty = threadIdx.y;
    const bool full = r0 + TILE <= R && c0 + TILE <= C;

    float v[RPT][CPT];
    if (full) {
        const float* src = x + (r0 + ty) * C + c0 + tx;
#pragma unroll
        for (int i = 0; i < RPT; i++)
#pragma unroll
            for (int j = 0; j < CPT; j++)
                v[i][j] = src[(long long)i * BY * C + j * BX];
    } else {
#pragma unroll
        for (int i = 0; i < RPT; i++)
#pragma unroll
            for (int j = 0; j < CPT; j++) {
                const long long r = r0 + ty + i * BY, c = c0 + tx + j * BX;
                v[i][j] = (r < R && c < C) ? x[r * C + c] : 0.0f;
            }
    }
#pragma unroll
    for (int i = 0; i < RPT; i++)
#pragma unroll
        for (int j = 0; j < CPT; j++)
            tile[ty + i * BY][tx + j * BX] = v[i][j];
    __syncthreads();

    // Row c of Y holds column c of X: Y[c][r] = tile[r - r0][c - c0].
    if (full) {
        float* dst = y + (c0 + ty) * R + r0 + tx;
#pragma unroll
        for (int i = 0; i < RPT; i++)
#pragma unroll
            for (int j = 0; j < CPT; j++)
                dst[(long long)i * BY * R + j * BX] = tile[tx + j * BX][ty + i * BY];
    } else {
#pragma unroll
        for (int i = 0; i < RPT; i++)
#pragma unroll
            for (int j = 0; j < CPT; j++) {
                const long long c = c0 + ty + i * BY, r = r0 + tx + j * BX;
                if (c < C && r < R)
                    y[c * R + r] = tile[tx + j * BX][ty + i * BY];
            }
    }
}
