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
# Whether to pack is decided per case in solve, in plain Python: `packing`
# is true only when a stride is odd *and* the two copies fit in the problem's
# scratch cap (16 M N bytes): skinny cases such as 4096 x 1 x 4096 or
# 129 x 383 x 1025 keep the direct path, and so do the aligned shapes, whose
# builds are unchanged. It reaches the kernels as the constexpr PACK (0 or 1);
# with PACK = 0 the copy launches run one idle program each and the scratch
# buffers are one element.
#
# Tuned as before (@triton.autotune: the judge times every config and keeps
# the fastest per shape): 64 x 128 (4 warps) or 128 x 128 tiles (8 warps), 64
# outputs per thread, a K step of 16 or 32.
#
# The judge calls solve(A, B, C, M, N, K) for every test and benchmark shape,
# with the problem's tensors, and runs what it launches
# (docs/submission-format.md).
import torch
import triton
import triton.language as tl

BN = 128
GROUP_M = 8
STAGES = 3
BK_PACK = 32  # Kp: K rounded up to a whole number of the largest BK
BR, BC = 32, 128  # the copy kernel's tile


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


@triton.autotune(configs=[triton.Config({"BM": bm, "BK": bk}, num_warps=bm * BN // 2048,
                                        num_stages=STAGES)
                          for bm in (64, 128) for bk in (16, 32)],
                 key=["M", "N", "K"])
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


def solve(A, B, C, M, N, K):
    Kp = triton.cdiv(K, BK_PACK) * BK_PACK  # a whole number of BK steps
    Np = triton.cdiv(N, BN) * BN  # a whole number of BN tiles
    # pack when a row stride is not a multiple of 16 and both copies fit in the
    # scratch cap, 16 M N bytes = 4 M N floats
    packing = (N % 16 != 0 or K % 16 != 0) and M * Kp + Kp * Np <= 4 * M * N
    # the packed copies (M x Kp and Kp x Np, and a spare float), zeroed by the
    # judge before every run: the pad adds nothing; one float each when not packing
    Ap = torch.zeros(M * Kp + 1 if packing else 1, dtype=torch.float32, device=A.device)
    Bp = torch.zeros(Kp * Np + 1 if packing else 1, dtype=torch.float32, device=A.device)
    grid_a = (triton.cdiv(K, BC), triton.cdiv(M, BR)) if packing else (1, 1)
    grid_b = (triton.cdiv(N, BC), triton.cdiv(K, BR)) if packing else (1, 1)
    pack[grid_a](A, Ap, M, K, Kp, BR=BR, BC=BC, PACK=int(packing), num_warps=4)
    pack[grid_b](B, Bp, K, N, Np, BR=BR, BC=BC, PACK=int(packing), num_warps=4)
    grid = lambda meta: (triton.cdiv(M, meta["BM"]) * triton.cdiv(N, meta["BN"]),)
    sgemm[grid](A, B, Ap, Bp, C, M, N, K, Kp, Np, BN=BN, GROUP_M=GROUP_M, PACK=int(packing))
