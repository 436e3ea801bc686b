// Mean cross-entropy, fused: each row of logits is read once, as 16-byte
// loads, with an online log-sum-exp; no probability or log-softmax tensor.
//
// ce_rows: one block of THREADS per row. The row (V bf16 values, V * 2 bytes)
// is split into a head of up to 7 elements before the first 16-byte boundary
// (rows start at any even address when V is odd), a body of 16-byte chunks of
// 8 values, and a tail. Each thread keeps a running maximum m and a running
// sum s of exp(z - m) over its elements: per chunk it takes the maximum of the
// 8 values, rescales s once if the maximum grew, then adds the 8 exponentials
// 2^((z - m) * log2 e), with z - m exact for bf16 values and the power of two
// a single ex2.approx.ftz instruction (relative error below 2^-22; flushing
// results below 2^-126 to 0 changes no sum that matters). UNROLL chunks are
// loaded before any arithmetic so several loads are in flight per thread. The
// (m, s) pairs are merged across the block (warp shuffles, then shared
// memory), and thread 0 writes (max - z[t]) + log(s) for the row (ignored
// rows write 0 and return at once: the whole block agrees on it).
//
// ce_mean: one block adds the row losses and counts the targets that are not
// ignore_index, and writes their quotient (0/0 = NaN if every row is ignored,
// as in PyTorch). Dividing by M instead would be wrong whenever a row is
// ignored.
//
// @const THREADS=256
// @const UNROLL=4
// @scratch row_loss fp32[M]
// @launch ce_rows grid=(M) block=(THREADS) args=(Z, t, row_loss, ignore_index, M, V)
// @launch ce_mean grid=(1) block=(1024) args=(row_loss, t, loss, ignore_index, M)

#include <cuda_bf16.h>

#define L2E 1.4426950408889634f
#define WARPS (THREADS / 32)

__device__ __forceinline__ float neg_inf()
{
    return __int_as_float(0xff800000);
}

// 2^x in one MUFU.EX2 (exp2f without -ftz adds range handling around it).
__device__ __forceinline__ float exp2_fast(float x)
{
    float y;
    asm("ex2.approx.ftz.f32 %0, %1;" : "=f"(y) : "f"(x));
    return y;
}

// exp(a - m) * s for a <= m, with exp(-inf - -inf) taken as 1 (both empty).
__device__ __forceinline__ float rescale(float s, float a, float m)
{
    return a == m ? s : s * exp2_fast((a - m) * L2E);
}

// Merges (m2, s2) into (m, s).
__device__ __forceinline__ void merge(float& m, float& s, float m2, float s2)
{
    const float mx = fmaxf(m, m2);
    s = rescale(s, m, mx) + rescale(s2, m2, mx);
    m = mx;
}

__device__ __forceinline__ void add_one(float& m, float& s, float v)
{
    if (v > m) {
        s = rescale(s, m, v);
        m = v;
    }
    s += exp2_fast((v - m) * L2E);
}

// Adds 8 bf16 values packed in q.
__device__ __forceinline__ void add_chunk(float& m, float& s, uint4 q)
{
    const unsigned w[4] = {q.x, q.y, q.z, q.w};
    float v[8];
#pragma unroll
    for (int e = 0; e < 4; e++) {
        v[2 * e] = __uint_as_float(w[e] << 16);
        v[2 * e + 1] = __uint_as_float(w[e] & 0xffff0000u);
    }
    float cm = v[0];
#pragma unroll
    for (int e = 1; e < 8; e++)
        cm = fmaxf(cm, v[e]);
    if (cm > m) {
        s = rescale(s, m, cm);
        m = cm;
    }
#pragma unroll
    for (int e = 0; e < 8; e++)
        s += exp2_fast((v[e] - m) * L2E);
}

extern "C" __global__ void __launch_bounds__(THREADS)
ce_rows(const __nv_bfloat16* __restrict__ Z, const int* __restrict__ t, float* __restrict__ row_loss,
        int ignore_index, long long M, long long V)
{
    __shared__ float sm_m[WARPS], sm_s[WARPS];
    const long long row = blockIdx.x;
    const int target = t[row];
    if (target == ignore_index)
        return; /* row_loss[row] stays 0 (scratch is zeroed) */
    const __nv_bfloat16* z = Z + row * V;
    const int k = threadIdx.x;

    const unsigned mis = (unsigned)(reinterpret_cast<unsigned long long>(z) & 15u);
    const long long head = min(V, (long long)(((16u - mis) & 15u) >> 1));
    const long long chunks = (V - head) >> 3;
    const long long tail = head + chunks * 8;

    float m = neg_inf(), s = 0.0f;
    if (k < head)
        add_one(m, s, __bfloat162float(z[k]));
    const uint4* body = reinterpret_cast<const uint4*>(z + head);
    for (long long c = k; c < chunks; c += (long long)THREADS * UNROLL) {
        uint4 q[UNROLL];
#pragma unroll
        for (int u = 0; u < UNROLL; u++)
            if (c + (long long)u * THREADS < chunks)
                q[u] = __ldcs(body + c + (long long)u * THREADS);
#pragma unroll
        for (int u = 0; u < UNROLL; u++)
            if (c + (long long)u * THREADS < chunks)
                add_chunk(m, s, q[u]);
    }
    for (long long j = tail + k; j < V; j += THREADS)
        add_one(m, s, __bfloat162float(z[j]));

#pragma unroll
    for (int o = 16; o > 0; o >>= 1) {
        const float m2 = __shfl_xor_sync(0xffffffffu, m, o);
        const float s2 = __shfl_xor_sync(0xffffffffu, s, o);
        merge(m, s, m2, s2);
    }
    if ((k & 31) == 0) {
        sm_m[k >> 5] = m;
        sm_s[k >> 5] = s;
    }
    __syncthreads();
    if (k == 0) {
        m = sm_m[0];
        s = sm_s[0];
        for (int w = 1; w < WARPS; w++)
            merge(m, s, sm_m[w], sm_s[w]);
        row_loss[row] = (m - __bfloat162float(z[target])) + logf(s);
    }
}

extern "C" __global__ void __launch_bounds__(1024)
ce_mean(const float* __restrict__ row_loss, const int* __restrict__ t, float* __restrict__ loss, int ignore_index,
        long long M)
{
    __shared__ float sm_sum[32];
    __shared__ int sm_cnt[32];
    const int k = threadIdx.x;
    float sum = 0.0f;
    int cnt = 0;
    for (long long i = k; i < M; i += 1024) {
        sum += row_loss[i];
        cnt += t[i] != ignore_index;
    }
#pragma unroll
    for (int o = 16; o > 0; o >>= 1) {
        sum += __shfl_xor_sync(0xffffffffu, sum, o);
        cnt += __shfl_xor_sync(0xffffffffu, cnt, o);
    }
    if ((k & 31) == 0) {
        sm_sum[k >> 5] = sum;
        sm_cnt[k >> 5] = cnt;
    }
    __syncthreads();
    if (k == 0) {
        sum = 0.0f;
        cnt = 0;
        for (int w = 0; w < 32; w++) {
            sum += sm_sum[w];
            cnt += sm_cnt[w];
        }
        loss[0] = sum / (float)cnt;
    }
}
