# SGEMM, C = A B in exact fp32: tiles in shared memory, tl.dot on the FMA units,
# with the operands packed into aligned buffers first when their row strides
# are not multiples of 16.
#
# The tile kernel is the one of the aligned shapes: each program computes one
# BM x BN tile of C, walks K in BK-wide steps and accumulates
# tl.dot(a, b, acc, input_precision="ieee") (exact fp32 FMAs; the default for
# fp32 blocks is TF32, which this problem's tolerance rejects). Rows of A and
# columns of B past the edges are wrapped (% M, % N) onto real ones, programs
# run in groups of GROUP_M tile rows, row offsets are int64.
#
# Why the packing: on 8205 x 5921 x 2949 the row strides N = 5921 and
# K = 2949 are not multiples of 16, so Triton's JIT marks neither divisible by
# 16. Its axis analysis then proves no alignment for any row after the first:
# every load is split into 4-byte pieces (no 16-byte vectors, four times the
# cp.async copies and address registers per thread), and the K-tail mask is
# per element. The same kernel reaches ~45 TFLOP/s on 4096^3 and only ~19 on
# the odd shape. So when N or K is not a multiple of 16, two small launches
# first copy A into Ap [M x Kp] and B into Bp [Kp x Np], Kp = K rounded up to
# 32 (a whole number of BK steps) and Np = N rounded up to 128 (a whole number
# of BN tiles); the pad is the zero the judge fills scratch with, and zeros add
# nothing. The tile kernel then reads the packed copies with strides Kp and
# Np, which are multiples of 16 (16-byte cp.async) and need no mask in the K
# loop at all: the code of the aligned shapes. The copy moves about 4 bytes
# in and 4 out per element of A and B (~0.34 GB on the odd shape, well under
# 0.1 ms against ~6.5 ms of arithmetic); only C, written once, keeps its odd
# stride. This is the "packing" step of BLAS libraries, done here for
# alignment rather than for locality.
#
# PACK (a compile-time switch) is 1 only when a stride is odd *and* the two
# copies fit in the problem's scratch cap (16 M N bytes): skinny cases such as
# 4096 x 1 x 4096 or 129 x 383 x 1025 keep the direct path, and so do the
# aligned shapes, whose builds are unchanged. With PACK = 0 the copy launches
# run one idle program each and the scratch is one element.
#
# Tuned as before: 64 x 128 (4 warps) or 128 x 128 tiles (8 warps), 64
# outputs per thread, a K step of 16 or 32.
#
# @tune BM=(64, 128)
# @const BN=128
# @tune BK=(16, 32)
# @const STAGES=3
# @const GROUP_M=8
# @scratch Ap fp32[min(1, N % 16 + K % 16) * min(1, 4 * M * N / (M * cdiv(K, 32) * 32 + cdiv(K, 32) * 32 * cdiv(N, 128) * 128)) * M * cdiv(K, 32) * 32 + 1]
# @scratch Bp fp32[min(1, N % 16 + K % 16) * min(1, 4 * M * N / (M * cdiv(K, 32) * 32 + cdiv(K, 32) * 32 * cdiv(N, 128) * 128)) * cdiv(K, 32) * 32 * cdiv(N, 128) * 128 + 1]
# @launch pack grid=(max(1, min(1, N % 16 + K % 16) * min(1, 4 * M * N / (M * cdiv(K, 32) * 32 + cdiv(K, 32) * 32 * cdiv(N, 128) * 128)) * cdiv(K, 128)), max(1, min(1, N % 16 + K % 16) * min(1, 4 * M * N / (M * cdiv(K, 32) * 32 + cdiv(K, 32) * 32 * cdiv(N, 128) * 128)) * cdiv(M, 32))) num_warps=4 args=(A, Ap, M, K, cdiv(K, 32) * 32, BR=32, BC=128, PACK=min(1, N % 16 + K % 16) * min(1, 4 * M * N / (M * cdiv(K, 32) * 32 + cdiv(K, 32) * 32 * cdiv(N, 128) * 128)))
# @launch pack grid=(max(1, min(1, N % 16 + K % 16) * min(1, 4 * M * N / (M * cdiv(K, 32) * 32 + cdiv(K, 32) * 32 * cdiv(N, 128) * 128)) * cdiv(N, 128)), max(1, min(1, N % 16 + K % 16) * min(1, 4 * M * N / (M * cdiv(K, 32) * 32 + cdiv(K, 32) * 32 * cdiv(N, 128) * 128)) * cdiv(K, 32))) num_warps=4 args=(B, Bp, K, N, cdiv(N, 128) * 128, BR=32, BC=128, PACK=min(1, N % 16 + K % 16) * min(1, 4 * M * N / (M * cdiv(K, 32) * 32 + cdiv(K, 32) * 32 * cdiv(N, 128) * 128)))
# @launch sgemm grid=(cdiv(M, BM) * cdiv(N, BN)) num_warps=(BM * BN / 2048) num_stages=STAGES args=(A, B, Ap, Bp, C, M, N, K, cdiv(K, 32) * 32, cdiv(N, 128) * 128, BM=BM, BN=BN, BK=BK, GROUP_M=GROUP_M, PACK=min(1, N % 16 + K % 16) * min(1, 4 * M * N / (M * cdiv(K, 32) * 32 + cdiv(K, 32) * 32 * cdiv(N, 128) * 128)))
import triton
import triton.language as tl


@triton.jit
def pack(src, dst, R, C, ld, BR: tl.constexpr, BC: tl.constexpr, PACK: tl.constexpr):
    # dst[r, c] = src[r, c] for r < R, c < C, dst's rows ld elements apart;
    # the rest of dst stays the zero the judge filled it with.
    if PACK:
        r = tl.program_id(1) * BR + tl.arange(0, BR)
        c = tl.program_id(0) * BC + tl.arange(0, BC)
        ok = (r[:, None] < R) & (c[None, :] < C)
        v = tl.load(src + r.to(tl.int64)[:, None] * C + c[None, :], mask=ok)
        tl.store(dst + r.to(tl.int64)[:, None] * ld + c[None, :], v, mask=ok)


@triton.jit
def sgemm(A, B, Ap, Bp, C, M, N, K, Kp, Np, BM: tl.constexpr, BN: tl.constexpr, BK: tl.constexpr,
          GROUP_M: tl.constexpr, PACK: tl.constexpr):
    pid = tl.program_id(0)
    tiles_m = tl.cdiv(M, BM)
    tiles_n = tl.cdiv(N, BN)
    per_group = GROUP_M * tiles_n
    first_m = (pid // per_group) * GROUP_M
    group_m = tl.minimum(tiles_m - first_m, GROUP_M)
    pid_m = first_m + (pid % per_group) % group_m
    pid_n = (pid % per_group) // group_m

    rm = pid_m * BM + tl.arange(0, BM)
    rn = pid_n * BN + tl.arange(0, BN)
    rk = tl.arange(0, BK)
    am = rm % M  # wrapped onto real rows: no mask on M in the loop
    acc = tl.zeros((BM, BN), dtype=tl.float32)
    if PACK:
        # packed copies: strides Kp, Np multiples of 16, Kp a whole number of
        # BK steps, Np of BN tiles (columns N..Np-1 and rows K..Kp-1 are zero)
        a_ptrs = Ap + am.to(tl.int64)[:, None] * Kp + rk[None, :]
        b_ptrs = Bp + rk.to(tl.int64)[:, None] * Np + rn[None, :]
        for k0 in range(0, Kp, BK):
            a = tl.load(a_ptrs)
            b = tl.load(b_ptrs)
            acc = tl.dot(a, b, acc, input_precision="ieee")
            a_ptrs += BK
            b_ptrs += BK * Np
    else:
        bn = rn % N
        a_ptrs = A + am.to(tl.int64)[:, None] * K + rk[None, :]
        b_ptrs = B + rk.to(tl.int64)[:, None] * N + bn[None, :]
        for k0 in range(0, K, BK):
            k_ok = rk < K - k0
            a = tl.load(a_ptrs, mask=k_ok[None, :], other=0.0)
            b = tl.load(b_ptrs, mask=k_ok[:, None], other=0.0)
            acc = tl.dot(a, b, acc, input_precision="ieee")
            a_ptrs += BK
            b_ptrs += BK * N

    c_ptrs = C + rm.to(tl.int64)[:, None] * N + rn[None, :]
    tl.store(c_ptrs, acc, mask=(rm[:, None] < M) & (rn[None, :] < N))
