// Reference for RoPE (rotate-half / NeoX convention): one thread per output
// element, fp64. For token t at position p = positions[t], channel pair i < D/2
// with c = cos_table[p][i], s = sin_table[p][i], and every head of x:
//   out[i]       = x[i] * c - x[i + D/2] * s
//   out[i + D/2] = x[i + D/2] * c + x[i] * s
// and the scale S = |x[i] * c| + |x[i + D/2] * s| (the same for both), which
// the tolerance multiplies. One kernel, launched once for q (Hq heads) and
// once for k (Hk heads). bf16 and fp32 inputs are exact in fp64.
//
// @launch rope_ref grid=(cdiv(T*Hq*D, 256)) block=(256) args=(q, q_out, q_out_scale, positions, cos_table, sin_table, T, Hq, D)
// @launch rope_ref grid=(cdiv(T*Hk*D, 256)) block=(256) args=(k, k_out, k_out_scale, positions, cos_table, sin_table, T, Hk, D)

#include <cuda_bf16.h>

extern "C" __global__ void rope_ref(const __nv_bfloat16* x, double* out, double* out_scale,
                                    const int* positions, const float* cos_table,
                                    const float* sin_table, long long T, long long heads,
                                    long long D)
{
    const long long e = (long long)blockIdx.x * blockDim.x + threadIdx.x;
    if (e >= T * heads * D)
        return;
    const long long half = D / 2;
    const long long j = e % D;                /* channel */
    const long long t = e / (heads * D);      /* token */
    const long long row = e - j;              /* first element of this head's row */
    const long long i = j < half ? j : j - half; /* pair index */
    const long long p = positions[t];
    const double c = cos_table[p * half + i];
    const double s = sin_table[p * half + i];
    const double x1 = (double)__bfloat162float(x[row + i]);
    const double x2 = (double)__bfloat162float(x[row + i + half]);
    out[e] = j < half ? x1 * c - x2 * s : x2 * c + x1 * s;
    out_scale[e] = fabs(x1 * c) + fabs(x2 * s);
}
