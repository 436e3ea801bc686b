// Reference for the grouped program-id matmul, fp64, two launches:
// - matmul_ref: one thread per element of C: C[i][j] = sum_k A[i][k] B[k][j]
//   and its accumulation scale C_scale[i][j] = sum_k |A[i][k] B[k][j]|
//   (products of fp16 values are exact in fp64);
// - tile_order_ref: one thread per program id of the 1-D grid of 128 x 128
//   tiles, writing the tile Triton's grouped ordering gives it:
//     num_m = cdiv(M, 128), num_n = cdiv(N, 128), in_group = GROUP_M * num_n,
//     first_m = (pid / in_group) * GROUP_M,
//     rows = min(num_m - first_m, GROUP_M),
//     tile_m = first_m + (pid % in_group) % rows,
//     tile_n = (pid % in_group) / rows,
//     tile_order[pid] = tile_m * num_n + tile_n.
// Any M, N, K >= 1, GROUP_M >= 1; 64-bit indices.
//
// @launch matmul_ref grid=(cdiv(N, 32), cdiv(M, 8)) block=(32, 8) args=(A, B, C, C_scale, M, N, K)
// @launch tile_order_ref grid=(cdiv(cdiv(M, 128) * cdiv(N, 128), 256)) block=(256) args=(tile_order, M, N, GROUP_M)

#include <cuda_fp16.h>

extern "C" __global__ void matmul_ref(const __half *A, const __half *B, double *C, double *C_scale,
                                      long long M, long long N, long long K)
{
    const long long j = (long long)blockIdx.x * blockDim.x + threadIdx.x;
    const long long i = (long long)blockIdx.y * blockDim.y + threadIdx.y;
    if (i >= M || j >= N)
        return;
    double dot = 0.0, scale = 0.0;
    for (long long k = 0; k < K; k++) {
        const double p = (double)__half2float(A[i * K + k]) * (double)__half2float(B[k * N + j]);
        dot += p;
        scale += fabs(p);
    }
    C[i * N + j] = dot;
    C_scale[i * N + j] = scale;
}

extern "C" __global__ void tile_order_ref(long long *tile_order, long long M, long long N,
                                          int group_m)
{
    const long long num_m = (M + 127) / 128, num_n = (N + 127) / 128;
    const long long pid = (long long)blockIdx.x * blockDim.x + threadIdx.x;
    if (pid >= num_m * num_n)
        return;
    const long long in_group = (long long)group_m * num_n;
    const long long first_m = pid / in_group * group_m;
    const long long rows = min(num_m - first_m, (long long)group_m);
    const long long tile_m = first_m + (pid % in_group) % rows;
    const long long tile_n = (pid % in_group) / rows;
    tile_order[pid] = tile_m * num_n + tile_n;
}
