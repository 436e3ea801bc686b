// Reference for the transpose: one thread per element of Y, Y[j][i] = X[i][j],
// converted to double (exact). Threads of a warp take adjacent i, so the
// writes of Y are contiguous. The grid's y dimension is capped at 65535 and
// walks the rest of the columns of X in a loop. Any R, C >= 1; 64-bit indices.
//
// @launch transpose_ref grid=(cdiv(R, 32), min(cdiv(C, 8), 65535)) block=(32, 8) args=(X, Y, R, C)

extern "C" __global__ void transpose_ref(const float* X, double* Y, long long R, long long C)
{
    const long long i = (long long)blockIdx.x * 32 + threadIdx.x; /* row of X, column of Y */
    if (i >= R)
        return;
    for (long long j = (long long)blockIdx.y * 8 + threadIdx.y; j < C; j += (long long)gridDim.y * 8)
        Y[j * R + i] = (double)X[i * C + j];
}
