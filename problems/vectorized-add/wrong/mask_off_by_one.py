# WRONG (Wrong Answer): solution.py with the tail mask one element short
# (offs < N - 1): the last element of C is never written and keeps the judge's
# NaN poison.
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
        mask = offs < N - 1
        a = tl.load(A + offs, mask=mask)
        b = tl.load(B + offs, mask=mask)
        tl.store(C + offs, a + b, mask=mask)


def solve(A, B, C, N):
    vadd[lambda meta: (triton.cdiv(N, meta['BLOCK']),)](A, B, C, N)
