// Reference for attention forward, fp64: O, its accumulation scale, and LSE.
//   s_ij = scale * sum_d Q[i][d] K[j][d]       (-inf where causal and j > i)
//   m_i = max_j s_ij,  l_i = sum_j exp(s_ij - m_i),  p_ij = exp(s_ij - m_i) / l_i
//   O[i][d] = sum_j p_ij V[j][d]
//   O_scale[i][d] = sum_j p_ij |V[j][d]|   (S of the tolerance's acc term)
//   LSE[i] = m_i + log(l_i)                (natural log)
// Two plain passes over the keys, no online rescaling: the first finds m_i,
// the second sums l_i and the unnormalised O and O_scale, divided by l_i at
// the end. All arithmetic is fp64; fp16 inputs are exact in it.
//
// One block of 128 threads handles 16 query rows of one (b, h), so that the
// keys and values it stages in shared memory (64 at a time, as float, which
// is exact for fp16) serve 16 rows; scores are recomputed in the second pass
// rather than stored. In a tile, thread t computes the scores of row t / 8
// with keys t % 8, t % 8 + 8, ...; for the output it owns the elements
// t, t + 128, ... of the 16 x D block (at most 16). Any D <= 128; with
// causal masking a block stops after the key of its last row.
//
// @launch attention_ref grid=(cdiv(Sq, 16), B*H) block=(128) smem=(640*D + 8448) args=(Q, K, V, O, O_scale, LSE, scale, causal, B, H, Sq, Skv, D)
// @rows attention_ref_rows rows=(B*H*Sq) block=(128) smem=(8*D + 1024)

#include <cuda_fp16.h>

#define ROWS 16  /* query rows per block */
#define KEYS 64  /* keys per tile */
#define THREADS 128

extern "C" __global__ void attention_ref(const __half* Q, const __half* K, const __half* V,
                                         double* O, double* O_scale, double* LSE, float scale,
                                         int causal, long long B, long long H, long long Sq,
                                         long long Skv, long long D)
{
    extern __shared__ __align__(16) unsigned char smem[];
    double* q = (double*)smem;                     /* [ROWS][D] */
    double* p = q + ROWS * D;                      /* [ROWS][KEYS] */
    float* k = (float*)(p + ROWS * KEYS);          /* [KEYS][D + 1] (padded) */
    float* v = k + KEYS * (D + 1);                 /* [KEYS][D] */
    __shared__ double m_row[ROWS], l_row[ROWS];

    const int t = threadIdx.x;
    const long long bh = blockIdx.y, q0 = (long long)blockIdx.x * ROWS;
    const __half* Qh = Q + bh * Sq * D;
    const __half* Kh = K + bh * Skv * D;
    const __half* Vh = V + bh * Skv * D;
    const double sc = (double)scale;
    const double neg_inf = -__longlong_as_double(0x7ff0000000000000ll);
    const long long kv_end = causal ? min(Skv, q0 + ROWS) : Skv;

    for (long long e = t; e < ROWS * D; e += THREADS) {
        const long long r = e / D, d = e % D;
        q[e] = q0 + r < Sq ? (double)__half2float(Qh[(q0 + r) * D + d]) : 0.0;
    }

    /* Thread t scores row sr with keys sk + 8u, u < 8. */
    const int sr = t / 8, sk = t % 8;
    const long long qi = q0 + sr;
    double m = neg_inf, l = 0.0;
    double acc[16], sacc[16];
    for (int u = 0; u < 16; u++)
        acc[u] = sacc[u] = 0.0;

    for (int pass = 0; pass < 2; pass++) {
        if (pass == 1) {
            /* Row maxima: combine the 8 threads of each row. */
            for (int o = 4; o > 0; o >>= 1)
                m = fmax(m, __shfl_xor_sync(0xffffffffu, m, o));
        }
        for (long long j0 = 0; j0 < kv_end; j0 += KEYS) {
            __syncthreads(); /* the previous tile is no longer read */
            for (long long e = t; e < KEYS * D; e += THREADS) {
                const long long r = e / D, d = e % D;
                const bool ok = j0 + r < kv_end;
                k[r * (D + 1) + d] = ok ? __half2float(Kh[(j0 + r) * D + d]) : 0.0f;
                v[r * D + d] = ok ? __half2float(Vh[(j0 + r) * D + d]) : 0.0f;
            }
            __syncthreads();
            for (int u = 0; u < 8; u++) {
                const int kk = sk + 8 * u;
                const long long j = j0 + kk;
                double s = neg_inf;
                if (j < kv_end && !(causal && j > qi)) {
                    double dot = 0.0;
                    for (long long d = 0; d < D; d++)
                        dot += q[sr * D + d] * (double)k[kk * (D + 1) + d];
                    s = sc * dot;
                }
                if (pass == 0) {
                    m = fmax(m, s);
                } else {
                    const double pe = s == neg_inf ? 0.0 : exp(s - m);
                    l += pe;
                    p[sr * KEYS + kk] = pe;
                }
            }
            if (pass == 1) {
                __syncthreads(); /* p is complete */
                for (int u = 0; u < 16; u++) {
                    const long long e = t + (long long)u * THREADS;
                    if (e >= ROWS * D)
                        break;
                    const long long r = e / D, d = e % D;
                    for (int kk = 0; kk < KEYS; kk++) {
                        const double pv = p[r * KEYS + kk];
                        acc[u] += pv * (double)v[kk * D + d];
                        sacc[u] += pv * fabs((double)v[kk * D + d]);
                    }
                }
            }
        }
    }

    for (int o = 4; o > 0; o >>= 1)
        l += __shfl_xor_sync(0xffffffffu, l, o);
    if (sk == 0) {
        m_row[sr] = m;
        l_row[sr] = l;
    }
    __syncthreads();
    for (int u = 0; u < 16; u++) {
        const long long e = t + (long long)u * THREADS;
        if (e >= ROWS * D)
            break;
        const long long r = e / D, d = e % D;
        if (q0 + r < Sq) {
            O[(bh * Sq + q0 + r) * D + d] = acc[u] / l_row[r];
            O_scale[(bh * Sq + q0 + r) * D + d] = sacc[u] / l_row[r];
        }
    }
    if (t < ROWS && q0 + t < Sq)
        LSE[bh * Sq + q0 + t] = m_row[t] + log(l_row[t]);
}

/*
 * The rows kernel (@rows): row r = (b*H + h)*Sq + i of O, O_scale and LSE,
 * one block of 128 threads per listed row, for the checks of timed runs. It
 * sums in attention_ref's order, so its values are the same: each score's
 * dot product over d in order; m the exact maximum; l as attention_ref's 8
 * partial sums (keys j = k mod 8, in order) combined by its shuffle tree; and
 * each O and O_scale element summed over the keys in order. Thread t scores
 * key j0 + t of a tile of 128 keys and owns output dimension d = t.
 */
#define RKEYS 128 /* keys per tile of the rows kernel: one per thread */

extern "C" __global__ void attention_ref_rows(const __half* Q, const __half* K, const __half* V,
                                              double* O, double* O_scale, double* LSE, float scale,
                                              int causal, long long B, long long H, long long Sq,
                                              long long Skv, long long D, const long long* rows,
                                              long long n_rows)
{
    extern __shared__ __align__(16) unsigned char smem[];
    double* q = (double*)smem; /* [D] */
    double* p = q + D;         /* [RKEYS]: exp(s - m) of the tile's keys */
    __shared__ double red[THREADS];
    __shared__ double lpart[8];

    const int t = threadIdx.x;
    const long long r = rows[blockIdx.x], bh = r / Sq, i = r % Sq;
    const __half* Kh = K + bh * Skv * D;
    const __half* Vh = V + bh * Skv * D;
    const double sc = (double)scale;
    const double neg_inf = -__longlong_as_double(0x7ff0000000000000ll);
    const long long kv_end = causal ? min(Skv, i + 1) : Skv;

    for (long long d = t; d < D; d += THREADS)
        q[d] = (double)__half2float(Q[r * D + d]);
    __syncthreads();

    /* Pass 0: the row's maximum score. */
    double m = neg_inf;
    for (long long j = t; j < kv_end; j += THREADS) {
        double dot = 0.0;
        for (long long d = 0; d < D; d++)
            dot += q[d] * (double)__half2float(Kh[j * D + d]);
        m = fmax(m, sc * dot);
    }
    red[t] = m;
    __syncthreads();
    for (int s = THREADS / 2; s > 0; s >>= 1) {
        if (t < s)
            red[t] = fmax(red[t], red[t + s]);
        __syncthreads();
    }
    m = red[0];

    /* Pass 1: l's 8 partial sums (threads 0-7), O and O_scale (thread d). */
    double l8 = 0.0, acc = 0.0, sacc = 0.0;
    for (long long j0 = 0; j0 < kv_end; j0 += RKEYS) {
        const long long j = j0 + t, n = min((long long)RKEYS, kv_end - j0);
        double pe = 0.0;
        if (j < kv_end) {
            double dot = 0.0;
            for (long long d = 0; d < D; d++)
                dot += q[d] * (double)__half2float(Kh[j * D + d]);
            const double s = sc * dot;
            pe = s == neg_inf ? 0.0 : exp(s - m);
        }
        __syncthreads(); /* the previous tile's p is no longer read */
        p[t] = pe;
        __syncthreads();
        if (t < 8)
            for (long long kk = t; kk < n; kk += 8)
                l8 += p[kk];
        if (t < D)
            for (long long kk = 0; kk < n; kk++) {
                const double v = (double)__half2float(Vh[(j0 + kk) * D + t]);
                acc += p[kk] * v;
                sacc += p[kk] * fabs(v);
            }
    }
    if (t < 8)
        lpart[t] = l8;
    __syncthreads();
    /* attention_ref's __shfl_xor_sync tree over its 8 lanes (xor 4, 2, 1) */
    const double l = ((lpart[0] + lpart[4]) + (lpart[2] + lpart[6])) +
                     ((lpart[1] + lpart[5]) + (lpart[3] + lpart[7]));
    if (t < D) {
        O[r * D + t] = acc / l;
        O_scale[r * D + t] = sacc / l;
    }
    if (t == 0)
        LSE[r] = m + log(l);
}
