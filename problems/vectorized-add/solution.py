# Vectorized Vector Add in Triton: C[i] = A[i] + B[i] in fp16, at memory speed.
#
# Triton vectorizes an access when it can prove it: the pointers are 16-byte
# aligned (the judge's buffers are), the offsets of a program are BLOCK
# consecutive elements starting at a multiple of BLOCK, and, for a masked
# access, the mask is constant over each group of 8 halves. That last fact
# holds for `offs < N` only when N is known to be a multiple of 16 (the judge
# marks such an N, as Triton's JIT does). For N = 2^29 + 3 it is not, and a
# kernel whose every access is masked falls back to 2-byte loads and stores
# everywhere (naive.py shows it: the vectorized goal fails on that shape).
#
# So the mask is kept out of the way: every program whose BLOCK elements all
# lie inside the vectors (all but the last one) loads, adds and stores without
# a mask, which compiles to 16-byte accesses (LDG.E.128 / STG.E.128) whatever
# N is; only the last program takes the masked branch. The branch is on a
# scalar, so it costs one comparison per program.
#
# BLOCK and num_warps are autotuned (six configs: the judge checks and times
# each and keeps the fastest per shape): 4096 halves over 128 threads is 4 x 16
# bytes per input per thread, all issued before the first add. The offsets are
# int64 so that pid * BLOCK cannot wrap.
#
# The judge calls solve(A, B, C, N) for every test and benchmark shape, with
# the problem's tensors, and runs what it launches (docs/submission-format.md).
import triton
import triton.language as tl


@triton.autotune(configs=[triton.Config({'BLOCK': 1024}, num_warps=4),
                          triton.Config({'BLOCK': 1024}, num_warps=8),
                          triton.Config({'BLOCK': 2048}, num_warps=4),
                          triton.Config({'BLOCK': 2048}, num_warps=8),
                          triton.Config({'BLOCK': 4096}, num_warps=4),
                          triton.Config({'BLOCK': 4096}, num_warps=8)],
                 key=['N'])
@triton.jit
def vadd(A, B, C, N, BLOCK: tl.constexpr):
    start = tl.program_id(0).to(tl.int64) * BLOCK
    offs = start + tl.arange(0, BLOCK)
    if start + BLOCK <= N:
        # a whole block inside the vectors: no mask, 16-byte accesses
        a = tl.load(A + offs)
        b = tl.load(B + offs)
        tl.store(C + offs, a + b)
    else:
        # the last, partial block: masked element accesses
        mask = offs < N
        a = tl.load(A + offs, mask=mask)
        b = tl.load(B + offs, mask=mask)
        tl.store(C + offs, a + b, mask=mask)


def solve(A, B, C, N):
    vadd[lambda meta: (triton.cdiv(N, meta['BLOCK']),)](A, B, C, N)
