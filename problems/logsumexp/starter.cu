// Row-wise LogSumExp: lse[r] = log(sum_j exp(X[r][j])), computed stably as
//   m = max_j X[r][j],  lse[r] = m + log(sum_j exp(X[r][j] - m)).
// A row whose entries are all -inf has lse = -inf.
//
// X is M x N, row-major (row r starts at r * N); lse has M entries. N <= 16384.
// The launch below gives each row one block of BLOCK threads.
//
// @const BLOCK=256
// @launch logsumexp grid=(M) block=(BLOCK) args=(X, lse, M, N)

extern "C" __global__ void logsumexp(const float* x, float* lse, long long m, long long n)
{
    const long long row = blockIdx.x;
    const float* xr = x + row * n;

    // TODO:
    // 1. find the row's maximum (each thread scans a strided part of the row,
    //    then the threads of the block combine their results);
    // 2. sum exp(x - max) over the row the same way;
    // 3. thread 0 writes lse[row] = max + log(sum).
}
