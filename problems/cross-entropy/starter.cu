// Mean cross-entropy of the rows of Z (M x V logits, bf16, row-major) with
// integer targets t (M, int32):
//   loss_i = log(sum_j exp(Z[i][j])) - Z[i][t[i]]      for rows with t[i] != ignore_index
//   loss   = (sum of loss_i over those rows) / (number of those rows)
// Compute in fp32 (subtract the row maximum before exp); loss is one fp32 value.
//
// The first launch gives each row a block of BLOCK threads and a slot in the
// zeroed scratch buffer row_loss; the second launch, one thread, combines them.
//
// @const BLOCK=256
// @scratch row_loss fp32[M]
// @launch ce_rows grid=(M) block=(BLOCK) args=(Z, t, row_loss, ignore_index, M, V)
// @launch ce_mean grid=(1) block=(1) args=(row_loss, t, loss, ignore_index, M)

#include <cuda_bf16.h>

extern "C" __global__ void ce_rows(const __nv_bfloat16* Z, const int* t, float* row_loss, int ignore_index,
                                   long long M, long long V)
{
    const long long row = blockIdx.x;
    const __nv_bfloat16* z = Z + row * V;

    // TODO: if t[row] != ignore_index, compute the row's loss
    // (max, then sum of exp(z - max), then log) and store it in row_loss[row].
}

extern "C" __global__ void ce_mean(const float* row_loss, const int* t, float* loss, int ignore_index, long long M)
{
    // TODO: loss[0] = (sum of row_loss over rows not ignored) / (their number).
}
