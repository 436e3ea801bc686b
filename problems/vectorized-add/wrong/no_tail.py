# WRONG (Wrong Answer): solution.py without the masked branch. The full
# blocks are added with 16-byte accesses, but the last N mod BLOCK elements
# are never written, so they keep the judge's NaN poison (N = 1 already fails).
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


def solve(A, B, C, N):
    vadd[lambda meta: (triton.cdiv(N, meta['BLOCK']),)](A, B, C, N)
