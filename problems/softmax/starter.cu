// Row-wise softmax: Y[r][j] = exp(X[r][j] - max_k X[r][k]) / sum_k exp(X[r][k] - max_k X[r][k]).
//
// X and Y are M x N, row-major (row r starts at r * N). N <= 16384.
// The launch below gives each row one block of BLOCK threads.
//
// @const BLOCK=256
// @launch softmax_rows grid=(M) block=(BLOCK) args=(X, Y, M, N)

extern "C" __global__ void softmax_rows(const float* x, float* y, long long m, long long n)
{
    const long long row = blockIdx.x;
    const float* xr = x + row * n;
    float* yr = y + row * n;

    // TODO:
    // 1. find the row's maximum (each thread scans a strided part of the row,
    //    then the threads of the block combine their results);
    // 2. sum exp(x - max) over the row the same way;
    // 3. write yr[j] = exp(xr[j] - max) / sum for every j < n.
}
