# WRONG (Memory Violation): solution.py with the last block's mask dropped.
# The last program reads and writes a whole BLOCK past the end of the vectors:
# at N = 1 with BLOCK = 1024 it stores 2046 bytes into the guard band after C.
#
# @tune BLOCK=(1024, 2048, 4096)
# @tune WARPS=(4, 8)
# @launch vadd grid=(cdiv(N, BLOCK)) num_warps=WARPS args=(A, B, C, N, BLOCK=BLOCK)
import triton
import triton.language as tl


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
        a = tl.load(A + offs)
        b = tl.load(B + offs)
        tl.store(C + offs, a + b)
